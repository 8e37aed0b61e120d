//! What an audit says of a transition the core does not reproduce: [`Mismatch`] and its
//! wording.

use project_lanes::record::{ReplayMismatch, Timestamp};

use super::{Stored, StoredEntry};

/// A transition the core does not reproduce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The row's `seq`.
    pub seq: i64,
    /// The operation, as records name it.
    pub op: String,
    /// Who called.
    pub actor: String,
    /// When.
    pub at: Option<Timestamp>,
    /// What differs.
    pub message: String,
}

impl Stored {
    /// Says so in `found`'s message when its row's project is used both directly and through
    /// the dispatcher: each kind replays on its own, so such a project may not replay.
    pub(super) fn note_both_kinds(&self, found: &mut Mismatch) {
        let Ok(i) = self.entries.binary_search_by_key(&found.seq, |e| e.seq) else {
            return;
        };
        let Some(project) = self.entries[i].project() else {
            return;
        };
        let names = |lanes: bool| {
            self.entries
                .iter()
                .any(|e| e.lanes == lanes && e.project() == Some(project))
        };
        let held = self
            .start
            .leases()
            .any(|(k, _)| k.project.as_str() == project);
        let reserved = self
            .start
            .reservations()
            .any(|v| v.project.as_str() == project);
        if (held || names(true)) && (reserved || names(false)) {
            found.message.push_str(&format!(
                " (the project {project} is used both directly and through the dispatcher; \
                 each replays on its own, so a claim refused because a reservation held the \
                 lane, or the like, does not replay: keep such projects apart)"
            ));
        }
    }
}

pub(super) fn step_of(m: &ReplayMismatch) -> Option<usize> {
    match m {
        ReplayMismatch::Invalid(_) => None,
        ReplayMismatch::Result { step, .. } | ReplayMismatch::Reservations { step, .. } => {
            Some(*step)
        }
        ReplayMismatch::Lanes { step, .. } => *step,
    }
}

pub(super) fn mismatch(row: Option<&StoredEntry>, m: &ReplayMismatch) -> Mismatch {
    let json = |v: &dyn erased::Json| v.json();
    let message = match m {
        ReplayMismatch::Invalid(e) => format!("the journal makes an invalid record: {e}"),
        ReplayMismatch::Result { saved, actual, .. } => format!(
            "the system answered {}, the core answers {}",
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
        ReplayMismatch::Lanes { saved, actual, .. } => format!(
            "the lane after it: the system shows {}, the core {}",
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
        ReplayMismatch::Reservations { saved, actual, .. } => format!(
            "the reservations after it: the system shows {}, the core {}",
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
    };
    mismatch_at(row, message)
}

pub(super) fn mismatch_at(row: Option<&StoredEntry>, message: String) -> Mismatch {
    match row {
        Some(row) => Mismatch {
            seq: row.seq,
            op: row.entry.call.op().as_str().to_owned(),
            actor: row
                .entry
                .actor
                .as_ref()
                .map_or_else(String::new, |a| a.as_str().to_owned()),
            at: row.entry.at,
            message,
        },
        None => Mismatch {
            seq: 0,
            op: String::new(),
            actor: String::new(),
            at: None,
            message,
        },
    }
}

/// Compact JSON of record values, for messages.
mod erased {
    pub(super) trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_else(|e| format!("<{e}>"))
        }
    }
}
