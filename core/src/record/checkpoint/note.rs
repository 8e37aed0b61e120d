//! Reading a checkpoint's text: the body's four lines, then a blank line and signature lines
//! (C2SP signed-note), and verifying a signature over the exact body bytes.

use super::key::{fingerprint, is_key_name};
use super::{Checkpoint, CheckpointError, ORIGIN_PREFIX, VerifierKey, base64};
use crate::record::Timestamp;
use crate::record::chain::Hash;

/// The most signature lines a checkpoint may carry (as Go's `sumdb/note`).
const MAX_SIGNATURES: usize = 100;

/// A checkpoint read from its text, signed or not: what it says ([`Note::checkpoint`]) and who
/// signed it ([`Note::signatures`]). Nothing it says is proven until [`Note::verify`] returns
/// `Ok` for a key you trust; unsigned, it is still useful as a root pinned by whoever kept it.
///
/// ```
/// use project_lanes::record::checkpoint::{Checkpoint, CheckpointError, SigningKey};
/// use project_lanes::record::chain::Hash;
///
/// let checkpoint = Checkpoint {
///     journal: "prod".to_owned(),
///     links: 1200,
///     root: Hash([0xab; 32]),
///     time: "2026-05-01T03:12:45.123Z".parse()?,
/// };
/// let key = SigningKey::from_seed("ops.example", [7; 32])?;
/// let text = checkpoint.sign(&key);
///
/// let note = Checkpoint::parse(&text)?;
/// assert_eq!(note.checkpoint(), &checkpoint);
/// assert!(note.is_signed());
/// note.verify(&key.verifier())?;
///
/// let other = SigningKey::from_seed("someone.else", [8; 32])?;
/// assert!(matches!(note.verify(&other.verifier()), Err(CheckpointError::OtherKey { .. })));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    text: String,
    /// The body's length in bytes: `text[..body]` is what the signatures sign.
    body: usize,
    checkpoint: Checkpoint,
    signatures: Vec<Signature>,
}

/// One signature line of a [`Note`]: the key it names, and its bytes (not yet verified).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    name: String,
    id: u32,
    /// What follows the key id: 64 bytes for Ed25519, other lengths for other algorithms.
    signature: Vec<u8>,
}

impl Signature {
    /// The name of the key the line names.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The key id the line names.
    pub fn key_id(&self) -> u32 {
        self.id
    }

    /// `<name>+<8 hex key id>`, as [`VerifierKey::fingerprint`] writes it.
    pub fn fingerprint(&self) -> String {
        fingerprint(&self.name, self.id)
    }
}

impl Note {
    /// What the checkpoint says.
    pub fn checkpoint(&self) -> &Checkpoint {
        &self.checkpoint
    }

    /// The text exactly as read.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The body: the four lines the signatures sign, each with its newline.
    pub fn body(&self) -> &str {
        self.text.get(..self.body).unwrap_or_default()
    }

    /// The signature lines, in order (none if the checkpoint is unsigned).
    pub fn signatures(&self) -> &[Signature] {
        &self.signatures
    }

    /// Whether the checkpoint has at least one signature line (verified or not).
    pub fn is_signed(&self) -> bool {
        !self.signatures.is_empty()
    }

    /// `Ok` only if a signature line names `key` (its name and key id) and its signature
    /// verifies over the exact bytes of the body. Otherwise: [`CheckpointError::Unsigned`],
    /// [`CheckpointError::OtherKey`] (listing the keys that did sign), or
    /// [`CheckpointError::BadSignature`].
    pub fn verify(&self, key: &VerifierKey) -> Result<(), CheckpointError> {
        if self.signatures.is_empty() {
            return Err(CheckpointError::Unsigned {
                wanted: key.fingerprint(),
            });
        }
        let mut named = self
            .signatures
            .iter()
            .filter(|s| s.name == key.name() && s.id == key.key_id())
            .peekable();
        if named.peek().is_none() {
            return Err(CheckpointError::OtherKey {
                wanted: key.fingerprint(),
                present: self.signatures.iter().map(Signature::fingerprint).collect(),
            });
        }
        if named.any(|s| key.verifies(self.body().as_bytes(), &s.signature)) {
            Ok(())
        } else {
            Err(CheckpointError::BadSignature {
                fingerprint: key.fingerprint(),
            })
        }
    }
}

fn line_error(line: usize, expected: &'static str) -> CheckpointError {
    CheckpointError::Line { line, expected }
}

pub(super) const JOURNAL_LINE: &str = "project-lanes/ and the journal's identity";

const SIGNATURE_LINE: &str = "a signature line: an em dash (U+2014), a space, a key name, a space, \
                              and the key id and signature in standard base64";

/// One line of the text: where it starts, what it holds without its newline, and whether it has
/// one.
struct Line<'a> {
    number: usize,
    start: usize,
    content: &'a str,
    complete: bool,
}

fn lines(text: &str) -> impl Iterator<Item = Line<'_>> {
    let mut start = 0;
    text.split_inclusive('\n')
        .enumerate()
        .map(move |(i, piece)| {
            let line = Line {
                number: i + 1,
                start,
                content: piece.strip_suffix('\n').unwrap_or(piece),
                complete: piece.ends_with('\n'),
            };
            start += piece.len();
            line
        })
}

/// The next line, if it is there, finished and free of control characters (a signed note holds
/// none but its newlines).
fn next_line<'a>(
    lines: &mut impl Iterator<Item = Line<'a>>,
    number: usize,
) -> Result<Option<Line<'a>>, CheckpointError> {
    let Some(line) = lines.next() else {
        return Ok(None);
    };
    if line.content.chars().any(char::is_control) {
        return Err(line_error(
            line.number,
            "free of control characters (each line ends in a newline alone)",
        ));
    }
    if line.complete {
        Ok(Some(line))
    } else {
        Err(CheckpointError::Truncated { line: number })
    }
}

fn body_line<'a>(
    lines: &mut impl Iterator<Item = Line<'a>>,
    number: usize,
) -> Result<&'a str, CheckpointError> {
    match next_line(lines, number)? {
        Some(line) => Ok(line.content),
        None => Err(CheckpointError::Truncated { line: number }),
    }
}

/// Reads a checkpoint's text: see [`Checkpoint::parse`].
pub(super) fn parse(text: &str) -> Result<Note, CheckpointError> {
    let mut lines = lines(text);
    let journal = body_line(&mut lines, 1)?
        .strip_prefix(ORIGIN_PREFIX)
        .filter(|journal| !journal.is_empty())
        .ok_or(line_error(1, JOURNAL_LINE))?
        .to_owned();
    let links = parse_links(body_line(&mut lines, 2)?)?;
    let root = parse_root(body_line(&mut lines, 3)?)?;
    let time = body_line(&mut lines, 4)?
        .strip_prefix("time ")
        .ok_or(line_error(
            4,
            "time and the checkpoint's time in UTC, like time 2026-05-01T03:12:45.123Z",
        ))?
        .parse::<Timestamp>()
        .map_err(CheckpointError::Time)?;
    let checkpoint = Checkpoint {
        journal,
        links,
        root,
        time,
    };
    // What follows the body: nothing (unsigned), or a blank line and signature lines.
    let body = match lines.next() {
        None => text.len(),
        Some(line) if line.content.is_empty() && line.complete => line.start,
        Some(line) => {
            return Err(line_error(
                line.number,
                "a blank line before the signatures, or the end of the checkpoint",
            ));
        }
    };
    let mut signatures = Vec::new();
    if body < text.len() {
        loop {
            let number = 6 + signatures.len();
            let Some(line) = next_line(&mut lines, number)? else {
                if signatures.is_empty() {
                    return Err(CheckpointError::Truncated { line: number });
                }
                break;
            };
            if signatures.len() == MAX_SIGNATURES {
                return Err(line_error(
                    number,
                    "the end of the checkpoint (it has at most 100 signature lines)",
                ));
            }
            signatures.push(parse_signature(number, line.content)?);
        }
    }
    Ok(Note {
        text: text.to_owned(),
        body,
        checkpoint,
        signatures,
    })
}

/// The number of links: decimal digits, no sign, no leading zero (one spelling per number).
fn parse_links(text: &str) -> Result<u64, CheckpointError> {
    let canonical = !text.is_empty()
        && text.bytes().all(|b| b.is_ascii_digit())
        && (text == "0" || !text.starts_with('0'));
    canonical
        .then(|| text.parse::<u64>().ok())
        .flatten()
        .ok_or_else(|| CheckpointError::Links {
            text: text.to_owned(),
        })
}

/// The root: 32 bytes in standard, padded base64 (one spelling per root: the decoder refuses
/// stray bits).
fn parse_root(text: &str) -> Result<Hash, CheckpointError> {
    let bytes = base64::decode(text)
        .ok_or_else(|| line_error(3, "the root, 32 bytes in standard base64"))?;
    match <[u8; 32]>::try_from(bytes.as_slice()) {
        Ok(root) => Ok(Hash(root)),
        Err(_) => Err(CheckpointError::RootLength { bytes: bytes.len() }),
    }
}

/// `— <name> <base64(key id ‖ signature)>`. The signature is not checked here: a line by a key
/// of another algorithm (a witness's cosignature, say) is kept, and verifies for nobody.
fn parse_signature(number: usize, content: &str) -> Result<Signature, CheckpointError> {
    let refuse = || line_error(number, SIGNATURE_LINE);
    let (name, encoded) = content
        .strip_prefix("\u{2014} ")
        .and_then(|rest| rest.split_once(' '))
        .ok_or_else(refuse)?;
    if !is_key_name(name) {
        return Err(refuse());
    }
    let bytes = base64::decode(encoded).ok_or_else(refuse)?;
    match bytes.split_first_chunk::<4>() {
        Some((id, signature)) if !signature.is_empty() => Ok(Signature {
            name: name.to_owned(),
            id: u32::from_be_bytes(*id),
            signature: signature.to_vec(),
        }),
        _ => Err(refuse()),
    }
}
