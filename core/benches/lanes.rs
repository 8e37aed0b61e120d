//! `cargo bench -p project-lanes`: the cost of lane operations against a bare
//! `Mutex<HashMap<String, _>>` floor, with and without a journal (and with a system clock for its
//! times), what a take of the journal costs, and how two threads fare on distinct projects
//! versus one. On a shared machine criterion's medians move from run to run: for what a journal
//! adds, `benches/journal_overhead.rs` alternates the two lanes and cancels the load out, and
//! callgrind's instruction counts do not depend on it at all.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::{Arc, Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use project_lanes::journal::{Clock, Journaled, Timekeeping, Untimed};
use project_lanes::record::Timestamp;
use project_lanes::{Outcome, ProjectLanes};

/// Pairs between two takes of the journal (the takes are not timed): a take every few milliseconds.
const BATCH: u64 = 16_384;

/// The system clock, in milliseconds.
fn system_clock() -> Arc<dyn Clock> {
    Arc::new(|| {
        let since_epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        Timestamp::from_millis(since_epoch.as_millis() as u64).unwrap()
    })
}

/// A coarse clock: a thread stores the system time every millisecond, a reading is one atomic
/// load. The thread runs for the rest of the benchmark process.
fn coarse_clock() -> Arc<dyn Clock> {
    use std::sync::atomic::{AtomicU64, Ordering};
    let now = || {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis() as u64
    };
    let millis = Arc::new(AtomicU64::new(now()));
    let ticking = millis.clone();
    thread::spawn(move || {
        loop {
            ticking.store(now(), Ordering::Relaxed);
            thread::sleep(Duration::from_millis(1));
        }
    });
    Arc::new(move || Timestamp::from_millis(millis.load(Ordering::Relaxed)).unwrap())
}

/// Times `iters` claim+release pairs on `lanes`, taking the journal (untimed) every [`BATCH`]
/// pairs so that it does not grow without end.
fn timed_pairs<T: Timekeeping>(
    lanes: &ProjectLanes<Journaled<T>>,
    projects: &[String],
    iters: u64,
) -> Duration {
    let mut elapsed = Duration::ZERO;
    let mut done = 0;
    while done < iters {
        let batch = BATCH.min(iters - done);
        let start = Instant::now();
        for i in done..done + batch {
            let project = &projects[i as usize % projects.len()];
            let lease = lanes.claim(project, "run-1").unwrap();
            black_box(lanes.release(&lease, Outcome::Succeeded).unwrap());
        }
        elapsed += start.elapsed();
        black_box(lanes.take_journal());
        done += batch;
    }
    elapsed
}

/// Projects the uncontended benchmarks cycle through, so the tables hold realistic labels.
fn labels(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}-{i:04}")).collect()
}

fn pair(c: &mut Criterion) {
    let projects = labels("project", 64);
    let mut group = c.benchmark_group("pair");

    group.bench_function("claim_release", |b| {
        let lanes = ProjectLanes::new();
        let mut i = 0usize;
        b.iter(|| {
            let project = &projects[i % projects.len()];
            i += 1;
            let lease = lanes.claim(project, "run-1").unwrap();
            black_box(lanes.release(&lease, Outcome::Succeeded).unwrap());
        })
    });
    group.bench_function("claim_release_journal", |b| {
        let lanes = ProjectLanes::new().with_journal(Untimed);
        b.iter_custom(|iters| timed_pairs(&lanes, &projects, iters))
    });
    group.bench_function("claim_release_journal_optional_clock_none", |b| {
        let lanes = ProjectLanes::new().with_journal(None);
        b.iter_custom(|iters| timed_pairs(&lanes, &projects, iters))
    });
    group.bench_function("claim_release_journal_system_clock", |b| {
        let lanes = ProjectLanes::new().with_journal(system_clock());
        b.iter_custom(|iters| timed_pairs(&lanes, &projects, iters))
    });
    group.bench_function("claim_release_journal_coarse_clock", |b| {
        let lanes = ProjectLanes::new().with_journal(coarse_clock());
        b.iter_custom(|iters| timed_pairs(&lanes, &projects, iters))
    });
    group.bench_function("floor_mutex_hashmap_insert_remove", |b| {
        let map: Mutex<HashMap<String, u64>> = Mutex::new(HashMap::new());
        let mut i = 0usize;
        b.iter(|| {
            let project = &projects[i % projects.len()];
            i += 1;
            map.lock().unwrap().insert(project.to_owned(), 1);
            black_box(map.lock().unwrap().remove(project.as_str()));
        })
    });

    group.finish();
}

/// Taking the journal of 1,024 claim+release pairs (2,048 entries), per take.
fn take(c: &mut Criterion) {
    let projects = labels("project", 64);
    let mut group = c.benchmark_group("journal");
    group.bench_function("take_2048_entries", |b| {
        let lanes = ProjectLanes::new().with_journal(Untimed);
        b.iter_custom(|iters| {
            let mut elapsed = Duration::ZERO;
            for _ in 0..iters {
                for i in 0..1024 {
                    let lease = lanes.claim(&projects[i % projects.len()], "run-1").unwrap();
                    lanes.release(&lease, Outcome::Succeeded).unwrap();
                }
                let start = Instant::now();
                black_box(lanes.take_journal());
                elapsed += start.elapsed();
            }
            elapsed
        })
    });
    group.finish();
}

fn view(c: &mut Criterion) {
    let mut group = c.benchmark_group("view");
    let lanes = ProjectLanes::new();
    let _held = lanes.claim("busy-project", "run-1").unwrap();
    group.bench_function("idle", |b| b.iter(|| black_box(lanes.view("idle-project"))));
    group.bench_function("busy", |b| b.iter(|| black_box(lanes.view("busy-project"))));
    group.finish();
}

/// Runs `work(thread_index, iters)` on two threads released together; returns the wall time.
fn two_threads(iters: u64, work: impl Fn(usize, u64) + Send + Sync + 'static) -> Duration {
    let work = Arc::new(work);
    let barrier = Arc::new(Barrier::new(3));
    let handles: Vec<_> = (0..2)
        .map(|t| {
            let (work, barrier) = (work.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                work(t, iters);
                barrier.wait();
            })
        })
        .collect();
    barrier.wait();
    let start = Instant::now();
    barrier.wait();
    let elapsed = start.elapsed();
    for h in handles {
        h.join().unwrap();
    }
    elapsed
}

/// Each thread does `iters` claim+release attempts; the time reported is wall time per attempt
/// per thread, so perfect scaling equals the single-thread pair cost.
fn contention(c: &mut Criterion) {
    let mut group = c.benchmark_group("two_threads");
    let distinct = ["project-a", "project-b"];

    group.bench_function("lanes_distinct_projects", |b| {
        let lanes = Arc::new(ProjectLanes::new());
        b.iter_custom(|iters| {
            let lanes = lanes.clone();
            two_threads(iters, move |t, n| {
                for _ in 0..n {
                    let lease = lanes.claim(distinct[t], "run-1").unwrap();
                    black_box(lanes.release(&lease, Outcome::Succeeded).unwrap());
                }
            })
        })
    });

    group.bench_function("lanes_one_project", |b| {
        let lanes = Arc::new(ProjectLanes::new());
        b.iter_custom(|iters| {
            let lanes = lanes.clone();
            two_threads(iters, move |_, n| {
                for _ in 0..n {
                    // Half the attempts find the lane busy: that is the contract.
                    if let Ok(lease) = lanes.claim("project-a", "run-1") {
                        black_box(lanes.release(&lease, Outcome::Succeeded).unwrap());
                    }
                }
            })
        })
    });

    group.bench_function("floor_distinct_projects", |b| {
        let map: Arc<Mutex<HashMap<String, u64>>> = Arc::new(Mutex::new(HashMap::new()));
        b.iter_custom(|iters| {
            let map = map.clone();
            two_threads(iters, move |t, n| {
                for _ in 0..n {
                    map.lock().unwrap().insert(distinct[t].to_owned(), 1);
                    black_box(map.lock().unwrap().remove(distinct[t]));
                }
            })
        })
    });
    group.finish();
}

criterion_group!(benches, pair, take, view, contention);
criterion_main!(benches);
