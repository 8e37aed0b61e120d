//! Crash recovery without silent replay.
//!
//! Every handle holds a session-level advisory lock on a random key for as long as its session
//! lasts, and every lane remembers the key of the session that took it (and its backend pid and
//! start time, for people). When a process dies, its sessions end and their locks go with them.
//! [`recover`] finds lanes whose holder's key nobody holds any more — a question every role may
//! ask, unlike `pg_stat_activity`, which hides other roles' sessions' details — and marks them;
//! it never frees a lane as if the work had finished, and never puts a reservation back in its
//! queue:
//!
//! - a lane held for a reservation (dispatched or persisting): the reservation becomes
//!   `unresolved` with outcome `needs_review` and its project takes no claim or dispatch until a
//!   person [resolves](crate::PgDispatcher::resolve) it, the same rule as a failed save;
//! - a lane held directly by a [`PgLease`](crate::PgLease): it is marked orphaned and stays held
//!   (`PROJECT_BUSY`) until a person [resolves it](crate::PgLanes::resolve_orphan).

use std::time::SystemTime;

use project_lanes::dispatch::ReservationId;
use project_lanes::{Label, LaneError, Outcome, Receipt};

use crate::session::{PgError, Session};

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

pub(crate) fn recover(session: &Session) -> Result<Recovery, PgError> {
    let rows = session.client().query(
        "SELECT o_project, o_run, o_generation, o_reservation FROM lanes_recover($1)",
        &[&session.key],
    )?;
    let mut recovery = Recovery::default();
    for row in rows {
        let marked = Marked {
            project: label(row.get(0))?,
            run: label(row.get(1))?,
            generation: row.get::<_, i64>(2) as u64,
            reservation: row
                .get::<_, Option<i64>>(3)
                .map(crate::queues::reservation_id)
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

pub(crate) fn orphans(session: &Session) -> Result<Vec<Orphan>, PgError> {
    let rows = session.client().query(
        "SELECT project, run, orphaned_generation, owner_started FROM lanes
         WHERE orphaned_generation IS NOT NULL ORDER BY project",
        &[],
    )?;
    rows.into_iter()
        .map(|row| {
            Ok(Orphan {
                project: label(row.get(0))?,
                run: label(row.get(1))?,
                generation: row.get::<_, i64>(2) as u64,
                session_started: row.get(3),
            })
        })
        .collect()
}

pub(crate) fn resolve_orphan(session: &Session, project: &str) -> Result<Receipt, PgError> {
    let row = session
        .client()
        .query_opt(
            "UPDATE lanes l SET run = NULL, token = NULL, owner_pid = NULL,
                 owner_started = NULL, owner_key = NULL, orphaned_generation = NULL
             FROM (SELECT project, run FROM lanes
                   WHERE project = $1 AND orphaned_generation IS NOT NULL FOR UPDATE) old
             WHERE l.project = old.project
             RETURNING old.run, l.stop_requested",
            &[&project],
        )?
        .ok_or(LaneError::LeaseNotCurrent)?;
    Ok(Receipt {
        project: label(project)?,
        run: label(row.get(0))?,
        outcome: Outcome::NeedsReview,
        stop_requested: row.get(1),
        work_executed_here: false,
    })
}

/// A label read back from the database (written only after the same check).
pub(crate) fn label(text: &str) -> Result<Label, PgError> {
    Label::new(text).map_err(|_| {
        PgError::Config(format!(
            "the database holds {text:?}, which breaks the label rule"
        ))
    })
}
