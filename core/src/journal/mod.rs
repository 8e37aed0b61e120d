//! Journals: what a running system did, transition by transition, in an order that replays on
//! the core, written as version 3 records ([`Journal::write_record`], [`Exporter`]: lanes and
//! dispatcher together, one line a step), audited in one pass ([`Auditor`]), and cut into
//! version 2 records (all of it, some projects, or a time window) for readers that take no other.
//!
//! With the feature `journal`, [`ProjectLanes::with_journal`](crate::ProjectLanes::with_journal)
//! and [`Dispatcher::with_journal`](crate::dispatch::Dispatcher::with_journal) keep one: every
//! claim, stop request and release (refusals included), or every enqueue, dispatch that handed
//! out a job, finish, persist, cancel and resolve, with its answer, the time from a [`Clock`] you
//! give (the core reads none of its own) and, for the dispatcher, the [`Actor`] you name. Take
//! the entries now and then (`take_journal`), keep them in a [`Journal`], and export what you
//! want to see with [`Journal::write_record`]: a record the viewer shows and proves by replaying it.
//!
//! Other systems (a PostgreSQL journal, say) build [`Entry`] values from what they stored and
//! export them the same way; [`State`] says what the system held before a journal's first entry.
//!
//! Why the lanes' order replays even though they live in 64 independently locked shards is told
//! in the lanes' own journal (`lanes/journal.rs`): each shard logs its operations under its own
//! lock, and operations on different projects commute.

#[cfg(feature = "json")]
mod audit;
mod cut;
mod export;
#[cfg(feature = "json")]
mod exporter;
mod history;
#[cfg(feature = "json")]
mod issued;
mod link;

#[cfg(feature = "journal")]
pub use crate::lanes::journal::{Journaled, Untimed};
pub use crate::lanes::journal::{Journaling, Timekeeping, Unjournaled};
pub use crate::transition::{Actor, Answer, Call, Clock, Entry, LeaseKey};
#[cfg(feature = "json")]
pub use audit::{Audit, AuditMismatch, Auditor};
pub use export::{Export, ExportError};
#[cfg(feature = "json")]
pub use exporter::{Exporter, Out, write_item};
pub use history::{Journal, State};
pub use link::link;
