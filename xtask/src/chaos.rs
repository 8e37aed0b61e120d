//! `chaos [--secs N] [--seed S] [--workers W] [--pace MS]`: the chaos run (`lanes-chaos`) on a throwaway
//! cluster, with release builds of the tools it checks the journal with.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::postgres::Cluster;
use crate::util::{Result, cargo, project_root, run, step};

const USAGE: &str = "cargo xtask chaos [--secs N] [--seed S] [--workers W] [--pace MS]";

/// Where the run writes its record (`chaos.jsonl`); the guide's own is committed in `records/`
/// ([`lane_records::RECORDED`]).
pub const OUT: &str = "target/chaos";

/// `cargo xtask chaos …`: the options are `lanes-chaos run`'s, checked there.
pub fn chaos(args: &[&str]) -> Result<()> {
    let mut rest = args.iter();
    while let Some(flag) = rest.next() {
        if !["--secs", "--seed", "--workers", "--pace"].contains(flag) || rest.next().is_none() {
            return Err(format!("cannot read `{}`; use: {USAGE}", args.join(" ")).into());
        }
    }
    run_chaos(&project_root(), "release", args)
}

/// Builds the chaos run and the tools in `profile` (`release` or `dev`) and runs it with
/// `options` on a fresh cluster.
pub fn run_chaos(root: &Path, profile: &str, options: &[&str]) -> Result<()> {
    let bin = build_tools(root, profile)?;
    let cluster = Cluster::start(root)?;
    step("the chaos run");
    run(Command::new(bin.join("lanes-chaos"))
        .args(["run", "--url", &cluster.url(), "--bin"])
        .arg(&bin)
        .arg("--out")
        .arg(root.join(OUT))
        .args(options)
        .current_dir(root))?;
    let ours =
        |recorded: &&lane_records::Recorded| recorded.made_by.starts_with("cargo xtask chaos");
    for recorded in lane_records::RECORDED.iter().filter(ours) {
        println!(
            "the guide's record records/{} comes from `{}`: copy its {OUT}/chaos.jsonl there",
            recorded.file, recorded.made_by
        );
    }
    Ok(())
}

/// Builds `lanes-chaos`, `lanes-pg` and `lane-records` in `profile` (`release` or `dev`), in one
/// build (so `lane-records` is the same binary for the chaos run and `--check`); returns the
/// folder of the binaries.
pub fn build_tools(root: &Path, profile: &str) -> Result<PathBuf> {
    step(&format!(
        "building the chaos run, lanes-pg and lane-records ({profile})"
    ));
    cargo(
        root,
        &[
            "build",
            "--profile",
            profile,
            "-p",
            "lanes-chaos",
            "-p",
            "lanes-pg",
            "-p",
            "lane-records",
            "--bins",
        ],
    )?;
    Ok(root
        .join("target")
        .join(if profile == "dev" { "debug" } else { profile }))
}
