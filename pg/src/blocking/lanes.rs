//! [`PgLanes`]: [`AsyncPgLanes`] for code that blocks.

use std::fmt;
use std::time::Duration;

use project_lanes::backend::Lanes;
use project_lanes::{LaneView, Outcome, Receipt};

use super::Bridge;
use crate::recover::{Orphan, Recovery};
use crate::{AsyncPgLanes, PgConfig, PgError, PgLease};

/// Project lanes kept in PostgreSQL, for code that blocks: [`AsyncPgLanes`] (whose docs say
/// what the lanes promise) with a runtime of its own, so its calls work from plain threads and
/// from inside a tokio runtime alike, never panicking for being called there. In async code,
/// prefer [`AsyncPgLanes`]: a blocking call holds its thread for a round trip.
///
/// A handle is one database session; the threads sharing it have their statements pipelined on
/// its connection.
pub struct PgLanes {
    /// `None` only while dropping.
    lanes: Option<AsyncPgLanes>,
    bridge: Bridge,
}

impl PgLanes {
    /// Connects to `url` (a libpq connection string or URL, e.g.
    /// `host=/run/postgresql user=app dbname=app` or `postgresql://app@db.example/app`) and uses
    /// the lanes in `schema`, creating or upgrading the schema if needed.
    pub fn connect(url: &str, schema: &str) -> Result<PgLanes, PgError> {
        PgLanes::connect_with(&PgConfig::new(url, schema))
    }

    /// [`connect`](Self::connect) with the settings of `config` (a time limit, an actor).
    pub fn connect_with(config: &PgConfig) -> Result<PgLanes, PgError> {
        let bridge = Bridge::new()?;
        let lanes = bridge.block(AsyncPgLanes::connect_with(config))?;
        Ok(PgLanes {
            lanes: Some(lanes),
            bridge,
        })
    }

    fn lanes(&self) -> Result<&AsyncPgLanes, PgError> {
        self.lanes
            .as_ref()
            .ok_or_else(|| PgError::Database("08006".into(), "the connection is closed".into()))
    }

    /// [`AsyncPgLanes::claim`].
    pub fn claim(&self, project: &str, run: &str) -> Result<PgLease, PgError> {
        self.bridge.block(self.lanes()?.claim(project, run))
    }

    /// [`AsyncPgLanes::claim_within`].
    pub fn claim_within(
        &self,
        project: &str,
        run: &str,
        patience: Duration,
    ) -> Result<PgLease, PgError> {
        self.bridge
            .block(self.lanes()?.claim_within(project, run, patience))
    }

    /// [`AsyncPgLanes::request_stop`].
    pub fn request_stop(&self, lease: &PgLease) -> Result<LaneView, PgError> {
        self.bridge.block(self.lanes()?.request_stop(lease))
    }

    /// [`AsyncPgLanes::release`].
    pub fn release(&self, lease: &PgLease, outcome: Outcome) -> Result<Receipt, PgError> {
        self.bridge.block(self.lanes()?.release(lease, outcome))
    }

    /// [`AsyncPgLanes::view`].
    pub fn view(&self, project: &str) -> Result<LaneView, PgError> {
        self.bridge.block(self.lanes()?.view(project))
    }

    /// [`AsyncPgLanes::recover`].
    pub fn recover(&self) -> Result<Recovery, PgError> {
        self.bridge.block(self.lanes()?.recover())
    }

    /// [`AsyncPgLanes::orphans`].
    pub fn orphans(&self) -> Result<Vec<Orphan>, PgError> {
        self.bridge.block(self.lanes()?.orphans())
    }

    /// [`AsyncPgLanes::resolve_orphan`].
    pub fn resolve_orphan(&self, project: &str) -> Result<Receipt, PgError> {
        self.bridge.block(self.lanes()?.resolve_orphan(project))
    }

    /// The schema these lanes live in.
    pub fn schema(&self) -> &str {
        self.lanes.as_ref().map_or("", AsyncPgLanes::schema)
    }
}

impl Drop for PgLanes {
    fn drop(&mut self) {
        if let Some(lanes) = self.lanes.take() {
            let driver = lanes.session().take_driver();
            drop(lanes);
            self.bridge.finish(driver);
        }
    }
}

impl fmt::Debug for PgLanes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgLanes")
            .field("schema", &self.schema())
            .finish_non_exhaustive()
    }
}

impl Lanes for PgLanes {
    type Lease = PgLease;
    type Error = PgError;

    fn claim(&self, project: &str, run: &str) -> Result<PgLease, PgError> {
        PgLanes::claim(self, project, run)
    }
    fn request_stop(&self, lease: &PgLease) -> Result<LaneView, PgError> {
        PgLanes::request_stop(self, lease)
    }
    fn release(&self, lease: &PgLease, outcome: Outcome) -> Result<Receipt, PgError> {
        PgLanes::release(self, lease, outcome)
    }
    fn view(&self, project: &str) -> Result<LaneView, PgError> {
        PgLanes::view(self, project)
    }
}
