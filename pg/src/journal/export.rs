//! The journal exported as a version 2 record of one kind: [`Cut`] and [`Stored::export`].

use project_lanes::journal::{Export, ExportError};
use project_lanes::record::{Record, Timestamp};

use super::{JournalError, Kind, Stored};

/// What to export: the record's id and the system's name, and which rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The record's id (the label rule).
    pub id: String,
    /// The system's name, as its operators say it (the record's origin).
    pub system: String,
    /// Only these projects (all if empty).
    pub projects: Vec<String>,
    /// Only the rows from this time on (inclusive); the record starts from the state then.
    pub since: Option<Timestamp>,
    /// Only the rows before this time.
    pub until: Option<Timestamp>,
    /// Lanes or dispatcher (by default the only kind among the rows).
    pub kind: Option<Kind>,
}

impl Cut {
    /// Every row, as the record `id` of the system `system`.
    pub fn new(id: &str, system: &str) -> Cut {
        Cut {
            id: id.to_owned(),
            system: system.to_owned(),
            projects: Vec::new(),
            since: None,
            until: None,
            kind: None,
        }
    }
}

impl Stored {
    /// The rows `cut` asks for, as a version 2 record of its kind (by default the only kind
    /// among them), whose origin is this journal.
    pub fn export(&self, cut: &Cut) -> Result<(Kind, Record), JournalError> {
        self.check_since(cut.since)?;
        let mut export = Export::new(&cut.id, &cut.system)
            .and_then(|e| e.projects(&cut.projects))
            .map_err(JournalError::Export)?;
        if let Some(since) = cut.since {
            export = export.since(since);
        }
        if let Some(until) = cut.until {
            export = export.until(until);
        }
        let kind = self.kind_for(cut)?;
        let of = self.of(kind);
        let record = self.journal(kind).record(&export).map_err(|e| match e {
            ExportError::Inconsistent { entry, message } => JournalError::Corrupt {
                seq: of.get(entry).map_or(0, |e| e.seq),
                message,
            },
            ExportError::UnknownProject(project) => {
                let other = match kind {
                    Kind::Lanes => Kind::Dispatcher,
                    Kind::Dispatcher => Kind::Lanes,
                };
                let named = match other {
                    Kind::Lanes => self.start.leases().any(|(k, _)| k.project == project),
                    Kind::Dispatcher => self.start.reservations().any(|v| v.project == project),
                } || self
                    .of(other)
                    .iter()
                    .any(|e| e.project() == Some(project.as_str()));
                if named {
                    JournalError::OtherKind {
                        project,
                        kind: other,
                    }
                } else {
                    JournalError::Export(ExportError::UnknownProject(project))
                }
            }
            e => JournalError::Export(e),
        })?;
        Ok((kind, record))
    }
}
