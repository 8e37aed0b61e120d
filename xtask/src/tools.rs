//! The tools the web tasks need, installed on demand: the wasm32 target (rustup), the
//! wasm-bindgen CLI at exactly the version the viewer pins, geckodriver and mdbook (for the
//! guide) at the versions pinned here (all built with `cargo install` into `target/tools/`), and
//! Debian packages (apt-get, when running as root): the browsers of `engines.rs`, PostgreSQL.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::thread::JoinHandle;

use crate::util::{Result, output, project_root, run, rustup_target, step};

pub const WASM_TARGET: &str = "wasm32-unknown-unknown";

/// The exact wasm-bindgen version pinned in `web/Cargo.toml` (`wasm-bindgen = "=X.Y.Z"`).
pub fn wasm_bindgen_version() -> Result<String> {
    let manifest = project_root().join("web/Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| format!("cannot read {}: {e}", manifest.display()))?;
    text.lines()
        .find_map(|line| {
            let rest = line.trim().strip_prefix("wasm-bindgen")?.trim_start();
            let version = rest.strip_prefix('=')?.trim().strip_prefix("\"=")?;
            Some(version.split('"').next()?.to_string())
        })
        .ok_or_else(|| {
            format!(
                "{} must pin wasm-bindgen exactly, like `wasm-bindgen = \"=0.2.130\"`",
                manifest.display()
            )
            .into()
        })
}

/// Installs, in the background, the tools the web steps will need and do not have yet, while
/// the native steps run: apt-get is mostly waiting on the network and the disk, and
/// `cargo install` fills the cores that a build leaves idle. Output goes to log files.
pub struct Prefetch {
    installs: Vec<Install>,
}

/// One background install: what it installs, its log, and its thread (errors as text, since
/// they cross threads).
type Install = (
    &'static str,
    PathBuf,
    JoinHandle<std::result::Result<(), String>>,
);

/// Starts `install` in a thread of its own, its output in `logs/<log>`; `name` says what it
/// installs in the progress line, `what` in an error.
fn background(
    (installs, logs): (&mut Vec<Install>, &Path),
    what: &'static str,
    name: String,
    log: &str,
    install: impl FnOnce(&Path) -> Result<()> + Send + 'static,
) {
    let log = logs.join(log);
    step(&format!(
        "installing {name} in the background, once (log: {})",
        log.display()
    ));
    let file = log.clone();
    let handle = std::thread::spawn(move || install(&file).map_err(|e| e.to_string()));
    installs.push((what, log, handle));
}

/// The tools built with `cargo install`: what each is, its log, and its install into that log.
type CargoTool = (&'static str, &'static str, fn(&Path) -> Result<()>);
const CARGO_TOOLS: [CargoTool; 3] = [
    ("wasm-bindgen-cli", "wasm-bindgen-install.log", |log| {
        install_wasm_bindgen(Some(log)).map(|_| ())
    }),
    ("geckodriver", "geckodriver-install.log", |log| {
        install_geckodriver(Some(log)).map(|_| ())
    }),
    ("mdbook", "mdbook-install.log", |log| {
        install_mdbook(Some(log))
    }),
];

impl Prefetch {
    /// Starts the installs; `packages` are the Debian packages to install (as root).
    pub fn start(packages: Vec<&'static str>) -> Result<Prefetch> {
        rustup_target(WASM_TARGET)?;
        let logs = project_root().join("target/tools");
        std::fs::create_dir_all(&logs)?;
        let mut installs = Vec::new();
        let missing = [
            !wasm_bindgen_installed()?.1,
            !geckodriver_installed(),
            !mdbook_installed(),
        ];
        for ((what, log, install), missing) in CARGO_TOOLS.into_iter().zip(missing) {
            if missing {
                background((&mut installs, &logs), what, what.into(), log, install);
            }
        }
        if !packages.is_empty() && can_apt() {
            let name = packages.join(" ");
            background(
                (&mut installs, &logs),
                "the browsers",
                name,
                "browsers-install.log",
                move |log| apt_install(&packages, Some(log)),
            );
        }
        Ok(Prefetch { installs })
    }

    /// Waits for the background installs; an error names the log to read.
    pub fn finish(self) -> Result<()> {
        for (what, log, handle) in self.installs {
            step(&format!("waiting for the {what} install to finish"));
            match handle.join() {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    return Err(
                        format!("installing {what} failed: {e}\n(log: {})", log.display()).into(),
                    );
                }
                Err(_) => return Err(format!("installing {what} panicked").into()),
            }
        }
        Ok(())
    }
}

/// Where wasm-bindgen's binaries go, and whether the pinned version is there.
fn wasm_bindgen_installed() -> Result<(PathBuf, bool)> {
    let version = wasm_bindgen_version()?;
    let root = tool_root("wasm-bindgen", &version);
    let bin = root.join("bin");
    let installed = output(Command::new(bin.join("wasm-bindgen")).arg("--version"))
        .is_some_and(|v| v.split_whitespace().nth(1) == Some(version.as_str()));
    Ok((
        root,
        installed && bin.join("wasm-bindgen-test-runner").exists(),
    ))
}

/// Runs `command` with its output in `log` (appended), or inherited without one.
fn run_logged(command: &mut Command, log: Option<&Path>) -> Result<()> {
    if let Some(log) = log {
        let file = File::options().create(true).append(true).open(log)?;
        command
            .stdout(file.try_clone()?)
            .stderr(file)
            .stdin(Stdio::null());
    }
    run(command)
}

/// How `cargo install` builds a tool.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Build {
    /// Optimized: for a tool whose own work takes long (wasm-bindgen-test-runner and
    /// wasm-bindgen process every test binary and the site's module).
    Optimized,
    /// `--debug`: for a tool that does little (geckodriver relays WebDriver; mdbook builds the
    /// guide in about 2 s, against 0.6 s optimized), where an optimized build would take the
    /// cores from the checks around it for minutes longer.
    Debug,
}

/// A tool pinned for `cargo install`: the crate, its exact version, whether its lock file is
/// used (`--locked`), and how it is built.
struct Pin<'a> {
    krate: &'a str,
    version: &'a str,
    locked: bool,
    build: Build,
}

/// `cargo install` of a pinned tool into `root`, its output in `log` when given (else a
/// progress line says so); an error ends with `advice`.
fn cargo_install(
    Pin {
        krate,
        version,
        locked,
        build,
    }: Pin,
    root: &Path,
    log: Option<&Path>,
    advice: &str,
) -> Result<()> {
    if log.is_none() {
        step(&format!(
            "installing {krate} {version} into {} (once; takes a few minutes)",
            root.display()
        ));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command.arg("install");
    if locked {
        command.arg("--locked");
    }
    if build == Build::Debug {
        command.arg("--debug");
    }
    command
        .args([krate, "--version"])
        .arg(format!("={version}"))
        .arg("--root")
        .arg(root);
    run_logged(&mut command, log).map_err(|e| format!("{e}\n{krate} {version} {advice}").into())
}

/// The folder holding `wasm-bindgen` and `wasm-bindgen-test-runner`, installing them if needed.
pub fn wasm_bindgen_bin() -> Result<PathBuf> {
    rustup_target(WASM_TARGET)?;
    install_wasm_bindgen(None)
}

fn install_wasm_bindgen(log: Option<&Path>) -> Result<PathBuf> {
    let version = wasm_bindgen_version()?;
    let (root, installed) = wasm_bindgen_installed()?;
    let bin = root.join("bin");
    if installed {
        return Ok(bin);
    }
    // No --locked: the registry mirror may lack the exact versions of the CLI's lock file.
    cargo_install(
        Pin {
            krate: "wasm-bindgen-cli",
            version: &version,
            locked: false,
            build: Build::Optimized,
        },
        &root,
        log,
        "could not be installed; it must match the wasm-bindgen version in web/Cargo.toml \
         exactly. Check access to crates.io, then run `cargo xtask dist` again.",
    )?;
    Ok(bin)
}

/// Whether this process may install Debian packages (root, with apt-get).
pub fn can_apt() -> bool {
    let root = output(Command::new("id").arg("-u")).is_some_and(|id| id.trim() == "0");
    root && Path::new("/usr/bin/apt-get").exists()
}

/// `apt-get update`, then `apt-get install` of `packages`, one apt-get at a time in this
/// process (`APT`), waiting for another process's lock; output in `log` when given.
pub fn apt_install(packages: &[&str], log: Option<&Path>) -> Result<()> {
    let _apt = crate::util::APT.lock().unwrap_or_else(|e| e.into_inner());
    let apt_get = || {
        let mut command = Command::new("apt-get");
        command
            .args(crate::util::APT_WAIT)
            .env("DEBIAN_FRONTEND", "noninteractive");
        command
    };
    run_logged(apt_get().arg("update"), log)?;
    run_logged(
        apt_get()
            .args(["install", "-y", "--no-install-recommends"])
            .args(packages),
        log,
    )
    .map_err(|e| {
        format!(
            "{e}\n{} could not be installed with apt-get",
            packages.join(" ")
        )
        .into()
    })
}

/// The geckodriver version `cargo xtask` builds for the Firefox tests. geckodriver speaks
/// WebDriver to any recent Firefox (0.37 supports Firefox 128 and later), so it is pinned here
/// rather than matched to the browser.
pub const GECKODRIVER_VERSION: &str = "0.37.1";

fn geckodriver_root() -> PathBuf {
    tool_root("geckodriver", GECKODRIVER_VERSION)
}

fn geckodriver_installed() -> bool {
    std::env::var_os("GECKODRIVER").is_some()
        || output(Command::new(geckodriver_root().join("bin/geckodriver")).arg("--version"))
            .is_some_and(|v| v.split_whitespace().nth(1) == Some(GECKODRIVER_VERSION))
}

/// geckodriver: `GECKODRIVER` if set, else the pinned version in `target/tools/`, built with
/// `cargo install --locked --debug` if missing.
pub fn geckodriver() -> Result<PathBuf> {
    if let Some(path) = std::env::var_os("GECKODRIVER") {
        return Ok(PathBuf::from(path));
    }
    install_geckodriver(None)
}

fn install_geckodriver(log: Option<&Path>) -> Result<PathBuf> {
    let root = geckodriver_root();
    let bin = root.join("bin/geckodriver");
    if geckodriver_installed() {
        return Ok(bin);
    }
    cargo_install(
        Pin {
            krate: "geckodriver",
            version: GECKODRIVER_VERSION,
            locked: true,
            build: Build::Debug,
        },
        &root,
        log,
        "could not be built; check access to crates.io, or set GECKODRIVER to a geckodriver \
         of your own",
    )?;
    Ok(bin)
}

/// The mdbook version the guide (`docs/`) is built with, from crates.io.
pub const MDBOOK_VERSION: &str = "0.5.4";

fn mdbook_root() -> PathBuf {
    tool_root("mdbook", MDBOOK_VERSION)
}

/// `target/tools/<name>-<version>`: where a tool pinned here is installed.
fn tool_root(name: &str, version: &str) -> PathBuf {
    project_root()
        .join("target/tools")
        .join(format!("{name}-{version}"))
}

/// Whether mdbook is there at the pinned version.
fn mdbook_installed() -> bool {
    output(Command::new(mdbook_root().join("bin/mdbook")).arg("--version"))
        .is_some_and(|v| v.trim().strip_prefix("mdbook v") == Some(MDBOOK_VERSION))
}

/// mdbook at the pinned version, built with `cargo install --locked --debug` into
/// `target/tools/` if missing.
pub fn mdbook() -> Result<PathBuf> {
    if !mdbook_installed() {
        step(&format!(
            "installing mdbook {MDBOOK_VERSION} into {} (once; takes a few minutes)",
            mdbook_root().display()
        ));
        install_mdbook(None)?;
    }
    Ok(mdbook_root().join("bin/mdbook"))
}

/// Builds mdbook from crates.io into `target/tools/`, its output in `log` if given.
fn install_mdbook(log: Option<&Path>) -> Result<()> {
    cargo_install(
        Pin {
            krate: "mdbook",
            version: MDBOOK_VERSION,
            locked: true,
            build: Build::Debug,
        },
        &mdbook_root(),
        log,
        "could not be built; check access to crates.io",
    )
}
