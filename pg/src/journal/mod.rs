//! The schema's journal: every transition, written by the transition's own statement (so it can
//! never disagree with the state), read back as the core's
//! [`Entry`](project_lanes::journal::Entry) values, exported as version 2 records, audited by
//! replaying it on the in-memory core, and pruned.
//!
//! ```no_run
//! use project_lanes_pg::PgConfig;
//! use project_lanes_pg::journal;
//!
//! let config = PgConfig::new("host=/run/postgresql user=app dbname=app", "lanes");
//! let stored = journal::read(&config)?;
//! let audit = stored.audit(None)?;
//! println!("{} transitions, first mismatch: {:?}", audit.transitions, audit.mismatch);
//! let (_kind, record) = stored.export(&journal::Cut::new("tonight", "build farm"))?;
//! println!("{} steps", record.steps.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **The order that replays** is the rows' `seq`. Lane operations draw it while they hold their
//! lane row (refused claims too), and operations on different projects commute. A dispatch (and
//! recovery) takes one lock per schema first, alone, and persist and resolve take it shared, so
//! no lane is freed or unblocked while a dispatch chooses: the timing the core does not model is
//! removed, not recorded. An enqueue is ordered by its queue's row, a finish or cancel by its
//! reservation's row.
//!
//! **What is not a core operation** is journaled as the core operations with the same effect,
//! with `via` saying what really happened: `resolve_orphan` as a release of the dead holder's
//! lease with `needs_review`; recovery of a reservation as a finish with `needs_review` (if it
//! was dispatched) and a persist that was not saved. An orphan flag changes nothing the core
//! shows (the lane stays held by the same lease) and is not journaled. Calls refused before they
//! reach the database (a label that breaks the rule, a lease of another schema, a queue the
//! handle does not know) are not transitions of the database and are not journaled either.
//!
//! **A record shows lanes or a dispatcher**, not both: the journal's lane operations and its
//! dispatcher operations export as two records ([`Kind`]). A project used both directly and by
//! the dispatcher cannot be shown by either alone (a claim refused because a reservation holds
//! the lane does not replay on lanes alone): keep such projects apart, or read their audit's
//! mismatch in that light.

mod audit;
mod error;
mod export;
mod kind;
mod mismatch;
mod prune;
pub(crate) mod read;
mod start;
mod stored;

use project_lanes::record::Timestamp;

use crate::{PgConfig, PgError};

pub use audit::Audit;
pub use error::JournalError;
pub use export::Cut;
pub use kind::Kind;
pub use mismatch::Mismatch;
pub use prune::Pruned;
pub use stored::{Stored, StoredEntry};

/// Whether `config`'s schema holds lanes, on a plain connection (no migration, nothing
/// written): the operator's commands ask before connecting a handle, which would create a
/// misspelled schema.
pub fn check_schema(config: &PgConfig) -> Result<(), JournalError> {
    let mut client = read::connect_plain(config)?;
    read::check_exists(&mut client, &config.schema)
}

/// The queues `config`'s schema knows, by name, on a plain connection after [`check_schema`]:
/// the operator's `resolve` declares one of them, never a new one.
pub fn known_queues(config: &PgConfig) -> Result<Vec<String>, JournalError> {
    let mut client = read::connect_plain(config)?;
    read::check_exists(&mut client, &config.schema)?;
    let rows = client
        .query(
            &format!("SELECT name FROM {}.queues ORDER BY name", config.schema),
            &[],
        )
        .map_err(PgError::from)?;
    rows.iter()
        .map(|row| row.try_get(0).map_err(|e| PgError::from(e).into()))
        .collect()
}

/// Reads the journal of `config`'s schema: a plain connection (no migration, nothing written),
/// one consistent snapshot.
pub fn read(config: &PgConfig) -> Result<Stored, JournalError> {
    let mut client = read::connect(config)?;
    read::read(&mut client, &config.schema)
}

/// Removes the journal's rows before `before`, keeping the state after them as its start, so a
/// later export or audit starts from it. Needs `DELETE` on the journal: the schema's owner. A
/// `before` after the server's clock is refused ([`JournalError::AfterNow`]) and removes
/// nothing: it is a mistyped time, and would empty the journal.
pub fn prune(config: &PgConfig, before: Timestamp) -> Result<Pruned, JournalError> {
    let mut client = read::connect(config)?;
    prune::prune(&mut client, &config.schema, before, false)
}

/// What [`prune`] would remove now, removing nothing: a read-only snapshot (no `DELETE`
/// needed, nobody waits), refused as `prune` refuses. Transitions written meanwhile may make
/// the prune itself remove more.
pub fn would_prune(config: &PgConfig, before: Timestamp) -> Result<Pruned, JournalError> {
    let mut client = read::connect(config)?;
    prune::prune(&mut client, &config.schema, before, true)
}
