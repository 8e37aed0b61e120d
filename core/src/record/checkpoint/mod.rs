//! Checkpoints to keep elsewhere (feature `checkpoint`): a journal's identity, its number of
//! links and the root of its [hash chain](crate::record::chain) at a time, as a small text that
//! can be signed with Ed25519 and kept where the journal's database cannot reach. A journal that
//! still extends a kept checkpoint has not been edited, shortened or reordered before it.
//!
//! The text is a [C2SP signed note] whose body is a [C2SP tlog checkpoint] (origin, size, root)
//! with one extension line, the time:
//!
//! ```text
//! project-lanes/<journal identity>
//! <links, decimal>
//! <root, standard base64 of the 32 bytes>
//! time <RFC 3339 UTC with milliseconds>
//!
//! — <key name> <base64(4-byte key id ‖ 64-byte Ed25519 signature)>
//! ```
//!
//! Each line ends in a newline; the signatures sign the body's exact bytes (its four lines).
//! Without the blank line and signature lines, the body alone is an unsigned checkpoint: it
//! proves nothing by itself, but a root kept by hand pins a journal just as well. Keys are
//! written as Go's `golang.org/x/mod/sumdb/note` writes them ([`SigningKey`], [`VerifierKey`]),
//! so Go's `note.Open` and other signed-note readers verify these checkpoints too.
//!
//! Nothing here reads a clock, a file or a random source: the time is the caller's, and so are
//! a key's 32 bytes of seed, so the module compiles to `wasm32-unknown-unknown` and the viewer
//! verifies checkpoints in the page.
//!
//! ```
//! use project_lanes::record::checkpoint::{Checkpoint, SigningKey, VerifierKey};
//! use project_lanes::record::chain::Hash;
//!
//! // The operator's key, from 32 random bytes, and the key they hand to auditors.
//! let key = SigningKey::from_seed("ops.example", [42; 32])?;
//! let verifier = VerifierKey::parse(&key.verifier().to_text())?;
//!
//! let checkpoint = Checkpoint {
//!     journal: "prod".to_owned(),
//!     links: 3,
//!     root: Hash([1; 32]),
//!     time: "2026-05-01T03:12:45.123Z".parse()?,
//! };
//! let text = checkpoint.sign(&key);
//! assert!(text.starts_with(
//!     "project-lanes/prod\n3\nAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=\n\
//!      time 2026-05-01T03:12:45.123Z\n\n— ops.example "));
//!
//! // Later, elsewhere: read it back and check who signed it.
//! let note = Checkpoint::parse(&text)?;
//! note.verify(&verifier)?;
//! assert_eq!(note.checkpoint().links, 3);
//!
//! // Any change to the body breaks the signature.
//! let edited = Checkpoint::parse(&text.replacen("\n3\n", "\n4\n", 1))?;
//! assert_eq!(edited.verify(&verifier).unwrap_err().to_string(),
//!     format!("signature by {} does not verify: the checkpoint or its signature was changed",
//!         verifier.fingerprint()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [C2SP signed note]: https://c2sp.org/signed-note
//! [C2SP tlog checkpoint]: https://c2sp.org/tlog-checkpoint

mod base64;
mod error;
mod key;
mod note;

pub use error::CheckpointError;
pub use key::{SigningKey, VerifierKey};
pub use note::{Note, Signature};

use crate::record::Timestamp;
use crate::record::chain::Hash;

/// What a checkpoint's first line starts with; the journal's identity follows.
pub const ORIGIN_PREFIX: &str = "project-lanes/";

/// What a checkpoint says: the journal, its number of links and the root (the last link) of its
/// chain, at a time.
///
/// The journal's identity is one line of text, without control characters
/// ([`Checkpoint::check`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The journal's identity: what tells this journal from others (a database's, a
    /// process's), one line without control characters.
    pub journal: String,
    /// How many links the chain has: the journal's transitions, from its start.
    pub links: u64,
    /// The chain's last link.
    pub root: Hash,
    /// When the checkpoint was taken.
    pub time: Timestamp,
}

impl Checkpoint {
    /// The body: four lines, each ending in a newline. This is what signatures sign, and alone
    /// it is an unsigned checkpoint.
    pub fn body(&self) -> String {
        format!(
            "{ORIGIN_PREFIX}{}\n{}\n{}\ntime {}\n",
            self.journal,
            self.links,
            base64::encode(&self.root.0),
            self.time
        )
    }

    /// The checkpoint signed by `key`: the body, a blank line and the signature line.
    pub fn sign(&self, key: &SigningKey) -> String {
        let body = self.body();
        let line = key.signature_line(body.as_bytes());
        format!("{body}\n{line}")
    }

    /// `Ok` if [`Checkpoint::parse`] reads this checkpoint's body back as it is: refused only
    /// for a journal identity that is empty or holds a newline or another control character.
    pub fn check(&self) -> Result<(), CheckpointError> {
        if self.journal.is_empty() || self.journal.chars().any(char::is_control) {
            Err(CheckpointError::Line {
                line: 1,
                expected: note::JOURNAL_LINE,
            })
        } else {
            Ok(())
        }
    }

    /// Reads a checkpoint's text: the body, then either nothing (unsigned) or a blank line and
    /// one to 100 signature lines. Signatures are read, not verified: that is
    /// [`Note::verify`]'s.
    pub fn parse(text: &str) -> Result<Note, CheckpointError> {
        note::parse(text)
    }

    /// [`Checkpoint::parse`] for a file read as bytes: [`CheckpointError::NotUtf8`] if they are
    /// not UTF-8 text.
    pub fn parse_bytes(bytes: &[u8]) -> Result<Note, CheckpointError> {
        match std::str::from_utf8(bytes) {
            Ok(text) => note::parse(text),
            Err(error) => Err(CheckpointError::NotUtf8 {
                offset: error.valid_up_to(),
            }),
        }
    }
}
