//! `lane-records diff`: a scenario against a copy with one outcome changed, a record against
//! itself, unreadable files, and two 100,000-step version 3 records that differ in three places.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use lane_records::records_dir;
use project_lanes::journal::{Clock, Export, Journal};
use project_lanes::record::Timestamp;
use project_lanes::{Outcome, ProjectLanes};
use serde_json::Value;
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_lane-records");

fn diff(a: &Path, b: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("diff")
        .arg(a)
        .arg(b)
        .args(args)
        .output()
        .unwrap()
}

fn stdout(out: &Output) -> String {
    String::from_utf8(out.stdout.clone()).unwrap()
}

/// The bundled busy-project scenario changed by `edit`, run; its record, `dir/<name>.json`.
fn busy_project_edited(dir: &Path, name: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let scenario = records_dir().join("scenarios/02-busy-project.toml");
    let text = std::fs::read_to_string(scenario).unwrap();
    let out_dir = dir.join(name);
    std::fs::create_dir_all(&out_dir).unwrap();
    let copy = out_dir.join("scenario.toml");
    let edited = edit(&text);
    assert_ne!(edited, text);
    std::fs::write(&copy, edited).unwrap();
    let out = Command::new(BIN)
        .arg("run")
        .arg(&copy)
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let record = dir.join(format!("{name}.json"));
    std::fs::rename(out_dir.join("busy-project.json"), &record).unwrap();
    record
}

/// The busy project with its release's outcome `failed`.
fn busy_project_failed(dir: &Path) -> PathBuf {
    busy_project_edited(dir, "failed-copy", |text| {
        assert_eq!(text.matches("outcome = \"succeeded\"").count(), 1);
        text.replace("outcome = \"succeeded\"", "outcome = \"failed\"")
    })
}

/// The busy project without its refused second claim (step 2).
fn busy_project_fewer(dir: &Path) -> PathBuf {
    busy_project_edited(dir, "fewer-copy", |text| {
        let start = text
            .find("[[steps]]\nop = \"claim\"\nproject = \"docs\"\nrun = \"nightly-102\"")
            .unwrap();
        let end = start + 9 + text[start + 9..].find("[[steps]]").unwrap();
        format!("{}{}", &text[..start], &text[end..])
    })
}

#[test]
fn one_changed_outcome_names_the_step_and_the_projects_holders() {
    let dir = TempDir::new().unwrap();
    let a = records_dir().join("busy-project.json");
    let b = busy_project_failed(dir.path());
    let out = diff(&a, &b, &[]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let text = stdout(&out);
    assert!(text.contains("2 differences:"), "{text}");
    assert!(
        text.contains(
            "Step 5 of A, 5 of B (release L1) was asked differently: succeeded in A, failed in B"
        ),
        "{text}"
    );
    assert!(
        text.contains("Project docs: its holders differ from hold 1 on: nightly-101 (succeeded) in A, nightly-101 (failed) in B"),
        "{text}"
    );

    let ja = stdout(&diff(&a, &b, &["--lang", "ja"]));
    assert!(ja.contains("違いが 2 件あります。"), "{ja}");
    assert!(
        ja.contains("A のステップ 5・B のステップ 5（解放 L1）"),
        "{ja}"
    );
    assert!(ja.contains("プロジェクト docs：1 番目の保持から"), "{ja}");

    let out = diff(&a, &b, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["same"], false);
    assert_eq!(json["differences"], 2);
    assert_eq!(json["diff"]["steps"][0]["kind"], "asked");
    assert_eq!(json["diff"]["steps"][0]["a"]["start"], 4);
    assert_eq!(json["diff"]["projects"][0]["project"], "docs");
}

/// The guide's chapter shows what the command prints, in both languages.
#[test]
fn the_guides_examples_are_what_diff_prints() {
    let dir = TempDir::new().unwrap();
    busy_project_failed(dir.path());
    busy_project_fewer(dir.path());
    std::fs::copy(
        records_dir().join("busy-project.json"),
        dir.path().join("busy-project.json"),
    )
    .unwrap();
    let chapter = records_dir().join("../docs/src/comparing.md");
    let chapter = std::fs::read_to_string(chapter).unwrap();
    for (copy, args) in [
        ("failed-copy.json", &[][..]),
        ("fewer-copy.json", &[][..]),
        ("fewer-copy.json", &["--lang", "ja"][..]),
    ] {
        let out = Command::new(BIN)
            .current_dir(dir.path())
            .args(["diff", "busy-project.json", copy])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        let text = stdout(&out);
        assert!(
            chapter.contains(&format!("```text\n{text}```")),
            "docs/src/comparing.md does not show:\n{text}"
        );
    }
    let out = Command::new(BIN)
        .current_dir(dir.path())
        .args(["diff", "fewer-copy.json", "busy-project.json", "--json"])
        .output()
        .unwrap();
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    let shown = chapter
        .split("```json\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let shown: Value = serde_json::from_str(shown).unwrap();
    assert_eq!(printed, shown, "docs/src/comparing.md's JSON");
    let same = stdout(&diff(
        &dir.path().join("busy-project.json"),
        &dir.path().join("busy-project.json"),
        &[],
    ));
    let said = same.lines().last().unwrap();
    assert!(chapter.contains(&format!("prints\n`{said}`")), "{said}");
}

#[test]
fn every_bundled_record_against_itself_has_no_differences() {
    let records = std::fs::read_dir(records_dir()).unwrap();
    let mut seen = 0;
    for entry in records {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if !name.ends_with(".json") || name.contains("schema") || name == "index.json" {
            continue;
        }
        let out = diff(&path, &path, &[]);
        assert_eq!(out.status.code(), Some(0), "{name}: {out:?}");
        assert!(stdout(&out).contains("No differences"), "{name}");
        seen += 1;
    }
    assert!(seen >= 8, "{seen} records");
}

#[test]
fn trouble_exits_2_with_the_readers_error() {
    let dir = TempDir::new().unwrap();
    let good = records_dir().join("busy-project.json");
    let bad = dir.path().join("bad.json");
    std::fs::write(
        &bad,
        "{\"format\": \"project-lanes/record\",\n  \"version\": 1,\n  oops",
    )
    .unwrap();
    let out = diff(&good, &bad, &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.json: unreadable: "), "{err}");
    assert!(err.contains("line 3"), "the reader's location: {err}");
    assert!(out.stdout.is_empty());

    let missing = dir.path().join("missing.json");
    let out = diff(&missing, &bad, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing.json: unreadable") && err.contains("bad.json: unreadable"),
        "{err}"
    );

    let out = diff(&good, &good, &["--hold-ratio", "0.5"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A lanes journal's record of `rounds` claims and releases over 100 projects (two steps each),
/// 10 ms apart; `b` makes it differ in three places: round 10,000 releases `failed`, round
/// 25,000 has a second claim refused, and round 40,000 holds its lane 5 s longer.
fn rounds(rounds: usize, b: bool) -> Vec<u8> {
    let now = Arc::new(AtomicU64::new(1_777_604_400_000));
    let clock: Arc<dyn Clock> = {
        let now = now.clone();
        Arc::new(move || Timestamp::from_millis(now.load(Ordering::Relaxed)).unwrap())
    };
    let lanes = ProjectLanes::new().with_journal(Some(clock));
    let mut journal = Journal::lanes();
    for i in 0..rounds {
        let project = format!("p{}", i % 100);
        now.fetch_add(10, Ordering::Relaxed);
        let lease = lanes.claim(&project, &format!("run-{i}")).unwrap();
        if b && i == 25_000 {
            now.fetch_add(10, Ordering::Relaxed);
            lanes.claim(&project, "intruder").unwrap_err();
        }
        if b && i == 40_000 {
            now.fetch_add(5_000, Ordering::Relaxed);
        }
        now.fetch_add(10, Ordering::Relaxed);
        let outcome = if b && i == 10_000 {
            Outcome::Failed
        } else {
            Outcome::Succeeded
        };
        lanes.release(&lease, outcome).unwrap();
        if i % 1_000 == 0 {
            journal.extend(lanes.take_journal());
        }
    }
    journal.extend(lanes.take_journal());
    let export = Export::new("rounds", "rounds").unwrap();
    journal.write_record(&export, Vec::new()).unwrap().0
}

#[test]
fn two_records_of_100000_steps_differing_in_three_places() {
    let dir = TempDir::new().unwrap();
    let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("b.jsonl"));
    std::fs::write(&a, rounds(50_000, false)).unwrap();
    std::fs::write(&b, rounds(50_000, true)).unwrap();
    let out = diff(&a, &b, &["--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    let d = &json["diff"];
    assert_eq!(json["a"]["steps"], 100_000);
    assert_eq!(json["b"]["steps"], 100_001);
    assert_eq!(d["approximate"], false);

    // Round 10,000's release (step 20,001 in both), and project p0's holders from then on.
    let steps = d["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2, "{steps:#?}");
    assert_eq!(steps[0]["kind"], "asked");
    assert_eq!(steps[0]["a"]["start"], 20_001);
    assert_eq!(steps[0]["b"]["start"], 20_001);
    // Round 25,000's refused claim, in B only.
    assert_eq!(steps[1]["kind"], "only_b");
    assert_eq!(steps[1]["b"]["start"], 50_001);
    assert_eq!(steps[1]["b"]["end"], 50_002);
    let projects = d["projects"].as_array().unwrap();
    assert_eq!(projects.len(), 1, "{projects:#?}");
    assert_eq!(projects[0]["project"], "p0");
    assert_eq!(projects[0]["first"], 100);
    let refusals = d["refusals"].as_array().unwrap();
    assert_eq!(refusals.len(), 1, "{refusals:#?}");
    assert_eq!(refusals[0]["run"], "intruder");
    assert!(refusals[0]["refused"][0].is_null());
    // Round 40,000's hold: 10 ms in A, 5,010 ms in B.
    let holds = d["holds"].as_array().unwrap();
    assert_eq!(holds.len(), 1, "{holds:#?}");
    assert_eq!(holds[0]["run"], "run-40000");
    assert_eq!(holds[0]["millis"], serde_json::json!([10, 5_010]));
    assert!(d["final_lanes"].as_array().unwrap().is_empty());

    let text = stdout(&diff(&a, &b, &[]));
    assert!(text.contains("5 differences:"), "{text}");
    assert!(
        text.contains("Run run-40000 held p0 for 10 ms in A and 5.0 s in B"),
        "{text}"
    );
}

#[test]
fn svg_writes_the_comparison_as_a_standalone_picture() {
    let dir = TempDir::new().unwrap();
    let a = records_dir().join("busy-project.json");
    let b = busy_project_failed(dir.path());
    let svg = dir.path().join("pictures/compared.svg");
    let out = diff(&a, &b, &["--svg", svg.to_str().unwrap(), "--lang", "ja"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        stdout(&out).contains("違いが 2 件あります。"),
        "the summary too"
    );
    let text = std::fs::read_to_string(&svg).unwrap();
    let mut reader = quick_xml::Reader::from_str(&text);
    let mut elements = 0;
    loop {
        match reader.read_event() {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Start(_) | quick_xml::events::Event::Empty(_)) => {
                elements += 1
            }
            Ok(_) => {}
            Err(e) => panic!("not XML: {e}\n{text}"),
        }
    }
    assert!(elements > 10, "{elements}");
    assert!(text.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert!(
        text.contains("<title>A「使用中のプロジェクト」と B「使用中のプロジェクト」の比較</title>"),
        "{text}"
    );
    assert_eq!(text.matches("data-diff-mark=").count(), 2);
    assert!(text.contains("プロジェクト docs：1 番目の保持から"));

    // Same records: exit 0, a picture that says so; a file name that cannot be written: 2.
    let out = diff(&a, &a, &["--svg", svg.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(&svg)
            .unwrap()
            .contains("No differences")
    );
    let blocked = dir.path().join("busy-project.toml/x.svg");
    std::fs::write(dir.path().join("busy-project.toml"), "a file").unwrap();
    let out = diff(&a, &a, &["--svg", blocked.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn records_of_any_version_compare_and_bad_files_are_trouble_with_their_code() {
    let dir = TempDir::new().unwrap();
    let busy = records_dir().join("busy-project.json");
    let chaos = records_dir().join(lane_records::RECORDED[0].file);
    // Version 1 against version 3: they differ, and both replay.
    let out = diff(&busy, &chaos, &["--json"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (json["a"]["version"].as_u64(), json["b"]["version"].as_u64()),
        (Some(1), Some(3))
    );
    assert_eq!(json["b"]["replays"], true);
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let garbage = dir.path().join("garbage.json");
    std::fs::write(&garbage, [0u8, 159, 146, 150, 255, 0, 1]).unwrap();
    let big = dir.path().join("big.jsonl");
    std::fs::copy(&chaos, &big).unwrap();
    for (bad, args, code) in [
        (garbage.as_path(), &[][..], "INVALID_JSON"),
        (dir.path(), &[][..], "IO"),
        (
            big.as_path(),
            &["--max-bytes", "100"][..],
            "RECORD_TOO_LARGE",
        ),
    ] {
        let out = diff(&busy, bad, args);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {out:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(&format!("({code})")), "{bad:?}: {err}");
        assert!(out.stdout.is_empty());
    }
}
