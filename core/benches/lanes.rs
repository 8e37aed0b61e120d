//! `cargo bench -p project-lanes`: the cost of lane operations against a bare
//! `Mutex<HashMap<String, _>>` floor, with and without a journal (and with a system clock for its
//! times), what a take of the journal costs, and how two threads fare on distinct projects
//! versus one.
//!
//! Instructions per claim+release pair, counted by callgrind (`--toggle-collect` on a loop of
//! 163,840 pairs over these 64 projects, the journal taken every 16,384 pairs outside the
//! count; a binary per case, so that one case's code does not change another's), which the
//! machine's load does not disturb: without a journal 422; with an `Untimed` journal 473
//! (+12%); with `with_journal(None)` 490 (+16%: it tests at each operation whether there is a
//! clock); with an `Arc<dyn Clock>` that is one atomic load 527. The same count for the
//! journal before its entries lost their sequence number and its clock moved into its type:
//! without 422, with `None` 502 (+19%), with a clock 542. What a journal adds: the write of a
//! 56-byte entry per operation (its number is its place in its shard's chunk; a release's
//! carries its run label), a check for room, and after each lock a check whether the chunk
//! filled up. Each pair writes 112 bytes of entries: 1.8 first-level write misses per pair in
//! callgrind's cache model (2.1 with the 64-byte entries before; none without a journal).
//!
//! In time, on the 2-core development machine shared with other jobs, criterion's median in
//! ns per pair, runs alternating with the build before (in brackets). Three runs at load
//! average 4 to 6.5: without a journal 52 to 58, median of runs 55 (54 to 64, 57); with an
//! `Untimed` journal 69 to 81, median 75, +37% (`None`: 72 to 129, 84, +46%); with `None` 69
//! to 81, median 76; with a coarse clock 75 to 124, median 78 (73 to 79, 76); reading the
//! system clock twice 155 to 166 (162 to 168). Four runs before them, at load average 6 to
//! 10, spread too widely to say anything (without a journal 61 to 99, with one 81 to 118).
//! So in time a journal still costs about a third more, not the 15% its instructions cost.
//! Not because a take every 16,384 pairs leaves 1.8 MB of entries to cycle through the caches:
//! with a take every 1,024 pairs (115 KB, within the second-level cache) it cost the same, in
//! one session on a quiet machine 52.5 against 73.1 ns (+39%), and 53.0 against 74.5 ns (+41%)
//! at 16,384. A cpu-clock profile (this virtual machine exposes no hardware counters) put the
//! time on the releases of the shard locks, which wait for the entry's store, and on that
//! store: so each chunk now prefetches the memory of its next entry. Three sessions later in
//! the day, on a noisier machine (without a journal 64 to 71 ns), the two builds alternating,
//! medians of 6, 5 and 5 runs with an `Untimed` journal, without the prefetch against with it:
//! 134 against 109 ns, 103 against 82 and 116 against 103 (the last two pinned to one core);
//! against the same build without a journal, +99% against +57%, +59% against +27%, +65%
//! against +45%. The next profile showed a release moving the run's label out of the lane
//! through the stack in two overlapping 16-byte halves, and the load of the second waiting for
//! the store buffer under the lock: a release's entry now copies an inline label from the lease
//! (a shared one is still moved). With `benches/journal_overhead.rs`, which alternates the two
//! lanes in rounds and so cancels the machine's load, pinned to one core, two passes each of the
//! builds before and after: median ratio 1.246 and 1.260 against 1.210 and 1.204; criterion,
//! seven runs of each build alternating: +32% against +22% (medians of the runs). Writing every
//! entry into the same (always cached) place instead of the chunk's next one, as an experiment,
//! gives 1.11 against 1.17 in the same session: of what is left, about a third is memory and the
//! rest the instructions and the stores the locks' releases wait for. With the entry's run label
//! last (`repr(C)`), so that an entry without one is written in one piece: 1.192 and 1.195
//! against 1.173 and 1.166 (`journal_overhead`, alternating, pinned). A take costs about 280 ns
//! per entry (`journal/take_2048_entries`, measured before the chunks).

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
