//! The journal as read: [`Stored`], its rows ([`StoredEntry`]), and the core's journal of one
//! kind built from them.

use project_lanes::journal::{Answer, Call, Entry, Journal, State};
use project_lanes::record::Timestamp;
use project_lanes::record::chain::ChainHead;

use super::{JournalError, Kind};

/// The journal as read: where it starts and its rows.
#[derive(Debug, Clone)]
pub struct Stored {
    /// What the system held before the first row (after the pruned ones).
    pub start: State,
    /// The last pruned row's `seq` (0 if never pruned).
    pub start_seq: i64,
    /// Every pruned row is before this time (`None` if never pruned): a window from an earlier
    /// time would miss rows.
    pub pruned_before: Option<Timestamp>,
    /// The dispatcher's queues in this schema, by name.
    pub queues: Vec<project_lanes::Label>,
    /// The rows, in `seq` order.
    pub entries: Vec<StoredEntry>,
}

/// One row of the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// Its place in the order that replays.
    pub seq: i64,
    /// A direct lane operation (else a dispatcher operation).
    pub lanes: bool,
    /// What the library really did, when it is not the entry's operation: `resolve_orphan`,
    /// `recover`.
    pub via: Option<String>,
    /// Its link of the hash chain as sealed: its number and hash (`None`: not sealed yet).
    pub chain: Option<ChainHead>,
    /// The transition, as the core's journals say it.
    pub entry: Entry,
}

impl StoredEntry {
    pub(super) fn kind(&self) -> Kind {
        if self.lanes {
            Kind::Lanes
        } else {
            Kind::Dispatcher
        }
    }

    /// The project this row names, if it names one.
    pub(super) fn project(&self) -> Option<&str> {
        match (&self.entry.call, &self.entry.answer) {
            (Call::Claim { project, .. } | Call::Enqueue { project, .. }, _) => Some(project),
            (Call::RequestStop { lease } | Call::Release { lease, .. }, _) => Some(&lease.project),
            (_, Answer::Reservation(v) | Answer::Dispatched(v) | Answer::Persisting(v)) => {
                Some(&v.project)
            }
            (_, Answer::Settled(s)) => Some(&s.receipt.project),
            _ => None,
        }
    }
}

impl Stored {
    /// A window from `since` misses no row: none was pruned at or after it.
    pub(super) fn check_since(&self, since: Option<Timestamp>) -> Result<(), JournalError> {
        match (since, self.pruned_before) {
            (Some(since), Some(before)) if since < before => {
                Err(JournalError::Pruned { since, before })
            }
            _ => Ok(()),
        }
    }

    /// The entries of `kind`.
    pub(super) fn of(&self, kind: Kind) -> Vec<&StoredEntry> {
        self.entries.iter().filter(|e| e.kind() == kind).collect()
    }

    /// The core's journal of `kind`: its part of the start and its entries.
    pub(super) fn journal(&self, kind: Kind) -> Journal {
        let mut start = State::new();
        let mut journal = match kind {
            Kind::Lanes => {
                for (key, stop) in self.start.leases() {
                    start.hold(key.clone(), stop);
                }
                Journal::lanes()
            }
            Kind::Dispatcher => {
                for view in self.start.reservations() {
                    start.add_reservation(view.clone());
                }
                Journal::dispatcher(&self.queues)
            }
        }
        .starting_from(start);
        journal.extend(self.of(kind).into_iter().map(|e| e.entry.clone()));
        journal
    }
}
