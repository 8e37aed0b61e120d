//! The dispatcher's rules (`core/tests/suite/queues.rs`) on PostgreSQL, the model-based check,
//! and the rules between handles: durable reservations, one winner between cancel and dispatch.

mod common;
#[path = "../../core/tests/suite/queues.rs"]
mod queues_suite;

use std::sync::{Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use project_lanes::Outcome;
use project_lanes::backend::Refusal;
use project_lanes::dispatch::{DispatchError, ReservationState};
use project_lanes_pg::PgDispatcher;
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
        let mut d = fresh_dispatcher(&queues_suite::QUEUES).unwrap();
        queues_suite::agrees_with_the_model(&mut d, ops)?;
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
