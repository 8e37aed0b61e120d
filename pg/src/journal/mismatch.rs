//! What an audit says of a transition the core does not give: [`Mismatch`].

use project_lanes::record::Timestamp;

use super::StoredEntry;

/// A transition whose answer the core does not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The row's `seq`.
    pub seq: i64,
    /// The operation, as records name it (empty for a row that is not one this crate writes).
    pub op: String,
    /// Who called.
    pub actor: String,
    /// When.
    pub at: Option<Timestamp>,
    /// The project it concerns, if the row names one.
    pub project: Option<String>,
    /// What the journal says the system answered.
    pub journaled: String,
    /// What the core answers.
    pub core: String,
    /// Both, in a sentence.
    pub message: String,
}

impl Mismatch {
    /// The mismatch at `row`: the journal says `journaled`, the core `core`.
    pub(super) fn at(row: &StoredEntry, journaled: &str, core: &str) -> Mismatch {
        Mismatch {
            seq: row.seq,
            op: row.entry.call.op().as_str().to_owned(),
            actor: row
                .entry
                .actor
                .as_ref()
                .map_or_else(String::new, |a| a.as_str().to_owned()),
            at: row.entry.at,
            project: row.project().map(str::to_owned),
            journaled: journaled.to_owned(),
            core: core.to_owned(),
            message: if core.is_empty() {
                journaled.to_owned()
            } else {
                format!("the system answered {journaled}, the core answers {core}")
            },
        }
    }
}
