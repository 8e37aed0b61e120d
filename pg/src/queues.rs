//! Queues on PostgreSQL: the dispatcher's rules, between processes, with durable reservations;
//! the async handle, [`AsyncPgDispatcher`].

use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use project_lanes::dispatch::{
    DispatchError, FinalState, Job, ReservationId, ReservationView, Settled,
};
use project_lanes::{Label, LaneView, Outcome, Receipt, validate_label};

use crate::detach::detached;
use crate::recover::{self, Recovery};
use crate::rows::{self, label_at, number, refusal, reservation_id_at, reservation_view};
use crate::session::Session;
use crate::statements::{self, QueueStatements};
use crate::wake::{Waiter, Woken, deadline_after};
use crate::{PgConfig, PgError};

/// The dispatcher on PostgreSQL, for async code on tokio: named queues of durable reservations
/// sharing the lanes of one schema, with the rules of [`project_lanes::dispatch::Dispatcher`],
/// now between processes:
///
/// - per-queue order: dispatches of one queue are serialized by the queue's row lock and take the
///   oldest queued reservation whose project is available, so each queue's items for a project
///   run in the order they were enqueued, whichever process dispatches them;
/// - one reservation per project at a time across every queue and process (the lane's row);
/// - the lane stays held from `dispatch` until `persisted`; a failed save, or a `needs_review`
///   outcome, makes the reservation `unresolved` and blocks the project until `resolve`;
/// - a cancel racing a dispatch of the same reservation: exactly one wins (its row lock);
/// - nothing is replayed: a reservation whose holder died is marked `unresolved` by
///   [`recover`](Self::recover), which `connect` runs.
///
/// Every transition is one call of a database function: one round trip, one transaction.
/// Reservation ids (`R1`, `R2`, …) come from one sequence per schema. A handle is one session,
/// shared by its clones; any number of tasks may call it at once.
///
/// # Cancel safety
///
/// - [`dispatch`](Self::dispatch), [`dispatch_within`](Self::dispatch_within): the dispatch runs
///   to its end in a task of its own; a job that reaches no caller is finished at once with
///   outcome `cancelled` and its lane released (`persisted` with `saved`), both journaled. If
///   that fails, the session is closed and recovery marks the reservation `unresolved`.
/// - [`enqueue`](Self::enqueue): a reservation whose id reaches no caller is cancelled (unless a
///   dispatch took it first, when it runs like any other).
/// - [`finish`](Self::finish), [`persisted`](Self::persisted), [`cancel`](Self::cancel),
///   [`resolve`](Self::resolve): run to their end once called; only the answer is lost.
/// - the reading methods and [`recover`](Self::recover): safe to drop at any point.
#[derive(Clone)]
pub struct AsyncPgDispatcher {
    inner: Arc<Inner>,
}

struct Inner {
    session: Session,
    names: Vec<Label>,
    recovered: Recovery,
    sql: QueueStatements,
}

/// A dispatched job and its lane's fencing generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatched {
    /// What to run.
    pub job: Job,
    /// The generation of the lane's claim for this reservation.
    pub generation: u64,
}

impl AsyncPgDispatcher {
    /// Connects to `url`, uses the queues and lanes in `schema` (created or upgraded if needed),
    /// declares `queues` (the same rules as [`Dispatcher::new`](project_lanes::dispatch::Dispatcher::new)),
    /// and runs [`recover`](Self::recover); its report is in [`recovered`](Self::recovered).
    pub async fn connect(
        url: &str,
        schema: &str,
        queues: &[&str],
    ) -> Result<AsyncPgDispatcher, PgError> {
        AsyncPgDispatcher::connect_with(&PgConfig::new(url, schema), queues).await
    }

    /// [`connect`](Self::connect) with the settings of `config` (a time limit, an actor).
    pub async fn connect_with(
        config: &PgConfig,
        queues: &[&str],
    ) -> Result<AsyncPgDispatcher, PgError> {
        let mut names: Vec<Label> = Vec::with_capacity(queues.len());
        for name in queues {
            let label = Label::new(name)?;
            if names.contains(&label) || names.len() == 64 {
                return Err(DispatchError::UnknownQueue.into());
            }
            names.push(label);
        }
        if names.is_empty() {
            return Err(DispatchError::UnknownQueue.into());
        }
        let session = Session::connect(config).await?;
        let list: Vec<&str> = names.iter().map(Label::as_str).collect();
        session.query(statements::DECLARE_QUEUES, &[&list]).await?;
        let recovered = recover::recover(&session).await?;
        let sql = QueueStatements::prepare(&session).await?;
        Ok(AsyncPgDispatcher {
            inner: Arc::new(Inner {
                session,
                names,
                recovered,
                sql,
            }),
        })
    }

    /// What the recovery run by `connect` marked.
    pub fn recovered(&self) -> &Recovery {
        &self.inner.recovered
    }

    /// Marks reservations (and lanes) whose holder's session has ended: see [`Recovery`].
    pub async fn recover(&self) -> Result<Recovery, PgError> {
        recover::recover(&self.inner.session).await
    }

    /// The schema these queues live in.
    pub fn schema(&self) -> &str {
        &self.inner.session.schema
    }

    /// This handle's queue names, in the order given.
    pub fn queues(&self) -> &[Label] {
        &self.inner.names
    }

    /// Adds a reservation to the end of `queue` for `project`. Cancel safe (see the type's docs).
    pub async fn enqueue(
        &self,
        queue: &str,
        project: &str,
        run: &str,
    ) -> Result<ReservationId, PgError> {
        self.queue_index(queue)?;
        validate_label(project)?;
        validate_label(run)?;
        let this = self.clone();
        let undo = self.clone();
        let (queue, project, run) = (queue.to_owned(), project.to_owned(), run.to_owned());
        detached(
            async move {
                let row = this
                    .inner
                    .session
                    .query_opt(&this.inner.sql.enqueue, &[&queue, &project, &run])
                    .await?
                    .ok_or(DispatchError::UnknownQueue)?;
                reservation_id_at(&row, 0)
            },
            move |id| {
                undo.in_background(move |d| async move {
                    match d.cancel_now(id).await {
                        // Dispatched first: it runs like any other.
                        Err(PgError::Refused(DispatchError::NotQueued)) => Ok(()),
                        other => other.map(drop),
                    }
                })
            },
        )
        .await
    }

    /// Hands out the oldest reservation in `queue` whose project is available, claiming its lane.
    /// Cancel safe (see the type's docs).
    pub async fn dispatch(&self, queue: &str) -> Result<Option<Job>, PgError> {
        Ok(self.dispatch_with_generation(queue).await?.map(|d| d.job))
    }

    /// [`dispatch`](Self::dispatch), with the lane's fencing generation.
    pub async fn dispatch_with_generation(
        &self,
        queue: &str,
    ) -> Result<Option<Dispatched>, PgError> {
        self.queue_index(queue)?;
        let this = self.clone();
        let undo = self.clone();
        let queue = queue.to_owned();
        detached(
            async move { this.dispatch_now(&queue).await },
            move |dispatched: Option<Dispatched>| {
                if let Some(d) = dispatched {
                    let id = d.job.reservation;
                    undo.in_background(move |d| async move {
                        d.finish_now(id, Outcome::Cancelled).await?;
                        d.persisted_now(id, true).await.map(drop)
                    });
                }
            },
        )
        .await
    }

    /// [`dispatch_with_generation`](Self::dispatch_with_generation), waiting up to `patience` for
    /// a job: `None` if there is still none then. Woken when a job joins the queue or a lane is
    /// freed (PostgreSQL's `LISTEN`/`NOTIFY`), and at least once a second in case a notification
    /// is lost. Cancel safe (see the type's docs).
    pub async fn dispatch_within(
        &self,
        queue: &str,
        patience: Duration,
    ) -> Result<Option<Dispatched>, PgError> {
        self.queue_index(queue)?;
        let deadline = deadline_after(patience);
        let mut waiter = Waiter::queue(&self.inner.session, queue).await?;
        loop {
            if let Some(job) = self.dispatch_with_generation(queue).await? {
                return Ok(Some(job));
            }
            self.inner
                .session
                .query(statements::MARK_QUEUE_WAITED, &[&queue])
                .await?;
            // Queued or freed since the dispatch: the marks came too late to wake us.
            if let Some(job) = self.dispatch_with_generation(queue).await? {
                return Ok(Some(job));
            }
            if waiter.wait(deadline).await == Woken::Deadline {
                return self.dispatch_with_generation(queue).await;
            }
        }
    }

    async fn dispatch_now(&self, queue: &str) -> Result<Option<Dispatched>, PgError> {
        let s = &self.inner.session;
        let row = s
            .query_opt(
                &self.inner.sql.dispatch,
                &[&queue, &s.pid, &s.started, &s.key],
            )
            .await?;
        let Some(row) = row else { return Ok(None) };
        Ok(Some(Dispatched {
            job: Job {
                reservation: reservation_id_at(&row, 0)?,
                project: label_at(&row, 1, "project")?,
                run: label_at(&row, 2, "run")?,
            },
            generation: rows::generation(&row, 3)?,
        }))
    }

    /// Runs `work` in a task of its own; if it fails, closes the session, so recovery marks what
    /// it held.
    fn in_background<F>(&self, work: impl FnOnce(AsyncPgDispatcher) -> F)
    where
        F: Future<Output = Result<(), PgError>> + Send + 'static,
    {
        let this = self.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            this.inner.session.give_up();
            return;
        };
        let work = work(this.clone());
        runtime.spawn(async move {
            if work.await.is_err() {
                this.inner.session.give_up();
            }
        });
    }

    /// The work returned with `outcome`; the lane stays held until [`persisted`](Self::persisted).
    /// Runs to its end once called.
    pub async fn finish(&self, id: ReservationId, outcome: Outcome) -> Result<FinalState, PgError> {
        let this = self.clone();
        detached(async move { this.finish_now(id, outcome).await }, drop).await
    }

    async fn finish_now(&self, id: ReservationId, outcome: Outcome) -> Result<FinalState, PgError> {
        let row = self
            .inner
            .session
            .query_one(&self.inner.sql.finish, &[&number(id), &outcome.as_str()])
            .await?;
        refusal(&row, 0)?;
        Ok(FinalState {
            reservation: id,
            project: label_at(&row, 1, "project")?,
            run: label_at(&row, 2, "run")?,
            outcome,
        })
    }

    /// Saving the final state completed (`saved`) or failed: releases the lane, exactly once.
    /// Runs to its end once called.
    pub async fn persisted(&self, id: ReservationId, saved: bool) -> Result<Settled, PgError> {
        let this = self.clone();
        detached(async move { this.persisted_now(id, saved).await }, drop).await
    }

    async fn persisted_now(&self, id: ReservationId, saved: bool) -> Result<Settled, PgError> {
        let row = self
            .inner
            .session
            .query_one(&self.inner.sql.persisted, &[&number(id), &saved])
            .await?;
        refusal(&row, 0)?;
        Ok(Settled {
            reservation: id,
            state: rows::state(&row, 1)?,
            receipt: Receipt {
                project: label_at(&row, 2, "project")?,
                run: label_at(&row, 3, "run")?,
                outcome: rows::outcome(rows::column(&row, 4, "outcome")?)?,
                stop_requested: rows::column(&row, 5, "stop request")?,
                work_executed_here: false,
            },
        })
    }

    /// Cancels a queued reservation; `NOT_QUEUED` if a dispatch (or another cancel) came first.
    /// Runs to its end once called.
    pub async fn cancel(&self, id: ReservationId) -> Result<ReservationView, PgError> {
        let this = self.clone();
        detached(async move { this.cancel_now(id).await }, drop).await
    }

    async fn cancel_now(&self, id: ReservationId) -> Result<ReservationView, PgError> {
        let row = self
            .inner
            .session
            .query_one(&self.inner.sql.cancel, &[&number(id)])
            .await?;
        refusal(&row, 0)?;
        rows::reservation_view_from(&row, 1)
    }

    /// Clears an unresolved result after a person looked at it; its project becomes available.
    /// Runs to its end once called.
    pub async fn resolve(&self, id: ReservationId) -> Result<ReservationView, PgError> {
        let this = self.clone();
        detached(
            async move {
                let row = this
                    .inner
                    .session
                    .query_one(&this.inner.sql.resolve, &[&number(id)])
                    .await?;
                refusal(&row, 0)?;
                this.reservation(id).await
            },
            drop,
        )
        .await
    }

    /// A snapshot of one reservation.
    pub async fn reservation(&self, id: ReservationId) -> Result<ReservationView, PgError> {
        let row = self
            .inner
            .session
            .query_opt(&self.inner.sql.reservation, &[&number(id)])
            .await?
            .ok_or(DispatchError::UnknownReservation)?;
        reservation_view(&row)
    }

    /// Snapshots of every reservation of the schema, in id order.
    pub async fn reservations(&self) -> Result<Vec<ReservationView>, PgError> {
        let rows = self
            .inner
            .session
            .query(statements::RESERVATIONS, &[])
            .await?;
        rows.iter().map(reservation_view).collect()
    }

    /// How many reservations wait in `queue` (queued, not cancelled), across every process.
    pub async fn retained(&self, queue: &str) -> Result<usize, PgError> {
        self.queue_index(queue)?;
        let row = self
            .inner
            .session
            .query_one(statements::RETAINED, &[&queue])
            .await?;
        let count: i64 = rows::column(&row, 0, "count")?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// A view of `project`'s lane.
    pub async fn view(&self, project: &str) -> Result<LaneView, PgError> {
        validate_label(project)?;
        let row = self
            .inner
            .session
            .query_opt(&self.inner.sql.view, &[&project])
            .await?;
        rows::lane_view(project, row)
    }

    /// The session, for the blocking handle's goodbye.
    pub(crate) fn session(&self) -> &Session {
        &self.inner.session
    }

    fn queue_index(&self, queue: &str) -> Result<usize, DispatchError> {
        self.inner
            .names
            .iter()
            .position(|n| n == queue)
            .ok_or(DispatchError::UnknownQueue)
    }
}

impl fmt::Debug for AsyncPgDispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AsyncPgDispatcher")
            .field("schema", &self.inner.session.schema)
            .field("queues", &self.inner.names)
            .finish_non_exhaustive()
    }
}
