//! Instructions, not time: a claim+release pair of plain lanes (`ProjectLanes::new()`) against
//! the floor, a bare `Mutex<HashMap<String, _>>` insert+remove, on the same 64 projects.
//! `cargo xtask bench instructions` builds this and runs it under callgrind, counting only
//! inside `measured_pairs` (the projects' first claims and inserts come before, in `warm`), and
//! prints each side's instructions per pair and their ratio. Instruction counts do not move
//! with the machine's load, so one run settles what a pair costs; the functions callgrind
//! attributes them to say what they buy (`callgrind_annotate` on the file it names).
//!
//! Run by hand: `valgrind --tool=callgrind --toggle-collect='*measured_pairs*'
//! target/release/deps/pair_instructions-… lanes 100000` (or `floor`). Under `cargo bench` or
//! `cargo test --benches` it runs both sides briefly, untimed, so it stays built and working.

use std::collections::HashMap;
use std::hint::black_box;
use std::sync::Mutex;

use project_lanes::{Outcome, ProjectLanes};

/// The two sides: what is measured, and the floor it is held against.
trait Pairs {
    /// One claim+release (or insert+remove) of `project`.
    fn pair(&self, project: &str);
}

impl Pairs for ProjectLanes {
    #[inline(always)]
    fn pair(&self, project: &str) {
        let lease = self.claim(project, "run-1").unwrap();
        black_box(self.release(&lease, Outcome::Succeeded).unwrap());
    }
}

impl Pairs for Mutex<HashMap<String, u64>> {
    #[inline(always)]
    fn pair(&self, project: &str) {
        self.lock().unwrap().insert(project.to_owned(), 1);
        black_box(self.lock().unwrap().remove(project));
    }
}

/// Every project once, so that tables have grown and lanes exist before counting starts.
#[inline(never)]
fn warm(side: &impl Pairs, projects: &[String]) {
    for project in projects {
        side.pair(project);
    }
}

/// The pairs callgrind counts: `pairs` of them, cycling through `projects`.
#[inline(never)]
fn measured_pairs(side: &impl Pairs, projects: &[String], pairs: u64) {
    for i in 0..pairs {
        side.pair(&projects[i as usize % projects.len()]);
    }
}

fn run(side: &impl Pairs, pairs: u64) {
    let projects: Vec<String> = (0..64).map(|i| format!("project-{i:04}")).collect();
    warm(side, &projects);
    measured_pairs(side, black_box(&projects), black_box(pairs));
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [side @ ("lanes" | "floor"), pairs] => {
            let Ok(pairs) = pairs.parse::<u64>() else {
                eprintln!("use: pair_instructions lanes|floor PAIRS (see the file's header)");
                std::process::exit(2);
            };
            if *side == "lanes" {
                run(&ProjectLanes::new(), pairs);
            } else {
                run(&Mutex::new(HashMap::new()), pairs);
            }
        }
        // `cargo bench` (`--bench`, perhaps a filter) or `cargo test --benches`: both sides, briefly.
        _ => {
            run(&ProjectLanes::new(), 1_000);
            run(&Mutex::new(HashMap::new()), 1_000);
            println!("pair_instructions: counted by `cargo xtask bench instructions`");
        }
    }
}
