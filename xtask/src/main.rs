//! `cargo xtask`: every automation step of the workspace, in one Rust program.
//!
//! Run `cargo xtask help` for the list of tasks.

mod util;

use std::process::ExitCode;

use util::{Result, cargo, project_root, rustup_target};

const USAGE: &str = "\
cargo xtask <task>

tasks:
  test     all checks: formatting, clippy, native tests, records check, the core built for wasm32
  serve    build the site and serve it (the viewer is not built yet)
  help     this text
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("test") => test(),
        Some("serve") => serve(),
        Some("help" | "--help" | "-h") | None => {
            print!("{USAGE}");
            Ok(())
        }
        Some(other) => Err(format!("unknown task `{other}`\n\n{USAGE}").into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn test() -> Result<()> {
    let root = project_root();
    util::step("formatting (cargo fmt --check)");
    cargo(&root, &["fmt", "--all", "--check"])?;
    util::step("lints (cargo clippy -D warnings)");
    cargo(
        &root,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    util::step("native tests (cargo test --workspace)");
    cargo(&root, &["test", "--workspace"])?;
    util::step("records are up to date (lane-records --check)");
    cargo(
        &root,
        &["run", "--quiet", "-p", "lane-records", "--", "--check"],
    )?;
    util::step("core for WebAssembly (cargo build --target wasm32-unknown-unknown)");
    rustup_target("wasm32-unknown-unknown")?;
    cargo(
        &root,
        &[
            "build",
            "-p",
            "project-lanes",
            "--target",
            "wasm32-unknown-unknown",
        ],
    )?;
    util::step("all checks passed");
    Ok(())
}

fn serve() -> Result<()> {
    Err(
        "the record viewer does not exist yet, so there is no site to serve; \
         `cargo xtask test` runs the checks"
            .into(),
    )
}
