//! A threaded runner for the [dispatcher](crate::dispatch): worker threads per queue, a work
//! function and a persistence function.
//!
//! The dispatcher sits behind one mutex that is held only for its short transitions; the work and
//! the save run outside it, so one reservation's long work never delays operations on others.
//! Each dispatched reservation is settled by a guard on every path: if the work or the save
//! returns an error or panics, the reservation still completes (as `needs_review` when the outcome
//! is unknown) and its lane is released, once, with its own lease. A late or repeated completion
//! is refused by the dispatcher (`NOT_PERSISTING`) and can never release a newer owner.
//!
//! ```
//! use std::sync::mpsc;
//! use project_lanes::Outcome;
//! use project_lanes::dispatch::{Dispatcher, ReservationState};
//! use project_lanes::runner::Runner;
//!
//! let runner = Runner::start(
//!     Dispatcher::new(&["general"]).unwrap(),
//!     2,
//!     |_job| Ok(Outcome::Succeeded),      // the work
//!     |_state, _error| Ok::<(), String>(()), // saving the final state
//! );
//! let id = runner.enqueue("general", "docs", "nightly-1").unwrap();
//! runner.wait_until(|d| d.reservation(id).unwrap().state == ReservationState::Done);
//! let dispatcher = runner.shutdown();
//! assert!(!dispatcher.view("docs").unwrap().busy);
//! ```

use std::fmt::Display;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use crate::Outcome;
use crate::dispatch::{
    DispatchError, Dispatcher, FinalState, Job, ReservationId, ReservationState, ReservationView,
};

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
        let result = f(&mut self.lock().dispatcher);
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
            for _ in 0..workers_per_queue.max(1) {
                let (shared, work, persist, queue) =
                    (shared.clone(), work.clone(), persist.clone(), queue.clone());
                workers.push(std::thread::spawn(move || {
                    while let Some(job) = next_job(&shared, &queue) {
                        run_job(&shared, &job, &*work, &*persist);
                    }
                }));
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

    /// Stops the workers once their current jobs are settled and returns the dispatcher.
    /// Reservations still queued stay queued.
    pub fn shutdown(mut self) -> Dispatcher {
        self.stop();
        for worker in self.workers.drain(..) {
            // Workers catch panics from work and saves; there is nothing else to report.
            let _ = worker.join();
        }
        let shared = Arc::clone(&self.shared);
        drop(self);
        match Arc::try_unwrap(shared) {
            Ok(shared) => {
                shared
                    .state
                    .into_inner()
                    .unwrap_or_else(PoisonError::into_inner)
                    .dispatcher
            }
            Err(_) => unreachable!("every worker was joined and the runner dropped"),
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

/// Waits for a job of `queue`, or `None` when the runner stops.
fn next_job(shared: &Shared, queue: &str) -> Option<Job> {
    let mut state = shared.lock();
    loop {
        if state.stopping {
            return None;
        }
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
            // Dropping a panic payload can itself panic; do it where that is caught too.
            let _ = catch_unwind(AssertUnwindSafe(move || drop(payload)));
            (Outcome::NeedsReview, Some("the work panicked".to_string()))
        }
    };
    let Ok(state) = shared.transition(|d| d.finish(job.reservation, outcome)) else {
        return; // the guard settles it
    };
    let saved = matches!(
        catch_unwind(AssertUnwindSafe(|| persist(&state, error.as_deref()))),
        Ok(Ok(()))
    );
    if shared
        .transition(|d| d.persisted(job.reservation, saved))
        .is_ok()
    {
        guard.done = true;
    }
}
