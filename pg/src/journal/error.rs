//! Why the journal could not be read, exported or audited: [`JournalError`].

use std::fmt;

use project_lanes::Label;
use project_lanes::journal::ExportError;
use project_lanes::record::Timestamp;

use super::Kind;
use crate::PgError;

/// Why the journal could not be read, exported or audited.
#[derive(Debug)]
pub enum JournalError {
    /// Connecting or reading failed.
    Pg(PgError),
    /// The schema is missing, keeps no journal yet, or is newer than this crate.
    Schema(String),
    /// A row is not one this crate could have written (edited by hand, restored from elsewhere).
    Corrupt {
        /// The row's `seq`.
        seq: i64,
        /// What is wrong with it.
        message: String,
    },
    /// A version 2 record was asked for, and the rows hold both direct lane operations and
    /// dispatcher operations; a version 2 record shows one or the other.
    MixedKinds {
        /// Lane operations among them.
        lanes: usize,
        /// Dispatcher operations among them.
        dispatcher: usize,
    },
    /// A version 2 record: a project asked for appears only among the other kind's operations.
    OtherKind {
        /// The project.
        project: Label,
        /// The kind whose operations name it.
        kind: Kind,
    },
    /// The window starts before rows the journal no longer holds: they were pruned.
    Pruned {
        /// The window's start.
        since: Timestamp,
        /// Every pruned row is before this time.
        before: Timestamp,
    },
    /// A prune before a time after the server's clock: a mistyped time (a year too far), which
    /// would remove every row. Nothing was removed.
    AfterNow {
        /// The time asked for.
        before: Timestamp,
        /// The server's time when it was asked.
        now: Timestamp,
    },
    /// The core's export refused (an empty window, an unknown project, …).
    Export(ExportError),
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Pg(e) => write!(f, "{e}"),
            JournalError::Schema(message) => f.write_str(message),
            JournalError::Corrupt { seq, message } => write!(f, "journal row {seq}: {message}"),
            JournalError::MixedKinds { lanes, dispatcher } => write!(
                f,
                "these transitions hold {lanes} direct lane operations and {dispatcher} \
                 dispatcher operations; a version 2 record shows one or the other: export each \
                 in a record of its own, with --kind lanes and --kind dispatcher, or leave \
                 --format-version out for one version 3 record of both"
            ),
            JournalError::OtherKind { project, kind } => write!(
                f,
                "the project {project} appears only among the journal's {}: export it in a \
                 version 2 record of its own, with --kind {}",
                match kind {
                    Kind::Lanes => "direct lane operations",
                    Kind::Dispatcher => "dispatcher operations",
                },
                kind.as_str()
            ),
            JournalError::Pruned { since, before } => write!(
                f,
                "the journal was pruned: its rows before {before} are gone, so a window from \
                 {since} would miss some; start at {before} or later, or leave --since out"
            ),
            JournalError::AfterNow { before, now } => write!(
                f,
                "--before {before} is after the server's time, {now}: a prune removes rows \
                 before a time already past, and nothing was removed (is the date right?)"
            ),
            JournalError::Export(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for JournalError {}

impl From<PgError> for JournalError {
    fn from(e: PgError) -> Self {
        JournalError::Pg(e)
    }
}
