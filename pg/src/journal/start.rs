//! Where a pruned journal starts: the state after the pruned rows, kept as JSON in
//! `lanes_journal_start`, and the prune that writes it.

use postgres::Client;
use project_lanes::Label;
use project_lanes::dispatch::ReservationView;
use project_lanes::journal::{Journal, LeaseKey, State};
use project_lanes::record::Timestamp;
use serde::{Deserialize, Serialize};

use super::JournalError;
use super::read::{self, system_time};
use crate::PgError;

/// The state as saved: the leases holding lanes, and every reservation.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Saved {
    leases: Vec<SavedLease>,
    reservations: Vec<ReservationView>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct SavedLease {
    project: Label,
    run: Label,
    generation: u64,
    stop_requested: bool,
}

pub(crate) fn encode(state: &State) -> String {
    let saved = Saved {
        leases: state
            .leases()
            .map(|(key, stop)| SavedLease {
                project: key.project.clone(),
                run: key.run.clone(),
                generation: key.generation,
                stop_requested: stop,
            })
            .collect(),
        reservations: state.reservations().cloned().collect(),
    };
    serde_json::to_string(&saved).unwrap_or_else(|_| unreachable!("plain data serializes"))
}

pub(crate) fn decode(text: &str, seq: i64) -> Result<State, JournalError> {
    let saved: Saved = serde_json::from_str(text).map_err(|e| JournalError::Corrupt {
        seq,
        message: format!("the saved start of the journal (after row {seq}) is unreadable: {e}"),
    })?;
    let mut state = State::new();
    for lease in saved.leases {
        state.hold(
            LeaseKey {
                project: lease.project,
                run: lease.run,
                generation: lease.generation,
            },
            lease.stop_requested,
        );
    }
    for view in saved.reservations {
        state.add_reservation(view);
    }
    Ok(state)
}

/// What a prune did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pruned {
    /// How many rows were removed.
    pub removed: usize,
    /// The journal now starts after this row (0: it was never pruned).
    pub start_seq: i64,
    /// How many rows remain.
    pub remaining: usize,
}

/// Removes the rows before `before` (the first rows of the journal, in its order, up to the
/// first at or after `before`), keeping the state after them as the journal's start. Inserts
/// wait meanwhile (a SHARE ROW EXCLUSIVE lock on the journal), so no transition that drew an
/// earlier number can commit after the cut.
pub(crate) fn prune(
    client: &mut Client,
    schema: &str,
    before: Timestamp,
) -> Result<Pruned, JournalError> {
    let mut tx = client.transaction().map_err(PgError::from)?;
    tx.batch_execute(&format!(
        "LOCK TABLE {schema}.lanes_journal IN SHARE ROW EXCLUSIVE MODE"
    ))
    .map_err(PgError::from)?;
    let stored = read::read_in(&mut tx, schema)?;
    let cut = stored
        .entries
        .iter()
        .position(|e| e.entry.at.is_none_or(|at| at >= before))
        .unwrap_or(stored.entries.len());
    if cut == 0 {
        tx.commit().map_err(PgError::from)?;
        return Ok(Pruned {
            removed: 0,
            start_seq: stored.start_seq,
            remaining: stored.entries.len(),
        });
    }
    let mut journal = Journal::lanes().starting_from(stored.start.clone());
    journal.extend(stored.entries[..cut].iter().map(|e| e.entry.clone()));
    let state = journal.state_after(cut);
    let seq = stored.entries[cut - 1].seq;
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
        &[&seq, &system_time(before), &encode(&state)],
    )
    .map_err(PgError::from)?;
    tx.commit().map_err(PgError::from)?;
    Ok(Pruned {
        removed: cut,
        start_seq: seq,
        remaining: stored.entries.len() - cut,
    })
}
