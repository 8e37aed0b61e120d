//! Records of version 2 (from journals, with starting states, times and callers) read, replay
//! and validate against the JSON Schema like version 1 records; the schema refuses the version 2
//! fields the reader refuses.

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use lane_records::{parse_record, records_dir, to_json};
use project_lanes::dispatch::Dispatcher;
use project_lanes::journal::{Actor, Clock, Export, Journal};
use project_lanes::record::{Record, Timestamp, replay};
use project_lanes::{Outcome, ProjectLanes};
use serde_json::Value;
use tempfile::TempDir;

/// A change made to a good record to make it bad.
type Edit = fn(&mut Value);

fn ticking() -> Arc<dyn Clock> {
    let next = Arc::new(AtomicU64::new(1_777_604_400_000));
    Arc::new(move || Timestamp::from_millis(next.fetch_add(1, Ordering::Relaxed)).unwrap())
}

/// A window of a lanes journal: it starts with a lease held (stop requested) and one released
/// that a late cleanup names.
fn lanes_window() -> Record {
    let lanes = ProjectLanes::new().with_journal(Some(ticking()));
    let old = lanes.claim("docs", "nightly-6").unwrap();
    lanes.release(&old, Outcome::Succeeded).unwrap();
    let nightly = lanes.claim("docs", "nightly-7").unwrap();
    lanes.request_stop(&nightly).unwrap();
    // The window: a late cleanup, the release, a new claim, a busy claim.
    lanes.release(&old, Outcome::Cancelled).unwrap_err();
    lanes.release(&nightly, Outcome::Cancelled).unwrap();
    lanes.claim("docs", "nightly-8").unwrap();
    lanes.claim("docs", "deploy-3").unwrap_err();
    lanes.claim("site", "deploy-3").unwrap();
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    let since = journal.entries()[4].at.unwrap();
    journal
        .record(
            &Export::new("lanes-window", "build farm")
                .unwrap()
                .since(since),
        )
        .unwrap()
}

/// A window of a dispatcher journal, with actors: it starts with a reservation persisting and
/// one queued behind it.
fn dispatcher_window() -> Record {
    let mut d = Dispatcher::new(&["general", "delivery"])
        .unwrap()
        .with_journal(Some(ticking()));
    d.set_actor(Actor::new("host-a/pid 4120"));
    let a = d.enqueue("general", "docs", "gen-1").unwrap();
    d.enqueue("delivery", "docs", "cafe-1").unwrap();
    d.dispatch("general").unwrap();
    d.finish(a, Outcome::Succeeded).unwrap();
    d.set_actor(Actor::new("worker delivery 1"));
    d.persisted(a, false).unwrap();
    d.dispatch("nowhere").unwrap_err();
    d.resolve(a).unwrap();
    d.dispatch("delivery").unwrap();
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    let since = journal.entries()[4].at.unwrap();
    journal
        .record(
            &Export::new("dispatcher-window", "shop")
                .unwrap()
                .since(since),
        )
        .unwrap()
}

fn version_2_records() -> Vec<Record> {
    vec![lanes_window(), dispatcher_window()]
}

fn validator() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_slice(&std::fs::read(records_dir().join("schema.json")).unwrap()).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

#[test]
fn version_2_records_from_journals_read_replay_and_validate_against_the_schema() {
    let schema = validator();
    for record in version_2_records() {
        assert_eq!(record.version, 2);
        assert!(record.start.is_some(), "{}: cut from a history", record.id);
        replay(&record).unwrap();
        let bytes = to_json(&record);
        assert_eq!(parse_record(&bytes).unwrap(), record, "{}", record.id);
        let doc: Value = serde_json::from_slice(&bytes).unwrap();
        let errors: Vec<String> = schema.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", record.id);
    }
}

#[test]
fn the_replay_command_reads_version_2_records() {
    let dir = TempDir::new().unwrap();
    let mut files = Vec::new();
    for record in version_2_records() {
        let path = dir.path().join(format!("{}.json", record.id));
        std::fs::write(&path, to_json(&record)).unwrap();
        files.push(path);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_lane-records"))
        .arg("replay")
        .args(&files)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    assert_eq!(
        stdout.matches("steps matched the core").count(),
        2,
        "{stdout}"
    );
}

#[test]
fn the_schema_refuses_the_version_2_fields_the_reader_refuses() {
    let schema = validator();
    let good: Value = serde_json::to_value(lanes_window()).unwrap();
    let v1: Value =
        serde_json::from_slice(&std::fs::read(records_dir().join("busy-project.json")).unwrap())
            .unwrap();
    let edits: [(&str, Edit); 14] = [
        ("a time in another spelling", |d| {
            d["steps"][0]["at"] = "2026-05-01T03:00:00.004+00:00".into()
        }),
        ("an actor on two lines", |d| {
            d["steps"][0]["actor"] = "host-a\npid 4120".into()
        }),
        ("an empty actor", |d| d["steps"][0]["actor"] = "".into()),
        ("an actor with one control character", |d| {
            d["steps"][0]["actor"] = "a\u{1b}[31mb".into()
        }),
        ("an actor of white space only", |d| {
            d["steps"][0]["actor"] = "\u{3000} ".into()
        }),
        ("a system name with a NUL", |d| {
            d["origin"]["system"] = "shop\u{0}".into()
        }),
        ("a null time", |d| d["steps"][0]["at"] = Value::Null),
        ("a null actor", |d| d["steps"][0]["actor"] = Value::Null),
        ("a null origin", |d| d["origin"] = Value::Null),
        ("a null note", |d| d["steps"][0]["note"] = Value::Null),
        ("a journal without its system", |d| {
            d["origin"].as_object_mut().unwrap().remove("system");
        }),
        ("a scenario with a window", |d| {
            d["origin"]["kind"] = "scenario".into();
            d["origin"].as_object_mut().unwrap().remove("system");
        }),
        ("an unknown start lease state", |d| {
            d["start"]["leases"][0]["state"] = "orphaned".into()
        }),
        ("a start lease handle that is not one", |d| {
            d["start"]["leases"][0]["handle"] = "lease-1".into()
        }),
    ];
    for (what, edit) in edits {
        let mut doc = good.clone();
        edit(&mut doc);
        assert!(!schema.is_valid(&doc), "the schema accepts {what}");
        let bytes = serde_json::to_vec(&doc).unwrap();
        assert!(parse_record(&bytes).is_err(), "the reader accepts {what}");
    }
    let v1_edits: [(&str, Edit); 4] = [
        ("a time in version 1", |d| {
            d["steps"][0]["at"] = "2026-05-01T03:00:00.000Z".into()
        }),
        ("an actor in version 1", |d| {
            d["steps"][0]["actor"] = "me".into()
        }),
        ("a start in version 1", |d| {
            d["start"] = serde_json::json!({"leases": []})
        }),
        ("no untouched project in version 1", |d| {
            d.as_object_mut().unwrap().remove("untouched_project");
        }),
    ];
    for (what, edit) in v1_edits {
        let mut doc = v1.clone();
        edit(&mut doc);
        assert!(!schema.is_valid(&doc), "the schema accepts {what}");
        let bytes = serde_json::to_vec(&doc).unwrap();
        assert!(parse_record(&bytes).is_err(), "the reader accepts {what}");
        // The same document as version 2 is good, except for what version 2 refuses too.
        doc["version"] = 2.into();
        let bytes = serde_json::to_vec(&doc).unwrap();
        assert_eq!(
            schema.is_valid(&doc),
            parse_record(&bytes).is_ok(),
            "{what} as version 2"
        );
    }
}

#[test]
fn the_replay_command_says_times_are_unchecked_and_names_the_steps_whose_times_stand_out() {
    let dir = TempDir::new().unwrap();
    let mut record = lanes_window();
    // One step's time set to 2001 (before the window), one caller renamed: still verified.
    record.steps[2].at = Some("2001-01-01T00:00:00.000Z".parse().unwrap());
    record.steps[1].actor = Some("mallory".into());
    replay(&record).unwrap();
    let path = dir.path().join("edited.json");
    std::fs::write(&path, to_json(&record)).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_lane-records"))
        .arg("replay")
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    let lines: Vec<&str> = stdout.lines().collect();
    let steps = record.steps.len();
    assert_eq!(
        lines,
        [
            format!("{}: ok, all {steps} steps matched the core", path.display()).as_str(),
            "  Replay checks each step's result and the state after it. Shown as recorded, not checked: times, callers, the window.",
            "  The time of Step 3 stands out: it is earlier than the step before it or outside the record's window. \
             Callers running at the same time can record times a millisecond or so out of order: the order of the steps is the one that replays.",
        ]
    );
    // The viewer's words for the same bytes.
    let read = parse_record(&std::fs::read(&path).unwrap()).unwrap();
    let notes = project_lanes_view::recorded::sentences(
        project_lanes_view::i18n::Lang::En,
        &project_lanes_view::recorded::notes(&read),
    );
    assert_eq!(
        lines[1..],
        notes.iter().map(|l| format!("  {l}")).collect::<Vec<_>>()
    );
}
