//! Many processes, really: eight `lanes-pg-test-process worker` processes claim lanes and dispatch
//! reservations across four projects and three queues of one schema for a few seconds, logging
//! every execution interval; the log and the database are checked afterwards.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::process::{Command, Stdio};

use project_lanes::dispatch::ReservationState;
use project_lanes_pg::PgDispatcher;

use common::{fresh_schema, url};

const WORKERS: usize = 8;
const SECONDS: &str = "4";

/// One logged interval: a dispatched reservation (`Some(id)`) or a direct claim (`None`).
#[derive(Debug)]
struct Interval {
    reservation: Option<u64>,
    queue: String,
    project: String,
    generation: u64,
    outcome: String,
    start: u128,
    end: u128,
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn eight_worker_processes_never_overlap_keep_order_and_lose_nothing() {
    let schema = fresh_schema();
    let queues = ["general", "delivery", "batch"];
    let mut d = PgDispatcher::connect(&url(), &schema, &queues).unwrap();
    // A backlog to start with; the workers enqueue more as they go.
    for i in 0..120 {
        let project = ["alpha", "beta", "gamma", "delta"][i % 4];
        d.enqueue(queues[i % 3], project, &format!("seed-{i}"))
            .unwrap();
    }
    let children: Vec<_> = (0..WORKERS)
        .map(|w| {
            Command::new(env!("CARGO_BIN_EXE_lanes-pg-test-process"))
                .args(["worker", &url(), &schema, &w.to_string(), SECONDS])
                .stdout(Stdio::piped())
                .spawn()
                .expect("start a worker")
        })
        .collect();
    let mut intervals = Vec::new();
    let mut enqueued = HashMap::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "a worker failed: {}", out.status);
        let text = String::from_utf8(out.stdout).unwrap();
        for line in text.lines() {
            let f: Vec<&str> = line.split(' ').collect();
            match f.as_slice() {
                ["ENQ", id, queue, project] => {
                    enqueued.insert(
                        id.parse::<u64>().unwrap(),
                        (queue.to_string(), project.to_string()),
                    );
                }
                ["RUN", id, queue, project, generation, outcome, start, end] => {
                    intervals.push(Interval {
                        reservation: Some(id.parse().unwrap()),
                        queue: queue.to_string(),
                        project: project.to_string(),
                        generation: generation.parse().unwrap(),
                        outcome: outcome.to_string(),
                        start: start.parse().unwrap(),
                        end: end.parse().unwrap(),
                    })
                }
                ["LANE", project, generation, start, end] => intervals.push(Interval {
                    reservation: None,
                    queue: String::new(),
                    project: project.to_string(),
                    generation: generation.parse().unwrap(),
                    outcome: String::new(),
                    start: start.parse().unwrap(),
                    end: end.parse().unwrap(),
                }),
                _ => panic!("unexpected worker output {line:?}"),
            }
        }
    }
    let reservations = d.reservations().unwrap();
    let runs: Vec<&Interval> = intervals
        .iter()
        .filter(|i| i.reservation.is_some())
        .collect();
    let claims = intervals.len() - runs.len();
    eprintln!(
        "{WORKERS} workers, {SECONDS} s: {} reservations ({} enqueued by workers), {} runs, \
         {claims} direct claims",
        reservations.len(),
        enqueued.len(),
        runs.len()
    );
    assert!(runs.len() >= 120 && claims > 0, "too little happened");

    // Nothing lost, nothing run twice: every reservation is done, and ran exactly once, with
    // the outcome the log shows.
    let mut seen = HashSet::new();
    for run in &runs {
        assert!(seen.insert(run.reservation.unwrap()), "ran twice: {run:?}");
    }
    assert_eq!(seen.len(), reservations.len(), "a reservation never ran");
    let by_id: HashMap<u64, &Interval> =
        runs.iter().map(|r| (r.reservation.unwrap(), *r)).collect();
    for view in &reservations {
        assert_eq!(view.state, ReservationState::Done, "{view:?}");
        let run = by_id[&view.id.number()];
        assert_eq!(
            (view.queue.as_str(), view.project.as_str()),
            (run.queue.as_str(), run.project.as_str())
        );
        assert_eq!(view.outcome.map(|o| o.as_str()), Some(run.outcome.as_str()));
        if let Some((queue, project)) = enqueued.get(&view.id.number()) {
            assert_eq!(
                (view.queue.as_str(), view.project.as_str()),
                (queue.as_str(), project.as_str())
            );
        }
    }

    // Never two in one project (dispatch to persisted, claim to release), generations growing,
    // and FIFO per queue and project.
    let mut by_project: BTreeMap<&str, Vec<&Interval>> = BTreeMap::new();
    for i in &intervals {
        by_project.entry(&i.project).or_default().push(i);
    }
    for (project, mut spans) in by_project {
        spans.sort_by_key(|i| i.start);
        for w in spans.windows(2) {
            assert!(
                w[0].end < w[1].start,
                "{project}: {:?} overlaps {:?}",
                w[0],
                w[1]
            );
            assert!(
                w[0].generation < w[1].generation,
                "{project}: generations {w:?}"
            );
        }
        for queue in queues {
            let ids: Vec<u64> = spans
                .iter()
                .filter(|i| i.queue == queue)
                .filter_map(|i| i.reservation)
                .collect();
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "{queue}/{project}: {ids:?}"
            );
        }
    }
}
