//! `cargo bench -p project-lanes --bench dispatch`: enqueue, dispatch, finish and persist N
//! reservations over N/100 projects in two queues. The time reported is per reservation, for
//! N = 10k, 100k and 1M; it should stay flat as N grows.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use project_lanes::Outcome;
use project_lanes::dispatch::Dispatcher;

const QUEUES: [&str; 2] = ["general", "delivery"];

/// One full cycle over `n` reservations; returns the elapsed time.
fn cycle(n: usize, projects: &[String], runs: &[String]) -> Duration {
    let mut d = Dispatcher::new(&QUEUES).unwrap();
    let start = Instant::now();
    for i in 0..n {
        // Reservation i goes to project i % P, alternating queues, so every project has
        // ~100 items spread over both queues and most items wait behind a busy project.
        d.enqueue(
            QUEUES[i % 2],
            &projects[i % projects.len()],
            &runs[i % runs.len()],
        )
        .unwrap();
    }
    let mut in_flight = Vec::with_capacity(projects.len());
    let mut settled = 0;
    while settled < n {
        for queue in QUEUES {
            while let Some(job) = d.dispatch(queue).unwrap() {
                in_flight.push(job.reservation);
            }
        }
        for id in in_flight.drain(..) {
            black_box(d.finish(id, Outcome::Succeeded).unwrap());
            black_box(d.persisted(id, true).unwrap());
            settled += 1;
        }
    }
    start.elapsed()
}

fn dispatch(c: &mut Criterion) {
    let mut group = c.benchmark_group("dispatch_per_reservation");
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(20));
    let runs: Vec<String> = (0..1000).map(|i| format!("run-{i}")).collect();
    for n in [10_000usize, 100_000, 1_000_000] {
        let projects: Vec<String> = (0..n / 100).map(|i| format!("project-{i}")).collect();
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            // Each iteration is a whole cycle; dividing by n gives the per-reservation cost.
            b.iter_custom(|iters| {
                (0..iters)
                    .map(|_| cycle(n, &projects, &runs))
                    .sum::<Duration>()
                    / n as u32
            })
        });
    }
    group.finish();
}

criterion_group!(benches, dispatch);
criterion_main!(benches);
