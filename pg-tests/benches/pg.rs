//! PostgreSQL benchmarks, as ratios measured in one run (`cargo xtask pg-bench`, which starts a
//! throwaway cluster; or `cargo bench -p project-lanes-pg-tests` with `LANES_PG_URL` set). Durable
//! commits stay on (`fsync`, `synchronous_commit`).
//!
//! 1. A claim+release pair against the floor: an `INSERT` and a `DELETE` on a one-column table,
//!    prepared, on the same kind of connection (two round trips, two commits, like the pair).
//! 2. The journal's cost: pairs per second of the handle, which writes a journal row with every
//!    transition, against the same pair without its journal rows (a plain claim and release
//!    statement, on the same table), at 1 and 8 connections on distinct projects;
//!    windows alternate, medians of [`ROUNDS`] (target: journaled ≥ 0.8× without).
//! 3. Pairs per second with 1, 2, 4 and 8 connections on distinct projects.
//! 4. One async session against blocking connections: claim+release pairs per second through
//!    one `AsyncPgLanes` shared by 1, 16, 64 and 256 tasks (each on its own project), against
//!    `PgLanes` with 1, 2, 4 and 8 connections, and the SQL floor (the same two function calls
//!    on one plain blocking connection); over the Unix socket, and over TCP with TLS
//!    (verify-full) when `LANES_PG_TLS_URL` is set (the throwaway cluster has no plaintext TCP);
//!    and once more with `synchronous_commit=off`, not durable, to show what one session's
//!    pipelining saves when commits do not wait for the disk (one backend commits one
//!    statement at a time, so with durable commits a session is bound by the disk's flushes).
//!    Target: the async session at 64 tasks ≥ 4× one blocking connection.
//! 5. The dispatcher end to end (enqueue, dispatch, finish, persisted) per reservation with 4
//!    workers, each on its own connection.
//! 6. A whole journal of 1,000,000 and of 3,000,000 rows (lane and dispatcher operations over
//!    1,000 projects and 20 queues, written by SQL in the rows' own shape): `lanes-pg export`
//!    and `lanes-pg audit` of it, their times and peak memory (the process's maximum resident
//!    set), and the record's bytes per row.
//! 7. The chain's cost: pairs per second with 1, 2, 4 and 8 connections on distinct projects,
//!    with and without a sealer that seals the journal every 100 ms meanwhile (`journal::seal`,
//!    a connection of its own each time, as `lanes-pg seal` would); windows alternate, medians
//!    of [`ROUNDS`] (target: with the sealer ≥ 0.9× without).

use std::process::{Command, Stdio};
use std::sync::Barrier;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use postgres::{Client, NoTls};
use project_lanes::Outcome;
use project_lanes_pg::{AsyncPgLanes, PgDispatcher, PgLanes};

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

/// A benchmark's name and what runs it on the database at a URL.
type Bench = (&'static str, fn(&str));

const PAIRS: usize = 300;
const ROUNDS: usize = 5;

fn main() {
    let url = url();
    // `cargo bench` passes `--bench`; any other argument chooses benchmarks by name.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let benches: [Bench; 7] = [
        ("pair", pair_against_floor),
        ("journal_cost", journal_cost),
        ("scaling", scaling),
        ("async_session", async_sessions),
        ("dispatcher", dispatcher),
        ("whole_journal", whole_journal),
        ("sealing", sealing),
    ];
    for (name, bench) in benches {
        if filter.as_deref().is_none_or(|f| name.contains(f)) {
            bench(&url);
        }
    }
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

/// A claim that writes no journal row: `$1` project, `$2` run, `$3` pid, `$4` session start, `$5`
/// session key.
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

/// A release that writes no journal row: `$1` project, `$2` token.
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

fn sealing(url: &str) {
    let window = Duration::from_secs(2);
    for connections in [1, 2, 4, 8] {
        let schema = schema("sealing");
        let config = project_lanes_pg::PgConfig::new(url, &schema);
        let mut handles: Vec<PgLanes> = (0..connections)
            .map(|_| PgLanes::connect(url, &schema).unwrap())
            .collect();
        let (mut with, mut without, mut seals, mut sealed) = (Vec::new(), Vec::new(), 0, 0);
        for _ in 0..ROUNDS {
            without.push(rate(&mut handles, window, claim_release));
            let stop = std::sync::atomic::AtomicBool::new(false);
            with.push(thread::scope(|s| {
                let sealer = s.spawn(|| {
                    let (mut n, mut rows) = (0, 0);
                    while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                        rows += project_lanes_pg::journal::seal(&config).unwrap().sealed;
                        n += 1;
                        thread::sleep(Duration::from_millis(100));
                    }
                    (n, rows)
                });
                let rate = rate(&mut handles, window, claim_release);
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                let (n, rows) = sealer.join().unwrap();
                seals += n;
                sealed += rows;
                rate
            }));
        }
        let (with, without) = (median(with), median(without));
        println!(
            "chain's cost, {connections} connection(s): {with:.0} pairs/s while sealing every \
             100 ms ({seals} seals of {:.0} rows each on average), {without:.0} without; ratio \
             {:.2}× (target ≥ 0.9×)",
            sealed as f64 / seals.max(1) as f64,
            with / without
        );
    }
}

/// [`async_session`] over the Unix socket, then over TCP with TLS if the cluster offers it.
fn async_sessions(url: &str) {
    async_session(url, "Unix socket");
    // Not durable: commits do not wait for the disk, so what remains is round trips and the
    // server's work, which is what one session's pipelining saves.
    let separator = if url.contains("://") { "?" } else { " " };
    let unsynced = if url.contains("://") {
        format!(
            "{url}{}options=-c%20synchronous_commit%3Doff",
            if url.contains('?') { "&" } else { separator }
        )
    } else {
        format!("{url} options='-c synchronous_commit=off'")
    };
    async_session(
        &unsynced,
        "Unix socket, synchronous_commit=off (not durable)",
    );
    if let (Ok(tls), Ok(dir)) = (
        std::env::var("LANES_PG_TLS_URL"),
        std::env::var("LANES_PG_TLS_DIR"),
    ) {
        let tls = format!("{tls} sslmode=verify-full sslrootcert={dir}/ca.pem");
        async_session(&tls, "TCP + TLS verify-full");
    }
}

fn async_session(url: &str, transport: &str) {
    let window = Duration::from_secs(2);
    let schema = schema("async");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let lanes = runtime
        .block_on(AsyncPgLanes::connect(url, &schema))
        .unwrap();
    // Over TLS the floor stays on the socket (the plain driver here has no TLS).
    let plain = if url.contains("sslmode") {
        self::url()
    } else {
        url.to_owned()
    };
    let mut floor = vec![floor_client(&plain, &schema)];
    let started = SystemTime::now();
    let floor_rate = rate(
        &mut floor,
        window,
        |(client, claim, release, pid), project| {
            let row = client
                .query_one(&*claim, &[&project, &"bench", &*pid, &started, &0i64])
                .unwrap();
            let token: String = row.get(1);
            let generation: i64 = row.get(0);
            client
                .query_one(
                    &*release,
                    &[&project, &token, &"bench", &generation, &"succeeded"],
                )
                .unwrap();
        },
    );
    println!(
        "{transport}: SQL floor (the same two calls on one plain connection{}): \
         {floor_rate:.0} pairs/s",
        if url.contains("sslmode") {
            ", over the Unix socket"
        } else {
            ""
        }
    );
    let mut one = 0.0;
    for connections in [1, 2, 4, 8] {
        let mut handles: Vec<PgLanes> = (0..connections)
            .map(|_| PgLanes::connect(url, &schema).unwrap())
            .collect();
        let rate = rate(&mut handles, window, claim_release);
        if connections == 1 {
            one = rate;
        }
        println!(
            "{transport}: PgLanes, {connections} connection(s): {rate:.0} pairs/s ({:.2}× one)",
            rate / one
        );
    }
    for tasks in [1, 16, 64, 256] {
        let rate = runtime.block_on(async_rate(&lanes, tasks, window));
        println!(
            "{transport}: one AsyncPgLanes, {tasks} task(s): {rate:.0} pairs/s ({:.2}× one \
             blocking connection{})",
            rate / one,
            if tasks == 64 { "; target ≥ 4×" } else { "" }
        );
    }
}

/// A plain blocking connection to `schema` at `url`, with the handle's claim and release
/// statements.
fn floor_client(
    url: &str,
    schema: &str,
) -> (Client, postgres::Statement, postgres::Statement, i32) {
    let mut client = Client::connect(url, NoTls).unwrap();
    client
        .batch_execute(&format!("SET search_path TO {schema}"))
        .unwrap();
    let claim = client
        .prepare("SELECT * FROM lanes_claim($1, $2, $3, $4, $5)")
        .unwrap();
    let release = client
        .prepare("SELECT * FROM lanes_release($1, $2, $3, $4, $5)")
        .unwrap();
    let pid: i32 = client
        .query_one("SELECT pg_backend_pid()", &[])
        .unwrap()
        .get(0);
    (client, claim, release, pid)
}

/// Pairs per second through one shared handle, `tasks` tasks each on a project of its own.
async fn async_rate(lanes: &AsyncPgLanes, tasks: usize, window: Duration) -> f64 {
    let end = tokio::time::Instant::now() + window;
    let runs: Vec<_> = (0..tasks)
        .map(|t| {
            let lanes = lanes.clone();
            tokio::spawn(async move {
                let project = format!("a{t}");
                let mut n = 0u64;
                while tokio::time::Instant::now() < end {
                    let lease = lanes.claim(&project, "bench").await.unwrap();
                    lanes.release(&lease, Outcome::Succeeded).await.unwrap();
                    n += 1;
                }
                n
            })
        })
        .collect();
    let mut total = 0;
    for run in runs {
        total += run.await.unwrap();
    }
    total as f64 / window.as_secs_f64()
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

/// The rows of one cycle of a project: a direct claim and release, then a reservation enqueued,
/// dispatched, finished and saved, as the schema's statements and functions write them.
const CYCLE: &str = "
    INSERT INTO lanes_journal (seq, at, actor, op, code, project, run, generation, outcome,
                               stop_requested, queue, reservation, saved, state)
    SELECT c.n * 6 + k.k + 1, timestamptz '2026-01-01 00:00:00+00' + (c.n * 6 + k.k) * interval '1 ms',
           'bench', k.op, 'OK', 'p' || (c.n % 1000), 'r' || (c.n / 1000),
           CASE WHEN k.k < 2 THEN 2 * (c.n / 1000) + 1 WHEN k.k = 3 THEN 2 * (c.n / 1000) + 2 END,
           CASE WHEN k.k IN (1, 4, 5) THEN 'succeeded' END,
           CASE WHEN k.k IN (1, 5) THEN false END,
           CASE WHEN k.k >= 2 THEN 'q' || (c.n % 20) END,
           CASE WHEN k.k >= 2 THEN c.n + 1 END,
           CASE WHEN k.k = 5 THEN true END,
           (ARRAY[NULL, NULL, 'queued', 'dispatched', 'persisting', 'done'])[k.k + 1]
    FROM generate_series($1::bigint, $2::bigint - 1) c(n),
         (VALUES (0, 'claim'), (1, 'release'), (2, 'enqueue'), (3, 'dispatch'), (4, 'finish'),
                 (5, 'persist')) k(k, op)";

/// `lanes-pg args…`: its wall time, peak resident memory in MiB (from `wait4`, which reaps the
/// child) and stdout.
#[allow(clippy::zombie_processes)]
fn measured(args: &[&str]) -> (f64, f64, String) {
    let out = tempfile::NamedTempFile::new().unwrap();
    let start = Instant::now();
    let child = Command::new(env!("CARGO_BIN_EXE_lanes-pg-tool"))
        .args(args)
        .stdout(Stdio::from(out.reopen().unwrap()))
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to overwrite.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 reaps the child this function started, writing to the two valid pointers.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let elapsed = start.elapsed().as_secs_f64();
    assert_eq!(pid, child.id() as libc::pid_t);
    let stdout = std::fs::read_to_string(out.path()).unwrap();
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "lanes-pg {args:?}: {stdout}"
    );
    (elapsed, usage.ru_maxrss as f64 / 1024.0, stdout)
}

fn whole_journal(url: &str) {
    let queues: Vec<String> = (0..20).map(|q| format!("q{q}")).collect();
    let queues: Vec<&str> = queues.iter().map(String::as_str).collect();
    let dir = tempfile::tempdir().unwrap();
    for rows in [1_000_000i64, 3_000_000] {
        let schema = schema("whole");
        drop(PgDispatcher::connect(url, &schema, &queues).unwrap());
        let mut client = Client::connect(url, NoTls).unwrap();
        client
            .batch_execute(&format!("SET search_path TO {schema}"))
            .unwrap();
        let start = Instant::now();
        let cycles = rows / 6;
        for from in (0..cycles).step_by(50_000) {
            client
                .execute(CYCLE, &[&from, &(from + 50_000).min(cycles)])
                .unwrap();
        }
        client
            .batch_execute("SELECT setval('lanes_journal_seq', (SELECT max(seq) FROM lanes_journal)); ANALYZE lanes_journal")
            .unwrap();
        let filled = start.elapsed().as_secs_f64();
        let file = dir.path().join("whole.jsonl");
        let file = file.to_str().unwrap();
        let (export, export_mib, _) = measured(&["export", url, &schema, "--out", file]);
        let bytes = std::fs::metadata(file).unwrap().len();
        let (audit, audit_mib, verdict) = measured(&["audit", url, &schema]);
        assert_eq!(
            verdict.lines().next().unwrap_or_default(),
            format!("all {} transitions match", cycles * 6)
        );
        println!(
            "whole journal of {} rows (filled by SQL in {filled:.1} s): export {export:.1} s, \
             peak {export_mib:.0} MiB, {:.1} bytes a row; audit {audit:.1} s, peak \
             {audit_mib:.0} MiB",
            cycles * 6,
            bytes as f64 / (cycles * 6) as f64
        );
        client
            .batch_execute(&format!("DROP SCHEMA {schema} CASCADE"))
            .unwrap();
    }
}
