//! Why a checkpoint or a key could not be read, or a checkpoint could not be verified.

use std::fmt;

use crate::label::Quoted;
use crate::time::TimestampError;

/// Why a checkpoint or a key file could not be read, or why a checkpoint does not verify.
///
/// Each has one meaning; its `Display` is one English sentence for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CheckpointError {
    /// The text ends before line `line` is complete (every line ends in a newline): the file was
    /// cut short.
    Truncated {
        /// The first line missing or unfinished, from 1: 1 to 4 are the body's lines, 6 and
        /// after the signature lines.
        line: usize,
    },
    /// The bytes are not UTF-8 text.
    NotUtf8 {
        /// The offset of the first byte that is not.
        offset: usize,
    },
    /// A line is not what it must be at that place.
    Line {
        /// The line, from 1.
        line: usize,
        /// What it should be, for a person: `the journal's identity after project-lanes/`, …
        expected: &'static str,
    },
    /// Line 2, the number of links, is not a decimal number (without sign or leading zeros)
    /// that fits in 64 bits.
    Links {
        /// The line as written.
        text: String,
    },
    /// Line 3, the root, is base64 but not of 32 bytes.
    RootLength {
        /// How many bytes it holds.
        bytes: usize,
    },
    /// Line 4's time is not a [`Timestamp`](crate::record::Timestamp).
    Time(TimestampError),
    /// A key name is empty, longer than 100 characters, or holds `+`, whitespace or a control
    /// character.
    KeyName {
        /// The name as given.
        name: String,
    },
    /// A key file is not of the form its kind must have.
    KeyMalformed {
        /// What is wrong, for a person.
        reason: &'static str,
    },
    /// A key file's key is not 33 bytes (the algorithm byte and 32 bytes of key).
    KeyLength {
        /// How many bytes it holds, the algorithm byte included.
        bytes: usize,
    },
    /// A key file's key is not Ed25519 (its first byte is not 1).
    KeyAlgorithm {
        /// The algorithm byte.
        byte: u8,
    },
    /// A key file's key id is not the id of the name and key it holds.
    KeyIdMismatch {
        /// The id the file writes.
        written: u32,
        /// The id of its name and key.
        computed: u32,
    },
    /// A signature line names the verifier's key but its signature does not verify over the
    /// checkpoint's body: the body or the signature was changed.
    BadSignature {
        /// The key, `<name>+<8 hex key id>`.
        fingerprint: String,
    },
    /// The checkpoint is signed, but not by the verifier's key.
    OtherKey {
        /// The verifier's key, `<name>+<8 hex key id>`.
        wanted: String,
        /// The keys of its signature lines, in order.
        present: Vec<String>,
    },
    /// The checkpoint has no signature line, and a key was required.
    Unsigned {
        /// The verifier's key, `<name>+<8 hex key id>`.
        wanted: String,
    },
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Truncated { line } => write!(
                f,
                "the checkpoint is truncated: it ends before line {line} ({}) is complete",
                match line {
                    1 => "the journal",
                    2 => "the number of links",
                    3 => "the root",
                    4 => "the time",
                    _ => "a signature line",
                }
            ),
            CheckpointError::NotUtf8 { offset } => {
                write!(f, "the checkpoint is not UTF-8 text (byte {offset} is not)")
            }
            CheckpointError::Line { line, expected } => {
                write!(f, "line {line} of the checkpoint should be {expected}")
            }
            CheckpointError::Links { text } => write!(
                f,
                "line 2 of the checkpoint should be the number of links, a decimal number \
                 without leading zeros, not {}",
                Quoted(text)
            ),
            CheckpointError::RootLength { bytes } => write!(
                f,
                "line 3 of the checkpoint holds a root of {bytes} bytes, not the 32 of a SHA-256"
            ),
            CheckpointError::Time(error) => {
                write!(f, "line 4 of the checkpoint has a bad time: {error}")
            }
            CheckpointError::KeyName { name } => write!(
                f,
                "{} is not a key name: a key name is 1 to 100 characters, without +, \
                 whitespace or control characters",
                Quoted(name)
            ),
            CheckpointError::KeyMalformed { reason } => write!(f, "the key is malformed: {reason}"),
            CheckpointError::KeyLength { bytes } => write!(
                f,
                "the key holds {bytes} bytes, not the 33 of an Ed25519 key (the algorithm \
                 byte 1 and 32 bytes of key)"
            ),
            CheckpointError::KeyAlgorithm { byte } => write!(
                f,
                "the key is of algorithm {byte}, not Ed25519 (algorithm 1), the one this \
                 build reads"
            ),
            CheckpointError::KeyIdMismatch { written, computed } => write!(
                f,
                "the key file says key id {written:08x}, but its name and key have id \
                 {computed:08x} (was the file edited?)"
            ),
            CheckpointError::BadSignature { fingerprint } => write!(
                f,
                "signature by {fingerprint} does not verify: the checkpoint or its signature \
                 was changed"
            ),
            CheckpointError::OtherKey { wanted, present } => write!(
                f,
                "the checkpoint is not signed by {wanted}, only by {}",
                present.join(", ")
            ),
            CheckpointError::Unsigned { wanted } => write!(
                f,
                "the checkpoint is unsigned, and a signature by {wanted} is required"
            ),
        }
    }
}

// The time's own error is part of the message, so it is not also a `source`.
impl std::error::Error for CheckpointError {}
