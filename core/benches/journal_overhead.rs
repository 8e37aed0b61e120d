//! `cargo bench -p project-lanes --bench journal_overhead`: what an `Untimed` journal adds to a
//! claim+release pair, measured so that the machine's load cancels out.
//!
//! Criterion (`benches/lanes.rs`) times lanes with and without a journal one after the other,
//! seconds apart; on a shared machine their medians move from run to run by more than the
//! difference being measured. Here the two alternate in rounds of 16,384 pairs (the same 64
//! projects, a take of the journal after each round, not timed), and each round gives a ratio of
//! the two; the figure is the median of 400 such ratios, and five passes show its spread.
//!
//! Arguments: an optional filter, as for criterion (the benchmark runs if its name contains it);
//! `--rounds N` changes the rounds per pass.

use std::hint::black_box;
use std::time::Instant;

use project_lanes::journal::{Journaling, Untimed};
use project_lanes::{Outcome, ProjectLanes};

/// Pairs per timed round, as between two takes in `benches/lanes.rs`.
const BATCH: usize = 16_384;
/// Passes, each of `rounds` rounds after 20 rounds of warm-up.
const PASSES: usize = 5;
const WARM_UP: usize = 20;

fn main() {
    let mut rounds = 400;
    let mut filter = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => rounds = n,
                _ => {
                    eprintln!("journal_overhead: --rounds needs a positive number");
                    std::process::exit(2);
                }
            },
            // What cargo and criterion's conventions pass (`--bench`, `--exact`, …).
            flag if flag.starts_with("--") => {}
            name => filter = Some(name.to_owned()),
        }
    }
    if filter.is_some_and(|f| !"journal_overhead".contains(f.as_str())) {
        return;
    }
    let projects: Vec<String> = (0..64).map(|i| format!("project-{i:04}")).collect();
    println!(
        "journal_overhead: claim+release, without a journal and with an Untimed one, \
         alternating in rounds of {BATCH} pairs ({rounds} rounds a pass)"
    );
    let mut ratios = Vec::new();
    for pass in 1..=PASSES {
        let plain = ProjectLanes::new();
        let journaled = ProjectLanes::new().with_journal(Untimed);
        let (mut without, mut with, mut ratio) = (Vec::new(), Vec::new(), Vec::new());
        for round in 0..WARM_UP + rounds {
            let a = per_pair(|p| pair(&plain, p), &projects);
            let b = per_pair(|p| pair(&journaled, p), &projects);
            black_box(journaled.take_journal());
            if round >= WARM_UP {
                without.push(a);
                with.push(b);
                ratio.push(b / a);
            }
        }
        let median_ratio = median(&mut ratio);
        println!(
            "  pass {pass}: without {:.1} ns, with {:.1} ns a pair (medians); \
             median ratio {median_ratio:.3} (quartiles {:.3} to {:.3})",
            median(&mut without),
            median(&mut with),
            ratio[ratio.len() / 4],
            ratio[ratio.len() * 3 / 4],
        );
        ratios.push(median_ratio);
    }
    let overall = median(&mut ratios);
    println!(
        "journal_overhead: median of the passes' ratios {overall:.3} (+{:.1}%)",
        (overall - 1.0) * 100.0
    );
}

/// Nanoseconds per pair over one round of [`BATCH`] pairs.
fn per_pair(mut pair: impl FnMut(&str), projects: &[String]) -> f64 {
    let start = Instant::now();
    for i in 0..BATCH {
        pair(&projects[i % projects.len()]);
    }
    start.elapsed().as_nanos() as f64 / BATCH as f64
}

/// One claim+release pair of `project`.
fn pair<J: Journaling>(lanes: &ProjectLanes<J>, project: &str) {
    let lease = lanes.claim(project, "run-1").unwrap();
    black_box(lanes.release(&lease, Outcome::Succeeded).unwrap());
}

/// Sorts `values` and returns the middle one.
fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
