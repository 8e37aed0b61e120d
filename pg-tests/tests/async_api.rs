//! The async handles on a real PostgreSQL: many tasks on one session, waiting woken by
//! notifications, the blocking handles from inside runtimes, and cancel safety under futures
//! dropped at random points, each checked against the lanes and the journal.

mod common;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use project_lanes::Outcome;
use project_lanes_pg::journal;
use project_lanes_pg::{AsyncPgDispatcher, AsyncPgLanes, PgConfig, PgDispatcher, PgLanes};

use common::{fresh_schema, url};

/// A small xorshift generator: tests repeat with the seed they print.
struct Rng(u64);

impl Rng {
    fn seeded() -> Rng {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
            | 1;
        Rng(std::env::var("LANES_TEST_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(seed))
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The journal of `schema` replays on the core without a mismatch; the number of transitions.
fn audited(schema: &str) -> u64 {
    let config = PgConfig::new(&url(), schema);
    let audit = journal::audit(&config, None).expect("audit");
    assert_eq!(audit.mismatch, None, "the journal of {schema} replays");
    audit.transitions
}

/// How many rows of `schema`'s journal have operation `op` and code OK.
fn journaled(schema: &str, op: &str) -> u64 {
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let row = client
        .query_one(
            &format!("SELECT count(*) FROM {schema}.lanes_journal WHERE op = $1 AND code = 'OK'"),
            &[&op],
        )
        .unwrap();
    u64::try_from(row.get::<_, i64>(0)).unwrap()
}

/// Lanes held now in `schema`, by project.
fn held(schema: &str) -> Vec<String> {
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .query(
            &format!("SELECT project FROM {schema}.lanes WHERE run IS NOT NULL ORDER BY 1"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
}

/// Blocking checks run off the runtime (the `postgres` crate starts its own).
async fn off_runtime<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    tokio::task::spawn_blocking(f).await.unwrap()
}

fn soak_secs() -> u64 {
    std::env::var("LANES_SOAK_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(30)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn a_thousand_tasks_on_a_hundred_projects_share_one_handle() {
    let schema = fresh_schema();
    let lanes = AsyncPgLanes::connect(&url(), &schema).await.unwrap();
    let holders: Arc<Mutex<HashMap<usize, usize>>> = Arc::default();
    let overlaps = Arc::new(AtomicU64::new(0));
    let released = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + Duration::from_secs(soak_secs());
    let mut seed = Rng::seeded();
    eprintln!("seed {}", seed.0);
    let mut tasks = Vec::new();
    for task in 0..1000 {
        let lanes = lanes.clone();
        let (holders, overlaps, released) = (holders.clone(), overlaps.clone(), released.clone());
        let mut rng = Rng(seed.next() | 1);
        tasks.push(tokio::spawn(async move {
            while Instant::now() < until {
                let project = rng.below(100) as usize;
                let name = format!("p{project}");
                let claimed = if rng.below(4) != 0 {
                    lanes
                        .claim_within(&name, &format!("t{task}"), Duration::from_millis(200))
                        .await
                } else {
                    lanes.claim(&name, &format!("t{task}")).await
                };
                let lease = match claimed {
                    Ok(lease) => lease,
                    Err(e) if e.code() == "PROJECT_BUSY" => {
                        tokio::time::sleep(Duration::from_millis(rng.below(5))).await;
                        continue;
                    }
                    Err(e) => panic!("claim: {e}"),
                };
                if holders.lock().unwrap().insert(project, task).is_some() {
                    overlaps.fetch_add(1, Ordering::SeqCst);
                }
                tokio::time::sleep(Duration::from_micros(rng.below(2000))).await;
                holders.lock().unwrap().remove(&project);
                let outcome = Outcome::ALL[rng.below(4) as usize];
                lanes.release(&lease, outcome).await.expect("release");
                released.fetch_add(1, Ordering::SeqCst);
            }
        }));
    }
    for task in tasks {
        task.await.expect("no task panicked");
    }
    assert_eq!(
        overlaps.load(Ordering::SeqCst),
        0,
        "two holders of one lane"
    );
    let released = released.load(Ordering::SeqCst);
    eprintln!("{released} acknowledged releases");
    assert!(released > 100, "{released} releases: the tasks barely ran");
    let s = schema.clone();
    let (transitions, journaled_releases, held) =
        off_runtime(move || (audited(&s), journaled(&s, "release"), held(&s))).await;
    assert_eq!(
        journaled_releases, released,
        "every acknowledged release is journaled"
    );
    assert!(transitions >= 2 * released);
    assert_eq!(held, Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn dropped_futures_leave_no_lane_held_by_nobody() {
    let schema = fresh_schema();
    let lanes = AsyncPgLanes::connect(&url(), &schema).await.unwrap();
    let dispatcher = AsyncPgDispatcher::connect(&url(), &schema, &["q"])
        .await
        .unwrap();
    let drops = Arc::new(AtomicU64::new(0));
    let mut seed = Rng::seeded();
    eprintln!("seed {}", seed.0);
    let mut tasks = Vec::new();
    for task in 0..50u64 {
        let (lanes, dispatcher, drops) = (lanes.clone(), dispatcher.clone(), drops.clone());
        let mut rng = Rng(seed.next() | 1);
        tasks.push(tokio::spawn(async move {
            // Each future gets a random moment to live: many are dropped mid-flight.
            let patience = |rng: &mut Rng| Duration::from_micros(rng.below(1500));
            while drops.load(Ordering::SeqCst) < 10_000 {
                let project = format!("p{}", rng.below(20));
                // Fewer enqueues than dispatches, so the queue stays short (a dispatch reads the
                // queue up to the first job whose lane is free).
                match rng.below(8) {
                    0..4 => {
                        let run = format!("t{task}");
                        match tokio::time::timeout(patience(&mut rng), lanes.claim(&project, &run))
                            .await
                        {
                            Err(_) => {
                                drops.fetch_add(1, Ordering::SeqCst);
                            }
                            Ok(Err(e)) if e.code() == "PROJECT_BUSY" => {}
                            Ok(Err(e)) => panic!("claim: {e}"),
                            Ok(Ok(lease)) => {
                                let release = lanes.release(&lease, Outcome::Succeeded);
                                // A dropped release still ends.
                                if tokio::time::timeout(patience(&mut rng), release)
                                    .await
                                    .is_err()
                                {
                                    drops.fetch_add(1, Ordering::SeqCst);
                                }
                            }
                        }
                    }
                    4 => {
                        let enqueue = dispatcher.enqueue("q", &project, "job");
                        match tokio::time::timeout(patience(&mut rng), enqueue).await {
                            Err(_) => {
                                drops.fetch_add(1, Ordering::SeqCst);
                            }
                            Ok(answer) => {
                                answer.expect("enqueue");
                            }
                        }
                    }
                    _ => {
                        let dispatch = dispatcher.dispatch("q");
                        match tokio::time::timeout(patience(&mut rng), dispatch).await {
                            Err(_) => {
                                drops.fetch_add(1, Ordering::SeqCst);
                            }
                            Ok(Err(e)) => panic!("dispatch: {e}"),
                            Ok(Ok(None)) => {}
                            Ok(Ok(Some(job))) => {
                                let id = job.reservation;
                                dispatcher.finish(id, Outcome::Succeeded).await.unwrap();
                                dispatcher.persisted(id, true).await.unwrap();
                            }
                        }
                    }
                }
            }
        }));
    }
    for task in tasks {
        task.await.expect("no task panicked");
    }
    let dropped = drops.load(Ordering::SeqCst);
    eprintln!("{dropped} futures dropped");
    assert!(dropped >= 10_000);
    // Every task let go of what it held; what reached no task is given back in the background.
    // Dropped calls still run: the session may have a backlog to work through.
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let s = schema.clone();
        let (held, dispatched) = off_runtime(move || {
            let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
            let dispatched: i64 = client
                .query_one(
                    &format!(
                        "SELECT count(*) FROM {s}.reservations
                         WHERE state NOT IN ('queued', 'done', 'cancelled')"
                    ),
                    &[],
                )
                .unwrap()
                .get(0);
            (held(&s), dispatched)
        })
        .await;
        if held.is_empty() && dispatched == 0 {
            break;
        }
        if Instant::now() >= deadline {
            let s = schema.clone();
            let story = off_runtime(move || {
                let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
                client
                    .query(
                        &format!(
                            "SELECT format('%s %s %s %s %s %s', j.seq, j.op, j.code,
                                           j.reservation, j.state, j.outcome)
                             FROM {s}.lanes_journal j JOIN {s}.reservations r
                               ON r.id = j.reservation
                             WHERE r.state IN ('dispatched', 'persisting')
                             ORDER BY j.seq LIMIT 40"
                        ),
                        &[],
                    )
                    .unwrap()
                    .iter()
                    .map(|r| r.get::<_, String>(0))
                    .chain(
                        client
                            .query(
                                &format!("SELECT format('%s %s %s %s %s %s %s', l.project, l.run, l.token IS NULL, l.blocked_by, l.waited, r.id, r.state)
                                 FROM {s}.lanes l LEFT JOIN {s}.reservations r ON r.project = l.project AND r.state IN ('queued', 'dispatched', 'persisting') ORDER BY l.project, r.id"),
                                &[],
                            )
                            .unwrap()
                            .iter()
                            .map(|r| r.get::<_, String>(0)),
                    )
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .await;
            panic!("held by nobody: lanes {held:?}, {dispatched} reservations in flight:\n{story}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let s = schema.clone();
    let (claims, releases) = off_runtime(move || {
        audited(&s);
        (journaled(&s, "claim"), journaled(&s, "release"))
    })
    .await;
    assert_eq!(claims, releases, "every claim in the journal was released");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn a_waiting_claim_is_woken_by_the_release() {
    let schema = fresh_schema();
    let lanes = AsyncPgLanes::connect(&url(), &schema).await.unwrap();
    let other = AsyncPgLanes::connect(&url(), &schema).await.unwrap();
    let lease = other.claim("docs", "first").await.unwrap();
    let waiting = {
        let lanes = lanes.clone();
        tokio::spawn(async move {
            let started = Instant::now();
            let lease = lanes
                .claim_within("docs", "second", Duration::from_secs(20))
                .await;
            (lease, started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    other.release(&lease, Outcome::Succeeded).await.unwrap();
    let (second, waited) = waiting.await.unwrap();
    let second = second.expect("claimed once free");
    assert_eq!(second.run(), "second");
    assert!(waited < Duration::from_secs(20), "{waited:?}");
    // Still held at the deadline: PROJECT_BUSY.
    let refused = other
        .claim_within("docs", "third", Duration::from_millis(200))
        .await
        .unwrap_err();
    assert_eq!(refused.code(), "PROJECT_BUSY");
    lanes.release(&second, Outcome::Succeeded).await.unwrap();
    // Any patience is a deadline, even one past the clock's end.
    let free = lanes
        .claim_within("site", "any", Duration::MAX)
        .await
        .unwrap();
    lanes.release(&free, Outcome::Succeeded).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn a_waiting_dispatch_is_woken_by_an_enqueue() {
    let schema = fresh_schema();
    let d = AsyncPgDispatcher::connect(&url(), &schema, &["q"])
        .await
        .unwrap();
    let other = AsyncPgDispatcher::connect(&url(), &schema, &["q"])
        .await
        .unwrap();
    let waiting = {
        let d = d.clone();
        tokio::spawn(async move { d.dispatch_within("q", Duration::from_secs(20)).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let id = other.enqueue("q", "docs", "gen-1").await.unwrap();
    let job = waiting.await.unwrap().unwrap().expect("a job");
    assert_eq!(job.job.reservation, id);
    assert_eq!(
        d.dispatch_within("q", Duration::from_millis(100))
            .await
            .unwrap(),
        None
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn the_blocking_handles_work_inside_a_multi_thread_runtime() {
    blocking_round(&fresh_schema());
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn the_blocking_handles_work_inside_a_current_thread_runtime() {
    blocking_round(&fresh_schema());
}

#[test]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
fn the_blocking_handles_work_from_plain_threads_sharing_one_handle() {
    let lanes = Arc::new(PgLanes::connect(&url(), &fresh_schema()).unwrap());
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let lanes = lanes.clone();
            std::thread::spawn(move || {
                for i in 0..50 {
                    let lease = lanes.claim(&format!("p{t}"), &format!("r{i}")).unwrap();
                    lanes.release(&lease, Outcome::Succeeded).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

#[test]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
fn the_async_handles_outside_a_runtime_say_so() {
    let error =
        futures_executor::block_on(AsyncPgLanes::connect(&url(), &fresh_schema())).unwrap_err();
    assert_eq!(error.code(), "CONFIG");
    assert!(error.to_string().contains("PgLanes"), "{error}");
}

/// Claims, stops, releases and dispatches through the blocking handles, then drops them, all
/// on the calling thread (inside a runtime for the tests that call it).
fn blocking_round(schema: &str) {
    let lanes = PgLanes::connect(&url(), schema).unwrap();
    let lease = lanes.claim("docs", "r1").unwrap();
    assert_eq!(
        lanes.claim("docs", "r2").unwrap_err().code(),
        "PROJECT_BUSY"
    );
    lanes.request_stop(&lease).unwrap();
    lanes.release(&lease, Outcome::Cancelled).unwrap();
    let mut d = PgDispatcher::connect(&url(), schema, &["q"]).unwrap();
    let id = d.enqueue("q", "docs", "gen").unwrap();
    let job = d.dispatch("q").unwrap().expect("a job");
    assert_eq!(job.reservation, id);
    d.finish(id, Outcome::Succeeded).unwrap();
    d.persisted(id, true).unwrap();
    drop(lanes);
    drop(d);
}

#[tokio::test(flavor = "current_thread")]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
async fn the_journal_and_status_readers_work_inside_a_runtime() {
    let schema = fresh_schema();
    let lanes = AsyncPgLanes::connect(&url(), &schema).await.unwrap();
    let lease = lanes.claim("docs", "r1").await.unwrap();
    let config = PgConfig::new(&url(), &schema);
    let status = project_lanes_pg::status::read(&config).unwrap();
    assert_eq!(status.lanes.len(), 1);
    lanes.release(&lease, Outcome::Succeeded).await.unwrap();
    assert_eq!(journal::audit(&config, None).unwrap().transitions, 2);
    let mut record = Vec::new();
    journal::export(&config, &journal::Cut::new("inside", "tests"), &mut record).unwrap();
    assert!(!record.is_empty());
}
