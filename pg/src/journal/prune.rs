//! The prune: removes the first rows of the journal and keeps the state after them as its start.

use std::time::SystemTime;

use postgres::{Client, IsolationLevel};
use project_lanes::journal::Journal;
use project_lanes::record::Timestamp;

use super::JournalError;
use super::read::{self, system_time, timestamp};
use super::start::encode;
use crate::PgError;

/// What a prune did, or what it would do (a dry run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// How many rows were (or would be) removed.
    pub removed: usize,
    /// The journal now starts (or would start) after this row (0: it was never pruned).
    pub start_seq: i64,
    /// How many rows remain (or would remain).
    pub remaining: usize,
}

/// Removes the rows before `before` (the first rows of the journal, in its order, up to the
/// first at or after `before`), keeping the state after them as the journal's start, and the
/// time every pruned row is before: the last one's, plus a millisecond (not `before`, which may
/// lie past rows written after the prune). Inserts
/// wait meanwhile (a SHARE ROW EXCLUSIVE lock on the journal), so no transition that drew an
/// earlier number can commit after the cut. A `before` after the server's clock is refused
/// ([`JournalError::AfterNow`]): it is a mistyped time, not a wish to empty the journal. With
/// `dry_run`, the same is counted on a read-only snapshot, which makes nobody wait, and nothing
/// is removed.
pub(crate) fn prune(
    client: &mut Client,
    schema: &str,
    before: Timestamp,
    dry_run: bool,
) -> Result<Pruned, JournalError> {
    let mut tx = if dry_run {
        client
            .build_transaction()
            .isolation_level(IsolationLevel::RepeatableRead)
            .read_only(true)
            .start()
    } else {
        client.transaction()
    }
    .map_err(PgError::from)?;
    if !dry_run {
        tx.batch_execute(&format!(
            "LOCK TABLE {schema}.lanes_journal IN SHARE ROW EXCLUSIVE MODE"
        ))
        .map_err(PgError::from)?;
    }
    // Read after the lock: no row committed later is before it. (Refused, the transaction is
    // rolled back as it is dropped: nothing changed.)
    let now: SystemTime = tx
        .query_one("SELECT clock_timestamp()", &[])
        .and_then(|row| row.try_get(0))
        .map_err(PgError::from)?;
    let now = timestamp(now).ok_or_else(|| {
        PgError::Config("the server's clock reads a time before 1970 or past 9999".into())
    })?;
    if before > now {
        return Err(JournalError::AfterNow { before, now });
    }
    let stored = read::read_in(&mut tx, schema)?;
    let cut = stored
        .entries
        .iter()
        .position(|e| e.entry.at.is_none_or(|at| at >= before))
        .unwrap_or(stored.entries.len());
    if cut == 0 || dry_run {
        tx.commit().map_err(PgError::from)?;
        return Ok(Pruned {
            removed: cut,
            start_seq: cut
                .checked_sub(1)
                .map_or(stored.start_seq, |last| stored.entries[last].seq),
            remaining: stored.entries.len() - cut,
        });
    }
    let mut journal = Journal::lanes().starting_from(stored.start.clone());
    journal.extend(stored.entries[..cut].iter().map(|e| e.entry.clone()));
    let state = journal.state_after(cut);
    let seq = stored.entries[cut - 1].seq;
    // Every pruned row, now and before, is before the time kept: a window from it misses none.
    // Not `before` itself, which may lie past rows written after the prune.
    let last = stored.entries[..cut]
        .iter()
        .filter_map(|e| e.entry.at)
        .max();
    let after_last = last
        .and_then(|at| Timestamp::from_millis(at.millis() + 1).ok())
        .unwrap_or(before);
    let gone_before = stored
        .pruned_before
        .map_or(after_last, |earlier| earlier.max(after_last));
    tx.execute(
        &format!("DELETE FROM {schema}.lanes_journal WHERE seq <= $1"),
        &[&seq],
    )
    .map_err(PgError::from)?;
    tx.execute(&format!("DELETE FROM {schema}.lanes_journal_start"), &[])
        .map_err(PgError::from)?;
    tx.execute(
        &format!(
            "INSERT INTO {schema}.lanes_journal_start (seq, before, state) VALUES ($1, $2, $3)"
        ),
        &[&seq, &system_time(gone_before), &encode(&state)],
    )
    .map_err(PgError::from)?;
    tx.commit().map_err(PgError::from)?;
    Ok(Pruned {
        removed: cut,
        start_seq: seq,
        remaining: stored.entries.len() - cut,
    })
}
