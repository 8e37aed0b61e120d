//! The dispatcher's rules, case by case, and a model-based property check of the queues with
//! direct lane operations beside them, for any backend (`project_lanes::backend::Queues`,
//! `DirectLanes`).
//!
//! Shared by `core/tests/dispatch.rs` (in memory) and `pg-tests/tests/queues.rs` (PostgreSQL): a test
//! file includes this module as `queues_suite` and calls `queue_rule_tests!(fresh)`, where
//! `fresh(&queues)` returns a new, empty dispatcher with those queues (or its refusal).

use std::collections::{BTreeSet, HashMap};

use project_lanes::backend::{DirectLanes, LeaseInfo, Queues, Refusal};
use project_lanes::dispatch::{DispatchError, ReservationId, ReservationState, ReservationView};
use project_lanes::{LaneError, LaneState, LaneView, Outcome};
use proptest::prelude::*;

/// One `#[test]` per case below, each on `$fresh(&queues)` dispatchers, with the attributes
/// given first (`queue_rule_tests!(#[ignore = "needs a database"] fresh)`).
#[macro_export]
macro_rules! queue_rule_tests {
    ($(#[$attr:meta])* $fresh:path) => {
        $crate::queue_rule_tests!(@cases [$(#[$attr])*] $fresh;
            enqueue_checks_queue_and_labels,
            items_of_a_busy_project_are_retained_in_order_while_other_projects_pass,
            queues_share_one_claim_per_project,
            the_lane_stays_held_until_the_final_state_is_saved,
            completion_happens_once_and_a_late_one_cannot_release_a_newer_owner,
            a_failed_save_makes_the_outcome_needs_review_and_blocks_the_project_until_resolved,
            a_needs_review_outcome_from_the_work_also_blocks_until_resolved,
            cancel_removes_a_queued_item_only,
            operations_in_the_wrong_state_are_refused_and_change_nothing,
        );
    };
    (@cases $attrs:tt $fresh:path; $($case:ident),* $(,)?) => {
        $( $crate::queue_rule_tests!(@case $attrs $fresh; $case); )*
    };
    (@case [$(#[$attr:meta])*] $fresh:path; $case:ident) => {
        $(#[$attr])*
        #[test]
        fn $case() {
            queues_suite::$case(&$fresh)
        }
    };
}

pub type Fresh<'a, D> = &'a dyn Fn(&[&str]) -> Result<D, <D as Queues>::Error>;

fn state<D: Queues>(d: &mut D, id: ReservationId) -> ReservationState {
    d.reservation(id).unwrap().state
}

fn dispatched<D: Queues>(d: &mut D, queue: &str) -> Option<ReservationId> {
    d.dispatch(queue).unwrap().map(|job| job.reservation)
}

fn lane<D: Queues>(d: &mut D, project: &str) -> LaneView {
    d.view(project).unwrap()
}

/// The refusal of a result, panicking on success or on a backend failure.
fn refused<T, E: Refusal>(result: Result<T, E>) -> DispatchError {
    match result {
        Ok(_) => panic!("expected a refusal, got success"),
        Err(e) => e
            .refusal()
            .unwrap_or_else(|| panic!("expected a refusal, got {e:?}")),
    }
}

fn id(n: u64) -> ReservationId {
    ReservationId::parse(&format!("R{n}")).unwrap()
}

pub fn enqueue_checks_queue_and_labels<D: Queues>(fresh: Fresh<D>) {
    let mut d = fresh(&["general"]).unwrap();
    assert_eq!(
        refused(d.enqueue("cafe", "docs", "r")),
        DispatchError::UnknownQueue
    );
    assert_eq!(
        refused(d.enqueue("general", "bad project", "r")),
        DispatchError::Lane(LaneError::InvalidLabel)
    );
    assert_eq!(
        refused(d.enqueue("general", "docs", "")).code(),
        "INVALID_LABEL"
    );
    let id = d.enqueue("general", "docs", "r").unwrap();
    assert_eq!(id.to_string(), "R1");
    assert_eq!(d.retained("general").unwrap(), 1);
    assert_eq!(refused(fresh(&[])), DispatchError::UnknownQueue);
    assert_eq!(refused(fresh(&["a", "a"])), DispatchError::UnknownQueue);
    assert_eq!(
        refused(fresh(&["a b"])),
        DispatchError::Lane(LaneError::InvalidLabel)
    );
}

pub fn items_of_a_busy_project_are_retained_in_order_while_other_projects_pass<D: Queues>(
    fresh: Fresh<D>,
) {
    let mut d = fresh(&["general"]).unwrap();
    let a1 = d.enqueue("general", "docs", "a1").unwrap();
    let a2 = d.enqueue("general", "docs", "a2").unwrap();
    let b1 = d.enqueue("general", "site", "b1").unwrap();
    let a3 = d.enqueue("general", "docs", "a3").unwrap();
    assert_eq!(dispatched(&mut d, "general"), Some(a1));
    assert_eq!(dispatched(&mut d, "general"), Some(b1), "site passes docs");
    assert_eq!(dispatched(&mut d, "general"), None);
    assert_eq!(d.retained("general").unwrap(), 2);
    assert_eq!(
        (state(&mut d, a2), state(&mut d, a3)),
        (ReservationState::Queued, ReservationState::Queued)
    );
    d.finish(a1, Outcome::Succeeded).unwrap();
    d.persisted(a1, true).unwrap();
    assert_eq!(dispatched(&mut d, "general"), Some(a2), "never reordered");
    d.finish(a2, Outcome::Failed).unwrap();
    d.persisted(a2, true).unwrap();
    assert_eq!(dispatched(&mut d, "general"), Some(a3));
}

pub fn queues_share_one_claim_per_project<D: Queues>(fresh: Fresh<D>) {
    let mut d = fresh(&["general", "delivery"]).unwrap();
    let g = d.enqueue("general", "docs", "gen-1").unwrap();
    let c = d.enqueue("delivery", "docs", "cafe-1").unwrap();
    assert_eq!(dispatched(&mut d, "general"), Some(g));
    assert_eq!(dispatched(&mut d, "delivery"), None, "docs is held");
    assert_eq!(
        lane(&mut d, "docs"),
        LaneView::held("docs", "gen-1", LaneState::Running)
    );
    d.finish(g, Outcome::Succeeded).unwrap();
    d.persisted(g, true).unwrap();
    assert_eq!(dispatched(&mut d, "delivery"), Some(c));
}

pub fn the_lane_stays_held_until_the_final_state_is_saved<D: Queues>(fresh: Fresh<D>) {
    let mut d = fresh(&["general", "delivery"]).unwrap();
    let g = d.enqueue("general", "docs", "gen-1").unwrap();
    let c = d.enqueue("delivery", "docs", "cafe-1").unwrap();
    dispatched(&mut d, "general");
    let saving = d.finish(g, Outcome::Succeeded).unwrap();
    assert_eq!(
        (saving.reservation, saving.outcome),
        (g, Outcome::Succeeded)
    );
    assert_eq!(state(&mut d, g), ReservationState::Persisting);
    assert!(lane(&mut d, "docs").busy, "held while saving");
    assert_eq!(dispatched(&mut d, "delivery"), None);
    let settled = d.persisted(g, true).unwrap();
    assert_eq!(settled.state, ReservationState::Done);
    assert_eq!(settled.receipt.outcome, Outcome::Succeeded);
    assert!(!settled.receipt.work_executed_here);
    assert!(!lane(&mut d, "docs").busy);
    assert_eq!(dispatched(&mut d, "delivery"), Some(c));
}

pub fn completion_happens_once_and_a_late_one_cannot_release_a_newer_owner<D: Queues>(
    fresh: Fresh<D>,
) {
    let mut d = fresh(&["general"]).unwrap();
    let old = d.enqueue("general", "docs", "old").unwrap();
    let new = d.enqueue("general", "docs", "new").unwrap();
    dispatched(&mut d, "general");
    d.finish(old, Outcome::Succeeded).unwrap();
    d.persisted(old, true).unwrap();
    assert_eq!(
        refused(d.persisted(old, true)),
        DispatchError::NotPersisting
    );
    assert_eq!(dispatched(&mut d, "general"), Some(new));
    assert_eq!(
        refused(d.persisted(old, false)),
        DispatchError::NotPersisting
    );
    assert_eq!(
        refused(d.finish(old, Outcome::Cancelled)),
        DispatchError::NotDispatched
    );
    assert_eq!(refused(d.cancel(old)), DispatchError::NotQueued);
    assert_eq!(
        lane(&mut d, "docs"),
        LaneView::held("docs", "new", LaneState::Running)
    );
    assert_eq!(state(&mut d, old), ReservationState::Done);
}

pub fn a_failed_save_makes_the_outcome_needs_review_and_blocks_the_project_until_resolved<
    D: Queues,
>(
    fresh: Fresh<D>,
) {
    let mut d = fresh(&["general", "delivery"]).unwrap();
    let a = d.enqueue("general", "docs", "a").unwrap();
    let b = d.enqueue("delivery", "docs", "b").unwrap();
    let s = d.enqueue("delivery", "site", "s").unwrap();
    dispatched(&mut d, "general");
    d.finish(a, Outcome::Succeeded).unwrap();
    let settled = d.persisted(a, false).unwrap();
    assert_eq!(settled.state, ReservationState::Unresolved);
    assert_eq!(settled.receipt.outcome, Outcome::NeedsReview);
    assert!(!lane(&mut d, "docs").busy, "the lane is released");
    // ...but docs takes no automatic dispatch, and nothing is replayed; other projects go on.
    assert_eq!(dispatched(&mut d, "delivery"), Some(s));
    assert_eq!(dispatched(&mut d, "delivery"), None);
    assert_eq!(state(&mut d, b), ReservationState::Queued);
    let docs = d.reservations().unwrap();
    assert_eq!(docs.iter().filter(|r| r.project == "docs").count(), 2);
    assert_eq!(refused(d.resolve(s)), DispatchError::NotUnresolved);
    assert_eq!(d.resolve(a).unwrap().state, ReservationState::Resolved);
    assert_eq!(refused(d.resolve(a)), DispatchError::NotUnresolved);
    assert_eq!(dispatched(&mut d, "delivery"), Some(b));
}

pub fn a_needs_review_outcome_from_the_work_also_blocks_until_resolved<D: Queues>(fresh: Fresh<D>) {
    let mut d = fresh(&["general"]).unwrap();
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

pub fn cancel_removes_a_queued_item_only<D: Queues>(fresh: Fresh<D>) {
    let mut d = fresh(&["general"]).unwrap();
    let a = d.enqueue("general", "docs", "a").unwrap();
    let b = d.enqueue("general", "docs", "b").unwrap();
    let c = d.enqueue("general", "docs", "c").unwrap();
    assert_eq!(d.cancel(b).unwrap().state, ReservationState::Cancelled);
    assert_eq!(refused(d.cancel(b)), DispatchError::NotQueued);
    assert_eq!(d.retained("general").unwrap(), 2);
    assert_eq!(dispatched(&mut d, "general"), Some(a));
    assert_eq!(
        refused(d.cancel(a)),
        DispatchError::NotQueued,
        "dispatch won"
    );
    d.finish(a, Outcome::Succeeded).unwrap();
    d.persisted(a, true).unwrap();
    assert_eq!(
        dispatched(&mut d, "general"),
        Some(c),
        "cancelled is skipped"
    );
    let e = d.enqueue("general", "site", "e").unwrap();
    let f = d.enqueue("general", "site", "f").unwrap();
    d.cancel(e).unwrap(); // the head: the next item takes its place at once
    assert_eq!(dispatched(&mut d, "general"), Some(f));
    assert_eq!(refused(d.cancel(id(99))), DispatchError::UnknownReservation);
}

pub fn operations_in_the_wrong_state_are_refused_and_change_nothing<D: Queues>(fresh: Fresh<D>) {
    let mut d = fresh(&["general"]).unwrap();
    let a = d.enqueue("general", "docs", "a").unwrap();
    let before = d.reservations().unwrap();
    assert_eq!(
        refused(d.finish(a, Outcome::Succeeded)),
        DispatchError::NotDispatched
    );
    assert_eq!(refused(d.persisted(a, true)), DispatchError::NotPersisting);
    assert_eq!(refused(d.resolve(a)), DispatchError::NotUnresolved);
    assert_eq!(refused(d.dispatch("nope")), DispatchError::UnknownQueue);
    assert_eq!(
        refused(d.finish(id(7), Outcome::Failed)),
        DispatchError::UnknownReservation
    );
    assert_eq!(
        refused(d.persisted(id(7), true)),
        DispatchError::UnknownReservation
    );
    assert_eq!(refused(d.resolve(id(7))), DispatchError::UnknownReservation);
    assert_eq!(
        refused(d.reservation(id(7))),
        DispatchError::UnknownReservation
    );
    assert_eq!(d.reservations().unwrap(), before);
    assert!(!lane(&mut d, "docs").busy);
}

// ---- a model of the rules, checked after every operation of a random sequence ----

pub const QUEUES: [&str; 2] = ["general", "delivery"];
pub const PROJECTS: [&str; 3] = ["alpha", "beta", "gamma"];

/// One operation of a random sequence (indexes into `QUEUES`, `PROJECTS`, reservations and
/// direct leases).
#[derive(Debug, Clone)]
pub enum Op {
    Enqueue(usize, usize),
    Dispatch(usize),
    Finish(usize, usize),
    Persist(usize, bool),
    Cancel(usize),
    Resolve(usize),
    /// A direct claim of a project, beside the queues.
    Claim(usize),
    /// A stop request on a direct lease (by its index among the claims that succeeded).
    Stop(usize),
    /// A release of a direct lease, with an outcome.
    Release(usize, usize),
}

pub fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..2usize, 0..3usize).prop_map(|(q, p)| Op::Enqueue(q, p)),
        3 => (0..2usize).prop_map(Op::Dispatch),
        2 => (0..40usize, 0..4usize).prop_map(|(i, o)| Op::Finish(i, o)),
        2 => (0..40usize, prop::bool::weighted(0.8)).prop_map(|(i, s)| Op::Persist(i, s)),
        1 => (0..40usize).prop_map(Op::Cancel),
        1 => (0..40usize).prop_map(Op::Resolve),
        2 => (0..3usize).prop_map(Op::Claim),
        1 => (0..8usize).prop_map(Op::Stop),
        2 => (0..8usize, 0..4usize).prop_map(|(i, o)| Op::Release(i, o)),
    ]
}

#[derive(Clone, Debug, PartialEq)]
struct M {
    queue: usize,
    project: usize,
    state: ReservationState,
    outcome: Option<Outcome>,
}

/// The model: a plain list, scanned in full (the dispatcher must never need to), and the
/// direct leases, by project, whether each still holds its lane and whether a stop was asked.
#[derive(Default)]
struct Model {
    items: Vec<M>,
    leases: Vec<(usize, bool, bool)>,
}

impl Model {
    fn held_directly(&self, project: usize) -> bool {
        self.leases
            .iter()
            .any(|&(p, holds, _)| p == project && holds)
    }

    fn available(&self, project: usize) -> bool {
        !self.held_directly(project) && !self.reserved(project)
    }

    /// A reservation holds the project's lane or blocks it.
    fn reserved(&self, project: usize) -> bool {
        self.items.iter().any(|m| {
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

fn nth(i: usize) -> ReservationId {
    id(i as u64 + 1)
}

/// Runs `ops` on `d` (fresh, with `QUEUES`) and on the model, comparing every result and, after
/// every step, every reservation, lane and queue length.
pub fn agrees_with_the_model<D: DirectLanes>(d: &mut D, ops: Vec<Op>) -> Result<(), TestCaseError> {
    let mut model = Model::default();
    let mut leases: Vec<D::Lease> = Vec::new();
    // Per (queue, project): the ids in dispatch order, to check FIFO.
    let mut order: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
    let code = |e: D::Error| e.refusal().expect("a refusal, not a backend failure");
    for op in ops {
        match op {
            Op::Enqueue(q, p) => {
                let got = d.enqueue(QUEUES[q], PROJECTS[p], "run").unwrap();
                prop_assert_eq!(got, nth(model.items.len()));
                model.items.push(M {
                    queue: q,
                    project: p,
                    state: ReservationState::Queued,
                    outcome: None,
                });
            }
            Op::Dispatch(q) => {
                let expected = model.next(q);
                let got = d.dispatch(QUEUES[q]).unwrap().map(|j| j.reservation);
                prop_assert_eq!(got, expected.map(nth));
                if let Some(i) = expected {
                    model.items[i].state = ReservationState::Dispatched;
                    order
                        .entry((q, model.items[i].project))
                        .or_default()
                        .push(i);
                }
            }
            Op::Finish(i, o) => {
                let outcome = Outcome::ALL[o];
                let got = d.finish(nth(i), outcome).map(|s| s.outcome).map_err(code);
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
                let got = d
                    .persisted(nth(i), saved)
                    .map(|s| (s.state, s.receipt.outcome))
                    .map_err(code);
                let expected = match model.items.get_mut(i) {
                    None => Err(DispatchError::UnknownReservation),
                    Some(m) if m.state == ReservationState::Persisting => {
                        let outcome = if saved {
                            m.outcome.unwrap()
                        } else {
                            Outcome::NeedsReview
                        };
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
                let got = d.cancel(nth(i)).map(|v| v.state).map_err(code);
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
            Op::Claim(p) => {
                let got = d.claim(PROJECTS[p], "direct").map_err(code);
                if model.available(p) {
                    let lease = got.map_err(|e| TestCaseError::fail(format!("{e:?}")))?;
                    prop_assert_eq!(lease.project(), PROJECTS[p]);
                    leases.push(lease);
                    model.leases.push((p, true, false));
                } else {
                    prop_assert_eq!(got.err(), Some(DispatchError::Lane(LaneError::ProjectBusy)));
                }
            }
            Op::Stop(i) => {
                let (Some(lease), Some(m)) = (leases.get(i), model.leases.get_mut(i)) else {
                    continue;
                };
                let got = d.request_stop(lease).map(|v| v.state).map_err(code);
                if m.1 {
                    m.2 = true;
                    prop_assert_eq!(got, Ok(Some(LaneState::StopRequested)));
                } else {
                    prop_assert_eq!(got, Err(DispatchError::Lane(LaneError::LeaseNotCurrent)));
                }
            }
            Op::Release(i, o) => {
                let (Some(lease), Some(m)) = (leases.get(i), model.leases.get_mut(i)) else {
                    continue;
                };
                let outcome = Outcome::ALL[o];
                let got = d
                    .release(lease, outcome)
                    .map(|r| (r.outcome, r.stop_requested))
                    .map_err(code);
                if m.1 {
                    m.1 = false;
                    prop_assert_eq!(got, Ok((outcome, m.2)));
                } else {
                    prop_assert_eq!(got, Err(DispatchError::Lane(LaneError::LeaseNotCurrent)));
                }
            }
            Op::Resolve(i) => {
                let got = d.resolve(nth(i)).map(|v| v.state).map_err(code);
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
        let views: Vec<ReservationView> = d.reservations().unwrap();
        prop_assert_eq!(views.len(), model.items.len());
        for (view, m) in views.iter().zip(&model.items) {
            prop_assert_eq!(view.state, m.state);
            prop_assert_eq!(view.outcome, m.outcome);
        }
        // Never two runs in one project, and the lane shows exactly the holder.
        for (p, project) in PROJECTS.iter().enumerate() {
            let holders = model
                .items
                .iter()
                .filter(|m| {
                    m.project == p
                        && matches!(
                            m.state,
                            ReservationState::Dispatched | ReservationState::Persisting
                        )
                })
                .count();
            let direct = usize::from(model.held_directly(p));
            prop_assert!(holders + direct <= 1);
            prop_assert_eq!(d.view(project).unwrap().busy, holders + direct == 1);
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
    Ok(())
}
