//! The dispatcher as a state machine: shared project claims across queues, per-project order,
//! occupancy through persistence, unresolved results, cancel, and a model-based property test.

use std::collections::{BTreeSet, HashMap};

use project_lanes::dispatch::{
    DispatchError, Dispatcher, ReservationId, ReservationState, ReservationView,
};
use project_lanes::{LaneError, LaneState, LaneView, Outcome};
use proptest::prelude::*;

fn state(d: &Dispatcher, id: ReservationId) -> ReservationState {
    d.reservation(id).unwrap().state
}

fn dispatched(d: &mut Dispatcher, queue: &str) -> Option<ReservationId> {
    d.dispatch(queue).unwrap().map(|job| job.reservation)
}

fn lane(d: &Dispatcher, project: &str) -> LaneView {
    d.view(project).unwrap()
}

#[test]
fn enqueue_checks_queue_and_labels() {
    let mut d = Dispatcher::new(&["general"]).unwrap();
    assert_eq!(
        d.enqueue("cafe", "docs", "r").unwrap_err(),
        DispatchError::UnknownQueue
    );
    assert_eq!(
        d.enqueue("general", "bad project", "r").unwrap_err(),
        DispatchError::Lane(LaneError::InvalidLabel)
    );
    assert_eq!(
        d.enqueue("general", "docs", "").unwrap_err().code(),
        "INVALID_LABEL"
    );
    let id = d.enqueue("general", "docs", "r").unwrap();
    assert_eq!(id.to_string(), "R1");
    assert_eq!(d.retained("general").unwrap(), 1);
    assert!(Dispatcher::new(&[]).is_err());
    assert!(Dispatcher::new(&["a", "a"]).is_err());
}

#[test]
fn items_of_a_busy_project_are_retained_in_order_while_other_projects_pass() {
    let mut d = Dispatcher::new(&["general"]).unwrap();
    let a1 = d.enqueue("general", "docs", "a1").unwrap();
    let a2 = d.enqueue("general", "docs", "a2").unwrap();
    let b1 = d.enqueue("general", "site", "b1").unwrap();
    let a3 = d.enqueue("general", "docs", "a3").unwrap();
    assert_eq!(dispatched(&mut d, "general"), Some(a1));
    assert_eq!(
        dispatched(&mut d, "general"),
        Some(b1),
        "site passes the retained docs items"
    );
    assert_eq!(dispatched(&mut d, "general"), None);
    assert_eq!(d.retained("general").unwrap(), 2);
    assert_eq!(
        (state(&d, a2), state(&d, a3)),
        (ReservationState::Queued, ReservationState::Queued)
    );
    d.finish(a1, Outcome::Succeeded).unwrap();
    d.persisted(a1, true).unwrap();
    assert_eq!(
        dispatched(&mut d, "general"),
        Some(a2),
        "never reordered within docs"
    );
    d.finish(a2, Outcome::Failed).unwrap();
    d.persisted(a2, true).unwrap();
    assert_eq!(dispatched(&mut d, "general"), Some(a3));
}

#[test]
fn queues_share_one_claim_per_project() {
    let mut d = Dispatcher::new(&["general", "delivery"]).unwrap();
    let g = d.enqueue("general", "docs", "gen-1").unwrap();
    let c = d.enqueue("delivery", "docs", "cafe-1").unwrap();
    assert_eq!(dispatched(&mut d, "general"), Some(g));
    assert_eq!(
        dispatched(&mut d, "delivery"),
        None,
        "docs is held by the general queue"
    );
    assert_eq!(
        lane(&d, "docs"),
        LaneView::held("docs", "gen-1", LaneState::Running)
    );
    d.finish(g, Outcome::Succeeded).unwrap();
    d.persisted(g, true).unwrap();
    assert_eq!(dispatched(&mut d, "delivery"), Some(c));
}

#[test]
fn the_lane_stays_held_until_the_final_state_is_saved() {
    let mut d = Dispatcher::new(&["general", "delivery"]).unwrap();
    let g = d.enqueue("general", "docs", "gen-1").unwrap();
    let c = d.enqueue("delivery", "docs", "cafe-1").unwrap();
    dispatched(&mut d, "general");
    let saving = d.finish(g, Outcome::Succeeded).unwrap();
    assert_eq!(
        (saving.reservation, saving.outcome),
        (g, Outcome::Succeeded)
    );
    assert_eq!(state(&d, g), ReservationState::Persisting);
    assert!(lane(&d, "docs").busy, "held while saving");
    assert_eq!(dispatched(&mut d, "delivery"), None);
    let settled = d.persisted(g, true).unwrap();
    assert_eq!(settled.state, ReservationState::Done);
    assert_eq!(settled.receipt.outcome, Outcome::Succeeded);
    assert!(!settled.receipt.work_executed_here);
    assert!(!lane(&d, "docs").busy);
    assert_eq!(dispatched(&mut d, "delivery"), Some(c));
}

#[test]
fn completion_happens_once_and_a_late_one_cannot_release_a_newer_owner() {
    let mut d = Dispatcher::new(&["general"]).unwrap();
    let old = d.enqueue("general", "docs", "old").unwrap();
    let new = d.enqueue("general", "docs", "new").unwrap();
    dispatched(&mut d, "general");
    d.finish(old, Outcome::Succeeded).unwrap();
    d.persisted(old, true).unwrap();
    assert_eq!(
        d.persisted(old, true).unwrap_err(),
        DispatchError::NotPersisting
    );
    assert_eq!(dispatched(&mut d, "general"), Some(new));
    // The old run's late cleanup, in every form: refused, and the new owner keeps the lane.
    assert_eq!(
        d.persisted(old, false).unwrap_err(),
        DispatchError::NotPersisting
    );
    assert_eq!(
        d.finish(old, Outcome::Cancelled).unwrap_err(),
        DispatchError::NotDispatched
    );
    assert_eq!(d.cancel(old).unwrap_err(), DispatchError::NotQueued);
    assert_eq!(
        lane(&d, "docs"),
        LaneView::held("docs", "new", LaneState::Running)
    );
    assert_eq!(state(&d, old), ReservationState::Done);
}

#[test]
fn a_failed_save_makes_the_outcome_needs_review_and_blocks_the_project_until_resolved() {
    let mut d = Dispatcher::new(&["general", "delivery"]).unwrap();
    let a = d.enqueue("general", "docs", "a").unwrap();
    let b = d.enqueue("delivery", "docs", "b").unwrap();
    let s = d.enqueue("delivery", "site", "s").unwrap();
    dispatched(&mut d, "general");
    d.finish(a, Outcome::Succeeded).unwrap();
    let settled = d.persisted(a, false).unwrap();
    assert_eq!(settled.state, ReservationState::Unresolved);
    assert_eq!(settled.receipt.outcome, Outcome::NeedsReview);
    assert!(!lane(&d, "docs").busy, "the lane is released");
    // ...but docs takes no automatic dispatch, and nothing is replayed; other projects go on.
    assert_eq!(dispatched(&mut d, "delivery"), Some(s));
    assert_eq!(dispatched(&mut d, "delivery"), None);
    assert_eq!(state(&d, b), ReservationState::Queued);
    assert_eq!(
        d.reservations()
            .iter()
            .filter(|r| r.project == "docs")
            .count(),
        2
    );
    assert_eq!(d.resolve(s).unwrap_err(), DispatchError::NotUnresolved);
    let resolved = d.resolve(a).unwrap();
    assert_eq!(resolved.state, ReservationState::Resolved);
    assert_eq!(d.resolve(a).unwrap_err(), DispatchError::NotUnresolved);
    assert_eq!(dispatched(&mut d, "delivery"), Some(b));
}

#[test]
fn a_needs_review_outcome_from_the_work_also_blocks_until_resolved() {
    let mut d = Dispatcher::new(&["general"]).unwrap();
    let a = d.enqueue("general", "docs", "a").unwrap();
    let b = d.enqueue("general", "docs", "b").unwrap();
    dispatched(&mut d, "general");
    d.finish(a, Outcome::NeedsReview).unwrap();
    assert_eq!(
        d.persisted(a, true).unwrap().state,
        ReservationState::Unresolved
    );
    assert_eq!(dispatched(&mut d, "general"), None);
    d.resolve(a).unwrap();
    assert_eq!(dispatched(&mut d, "general"), Some(b));
}

#[test]
fn cancel_removes_a_queued_item_only() {
    let mut d = Dispatcher::new(&["general"]).unwrap();
    let a = d.enqueue("general", "docs", "a").unwrap();
    let b = d.enqueue("general", "docs", "b").unwrap();
    let c = d.enqueue("general", "docs", "c").unwrap();
    assert_eq!(
        d.cancel(b).unwrap().state,
        ReservationState::Cancelled,
        "behind the head"
    );
    assert_eq!(d.cancel(b).unwrap_err(), DispatchError::NotQueued);
    assert_eq!(d.retained("general").unwrap(), 2);
    assert_eq!(dispatched(&mut d, "general"), Some(a));
    assert_eq!(
        d.cancel(a).unwrap_err(),
        DispatchError::NotQueued,
        "dispatch won the race"
    );
    d.finish(a, Outcome::Succeeded).unwrap();
    d.persisted(a, true).unwrap();
    assert_eq!(
        dispatched(&mut d, "general"),
        Some(c),
        "the cancelled item is skipped"
    );
    let e = d.enqueue("general", "site", "e").unwrap();
    let f = d.enqueue("general", "site", "f").unwrap();
    d.cancel(e).unwrap(); // the head: the next item takes its place at once
    assert_eq!(dispatched(&mut d, "general"), Some(f));
    assert_eq!(
        d.cancel(ReservationId::parse("R99").unwrap()).unwrap_err(),
        DispatchError::UnknownReservation
    );
}

#[test]
fn operations_in_the_wrong_state_are_refused_and_change_nothing() {
    let mut d = Dispatcher::new(&["general"]).unwrap();
    let a = d.enqueue("general", "docs", "a").unwrap();
    let before = d.reservations();
    assert_eq!(
        d.finish(a, Outcome::Succeeded).unwrap_err(),
        DispatchError::NotDispatched
    );
    assert_eq!(
        d.persisted(a, true).unwrap_err(),
        DispatchError::NotPersisting
    );
    assert_eq!(d.resolve(a).unwrap_err(), DispatchError::NotUnresolved);
    assert_eq!(d.dispatch("nope").unwrap_err(), DispatchError::UnknownQueue);
    assert_eq!(d.reservations(), before);
    assert!(!lane(&d, "docs").busy);
}

#[test]
fn error_codes_round_trip() {
    for e in DispatchError::OWN {
        assert_eq!(DispatchError::from_code(e.code()), Some(e));
        assert!(e.to_string().starts_with(e.code()));
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(serde_json::from_str::<DispatchError>(&json).unwrap(), e);
    }
    assert_eq!(
        DispatchError::from_code("PROJECT_BUSY"),
        Some(DispatchError::Lane(LaneError::ProjectBusy))
    );
    assert!(serde_json::from_str::<DispatchError>(r#""BUSY""#).is_err());
    assert_eq!(ReservationId::parse("R12").unwrap().number(), 12);
    for bad in ["R0", "R01", "r1", "R", "12", "R1x", "R+1", "R+0", "R 1"] {
        assert!(ReservationId::parse(bad).is_none(), "{bad}");
    }
}

// ---- property test against a model ----

const QUEUES: [&str; 2] = ["general", "delivery"];
const PROJECTS: [&str; 3] = ["alpha", "beta", "gamma"];

#[derive(Debug, Clone)]
enum Op {
    Enqueue(usize, usize),
    Dispatch(usize),
    Finish(usize, usize),
    Persist(usize, bool),
    Cancel(usize),
    Resolve(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..2usize, 0..3usize).prop_map(|(q, p)| Op::Enqueue(q, p)),
        3 => (0..2usize).prop_map(Op::Dispatch),
        2 => (0..40usize, 0..4usize).prop_map(|(i, o)| Op::Finish(i, o)),
        2 => (0..40usize, prop::bool::weighted(0.8)).prop_map(|(i, s)| Op::Persist(i, s)),
        1 => (0..40usize).prop_map(Op::Cancel),
        1 => (0..40usize).prop_map(Op::Resolve),
    ]
}

#[derive(Clone, Debug, PartialEq)]
struct M {
    queue: usize,
    project: usize,
    state: ReservationState,
    outcome: Option<Outcome>,
}

/// The model: a plain list, scanned in full (the dispatcher must never need to).
#[derive(Default)]
struct Model {
    items: Vec<M>,
}

impl Model {
    fn available(&self, project: usize) -> bool {
        !self.items.iter().any(|m| {
            m.project == project
                && matches!(
                    m.state,
                    ReservationState::Dispatched
                        | ReservationState::Persisting
                        | ReservationState::Unresolved
                )
        })
    }

    /// The oldest queued item of `queue` that is first in its project's line and available.
    fn next(&self, queue: usize) -> Option<usize> {
        let mut seen = BTreeSet::new();
        for (i, m) in self.items.iter().enumerate() {
            if m.queue != queue || m.state != ReservationState::Queued || !seen.insert(m.project) {
                continue;
            }
            if self.available(m.project) {
                return Some(i);
            }
        }
        None
    }
}

fn id(i: usize) -> ReservationId {
    ReservationId::parse(&format!("R{}", i + 1)).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn the_dispatcher_agrees_with_the_model(ops in proptest::collection::vec(op(), 1..120)) {
        let mut d = Dispatcher::new(&QUEUES).unwrap();
        let mut model = Model::default();
        // Per (queue, project): the ids in dispatch order, to check FIFO.
        let mut order: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
        for op in ops {
            match op {
                Op::Enqueue(q, p) => {
                    let got = d.enqueue(QUEUES[q], PROJECTS[p], "run").unwrap();
                    prop_assert_eq!(got, id(model.items.len()));
                    model.items.push(M { queue: q, project: p, state: ReservationState::Queued, outcome: None });
                }
                Op::Dispatch(q) => {
                    let expected = model.next(q);
                    let got = d.dispatch(QUEUES[q]).unwrap().map(|j| j.reservation);
                    prop_assert_eq!(got, expected.map(id));
                    if let Some(i) = expected {
                        model.items[i].state = ReservationState::Dispatched;
                        order.entry((q, model.items[i].project)).or_default().push(i);
                    }
                }
                Op::Finish(i, o) => {
                    let outcome = Outcome::ALL[o];
                    let got = d.finish(id(i), outcome).map(|s| s.outcome);
                    let expected = match model.items.get_mut(i) {
                        None => Err(DispatchError::UnknownReservation),
                        Some(m) if m.state == ReservationState::Dispatched => {
                            m.state = ReservationState::Persisting;
                            m.outcome = Some(outcome);
                            Ok(outcome)
                        }
                        Some(_) => Err(DispatchError::NotDispatched),
                    };
                    prop_assert_eq!(got, expected);
                }
                Op::Persist(i, saved) => {
                    let got = d.persisted(id(i), saved).map(|s| (s.state, s.receipt.outcome));
                    let expected = match model.items.get_mut(i) {
                        None => Err(DispatchError::UnknownReservation),
                        Some(m) if m.state == ReservationState::Persisting => {
                            let outcome = if saved { m.outcome.unwrap() } else { Outcome::NeedsReview };
                            m.outcome = Some(outcome);
                            m.state = if outcome == Outcome::NeedsReview {
                                ReservationState::Unresolved
                            } else {
                                ReservationState::Done
                            };
                            Ok((m.state, outcome))
                        }
                        Some(_) => Err(DispatchError::NotPersisting),
                    };
                    prop_assert_eq!(got, expected);
                }
                Op::Cancel(i) => {
                    let got = d.cancel(id(i)).map(|v| v.state);
                    let expected = match model.items.get_mut(i) {
                        None => Err(DispatchError::UnknownReservation),
                        Some(m) if m.state == ReservationState::Queued => {
                            m.state = ReservationState::Cancelled;
                            Ok(m.state)
                        }
                        Some(_) => Err(DispatchError::NotQueued),
                    };
                    prop_assert_eq!(got, expected);
                }
                Op::Resolve(i) => {
                    let got = d.resolve(id(i)).map(|v| v.state);
                    let expected = match model.items.get_mut(i) {
                        None => Err(DispatchError::UnknownReservation),
                        Some(m) if m.state == ReservationState::Unresolved => {
                            m.state = ReservationState::Resolved;
                            Ok(m.state)
                        }
                        Some(_) => Err(DispatchError::NotUnresolved),
                    };
                    prop_assert_eq!(got, expected);
                }
            }
            // Nothing lost: every reservation is there, in the model's state.
            let views: Vec<ReservationView> = d.reservations();
            prop_assert_eq!(views.len(), model.items.len());
            for (view, m) in views.iter().zip(&model.items) {
                prop_assert_eq!(view.state, m.state);
                prop_assert_eq!(view.outcome, m.outcome);
            }
            // Never two runs in one project, and the lane shows exactly the holder.
            for (p, project) in PROJECTS.iter().enumerate() {
                let holders: Vec<usize> = model.items.iter().enumerate()
                    .filter(|(_, m)| m.project == p && matches!(m.state, ReservationState::Dispatched | ReservationState::Persisting))
                    .map(|(i, _)| i)
                    .collect();
                prop_assert!(holders.len() <= 1);
                prop_assert_eq!(lane(&d, project).busy, holders.len() == 1);
            }
            for (q, queue) in QUEUES.iter().enumerate() {
                let queued = model
                    .items
                    .iter()
                    .filter(|m| m.queue == q && m.state == ReservationState::Queued)
                    .count();
                prop_assert_eq!(d.retained(queue).unwrap(), queued);
            }
        }
        // Order kept per project within each queue.
        for ids in order.values() {
            prop_assert!(ids.windows(2).all(|w| w[0] < w[1]));
        }
    }
}
