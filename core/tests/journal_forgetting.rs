//! An exporter or auditor that forgets settled reservations (as a database's export does, its
//! table keeping them) writes the same record byte for byte, and gives the same verdict, as one
//! that keeps everything: on a journal full of stale releases and calls on settled
//! reservations, whole, cut by time and by project.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use project_lanes::dispatch::{
    DispatchError, Dispatcher, ReservationId, ReservationState, ReservationView,
};
use project_lanes::journal::write_item;
use project_lanes::journal::{Answer, Auditor, Call, Clock, Entry, Export, Exporter, Journal};
use project_lanes::record::Timestamp;
use project_lanes::record::stream::Writer;
use project_lanes::{Lease, Outcome};

const START: u64 = 1_780_000_000_000;
const TICK: u64 = 7;

fn clock() -> Arc<dyn Clock> {
    let ticks = Arc::new(AtomicU64::new(START));
    Arc::new(move || Timestamp::from_millis(ticks.fetch_add(TICK, Ordering::Relaxed)).unwrap())
}

fn at(entry: u64) -> Timestamp {
    Timestamp::from_millis(START + entry * TICK).unwrap()
}

/// A journal of `steps` calls chosen by a fixed sequence: claims, releases and stop requests
/// of any lease ever issued (most of them stale), enqueues, dispatches, and finishes,
/// persists, cancels and resolves of any reservation ever enqueued (most of them settled).
/// Returns it with every reservation as it ends (a settled one never changes again).
fn busy_journal(steps: usize) -> (Journal, HashMap<ReservationId, ReservationView>) {
    let projects = ["p0", "p1", "p2", "p3", "p4"];
    let queues = ["q0", "q1"];
    let outcomes = [
        Outcome::Succeeded,
        Outcome::Failed,
        Outcome::Cancelled,
        Outcome::NeedsReview,
    ];
    let mut d = Dispatcher::new(&queues)
        .unwrap()
        .with_journal(Some(clock()));
    let mut leases: Vec<Lease> = Vec::new();
    let mut ids: Vec<ReservationId> = Vec::new();
    let mut seed: u64 = 0x5eed;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 33) as usize) % n.max(1)
    };
    for step in 0..steps {
        let project = projects[next(projects.len())];
        let queue = queues[next(queues.len())];
        let outcome = outcomes[next(outcomes.len())];
        match next(10) {
            0 => {
                if let Ok(lease) = d.claim(project, &format!("run-{step}")) {
                    leases.push(lease);
                }
            }
            1 if !leases.is_empty() => {
                let _ = d.release(&leases[next(leases.len())], outcome);
            }
            2 if !leases.is_empty() => {
                let _ = d.request_stop(&leases[next(leases.len())]);
            }
            3 | 4 => ids.push(d.enqueue(queue, project, &format!("job-{step}")).unwrap()),
            5 => {
                let _ = d.dispatch(queue);
            }
            6 if !ids.is_empty() => {
                let _ = d.finish(ids[next(ids.len())], outcome);
            }
            7 if !ids.is_empty() => {
                let _ = d.persisted(ids[next(ids.len())], next(3) > 0);
            }
            8 if !ids.is_empty() => {
                let _ = d.cancel(ids[next(ids.len())]);
            }
            9 if !ids.is_empty() => {
                let _ = d.resolve(ids[next(ids.len())]);
            }
            _ => {}
        }
    }
    let store = d.reservations().into_iter().map(|v| (v.id, v)).collect();
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    (journal, store)
}

/// The reservation an entry names by id.
fn named(entry: &Entry) -> Option<ReservationId> {
    match &entry.call {
        Call::Finish { reservation, .. }
        | Call::Persist { reservation, .. }
        | Call::Cancel { reservation }
        | Call::Resolve { reservation } => Some(*reservation),
        _ => None,
    }
}

/// `export` written by an exporter that forgets settled reservations and asks `store` for
/// those it wants back; and how many it asked for.
fn forgetting_record(
    journal: &Journal,
    export: &Export,
    store: &HashMap<ReservationId, ReservationView>,
) -> (Vec<u8>, usize) {
    let mut exporter =
        Exporter::new(export, journal.queues(), journal.start().clone()).forgetting_settled();
    let mut writer = Writer::new(Vec::new(), &exporter.head()).unwrap();
    let mut asked = 0;
    for entry in journal.entries() {
        if let Some(id) = named(entry).filter(|&id| exporter.wants(id)) {
            exporter.settled(store[&id].clone());
            asked += 1;
        }
        exporter
            .entry(entry, &mut |_, item| write_item(&mut writer, item))
            .unwrap();
    }
    // Only what is live is held: no reservation settled for good is left in the state.
    assert!(!exporter.state().reservations().any(|v| matches!(
        v.state,
        ReservationState::Done | ReservationState::Cancelled | ReservationState::Resolved
    )));
    exporter
        .finish(&mut |_, item| write_item(&mut writer, item))
        .unwrap();
    (writer.end().unwrap(), asked)
}

fn forgetting_audit(
    journal: &Journal,
    since: Option<Timestamp>,
    store: &HashMap<ReservationId, ReservationView>,
) -> project_lanes::journal::Audit {
    let mut auditor =
        Auditor::new(journal.queues(), journal.start().clone(), since).forgetting_settled();
    for entry in journal.entries() {
        if let Some(id) = named(entry).filter(|&id| auditor.wants(id)) {
            auditor.settled(store[&id].clone());
        }
        auditor.entry(entry).unwrap();
    }
    auditor.finish().unwrap()
}

fn cuts() -> Vec<Export> {
    let all = Export::new("busy", "test farm").unwrap();
    vec![
        all.clone(),
        all.clone().since(at(1_500)),
        all.clone().since(at(1_000)).until(at(2_500)),
        all.clone().projects(&["p1".to_owned()]).unwrap(),
        all.since(at(2_000))
            .projects(&["p2".to_owned(), "p4".to_owned()])
            .unwrap(),
    ]
}

#[test]
fn a_forgetting_export_writes_the_same_record_byte_for_byte() {
    let (journal, store) = busy_journal(4_000);
    let mut asked = 0;
    for export in cuts() {
        let (kept, steps) = journal.write_record(&export, Vec::new()).unwrap();
        let (forgetting, n) = forgetting_record(&journal, &export, &store);
        assert!(steps > 100, "{steps}");
        assert!(
            kept == forgetting,
            "{export:?}: the records differ from line {}",
            kept.split(|&b| b == b'\n')
                .zip(forgetting.split(|&b| b == b'\n'))
                .position(|(a, b)| a != b)
                .map_or(0, |n| n + 1)
        );
        asked += n;
    }
    // The journal named settled reservations the exporter had forgotten: the store answered.
    assert!(asked > 0);
}

#[test]
fn a_forgetting_audit_gives_the_same_verdict_and_names_the_same_entry() {
    let (mut journal, store) = busy_journal(4_000);
    for since in [None, Some(at(1_500))] {
        assert_eq!(
            forgetting_audit(&journal, since, &store),
            journal.audit(since).unwrap()
        );
    }
    // A late refusal on a reservation settled long before, changed: both name it.
    let entries = journal.entries().to_vec();
    let (changed, _) = entries
        .iter()
        .enumerate()
        .rev()
        .find(|(_, e)| {
            matches!(e.call, Call::Cancel { .. })
                && e.answer == Answer::Refused(DispatchError::NotQueued)
        })
        .unwrap();
    assert!(changed > 2_000);
    let mut tampered = entries;
    tampered[changed].answer = Answer::Refused(DispatchError::NotDispatched);
    journal = Journal::dispatcher(journal.queues()).starting_from(journal.start().clone());
    journal.extend(tampered);
    let kept = journal.audit(None).unwrap();
    assert_eq!(kept.mismatch.as_ref().unwrap().entry, changed);
    assert_eq!(forgetting_audit(&journal, None, &store), kept);
}

/// A journal of `n` reservations that settle in turn (so an auditor's core retires them),
/// with calls on long settled ones and direct claims between them.
fn steady_journal(n: u64) -> Journal {
    let mut d = Dispatcher::new(&["general"])
        .unwrap()
        .with_journal(Some(clock()));
    let mut leases = Vec::new();
    for k in 1..=n {
        let project = format!("p{}", k % 5);
        let id = d.enqueue("general", &project, &format!("job-{k}")).unwrap();
        d.dispatch("general").unwrap().unwrap();
        d.finish(id, Outcome::Succeeded).unwrap();
        d.persisted(id, k % 50 != 0).unwrap();
        if k % 50 == 0 {
            d.resolve(id).unwrap();
        }
        if k % 97 == 0 {
            let old = ReservationId::from_number(k / 3 + 1).unwrap();
            d.cancel(old).unwrap_err();
            d.finish(old, Outcome::Failed).unwrap_err();
            d.persisted(old, true).unwrap_err();
            d.resolve(old).unwrap_err();
            let lease = d.claim(&project, &format!("hand-{k}")).unwrap();
            d.release(&lease, Outcome::Succeeded).unwrap();
            leases.push(lease);
            d.release(&leases[leases.len() / 2], Outcome::Failed)
                .unwrap_err();
        }
    }
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    journal
}

#[test]
fn an_auditor_whose_core_forgets_settled_reservations_names_a_late_call_on_one() {
    let journal = steady_journal(12_000);
    let store = HashMap::new();
    let kept = journal.audit(None).unwrap();
    assert_eq!(kept.mismatch, None);
    assert_eq!(forgetting_audit(&journal, None, &store), kept);
    // The last refused resolve names a reservation settled thousands of entries before.
    let mut entries = journal.entries().to_vec();
    let changed = entries
        .iter()
        .rposition(|e| {
            matches!(e.call, Call::Resolve { .. }) && matches!(e.answer, Answer::Refused(_))
        })
        .unwrap();
    entries[changed].answer = Answer::Refused(DispatchError::NotQueued);
    let mut tampered = Journal::dispatcher(journal.queues());
    tampered.extend(entries);
    let kept = tampered.audit(None).unwrap();
    let mismatch = kept.mismatch.as_ref().unwrap();
    assert_eq!(mismatch.entry, changed);
    assert_eq!(
        (mismatch.journaled.as_str(), mismatch.core.as_str()),
        ("NOT_QUEUED", "NOT_UNRESOLVED")
    );
    assert_eq!(forgetting_audit(&tampered, None, &store), kept);
}
