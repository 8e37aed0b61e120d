//! The prune: removes the first rows of the journal and keeps the state after them as its start.

use std::time::SystemTime;

use postgres::{Client, IsolationLevel};
use project_lanes::dispatch::{ReservationId, ReservationView};
use project_lanes::journal::State;
use project_lanes::record::Timestamp;

use super::read::{self, system_time, timestamp};
use super::seal;
use super::start::encode;
use super::{JournalError, StoredEntry};
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
/// first at or after `before`), keeping the state after them as the journal's start (with the
/// last removed row's link of the chain: the journal is sealed first), and the
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
        // The sealers' lock first, as a seal takes it before its updates lock the journal.
        seal::lock_sealers(&mut tx, schema)?;
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
    // A schema made before the chain (not yet upgraded by a handle) is pruned as before.
    let chained = read::chained(&mut tx, schema)?;
    if chained && !dry_run {
        // Every row is committed (inserts wait): seal them all, so the chain reaches the cut.
        seal::seal_in(&mut tx, schema, i64::MAX)?;
    }
    let head = read::head_in(&mut tx, schema)?;
    let mut cut = Cutting {
        before,
        state: head.start.clone(),
        at_cut: None,
        removed: 0,
        remaining: 0,
        last_seq: head.start_seq,
        last_at: None,
    };
    read::rows_in(&mut tx, schema, &head, &mut cut)?;
    if cut.removed == 0 || dry_run {
        tx.commit().map_err(PgError::from)?;
        return Ok(Pruned {
            removed: cut.removed,
            start_seq: cut.last_seq,
            remaining: cut.remaining,
        });
    }
    let seq = cut.last_seq;
    let state = cut.at_cut.take().unwrap_or(cut.state);
    // Every pruned row, now and before, is before the time kept: a window from it misses none.
    // Not `before` itself, which may lie past rows written after the prune.
    let after_last = cut
        .last_at
        .and_then(|at| Timestamp::from_millis(at.millis() + 1).ok())
        .unwrap_or(before);
    let gone_before = head
        .pruned_before
        .map_or(after_last, |earlier| earlier.max(after_last));
    // The chain continues from the last removed row's link (sealed above).
    let chain = if chained {
        let (link, hash): (Option<i64>, Option<Vec<u8>>) = tx
            .query_one(
                &format!("SELECT link, hash FROM {schema}.lanes_journal WHERE seq = $1"),
                &[&seq],
            )
            .and_then(|row| Ok((row.try_get(0)?, row.try_get(1)?)))
            .map_err(PgError::from)?;
        let Some(link) = link else {
            return Err(JournalError::Corrupt {
                seq,
                message: "unsealed before sealed rows: the chain was changed by hand \
                          (lanes-pg audit names where); nothing was removed"
                    .into(),
            });
        };
        Some((link, hash))
    } else {
        None
    };
    tx.execute(
        &format!("DELETE FROM {schema}.lanes_journal WHERE seq <= $1"),
        &[&seq],
    )
    .map_err(PgError::from)?;
    tx.execute(&format!("DELETE FROM {schema}.lanes_journal_start"), &[])
        .map_err(PgError::from)?;
    let (before, state) = (system_time(gone_before), encode(&state));
    match &chain {
        Some((link, hash)) => tx.execute(
            &format!(
                "INSERT INTO {schema}.lanes_journal_start (seq, before, state, link, hash) \
                 VALUES ($1, $2, $3, $4, $5)"
            ),
            &[&seq, &before, &state, link, hash],
        ),
        None => tx.execute(
            &format!(
                "INSERT INTO {schema}.lanes_journal_start (seq, before, state) \
                 VALUES ($1, $2, $3)"
            ),
            &[&seq, &before, &state],
        ),
    }
    .map_err(PgError::from)?;
    tx.commit().map_err(PgError::from)?;
    Ok(Pruned {
        removed: cut.removed,
        start_seq: seq,
        remaining: cut.remaining,
    })
}

/// The rows read for a prune: the state folded up to the first row at or after `before` (kept
/// from there as `at_cut`), the last pruned row, and the counts.
struct Cutting {
    before: Timestamp,
    state: State,
    at_cut: Option<State>,
    removed: usize,
    remaining: usize,
    last_seq: i64,
    last_at: Option<Timestamp>,
}

impl read::Rows for Cutting {
    fn knows(&self, id: ReservationId) -> bool {
        self.state.reservation(id).is_some()
    }

    fn settled(&mut self, view: ReservationView) {
        self.state.add_reservation(view);
    }

    fn row(&mut self, row: StoredEntry) -> Result<bool, JournalError> {
        let pruned = self.at_cut.is_none() && row.entry.at.is_some_and(|at| at < self.before);
        if !pruned && self.at_cut.is_none() {
            self.at_cut = Some(self.state.clone());
        }
        if pruned {
            self.removed += 1;
            self.last_seq = row.seq;
            self.last_at = self.last_at.max(row.entry.at);
        } else {
            self.remaining += 1;
        }
        self.state.apply(&row.entry);
        Ok(true)
    }
}
