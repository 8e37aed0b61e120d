//! Queues on PostgreSQL: the dispatcher's rules, between processes, with durable reservations.

use std::fmt;

use project_lanes::backend::Queues;
use project_lanes::dispatch::{
    DispatchError, FinalState, Job, ReservationId, ReservationView, Settled,
};
use project_lanes::{Label, LaneView, Outcome, Receipt, validate_label};

use crate::recover::{self, Recovery};
use crate::rows::{self, label_at, number, refusal, reservation_id_at, reservation_view};
use crate::session::Session;
use crate::statements::{self, QueueStatements};
use crate::{PgConfig, PgError};

/// The dispatcher on PostgreSQL: named queues of durable reservations sharing the lanes of one
/// schema, with the rules of [`project_lanes::dispatch::Dispatcher`], now between processes:
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
/// Reservation ids (`R1`, `R2`, …) come from one sequence per schema. Methods take `&mut self`
/// like the core's; open one `PgDispatcher` per worker thread.
pub struct PgDispatcher {
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

impl PgDispatcher {
    /// Connects to `url`, uses the queues and lanes in `schema` (created or upgraded if needed),
    /// declares `queues` (the same rules as [`Dispatcher::new`](project_lanes::dispatch::Dispatcher::new)),
    /// and runs [`recover`](Self::recover); its report is in [`recovered`](Self::recovered).
    pub fn connect(url: &str, schema: &str, queues: &[&str]) -> Result<PgDispatcher, PgError> {
        PgDispatcher::connect_with(&PgConfig::new(url, schema), queues)
    }

    /// [`connect`](Self::connect) with the settings of `config` (a time limit).
    pub fn connect_with(config: &PgConfig, queues: &[&str]) -> Result<PgDispatcher, PgError> {
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
        let session = Session::connect(config)?;
        let list: Vec<&str> = names.iter().map(Label::as_str).collect();
        session.query(statements::DECLARE_QUEUES, &[&list])?;
        let recovered = recover::recover(&session)?;
        let sql = QueueStatements::prepare(|text| session.prepare(text))?;
        Ok(PgDispatcher {
            session,
            names,
            recovered,
            sql,
        })
    }

    /// What the recovery run by `connect` marked.
    pub fn recovered(&self) -> &Recovery {
        &self.recovered
    }

    /// Marks reservations (and lanes) whose holder's session has ended: see [`Recovery`].
    pub fn recover(&mut self) -> Result<Recovery, PgError> {
        recover::recover(&self.session)
    }

    /// The schema these queues live in.
    pub fn schema(&self) -> &str {
        &self.session.schema
    }

    /// This handle's queue names, in the order given.
    pub fn queues(&self) -> &[Label] {
        &self.names
    }

    /// Adds a reservation to the end of `queue` for `project`.
    pub fn enqueue(
        &mut self,
        queue: &str,
        project: &str,
        run: &str,
    ) -> Result<ReservationId, PgError> {
        self.queue_index(queue)?;
        validate_label(project)?;
        validate_label(run)?;
        let row = self
            .session
            .query_opt(&self.sql.enqueue, &[&queue, &project, &run])?
            .ok_or(DispatchError::UnknownQueue)?;
        reservation_id_at(&row, 0)
    }

    /// Hands out the oldest reservation in `queue` whose project is available, claiming its lane.
    pub fn dispatch(&mut self, queue: &str) -> Result<Option<Job>, PgError> {
        Ok(self.dispatch_with_generation(queue)?.map(|d| d.job))
    }

    /// [`dispatch`](Self::dispatch), with the lane's fencing generation.
    pub fn dispatch_with_generation(&mut self, queue: &str) -> Result<Option<Dispatched>, PgError> {
        self.queue_index(queue)?;
        let s = &self.session;
        let row = s.query_opt(&self.sql.dispatch, &[&queue, &s.pid, &s.started, &s.key])?;
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

    /// The work returned with `outcome`; the lane stays held until [`persisted`](Self::persisted).
    pub fn finish(&mut self, id: ReservationId, outcome: Outcome) -> Result<FinalState, PgError> {
        let row = self
            .session
            .query_one(&self.sql.finish, &[&number(id), &outcome.as_str()])?;
        refusal(&row, 0)?;
        Ok(FinalState {
            reservation: id,
            project: label_at(&row, 1, "project")?,
            run: label_at(&row, 2, "run")?,
            outcome,
        })
    }

    /// Saving the final state completed (`saved`) or failed: releases the lane, exactly once.
    pub fn persisted(&mut self, id: ReservationId, saved: bool) -> Result<Settled, PgError> {
        let row = self
            .session
            .query_one(&self.sql.persisted, &[&number(id), &saved])?;
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
    pub fn cancel(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        let row = self.session.query_one(&self.sql.cancel, &[&number(id)])?;
        refusal(&row, 0)?;
        rows::reservation_view_from(&row, 1)
    }

    /// Clears an unresolved result after a person looked at it; its project becomes available.
    pub fn resolve(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        let row = self.session.query_one(&self.sql.resolve, &[&number(id)])?;
        refusal(&row, 0)?;
        self.reservation(id)
    }

    /// A snapshot of one reservation.
    pub fn reservation(&mut self, id: ReservationId) -> Result<ReservationView, PgError> {
        let row = self
            .session
            .query_opt(&self.sql.reservation, &[&number(id)])?
            .ok_or(DispatchError::UnknownReservation)?;
        reservation_view(&row)
    }

    /// Snapshots of every reservation of the schema, in id order.
    pub fn reservations(&mut self) -> Result<Vec<ReservationView>, PgError> {
        let rows = self.session.query(statements::RESERVATIONS, &[])?;
        rows.iter().map(reservation_view).collect()
    }

    /// How many reservations wait in `queue` (queued, not cancelled), across every process.
    pub fn retained(&mut self, queue: &str) -> Result<usize, PgError> {
        self.queue_index(queue)?;
        let row = self.session.query_one(statements::RETAINED, &[&queue])?;
        let count: i64 = rows::column(&row, 0, "count")?;
        Ok(usize::try_from(count).unwrap_or(0))
    }

    /// A view of `project`'s lane.
    pub fn view(&mut self, project: &str) -> Result<LaneView, PgError> {
        validate_label(project)?;
        let row = self.session.query_opt(&self.sql.view, &[&project])?;
        rows::lane_view(project, row)
    }

    fn queue_index(&self, queue: &str) -> Result<usize, DispatchError> {
        self.names
            .iter()
            .position(|n| n == queue)
            .ok_or(DispatchError::UnknownQueue)
    }
}

impl fmt::Debug for PgDispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgDispatcher")
            .field("schema", &self.session.schema)
            .field("queues", &self.names)
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
