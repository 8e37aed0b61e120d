//! `lanes-pg-test-process`: the processes the PostgreSQL tests start and kill. Built for the
//! tests (a binary target of its own, not part of the operator's `lanes-pg`).
//!
//! ```text
//! lanes-pg-test-process worker URL SCHEMA ID SECONDS   claim and dispatch at random, log every interval
//! lanes-pg-test-process hold URL SCHEMA PROJ QUEUE     take a lane and a reservation, then wait forever
//! lanes-pg-test-process journal-worker URL SCHEMA ID OPS [--hang]
//!     OPS direct lane operations on lane-* projects and dispatcher operations on job-*
//!     projects, refusals and stop requests included, for a journal to replay; with --hang,
//!     then takes a job and waits to be killed holding it (see `journal_worker`)
//! lanes-pg-test-process lease URL SCHEMA PROJ RUN [--drop-handle]
//!     claim PROJ for RUN, say `CLAIMED <generation>` (after dropping the claiming handle, so
//!     its session ends, with --drop-handle), wait for a line on stdin, release the lease
//!     (through a handle of its own) and say `RELEASED` or `REFUSED <CODE>`
//! ```

use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use project_lanes::Outcome;
use project_lanes_pg::{PgDispatcher, PgError, PgLanes};

/// The queues and projects the worker uses.
const QUEUES: [&str; 3] = ["general", "delivery", "batch"];
const PROJECTS: [&str; 4] = ["alpha", "beta", "gamma", "delta"];

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["worker", url, schema, id, seconds] => match (id.parse(), seconds.parse()) {
            (Ok(id), Ok(seconds)) => worker(url, schema, id, seconds),
            _ => Err("worker needs a number ID and a number of SECONDS".into()),
        },
        ["journal-worker", url, schema, id, ops, rest @ ..] => {
            match (id.parse(), ops.parse(), rest) {
                (Ok(id), Ok(ops), []) => journal_worker(url, schema, id, ops, false),
                (Ok(id), Ok(ops), ["--hang"]) => journal_worker(url, schema, id, ops, true),
                _ => Err("journal-worker needs a number ID, a number OPS, maybe --hang".into()),
            }
        }
        ["hold", url, schema, project, queue] => hold(url, schema, project, queue),
        ["lease", url, schema, project, run] => lease(url, schema, project, run, false),
        ["lease", url, schema, project, run, "--drop-handle"] => {
            lease(url, schema, project, run, true)
        }
        _ => Err(format!("unknown arguments {args:?}")),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("lanes-pg-test-process: {e}");
            ExitCode::FAILURE
        }
    }
}

fn err(e: PgError) -> String {
    e.to_string()
}

/// Nanoseconds on the system-wide monotonic clock: comparable between processes on one host.
fn now_ns() -> u128 {
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

/// A small xorshift generator: the worker needs variety, not quality.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Claims lanes and dispatches reservations at random for `seconds`, then drains the queues.
/// Prints one line per event:
/// `ENQ id queue project`, `RUN id queue project generation outcome start end`,
/// `LANE project generation start end` (times from [`now_ns`]).
fn worker(url: &str, schema: &str, id: u64, seconds: f64) -> Result<(), String> {
    let lanes = PgLanes::connect(url, schema).map_err(err)?;
    let mut d = PgDispatcher::connect(url, schema, &QUEUES).map_err(err)?;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (id + 1).wrapping_mul(0x2545_F491_4F6C_DD1D));
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut count = 0u64;
    loop {
        let running = Instant::now() < deadline;
        let roll = rng.below(10);
        if running && roll < 2 {
            let (queue, project) = (QUEUES[rng.below(3)], PROJECTS[rng.below(4)]);
            count += 1;
            let r = d
                .enqueue(queue, project, &format!("w{id}-{count}"))
                .map_err(err)?;
            writeln!(out, "ENQ {} {queue} {project}", r.number()).map_err(|e| e.to_string())?;
        } else if running && roll < 4 {
            let project = PROJECTS[rng.below(4)];
            count += 1;
            if let Ok(lease) = lanes.claim(project, &format!("w{id}-c{count}")) {
                let start = now_ns();
                std::thread::sleep(Duration::from_micros(rng.below(500) as u64));
                let end = now_ns();
                lanes.release(&lease, Outcome::Succeeded).map_err(err)?;
                writeln!(out, "LANE {project} {} {start} {end}", lease.generation())
                    .map_err(|e| e.to_string())?;
            }
        } else {
            let queue = QUEUES[rng.below(3)];
            match d.dispatch_with_generation(queue).map_err(err)? {
                Some(dispatched) => {
                    let start = now_ns();
                    let job = dispatched.job;
                    std::thread::sleep(Duration::from_micros(rng.below(1000) as u64));
                    let outcome =
                        [Outcome::Succeeded, Outcome::Failed, Outcome::Cancelled][rng.below(3)];
                    d.finish(job.reservation, outcome).map_err(err)?;
                    let end = now_ns();
                    d.persisted(job.reservation, true).map_err(err)?;
                    writeln!(
                        out,
                        "RUN {} {queue} {} {} {outcome} {start} {end}",
                        job.reservation.number(),
                        job.project,
                        dispatched.generation
                    )
                    .map_err(|e| e.to_string())?;
                }
                None if !running => {
                    let mut left = 0;
                    for q in QUEUES {
                        left += d.retained(q).map_err(err)?;
                    }
                    if left == 0 {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
                None => {}
            }
        }
    }
    out.flush().map_err(|e| e.to_string())
}

/// The projects and queues of `journal_worker`: lanes and dispatcher kept apart, since a record
/// shows one or the other.
const LANE_PROJECTS: [&str; 3] = ["lane-a", "lane-b", "lane-c"];
const JOB_PROJECTS: [&str; 3] = ["job-a", "job-b", "job-c"];
const JOURNAL_QUEUES: [&str; 2] = ["general", "delivery"];

/// `ops` times, at random: claims (often refused), stop requests, releases with every outcome,
/// releases of leases already released (refused); enqueues, dispatches, finishes, saves that
/// succeed or fail, resolves of what failed, cancels. Says `READY` once connected. Then releases
/// what it holds and ends, or, with `hang`, claims a lane and dispatches a job more, says `DONE`
/// and waits to be killed holding them.
fn journal_worker(url: &str, schema: &str, id: u64, ops: u64, hang: bool) -> Result<(), String> {
    let config = project_lanes_pg::PgConfig::new(url, schema).actor(&format!("worker-{id}"));
    let lanes = PgLanes::connect_with(&config).map_err(err)?;
    // A hanging worker has a queue of its own too, for the job it dies holding.
    let own = format!("hang-{id}");
    let mut queues = JOURNAL_QUEUES.to_vec();
    if hang {
        queues.push(&own);
    }
    let mut d = PgDispatcher::connect_with(&config, &queues).map_err(err)?;
    let mut rng = Rng(0x2545_F491_4F6C_DD1D ^ (id + 7).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    say("READY")?;
    let outcomes = [
        Outcome::Succeeded,
        Outcome::Failed,
        Outcome::Cancelled,
        Outcome::NeedsReview,
    ];
    let mut held = Vec::new();
    let mut released = Vec::new();
    for count in 0..ops {
        match rng.below(12) {
            0..=2 => {
                let project = LANE_PROJECTS[rng.below(3)];
                if let Ok(lease) = lanes.claim(project, &format!("w{id}-{count}")) {
                    held.push(lease);
                }
            }
            3 if !held.is_empty() => {
                let lease = &held[rng.below(held.len())];
                lanes.request_stop(lease).map_err(err)?;
            }
            4 | 5 if !held.is_empty() => {
                let lease = held.swap_remove(rng.below(held.len()));
                lanes.release(&lease, outcomes[rng.below(4)]).map_err(err)?;
                released.push(lease);
            }
            6 if !released.is_empty() => {
                let stale = &released[rng.below(released.len())];
                lanes.release(stale, Outcome::Succeeded).unwrap_err();
            }
            7 => {
                let (queue, project) = (JOURNAL_QUEUES[rng.below(2)], JOB_PROJECTS[rng.below(3)]);
                let r = d
                    .enqueue(queue, project, &format!("w{id}-{count}"))
                    .map_err(err)?;
                if rng.below(6) == 0 {
                    // Cancelled, unless a dispatch took it first (NOT_QUEUED, journaled too).
                    let _ = d.cancel(r);
                }
            }
            _ => {
                let queue = JOURNAL_QUEUES[rng.below(2)];
                if let Some(job) = d.dispatch(queue).map_err(err)? {
                    std::thread::sleep(Duration::from_micros(rng.below(300) as u64));
                    d.finish(job.reservation, outcomes[rng.below(3)])
                        .map_err(err)?;
                    let saved = rng.below(5) != 0;
                    d.persisted(job.reservation, saved).map_err(err)?;
                    if !saved {
                        d.resolve(job.reservation).map_err(err)?;
                    }
                }
            }
        }
    }
    if hang {
        // A lane and a job of its own, so that it surely dies holding both.
        held.push(lanes.claim(&format!("lane-h{id}"), "hung").map_err(err)?);
        d.enqueue(&own, &format!("job-h{id}"), "hung")
            .map_err(err)?;
        d.dispatch(&own)
            .map_err(err)?
            .ok_or("a job of its own project, in its own queue, is always available")?;
        say("DONE")?;
        loop {
            std::thread::sleep(Duration::from_secs(3600));
        }
    }
    for lease in held {
        lanes.release(&lease, Outcome::Succeeded).map_err(err)?;
    }
    Ok(())
}

/// Takes `project`'s lane directly and dispatches one reservation from `queue`, says `READY`,
/// then waits to be killed.
fn hold(url: &str, schema: &str, project: &str, queue: &str) -> Result<(), String> {
    let lanes = PgLanes::connect(url, schema).map_err(err)?;
    let mut d = PgDispatcher::connect(url, schema, &[queue]).map_err(err)?;
    let lease = lanes.claim(project, "holder").map_err(err)?;
    let job = d
        .dispatch(queue)
        .map_err(err)?
        .ok_or("nothing to dispatch")?;
    say(&format!("READY {} {}", lease.generation(), job.reservation))?;
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

/// Claims `project` for `run`, says `CLAIMED <generation>`, waits for a line on stdin, then
/// releases the lease through a handle of its own and says how that went.
fn lease(url: &str, schema: &str, project: &str, run: &str, drop: bool) -> Result<(), String> {
    let claimer = PgLanes::connect(url, schema).map_err(err)?;
    let lease = claimer.claim(project, run).map_err(err)?;
    let claimer = if drop {
        // The handle's connection, hence its session, ends; the lease lives on.
        std::mem::drop(claimer);
        None
    } else {
        Some(claimer)
    };
    say(&format!("CLAIMED {}", lease.generation()))?;
    let mut line = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut line)
        .map_err(|e| e.to_string())?;
    let releaser = PgLanes::connect(url, schema).map_err(err)?;
    match releaser.release(&lease, Outcome::Succeeded) {
        Ok(_) => say("RELEASED")?,
        Err(e) => say(&format!("REFUSED {}", e.code()))?,
    }
    std::mem::drop(claimer);
    Ok(())
}

fn say(line: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(|e| e.to_string())
}
