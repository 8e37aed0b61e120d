//! Every kind of transition at once, on one schema, from many sessions: no deadlock, no
//! serialization failure, no database error of any kind. A transition that waits for a row
//! while holding another must take them in the documented order (see `pg/src/schema.rs`);
//! this test is where a wrong order shows up (it found `lanes_dispatch` waiting for a second
//! lane while `lanes_recover` held it and waited for the first).

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use project_lanes::Outcome;
use project_lanes::backend::Refusal;
use project_lanes_pg::{PgDispatcher, PgError, PgLanes};

use common::{fresh_schema, url};

const QUEUES: [&str; 3] = ["general", "delivery", "batch"];
const PROJECTS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
/// How many of each kind of transition the test waits for.
const ENOUGH: u64 = 150;

/// Fails the test on anything but a refusal of the contract.
fn no_database_error<T>(what: &str, r: Result<T, PgError>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) if e.refusal().is_some() => None,
        Err(e) => panic!("{what}: {e}"),
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn every_transition_at_once_never_deadlocks() {
    let schema = fresh_schema();
    let mut setup = PgDispatcher::connect(&url(), &schema, &QUEUES).unwrap();
    for i in 0..300 {
        setup
            .enqueue(QUEUES[i % 3], PROJECTS[i % 6], &format!("seed-{i}"))
            .unwrap();
    }
    let stop = AtomicBool::new(false);
    let (dispatched, claimed, recovered) =
        (AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0));
    // Until every kind of transition has run often enough, however fast the machine; the
    // deadline only stops a run that hangs.
    let enough = |n: &AtomicU64| n.load(Ordering::Relaxed) >= ENOUGH;
    let deadline = Instant::now() + Duration::from_secs(120);
    thread::scope(|s| {
        // Dispatchers: two per queue, each dispatch tries projects until one is free.
        for w in 0..6 {
            let (schema, stop, dispatched) = (&schema, &stop, &dispatched);
            s.spawn(move || {
                let mut d = PgDispatcher::connect(&url(), schema, &QUEUES).unwrap();
                let queue = QUEUES[w % 3];
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let job = no_database_error("dispatch", d.dispatch(queue)).flatten();
                    if let Some(job) = job {
                        dispatched.fetch_add(1, Ordering::Relaxed);
                        no_database_error("finish", d.finish(job.reservation, Outcome::Succeeded));
                        // Every tenth save fails: the project stays blocked until resolved.
                        let saved = n % 10 != 0;
                        no_database_error("persisted", d.persisted(job.reservation, saved));
                        if !saved {
                            no_database_error("resolve", d.resolve(job.reservation));
                        }
                    }
                    let p = PROJECTS[n % 6];
                    no_database_error("enqueue", d.enqueue(queue, p, &format!("w{w}-{n}")));
                }
            });
        }
        // Direct claims keep lanes busy, so dispatches find lanes taken after their search.
        for w in 0..3 {
            let (schema, stop, claimed) = (&schema, &stop, &claimed);
            s.spawn(move || {
                let lanes = PgLanes::connect(&url(), schema).unwrap();
                let mut n = w;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let project = PROJECTS[n % 6];
                    if let Some(lease) =
                        no_database_error("claim", lanes.claim(project, &format!("c{w}-{n}")))
                    {
                        claimed.fetch_add(1, Ordering::Relaxed);
                        if n % 3 == 0 {
                            no_database_error("request_stop", lanes.request_stop(&lease));
                        }
                        thread::sleep(Duration::from_micros(200));
                        no_database_error("release", lanes.release(&lease, Outcome::Failed));
                    }
                }
            });
        }
        // Recovery, as every dispatcher runs it when it connects, over and over.
        {
            let (schema, stop, recovered) = (&schema, &stop, &recovered);
            s.spawn(move || {
                let lanes = PgLanes::connect(&url(), schema).unwrap();
                while !stop.load(Ordering::Relaxed) {
                    let r = no_database_error("recover", lanes.recover()).unwrap();
                    assert!(r.is_empty(), "recovery touched a live holder: {r:?}");
                    recovered.fetch_add(1, Ordering::Relaxed);
                }
            });
        }
        while !(enough(&dispatched) && enough(&claimed) && enough(&recovered))
            && Instant::now() < deadline
        {
            thread::sleep(Duration::from_millis(20));
        }
        stop.store(true, Ordering::Relaxed);
    });
    let (d, c, r) = (
        dispatched.into_inner(),
        claimed.into_inner(),
        recovered.into_inner(),
    );
    eprintln!("{d} dispatches, {c} direct claims, {r} recoveries");
    assert!(
        d >= ENOUGH && c >= ENOUGH && r >= ENOUGH,
        "too little happened in two minutes"
    );
}
