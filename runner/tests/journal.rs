//! A runner under load keeps a journal that replays on the core: workers on two queues, work
//! that succeeds, fails, errs or panics, saves that fail, and several threads enqueueing,
//! cancelling and resolving at once. The whole journal, windows of it and single projects all
//! replay with every step matching.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::Duration;

use project_lanes::Outcome;
use project_lanes::dispatch::{Dispatcher, ReservationId, ReservationState};
use project_lanes::journal::{Clock, Export, Journal};
use project_lanes::record::{Record, Timestamp, replay};
use project_lanes_runner::Runner;

const PATIENCE: Duration = Duration::from_secs(60);
const PROJECTS: [&str; 5] = ["docs", "site", "wiki", "api", "blog"];
const QUEUES: [&str; 2] = ["general", "delivery"];

/// A clock that moves one millisecond per reading, from 2026-05-01T03:00:00.000Z.
fn ticking() -> Arc<dyn Clock> {
    let next = Arc::new(AtomicU64::new(1_777_604_400_000));
    Arc::new(move || Timestamp::from_millis(next.fetch_add(1, Ordering::Relaxed)).unwrap())
}

/// A small, fixed mix from a run label: most succeed, some fail, err or panic.
fn fate(run: &str) -> u64 {
    run.bytes()
        .fold(7u64, |h, b| h.wrapping_mul(31).wrapping_add(u64::from(b)))
        % 10
}

fn settled(state: ReservationState) -> bool {
    matches!(
        state,
        ReservationState::Done | ReservationState::Cancelled | ReservationState::Resolved
    )
}

fn export(journal: &Journal, export: Export) -> Record {
    let record = journal.record(&export).unwrap();
    if let Err(mismatch) = replay(&record) {
        panic!("{}: {mismatch}", record.id);
    }
    record
}

#[test]
fn a_busy_runner_journals_an_order_that_replays_whole_by_window_and_by_project() {
    let dispatcher = Dispatcher::new(&QUEUES)
        .unwrap()
        .with_journal(Some(ticking()));
    let runner = Arc::new(Runner::start(
        dispatcher,
        3,
        |job| match fate(&job.run) {
            0 => Err("exit status 3".to_string()),
            1 => panic!("the work blew up (expected by this test)"),
            2 => Ok(Outcome::Failed),
            _ => Ok(Outcome::Succeeded),
        },
        |state, _| {
            if fate(&state.run) == 9 {
                Err("write refused")
            } else {
                Ok(())
            }
        },
    ));
    let clients = 4;
    let barrier = Arc::new(Barrier::new(clients));
    let handles: Vec<_> = (0..clients)
        .map(|c| {
            let (runner, barrier) = (runner.clone(), barrier.clone());
            thread::Builder::new()
                .name(format!("client {c}"))
                .spawn(move || {
                    barrier.wait();
                    let mut mine = Vec::new();
                    for i in 0..100 {
                        let queue = QUEUES[(i + c) % 2];
                        let project = PROJECTS[(i * 7 + c) % PROJECTS.len()];
                        let id = runner
                            .enqueue(queue, project, &format!("c{c}-{i}"))
                            .unwrap();
                        mine.push(id);
                        if i % 5 == 0 {
                            // Races a worker's dispatch: exactly one wins.
                            let _ = runner.cancel(mine[i / 2]);
                        }
                        if i % 9 == 0 {
                            let unresolved: Vec<ReservationId> = runner.with(|d| {
                                d.reservations()
                                    .into_iter()
                                    .filter(|r| r.state == ReservationState::Unresolved)
                                    .map(|r| r.id)
                                    .collect()
                            });
                            for id in unresolved {
                                let _ = runner.resolve(id); // another client may be first
                            }
                        }
                    }
                })
                .unwrap()
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    // Resolve what is left until everything has settled.
    let deadline = std::time::Instant::now() + PATIENCE;
    loop {
        let open: Vec<(ReservationId, ReservationState)> = runner.with(|d| {
            d.reservations()
                .into_iter()
                .filter(|r| !settled(r.state))
                .map(|r| (r.id, r.state))
                .collect()
        });
        if open.is_empty() {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never settled: {open:?}"
        );
        for (id, state) in open {
            if state == ReservationState::Unresolved {
                runner.resolve(id).unwrap();
            }
        }
        runner.wait_until_timeout(Duration::from_millis(50), |d| {
            d.reservations()
                .iter()
                .all(|r| settled(r.state) || r.state == ReservationState::Unresolved)
        });
    }
    let mut journal = Journal::dispatcher(&runner.with(|d| d.queues().to_vec()));
    journal.extend(runner.take_journal());
    let runner = Arc::try_unwrap(runner).ok().unwrap();
    let mut dispatcher = runner.shutdown().expect("no worker died");
    journal.extend(dispatcher.take_journal());

    // Replayed here, never written: its snapshots list every reservation after every step, and
    // 400 reservations make a record larger than readers take (16 MiB).
    let whole = export(
        &journal,
        Export::new("busy-runner", "runner test")
            .unwrap()
            .without_size_limit(),
    );
    assert!(whole.steps.len() > 800, "{} steps", whole.steps.len());
    let final_state: Vec<_> = dispatcher.reservations();
    assert_eq!(
        whole.steps.last().unwrap().reservations.as_deref().unwrap(),
        &final_state[..],
        "the journal's last snapshot is the dispatcher's state"
    );
    let actors: HashSet<&str> = whole
        .steps
        .iter()
        .filter_map(|s| s.actor.as_deref())
        .collect();
    for expected in [
        "general worker 1",
        "delivery worker 3",
        "client 0",
        "client 3",
    ] {
        assert!(
            actors.contains(expected),
            "{expected} missing from {actors:?}"
        );
    }
    let codes: HashSet<&str> = whole.steps.iter().map(|s| s.result.code()).collect();
    assert!(
        codes.contains("NOT_QUEUED") || codes.contains("ok"),
        "{codes:?}"
    );

    // Windows: each starts from what was held at its cut.
    let times: Vec<Timestamp> = journal.entries().iter().map(|e| e.at.unwrap()).collect();
    let n = times.len();
    for (from, to) in [(n / 3, 2 * n / 3), (n / 2, n - 1), (1, n / 4)] {
        let window = export(
            &journal,
            Export::new("window", "runner test")
                .unwrap()
                .since(times[from])
                .until(times[to]),
        );
        assert!(!window.steps.is_empty());
        assert!(
            window.start.is_some(),
            "a cut in a busy history starts from something"
        );
    }
    for project in PROJECTS {
        export(
            &journal,
            Export::new(project, "runner test")
                .unwrap()
                .projects(&[project])
                .unwrap(),
        );
    }
}
