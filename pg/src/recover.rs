//! Crash recovery without silent replay.
//!
//! Every handle holds a session-level advisory lock on a random key for as long as its session
//! lasts, and every lane remembers the key of the session that took it (and its backend pid and
//! start time, for people). When a process dies, its sessions end and their locks go with them.
//! [Recovery](crate::PgLanes::recover) finds lanes whose holder's key nobody holds any more — a
//! question every role may ask, unlike `pg_stat_activity`, which hides other roles' sessions'
//! details — and marks them; it never frees a lane as if the work had finished, and never puts a
//! reservation back in its queue:
//!
//! - a lane held for a reservation (dispatched or persisting): the reservation becomes
//!   `unresolved` with outcome `needs_review` and its project takes no claim or dispatch until a
//!   person [resolves](crate::PgDispatcher::resolve) it, the same rule as a failed save;
//! - a lane held directly by a [`PgLease`](crate::PgLease): it is marked orphaned and stays held
//!   (`PROJECT_BUSY`) until a person [resolves it](crate::PgLanes::resolve_orphan).

use std::time::SystemTime;

use project_lanes::dispatch::ReservationId;
use project_lanes::{Label, LaneError, Outcome, Receipt};

use crate::PgError;
use crate::rows::{self, column, label_at};
use crate::session::Session;
use crate::statements;

/// What one call of `recover` marked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Reservations whose holder died: now `unresolved`, blocking their projects.
    pub reservations: Vec<Marked>,
    /// Lanes held directly whose holder died: now orphaned, still held.
    pub orphans: Vec<Marked>,
}

impl Recovery {
    /// Whether nothing needed marking.
    pub fn is_empty(&self) -> bool {
        self.reservations.is_empty() && self.orphans.is_empty()
    }
}

/// A lane (and, for the dispatcher, its reservation) whose holder's session had ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marked {
    /// The project.
    pub project: Label,
    /// The dead holder's run label.
    pub run: Label,
    /// The dead holder's fencing generation: refuse its writes downstream.
    pub generation: u64,
    /// The reservation it ran, for lanes held by the dispatcher.
    pub reservation: Option<ReservationId>,
}

/// An orphaned lane awaiting a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Orphan {
    /// The project.
    pub project: Label,
    /// The dead holder's run label.
    pub run: Label,
    /// The dead holder's fencing generation.
    pub generation: u64,
    /// When the dead holder's session had started.
    pub session_started: Option<SystemTime>,
}

pub(crate) async fn recover(session: &Session) -> Result<Recovery, PgError> {
    let rows = session.query(statements::RECOVER, &[&session.key]).await?;
    let mut recovery = Recovery::default();
    for row in rows {
        let marked = Marked {
            project: label_at(&row, 0, "project")?,
            run: label_at(&row, 1, "run")?,
            generation: rows::generation(&row, 2)?,
            reservation: column::<Option<i64>>(&row, 3, "reservation id")?
                .map(rows::reservation_id)
                .transpose()?,
        };
        if marked.reservation.is_some() {
            recovery.reservations.push(marked);
        } else {
            recovery.orphans.push(marked);
        }
    }
    Ok(recovery)
}

pub(crate) async fn orphans(session: &Session) -> Result<Vec<Orphan>, PgError> {
    let rows = session.query(statements::ORPHANS, &[]).await?;
    rows.iter().map(orphan).collect()
}

fn orphan(row: &postgres::Row) -> Result<Orphan, PgError> {
    let project = label_at(row, 0, "project")?;
    let run = column::<Option<&str>>(row, 1, "run")?.ok_or_else(|| no_holder(&project))?;
    Ok(Orphan {
        run: rows::label(run)?,
        generation: rows::generation(row, 2)?,
        session_started: column(row, 3, "session start")?,
        project,
    })
}

/// Frees an orphaned lane. The session is shared by a handle's tasks, so no transaction spans
/// two statements: a lane flagged without a holder (a database edited by hand) is refused by a
/// read first, and the change is one statement.
pub(crate) async fn resolve_orphan(session: &Session, project: &Label) -> Result<Receipt, PgError> {
    let flagged = session
        .query_opt(statements::ORPHAN_HOLDER, &[&project.as_str()])
        .await?;
    if let Some(row) = flagged
        && column::<Option<&str>>(&row, 0, "run")?.is_none()
    {
        return Err(no_holder(project));
    }
    let row = session
        .query_opt(statements::RESOLVE_ORPHAN, &[&project.as_str()])
        .await?
        .ok_or(LaneError::LeaseNotCurrent)?;
    let run = column::<Option<&str>>(&row, 0, "run")?.ok_or_else(|| no_holder(project))?;
    Ok(Receipt {
        run: rows::label(run)?,
        outcome: Outcome::NeedsReview,
        stop_requested: column(&row, 1, "stop request")?,
        work_executed_here: false,
        project: project.clone(),
    })
}

pub(crate) fn no_holder(project: &Label) -> PgError {
    PgError::Config(format!(
        "the database holds an orphaned lane of {:?} with no holder; a database constraint \
         forbids that state: was it edited by hand?",
        project.as_str()
    ))
}
