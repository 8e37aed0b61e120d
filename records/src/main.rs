//! `lane-records`: scenario files to records, an index for a folder of records, the bundled
//! records' generation and check, and replay. Run `lane-records --help`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lane_records::{
    INDEX_FILE, ReplayReport, compare, describe_mismatch, generate, index_dir, records_dir,
    replay_file, run_scenarios, write_files,
};

const USAGE: &str = "\
lane-records: records of project lanes, made by running scenarios on the real core

usage:
  lane-records run FILE... [--out DIR]
        run scenario files (TOML) and write each record as DIR/<id>.json
        (default: next to its scenario file)
  lane-records index DIR [--order ID,ID,...]
        write DIR/index.json for the records in DIR, with their titles and SHA-256;
        in the order given (every record once), else by file name
  lane-records replay FILE...
        replay record files on the core; report the first mismatching step of each
  lane-records                 regenerate the bundled records (records/scenarios/*.toml)
                               into records/*.json and records/index.json
  lane-records --out DIR       the same, into DIR
  lane-records --check         regenerate in memory; fail with a diff if a committed file differs

Nothing is written unless every file is good; errors name the file, line and column.

examples:
  lane-records run my-scenarios/deploy-waits.toml --out my-docs/records
  lane-records run my-scenarios/*.toml --out my-docs/records
  lane-records index my-docs/records --order deploy-waits,busy-docs
  lane-records replay my-docs/records/deploy-waits.json

The scenario format is described in records/README.md (and records/scenario.schema.json).
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] => write_bundled(&records_dir()),
        ["--out", dir] => write_bundled(Path::new(dir)),
        ["--check"] => check(&records_dir()),
        ["run", rest @ ..] => run(rest),
        ["index", rest @ ..] => index(rest),
        ["replay", files @ ..] if !files.is_empty() => replay(files),
        ["--help" | "-h" | "help"] => {
            print!("{USAGE}");
            ExitCode::SUCCESS
        }
        _ => usage_error(&format!("unexpected arguments {args:?}")),
    }
}

fn usage_error(message: &str) -> ExitCode {
    eprint!("lane-records: {message}\n\n{USAGE}");
    ExitCode::from(2)
}

fn run(args: &[&str]) -> ExitCode {
    let mut files = Vec::new();
    let mut out = None;
    let mut rest = args.iter();
    while let Some(arg) = rest.next() {
        match *arg {
            "--out" => match rest.next() {
                Some(dir) if out.is_none() => out = Some(PathBuf::from(dir)),
                Some(_) => return usage_error("run: --out is given twice"),
                None => return usage_error("run: --out needs a folder"),
            },
            flag if flag.starts_with("--") => {
                return usage_error(&format!("run: unknown option {flag}"));
            }
            file => files.push(PathBuf::from(file)),
        }
    }
    if files.is_empty() {
        return usage_error("run: name at least one scenario file");
    }
    let made = match run_scenarios(&files) {
        Ok(made) => made,
        Err(problems) => {
            eprintln!("{problems}");
            return fail(&format!(
                "{} of {} scenario files failed; nothing was written",
                problems.0.len(),
                files.len()
            ));
        }
    };
    let targets: Vec<(PathBuf, &lane_records::OutputFile)> = made
        .iter()
        .map(|m| {
            let dir = out.clone().unwrap_or_else(|| {
                m.scenario
                    .parent()
                    .map(Path::to_path_buf)
                    .unwrap_or_default()
            });
            (dir, &m.file)
        })
        .collect();
    if let Err(e) = write_files(&targets) {
        return fail(&format!("{e}; nothing was written"));
    }
    for ((dir, file), m) in targets.iter().zip(&made) {
        println!(
            "wrote {} ({} steps, {} bytes) from {}",
            dir.join(&file.name).display(),
            m.record.steps.len(),
            file.bytes.len(),
            m.scenario.display()
        );
    }
    ExitCode::SUCCESS
}

fn index(args: &[&str]) -> ExitCode {
    let (dir, order) = match args {
        [dir] => (*dir, None),
        [dir, "--order", list] | ["--order", list, dir] => (*dir, Some(*list)),
        _ => return usage_error("index: expected DIR [--order ID,ID,...]"),
    };
    let order: Option<Vec<String>> = order.map(|list| {
        list.split(',')
            .map(|id| id.trim().to_string())
            .filter(|id| !id.is_empty())
            .collect()
    });
    let dir = Path::new(dir);
    let (index, skipped) = match index_dir(dir, order.as_deref()) {
        Ok(indexed) => indexed,
        Err(problems) => {
            eprintln!("{problems}");
            return fail(&format!(
                "{} was not written",
                dir.join(INDEX_FILE).display()
            ));
        }
    };
    if let Err(e) = write_files(&[(dir.to_path_buf(), &index)]) {
        return fail(&e);
    }
    let count = serde_json::from_slice::<serde_json::Value>(&index.bytes)
        .ok()
        .and_then(|v| v["records"].as_array().map(Vec::len))
        .unwrap_or_default();
    for path in skipped {
        println!("skipped {} (a JSON Schema, not a record)", path.display());
    }
    let noun = if count == 1 { "record" } else { "records" };
    println!("wrote {} ({count} {noun})", dir.join(INDEX_FILE).display());
    ExitCode::SUCCESS
}

fn write_bundled(dir: &Path) -> ExitCode {
    let files = match generate() {
        Ok(files) => files,
        Err(e) => return fail(&format!("a bundled scenario failed:\n{e}")),
    };
    let targets: Vec<(PathBuf, &lane_records::OutputFile)> =
        files.iter().map(|f| (dir.to_path_buf(), f)).collect();
    if let Err(e) = write_files(&targets) {
        return fail(&format!("{e}; nothing was written"));
    }
    for file in &files {
        println!(
            "wrote {} ({} bytes)",
            dir.join(&file.name).display(),
            file.bytes.len()
        );
    }
    ExitCode::SUCCESS
}

fn check(dir: &Path) -> ExitCode {
    let files = match generate() {
        Ok(files) => files,
        Err(e) => return fail(&format!("a bundled scenario failed:\n{e}")),
    };
    let differences = compare(dir, &files);
    if differences.is_empty() {
        println!(
            "records are up to date: {} files in {} match a fresh generation",
            files.len(),
            dir.display()
        );
        return ExitCode::SUCCESS;
    }
    for difference in &differences {
        eprintln!(
            "{} differs from a fresh generation:\n{}",
            difference.name, difference.diff
        );
    }
    fail(&format!(
        "{} of {} record files are out of date; run `cargo run -p lane-records` and commit the result",
        differences.len(),
        files.len()
    ))
}

fn replay(files: &[&str]) -> ExitCode {
    let mut failed = 0;
    for file in files {
        let path = PathBuf::from(file);
        match replay_file(&path) {
            ReplayReport::Matched(steps) => {
                println!("{file}: ok, all {steps} steps matched the core");
            }
            ReplayReport::Unreadable(e) => {
                failed += 1;
                println!("{file}: unreadable: {e}");
            }
            ReplayReport::Mismatch(m) => {
                failed += 1;
                println!("{file}: MISMATCH at {}", describe_mismatch(&m));
            }
        }
    }
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        fail(&format!("{failed} of {} files did not replay", files.len()))
    }
}

fn fail(message: &str) -> ExitCode {
    eprintln!("lane-records: error: {message}");
    ExitCode::FAILURE
}
