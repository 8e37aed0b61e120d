//! The audit: the journal replayed on the in-memory core in one pass, as it is read, every
//! answer compared; the first row whose answer the core does not give is named.
//!
//! It also recomputes the hash chain over the sealed rows ([`Chain`]) and names the first row
//! that breaks it; given a checkpoint's link and root, it says whether the journal still
//! extends it ([`Proof`]).
//!
//! It replays exactly the steps an export of the same rows holds (the core's
//! [`Auditor`](project_lanes::journal::Auditor)), so an audit and `lane-records replay` of an
//! export agree.

use project_lanes::dispatch::{ReservationId, ReservationView};
use project_lanes::journal::{Auditor, ExportError};
use project_lanes::record::Timestamp;

use project_lanes::record::chain::ChainHead;

use super::chain::{Chain, Checking};
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
    /// The hash chain over the whole journal (whatever `since`), or `None` if the schema
    /// predates the chain (version 2 or older, not yet upgraded by a handle).
    pub chain: Option<Chain>,
    /// The journal's identity (`lanes_identity`): what a checkpoint names.
    pub identity: String,
}

/// Replays the journal of `config`'s schema (from `since` on, starting from the state then) on
/// the in-memory core as it is read, in one consistent snapshot and in the memory its live
/// state takes: the number of transitions, and the first (by `seq`) whose answer the core
/// does not give. A row this crate could not have written is that mismatch; an audit with
/// nothing to check is an error.
pub fn audit(config: &PgConfig, since: Option<Timestamp>) -> Result<Audit, JournalError> {
    audit_against(config, since, None)
}

/// [`audit`], and whether the journal extends a checkpoint's `links` and `root`
/// ([`Chain::checkpoint`]).
pub fn audit_against(
    config: &PgConfig,
    since: Option<Timestamp>,
    checkpoint: Option<ChainHead>,
) -> Result<Audit, JournalError> {
    crate::blocking::outside_runtime(|| audit_here(config, since, checkpoint))
}

fn audit_here(
    config: &PgConfig,
    since: Option<Timestamp>,
    checkpoint: Option<ChainHead>,
) -> Result<Audit, JournalError> {
    let mut client = read::connect(config)?;
    read::in_snapshot(&mut client, |tx| {
        let identity: String = tx
            .query_one(
                &format!("SELECT id FROM {}.lanes_identity", config.schema),
                &[],
            )
            .and_then(|row| row.try_get(0))
            .map_err(crate::PgError::from)?;
        let head = read::head_in(tx, &config.schema)?;
        super::check_since(&head, since)?;
        let mut checking = head.chain.map(|start| Checking::new(start, checkpoint));
        if let Some(checking) = &mut checking {
            checking.start_seq(head.start_seq);
        }
        let mut audit = Audited {
            auditor: Auditor::new(&head.queues, head.start.clone(), since).forgetting_settled(),
            found: None,
            checking,
        };
        match read::rows_in(tx, &config.schema, &head, &mut audit) {
            Ok(()) => {}
            // A row no system could have written is the audit's verdict.
            Err(JournalError::Corrupt { seq, message }) => {
                let mismatch = audit.found.take().unwrap_or_else(|| Mismatch {
                    seq,
                    op: String::new(),
                    actor: String::new(),
                    at: None,
                    project: None,
                    journaled: message.clone(),
                    core: String::new(),
                    message,
                });
                return Ok(Audit {
                    chain: audit.checking.map(|c| c.finish(true)),
                    identity,
                    transitions: audit.auditor.transitions(),
                    mismatch: Some(mismatch),
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
            chain: audit.checking.map(|c| c.finish(false)),
            identity,
        })
    })
}

/// The rows, through the core's auditor and the chain's check; the first mismatch with its
/// row. After a mismatch the rows are read on for the chain alone.
struct Audited {
    auditor: Auditor,
    found: Option<Mismatch>,
    checking: Option<Checking>,
}

impl Rows for Audited {
    // After a mismatch nothing is replayed: every reservation passes, none is wanted.
    fn knows(&self, id: ReservationId) -> bool {
        self.found.is_some() || self.auditor.knows(id)
    }

    fn wants(&self, id: ReservationId) -> bool {
        self.found.is_none() && self.auditor.wants(id)
    }

    fn settled(&mut self, view: ReservationView) {
        self.auditor.settled(view);
    }

    fn row(&mut self, row: StoredEntry) -> Result<bool, JournalError> {
        if let Some(checking) = &mut self.checking {
            checking.row(&row);
        }
        if self.found.is_some() {
            return Ok(true);
        }
        self.auditor
            .entry(&row.entry)
            .map_err(JournalError::Export)?;
        let Some(found) = self.auditor.mismatch() else {
            return Ok(true);
        };
        self.found = Some(Mismatch::at(&row, &found.journaled, &found.core));
        Ok(self.checking.is_some())
    }
}
