//! `lanes-chaos`: the chaos run of project lanes on PostgreSQL (`cargo xtask chaos` starts it
//! on a throwaway cluster).
//!
//! ```text
//! lanes-chaos run --url URL --bin DIR --out DIR [--secs N] [--seed S] [--workers W] [--pace MS]
//!     workers on shared projects, killed, cut off, paused past recovery; recovery and
//!     resolution as a second role; then the whole journal exported as one record (DIR/chaos.jsonl),
//!     replayed by `lane-records`, audited by `lanes-pg` (both from the --bin folder), a row
//!     changed by SQL named by both, and the work intervals checked for overlaps; --pace makes
//!     each run's work take MS milliseconds more (a short run of few steps)
//! lanes-chaos worker URL SCHEMA ID SECONDS SEED PACE
//!     one worker process (see worker.rs)
//! ```

mod run;
mod worker;

use std::process::ExitCode;

/// The queues and projects every worker shares.
pub const QUEUES: [&str; 3] = ["general", "delivery", "batch"];
pub const PROJECTS: [&str; 24] = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi",
    "psi", "omega",
];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["worker", url, schema, id, seconds, seed, pace] => {
            match (id.parse(), seconds.parse(), seed.parse(), pace.parse()) {
                (Ok(id), Ok(seconds), Ok(seed), Ok(pace)) => {
                    worker::run(url, schema, id, seconds, seed, pace)
                }
                _ => Err(
                    "worker needs URL SCHEMA ID SECONDS SEED PACE, the last four numbers".into(),
                ),
            }
        }
        ["run", rest @ ..] => run::Options::parse(rest).and_then(run::run),
        _ => Err(format!(
            "usage: lanes-chaos run --url URL --bin DIR --out DIR [--secs N] [--seed S] \
             [--workers W] [--pace MS] (got {args:?})"
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lanes-chaos: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Nanoseconds on the system-wide monotonic clock: comparable between processes on one host.
pub fn now_ns() -> u128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec to the valid pointer it is given.
    #[allow(unsafe_code)]
    unsafe {
        libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts)
    };
    ts.tv_sec as u128 * 1_000_000_000 + ts.tv_nsec as u128
}

/// A small xorshift generator: the run needs variety from a seed, not quality.
pub struct Rng(pub u64);

impl Rng {
    pub fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}
