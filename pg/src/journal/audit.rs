//! The audit: the journal replayed on the in-memory core in one pass, as it is read, every
//! answer compared; the first row whose answer the core does not give is named.
//!
//! It replays exactly the steps an export of the same rows holds (the core's
//! [`Auditor`](project_lanes::journal::Auditor)), so an audit and `lane-records replay` of an
//! export agree.

use project_lanes::dispatch::{ReservationId, ReservationView};
use project_lanes::journal::{Auditor, ExportError};
use project_lanes::record::Timestamp;

use super::read::{self, Rows};
use super::{JournalError, Mismatch, StoredEntry};
use crate::PgConfig;

/// What an audit found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    /// Transitions replayed.
    pub transitions: u64,
    /// The first transition whose answer the core does not give.
    pub mismatch: Option<Mismatch>,
}

/// Replays the journal of `config`'s schema (from `since` on, starting from the state then) on
/// the in-memory core as it is read, in one consistent snapshot and in the memory its live
/// state takes: the number of transitions, and the first (by `seq`) whose answer the core
/// does not give. A row this crate could not have written is that mismatch; an audit with
/// nothing to check is an error.
pub fn audit(config: &PgConfig, since: Option<Timestamp>) -> Result<Audit, JournalError> {
    crate::blocking::outside_runtime(|| audit_here(config, since))
}

fn audit_here(config: &PgConfig, since: Option<Timestamp>) -> Result<Audit, JournalError> {
    let mut client = read::connect(config)?;
    read::in_snapshot(&mut client, |tx| {
        let head = read::head_in(tx, &config.schema)?;
        super::check_since(&head, since)?;
        let mut audit = Audited {
            auditor: Auditor::new(&head.queues, head.start.clone(), since).forgetting_settled(),
            found: None,
        };
        match read::rows_in(tx, &config.schema, &head, &mut audit) {
            Ok(()) => {}
            // A row no system could have written is the audit's verdict.
            Err(JournalError::Corrupt { seq, message }) => {
                return Ok(Audit {
                    transitions: audit.auditor.transitions(),
                    mismatch: Some(Mismatch {
                        seq,
                        op: String::new(),
                        actor: String::new(),
                        at: None,
                        project: None,
                        journaled: message.clone(),
                        core: String::new(),
                        message,
                    }),
                });
            }
            Err(e) => return Err(e),
        }
        let transitions = audit.auditor.transitions();
        if audit.found.is_none() {
            audit.auditor.finish().map_err(|e| match e {
                ExportError::Nothing => JournalError::Export(ExportError::Nothing),
                e => JournalError::Export(e),
            })?;
        }
        Ok(Audit {
            transitions,
            mismatch: audit.found,
        })
    })
}

/// The rows, through the core's auditor; the first mismatch with its row.
struct Audited {
    auditor: Auditor,
    found: Option<Mismatch>,
}

impl Rows for Audited {
    fn knows(&self, id: ReservationId) -> bool {
        self.auditor.knows(id)
    }

    fn wants(&self, id: ReservationId) -> bool {
        self.auditor.wants(id)
    }

    fn settled(&mut self, view: ReservationView) {
        self.auditor.settled(view);
    }

    fn row(&mut self, row: StoredEntry) -> Result<bool, JournalError> {
        self.auditor
            .entry(&row.entry)
            .map_err(JournalError::Export)?;
        let Some(found) = self.auditor.mismatch() else {
            return Ok(true);
        };
        self.found = Some(Mismatch::at(&row, &found.journaled, &found.core));
        Ok(false)
    }
}
