//! Lanes on PostgreSQL: the core's contract, shared by every session on one schema.

use std::fmt;
use std::sync::Arc;

use project_lanes::backend::{Lanes, LeaseInfo};
use project_lanes::{Label, LaneError, LaneState, LaneView, Outcome, Receipt, validate_label};

use crate::recover::{self, Recovery};
use crate::rows;
use crate::session::Session;
use crate::statements::LaneStatements;
use crate::{PgConfig, PgError};

/// Project lanes kept in PostgreSQL: every `PgLanes` connected to the same schema of the same
/// database shares the same lanes, in this process or any other, on this host or any other.
///
/// The rules are the core's ([`project_lanes::ProjectLanes`]): a claim of a busy project is
/// refused (`PROJECT_BUSY`), a stop request keeps the lane held, only the current lease releases
/// it (`LEASE_NOT_CURRENT` otherwise), receipts say `work_executed_here: false`. Each operation
/// is one statement, one round trip, one transaction, on this handle's own connection (a
/// `Mutex` serializes the threads sharing a handle; open one handle per thread for parallelism).
///
/// Also refused with `PROJECT_BUSY`: a project whose dispatcher result is unresolved (see
/// [`PgDispatcher`](crate::PgDispatcher)), and a lane whose holder died (see [`recover`](Self::recover)).
pub struct PgLanes {
    session: Arc<Session>,
    sql: LaneStatements,
}

/// The proof of holding a lane on PostgreSQL: a random token that never leaves the process except
/// to the database (`Debug` omits it), and the claim's fencing generation.
pub struct PgLease {
    lanes_id: Arc<str>,
    token: String,
    generation: u64,
    project: Label,
    run: Label,
}

impl PgLease {
    /// The project whose lane this lease holds (or held).
    pub fn project(&self) -> &str {
        self.project.as_str()
    }

    /// The run label given at claim.
    pub fn run(&self) -> &str {
        self.run.as_str()
    }

    /// The fencing generation: grows by one with every claim of the project, across every
    /// process. See [`project_lanes::Lease::generation`].
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

impl PgLease {
    /// The generation as the database stores it (it came from there, so it fits).
    fn signed(&self) -> i64 {
        i64::try_from(self.generation).unwrap_or(i64::MAX)
    }
}

impl fmt::Debug for PgLease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgLease")
            .field("project", &self.project())
            .field("run", &self.run())
            .finish_non_exhaustive()
    }
}

impl LeaseInfo for PgLease {
    fn project(&self) -> &str {
        PgLease::project(self)
    }
    fn run(&self) -> &str {
        PgLease::run(self)
    }
    fn generation(&self) -> u64 {
        PgLease::generation(self)
    }
}

impl PgLanes {
    /// Connects to `url` (a libpq connection string or URL, e.g.
    /// `host=/run/postgresql user=app dbname=app` or `postgresql://app@db.example/app`) and uses
    /// the lanes in `schema`, creating or upgrading the schema if needed.
    pub fn connect(url: &str, schema: &str) -> Result<PgLanes, PgError> {
        PgLanes::connect_with(&PgConfig::new(url, schema))
    }

    /// [`connect`](Self::connect) with the settings of `config` (a time limit).
    pub fn connect_with(config: &PgConfig) -> Result<PgLanes, PgError> {
        let session = Arc::new(Session::connect(config)?);
        let sql = LaneStatements::prepare(|text| session.prepare(text))?;
        Ok(PgLanes { session, sql })
    }

    /// Claims `project`'s lane for `run`: labels first, then occupancy, as in the core.
    pub fn claim(&self, project: &str, run: &str) -> Result<PgLease, PgError> {
        let project_label = Label::new(project)?;
        let run_label = Label::new(run)?;
        let s = &self.session;
        let row = self
            .session
            .query_opt(
                &self.sql.claim,
                &[&project, &run, &s.pid, &s.started, &s.key],
            )?
            .ok_or(LaneError::ProjectBusy)?;
        Ok(PgLease {
            lanes_id: Arc::from(s.lanes_id.as_str()),
            token: rows::column(&row, 1, "token")?,
            generation: rows::generation(&row, 0)?,
            project: project_label,
            run: run_label,
        })
    }

    /// Records a stop request; the lane stays held. `LEASE_NOT_CURRENT` if `lease` does not hold it.
    pub fn request_stop(&self, lease: &PgLease) -> Result<LaneView, PgError> {
        self.check_lanes(lease)?;
        self.session
            .query_opt(
                &self.sql.stop,
                &[
                    &lease.project(),
                    &lease.token,
                    &lease.run(),
                    &lease.signed(),
                ],
            )?
            .ok_or(LaneError::LeaseNotCurrent)?;
        Ok(LaneView::held(
            lease.project(),
            lease.run(),
            LaneState::StopRequested,
        ))
    }

    /// Frees the lane held by `lease`, with `outcome`. `LEASE_NOT_CURRENT` if it does not hold it.
    pub fn release(&self, lease: &PgLease, outcome: Outcome) -> Result<Receipt, PgError> {
        self.check_lanes(lease)?;
        let row = self
            .session
            .query_opt(
                &self.sql.release,
                &[
                    &lease.project(),
                    &lease.token,
                    &lease.run(),
                    &lease.signed(),
                    &outcome.as_str(),
                ],
            )?
            .ok_or(LaneError::LeaseNotCurrent)?;
        Ok(Receipt {
            project: lease.project.clone(),
            run: lease.run.clone(),
            outcome,
            stop_requested: rows::column(&row, 0, "stop request")?,
            work_executed_here: false,
        })
    }

    /// A snapshot of `project`'s lane. A project blocked by an unresolved dispatcher result
    /// shows idle, as in the core's dispatcher: its lane has no holder, and the block is the
    /// reservation's (`unresolved`, see [`PgDispatcher`](crate::PgDispatcher)); a claim of it is
    /// refused with `PROJECT_BUSY` all the same.
    pub fn view(&self, project: &str) -> Result<LaneView, PgError> {
        validate_label(project)?;
        let row = self.session.query_opt(&self.sql.view, &[&project])?;
        rows::lane_view(project, row)
    }

    /// Marks what died with its session; see [`Recovery`]. Safe to run at any time, from any
    /// process, as often as wanted: live holders are never touched.
    pub fn recover(&self) -> Result<Recovery, PgError> {
        recover::recover(&self.session)
    }

    /// Lanes marked orphaned by recovery and not yet resolved, by project. A lane whose holder
    /// died is listed once a recovery has marked it; [`status::read`](crate::status::read)
    /// also says which holders are gone and not marked yet.
    pub fn orphans(&self) -> Result<Vec<recover::Orphan>, PgError> {
        recover::orphans(&self.session)
    }

    /// A person has checked what the dead holder of `project`'s orphaned lane left behind: frees
    /// the lane with a `needs_review` receipt. `LEASE_NOT_CURRENT` if the lane is not orphaned.
    pub fn resolve_orphan(&self, project: &str) -> Result<Receipt, PgError> {
        validate_label(project)?;
        recover::resolve_orphan(&self.session, project)
    }

    /// The schema these lanes live in.
    pub fn schema(&self) -> &str {
        &self.session.schema
    }

    fn check_lanes(&self, lease: &PgLease) -> Result<(), LaneError> {
        if *lease.lanes_id == *self.session.lanes_id {
            Ok(())
        } else {
            Err(LaneError::LeaseNotCurrent)
        }
    }
}

impl fmt::Debug for PgLanes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgLanes")
            .field("schema", &self.session.schema)
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
