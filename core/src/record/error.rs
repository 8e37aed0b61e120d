//! Why a record (or an index) could not be read.

use std::fmt;

use crate::label::Quoted;

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// `format` is not the expected format id.
    UnknownFormat {
        /// The file's `format`.
        found: String,
        /// [`FORMAT`](super::FORMAT) or [`INDEX_FORMAT`](super::INDEX_FORMAT).
        expected: &'static str,
    },
    /// A record's `version` is not one of [`VERSIONS`](super::VERSIONS).
    UnsupportedVersion(u32),
    /// An index's `version` is not [`VERSION`](super::VERSION).
    UnsupportedIndexVersion(u32),
    /// The record parsed but breaks a rule of the format.
    Invalid {
        /// Where: `steps[3].input`, `projects`, …
        at: String,
        /// What is wrong, for a person.
        message: String,
    },
}

impl RecordError {
    pub(super) fn invalid(at: impl Into<String>, message: impl Into<String>) -> RecordError {
        RecordError::Invalid {
            at: at.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::UnknownFormat { found, expected } => write!(
                f,
                "not a project-lanes file of this kind: format is {}, expected {}",
                Quoted(found),
                Quoted(expected)
            ),
            RecordError::UnsupportedVersion(v) => write!(
                f,
                "unsupported record version {v} (this build reads versions 1, 2 and 3)"
            ),
            RecordError::UnsupportedIndexVersion(v) => write!(
                f,
                "unsupported index version {v} (this build reads version 1)"
            ),
            RecordError::Invalid { at, message } => write!(f, "{at}: {message}"),
        }
    }
}

impl std::error::Error for RecordError {}
