//! `bench instructions`: what a claim+release pair of plain lanes costs in instructions against a
//! bare `Mutex<HashMap>` insert+remove, counted by callgrind (`core/benches/pair_instructions.rs`
//! says what is counted). Instruction counts do not move with the machine's load, so the ratio
//! it prints is the one to quote; the lanes' instructions are then listed by the source file
//! they were compiled from (everything is inlined into one function, so files say more than
//! function names).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::{Result, project_root, step};

/// Pairs counted per side: enough that the loop's own few instructions and the ends round away.
const PAIRS: u64 = 100_000;

/// Source files listed under the lanes' count: the largest, down to about one instruction a pair.
const FILES_SHOWN: usize = 16;

/// Builds the benchmark, counts both sides and prints per pair instructions, their ratio and
/// the lanes' instructions by source file.
pub fn instructions() -> Result<()> {
    let valgrind = valgrind()?;
    let root = project_root();
    let bin = build(&root)?;
    let out = root.join("target/instructions");
    std::fs::create_dir_all(&out)?;
    let mut per_pair = Vec::new();
    for side in ["lanes", "floor"] {
        step(&format!("counting {PAIRS} pairs of {side} under callgrind"));
        let file = out.join(format!("callgrind.{side}.out"));
        let status = Command::new(&valgrind)
            .args(["--tool=callgrind", "--toggle-collect=*measured_pairs*"])
            .arg(format!("--callgrind-out-file={}", file.display()))
            .arg(&bin)
            .args([side, &PAIRS.to_string()])
            .stderr(Stdio::null())
            .status()?;
        if !status.success() {
            return Err(format!("{} under callgrind failed ({status})", bin.display()).into());
        }
        let total = total(&std::fs::read_to_string(&file)?)
            .ok_or_else(|| format!("no instruction total in {}", file.display()))?;
        per_pair.push((side, total as f64 / PAIRS as f64, file));
    }
    let (lanes, floor) = (per_pair[0].1, per_pair[1].1);
    println!("\ninstructions per claim+release pair (callgrind, {PAIRS} pairs, 64 projects):");
    println!("  ProjectLanes::new()             {lanes:8.1}");
    println!("  Mutex<HashMap<String, u64>>     {floor:8.1}");
    println!("  ratio                           {:8.2}×", lanes / floor);
    println!("\nthe lanes' pair by source file (instructions per pair):");
    for (count, place) in by_file(&per_pair[0].2)?.into_iter().take(FILES_SHOWN) {
        println!("  {:8.1}  {place}", count as f64 / PAIRS as f64);
    }
    println!(
        "\n(callgrind_annotate {} shows the rest)",
        per_pair[0].2.display()
    );
    Ok(())
}

/// `valgrind` on PATH, installed with apt-get when running as root and missing.
fn valgrind() -> Result<PathBuf> {
    let found = || {
        Command::new("valgrind")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if found() {
        return Ok("valgrind".into());
    }
    if !crate::tools::can_apt() {
        return Err("counting instructions needs valgrind (callgrind).\n\
                    On Debian or Ubuntu: sudo apt-get install -y valgrind"
            .into());
    }
    step("installing valgrind (apt-get install valgrind)");
    crate::tools::apt_install(&["valgrind"], None)?;
    if found() {
        Ok("valgrind".into())
    } else {
        Err("apt-get finished but valgrind is missing".into())
    }
}

/// Builds `pair_instructions` in the bench profile, with line tables so callgrind can name the
/// source files of inlined code (they change no instruction), and returns its path.
fn build(root: &Path) -> Result<PathBuf> {
    step("building core/benches/pair_instructions.rs (bench profile)");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(root)
        .env("CARGO_PROFILE_BENCH_DEBUG", "line-tables-only")
        .args([
            "bench",
            "-p",
            "project-lanes",
            "--bench",
            "pair_instructions",
        ])
        .args(["--no-run", "--message-format=json-render-diagnostics"])
        .stderr(Stdio::inherit())
        .output()?;
    if !output.status.success() {
        return Err("building the instruction benchmark failed (see above)".into());
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| {
            m["reason"] == "compiler-artifact" && m["target"]["name"] == "pair_instructions"
        })
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .ok_or_else(|| "cargo built no pair_instructions binary".into())
}

/// The instructions a callgrind output file counted (its `summary:` or `totals:` line).
fn total(text: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
}

/// The counted instructions by source file, largest first, as `callgrind_annotate` groups them.
fn by_file(file: &Path) -> Result<Vec<(u64, String)>> {
    let output = Command::new("callgrind_annotate")
        .arg("--auto=no")
        .arg(file)
        .output()?;
    if !output.status.success() {
        return Err(format!("callgrind_annotate {} failed", file.display()).into());
    }
    let root = project_root();
    Ok(annotated(
        &String::from_utf8_lossy(&output.stdout),
        &root.to_string_lossy(),
    ))
}

/// The `COUNT (P%)  FILE:FUNCTION` lines of `callgrind_annotate`'s output, as counts and short
/// short places (see [`short`]).
fn annotated(text: &str, root: &str) -> Vec<(u64, String)> {
    text.lines()
        .filter_map(|line| {
            let (count, rest) = line.trim_start().split_once(' ')?;
            let count: u64 = count.replace(',', "").parse().ok()?;
            let (_, place) = rest.split_once(')')?;
            let place = place.trim();
            (place != "PROGRAM TOTALS").then(|| (count, short(place, root)))
        })
        .collect()
}

/// `FILE:FUNCTION [OBJECT]` as `FILE`: the toolchain's from `library/`, a registry crate's
/// from its folder, the workspace's from its root (rustc names them so already), anything else
/// by its name.
fn short(place: &str, root: &str) -> String {
    let place = place.split(" [").next().unwrap_or(place);
    let file = place.split_once(':').map_or(place, |(file, _)| file);
    if let Some(at) = file.find("/library/") {
        return file[at + 1..].to_owned();
    }
    if let Some(rest) = file.strip_prefix(root) {
        return rest.trim_start_matches('/').to_owned();
    }
    if !file.starts_with(['/', '.']) {
        return file.to_owned(); // the workspace's, as rustc names them
    }
    if file.contains("/registry/")
        && let Some(at) = file.rfind("/src/")
    {
        let owner = file[..at].rsplit('/').next().unwrap_or("");
        return format!("{owner}{}", &file[at..]);
    }
    file.rsplit('/').next().unwrap_or(file).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_total_is_read_from_the_summary_line() {
        let text = "version: 1\ncreator: callgrind-3.22.0\nevents: Ir\nsummary: 43037532\n";
        assert_eq!(total(text), Some(43_037_532));
        assert_eq!(total("totals: 12\n"), Some(12));
        assert_eq!(total("events: Ir\n"), None);
    }

    #[test]
    fn annotated_lines_become_counts_and_short_places() {
        let text = "\
43,062,532 (100.0%)  PROGRAM TOTALS
9,500,000 (22.06%)  core/src/label.rs:pairs::measured_pairs
3,100,000 ( 7.20%)  /work/x/core/src/lanes/mod.rs:pairs::measured_pairs
2,500,000 ( 5.81%)  /rustc/5980/library/core/src/num/mod.rs:pairs::measured_pairs
2,000,000 ( 4.64%)  /root/.cargo/registry/src/index.crates.io-1949/hashbrown-0.17.2/src/raw.rs:m
1,862,500 ( 4.33%)  ./string/../multiarch/memcmp-avx2-movbe.S:__memcmp_avx2_movbe [/usr/lib/libc.so.6]
Ir  file:function
";
        assert_eq!(
            annotated(text, "/work/x"),
            [
                (9_500_000, "core/src/label.rs".to_owned()),
                (3_100_000, "core/src/lanes/mod.rs".to_owned()),
                (2_500_000, "library/core/src/num/mod.rs".to_owned()),
                (2_000_000, "hashbrown-0.17.2/src/raw.rs".to_owned()),
                (1_862_500, "memcmp-avx2-movbe.S".to_owned()),
            ]
        );
    }
}
