//! Small helpers shared by the tasks: running commands, printing progress, finding the root.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Held while apt-get runs: the background Chromium install and the PostgreSQL install must not
/// run at once (dpkg allows one at a time). apt-get itself also waits for another process's lock
/// (`APT_WAIT`).
pub static APT: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// apt-get's option to wait up to five minutes for dpkg's lock instead of failing at once.
pub const APT_WAIT: [&str; 2] = ["-o", "DPkg::Lock::Timeout=300"];

/// The workspace root (the parent of this crate's folder).
pub fn project_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one folder below the workspace root")
        .to_path_buf()
}

/// Prints a progress line for a step.
pub fn step(what: &str) {
    eprintln!("==> {what}");
}

/// Runs `cargo args…` in `dir`, failing with the command line if it fails.
pub fn cargo(dir: &Path, args: &[&str]) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(Command::new(cargo).args(args).current_dir(dir))
}

/// Runs a command with inherited output; an error names the command and its exit status.
pub fn run(command: &mut Command) -> Result<()> {
    let status = command
        .status()
        .map_err(|e| format!("could not start {}: {e}", describe(command)))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{} failed ({status})", describe(command)).into())
    }
}

/// Runs a command and returns its standard output, or `None` if it cannot start or fails.
pub fn output(command: &mut Command) -> Option<String> {
    let out = command.output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

fn describe(command: &Command) -> String {
    let mut text = command.get_program().to_string_lossy().into_owned();
    for arg in command.get_args() {
        text.push(' ');
        text.push_str(&arg.to_string_lossy());
    }
    format!("`{text}`")
}

/// Makes sure rustup has `target` installed, installing it (with rustup's progress) if missing.
pub fn rustup_target(target: &str) -> Result<()> {
    let installed = output(Command::new("rustup").args(["target", "list", "--installed"]))
        .ok_or("`rustup` is needed to add the WebAssembly target; install Rust with rustup")?;
    if installed.lines().any(|line| line.trim() == target) {
        return Ok(());
    }
    step(&format!(
        "installing the Rust target {target} (rustup target add)"
    ));
    run(Command::new("rustup").args(["target", "add", target])).map_err(|e| {
        format!("{e}\nthe target {target} could not be installed; check the network, then run `rustup target add {target}`").into()
    })
}

/// Kills a child started in its own process group (`process_group(0)`) with everything it
/// started: a test runner with its driver and browser, a driver with its browser.
pub fn stop_group(child: &mut Child) {
    let group = format!("-{}", child.id());
    let _ = Command::new("kill")
        .args(["-KILL", "--", &group])
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

/// The integration test binaries `cargo test <selection> --no-run` makes for the package in
/// folder `package` (built as that selection builds it; already built, nothing is).
pub fn test_binaries(root: &Path, selection: &[&str], package: &Path) -> Result<Vec<PathBuf>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .arg("test")
        .args(selection)
        .args(["--no-run", "--message-format=json-render-diagnostics"])
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output()?;
    if !out.status.success() {
        return Err("cargo test --no-run failed (see above)".into());
    }
    let package = std::fs::canonicalize(package)?;
    let ours = |manifest: &str| {
        Path::new(manifest)
            .parent()
            .and_then(|dir| std::fs::canonicalize(dir).ok())
            .is_some_and(|dir| dir == package)
    };
    Ok(test_executables(&out.stdout, |message| {
        message["manifest_path"].as_str().is_some_and(ours)
    }))
}

/// The integration test executables in cargo's `--message-format=json` output `stdout`, of the
/// artifacts `keep` accepts.
pub fn test_executables(stdout: &[u8], keep: impl Fn(&serde_json::Value) -> bool) -> Vec<PathBuf> {
    let mut binaries = Vec::new();
    for line in String::from_utf8_lossy(stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] == "compiler-artifact"
            && message["profile"]["test"] == true
            && message["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k == "test"))
            && keep(&message)
            && let Some(path) = message["executable"].as_str()
        {
            binaries.push(PathBuf::from(path));
        }
    }
    binaries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_executables_are_the_integration_tests_kept() {
        let stdout = br#"not json
{"reason":"compiler-artifact","profile":{"test":true},"target":{"kind":["test"]},"manifest_path":"/a/Cargo.toml","executable":"/t/one"}
{"reason":"compiler-artifact","profile":{"test":true},"target":{"kind":["lib"]},"manifest_path":"/a/Cargo.toml","executable":"/t/lib"}
{"reason":"compiler-artifact","profile":{"test":false},"target":{"kind":["test"]},"manifest_path":"/a/Cargo.toml","executable":"/t/plain"}
{"reason":"compiler-artifact","profile":{"test":true},"target":{"kind":["test"]},"manifest_path":"/b/Cargo.toml","executable":"/t/two"}
{"reason":"build-finished","success":true}"#;
        assert_eq!(
            test_executables(stdout, |_| true),
            [PathBuf::from("/t/one"), PathBuf::from("/t/two")]
        );
        assert_eq!(
            test_executables(stdout, |m| m["manifest_path"] == "/b/Cargo.toml"),
            [PathBuf::from("/t/two")]
        );
    }
}
