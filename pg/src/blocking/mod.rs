//! The blocking handles, [`PgLanes`](crate::PgLanes) and [`PgDispatcher`](crate::PgDispatcher):
//! the async handles on a runtime of their own, one worker thread each, so they work the same
//! from a plain thread and from inside any tokio runtime (where they block the calling thread
//! for one round trip, like any blocking call); and the same promise for the blocking reader
//! of the journal and of `status`.

pub(crate) mod lanes;
pub(crate) mod queues;

use std::future::Future;
use std::time::Duration;

use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

use crate::PgError;

/// A handle's own runtime: it drives the connection, and the calls wait on it.
pub(crate) struct Bridge {
    /// `None` only while dropping.
    runtime: Option<Runtime>,
}

impl Bridge {
    pub(crate) fn new() -> Result<Bridge, PgError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("project-lanes-pg")
            .enable_all()
            .build()
            .map_err(|e| {
                PgError::Database("08000".into(), format!("cannot start a runtime: {e}"))
            })?;
        Ok(Bridge {
            runtime: Some(runtime),
        })
    }

    /// Waits on the calling thread for `work`, which runs with this runtime as its context (its
    /// tasks and timers are this runtime's). Never starts a runtime inside another, so it works
    /// from inside one.
    pub(crate) fn block<T>(&self, work: impl Future<Output = T>) -> T {
        let _context = self.runtime.as_ref().map(Runtime::enter);
        futures_executor::block_on(work)
    }

    /// Waits (up to a second) for a connection's goodbye to the server, once its client is gone.
    pub(crate) fn finish(&self, driver: Option<JoinHandle<()>>) {
        if let Some(driver) = driver {
            self.block(async {
                let _ = tokio::time::timeout(Duration::from_secs(1), driver).await;
            });
        }
    }
}

impl Drop for Bridge {
    /// Stops the runtime without waiting on it, which is allowed inside another runtime.
    fn drop(&mut self) {
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

/// Runs `work` where the `postgres` crate's blocking client may run (the journal reader and
/// `status` use it): on this thread, or on a helper thread while this one is inside a tokio
/// runtime, where that client would panic.
pub(crate) fn outside_runtime<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    if tokio::runtime::Handle::try_current().is_err() {
        return work();
    }
    std::thread::scope(|s| match s.spawn(work).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}
