//! One worker process: claims lanes directly and runs reservations through the queues, on
//! projects every worker shares, until its time is up, logging each run's work interval; a
//! lost connection (its session cut off, the process paused past recovery) is logged and
//! reconnected.
//!
//! Its lines, on standard output: `WORK <project> <generation> <start_ns> <end_ns> <how>`, the
//! interval from the moment its claim or dispatch returned to the moment before its release or
//! save was called (the lane was held throughout), `how` being `released` (the release or the
//! save was accepted), `fenced` (refused: its lane was taken from it meanwhile) or `lost` (the
//! connection failed again: whether it was accepted is unknown); `LOST <error>` for a lost
//! connection. A run whose connection failed before its release or save tries again on the next
//! connection: accepted if it still held its lane, refused (fenced) if recovery gave the lane
//! away meanwhile.

use std::io::Write;
use std::time::{Duration, Instant};

use project_lanes::Outcome;
use project_lanes::backend::Refusal;
use project_lanes::dispatch::ReservationId;
use project_lanes_pg::{PgConfig, PgDispatcher, PgError, PgLanes, PgLease};

use crate::{PROJECTS, QUEUES, Rng, now_ns};

/// Runs worker `id` on `schema` for `seconds`, each run's work taking `pace` milliseconds more.
pub fn run(
    url: &str,
    schema: &str,
    id: u64,
    seconds: f64,
    seed: u64,
    pace: u64,
) -> Result<(), String> {
    let config = PgConfig::new(url, schema)
        .actor(&format!("worker-{id}"))
        .timeout(Duration::from_secs(5));
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let mut rng = Rng(seed ^ (id.wrapping_mul(0x9e37_79b9_7f4a_7c15)) | 1);
    let mut handles: Option<(PgLanes, PgDispatcher)> = None;
    let mut old: Vec<PgLease> = Vec::new();
    let mut enqueued: Vec<ReservationId> = Vec::new();
    let mut pending: Option<Pending> = None;
    let mut run = 0u64;
    while Instant::now() < deadline {
        let (lanes, dispatcher) = match &mut handles {
            Some(h) => h,
            None => match connect(&config) {
                Ok(h) => {
                    let (lanes, dispatcher) = handles.insert(h);
                    if let Some(p) = pending.take() {
                        p.settle(lanes, dispatcher)?;
                    }
                    handles.as_mut().expect("just connected")
                }
                Err(e) => {
                    say(&format!("LOST {}", one_line(&e)))?;
                    std::thread::sleep(Duration::from_millis(200));
                    continue;
                }
            },
        };
        run += 1;
        let project = PROJECTS[rng.below(PROJECTS.len())];
        let label = format!("w{id}-{run}");
        let result = match rng.below(20) {
            0..=7 => direct(
                lanes,
                &mut rng,
                pace,
                project,
                &label,
                &mut old,
                &mut pending,
            ),
            8..=10 => dispatcher
                .enqueue(QUEUES[rng.below(QUEUES.len())], project, &label)
                .map(|id| enqueued.push(id)),
            11..=16 => queued(dispatcher, &mut rng, pace, &mut pending),
            17 if !old.is_empty() => {
                // A late cleanup of a run released long ago: refused, and journaled.
                let lease = old.swap_remove(rng.below(old.len()));
                refused_or_lost(lanes.release(&lease, Outcome::Failed))
            }
            18 if !enqueued.is_empty() => {
                let id = enqueued.swap_remove(rng.below(enqueued.len()));
                refused_or_lost(dispatcher.cancel(id).map(|_| ()))
            }
            _ => lanes.view(project).map(|_| ()),
        };
        if let Err(e) = result {
            say(&format!("LOST {}", one_line(&e)))?;
            handles = None;
        }
        if old.len() > 50 {
            old.truncate(25);
        }
    }
    Ok(())
}

fn connect(config: &PgConfig) -> Result<(PgLanes, PgDispatcher), PgError> {
    Ok((
        PgLanes::connect_with(config)?,
        PgDispatcher::connect_with(config, &QUEUES)?,
    ))
}

/// A run whose connection failed before its release or save was answered.
enum Pending {
    Lease {
        lease: PgLease,
        start: u128,
        end: u128,
    },
    Job {
        id: ReservationId,
        project: String,
        generation: u64,
        start: u128,
        end: u128,
        finished: bool,
    },
}

impl Pending {
    /// The release or save tried again on a new connection, and the run's interval logged.
    fn settle(self, lanes: &PgLanes, dispatcher: &mut PgDispatcher) -> Result<(), String> {
        match self {
            Pending::Lease { lease, start, end } => {
                let how = verdict(&lanes.release(&lease, Outcome::Failed).map(|_| ()));
                interval(lease.project(), lease.generation(), start, end, how)
            }
            Pending::Job {
                id,
                project,
                generation,
                start,
                end,
                finished,
            } => {
                let mut saved = Ok(());
                if !finished {
                    saved = dispatcher.finish(id, Outcome::Failed).map(|_| ());
                }
                if saved.is_ok() {
                    saved = dispatcher.persisted(id, true).map(|_| ());
                }
                interval(&project, generation, start, end, verdict(&saved))
            }
        }
    }
}

/// How a release or save was answered: accepted, refused (the lane was taken meanwhile) or not
/// at all (the connection failed).
fn verdict(result: &Result<(), PgError>) -> &'static str {
    match result {
        Ok(()) => "released",
        Err(e) if e.refusal().is_some() => "fenced",
        Err(_) => "lost",
    }
}

/// A direct claim, some work, maybe a stop request, a release.
fn direct(
    lanes: &PgLanes,
    rng: &mut Rng,
    pace: u64,
    project: &str,
    run: &str,
    old: &mut Vec<PgLease>,
    pending: &mut Option<Pending>,
) -> Result<(), PgError> {
    let lease = match lanes.claim(project, run) {
        Ok(lease) => lease,
        Err(e) if e.lane_error().is_some() => return Ok(()),
        Err(e) => return Err(e),
    };
    let start = now_ns();
    work(rng, pace);
    if rng.below(8) == 0
        && let Err(e) = lanes.request_stop(&lease)
        && e.lane_error().is_none()
    {
        let end = now_ns();
        *pending = Some(Pending::Lease { lease, start, end });
        return Err(e);
    }
    let end = now_ns();
    let outcome = [Outcome::Succeeded, Outcome::Failed, Outcome::Cancelled][rng.below(3)];
    let released = lanes.release(&lease, outcome).map(|_| ());
    match verdict(&released) {
        "lost" => {
            *pending = Some(Pending::Lease { lease, start, end });
            released
        }
        how => {
            interval(project, lease.generation(), start, end, how).map_err(quit)?;
            old.push(lease);
            Ok(())
        }
    }
}

/// A dispatch from one of the queues and, if it handed out a job, the work, its outcome and
/// its save (which now and then fails).
fn queued(
    dispatcher: &mut PgDispatcher,
    rng: &mut Rng,
    pace: u64,
    pending: &mut Option<Pending>,
) -> Result<(), PgError> {
    let Some(job) = dispatcher.dispatch_with_generation(QUEUES[rng.below(QUEUES.len())])? else {
        return Ok(());
    };
    let start = now_ns();
    let (id, project, generation) = (job.job.reservation, job.job.project.clone(), job.generation);
    work(rng, pace);
    let outcome = [Outcome::Succeeded, Outcome::Failed][rng.below(2)];
    let end = now_ns();
    let mut lost = |finished: bool, e: PgError| {
        *pending = Some(Pending::Job {
            id,
            project: project.to_string(),
            generation,
            start,
            end,
            finished,
        });
        Err(e)
    };
    let finished = dispatcher.finish(id, outcome).map(|_| ());
    match verdict(&finished) {
        "lost" => return lost(false, finished.unwrap_err()),
        "fenced" => return interval(&project, generation, start, end, "fenced").map_err(quit),
        _ => {}
    }
    let saved = dispatcher.persisted(id, rng.below(20) != 0).map(|_| ());
    match verdict(&saved) {
        "lost" => lost(true, saved.unwrap_err()),
        how => interval(&project, generation, start, end, how).map_err(quit),
    }
}

/// A refusal is part of the run (journaled); only a lost connection is an error.
fn refused_or_lost<T>(result: Result<T, PgError>) -> Result<(), PgError> {
    match result {
        Ok(_) => Ok(()),
        Err(e) if e.refusal().is_some() => Ok(()),
        Err(e) => Err(e),
    }
}

/// A few milliseconds of "work", and `pace` more (nothing runs: the lanes hold metadata).
fn work(rng: &mut Rng, pace: u64) {
    std::thread::sleep(Duration::from_millis(1 + rng.below(12) as u64 + pace));
}

/// Logs a work interval.
fn interval(
    project: &str,
    generation: u64,
    start: u128,
    end: u128,
    how: &str,
) -> Result<(), String> {
    say(&format!("WORK {project} {generation} {start} {end} {how}"))
}

/// A log that cannot be written (the run that reads it is gone) ends the worker.
fn quit(e: String) -> PgError {
    eprintln!("lanes-chaos worker: {e}");
    std::process::exit(1);
}

fn one_line(e: &PgError) -> String {
    e.to_string().replace('\n', " ")
}

fn say(line: &str) -> Result<(), String> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "{line}")
        .and_then(|()| out.flush())
        .map_err(|e| format!("cannot write the log: {e}"))
}
