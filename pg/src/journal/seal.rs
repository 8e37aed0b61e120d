//! Sealing: the journal's committed rows given their links of the hash chain
//! ([`project_lanes::record::chain`]), after the rows are written rather than as they are.
//!
//! A chain computed as rows are written would need one lock on its head, taken by every
//! transition: transitions of different projects, which commit in parallel, would queue behind
//! it. A sealing step instead integrates the committed rows in batches, as a Certificate
//! Transparency log integrates its entries:
//!
//! 1. A short transaction takes `SHARE ROW EXCLUSIVE` on the journal, as a prune does. It waits
//!    for the transitions in flight to commit and makes new ones wait meanwhile, then reads the
//!    horizon, `max(seq)`, and commits at once: inserts pause for as long as the longest
//!    transition in flight when it was asked (a transition is one function call: milliseconds).
//!    Every row at or below the horizon is then committed for good: a later transition draws
//!    a later number.
//! 2. A second transaction, under a transaction-level advisory lock that serialises the sealers
//!    of the schema (and a prune), reads the chain's head (the last sealed row, or the
//!    journal's start), then the unsealed rows up to the horizon in `seq` order, a batch at a
//!    time, each converted to the core's entry as every reader converts it, and writes each
//!    row's link number and hash. Transitions do not wait for it: it only updates rows that no
//!    transition touches again.
//!
//! A row stays unsealed until the next seal after it commits: run one every few seconds (or
//! before each checkpoint, as `lanes-pg checkpoint` does) and that is the longest a row waits.
//!
//! The sealing invariant: the sealed rows are a prefix of the journal, numbered without a gap
//! from the start's link, each hash the link of its row after the one before. A seal extends it
//! from its last sealed row, which it trusts (reading the whole journal at every seal would
//! cost what an audit costs); an audit recomputes it whole and names the first row that breaks
//! it, a sealed row after an unsealed one included.

use postgres::Transaction;
use project_lanes::record::chain::ChainHead;

use super::JournalError;
use super::read::{self, COLUMNS};
use crate::PgError;

/// What a seal did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sealed {
    /// The chain after it: its number of links and its last link.
    pub head: ChainHead,
    /// The rows it sealed.
    pub sealed: u64,
    /// The `seq` of the last row sealed (the journal's start's if none ever was).
    pub last_seq: i64,
}

/// Rows sealed by one `UPDATE`, and read at a time.
const BATCH: i64 = 10_000;

/// Seals every row committed when it was called: waits for the transitions in flight (see the
/// module's documentation), then seals up to that horizon.
pub(crate) fn seal(client: &mut postgres::Client, schema: &str) -> Result<Sealed, JournalError> {
    let mut tx = client.transaction().map_err(PgError::from)?;
    if !read::chained(&mut tx, schema)? {
        return Err(JournalError::Schema(format!(
            "schema {schema} predates the journal's hash chain (version 3): connect a handle of \
             this release once, as the schema's owner, to upgrade it, then seal"
        )));
    }
    tx.batch_execute(&format!(
        "LOCK TABLE {schema}.lanes_journal IN SHARE ROW EXCLUSIVE MODE"
    ))
    .map_err(PgError::from)?;
    let horizon: i64 = tx
        .query_one(
            &format!("SELECT coalesce(max(seq), 0) FROM {schema}.lanes_journal"),
            &[],
        )
        .and_then(|row| row.try_get(0))
        .map_err(PgError::from)?;
    tx.commit().map_err(PgError::from)?;
    let mut tx = client.transaction().map_err(PgError::from)?;
    lock_sealers(&mut tx, schema)?;
    let sealed = seal_in(&mut tx, schema, horizon)?;
    tx.commit().map_err(PgError::from)?;
    Ok(sealed)
}

/// The lock that serialises the sealers of `schema`, for the transaction: taken before any
/// lock on the journal, by a seal and by a prune.
pub(crate) fn lock_sealers(tx: &mut Transaction<'_>, schema: &str) -> Result<(), JournalError> {
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('project-lanes-pg seal ' || $1::text))",
        &[&schema],
    )
    .map_err(PgError::from)?;
    Ok(())
}

/// Where the chain stands before the first unsealed row: the last sealed row's link and hash
/// and its `seq`, or, if none is sealed, the journal's start's.
pub(crate) fn head_in(
    tx: &mut Transaction<'_>,
    schema: &str,
) -> Result<(ChainHead, i64), JournalError> {
    let (start, start_seq) = start_in(tx, schema)?;
    // The unsealed tail is short: the scan back from the last row stops at the first sealed.
    let last = tx
        .query_opt(
            &format!(
                "SELECT seq, link, hash FROM {schema}.lanes_journal \
                 WHERE seq > $1 AND link IS NOT NULL ORDER BY seq DESC LIMIT 1"
            ),
            &[&start_seq],
        )
        .map_err(PgError::from)?;
    let Some(row) = last else {
        return Ok((start, start_seq));
    };
    let seq: i64 = row.try_get(0).map_err(PgError::from)?;
    let link: i64 = row.try_get(1).map_err(PgError::from)?;
    let hash: Vec<u8> = row.try_get(2).map_err(PgError::from)?;
    Ok((read::chain_head(seq, link, Some(&hash))?, seq))
}

/// The chain before the journal's first remaining row, and that row's predecessor's `seq` (0
/// if never pruned): link 0 unless a prune carried the last pruned row's link.
pub(crate) fn start_in(
    tx: &mut Transaction<'_>,
    schema: &str,
) -> Result<(ChainHead, i64), JournalError> {
    let start = tx
        .query_opt(
            &format!(
                "SELECT seq, link, hash FROM {schema}.lanes_journal_start \
                 ORDER BY seq DESC LIMIT 1"
            ),
            &[],
        )
        .map_err(PgError::from)?;
    let Some(row) = start else {
        return Ok((ChainHead::GENESIS, 0));
    };
    let seq: i64 = row.try_get(0).map_err(PgError::from)?;
    let link: i64 = row.try_get(1).map_err(PgError::from)?;
    let hash: Option<Vec<u8>> = row.try_get(2).map_err(PgError::from)?;
    Ok((read::chain_head(seq, link, hash.as_deref())?, seq))
}

/// Seals the unsealed rows up to `horizon`, in a transaction that holds [`lock_sealers`].
pub(crate) fn seal_in(
    tx: &mut Transaction<'_>,
    schema: &str,
    horizon: i64,
) -> Result<Sealed, JournalError> {
    let (mut head, mut last_seq) = head_in(tx, schema)?;
    let read = tx
        .prepare(&format!(
            "SELECT {COLUMNS} FROM {schema}.lanes_journal \
             WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3"
        ))
        .map_err(PgError::from)?;
    let write = tx
        .prepare(&format!(
            "UPDATE {schema}.lanes_journal j SET link = s.link, hash = s.hash \
             FROM unnest($1::bigint[], $2::bigint[], $3::bytea[]) AS s(seq, link, hash) \
             WHERE j.seq = s.seq"
        ))
        .map_err(PgError::from)?;
    let mut sealed = 0;
    loop {
        let rows = tx
            .query(&read, &[&last_seq, &horizon, &BATCH])
            .map_err(PgError::from)?;
        if rows.is_empty() {
            break;
        }
        let mut seqs = Vec::with_capacity(rows.len());
        let mut links = Vec::with_capacity(rows.len());
        let mut hashes = Vec::with_capacity(rows.len());
        for row in &rows {
            let stored = read::entry(row)?;
            head = head.next(&project_lanes::journal::link(&stored.entry));
            seqs.push(stored.seq);
            links.push(
                i64::try_from(head.links).map_err(|_| JournalError::Corrupt {
                    seq: stored.seq,
                    message: "the chain is longer than a bigint counts".into(),
                })?,
            );
            hashes.push(head.hash.0.to_vec());
        }
        tx.execute(&write, &[&seqs, &links, &hashes])
            .map_err(PgError::from)?;
        sealed += seqs.len() as u64;
        last_seq = *seqs.last().unwrap_or(&last_seq);
    }
    Ok(Sealed {
        head,
        sealed,
        last_seq,
    })
}
