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

impl Prefetch {
    /// Starts the installs; `packages` are the Debian packages to install (as root).
    pub fn start(packages: Vec<&'static str>) -> Result<Prefetch> {
        rustup_target(WASM_TARGET)?;
        let logs = project_root().join("target/tools");
        std::fs::create_dir_all(&logs)?;
        let mut installs = Vec::new();
        if !wasm_bindgen_installed()?.1 {
            let log = logs.join("wasm-bindgen-install.log");
            step(&format!(
                "installing wasm-bindgen-cli in the background, once (log: {})",
                log.display()
            ));
            let file = log.clone();
            let handle = std::thread::spawn(move || {
                install_wasm_bindgen(Some(&file))
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
            installs.push(("wasm-bindgen-cli", log, handle));
        }
        if !geckodriver_installed() {
            let log = logs.join("geckodriver-install.log");
            step(&format!(
                "installing geckodriver {GECKODRIVER_VERSION} in the background, once (log: {})",
                log.display()
            ));
            let file = log.clone();
            let handle = std::thread::spawn(move || {
                install_geckodriver(Some(&file))
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
            installs.push(("geckodriver", log, handle));
        }
        if !mdbook_installed() {
            let log = logs.join("mdbook-install.log");
            step(&format!(
                "installing mdbook {MDBOOK_VERSION} in the background, once (log: {})",
                log.display()
            ));
            let file = log.clone();
            let handle =
                std::thread::spawn(move || install_mdbook(Some(&file)).map_err(|e| e.to_string()));
            installs.push(("mdbook", log, handle));
        }
        if !packages.is_empty() && can_apt() {
            let log = logs.join("browsers-install.log");
            step(&format!(
                "installing {} in the background, once (log: {})",
                packages.join(" "),
                log.display()
            ));
            let file = log.clone();
            let handle = std::thread::spawn(move || {
                apt_install(&packages, Some(&file)).map_err(|e| e.to_string())
            });
            installs.push(("the browsers", log, handle));
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
    let root = project_root()
        .join("target/tools")
        .join(format!("wasm-bindgen-{version}"));
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
    if log.is_none() {
        step(&format!(
            "installing wasm-bindgen-cli {version} into {} (once; takes a few minutes)",
            root.display()
        ));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    // No --locked: the registry mirror may lack the exact versions of the CLI's lock file.
    run_logged(
        Command::new(cargo)
            .args(["install", "wasm-bindgen-cli", "--version"])
            .arg(format!("={version}"))
            .arg("--root")
            .arg(&root),
        log,
    )
    .map_err(|e| {
        format!(
            "{e}\nwasm-bindgen-cli {version} could not be installed; it must match the \
             wasm-bindgen version in web/Cargo.toml exactly. Check access to crates.io, then \
             run `cargo xtask dist` again."
        )
    })?;
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
    project_root()
        .join("target/tools")
        .join(format!("geckodriver-{GECKODRIVER_VERSION}"))
}

fn geckodriver_installed() -> bool {
    std::env::var_os("GECKODRIVER").is_some()
        || output(Command::new(geckodriver_root().join("bin/geckodriver")).arg("--version"))
            .is_some_and(|v| v.split_whitespace().nth(1) == Some(GECKODRIVER_VERSION))
}

/// geckodriver: `GECKODRIVER` if set, else the pinned version in `target/tools/`, built with
/// `cargo install --locked` if missing.
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
    if log.is_none() {
        step(&format!(
            "installing geckodriver {GECKODRIVER_VERSION} into {} (once; takes a few minutes)",
            root.display()
        ));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run_logged(
        Command::new(cargo)
            .args(["install", "--locked", "geckodriver", "--version"])
            .arg(format!("={GECKODRIVER_VERSION}"))
            .arg("--root")
            .arg(&root),
        log,
    )
    .map_err(|e| {
        format!(
            "{e}\ngeckodriver {GECKODRIVER_VERSION} could not be built; check access to \
             crates.io, or set GECKODRIVER to a geckodriver of your own"
        )
    })?;
    Ok(bin)
}

/// The mdbook version the guide (`docs/`) is built with, from crates.io.
pub const MDBOOK_VERSION: &str = "0.5.4";

fn mdbook_root() -> PathBuf {
    project_root()
        .join("target/tools")
        .join(format!("mdbook-{MDBOOK_VERSION}"))
}

/// Whether mdbook is there at the pinned version.
fn mdbook_installed() -> bool {
    output(Command::new(mdbook_root().join("bin/mdbook")).arg("--version"))
        .is_some_and(|v| v.trim().strip_prefix("mdbook v") == Some(MDBOOK_VERSION))
}

/// mdbook at the pinned version, built with `cargo install --locked` into `target/tools/` if
/// missing.
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
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run_logged(
        Command::new(cargo)
            .args(["install", "--locked", "mdbook", "--version"])
            .arg(format!("={MDBOOK_VERSION}"))
            .arg("--root")
            .arg(mdbook_root()),
        log,
    )
    .map_err(|e| {
        format!("{e}\nmdbook {MDBOOK_VERSION} could not be built; check access to crates.io").into()
    })
}
