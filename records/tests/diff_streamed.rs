//! `lane-records diff` reads each record front to back and keeps only the steps its words
//! need; what it prints is what the core's comparison of the two records read whole says
//! (`compare`, `project_lanes_view::diff::lines`, `comparison_svg`), for records of every
//! version, of different lengths, differing at their first or last step; and a second record
//! cut short or broken is the error the whole reader gives.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use lane_records::records_dir;
use project_lanes::journal::{Clock, Export, Journal};
use project_lanes::record::diff::{Options, compare};
use project_lanes::record::{Record, Timestamp};
use project_lanes::{Outcome, ProjectLanes};
use project_lanes_view::i18n::Lang;
use serde_json::Value;
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_lane-records");
const LIMIT: u64 = project_lanes::record::stream::DEFAULT_MAX_BYTES;

fn diff(a: &Path, b: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("diff")
        .arg(a)
        .arg(b)
        .args(args)
        .output()
        .unwrap()
}

/// The record at `path`, read whole as every reader reads it.
fn whole(path: &Path) -> Record {
    lane_records::open_record_within(path, LIMIT).unwrap().0
}

/// Asserts that every output of `diff a b` is the comparison of the whole records.
fn streamed_is_whole(a: &Path, b: &Path, dir: &Path) {
    let (ra, rb) = (whole(a), whole(b));
    let expected = compare(&ra, &rb, &Options::default());
    let names = [a.to_str().unwrap(), b.to_str().unwrap()];
    let status = if expected.is_empty() { 0 } else { 1 };
    for (lang, tag) in [(Lang::En, "en"), (Lang::Ja, "ja")] {
        let svg = dir.join(format!("compared-{tag}.svg"));
        let out = diff(a, b, &["--lang", tag, "--svg", svg.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(status), "{out:?}");
        let lines = project_lanes_view::diff::lines(lang, names, &ra, &rb, &expected);
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        assert_eq!(String::from_utf8(out.stdout).unwrap(), text);
        let picture = project_lanes_view::still::comparison_svg(
            names,
            [&ra, &rb],
            &expected,
            lang,
            lane_records::render::VIEWER_CSS,
        );
        assert!(std::fs::read_to_string(&svg).unwrap() == picture, "{svg:?}");
    }
    let out = diff(a, b, &["--json"]);
    assert_eq!(out.status.code(), Some(status), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["diff"], serde_json::to_value(&expected).unwrap());
    assert_eq!(json["same"], expected.is_empty());
    assert_eq!(
        json["differences"],
        project_lanes_view::diff::count(&expected)
    );
    for (side, record) in [("a", &ra), ("b", &rb)] {
        assert_eq!(json[side]["steps"], record.steps.len());
        assert_eq!(json[side]["version"], record.version);
        assert_eq!(json[side]["id"], record.id.as_str());
    }
}

/// What a generated record does differently at a round.
#[derive(Clone, Copy, PartialEq)]
enum Edit {
    /// The release is `failed`.
    Fail,
    /// A second claim is refused while the lane is held.
    Refused,
    /// The lane is held 5 s longer.
    Longer,
    /// The round is left out.
    Skipped,
}

/// A lanes journal's record of `rounds` claims and releases over 7 projects, 10 ms apart,
/// with `edits` (round, edit).
fn rounds(rounds: usize, edits: &[(usize, Edit)]) -> Vec<u8> {
    let now = Arc::new(AtomicU64::new(1_777_604_400_000));
    let clock: Arc<dyn Clock> = {
        let now = now.clone();
        Arc::new(move || Timestamp::from_millis(now.load(Ordering::Relaxed)).unwrap())
    };
    let lanes = ProjectLanes::new().with_journal(Some(clock));
    let mut journal = Journal::lanes();
    let edit = |i: usize, e: Edit| edits.contains(&(i, e));
    for i in 0..rounds {
        if edit(i, Edit::Skipped) {
            continue;
        }
        let project = format!("p{}", i % 7);
        now.fetch_add(10, Ordering::Relaxed);
        let lease = lanes.claim(&project, &format!("run-{i}")).unwrap();
        if edit(i, Edit::Refused) {
            lanes.claim(&project, "intruder").unwrap_err();
        }
        if edit(i, Edit::Longer) {
            now.fetch_add(5_000, Ordering::Relaxed);
        }
        now.fetch_add(10, Ordering::Relaxed);
        let outcome = if edit(i, Edit::Fail) {
            Outcome::Failed
        } else {
            Outcome::Succeeded
        };
        lanes.release(&lease, outcome).unwrap();
        if i % 100 == 0 {
            journal.extend(lanes.take_journal());
        }
    }
    journal.extend(lanes.take_journal());
    let export = Export::new("rounds", "rounds").unwrap();
    journal.write_record(&export, Vec::new()).unwrap().0
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn version_3_records_compare_as_the_whole_records_do() {
    let dir = TempDir::new().unwrap();
    let a = write(dir.path(), "a.jsonl", &rounds(300, &[]));
    let last = 299;
    let cases: Vec<(usize, Vec<(usize, Edit)>)> = vec![
        (300, vec![]),
        (300, vec![(0, Edit::Fail)]),
        (300, vec![(last, Edit::Fail)]),
        (300, vec![(0, Edit::Skipped), (last, Edit::Refused)]),
        (300, vec![(0, Edit::Refused), (last, Edit::Skipped)]),
        (
            300,
            vec![(7, Edit::Longer), (150, Edit::Fail), (151, Edit::Skipped)],
        ),
        (290, vec![(3, Edit::Fail)]),
        (320, vec![]),
        (1, vec![]),
        (
            300,
            (0..300).step_by(3).map(|i| (i, Edit::Skipped)).collect(),
        ),
    ];
    for (n, edits) in &cases {
        let b = write(dir.path(), "b.jsonl", &rounds(*n, edits));
        streamed_is_whole(&a, &b, dir.path());
        streamed_is_whole(&b, &a, dir.path());
    }
}

#[test]
fn records_of_every_version_compare_as_the_whole_records_do() {
    let dir = TempDir::new().unwrap();
    let bundled = records_dir();
    let v3 = write(dir.path(), "rounds.jsonl", &rounds(40, &[(0, Edit::Fail)]));
    let files = [
        bundled.join("busy-project.json"),
        bundled.join("stale-release.json"),
        bundled.join("persistence-gate.json"),
        bundled.join("same-queue-retention.json"),
        bundled.join("chaos-run.jsonl"),
        v3,
    ];
    for a in &files {
        for b in &files {
            streamed_is_whole(a, b, dir.path());
        }
    }
}

#[test]
fn a_second_record_cut_short_or_broken_is_the_whole_readers_error() {
    let dir = TempDir::new().unwrap();
    let bytes = rounds(200, &[]);
    let a = write(dir.path(), "a.jsonl", &bytes);
    let text = String::from_utf8(bytes.clone()).unwrap();
    let middle = text.len() / 2;
    let cut = write(dir.path(), "cut.jsonl", &bytes[..middle]);
    let no_end = write(
        dir.path(),
        "no-end.jsonl",
        &bytes[..text.trim_end().rfind('\n').unwrap() + 1],
    );
    let broken = write(
        dir.path(),
        "broken.jsonl",
        text.replacen("\"op\":\"release\"", "\"op\":\"relaese\"", 1)
            .as_bytes(),
    );
    let mut answered = text.clone();
    let at = answered.rfind("\"op\":\"claim\"").unwrap();
    answered.insert_str(at, "\"junk\":1,");
    let junk = write(dir.path(), "junk.jsonl", answered.as_bytes());
    for bad in [&cut, &no_end, &broken, &junk] {
        let Err(e) = lane_records::open_record_within(bad, LIMIT) else {
            panic!("{bad:?} reads");
        };
        let expected = format!(
            "lane-records: error: {}: unreadable: {e} ({})\n",
            bad.display(),
            e.code()
        );
        let out = diff(&a, bad, &[]);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stderr), expected);
        assert!(out.stdout.is_empty());
    }
}
