//! Version 3 records: written from journals of direct lane operations and the dispatcher's
//! together, read back a chunk at a time, replayed on one core; bad lines refused with their
//! line and column, whatever the chunks.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use project_lanes::Outcome;
use project_lanes::dispatch::Dispatcher;
use project_lanes::journal::{Actor, Clock, Export, Journal};
use project_lanes::record::Timestamp;
use project_lanes::record::json::ReadError;
use project_lanes::record::stream::{Answer, Reader, Verdict};

fn clock() -> Arc<dyn Clock> {
    let ticks = Arc::new(AtomicU64::new(1_780_000_000_000));
    Arc::new(move || Timestamp::from_millis(ticks.fetch_add(7, Ordering::Relaxed)).unwrap())
}

/// A dispatcher with two queues whose lanes are also claimed directly, on shared projects.
fn mixed_journal() -> Journal {
    let mut d = Dispatcher::new(&["general", "delivery"])
        .unwrap()
        .with_journal(Some(clock()));
    d.set_actor(Actor::new("worker-1"));
    let hotfix = d.claim("docs", "hotfix-1").unwrap();
    let a = d.enqueue("general", "docs", "nightly-1").unwrap();
    let b = d.enqueue("delivery", "site", "cafe-1").unwrap();
    assert!(
        d.dispatch("general").unwrap().is_none(),
        "docs is held directly"
    );
    d.set_actor(Actor::new("worker-2"));
    assert_eq!(d.dispatch("delivery").unwrap().unwrap().reservation, b);
    d.claim("site", "hotfix-2").unwrap_err();
    d.request_stop(&hotfix).unwrap();
    d.release(&hotfix, Outcome::Cancelled).unwrap();
    d.release(&hotfix, Outcome::Failed).unwrap_err();
    assert_eq!(d.dispatch("general").unwrap().unwrap().reservation, a);
    d.finish(a, Outcome::Succeeded).unwrap();
    d.persisted(a, false).unwrap();
    d.claim("docs", "hotfix-3").unwrap_err(); // blocked by the unresolved result
    d.resolve(a).unwrap();
    let late = d.claim("docs", "hotfix-3").unwrap();
    d.finish(b, Outcome::Failed).unwrap();
    d.persisted(b, true).unwrap();
    d.cancel(b).unwrap_err();
    d.release(&late, Outcome::Succeeded).unwrap();
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    journal
}

fn record(journal: &Journal) -> Vec<u8> {
    let export = Export::new("mixed", "test farm").unwrap();
    journal.write_record(&export, Vec::new()).unwrap().0
}

fn read_in_chunks(bytes: &[u8], chunk: usize) -> Result<Verdict, ReadError> {
    let mut reader = Reader::new();
    for piece in bytes.chunks(chunk.max(1)) {
        reader.feed(piece, &mut |_| {})?;
    }
    reader.finish(&mut |_| {})
}

fn read(bytes: &[u8]) -> Result<Verdict, ReadError> {
    read_in_chunks(bytes, bytes.len())
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn joined(lines: &[String]) -> Vec<u8> {
    let mut text = lines.join("\n");
    text.push('\n');
    text.into_bytes()
}

#[test]
fn a_journal_of_direct_and_queued_runs_on_shared_projects_replays_as_one_record() {
    let journal = mixed_journal();
    let bytes = record(&journal);
    let verdict = read(&bytes).unwrap();
    assert_eq!(verdict.steps as usize, journal.entries().len());
    assert_eq!(verdict.mismatch, None);
    let audit = journal.audit(None).unwrap();
    assert_eq!(
        (audit.transitions as usize, audit.mismatch),
        (journal.entries().len(), None)
    );
}

#[test]
fn the_same_bytes_get_the_same_verdict_however_they_are_cut_into_chunks() {
    let bytes = record(&mixed_journal());
    let whole = read(&bytes).unwrap();
    for chunk in [1, 2, 3, 7, 64, 1000] {
        assert_eq!(
            read_in_chunks(&bytes, chunk).unwrap(),
            whole,
            "chunks of {chunk}"
        );
    }
    let mut broken = lines(&bytes);
    broken[5] = broken[5].replace("\"result\"", "\"resul\"");
    let broken = joined(&broken);
    let error = read(&broken).unwrap_err();
    for chunk in [1, 5, 100] {
        assert_eq!(read_in_chunks(&broken, chunk).unwrap_err(), error);
    }
}

#[test]
fn a_changed_answer_is_named_by_its_step_and_line() {
    let bytes = record(&mixed_journal());
    let mut text = lines(&bytes);
    let at = text
        .iter()
        .position(|l| l.contains("\"op\":\"claim\"") && l.contains("PROJECT_BUSY"))
        .unwrap();
    text[at] = text[at].replace("\"result\":\"PROJECT_BUSY\"", "\"result\":\"ok\"");
    let verdict = read(&joined(&text)).unwrap();
    let mismatch = verdict.mismatch.unwrap();
    assert_eq!(mismatch.line as usize, at + 1);
    assert_eq!(mismatch.recorded, Answer::Ok);
    assert!(matches!(mismatch.replayed, Answer::Refused(_)));
}

#[test]
fn a_record_cut_short_is_refused_at_the_line_where_it_stops() {
    let bytes = record(&mixed_journal());
    let text = lines(&bytes);
    // Without its end line.
    let without_end = joined(&text[..text.len() - 1]);
    let e = read(&without_end).unwrap_err();
    assert_eq!(e.code(), "INVALID_RECORD");
    assert!(
        matches!(e, ReadError::Line { line, .. } if line as usize == text.len()),
        "{e}"
    );
    // In the middle of a line.
    let cut = &bytes[..bytes.len() / 2];
    let e = read(cut).unwrap_err();
    assert!(matches!(e.code(), "INVALID_JSON" | "INVALID_RECORD"), "{e}");
}

#[test]
fn a_step_naming_a_lease_never_issued_is_refused_at_its_field() {
    let bytes = record(&mixed_journal());
    let mut text = lines(&bytes);
    let at = text
        .iter()
        .position(|l| l.contains("\"op\":\"release\""))
        .unwrap();
    text[at] = text[at].replace("\"lease\":\"L1\"", "\"lease\":\"L99\"");
    let e = read(&joined(&text)).unwrap_err();
    let ReadError::Line { line, column, .. } = &e else {
        panic!("{e}");
    };
    assert_eq!(*line as usize, at + 1);
    assert_eq!(&text[at][*column as usize - 1..][..7], "\"lease\"");
    assert!(e.to_string().contains("never issued"), "{e}");
}

#[test]
fn a_start_that_holds_one_project_twice_is_refused() {
    let head = r#"{"format":"project-lanes/record","version":3,"id":"twice","title":{"en":"T","ja":"T"},"summary":{"en":"S","ja":"S"},"work_executed_here":false}"#;
    let text = [
        head,
        r#"{"queue":"general"}"#,
        r#"{"lease":"L1","project":"docs","run":"a","state":"running"}"#,
        r#"{"reservation":"R1","queue":"general","project":"docs","run":"b","state":"dispatched"}"#,
        r#"{"op":"view","project":"docs","result":"ok","lane":{"project":"docs","busy":true,"run":"a","state":"running"}}"#,
        r#"{"end":{"steps":1}}"#,
    ]
    .join("\n");
    let e = read(text.as_bytes()).unwrap_err();
    assert!(matches!(e, ReadError::Line { line: 4, .. }), "{e}");
    assert!(e.to_string().contains("one holder"), "{e}");
}

#[test]
fn an_unknown_op_and_a_line_that_is_not_json_are_located() {
    let bytes = record(&mixed_journal());
    let mut text = lines(&bytes);
    let step = text.iter().position(|l| l.starts_with("{\"op\"")).unwrap();
    text[step] = text[step].replacen("\"op\":\"", "\"op\":\"x", 1);
    let e = read(&joined(&text)).unwrap_err();
    assert_eq!(e.code(), "INVALID_RECORD");
    assert!(
        matches!(e, ReadError::Json { line, column: 7.., .. } if line == step + 1),
        "{e}"
    );
    let mut text = lines(&bytes);
    text[2] = "{not json".into();
    let e = read(&joined(&text)).unwrap_err();
    assert_eq!(e.code(), "INVALID_JSON");
    assert!(
        matches!(
            e,
            ReadError::Json {
                line: 3,
                column: 2,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn a_reader_refuses_more_than_its_limit_as_soon_as_it_arrives() {
    let bytes = record(&mixed_journal());
    let mut reader = Reader::new().limit(100);
    let e = reader.feed(&bytes[..101], &mut |_| {}).unwrap_err();
    assert_eq!(e.code(), "RECORD_TOO_LARGE");
}

#[test]
fn a_journal_of_short_labels_takes_under_a_hundred_bytes_a_transition() {
    let mut d = Dispatcher::new(&["q1", "q2"])
        .unwrap()
        .with_journal(Some(clock()));
    for i in 0..2_000 {
        let project = format!("p{}", i % 50);
        d.set_actor(Actor::new(&format!("w{}", i % 6)));
        let id = d
            .enqueue(["q1", "q2"][i % 2], &project, &format!("r{i}"))
            .unwrap();
        if let Some(job) = d.dispatch(["q1", "q2"][i % 2]).unwrap() {
            d.finish(job.reservation, Outcome::Succeeded).unwrap();
            d.persisted(job.reservation, true).unwrap();
        }
        if let Ok(lease) = d.claim(&format!("d{}", i % 30), &format!("r{i}")) {
            d.release(&lease, Outcome::Succeeded).unwrap();
        }
        let _ = id;
    }
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    let bytes = record(&journal);
    let per = bytes.len() as f64 / journal.entries().len() as f64;
    assert!(per < 100.0, "{per:.1} bytes a transition");
    assert_eq!(read(&bytes).unwrap().mismatch, None);
}

/// Gathers a version 3 record into the `Record` the viewer shows.
fn gathered(bytes: &[u8]) -> project_lanes::record::Record {
    let mut gather = project_lanes::record::stream::Gather::new();
    let mut reader = Reader::new();
    reader.feed(bytes, &mut |seen| gather.seen(seen)).unwrap();
    reader.finish(&mut |seen| gather.seen(seen)).unwrap();
    gather.record()
}

#[test]
fn a_gathered_record_shows_what_version_2_snapshots_show_of_each_steps_lane_and_reservation() {
    // A journal of one kind exports as both versions: step by step, the version 3 record's
    // sparse snapshots are the version 2 snapshots of what the step concerns.
    let mut d = Dispatcher::new(&["general"])
        .unwrap()
        .with_journal(Some(clock()));
    for i in 0..40 {
        let id = d
            .enqueue("general", ["docs", "site", "blog"][i % 3], &format!("r{i}"))
            .unwrap();
        if i % 4 == 0
            && let Some(job) = d.dispatch("general").unwrap()
        {
            d.finish(job.reservation, Outcome::Succeeded).unwrap();
            d.persisted(job.reservation, i % 8 != 0).unwrap();
            let _ = d.resolve(job.reservation);
        }
        if i % 5 == 0 {
            let _ = d.cancel(id);
        }
    }
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    let export = Export::new("both", "test farm").unwrap();
    let v2 = journal.record(&export).unwrap();
    let v3 = gathered(&journal.write_record(&export, Vec::new()).unwrap().0);
    assert_eq!(v3.steps.len(), v2.steps.len());
    for (i, (three, two)) in v3.steps.iter().zip(&v2.steps).enumerate() {
        assert_eq!(three.result, two.result, "step {i}");
        for lane in &three.lanes {
            assert!(two.lanes.contains(lane), "step {i}: {lane:?}");
        }
        for view in three.reservations.iter().flatten() {
            assert!(
                two.reservations.as_ref().unwrap().contains(view),
                "step {i}: {view:?}"
            );
        }
    }
    let mut final_v2 = v2.final_lanes.clone();
    let mut final_v3 = v3.final_lanes.clone();
    final_v2.sort_by(|a, b| a.project.cmp(&b.project));
    final_v3.sort_by(|a, b| a.project.cmp(&b.project));
    assert_eq!(final_v3, final_v2);
}

#[test]
fn a_claim_that_succeeded_with_a_broken_label_is_no_record() {
    let bytes = record(&mixed_journal());
    let mut text = lines(&bytes);
    let at = text
        .iter()
        .position(|l| l.contains("\"op\":\"claim\"") && l.contains("\"result\":\"ok\""))
        .unwrap();
    text[at] = text[at].replace("\"project\":\"docs\"", "\"project\":\"docs/\"");
    let e = read(&joined(&text)).unwrap_err();
    assert_eq!(e.code(), "INVALID_RECORD");
    assert!(e.to_string().contains("label rule"), "{e}");
}
