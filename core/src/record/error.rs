//! Why a record (or an index) could not be read.

use std::fmt;

use crate::label::Quoted;

use super::format::VERSION;

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// `format` is not the expected format id.
    UnknownFormat {
        /// The file's `format`.
        found: String,
        /// [`FORMAT`] or [`INDEX_FORMAT`].
        expected: &'static str,
    },
    /// `version` is not [`VERSION`].
    UnsupportedVersion(u32),
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
                "unsupported record version {v} (this build reads version {VERSION})"
            ),
            RecordError::Invalid { at, message } => write!(f, "{at}: {message}"),
        }
    }
}

impl std::error::Error for RecordError {}
