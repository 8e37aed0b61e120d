//! Saved example records: what the lanes did, step by step, in a versioned format.
//!
//! A record is produced by running a scenario on the real core and saving every input and result
//! (see the `lane-records` generator), or exported from a running system's
//! [journal](crate::journal). [`replay`] runs a record's steps on fresh lanes (or a fresh
//! dispatcher), set to the record's starting state if it has one, and compares every saved
//! result, so anyone can check a record, including one written by hand. The format (versions 1
//! and 2, one JSON document; version 3, lines: [`stream`]) is documented in `records/README.md`
//! and the JSON Schemas beside it.
//!
//! Inside: `format` (the types, field by field), `check` ([`Record::check`], [`Index::check`] and
//! [`Header::check`]: the rules JSON alone cannot express), `replay` ([`replay`], [`Replay`]) and
//! the engine both it and the [`Recorder`] run steps on, and [`json`] (feature `json`): reading
//! record files with `serde_json`, the one reader the command line and the viewer share, so the
//! same bytes get the same verdict everywhere. It parses [`Header`] first: a file in an unknown
//! format or version is then refused with a precise error instead of a confusing one about a
//! field.
//!
//! Beside them: `chain`, the hash chain over a journal's transitions, and `checkpoint` (feature
//! `checkpoint`), a chain's root and length to keep elsewhere, signed with Ed25519.
//!
//! ```
//! use project_lanes::record::{Header, Record};
//!
//! let text = r#"{"format":"project-lanes/record","version":99}"#;
//! let header: Header = serde_json::from_str(text).unwrap();
//! assert_eq!(header.check().unwrap_err().to_string(),
//!     "unsupported record version 99 (this build reads versions 1, 2 and 3)");
//! ```

pub mod chain;
pub(crate) mod check;
#[cfg(feature = "checkpoint")]
pub mod checkpoint;
pub mod diff;
pub use check::handle_number;
mod engine;
mod error;
mod format;
mod recorder;
mod replay;

#[cfg(feature = "json")]
pub mod json;
#[cfg(feature = "json")]
pub mod stream;

pub use crate::op::{Field, MAX_INPUT_CHARS, MAX_NAME_CHARS, Nothing, Op};
pub use crate::time::{Timestamp, TimestampError, civil_from_days};
pub use error::RecordError;
pub use format::{
    FORMAT, Header, INDEX_FORMAT, Index, IndexEntry, Input, LeaseRecord, MAX_PROJECTS,
    MAX_RECORD_BYTES, MAX_STEPS, MAX_TEXT_CHARS, Origin, OriginKind, Record, Start, StartLease,
    StartLeaseState, Step, StepResult, Text, Untouched, VERSION, VERSION_2, VERSION_3, VERSIONS,
};
pub use recorder::Recorder;
pub use replay::{Replay, ReplayMismatch, replay};
