//! The schema's journal: every transition, written by the transition's own statement (so it can
//! never disagree with the state), read back as the core's
//! [`Entry`](project_lanes::journal::Entry) values a batch at a time, exported as one version 3
//! record ([`export`]) or as version 2 records of one kind ([`read`], [`Stored::export`]),
//! audited by replaying it on the in-memory core in one pass ([`audit`]), sealed into a hash
//! chain ([`seal`]), and pruned.
//!
//! ```no_run
//! use project_lanes_pg::PgConfig;
//! use project_lanes_pg::journal;
//!
//! let config = PgConfig::new("host=/run/postgresql user=app dbname=app", "lanes");
//! let audit = journal::audit(&config, None)?;
//! println!("{} transitions, first mismatch: {:?}", audit.transitions, audit.mismatch);
//! let file = std::fs::File::create("tonight.jsonl")?;
//! let exported = journal::export(&config, &journal::Cut::new("tonight", "build farm"), file)?;
//! println!("{} steps", exported.steps);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **The order that replays** is the rows' `seq`. Lane operations draw it while they hold their
//! lane row (refused claims too), and operations on different projects commute. A dispatch (and
//! recovery) takes one lock per schema first, alone, and persist and resolve take it shared, so
//! no lane is freed or unblocked while a dispatch chooses: the timing the core does not model is
//! removed, not recorded. An enqueue is ordered by its queue's row, a finish or cancel by its
//! reservation's row. Direct claims and the dispatcher's share the lane rows, as they share the
//! core's lanes when it replays them: one record holds both.
//!
//! **What is not a core operation** is journaled as the core operations with the same effect,
//! with `via` saying what really happened: `resolve_orphan` as a release of the dead holder's
//! lease with `needs_review`; recovery of a reservation as a finish with `needs_review` (if it
//! was dispatched) and a persist that was not saved. An orphan flag changes nothing the core
//! shows (the lane stays held by the same lease) and is not journaled. Calls refused before they
//! reach the database (a label that breaks the rule, a lease of another schema, a queue the
//! handle does not know) are not transitions of the database and are not journaled either.
//!
//! **Memory**: an export or an audit holds one batch of rows at a time and what is live: the
//! leases holding lanes and the reservations not settled for good. A settled reservation is
//! forgotten, and read back from the `reservations` table (where it never changes again) if a
//! later row names it before the record did; the record's handle and id of each lease and
//! reservation it named stay, a few numbers each, since a later row may name any of them. An
//! audit's core forgets the settled reservations enqueued before the oldest live one. A
//! version 2 export reads every row first, and its record is bounded by version 2's limits.

mod audit;
mod chain;
mod error;
mod export;
mod kind;
mod mismatch;
mod prune;
pub(crate) mod read;
mod seal;
mod start;
mod stored;

use project_lanes::record::Timestamp;
use project_lanes::record::checkpoint::Checkpoint;

use crate::{PgConfig, PgError};

pub use audit::{Audit, audit, audit_against};
pub use chain::{Break, Chain, Proof};
pub use error::JournalError;
pub use export::{Cut, Exported, export, export_signed};
pub use kind::Kind;
pub use mismatch::Mismatch;
pub use prune::Pruned;
pub use read::Head;
pub use seal::Sealed;
pub use stored::{Stored, StoredEntry};

/// A window from `since` misses no row: none was pruned at or after it.
fn check_since(head: &Head, since: Option<Timestamp>) -> Result<(), JournalError> {
    match (since, head.pruned_before) {
        (Some(since), Some(before)) if since < before => {
            Err(JournalError::Pruned { since, before })
        }
        _ => Ok(()),
    }
}

/// Whether `config`'s schema holds lanes, on a plain connection (no migration, nothing
/// written): the operator's commands ask before connecting a handle, which would create a
/// misspelled schema.
pub fn check_schema(config: &PgConfig) -> Result<(), JournalError> {
    crate::blocking::outside_runtime(|| check_schema_here(config))
}

fn check_schema_here(config: &PgConfig) -> Result<(), JournalError> {
    let mut client = read::connect_plain(config)?;
    read::check_exists(&mut client, &config.schema)
}

/// The queues `config`'s schema knows, by name, on a plain connection after [`check_schema`]:
/// the operator's `resolve` declares one of them, never a new one.
pub fn known_queues(config: &PgConfig) -> Result<Vec<String>, JournalError> {
    crate::blocking::outside_runtime(|| known_queues_here(config))
}

fn known_queues_here(config: &PgConfig) -> Result<Vec<String>, JournalError> {
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
    crate::blocking::outside_runtime(|| read_here(config))
}

fn read_here(config: &PgConfig) -> Result<Stored, JournalError> {
    let mut client = read::connect(config)?;
    read::read(&mut client, &config.schema)
}

/// Seals the journal of `config`'s schema: gives every row committed when it is called its link
/// of the hash chain ([`project_lanes::record::chain`]), and returns the chain's head. Inserts
/// pause while it waits for the transitions in flight (the longest of them), then the rows are
/// hashed and updated while transitions go on. Needs `UPDATE` on the journal: the schema's
/// owner. A row that does not convert to an entry is an error naming it, and nothing is sealed.
pub fn seal(config: &PgConfig) -> Result<Sealed, JournalError> {
    crate::blocking::outside_runtime(|| seal_here(config))
}

fn seal_here(config: &PgConfig) -> Result<Sealed, JournalError> {
    let mut client = read::connect(config)?;
    seal::seal(&mut client, &config.schema)
}

/// Seals the journal of `config`'s schema ([`seal`]) and says where its chain stands, as a
/// checkpoint to keep elsewhere: the journal's identity (`lanes_identity`), its number of links,
/// its root, and the server's time. Sign it where the database cannot reach
/// ([`Checkpoint::sign`]); `audit_against` later proves the journal still extends it.
pub fn checkpoint(config: &PgConfig) -> Result<Checkpoint, JournalError> {
    crate::blocking::outside_runtime(|| checkpoint_here(config))
}

fn checkpoint_here(config: &PgConfig) -> Result<Checkpoint, JournalError> {
    let mut client = read::connect(config)?;
    let sealed = seal::seal(&mut client, &config.schema)?;
    checkpoint_at(&mut client, &config.schema, sealed.head)
}

/// A checkpoint of the journal in `schema` at `head`: its identity and the server's time, read
/// by `client` (in a snapshot when it is a transaction).
fn checkpoint_at(
    client: &mut impl postgres::GenericClient,
    schema: &str,
    head: project_lanes::record::chain::ChainHead,
) -> Result<Checkpoint, JournalError> {
    let row = client
        .query_one(
            &format!("SELECT id, clock_timestamp() FROM {schema}.lanes_identity"),
            &[],
        )
        .map_err(PgError::from)?;
    let journal: String = row.try_get(0).map_err(PgError::from)?;
    let now: std::time::SystemTime = row.try_get(1).map_err(PgError::from)?;
    let time = read::timestamp(now).ok_or_else(|| {
        PgError::Config("the server's clock reads a time before 1970 or past 9999".into())
    })?;
    Ok(Checkpoint {
        journal,
        links: head.links,
        root: head.hash,
        time,
    })
}

/// Removes the journal's rows before `before`, keeping the state after them as its start, so a
/// later export or audit starts from it. It seals the journal first and keeps the last
/// removed row's link as the start's, so the chain stays verifiable from there. Needs `DELETE` on the journal: the schema's owner. A
/// `before` after the server's clock is refused ([`JournalError::AfterNow`]) and removes
/// nothing: it is a mistyped time, and would empty the journal.
pub fn prune(config: &PgConfig, before: Timestamp) -> Result<Pruned, JournalError> {
    crate::blocking::outside_runtime(|| prune_here(config, before))
}

fn prune_here(config: &PgConfig, before: Timestamp) -> Result<Pruned, JournalError> {
    let mut client = read::connect(config)?;
    prune::prune(&mut client, &config.schema, before, false)
}

/// What [`prune`] would remove now, removing nothing: a read-only snapshot (no `DELETE`
/// needed, nobody waits), refused as `prune` refuses. Transitions written meanwhile may make
/// the prune itself remove more.
pub fn would_prune(config: &PgConfig, before: Timestamp) -> Result<Pruned, JournalError> {
    crate::blocking::outside_runtime(|| would_prune_here(config, before))
}

fn would_prune_here(config: &PgConfig, before: Timestamp) -> Result<Pruned, JournalError> {
    let mut client = read::connect(config)?;
    prune::prune(&mut client, &config.schema, before, true)
}
