//! PostgreSQL benchmarks, as ratios measured in one run (`cargo xtask pg-bench`, which starts a
//! throwaway cluster; or `cargo bench -p project-lanes-pg` with `LANES_PG_URL` set). Durable
//! commits stay on (`fsync`, `synchronous_commit`).
//!
//! 1. A claim+release pair against the floor: an `INSERT` and a `DELETE` on a one-column table,
//!    prepared, on the same kind of connection (two round trips, two commits, like the pair).
//! 2. The journal's cost: pairs per second of the handle, which writes a journal row with every
//!    transition, against the same pair without its journal rows (the two statements as version 4
//!    of the schema wrote them, on the same table), at 1 and 8 connections on distinct projects;
//!    windows alternate, medians of [`ROUNDS`] (target: journaled ≥ 0.8× without).
//! 3. Pairs per second with 1, 2, 4 and 8 connections on distinct projects.
//! 4. The dispatcher end to end (enqueue, dispatch, finish, persisted) per reservation with 4
//!    workers, each on its own connection.

use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use postgres::{Client, NoTls};
use project_lanes::Outcome;
use project_lanes_pg::{PgDispatcher, PgLanes};

fn url() -> String {
    std::env::var("LANES_PG_URL").expect(
        "LANES_PG_URL is not set: run `cargo xtask pg-bench`, which starts a throwaway cluster",
    )
}

fn schema(name: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros());
    format!("bench_{name}_{nanos}")
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

const PAIRS: usize = 300;
const ROUNDS: usize = 5;

fn main() {
    let url = url();
    pair_against_floor(&url);
    journal_cost(&url);
    scaling(&url);
    dispatcher(&url);
}

fn pair_against_floor(url: &str) {
    let lanes = PgLanes::connect(url, &schema("pair")).unwrap();
    let mut floor = Client::connect(url, NoTls).unwrap();
    let table = schema("floor");
    floor
        .batch_execute(&format!("CREATE TABLE {table} (project text)"))
        .unwrap();
    let insert = floor
        .prepare(&format!("INSERT INTO {table} VALUES ($1)"))
        .unwrap();
    let delete = floor
        .prepare(&format!("DELETE FROM {table} WHERE project = $1"))
        .unwrap();
    let (mut pair, mut bare) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        let start = Instant::now();
        for _ in 0..PAIRS {
            let lease = lanes.claim("docs", "bench").unwrap();
            lanes.release(&lease, Outcome::Succeeded).unwrap();
        }
        pair.push(start.elapsed().as_secs_f64() / PAIRS as f64);
        let start = Instant::now();
        for _ in 0..PAIRS {
            floor.execute(&insert, &[&"docs"]).unwrap();
            floor.execute(&delete, &[&"docs"]).unwrap();
        }
        bare.push(start.elapsed().as_secs_f64() / PAIRS as f64);
    }
    let (pair, bare) = (median(pair), median(bare));
    println!(
        "claim+release pair: {:.1} µs; floor (INSERT+DELETE): {:.1} µs; ratio {:.2}× (target ≤ 1.5×)",
        pair * 1e6,
        bare * 1e6,
        pair / bare
    );
}

/// A claim as version 4 of the schema wrote it, before the journal: `$1` project, `$2` run, `$3`
/// pid, `$4` session start, `$5` session key.
const CLAIM_WITHOUT_JOURNAL: &str = "
    INSERT INTO lanes AS l (project, generation, run, token, owner_pid, owner_started, owner_key)
    VALUES ($1, 1, $2, gen_random_uuid()::text, $3, $4, $5)
    ON CONFLICT (project) DO UPDATE
        SET generation = l.generation + 1, run = excluded.run, token = excluded.token,
            stop_requested = false, owner_pid = excluded.owner_pid,
            owner_started = excluded.owner_started, owner_key = excluded.owner_key,
            orphaned_generation = NULL
        WHERE l.run IS NULL AND l.blocked_by IS NULL
    RETURNING l.generation, l.token";

/// A release as version 4 wrote it: `$1` project, `$2` token.
const RELEASE_WITHOUT_JOURNAL: &str = "
    UPDATE lanes SET run = NULL, token = NULL, owner_pid = NULL, owner_started = NULL,
        owner_key = NULL, orphaned_generation = NULL
    WHERE project = $1 AND token = $2
    RETURNING stop_requested";

/// Pairs per second over `window`, one thread per element of `workers`, each running `pair`
/// on its own project until the window closes.
fn rate<W: Send>(workers: &mut [W], window: Duration, pair: impl Fn(&mut W, &str) + Sync) -> f64 {
    let barrier = Barrier::new(workers.len());
    let total: usize = thread::scope(|s| {
        let threads: Vec<_> = workers
            .iter_mut()
            .enumerate()
            .map(|(i, worker)| {
                let (barrier, pair) = (&barrier, &pair);
                s.spawn(move || {
                    let project = format!("p{i}");
                    barrier.wait();
                    let end = Instant::now() + window;
                    let mut n = 0;
                    while Instant::now() < end {
                        pair(worker, &project);
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).sum()
    });
    total as f64 / window.as_secs_f64()
}

fn journal_cost(url: &str) {
    let window = Duration::from_secs(2);
    for connections in [1, 8] {
        // Two schemas migrated alike; the pair without its journal rows runs in the second.
        let journaled_schema = schema("journaled");
        let bare_schema = schema("unjournaled");
        let mut handles: Vec<PgLanes> = (0..connections)
            .map(|_| PgLanes::connect(url, &journaled_schema).unwrap())
            .collect();
        drop(PgLanes::connect(url, &bare_schema).unwrap());
        let mut bare: Vec<(Client, postgres::Statement, postgres::Statement, i32)> = (0
            ..connections)
            .map(|_| {
                let mut client = Client::connect(url, NoTls).unwrap();
                client
                    .batch_execute(&format!("SET search_path TO {bare_schema}"))
                    .unwrap();
                let claim = client.prepare(CLAIM_WITHOUT_JOURNAL).unwrap();
                let release = client.prepare(RELEASE_WITHOUT_JOURNAL).unwrap();
                let pid: i32 = client
                    .query_one("SELECT pg_backend_pid()", &[])
                    .unwrap()
                    .get(0);
                (client, claim, release, pid)
            })
            .collect();
        let started = SystemTime::now();
        let (mut with, mut without) = (Vec::new(), Vec::new());
        for _ in 0..ROUNDS {
            with.push(rate(&mut handles, window, claim_release));
            without.push(rate(
                &mut bare,
                window,
                |(client, claim, release, pid), project| {
                    let row = client
                        .query_one(&*claim, &[&project, &"bench", &*pid, &started, &0i64])
                        .unwrap();
                    let token: String = row.get(1);
                    client.query_one(&*release, &[&project, &token]).unwrap();
                },
            ));
        }
        let (with, without) = (median(with), median(without));
        println!(
            "journal's cost, {connections} connection(s): {with:.0} pairs/s journaled, \
             {without:.0} without the journal rows; ratio {:.2}× (target ≥ 0.8×)",
            with / without
        );
    }
}

fn scaling(url: &str) {
    let schema = schema("scale");
    let mut base = 0.0;
    for connections in [1, 2, 4, 8] {
        let mut handles: Vec<PgLanes> = (0..connections)
            .map(|_| PgLanes::connect(url, &schema).unwrap())
            .collect();
        let rate = rate(&mut handles, Duration::from_secs(2), claim_release);
        if connections == 1 {
            base = rate;
        }
        println!(
            "{connections} connection(s), distinct projects: {rate:.0} pairs/s ({:.2}× one)",
            rate / base
        );
    }
}

/// One claim+release pair of `project` through the handle.
fn claim_release(lanes: &mut PgLanes, project: &str) {
    let lease = lanes.claim(project, "bench").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
}

fn dispatcher(url: &str) {
    const RESERVATIONS: usize = 2000;
    const WORKERS: usize = 4;
    let schema = schema("dispatch");
    let queues = ["general", "delivery"];
    let mut setup = PgDispatcher::connect(url, &schema, &queues).unwrap();
    let start = Instant::now();
    for i in 0..RESERVATIONS {
        setup
            .enqueue(queues[i % 2], &format!("p{}", i % 16), "bench")
            .unwrap();
    }
    let enqueue = start.elapsed().as_secs_f64() / RESERVATIONS as f64;
    let handles: Vec<PgDispatcher> = (0..WORKERS)
        .map(|_| PgDispatcher::connect(url, &schema, &queues).unwrap())
        .collect();
    let start = Instant::now();
    let done: usize = thread::scope(|s| {
        let workers: Vec<_> = handles
            .into_iter()
            .enumerate()
            .map(|(w, mut d)| {
                s.spawn(move || {
                    let mut n = 0;
                    let mut empty = 0;
                    while empty < 2 {
                        match d.dispatch(queues[(w + empty) % 2]).unwrap() {
                            Some(job) => {
                                empty = 0;
                                d.finish(job.reservation, Outcome::Succeeded).unwrap();
                                d.persisted(job.reservation, true).unwrap();
                                n += 1;
                            }
                            None => empty += 1,
                        }
                    }
                    n
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).sum()
    });
    let elapsed = start.elapsed().as_secs_f64();
    let left = setup.retained("general").unwrap() + setup.retained("delivery").unwrap();
    println!(
        "dispatcher, {WORKERS} workers: {:.0} µs per reservation (dispatch+finish+persisted, \
         {done} done, {left} left), {:.0} µs per enqueue",
        elapsed / done as f64 * 1e6,
        enqueue * 1e6
    );
}
