//! # project-lanes-runner
//!
//! Worker threads that drive a `project-lanes` [`Dispatcher`]: a number of workers per queue, a
//! work function and a persistence function.
//!
//! ```
//! use project_lanes::Outcome;
//! use project_lanes::dispatch::{Dispatcher, ReservationState};
//! use project_lanes_runner::Runner;
//!
//! let runner = Runner::start(
//!     Dispatcher::new(&["general"]).unwrap(),
//!     2,
//!     |_job| Ok(Outcome::Succeeded),      // the work
//!     |_state, _error| Ok::<(), String>(()), // saving the final state
//! );
//! let id = runner.enqueue("general", "docs", "nightly-1").unwrap();
//! runner.wait_until(|d| d.reservation(id).unwrap().state == ReservationState::Done);
//! let dispatcher = runner.shutdown().expect("no worker died");
//! assert!(!dispatcher.view("docs").unwrap().busy);
//! ```
//!
//! The dispatcher sits behind one mutex that is held only for its short transitions; the work and
//! the save run outside it, so one reservation's long work never delays operations on others.
//! Each dispatched reservation is settled by a guard on every path: if the work or the save
//! returns an error or panics, the reservation still completes (as `needs_review` when the outcome
//! is unknown) and its lane is released, once, with its own lease. A late or repeated completion
//! is refused by the dispatcher (`NOT_PERSISTING`) and can never release a newer owner.
//!
//! ## Its journal
//!
//! Give it a dispatcher that keeps a journal (`Dispatcher::with_journal`): every transition the
//! workers and you make is journaled in the order it ran under the runner's lock, each with its
//! caller as the actor (the worker thread, such as `general worker 1`, or your thread's name).
//! [`Runner::take_journal`] hands the entries out; `project_lanes::journal::Journal` turns them
//! into a record that replays on the core.
//!
//! ## What this crate is not
//!
//! - **Not the rules.** Which reservation runs when, and what a completion may release, is the
//!   dispatcher's (`project_lanes::dispatch`), a pure state machine; this crate only adds the
//!   threads, the waiting, and the guard that settles every reservation it took.
//! - **Not durable.** The dispatcher lives in memory and ends with the process; for many processes
//!   use `project-lanes-pg`.
//! - **Not a sandbox.** Your functions run on the worker threads; a panic is caught and counted as
//!   `needs_review`, but nothing stops a function that never returns.

#![deny(unsafe_code)]
#![warn(missing_docs)]

use std::any::Any;
use std::fmt::{self, Display};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use project_lanes::Outcome;
use project_lanes::dispatch::{
    DispatchError, Dispatcher, FinalState, Job, ReservationId, ReservationState, ReservationView,
};
use project_lanes::journal::{Actor, Entry};

/// The crate's README (its page on crates.io), run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;

/// Worker threads driving a [`Dispatcher`].
pub struct Runner {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    /// Signalled after every transition, so waiting workers and observers re-check.
    changed: Condvar,
}

struct State {
    dispatcher: Dispatcher,
    stopping: bool,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Work and saves run outside the lock, so a panic cannot poison it mid-transition.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs one dispatcher transition and wakes everyone who waits for a change.
    fn transition<T>(&self, f: impl FnOnce(&mut Dispatcher) -> T) -> T {
        let result = {
            let mut state = self.lock();
            name_the_caller(&mut state.dispatcher);
            f(&mut state.dispatcher)
        };
        self.changed.notify_all();
        result
    }
}

impl Runner {
    /// Starts `workers_per_queue` threads for every queue of `dispatcher`.
    ///
    /// `work` runs a job and reports its outcome (`Err` means `failed`, with the message passed
    /// on to the save). `persist` saves the final state; if it fails, the outcome becomes
    /// `needs_review`. A panic in either counts as `needs_review`.
    pub fn start<W, P, E>(
        dispatcher: Dispatcher,
        workers_per_queue: usize,
        work: W,
        persist: P,
    ) -> Runner
    where
        W: Fn(&Job) -> Result<Outcome, String> + Send + Sync + 'static,
        P: Fn(&FinalState, Option<&str>) -> Result<(), E> + Send + Sync + 'static,
        E: Display,
    {
        let queues: Vec<String> = dispatcher.queues().iter().map(|q| q.to_string()).collect();
        // Worker threads are named after their queue: the name is their journal actor.
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                dispatcher,
                stopping: false,
            }),
            changed: Condvar::new(),
        });
        let work = Arc::new(work);
        let persist = Arc::new(persist);
        let mut workers = Vec::new();
        for queue in queues {
            for i in 1..=workers_per_queue.max(1) {
                let (shared, work, persist, queue) =
                    (shared.clone(), work.clone(), persist.clone(), queue.clone());
                let worker = std::thread::Builder::new()
                    .name(format!("{queue} worker {i}"))
                    .spawn(move || {
                        while let Some(job) = next_job(&shared, &queue) {
                            run_job(&shared, &job, &*work, &*persist);
                        }
                    })
                    .unwrap_or_else(|e| panic!("cannot start a worker thread: {e}"));
                workers.push(worker);
            }
        }
        Runner { shared, workers }
    }

    /// Adds a reservation; a worker of that queue picks it up when its project is available.
    pub fn enqueue(
        &self,
        queue: &str,
        project: &str,
        run: &str,
    ) -> Result<ReservationId, DispatchError> {
        self.shared.transition(|d| d.enqueue(queue, project, run))
    }

    /// Cancels a queued reservation (`NOT_QUEUED` if a worker dispatched it first).
    pub fn cancel(&self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        self.shared.transition(|d| d.cancel(id))
    }

    /// Resolves an unresolved reservation, making its project available again.
    pub fn resolve(&self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        self.shared.transition(|d| d.resolve(id))
    }

    /// The dispatcher's journal entries since the last take, in the order the transitions ran
    /// (empty if it keeps no journal).
    pub fn take_journal(&self) -> Vec<Entry> {
        self.shared.lock().dispatcher.take_journal()
    }

    /// Reads the dispatcher under its lock.
    pub fn with<T>(&self, f: impl FnOnce(&Dispatcher) -> T) -> T {
        f(&self.shared.lock().dispatcher)
    }

    /// Blocks until `done` holds, re-checking after every transition (no polling, no sleeps).
    pub fn wait_until(&self, mut done: impl FnMut(&Dispatcher) -> bool) {
        let mut state = self.shared.lock();
        while !done(&state.dispatcher) {
            state = self
                .shared
                .changed
                .wait(state)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Like [`wait_until`](Self::wait_until), but gives up after `timeout`; returns whether
    /// `done` holds.
    pub fn wait_until_timeout(
        &self,
        timeout: Duration,
        mut done: impl FnMut(&Dispatcher) -> bool,
    ) -> bool {
        let state = self.shared.lock();
        let (state, _) = self
            .shared
            .changed
            .wait_timeout_while(state, timeout, |state| !done(&state.dispatcher))
            .unwrap_or_else(PoisonError::into_inner);
        done(&state.dispatcher)
    }

    /// Stops the workers once their current jobs are settled and returns the dispatcher.
    /// Reservations still queued stay queued.
    ///
    /// Workers catch the panics of work and saves (and of dropping what those return), so none
    /// should ever die; if one did anyway, its queue may have stopped dispatching, and this
    /// says so with [`WorkersDied`], which still holds the dispatcher.
    pub fn shutdown(mut self) -> Result<Dispatcher, WorkersDied> {
        self.stop();
        let workers = self.workers.len();
        let died = self
            .workers
            .drain(..)
            .map(|worker| worker.join())
            .filter(Result::is_err)
            .count();
        let shared = Arc::clone(&self.shared);
        drop(self);
        let dispatcher = match Arc::try_unwrap(shared) {
            Ok(shared) => {
                shared
                    .state
                    .into_inner()
                    .unwrap_or_else(PoisonError::into_inner)
                    .dispatcher
            }
            Err(_) => unreachable!("every worker was joined and the runner dropped"),
        };
        if died == 0 {
            Ok(dispatcher)
        } else {
            Err(WorkersDied {
                died,
                workers,
                dispatcher: Box::new(dispatcher),
            })
        }
    }

    fn stop(&self) {
        self.shared.lock().stopping = true;
        self.shared.changed.notify_all();
    }
}

impl Drop for Runner {
    /// Dropping the runner stops its workers after their current jobs (without waiting).
    fn drop(&mut self) {
        self.stop();
    }
}

/// [`Runner::shutdown`] found worker threads that had ended by a panic: their queues may have
/// stopped dispatching before the shutdown. The dispatcher is returned all the same.
#[derive(Debug)]
pub struct WorkersDied {
    /// How many worker threads had died.
    pub died: usize,
    /// How many worker threads the runner started.
    pub workers: usize,
    /// The dispatcher as the workers left it (every reservation they took is settled).
    pub dispatcher: Box<Dispatcher>,
}

impl fmt::Display for WorkersDied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} of {} runner workers died of a panic; their queues may have stopped dispatching",
            self.died, self.workers
        )
    }
}

impl std::error::Error for WorkersDied {}

/// Waits for a job of `queue`, or `None` when the runner stops.
fn next_job(shared: &Shared, queue: &str) -> Option<Job> {
    let mut state = shared.lock();
    loop {
        if state.stopping {
            return None;
        }
        name_the_caller(&mut state.dispatcher);
        if let Ok(Some(job)) = state.dispatcher.dispatch(queue) {
            drop(state);
            shared.changed.notify_all();
            return Some(job);
        }
        state = shared
            .changed
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner);
    }
}

thread_local! {
    /// This thread's journal actor: its name, if it has one.
    static ACTOR: Option<Actor> = std::thread::current().name().and_then(Actor::new);
}

/// Names the calling thread as the actor of the dispatcher's next transitions, if it journals.
fn name_the_caller(dispatcher: &mut Dispatcher) {
    if dispatcher.keeps_journal() {
        dispatcher.set_actor(ACTOR.with(Clone::clone));
    }
}

/// Completes a dispatched reservation on every path: dropped before the end (an error or a
/// panic anywhere below), it records `needs_review` and releases the lane.
struct Settle<'a> {
    shared: &'a Shared,
    id: ReservationId,
    done: bool,
}

impl Drop for Settle<'_> {
    fn drop(&mut self) {
        if self.done {
            return;
        }
        self.shared.transition(|d| {
            if d.reservation(self.id).map(|r| r.state) == Ok(ReservationState::Dispatched) {
                let _ = d.finish(self.id, Outcome::NeedsReview);
            }
            // Refused (NOT_PERSISTING) if it already completed: nothing is released twice.
            let _ = d.persisted(self.id, false);
        });
    }
}

fn run_job<W, P, E>(shared: &Shared, job: &Job, work: &W, persist: &P)
where
    W: Fn(&Job) -> Result<Outcome, String>,
    P: Fn(&FinalState, Option<&str>) -> Result<(), E>,
{
    let mut guard = Settle {
        shared,
        id: job.reservation,
        done: false,
    };
    let (outcome, error) = match catch_unwind(AssertUnwindSafe(|| work(job))) {
        Ok(Ok(outcome)) => (outcome, None),
        Ok(Err(message)) => (Outcome::Failed, Some(message)),
        Err(payload) => {
            drop_payload(payload);
            (Outcome::NeedsReview, Some("the work panicked".to_string()))
        }
    };
    let Ok(state) = shared.transition(|d| d.finish(job.reservation, outcome)) else {
        return; // the guard settles it
    };
    // The save's result is dropped inside `catch_unwind` too: an `Err(E)` whose drop panics
    // would otherwise unwind out of the worker and end it.
    let saved = match catch_unwind(AssertUnwindSafe(|| {
        persist(&state, error.as_deref()).is_ok()
    })) {
        Ok(saved) => saved,
        Err(payload) => {
            drop_payload(payload);
            false
        }
    };
    if shared
        .transition(|d| d.persisted(job.reservation, saved))
        .is_ok()
    {
        guard.done = true;
    }
}

/// Drops a caught panic's payload where a panic in its own `Drop` is caught too. The payload of
/// *that* panic is leaked rather than dropped: a worker must not die of a destructor.
fn drop_payload(payload: Box<dyn Any + Send>) {
    if let Err(again) = catch_unwind(AssertUnwindSafe(move || drop(payload))) {
        std::mem::forget(again);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shutdown_reports_a_worker_that_died() {
        let mut runner = Runner::start(
            Dispatcher::new(&["general"]).unwrap(),
            1,
            |_| Ok(Outcome::Succeeded),
            |_, _| Ok::<(), String>(()),
        );
        // No path of `run_job` lets a panic out any more; a thread that panics stands in for a
        // worker killed by a bug.
        runner.workers.push(std::thread::spawn(|| {
            std::panic::resume_unwind(Box::new(()))
        }));
        let id = runner.enqueue("general", "docs", "nightly-1").unwrap();
        runner.wait_until(|d| d.reservation(id).unwrap().state == ReservationState::Done);
        let died = runner.shutdown().unwrap_err();
        assert_eq!((died.died, died.workers), (1, 2));
        assert_eq!(
            died.to_string(),
            "1 of 2 runner workers died of a panic; their queues may have stopped dispatching"
        );
        assert!(!died.dispatcher.view("docs").unwrap().busy);
    }
}
