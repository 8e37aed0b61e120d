//! The blocking handles, [`PgLanes`](crate::PgLanes) and [`PgDispatcher`](crate::PgDispatcher):
//! the async handles on a current-thread runtime of their own, which the calling thread drives
//! while it waits (as the `postgres` crate does: no thread hops per call), so they work the
//! same from a plain thread and from inside any tokio runtime (there on a helper thread, since
//! a thread inside a runtime may not drive another; they block the caller for one round trip,
//! like any blocking call); and the same promise for the blocking reader of the journal and of
//! `status`.

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
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| {
                PgError::Database("08000".into(), format!("cannot start a runtime: {e}"))
            })?;
        Ok(Bridge {
            runtime: Some(runtime),
        })
    }

    /// Drives this runtime on the calling thread until `work` ends (its tasks and timers are
    /// this runtime's; threads sharing a handle take turns driving it). Inside another runtime,
    /// where that would panic, on a helper thread.
    pub(crate) fn block<F>(&self, work: F) -> F::Output
    where
        F: Future + Send,
        F::Output: Send,
    {
        let Some(runtime) = self.runtime.as_ref() else {
            return futures_executor::block_on(work);
        };
        if tokio::runtime::Handle::try_current().is_err() {
            return runtime.block_on(work);
        }
        std::thread::scope(|s| match s.spawn(|| runtime.block_on(work)).join() {
            Ok(value) => value,
            Err(panic) => std::panic::resume_unwind(panic),
        })
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
