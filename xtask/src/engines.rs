//! The three browser engines the viewer is tested in, and what each needs on this machine:
//! Chromium (Debian's `chromium` and `chromium-driver`), Firefox (Debian's `firefox-esr`, and
//! geckodriver built from crates.io into `target/tools/`) and WebKit (Debian's
//! `webkit2gtk-driver`: `WebKitWebDriver`, which drives WebKitGTK's `MiniBrowser`, on an X
//! display that Debian's `xvfb` provides). Found on `PATH` or through environment variables,
//! installed when missing (apt-get only as root), and otherwise named exactly.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::tools::{apt_install, can_apt, geckodriver};
use crate::util::{Result, step};

/// A browser engine.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Engine {
    Chromium,
    Firefox,
    WebKit,
}

impl Engine {
    /// Every engine, in the order the tests run them.
    pub const ALL: [Engine; 3] = [Engine::Chromium, Engine::Firefox, Engine::WebKit];

    /// The name on the command line (`--engine NAME`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
            Engine::WebKit => "webkit",
        }
    }

    /// The name for people.
    pub fn label(self) -> &'static str {
        match self {
            Engine::Chromium => "Chromium",
            Engine::Firefox => "Firefox",
            Engine::WebKit => "WebKit",
        }
    }

    /// `chromium`, `firefox`, `webkit`, or `all`.
    pub fn parse(name: &str) -> Result<Vec<Engine>> {
        if name == "all" {
            return Ok(Engine::ALL.to_vec());
        }
        Engine::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .map(|e| vec![e])
            .ok_or_else(|| {
                format!("--engine takes chromium, firefox, webkit or all, not `{name}`").into()
            })
    }

    /// The Debian packages that hold this engine's browser and driver (geckodriver is not one:
    /// it is built with cargo, see `tools::geckodriver`).
    fn packages(self) -> &'static [&'static str] {
        match self {
            Engine::Chromium => &["chromium", "chromium-driver"],
            Engine::Firefox => &["firefox-esr"],
            Engine::WebKit => &["webkit2gtk-driver", "xvfb"],
        }
    }
}

/// An engine ready to drive: its browser, its WebDriver server and, for WebKit, the X server.
#[derive(Clone, Debug)]
pub struct Installed {
    pub engine: Engine,
    /// Chromium's or Firefox's binary; WebKitGTK's `MiniBrowser`.
    pub browser: PathBuf,
    /// chromedriver, geckodriver or WebKitWebDriver.
    pub driver: PathBuf,
    /// `Xvfb`, for WebKit (MiniBrowser needs a display).
    pub xvfb: Option<PathBuf>,
}

/// What is missing of one engine, in words, with the Debian package that holds it.
struct Missing {
    what: &'static str,
    package: &'static str,
    variable: &'static str,
}

/// Finds the engines, installing the Debian packages that are missing when running as root and
/// building geckodriver when Firefox is wanted; otherwise fails with exactly what to install.
pub fn engines(wanted: &[Engine]) -> Result<Vec<Installed>> {
    let lacking: Vec<Engine> = wanted
        .iter()
        .copied()
        .filter(|e| !missing(*e).is_empty())
        .collect();
    if !lacking.is_empty() {
        if !can_apt() {
            let have = Engine::ALL.into_iter().find(|e| missing(*e).is_empty());
            let lacking: Vec<(Engine, Vec<Missing>)> =
                lacking.iter().map(|e| (*e, missing(*e))).collect();
            return Err(not_installed(&lacking, have).into());
        }
        let packages: Vec<&str> = lacking.iter().flat_map(|e| e.packages()).copied().collect();
        step(&format!(
            "installing the browsers for {} (apt-get install {})",
            names(&lacking),
            packages.join(" ")
        ));
        apt_install(&packages, None)?;
    }
    wanted
        .iter()
        .map(|engine| {
            find(*engine)?.ok_or_else(|| {
                format!(
                    "apt-get finished, but {} still lacks: {}",
                    engine.label(),
                    words(&missing(*engine))
                )
                .into()
            })
        })
        .collect()
}

/// The Debian packages still to install for `wanted` (for a background install).
pub fn packages_to_install(wanted: &[Engine]) -> Vec<&'static str> {
    wanted
        .iter()
        .filter(|e| !missing(**e).is_empty())
        .flat_map(|e| e.packages())
        .copied()
        .collect()
}

fn names(engines: &[Engine]) -> String {
    engines
        .iter()
        .map(|e| e.label())
        .collect::<Vec<_>>()
        .join(", ")
}

fn words(missing: &[Missing]) -> String {
    missing
        .iter()
        .map(|m| format!("{} (Debian's {}; or set {})", m.what, m.package, m.variable))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The message for a user who cannot run apt-get here.
/// `have` is an engine that has everything, to suggest running alone.
fn not_installed(lacking: &[(Engine, Vec<Missing>)], have: Option<Engine>) -> String {
    let mut text = String::from("the browser tests need what this machine lacks:\n");
    let mut packages: Vec<&str> = Vec::new();
    for (engine, missing) in lacking {
        text.push_str(&format!("  {}: {}\n", engine.label(), words(missing)));
        for m in missing {
            if !packages.contains(&m.package) {
                packages.push(m.package);
            }
        }
    }
    text.push_str(&format!(
        "On Debian or Ubuntu: sudo apt-get install -y --no-install-recommends {}\n\
         (cargo xtask installs them itself when run as root.)",
        packages.join(" ")
    ));
    if let Some(have) = have {
        text.push_str(&format!(
            " Or run the engines you have alone, for example: cargo xtask browser --engine {}",
            have.name()
        ));
    }
    text
}

/// The parts of `engine` that cannot be found (geckodriver is built, never missing here).
fn missing(engine: Engine) -> Vec<Missing> {
    let mut missing = Vec::new();
    let mut need = |found: Option<PathBuf>, what, package, variable| {
        if found.is_none() {
            missing.push(Missing {
                what,
                package,
                variable,
            });
        }
    };
    match engine {
        Engine::Chromium => {
            need(chromium(), "Chromium", "chromium", "CHROMIUM");
            need(
                program("CHROMEDRIVER", &["chromedriver"]),
                "ChromeDriver",
                "chromium-driver",
                "CHROMEDRIVER",
            );
        }
        Engine::Firefox => need(firefox(), "Firefox", "firefox-esr", "FIREFOX"),
        Engine::WebKit => {
            need(
                program("WEBKIT_WEBDRIVER", &["WebKitWebDriver"]),
                "WebKitWebDriver",
                "webkit2gtk-driver",
                "WEBKIT_WEBDRIVER",
            );
            need(program("XVFB", &["Xvfb"]), "Xvfb", "xvfb", "XVFB");
        }
    }
    missing
}

fn find(engine: Engine) -> Result<Option<Installed>> {
    find_installed(engine).transpose()
}

fn find_installed(engine: Engine) -> Option<Result<Installed>> {
    Some(Ok(match engine {
        Engine::Chromium => Installed {
            engine,
            browser: chromium()?,
            driver: program("CHROMEDRIVER", &["chromedriver"])?,
            xvfb: None,
        },
        Engine::Firefox => {
            let browser = firefox()?;
            match geckodriver() {
                Ok(driver) => Installed {
                    engine,
                    browser,
                    driver,
                    xvfb: None,
                },
                Err(error) => return Some(Err(error)),
            }
        }
        Engine::WebKit => Installed {
            engine,
            // Informative only: WebKitWebDriver starts the MiniBrowser it was built with.
            browser: minibrowser().unwrap_or_else(|| PathBuf::from("MiniBrowser")),
            driver: program("WEBKIT_WEBDRIVER", &["WebKitWebDriver"])?,
            xvfb: Some(program("XVFB", &["Xvfb"])?),
        },
    }))
}

fn chromium() -> Option<PathBuf> {
    program(
        "CHROMIUM",
        &["chromium", "chromium-browser", "google-chrome"],
    )
}

fn firefox() -> Option<PathBuf> {
    program("FIREFOX", &["firefox-esr", "firefox"])
}

/// WebKitGTK's MiniBrowser, where Debian puts it (WebKitWebDriver starts it from there).
fn minibrowser() -> Option<PathBuf> {
    [
        "/usr/lib/x86_64-linux-gnu",
        "/usr/lib/aarch64-linux-gnu",
        "/usr/lib",
    ]
    .iter()
    .map(|lib| Path::new(lib).join("webkit2gtk-4.1/MiniBrowser"))
    .find(|path| path.is_file())
}

/// The path in `variable`, or the first of `names` on `PATH`.
fn program(variable: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(variable).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(path));
    }
    names.iter().find_map(|name| which(name))
}

pub fn which(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(name))
        .find(|path| path.is_file())
}

/// A private X server (Xvfb) for WebKit, on a display number it picks itself; stopped when
/// dropped.
pub struct Display {
    child: Child,
    /// `:N`, for `DISPLAY`.
    pub name: String,
}

impl Display {
    pub fn start(xvfb: &Path) -> Result<Display> {
        let mut child = Command::new(xvfb)
            // Xvfb writes the display number it chose to file descriptor 1 once it is ready. The
            // screen is as tall as the tallest screenshot: WebKit lays out and paints only what
            // lies on the screen.
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1920x4200x24",
                "-nolisten",
                "tcp",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", xvfb.display()))?;
        let stdout = child.stdout.take().ok_or("Xvfb has no standard output")?;
        let (send, receive) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = send.send(line);
        });
        let number = receive
            .recv_timeout(Duration::from_secs(30))
            .ok()
            .and_then(|line| line.trim().parse::<u32>().ok());
        match number {
            Some(number) => Ok(Display {
                child,
                name: format!(":{number}"),
            }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("{} did not start a display within 30 s", xvfb.display()).into())
            }
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn engines_are_named_on_the_command_line() {
        assert_eq!(Engine::parse("all").unwrap(), Engine::ALL.to_vec());
        assert_eq!(Engine::parse("webkit").unwrap(), vec![Engine::WebKit]);
        let error = Engine::parse("safari").unwrap_err().to_string();
        assert!(
            error.contains("chromium, firefox, webkit or all"),
            "{error}"
        );
    }

    #[test]
    fn the_message_without_root_names_each_package_once_and_the_way_around() {
        let lacking = |what, package, variable| Missing {
            what,
            package,
            variable,
        };
        let text = not_installed(
            &[
                (
                    Engine::Firefox,
                    vec![lacking("Firefox", "firefox-esr", "FIREFOX")],
                ),
                (
                    Engine::WebKit,
                    vec![
                        lacking("WebKitWebDriver", "webkit2gtk-driver", "WEBKIT_WEBDRIVER"),
                        lacking(
                            "WebKitGTK's MiniBrowser",
                            "webkit2gtk-driver",
                            "MINIBROWSER",
                        ),
                        lacking("Xvfb", "xvfb", "XVFB"),
                    ],
                ),
            ],
            Some(Engine::Chromium),
        );
        assert!(
            text.contains("  Firefox: Firefox (Debian's firefox-esr; or set FIREFOX)\n"),
            "{text}"
        );
        assert!(
            text.contains(
                "sudo apt-get install -y --no-install-recommends firefox-esr webkit2gtk-driver xvfb\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("cargo xtask browser --engine chromium"),
            "{text}"
        );
    }
}
