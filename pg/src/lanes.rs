//! Lanes on PostgreSQL: the core's contract, shared by every session on one schema; the async
//! handle, [`AsyncPgLanes`], and the lease it gives, [`PgLease`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use project_lanes::backend::LeaseInfo;
use project_lanes::{Label, LaneError, LaneState, LaneView, Outcome, Receipt, validate_label};

use crate::detach::detached;
use crate::recover::{self, Recovery};
use crate::rows;
use crate::session::Session;
use crate::statements::{self, LaneStatements};
use crate::wake::{Waiter, Woken, deadline_after};
use crate::{PgConfig, PgError};

/// Project lanes kept in PostgreSQL, for async code on tokio: every handle connected to the
/// same schema of the same database shares the same lanes, in this process or any other, on
/// this host or any other.
///
/// The rules are the core's ([`project_lanes::ProjectLanes`]): a claim of a busy project is
/// refused (`PROJECT_BUSY`), a stop request keeps the lane held, only the current lease releases
/// it (`LEASE_NOT_CURRENT` otherwise), receipts say `work_executed_here: false`. Each operation
/// is one statement, one round trip, one transaction.
///
/// A handle is one database session, shared by its clones: any number of tasks may call it at
/// once, and their statements are pipelined on the one connection. Every lane it takes is
/// recorded as held by that session, so when the session ends with the process, recovery
/// marks what it held.
///
/// # Cancel safety
///
/// Every method may be dropped at any `.await` (in a `tokio::select!`, under a request timeout)
/// without leaving a lane held with no lease in anyone's hands:
///
/// - [`claim`](Self::claim) and [`claim_within`](Self::claim_within): the claim runs to its end in
///   a task of its own; a lease that reaches no caller is released at once with outcome
///   `cancelled` (journaled as such). If that release fails, the session is closed, and recovery
///   marks the lane for a person, as for a process that died.
/// - [`request_stop`](Self::request_stop), [`release`](Self::release) and
///   [`resolve_orphan`](Self::resolve_orphan) run to their end once called, even if their future is
///   dropped; only their answer is lost.
/// - [`view`](Self::view), [`recover`](Self::recover), [`orphans`](Self::orphans): reading (or, for
///   recovery, idempotent marking), safe to drop at any point.
///
/// ```no_run
/// use project_lanes::Outcome;
/// use project_lanes_pg::AsyncPgLanes;
///
/// # async fn run() -> Result<(), project_lanes_pg::PgError> {
/// let lanes = AsyncPgLanes::connect("host=/run/postgresql user=app dbname=app", "lanes").await?;
/// let lease = lanes.claim("docs", "nightly-7").await?;
/// // Every other task and process on this database now gets PROJECT_BUSY for docs.
/// lanes.release(&lease, Outcome::Succeeded).await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct AsyncPgLanes {
    inner: Arc<Inner>,
}

struct Inner {
    session: Session,
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

impl AsyncPgLanes {
    /// Connects to `url` (a libpq connection string or URL, e.g.
    /// `host=/run/postgresql user=app dbname=app` or `postgresql://app@db.example/app`) and uses
    /// the lanes in `schema`, creating or upgrading the schema if needed. The connection is
    /// driven by a task on the current tokio runtime (`CONFIG` if there is none).
    pub async fn connect(url: &str, schema: &str) -> Result<AsyncPgLanes, PgError> {
        AsyncPgLanes::connect_with(&PgConfig::new(url, schema)).await
    }

    /// [`connect`](Self::connect) with the settings of `config` (a time limit, an actor).
    pub async fn connect_with(config: &PgConfig) -> Result<AsyncPgLanes, PgError> {
        let session = Session::connect(config).await?;
        let sql = LaneStatements::prepare(&session).await?;
        Ok(AsyncPgLanes {
            inner: Arc::new(Inner { session, sql }),
        })
    }

    /// Claims `project`'s lane for `run`: labels first, then occupancy, as in the core.
    /// `PROJECT_BUSY` at once if the lane is held; see [`claim_within`](Self::claim_within) to
    /// wait for it. Cancel safe (see the type's docs).
    pub async fn claim(&self, project: &str, run: &str) -> Result<PgLease, PgError> {
        let project = Label::new(project)?;
        let run = Label::new(run)?;
        let lanes = self.clone();
        let undo = self.clone();
        detached(
            async move { lanes.claim_now(project, run).await },
            move |lease| undo.give_back(lease),
        )
        .await
    }

    /// Claims `project`'s lane for `run`, waiting up to `patience` for it to be free:
    /// `PROJECT_BUSY` if it is still held then. Woken by the release (PostgreSQL's
    /// `LISTEN`/`NOTIFY`), and at least once a second in case a notification is lost.
    /// Cancel safe (see the type's docs).
    pub async fn claim_within(
        &self,
        project: &str,
        run: &str,
        patience: Duration,
    ) -> Result<PgLease, PgError> {
        let deadline = deadline_after(patience);
        Label::new(project)?;
        Label::new(run)?;
        let mut waiter = Waiter::free(&self.inner.session, project).await?;
        loop {
            match self.claim(project, run).await {
                Err(PgError::Refused(e)) if e.code() == "PROJECT_BUSY" => {}
                answered => return answered,
            }
            let marked = self
                .inner
                .session
                .query_opt(statements::MARK_WAITED, &[&project])
                .await?;
            // Freed since the claim: try again at once.
            if marked.is_none() {
                continue;
            }
            if waiter.wait(deadline).await == Woken::Deadline {
                return self.claim(project, run).await;
            }
        }
    }

    async fn claim_now(&self, project: Label, run: Label) -> Result<PgLease, PgError> {
        let s = &self.inner.session;
        let row = s
            .query_opt(
                &self.inner.sql.claim,
                &[&project.as_str(), &run.as_str(), &s.pid, &s.started, &s.key],
            )
            .await?
            .ok_or(LaneError::ProjectBusy)?;
        Ok(PgLease {
            lanes_id: s.lanes_id.clone(),
            token: rows::column(&row, 1, "token")?,
            generation: rows::generation(&row, 0)?,
            project,
            run,
        })
    }

    /// Releases a lease nobody received, with outcome `cancelled`; if that fails, closes the
    /// session so recovery marks the lane.
    fn give_back(&self, lease: PgLease) {
        let lanes = self.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            lanes.inner.session.give_up();
            return;
        };
        runtime.spawn(async move {
            if lanes.release_now(&lease, Outcome::Cancelled).await.is_err() {
                lanes.inner.session.give_up();
            }
        });
    }

    /// Records a stop request; the lane stays held. `LEASE_NOT_CURRENT` if `lease` does not hold
    /// it. Runs to its end once called.
    pub async fn request_stop(&self, lease: &PgLease) -> Result<LaneView, PgError> {
        self.check_lanes(lease)?;
        let lanes = self.clone();
        let (project, token, run, generation) = owned(lease);
        detached(
            async move {
                let s = &lanes.inner.session;
                s.query_opt(
                    &lanes.inner.sql.stop,
                    &[&project.as_str(), &token, &run.as_str(), &generation],
                )
                .await?
                .ok_or(LaneError::LeaseNotCurrent)?;
                Ok(LaneView::held(
                    project.as_str(),
                    run.as_str(),
                    LaneState::StopRequested,
                ))
            },
            drop,
        )
        .await
    }

    /// Frees the lane held by `lease`, with `outcome`. `LEASE_NOT_CURRENT` if it does not hold it.
    /// Runs to its end once called.
    pub async fn release(&self, lease: &PgLease, outcome: Outcome) -> Result<Receipt, PgError> {
        self.check_lanes(lease)?;
        let lanes = self.clone();
        let lease = PgLease {
            lanes_id: lease.lanes_id.clone(),
            token: lease.token.clone(),
            generation: lease.generation,
            project: lease.project.clone(),
            run: lease.run.clone(),
        };
        detached(
            async move { lanes.release_now(&lease, outcome).await },
            drop,
        )
        .await
    }

    async fn release_now(&self, lease: &PgLease, outcome: Outcome) -> Result<Receipt, PgError> {
        let row = self
            .inner
            .session
            .query_opt(
                &self.inner.sql.release,
                &[
                    &lease.project(),
                    &lease.token,
                    &lease.run(),
                    &lease.signed(),
                    &outcome.as_str(),
                ],
            )
            .await?
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
    pub async fn view(&self, project: &str) -> Result<LaneView, PgError> {
        validate_label(project)?;
        let row = self
            .inner
            .session
            .query_opt(&self.inner.sql.view, &[&project])
            .await?;
        rows::lane_view(project, row)
    }

    /// Marks what died with its session; see [`Recovery`]. Safe to run at any time, from any
    /// process, as often as wanted: live holders are never touched.
    pub async fn recover(&self) -> Result<Recovery, PgError> {
        recover::recover(&self.inner.session).await
    }

    /// Lanes marked orphaned by recovery and not yet resolved, by project. A lane whose holder
    /// died is listed once a recovery has marked it; [`status::read`](crate::status::read)
    /// also says which holders are gone and not marked yet.
    pub async fn orphans(&self) -> Result<Vec<recover::Orphan>, PgError> {
        recover::orphans(&self.inner.session).await
    }

    /// A person has checked what the dead holder of `project`'s orphaned lane left behind: frees
    /// the lane with a `needs_review` receipt. `LEASE_NOT_CURRENT` if the lane is not orphaned.
    /// Runs to its end once called.
    pub async fn resolve_orphan(&self, project: &str) -> Result<Receipt, PgError> {
        let project = Label::new(project)?;
        let lanes = self.clone();
        detached(
            async move { recover::resolve_orphan(&lanes.inner.session, &project).await },
            drop,
        )
        .await
    }

    /// The schema these lanes live in.
    pub fn schema(&self) -> &str {
        &self.inner.session.schema
    }

    /// The session, for the blocking handle's goodbye.
    pub(crate) fn session(&self) -> &Session {
        &self.inner.session
    }

    fn check_lanes(&self, lease: &PgLease) -> Result<(), LaneError> {
        if *lease.lanes_id == *self.inner.session.lanes_id {
            Ok(())
        } else {
            Err(LaneError::LeaseNotCurrent)
        }
    }
}

/// A lease's fields as the statements take them, owned, for a task of their own.
fn owned(lease: &PgLease) -> (Label, String, Label, i64) {
    (
        lease.project.clone(),
        lease.token.clone(),
        lease.run.clone(),
        lease.signed(),
    )
}

impl fmt::Debug for AsyncPgLanes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncPgLanes")
            .field("schema", &self.inner.session.schema)
            .finish_non_exhaustive()
    }
}
