//! One corpus, one verdict: every record file in `tests/corpus/` gets from `lane-records replay`
//! the verdict written beside it in `tests/corpus/expected.txt`. The browser tests open the same
//! bytes in the viewer (`tests/tests/corpus.rs` at the workspace root) and expect the same
//! verdicts, so the command line and the viewer cannot drift apart.

use std::path::{Path, PathBuf};
use std::process::Command;

use lane_records::{ReplayReport, replay_file};
use project_lanes::record::ReplayMismatch;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// `(file, verdict)` for every line of `expected.txt`.
fn expected() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(corpus().join("expected.txt")).unwrap();
    text.lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace();
            let file = words.next().unwrap().to_string();
            let verdict = words.next().unwrap_or_else(|| panic!("{line}")).to_string();
            (file, verdict)
        })
        .collect()
}

/// The verdict of the library function the command runs.
fn verdict(path: &Path) -> String {
    match replay_file(path) {
        ReplayReport::Matched(_) => "verified".into(),
        ReplayReport::Unreadable(e) => e.code().into(),
        ReplayReport::Mismatch(ReplayMismatch::Invalid(_)) => "INVALID_RECORD".into(),
        ReplayReport::Mismatch(_) | ReplayReport::StepMismatch(_) => "REPLAY_MISMATCH".into(),
    }
}

#[test]
fn every_corpus_file_is_listed_once_with_its_verdict() {
    let listed: Vec<String> = expected().into_iter().map(|(file, _)| file).collect();
    let mut files: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name != "expected.txt")
        .collect();
    files.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(
        files, sorted,
        "files in tests/corpus/ and lines of expected.txt"
    );
    sorted.dedup();
    assert_eq!(sorted.len(), listed.len(), "a file is listed twice");
    for (file, verdict) in expected() {
        assert!(
            [
                "verified",
                "REPLAY_MISMATCH",
                "INVALID_JSON",
                "INVALID_RECORD",
                "UNKNOWN_FORMAT",
                "UNSUPPORTED_VERSION",
            ]
            .contains(&verdict.as_str()),
            "{file}: {verdict}"
        );
    }
}

#[test]
fn lane_records_replay_gives_every_corpus_file_its_expected_verdict() {
    let bin = env!("CARGO_BIN_EXE_lane-records");
    let mut wrong = Vec::new();
    for (file, expected) in expected() {
        let path = corpus().join(&file);
        let out = Command::new(bin).arg("replay").arg(&path).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let said = match expected.as_str() {
            "verified" => ": ok, all ",
            "REPLAY_MISMATCH" => ": MISMATCH at ",
            _ => ": unreadable: ",
        };
        let code = verdict(&path);
        if out.status.success() != (expected == "verified")
            || out.status.code() == Some(101)
            || !stdout.contains(said)
            || (said == ": unreadable: " && !stdout.contains(&format!("({expected})")))
            || code != expected
        {
            wrong.push(format!(
                "{file}: expected {expected}, got {code} (exit {:?}): {}",
                out.status.code(),
                stdout.lines().next().unwrap_or_default()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
