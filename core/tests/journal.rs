//! Journals of lanes and dispatchers: every transition with its answer, in an order that
//! replays on the core, exported whole, by project or by time window.

#![cfg(feature = "journal")]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread;

use project_lanes::dispatch::{DispatchError, Dispatcher, ReservationId};
use project_lanes::journal::{
    Actor, Answer, Call, Clock, Entry, Export, ExportError, Journal, Journaled,
};
use project_lanes::record::{OriginKind, Record, StartLeaseState, StepResult, Timestamp, replay};
use project_lanes::{LaneError, Outcome, ProjectLanes};
use proptest::prelude::*;

/// A clock that moves one millisecond per reading, from 2026-05-01T03:00:00.000Z.
fn ticking() -> Arc<dyn Clock> {
    let next = Arc::new(AtomicU64::new(1_777_604_400_000));
    Arc::new(move || Timestamp::from_millis(next.fetch_add(1, Ordering::Relaxed)).unwrap())
}

fn time(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn lanes_journal(lanes: &ProjectLanes<Journaled>) -> Journal {
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    journal
}

fn export(journal: &Journal) -> Record {
    journal
        .record(&Export::new("journal", "test system").unwrap())
        .unwrap()
}

fn codes(record: &Record) -> Vec<&'static str> {
    record.steps.iter().map(|s| s.result.code()).collect()
}

#[test]
fn every_claim_stop_and_release_is_journaled_with_its_answer_and_replays() {
    let lanes = ProjectLanes::new().with_journal(Some(ticking()));
    let old = lanes.claim("docs", "nightly-6").unwrap();
    lanes.release(&old, Outcome::Failed).unwrap();
    let lease = lanes.claim("docs", "nightly-7").unwrap();
    assert_eq!(
        lanes.claim("docs", "deploy-3").unwrap_err(),
        LaneError::ProjectBusy
    );
    assert_eq!(
        lanes.claim("docs/", "x").unwrap_err(),
        LaneError::InvalidLabel
    );
    lanes.request_stop(&lease).unwrap();
    assert_eq!(
        lanes.release(&old, Outcome::Cancelled).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(
        lanes.request_stop(&old).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    lanes.release(&lease, Outcome::Cancelled).unwrap();
    // A lease of other lanes changes none of these: it is not journaled.
    let other = ProjectLanes::new();
    let foreign = other.claim("docs", "elsewhere").unwrap();
    assert!(lanes.release(&foreign, Outcome::Succeeded).is_err());

    let record = export(&lanes_journal(&lanes));
    assert_eq!(
        codes(&record),
        [
            "ok",
            "ok",
            "ok",
            "PROJECT_BUSY",
            "INVALID_LABEL",
            "ok",
            "LEASE_NOT_CURRENT",
            "LEASE_NOT_CURRENT",
            "ok"
        ]
    );
    replay(&record).unwrap();
    assert_eq!(record.version, 2);
    let origin = record.origin.as_ref().unwrap();
    assert_eq!(origin.kind, OriginKind::Journal);
    assert_eq!(origin.system.as_deref(), Some("test system"));
    let times: Vec<String> = record
        .steps
        .iter()
        .map(|s| s.at.unwrap().to_string())
        .collect();
    assert_eq!(times[0], "2026-05-01T03:00:00.000Z");
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{times:?}");
    let StepResult::Receipt(receipt) = &record.steps[8].result else {
        panic!()
    };
    assert!(receipt.stop_requested);
    assert!(
        lanes.take_journal().is_empty(),
        "a take hands each entry out once"
    );
}

/// A release's entry gets its run label from the lease when the label is stored inline (up to
/// 30 bytes) and moves the lane's when it is shared: either way each release names its own run.
#[test]
fn releases_name_their_runs_whether_their_labels_are_inline_or_shared() {
    let lanes = ProjectLanes::new().with_journal(Some(ticking()));
    let runs = [
        "r".repeat(30),
        "s".repeat(31),
        "t".repeat(80),
        "u".to_owned(),
    ];
    let project = "p".repeat(64);
    for run in &runs {
        let lease = lanes.claim(&project, run).unwrap();
        lanes.request_stop(&lease).unwrap();
        let receipt = lanes.release(&lease, Outcome::Succeeded).unwrap();
        assert_eq!(receipt.run.as_str(), run);
        assert_eq!(
            lanes.release(&lease, Outcome::Failed).unwrap_err(),
            LaneError::LeaseNotCurrent
        );
    }
    let record = export(&lanes_journal(&lanes));
    replay(&record).unwrap();
    let released: Vec<String> = record
        .steps
        .iter()
        .filter_map(|s| match &s.result {
            StepResult::Receipt(receipt) => Some(receipt.run.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(released, runs);
}

/// One thread's operations: claims and releases on a few projects, with stops and stale
/// releases, so that threads meet on every project.
#[derive(Debug, Clone)]
enum LaneOp {
    Claim(usize),
    Stop(usize),
    Release(usize, bool),
    ReleaseStale(usize),
}

fn lane_op() -> impl Strategy<Value = LaneOp> {
    prop_oneof![
        4 => (0..3usize).prop_map(LaneOp::Claim),
        1 => (0..3usize).prop_map(LaneOp::Stop),
        3 => (0..3usize, any::<bool>()).prop_map(|(p, ok)| LaneOp::Release(p, ok)),
        1 => (0..3usize).prop_map(LaneOp::ReleaseStale),
    ]
}

const PROJECTS: [&str; 3] = ["docs", "site", "wiki"];

/// Runs each thread's operations at once on `lanes` while another thread takes the journal
/// again and again; returns every entry taken, in order.
fn run_threads(lanes: &Arc<ProjectLanes<Journaled>>, threads: Vec<Vec<LaneOp>>) -> Vec<Entry> {
    let barrier = Arc::new(Barrier::new(threads.len() + 1));
    let taken = Arc::new(Mutex::new(Vec::new()));
    let done = Arc::new(AtomicU64::new(0));
    let count = threads.len() as u64;
    let taker = {
        let (lanes, taken, done) = (lanes.clone(), taken.clone(), done.clone());
        thread::spawn(move || {
            while done.load(Ordering::Acquire) < count {
                let entries = lanes.take_journal();
                taken.lock().unwrap().extend(entries);
                thread::yield_now();
            }
        })
    };
    let handles: Vec<_> = threads
        .into_iter()
        .enumerate()
        .map(|(t, ops)| {
            let (lanes, barrier, done) = (lanes.clone(), barrier.clone(), done.clone());
            thread::spawn(move || {
                let mut mine: Vec<Option<project_lanes::Lease>> = vec![None, None, None];
                let mut stale: Vec<Option<project_lanes::Lease>> = vec![None, None, None];
                barrier.wait();
                for (i, op) in ops.into_iter().enumerate() {
                    match op {
                        LaneOp::Claim(p) => {
                            if let Ok(lease) = lanes.claim(PROJECTS[p], &format!("t{t}-{i}")) {
                                mine[p] = Some(lease);
                            }
                        }
                        LaneOp::Stop(p) => {
                            if let Some(lease) = &mine[p] {
                                let _ = lanes.request_stop(lease);
                            }
                        }
                        LaneOp::Release(p, ok) => {
                            if let Some(lease) = mine[p].take() {
                                let outcome = if ok {
                                    Outcome::Succeeded
                                } else {
                                    Outcome::Failed
                                };
                                lanes.release(&lease, outcome).unwrap();
                                stale[p] = Some(lease);
                            }
                        }
                        LaneOp::ReleaseStale(p) => {
                            if let Some(lease) = &stale[p] {
                                let _ = lanes.release(lease, Outcome::Cancelled);
                            }
                        }
                    }
                }
                for lease in mine.into_iter().flatten() {
                    lanes.release(&lease, Outcome::NeedsReview).unwrap();
                }
                done.fetch_add(1, Ordering::Release);
            })
        })
        .collect();
    barrier.wait();
    for h in handles {
        h.join().unwrap();
    }
    taker.join().unwrap();
    let mut entries = std::mem::take(&mut *taken.lock().unwrap());
    entries.extend(lanes.take_journal());
    entries
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn interleavings_of_threads_always_journal_an_order_that_replays(
        threads in proptest::collection::vec(proptest::collection::vec(lane_op(), 1..400), 2..5)
    ) {
        let calls: usize = threads.iter().map(Vec::len).sum();
        let lanes = Arc::new(ProjectLanes::new().with_journal(Some(ticking())));
        let entries = run_threads(&lanes, threads);
        prop_assert!(entries.len() >= calls.min(1), "{} entries for {calls} calls", entries.len());
        let mut journal = Journal::lanes();
        journal.extend(entries);
        let record = export(&journal);
        prop_assert_eq!(replay(&record), Ok(()));
        for project in PROJECTS {
            let view = lanes.view(project).unwrap();
            let last = record.final_lanes.iter().find(|v| &*v.project == project);
            prop_assert!(last.is_none_or(|v| *v == view), "{last:?} {view:?}");
        }
    }
}

#[test]
fn many_threads_on_few_projects_overflow_their_buffers_and_still_replay() {
    // Thousands of operations per shard: buffers fill and are swapped again and again while a
    // taker takes concurrently.
    let threads = (0..4)
        .map(|t| {
            (0..3000)
                .map(|i| match (i + t) % 4 {
                    0 | 1 => LaneOp::Claim(i % 2),
                    2 => LaneOp::Release(i % 2, true),
                    _ => LaneOp::ReleaseStale(i % 2),
                })
                .collect()
        })
        .collect();
    let lanes = Arc::new(ProjectLanes::new().with_journal(None));
    let entries = run_threads(&lanes, threads);
    let mut journal = Journal::lanes();
    journal.extend(entries);
    let record = export(&journal);
    assert!(record.steps.len() >= 6000, "{}", record.steps.len());
    replay(&record).unwrap();
}

/// A journal with a history before 03:00:00.010: nightly-6 released, nightly-7 holding docs
/// with a stop requested, deploy-3 holding site.
fn history() -> (ProjectLanes<Journaled>, Journal) {
    let lanes = ProjectLanes::new().with_journal(Some(ticking()));
    let old = lanes.claim("docs", "nightly-6").unwrap(); // .000
    lanes.release(&old, Outcome::Succeeded).unwrap(); // .001
    let nightly = lanes.claim("docs", "nightly-7").unwrap(); // .002
    lanes.request_stop(&nightly).unwrap(); // .003
    let deploy = lanes.claim("site", "deploy-3").unwrap(); // .004
    let wiki = lanes.claim("wiki", "edit-1").unwrap(); // .005
    lanes.release(&wiki, Outcome::Succeeded).unwrap(); // .006
    for _ in 7..10 {
        lanes
            .claim("wiki", "edit-2")
            .map(|l| lanes.release(&l, Outcome::Failed))
            .ok();
    }
    // From .013 on: the window.
    assert!(lanes.release(&old, Outcome::Cancelled).is_err()); // a late cleanup
    lanes.release(&nightly, Outcome::Cancelled).unwrap();
    lanes.claim("docs", "nightly-8").unwrap();
    lanes.release(&deploy, Outcome::Succeeded).unwrap();
    let journal = lanes_journal(&lanes);
    (lanes, journal)
}

#[test]
fn a_time_window_starts_from_what_was_held_and_replays_on_its_own() {
    let (_, journal) = history();
    let since = journal.entries()[13].at.unwrap();
    let record = journal
        .record(&Export::new("window", "test system").unwrap().since(since))
        .unwrap();
    assert_eq!(codes(&record), ["LEASE_NOT_CURRENT", "ok", "ok", "ok"]);
    let start = record.start.as_ref().unwrap();
    let leases: Vec<(&str, &str, StartLeaseState)> = start
        .leases
        .iter()
        .map(|l| (l.handle.as_str(), l.run.as_str(), l.state))
        .collect();
    assert_eq!(
        leases,
        [
            ("L1", "nightly-6", StartLeaseState::Released),
            ("L2", "nightly-7", StartLeaseState::StopRequested),
            ("L3", "deploy-3", StartLeaseState::Running),
        ]
    );
    assert_eq!(record.steps[0].input.lease.as_deref(), Some("L1"));
    assert_eq!(record.origin.as_ref().unwrap().since, Some(since));
    replay(&record).unwrap();
    // Cut at the very end as well: `until` is exclusive.
    let until = journal.entries()[15].at.unwrap();
    let record = journal
        .record(
            &Export::new("window", "test system")
                .unwrap()
                .since(since)
                .until(until),
        )
        .unwrap();
    assert_eq!(record.steps.len(), 2);
    replay(&record).unwrap();
}

#[test]
fn some_projects_export_on_their_own() {
    let (_, journal) = history();
    let export = Export::new("docs", "test system")
        .unwrap()
        .projects(&["docs"])
        .unwrap();
    let record = journal.record(&export).unwrap();
    assert_eq!(record.projects, ["docs"]);
    assert!(record.steps.iter().all(|s| s.lanes.len() == 1));
    replay(&record).unwrap();
    let both = journal
        .record(
            &Export::new("both", "test system")
                .unwrap()
                .projects(&["wiki", "docs"])
                .unwrap()
                .since(journal.entries()[5].at.unwrap()),
        )
        .unwrap();
    assert_eq!(both.projects, ["wiki", "docs"], "in the order asked for");
    replay(&both).unwrap();
}

#[test]
fn forgetting_old_entries_changes_no_later_window() {
    let (_, journal) = history();
    let since = journal.entries()[13].at.unwrap();
    let export = Export::new("window", "test system").unwrap().since(since);
    let before = journal.record(&export).unwrap();
    let mut pruned = journal.clone();
    pruned.forget_first(13);
    assert_eq!(pruned.entries().len(), 4);
    assert_eq!(pruned.record(&export).unwrap(), before);
}

#[test]
fn exports_that_cannot_be_made_say_why() {
    let (_, journal) = history();
    let base = || Export::new("x", "test system").unwrap();
    let t = |s| time(s);
    let cases: Vec<(Export, ExportError)> = vec![
        (
            base().projects(&["nowhere"]).unwrap(),
            ExportError::UnknownProject(project_lanes::Label::new("nowhere").unwrap()),
        ),
        (
            base()
                .since(t("2026-05-01T04:00:00.000Z"))
                .until(t("2026-05-01T03:00:00.000Z")),
            ExportError::EmptyWindow {
                since: t("2026-05-01T04:00:00.000Z"),
                until: t("2026-05-01T03:00:00.000Z"),
            },
        ),
        (
            base().since(t("2026-05-01T05:00:00.000Z")),
            ExportError::Nothing,
        ),
        (
            base().until(t("2026-05-01T02:00:00.000Z")),
            ExportError::Nothing,
        ),
    ];
    for (export, expected) in cases {
        assert_eq!(journal.record(&export).unwrap_err(), expected);
        assert!(!expected.to_string().is_empty());
    }
    let at = t("2026-05-01T03:00:00.000Z");
    let same = journal
        .record(&base().since(at).until(at))
        .unwrap_err()
        .to_string();
    assert_eq!(
        same,
        "the window starts and ends at 2026-05-01T03:00:00.000Z: nothing can fall in it \
         (its end is not part of it)"
    );
    assert_eq!(
        Export::new("bad id", "s").unwrap_err(),
        ExportError::InvalidId("bad id".into())
    );
    assert!(matches!(
        Export::new("x", "two\nlines"),
        Err(ExportError::InvalidSystem(_))
    ));
    assert!(matches!(
        base().projects(&["a/b"]),
        Err(ExportError::InvalidProject(_))
    ));
    let untimed = ProjectLanes::new().with_journal(None);
    untimed.claim("docs", "x").unwrap();
    let journal = lanes_journal(&untimed);
    assert_eq!(
        journal
            .record(&base().since(t("2026-05-01T03:00:00.000Z")))
            .unwrap_err(),
        ExportError::NoTimes
    );
    assert_eq!(
        Journal::lanes().record(&base()).unwrap_err(),
        ExportError::Nothing,
        "an empty journal exports nothing"
    );
}

#[test]
fn an_answer_the_core_would_not_give_is_exported_as_given_and_replay_names_it() {
    // A system that answered PROJECT_BUSY where the lane was free: the record keeps its answer,
    // and the replay shows the step where the core disagrees.
    let (_, mut journal) = history();
    let mut entries = journal.entries().to_vec();
    entries[5].answer = Answer::Refused(DispatchError::Lane(LaneError::ProjectBusy));
    entries.truncate(6);
    journal = Journal::lanes();
    journal.extend(entries);
    let record = export(&journal);
    assert_eq!(record.steps[5].result.code(), "PROJECT_BUSY");
    match replay(&record) {
        Err(project_lanes::record::ReplayMismatch::Result { step: 5, .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// A dispatcher record's snapshot lists every reservation it holds after every step, so a record
/// grows with the square of its length: one too large to read is refused while it is built.
#[test]
fn a_record_too_large_to_read_is_refused_while_it_is_built() {
    let mut d = Dispatcher::new(&["general"])
        .unwrap()
        .with_journal(Some(ticking()));
    for i in 0..1_000 {
        d.enqueue("general", &format!("p{}", i % 64), &format!("run-{i}"))
            .unwrap();
    }
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    let whole = Export::new("whole", "test system").unwrap();
    assert_eq!(journal.record(&whole), Err(ExportError::TooLarge));
    assert!(
        ExportError::TooLarge
            .to_string()
            .contains("larger than readers take (16777216 bytes, 16 MiB)")
    );
    // Its first 400 enqueues make a record of about 7 MiB: it is made, and replays.
    let until = journal.entries()[400].at.unwrap();
    let part = journal.record(&whole.clone().until(until)).unwrap();
    assert_eq!(part.steps.len(), 400);
    let bytes = serde_json::to_vec(&part).unwrap().len();
    assert!((6 << 20..16 << 20).contains(&bytes), "{bytes}");
    replay(&part).unwrap();
}

#[test]
fn a_dispatcher_journal_replays_and_a_window_starts_from_its_reservations() {
    let mut d = Dispatcher::new(&["general", "delivery"])
        .unwrap()
        .with_journal(Some(ticking()));
    d.set_actor(Actor::new("scheduler"));
    let a = d.enqueue("general", "docs", "gen-1").unwrap();
    d.enqueue("delivery", "docs", "cafe-1").unwrap();
    let c = d.enqueue("delivery", "site", "cafe-2").unwrap();
    assert!(d.enqueue("nowhere", "docs", "x").is_err());
    d.set_actor(Actor::new("worker 1"));
    d.dispatch("general").unwrap(); // a
    d.dispatch("delivery").unwrap(); // c passes b
    assert!(d.dispatch("delivery").unwrap().is_none()); // nothing: not journaled
    d.finish(a, Outcome::Succeeded).unwrap();
    d.finish(c, Outcome::Succeeded).unwrap();
    d.persisted(c, false).unwrap(); // unresolved
    assert_eq!(
        d.cancel(ReservationId::from_number(99).unwrap())
            .unwrap_err(),
        DispatchError::UnknownReservation
    ); // names nothing: not journaled
    // The window starts here.
    d.persisted(a, true).unwrap();
    d.dispatch("delivery").unwrap(); // b
    assert_eq!(d.cancel(a).unwrap_err(), DispatchError::NotQueued);
    d.resolve(c).unwrap();
    let e = d.enqueue("general", "site", "gen-2").unwrap();
    d.dispatch("general").unwrap();
    let _ = e;
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    assert_eq!(journal.entries().len(), 15);
    assert!(matches!(journal.entries()[3].call, Call::Enqueue { .. }));

    let whole = export(&journal);
    replay(&whole).unwrap();
    assert_eq!(whole.steps[0].actor.as_deref(), Some("scheduler"));
    assert_eq!(whole.steps[4].actor.as_deref(), Some("worker 1"));

    let since = journal.entries()[9].at.unwrap();
    let window = journal
        .record(&Export::new("window", "test system").unwrap().since(since))
        .unwrap();
    let start: Vec<(String, &str, &str)> = window
        .start
        .as_ref()
        .unwrap()
        .reservations
        .iter()
        .map(|v| (v.id.to_string(), v.run.as_str(), v.state.as_str()))
        .collect();
    assert_eq!(
        start,
        [
            ("R1".into(), "gen-1", "persisting"),
            ("R2".into(), "cafe-1", "queued"),
            ("R3".into(), "cafe-2", "unresolved"),
        ]
    );
    assert_eq!(codes(&window), ["ok", "ok", "NOT_QUEUED", "ok", "ok", "ok"]);
    let StepResult::Reservation(view) = &window.steps[4].result else {
        panic!()
    };
    assert_eq!(view.id.to_string(), "R4");
    replay(&window).unwrap();

    let site = journal
        .record(
            &Export::new("site", "test system")
                .unwrap()
                .projects(&["site"])
                .unwrap(),
        )
        .unwrap();
    assert!(site.steps.iter().all(|s| {
        s.reservations
            .as_ref()
            .unwrap()
            .iter()
            .all(|v| v.project == "site")
    }));
    replay(&site).unwrap();
}
