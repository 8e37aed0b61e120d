//! "Edit as scenario" (`lane_records::edit`): every bundled record comes back byte for byte from
//! the scenario written for it; text of any kind survives the trip; a journal's record keeps its
//! operations and answers; what a scenario cannot ask for is refused with a code.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use lane_records::edit::{scenario_of_bytes, scenario_text};
use lane_records::scenario::{MAX_SCENARIO_STEPS, Scenario};
use lane_records::{parse_record, records_dir, to_json};
use project_lanes::journal::{Clock, Export, Journal};
use project_lanes::record::stream::DEFAULT_MAX_BYTES;
use project_lanes::record::{Index, Record, Recorder, Text, Timestamp};
use project_lanes::{Outcome, ProjectLanes};

fn run(text: &str) -> Vec<u8> {
    let scenario = Scenario::parse("edited.toml".as_ref(), text).unwrap_or_else(|e| panic!("{e}"));
    scenario.output().unwrap_or_else(|e| panic!("{e}")).1.bytes
}

#[test]
fn every_bundled_record_comes_back_byte_for_byte() {
    let dir = records_dir();
    let index: Index =
        serde_json::from_slice(&std::fs::read(dir.join("index.json")).unwrap()).unwrap();
    assert!(index.records.len() >= 8);
    for entry in &index.records {
        let bytes = std::fs::read(dir.join(&entry.file)).unwrap();
        let text = scenario_of_bytes(&bytes, DEFAULT_MAX_BYTES).unwrap();
        assert!(!text.starts_with('#'), "{}: nothing was left out", entry.id);
        assert!(
            run(&text) == bytes,
            "{} did not come back:\n{text}",
            entry.id
        );
    }
}

#[test]
fn any_text_survives_the_trip() {
    let odd = [
        "quotes \" and ' and \\ and \\\" and '''",
        "lines\nand\r\ncarriage\rreturns\tand tabs",
        "controls \u{1} \u{1f} \u{7f} and \u{2028}\u{2029}",
        "日本語と絵文字 🚦 and a bidi \u{202e}override",
        "\"\"\" triple quotes \"\"\"",
    ];
    for (i, text) in odd.iter().enumerate() {
        let t = |s: &str| Text {
            en: format!("{s} {i}"),
            ja: format!("{s}。"),
        };
        let mut recorder =
            Recorder::new("odd", t(text), t(text), &["docs", "site"], "site").unwrap();
        recorder.claim("docs", "nightly-1").note(t(text));
        recorder.claim(text, "run").note(t(text));
        let record = recorder.finish().unwrap();
        let bytes = to_json(&record);
        let scenario = scenario_text(&record).unwrap();
        assert!(run(&scenario) == bytes, "{text:?}:\n{scenario}");
    }
}

fn ticking() -> Arc<dyn Clock> {
    let next = Arc::new(AtomicU64::new(1_777_604_400_000));
    Arc::new(move || Timestamp::from_millis(next.fetch_add(1, Ordering::Relaxed)).unwrap())
}

/// Steps as a scenario can ask them: the operation, the inputs and the answer.
fn asked(record: &Record) -> Vec<String> {
    record
        .steps
        .iter()
        .map(|s| {
            format!(
                "{} {} {}",
                s.op,
                serde_json::to_string(&s.input).unwrap(),
                serde_json::to_string(&s.result).unwrap()
            )
        })
        .collect()
}

#[test]
fn a_journals_record_keeps_its_operations_and_answers_and_gains_an_untouched_project() {
    let lanes = ProjectLanes::new().with_journal(Some(ticking()));
    let old = lanes.claim("docs", "nightly-6").unwrap();
    lanes.release(&old, Outcome::Succeeded).unwrap();
    let nightly = lanes.claim("docs", "nightly-7").unwrap();
    lanes.release(&old, Outcome::Cancelled).unwrap_err();
    lanes.claim("untouched", "deploy-1").unwrap();
    lanes.release(&nightly, Outcome::Failed).unwrap();
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    let export = Export::new("farm", "build farm").unwrap();
    let document = journal.record(&export).unwrap();
    let lines = journal.write_record(&export, Vec::new()).unwrap().0;
    for bytes in [to_json(&document), lines] {
        let text = scenario_of_bytes(&bytes, DEFAULT_MAX_BYTES).unwrap();
        assert!(text.starts_with("# Times, callers"), "{text}");
        assert!(text.contains("\"untouched-2\" is added"), "{text}");
        let again = parse_record(&run(&text)).unwrap();
        assert_eq!(asked(&again), asked(&document));
        assert_eq!(again.untouched_project.as_str(), "untouched-2");
    }
}

#[test]
fn what_a_scenario_cannot_ask_for_is_refused_with_a_code() {
    let lanes = ProjectLanes::new().with_journal(Some(ticking()));
    let lease = lanes.claim("docs", "nightly-1").unwrap();
    lanes.request_stop(&lease).unwrap();
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    let since = journal.entries()[1].at.unwrap();
    let window = journal
        .record(&Export::new("window", "farm").unwrap().since(since))
        .unwrap();
    let error = scenario_text(&window).unwrap_err();
    assert_eq!(error.code, "RECORD_HAS_START", "{error}");

    // A version 3 record of more steps than a scenario holds is refused before it is read whole.
    let lanes = ProjectLanes::new().with_journal(None);
    for n in 0..MAX_SCENARIO_STEPS + 500 {
        lanes.claim("docs", &format!("run-{n}")).map(|_| ()).ok();
    }
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    let lines = journal
        .write_record(&Export::new("long", "farm").unwrap(), Vec::new())
        .unwrap()
        .0;
    let error = scenario_of_bytes(&lines, DEFAULT_MAX_BYTES).unwrap_err();
    assert_eq!(error.code, "SCENARIO_TOO_MANY_STEPS", "{error}");
    assert!(error.message.contains("at least"), "{error}");

    // A journal of a dispatcher that also claims lanes directly.
    let mixed = std::fs::read(records_dir().join("tests/corpus/v3-valid.jsonl")).unwrap();
    let error = scenario_of_bytes(&mixed, DEFAULT_MAX_BYTES).unwrap_err();
    assert_eq!(error.code, "RECORD_MIXES_OPERATIONS", "{error}");

    // A record whose scenario would pass 4 MiB: long notes on many steps.
    let note = Text {
        en: "n".repeat(1_900),
        ja: "注".repeat(600),
    };
    let mut recorder = Recorder::new(
        "long",
        note.clone(),
        note.clone(),
        &["docs", "site"],
        "site",
    )
    .unwrap();
    for _ in 0..1_200 {
        recorder.view("docs").note(note.clone());
    }
    let error = scenario_text(&recorder.finish().unwrap()).unwrap_err();
    assert_eq!(error.code, "SCENARIO_TOO_LARGE", "{error}");

    for (bytes, code) in [
        (&b"{{{ not json"[..], "INVALID_JSON"),
        (&b"\x00\xff\xfe garbage"[..], "INVALID_JSON"),
        (&b""[..], "INVALID_JSON"),
    ] {
        let error = scenario_of_bytes(bytes, DEFAULT_MAX_BYTES).unwrap_err();
        assert_eq!(error.code, code, "{error}");
    }
}
