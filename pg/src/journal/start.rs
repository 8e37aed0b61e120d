//! Where a pruned journal starts: the state after the pruned rows, as the JSON kept in
//! `lanes_journal_start`: the leases holding lanes and the reservations not yet settled. A
//! settled reservation (done, cancelled, resolved) never changes again, and the `reservations`
//! table keeps it: reading fetches one from there when a later row names it, so the start stays
//! as small as what is live. Its `before` is a time every pruned row is before: the last one's
//! plus a millisecond (a prune by an earlier lanes-pg kept its `--before`, which may lie past
//! rows written after it; reading then takes the first row kept as the bound).

use project_lanes::Label;
use project_lanes::dispatch::{ReservationState, ReservationView};
use project_lanes::journal::{LeaseKey, State};
use serde::{Deserialize, Serialize};

use super::JournalError;

/// The state as saved: the leases holding lanes, and the reservations not yet settled (older
/// starts hold every reservation, and read the same).
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
        reservations: state
            .reservations()
            .filter(|v| !settled(v.state))
            .cloned()
            .collect(),
    };
    serde_json::to_string(&saved).unwrap_or_else(|_| unreachable!("plain data serializes"))
}

/// Whether a reservation in `state` never changes again.
pub(crate) fn settled(state: ReservationState) -> bool {
    matches!(
        state,
        ReservationState::Done | ReservationState::Cancelled | ReservationState::Resolved
    )
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
