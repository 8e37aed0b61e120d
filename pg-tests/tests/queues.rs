//! The dispatcher's rules (`core/tests/suite/queues.rs`) on PostgreSQL, the model-based check
//! (direct lane operations mixed in through a `PgLanes` on the same schema), and the rules
//! between handles: durable reservations, one winner between cancel and dispatch.

mod common;
#[path = "../../core/tests/suite/queues.rs"]
mod queues_suite;

use std::sync::{Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use project_lanes::backend::{DirectLanes, Queues, Refusal};
use project_lanes::dispatch::{
    DispatchError, FinalState, Job, ReservationId, ReservationState, ReservationView, Settled,
};
use project_lanes::{LaneView, Outcome, Receipt};
use project_lanes_pg::{PgDispatcher, PgError, PgLanes, PgLease};
use proptest::prelude::*;

use common::{fresh_dispatcher, fresh_schema, url};

queue_rule_tests!(
    #[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
    fresh_dispatcher
);

proptest! {
    // Each case is a new schema and a few hundred round trips: fewer cases than in memory (400),
    // the differential test adds more sequences.
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
    #[test]
    fn the_dispatcher_agrees_with_the_model(
        ops in proptest::collection::vec(queues_suite::op(), 1..80)
    ) {
        let d = fresh_dispatcher(&queues_suite::QUEUES).unwrap();
        let lanes = PgLanes::connect(&url(), d.schema()).unwrap();
        queues_suite::agrees_with_the_model(&mut Shared { d, lanes }, ops)?;
    }
}

/// A dispatcher and direct lanes on one schema: what an application that claims some runs
/// directly and queues others does.
struct Shared {
    d: PgDispatcher,
    lanes: PgLanes,
}

impl Queues for Shared {
    type Error = PgError;
    fn enqueue(&mut self, q: &str, p: &str, r: &str) -> Result<ReservationId, PgError> {
        self.d.enqueue(q, p, r)
    }
    fn dispatch(&mut self, queue: &str) -> Result<Option<Job>, PgError> {
        self.d.dispatch(queue)
    }
    fn finish(&mut self, id: ReservationId, outcome: Outcome) -> Result<FinalState, PgError> {
        self.d.finish(id, outcome)
    }
    fn persisted(&mut self, id: ReservationId, saved: bool) -> Result<Settled, PgError> {
        self.d.persisted(id, saved)
    }
    fn cancel(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        self.d.cancel(id)
    }
    fn resolve(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        self.d.resolve(id)
    }
    fn reservation(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        self.d.reservation(id)
    }
    fn reservations(&mut self) -> Result<Vec<ReservationView>, PgError> {
        self.d.reservations()
    }
    fn retained(&mut self, queue: &str) -> Result<usize, PgError> {
        self.d.retained(queue)
    }
    fn view(&mut self, project: &str) -> Result<LaneView, PgError> {
        self.d.view(project)
    }
}

impl DirectLanes for Shared {
    type Lease = PgLease;
    fn claim(&mut self, project: &str, run: &str) -> Result<PgLease, PgError> {
        self.lanes.claim(project, run)
    }
    fn request_stop(&mut self, lease: &PgLease) -> Result<LaneView, PgError> {
        self.lanes.request_stop(lease)
    }
    fn release(&mut self, lease: &PgLease, outcome: Outcome) -> Result<Receipt, PgError> {
        self.lanes.release(lease, outcome)
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn reservations_are_durable_and_shared_by_every_handle() {
    let schema = fresh_schema();
    let (a, b) = {
        let mut d = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
        (
            d.enqueue("general", "docs", "a").unwrap(),
            d.enqueue("general", "docs", "b").unwrap(),
        )
    };
    let mut one = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    let mut two = PgDispatcher::connect(&url(), &schema, &["general", "other"]).unwrap();
    assert!(one.recovered().is_empty());
    assert_eq!(one.dispatch("general").unwrap().unwrap().reservation, a);
    // The other handle sees docs held and keeps b in order.
    assert_eq!(two.dispatch("general").unwrap(), None);
    assert_eq!(two.retained("general").unwrap(), 1);
    assert_eq!(
        two.cancel(a).unwrap_err().refusal(),
        Some(DispatchError::NotQueued)
    );
    // Anyone may finish and complete it; the lane is freed once.
    two.finish(a, Outcome::Succeeded).unwrap();
    two.persisted(a, true).unwrap();
    assert_eq!(
        one.persisted(a, true).unwrap_err().refusal(),
        Some(DispatchError::NotPersisting)
    );
    let next = two.dispatch_with_generation("general").unwrap().unwrap();
    assert_eq!((next.job.reservation, next.generation), (b, 2));
    // A queue this handle did not declare is unknown to it, even if another handle has it.
    assert_eq!(
        one.dispatch("other").unwrap_err().refusal(),
        Some(DispatchError::UnknownQueue)
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn cancel_racing_dispatch_between_sessions_has_exactly_one_winner() {
    let schema = fresh_schema();
    let mut setup = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    let barrier = Barrier::new(2);
    let mut handles: Vec<PgDispatcher> = (0..2)
        .map(|_| PgDispatcher::connect(&url(), &schema, &["general"]).unwrap())
        .collect();
    let (mut canceller, mut dispatcher) = (handles.remove(0), handles.remove(0));
    for round in 0..60 {
        let project = format!("p{round}");
        let id = setup.enqueue("general", &project, "run").unwrap();
        let (cancelled, dispatched) = thread::scope(|s| {
            let c = s.spawn(|| {
                barrier.wait();
                canceller.cancel(id)
            });
            let d = s.spawn(|| {
                barrier.wait();
                dispatcher.dispatch("general")
            });
            (c.join().unwrap(), d.join().unwrap())
        });
        let dispatched = dispatched.unwrap().map(|job| job.reservation);
        match cancelled {
            Ok(view) => {
                assert_eq!(view.state, ReservationState::Cancelled, "round {round}");
                assert_eq!(dispatched, None, "round {round}: both won");
                assert!(!setup.view(&project).unwrap().busy);
            }
            Err(e) => {
                assert_eq!(e.refusal(), Some(DispatchError::NotQueued), "round {round}");
                assert_eq!(dispatched, Some(id), "round {round}: nobody won");
                setup.finish(id, Outcome::Succeeded).unwrap();
                setup.persisted(id, true).unwrap();
            }
        }
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn dispatches_from_many_sessions_never_share_a_project_and_keep_order() {
    let schema = fresh_schema();
    let queues = ["general", "delivery"];
    let mut setup = PgDispatcher::connect(&url(), &schema, &queues).unwrap();
    for i in 0..60 {
        let queue = queues[i % 2];
        setup
            .enqueue(queue, ["docs", "site"][i % 3 % 2], &format!("r{i}"))
            .unwrap();
    }
    let log = Mutex::new(Vec::new());
    thread::scope(|s| {
        for worker in 0..6 {
            let (schema, log) = (&schema, &log);
            s.spawn(move || {
                let mut d = PgDispatcher::connect(&url(), schema, &queues).unwrap();
                let queue = queues[worker % 2];
                // Until the queue is empty, however long other sessions hold its projects.
                loop {
                    match d.dispatch(queue).unwrap() {
                        Some(job) => {
                            // The interval lies inside the lane's holding (dispatch to persisted).
                            let start = Instant::now();
                            let id = job.reservation;
                            d.finish(id, Outcome::Succeeded).unwrap();
                            let end = Instant::now();
                            log.lock().unwrap().push((job, queue, start, end));
                            d.persisted(id, true).unwrap();
                        }
                        None if d.retained(queue).unwrap() == 0 => break,
                        None => thread::sleep(Duration::from_millis(2)),
                    }
                }
            });
        }
    });
    let log = log.into_inner().unwrap();
    assert_eq!(log.len(), 60, "every reservation ran once");
    for project in ["docs", "site"] {
        let mut spans: Vec<_> = log.iter().filter(|e| e.0.project == project).collect();
        spans.sort_by_key(|e| e.2);
        for w in spans.windows(2) {
            assert!(w[0].3 <= w[1].2, "two runs overlapped in {project}");
        }
        for queue in queues {
            let ids: Vec<_> = spans
                .iter()
                .filter(|e| e.1 == queue)
                .map(|e| e.0.reservation)
                .collect();
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "{queue}/{project} order"
            );
        }
    }
}
