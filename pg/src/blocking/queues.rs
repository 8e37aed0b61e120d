//! [`PgDispatcher`]: [`AsyncPgDispatcher`] for code that blocks.

use std::fmt;
use std::time::Duration;

use project_lanes::backend::Queues;
use project_lanes::dispatch::{FinalState, Job, ReservationId, ReservationView, Settled};
use project_lanes::{Label, LaneView, Outcome};

use super::Bridge;
use crate::recover::Recovery;
use crate::{AsyncPgDispatcher, Dispatched, PgConfig, PgError};

/// The dispatcher on PostgreSQL, for code that blocks: [`AsyncPgDispatcher`] (whose docs say
/// what the queues promise) with a runtime of its own, so its calls work from plain threads and
/// from inside a tokio runtime alike, never panicking for being called there. Methods take
/// `&mut self` like the core's dispatcher; in async code, prefer [`AsyncPgDispatcher`].
pub struct PgDispatcher {
    /// `None` only while dropping.
    dispatcher: Option<AsyncPgDispatcher>,
    bridge: Bridge,
}

impl PgDispatcher {
    /// [`AsyncPgDispatcher::connect`].
    pub fn connect(url: &str, schema: &str, queues: &[&str]) -> Result<PgDispatcher, PgError> {
        PgDispatcher::connect_with(&PgConfig::new(url, schema), queues)
    }

    /// [`AsyncPgDispatcher::connect_with`].
    pub fn connect_with(config: &PgConfig, queues: &[&str]) -> Result<PgDispatcher, PgError> {
        let bridge = Bridge::new()?;
        let dispatcher = bridge.block(AsyncPgDispatcher::connect_with(config, queues))?;
        Ok(PgDispatcher {
            dispatcher: Some(dispatcher),
            bridge,
        })
    }

    fn d(&self) -> Result<&AsyncPgDispatcher, PgError> {
        self.dispatcher
            .as_ref()
            .ok_or_else(|| PgError::Database("08006".into(), "the connection is closed".into()))
    }

    /// What the recovery run by `connect` marked.
    pub fn recovered(&self) -> &Recovery {
        static NOTHING: Recovery = Recovery {
            reservations: Vec::new(),
            orphans: Vec::new(),
        };
        self.dispatcher
            .as_ref()
            .map_or(&NOTHING, AsyncPgDispatcher::recovered)
    }

    /// [`AsyncPgDispatcher::recover`].
    pub fn recover(&mut self) -> Result<Recovery, PgError> {
        self.bridge.block(self.d()?.recover())
    }

    /// The schema these queues live in.
    pub fn schema(&self) -> &str {
        self.dispatcher
            .as_ref()
            .map_or("", AsyncPgDispatcher::schema)
    }

    /// This handle's queue names, in the order given.
    pub fn queues(&self) -> &[Label] {
        self.dispatcher
            .as_ref()
            .map_or(&[], AsyncPgDispatcher::queues)
    }

    /// [`AsyncPgDispatcher::enqueue`].
    pub fn enqueue(
        &mut self,
        queue: &str,
        project: &str,
        run: &str,
    ) -> Result<ReservationId, PgError> {
        self.bridge.block(self.d()?.enqueue(queue, project, run))
    }

    /// [`AsyncPgDispatcher::dispatch`].
    pub fn dispatch(&mut self, queue: &str) -> Result<Option<Job>, PgError> {
        self.bridge.block(self.d()?.dispatch(queue))
    }

    /// [`AsyncPgDispatcher::dispatch_with_generation`].
    pub fn dispatch_with_generation(&mut self, queue: &str) -> Result<Option<Dispatched>, PgError> {
        self.bridge.block(self.d()?.dispatch_with_generation(queue))
    }

    /// [`AsyncPgDispatcher::dispatch_within`].
    pub fn dispatch_within(
        &mut self,
        queue: &str,
        patience: Duration,
    ) -> Result<Option<Dispatched>, PgError> {
        self.bridge
            .block(self.d()?.dispatch_within(queue, patience))
    }

    /// [`AsyncPgDispatcher::finish`].
    pub fn finish(&mut self, id: ReservationId, outcome: Outcome) -> Result<FinalState, PgError> {
        self.bridge.block(self.d()?.finish(id, outcome))
    }

    /// [`AsyncPgDispatcher::persisted`].
    pub fn persisted(&mut self, id: ReservationId, saved: bool) -> Result<Settled, PgError> {
        self.bridge.block(self.d()?.persisted(id, saved))
    }

    /// [`AsyncPgDispatcher::cancel`].
    pub fn cancel(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        self.bridge.block(self.d()?.cancel(id))
    }

    /// [`AsyncPgDispatcher::resolve`].
    pub fn resolve(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        self.bridge.block(self.d()?.resolve(id))
    }

    /// [`AsyncPgDispatcher::reservation`].
    pub fn reservation(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        self.bridge.block(self.d()?.reservation(id))
    }

    /// [`AsyncPgDispatcher::reservations`].
    pub fn reservations(&mut self) -> Result<Vec<ReservationView>, PgError> {
        self.bridge.block(self.d()?.reservations())
    }

    /// [`AsyncPgDispatcher::retained`].
    pub fn retained(&mut self, queue: &str) -> Result<usize, PgError> {
        self.bridge.block(self.d()?.retained(queue))
    }

    /// [`AsyncPgDispatcher::view`].
    pub fn view(&mut self, project: &str) -> Result<LaneView, PgError> {
        self.bridge.block(self.d()?.view(project))
    }
}

impl Drop for PgDispatcher {
    fn drop(&mut self) {
        if let Some(dispatcher) = self.dispatcher.take() {
            let driver = dispatcher.session().take_driver();
            drop(dispatcher);
            self.bridge.finish(driver);
        }
    }
}

impl fmt::Debug for PgDispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgDispatcher")
            .field("schema", &self.schema())
            .field("queues", &self.queues())
            .finish_non_exhaustive()
    }
}

impl Queues for PgDispatcher {
    type Error = PgError;

    fn enqueue(&mut self, queue: &str, project: &str, run: &str) -> Result<ReservationId, PgError> {
        PgDispatcher::enqueue(self, queue, project, run)
    }
    fn dispatch(&mut self, queue: &str) -> Result<Option<Job>, PgError> {
        PgDispatcher::dispatch(self, queue)
    }
    fn finish(&mut self, id: ReservationId, outcome: Outcome) -> Result<FinalState, PgError> {
        PgDispatcher::finish(self, id, outcome)
    }
    fn persisted(&mut self, id: ReservationId, saved: bool) -> Result<Settled, PgError> {
        PgDispatcher::persisted(self, id, saved)
    }
    fn cancel(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        PgDispatcher::cancel(self, id)
    }
    fn resolve(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        PgDispatcher::resolve(self, id)
    }
    fn reservation(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        PgDispatcher::reservation(self, id)
    }
    fn reservations(&mut self) -> Result<Vec<ReservationView>, PgError> {
        PgDispatcher::reservations(self)
    }
    fn retained(&mut self, queue: &str) -> Result<usize, PgError> {
        PgDispatcher::retained(self, queue)
    }
    fn view(&mut self, project: &str) -> Result<LaneView, PgError> {
        PgDispatcher::view(self, project)
    }
}
