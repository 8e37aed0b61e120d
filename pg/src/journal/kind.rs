//! Which of the journal's operations a record shows: [`Kind`], and the kind a cut shows when
//! none is asked for.

use super::{Cut, JournalError, Stored, StoredEntry};

/// Which of the journal's operations a record shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Direct lane operations: claim, request_stop, release (and resolve_orphan).
    Lanes,
    /// Dispatcher operations: enqueue, dispatch, finish, persist, cancel, resolve (and recovery).
    Dispatcher,
}

impl Kind {
    /// `lanes` or `dispatcher`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Lanes => "lanes",
            Kind::Dispatcher => "dispatcher",
        }
    }
}

impl Stored {
    /// The kind `cut` shows: the one asked for, or the only one among the rows it covers.
    pub(super) fn kind_for(&self, cut: &Cut) -> Result<Kind, JournalError> {
        if let Some(kind) = cut.kind {
            return Ok(kind);
        }
        let covered = |e: &&StoredEntry| {
            let at = e.entry.at;
            cut.since.is_none_or(|s| at.is_some_and(|t| t >= s))
                && cut.until.is_none_or(|u| at.is_some_and(|t| t < u))
                && (cut.projects.is_empty()
                    || e.project()
                        .is_some_and(|p| cut.projects.iter().any(|q| q == p)))
        };
        let lanes = self
            .entries
            .iter()
            .filter(covered)
            .filter(|e| e.lanes)
            .count();
        let dispatcher = self
            .entries
            .iter()
            .filter(covered)
            .filter(|e| !e.lanes)
            .count();
        match (lanes, dispatcher) {
            (0, 0)
                if self.start.leases().next().is_none()
                    && self.start.reservations().next().is_some() =>
            {
                Ok(Kind::Dispatcher)
            }
            (_, 0) => Ok(Kind::Lanes),
            (0, _) => Ok(Kind::Dispatcher),
            (lanes, dispatcher) => Err(JournalError::MixedKinds { lanes, dispatcher }),
        }
    }
}
