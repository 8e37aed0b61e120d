//! Journals: what a running system did, transition by transition, in an order that replays on
//! the core, and exported as version 2 records (all of it, some projects, or a time window).
//!
//! With the feature `journal`, [`ProjectLanes::with_journal`](crate::ProjectLanes::with_journal)
//! and [`Dispatcher::with_journal`](crate::dispatch::Dispatcher::with_journal) keep one: every
//! claim, stop request and release (refusals included), or every enqueue, dispatch that handed
//! out a job, finish, persist, cancel and resolve, with its answer, the time from a [`Clock`] you
//! give (the core reads none of its own) and, for the dispatcher, the [`Actor`] you name. Take
//! the entries now and then (`take_journal`), keep them in a [`Journal`], and export what you
//! want to see with [`Journal::record`]: a record the viewer shows and proves by replaying it.
//!
//! Other systems (a PostgreSQL journal, say) build [`Entry`] values from what they stored and
//! export them the same way; [`State`] says what the system held before a journal's first entry.
//!
//! Why the lanes' order replays even though they live in 64 independently locked shards is told
//! in `lanes_log`: each shard numbers its operations under its own lock, and operations on
//! different projects commute.

mod cut;
mod entry;
mod export;
mod history;
pub(crate) mod lanes_log;
pub(crate) mod shard_log;

pub use entry::{Actor, Answer, Call, Clock, Entry, LeaseKey};
pub use lanes_log::Unjournaled;
#[cfg(feature = "journal")]
pub use lanes_log::{Journaled, Untimed};

/// How a `ProjectLanes` keeps its journal: [`Unjournaled`] (the default: no journal, and no cost
/// at all, since every journal call compiles away) or `Journaled` (feature `journal`, made by
/// `ProjectLanes::with_journal`). Sealed: no other kind exists.
pub trait Journaling: lanes_log::Hook {}

impl Journaling for Unjournaled {}

#[cfg(feature = "journal")]
impl<T: Timekeeping> Journaling for Journaled<T> {}

/// Where the times of a `ProjectLanes` journal come from, chosen in its type (feature
/// `journal`): `Untimed` (no times, and no test for a clock at each operation: the cheapest),
/// an `Arc<dyn Clock>`, or `Option<Arc<dyn Clock>>` (a clock or none, chosen at run time, tested
/// at each operation). Sealed: no other kind exists.
pub trait Timekeeping: lanes_log::Stamp + 'static {}

#[cfg(feature = "journal")]
impl Timekeeping for Untimed {}

#[cfg(feature = "journal")]
impl Timekeeping for std::sync::Arc<dyn Clock> {}

#[cfg(feature = "journal")]
impl Timekeeping for Option<std::sync::Arc<dyn Clock>> {}
pub use export::{Export, ExportError};
pub use history::{Journal, State};
