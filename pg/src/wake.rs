//! Waiting for a lane or a job without polling: the session's `LISTEN` on its schema, woken by
//! the triggers of `pg/migrations/0002_wake.sql` (`free:PROJECT` when a waited-for lane is freed,
//! `queued:QUEUE` when a job joins a waited-for queue), with a poll at least every
//! [`FALLBACK_POLL`], so a lost notification costs latency, never a run.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::broadcast::{self, error::RecvError};
use tokio::time::Instant;

use crate::PgError;
use crate::session::Session;

/// The longest a waiting task goes without looking again.
pub(crate) const FALLBACK_POLL: Duration = Duration::from_secs(1);

/// `patience` from now; a patience too long for the clock (`Duration::MAX`) waits a century.
pub(crate) fn deadline_after(patience: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(patience)
        .or_else(|| now.checked_add(Duration::from_secs(100 * 365 * 24 * 3600)))
        .unwrap_or(now)
}

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Woken {
    /// A notification that may concern the waiter (or some were missed): look again.
    Notified,
    /// The fallback poll: look again.
    Poll,
    /// The deadline passed.
    Deadline,
}

/// What a waiter waits for.
enum Topic {
    /// One project's lane freed.
    Free(String),
    /// A job in one queue, or any lane freed (a queued job may have been waiting for it).
    Queue(String),
}

/// One task's subscription to its session's notifications.
pub(crate) struct Waiter {
    receiver: broadcast::Receiver<Arc<str>>,
    topic: Topic,
}

impl Waiter {
    /// Waits for `project`'s lane to be freed.
    pub(crate) async fn free(session: &Session, project: &str) -> Result<Waiter, PgError> {
        Ok(Waiter {
            receiver: session.listen().await?,
            topic: Topic::Free(project.to_owned()),
        })
    }

    /// Waits for a job in `queue`.
    pub(crate) async fn queue(session: &Session, queue: &str) -> Result<Waiter, PgError> {
        Ok(Waiter {
            receiver: session.listen().await?,
            topic: Topic::Queue(queue.to_owned()),
        })
    }

    fn concerns(&self, payload: &str) -> bool {
        match &self.topic {
            Topic::Free(project) => payload.strip_prefix("free:") == Some(project.as_str()),
            Topic::Queue(queue) => {
                payload.starts_with("free:") || payload.strip_prefix("queued:") == Some(queue)
            }
        }
    }

    /// Until a notification that concerns this waiter, the next fallback poll, or `deadline`.
    pub(crate) async fn wait(&mut self, deadline: Instant) -> Woken {
        let poll = Instant::now() + FALLBACK_POLL;
        let until = poll.min(deadline);
        loop {
            match tokio::time::timeout_at(until, self.receiver.recv()).await {
                Ok(Ok(payload)) if self.concerns(&payload) => return Woken::Notified,
                Ok(Ok(_)) => {}
                Ok(Err(RecvError::Lagged(_))) => return Woken::Notified,
                // The session's end: its next statement says so.
                Ok(Err(RecvError::Closed)) => return Woken::Notified,
                Err(_) if until == deadline => return Woken::Deadline,
                Err(_) => return Woken::Poll,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiter(topic: Topic) -> Waiter {
        let (_, receiver) = broadcast::channel(1);
        Waiter { receiver, topic }
    }

    #[test]
    fn any_patience_gives_a_deadline() {
        let now = Instant::now();
        assert!(deadline_after(Duration::MAX) > now + Duration::from_secs(3600 * 24 * 365));
        assert!(deadline_after(Duration::ZERO) >= now);
    }

    #[test]
    fn a_lane_waiter_wakes_for_its_project_only() {
        let w = waiter(Topic::Free("docs".into()));
        assert!(w.concerns("free:docs"));
        assert!(!w.concerns("free:docs2"));
        assert!(!w.concerns("queued:docs"));
    }

    #[test]
    fn a_queue_waiter_wakes_for_its_queue_and_any_freed_lane() {
        let w = waiter(Topic::Queue("general".into()));
        assert!(w.concerns("queued:general"));
        assert!(w.concerns("free:anything"));
        assert!(!w.concerns("queued:delivery"));
    }
}
