//! The hash chain over a journal's transitions: each link is the SHA-256 of the link before it,
//! its number and the transition's fields, so that changing, removing, inserting or moving any
//! transition changes every link after it.
//!
//! A link hashes what replay reads and what the viewer shows of a transition, in the system's
//! own names (a lease by project, run and generation, a reservation by the system's id), so a
//! record exported from any window of the journal carries the journal's own links:
//!
//! ```text
//! link(n) = SHA-256("project-lanes/link/1" 0x00 ‖ link(n-1) ‖ n ‖ field₁ ‖ … ‖ field₁₄)
//! ```
//!
//! `n` is the link's number, from 1, as 8 bytes big-endian; link 0 is 32 zero bytes. Each field
//! is one byte `0` when absent, or `1` and its value: a number as 8 bytes big-endian, a flag as
//! one byte `0` or `1`, a text as its UTF-8 length (4 bytes big-endian) and bytes. The fields, in
//! order: time (milliseconds since 1970), actor, operation, result code (`ok` or the refusal's
//! code), project, run, queue, generation, reservation, outcome, saved, stop requested, settled
//! state, retained. [`Link`] names them.

use std::fmt;

use sha2::{Digest, Sha256};

use crate::op::Op;

/// A link of the chain: 32 bytes of SHA-256.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Hash(pub [u8; 32]);

/// How many hex digits of a link a record's step carries (`h`): enough to name the first step
/// that breaks; the whole link (the root) is what a checkpoint proves.
pub const TAG_DIGITS: usize = 16;

impl Hash {
    /// Link 0: what the first transition of a journal follows.
    pub const ZERO: Hash = Hash([0; 32]);

    /// The 64 lowercase hex digits.
    pub fn to_hex(&self) -> String {
        let mut text = String::with_capacity(64);
        for byte in self.0 {
            text.push(char::from(HEX[usize::from(byte >> 4)]));
            text.push(char::from(HEX[usize::from(byte & 15)]));
        }
        text
    }

    /// The link written as 64 lowercase hex digits, if `text` is one.
    pub fn from_hex(text: &str) -> Option<Hash> {
        let bytes = text.as_bytes();
        if bytes.len() != 64 {
            return None;
        }
        let mut hash = [0u8; 32];
        for (i, pair) in bytes.chunks(2).enumerate() {
            hash[i] = (digit(pair[0])? << 4) | digit(pair[1])?;
        }
        Some(Hash(hash))
    }

    /// The first [`TAG_DIGITS`] hex digits, as a record's step carries them.
    pub fn tag(&self) -> String {
        let mut hex = self.to_hex();
        hex.truncate(TAG_DIGITS);
        hex
    }
}

const HEX: &[u8; 16] = b"0123456789abcdef";

fn digit(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    }
}

impl fmt::Display for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Hash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Hash({})", self.to_hex())
    }
}

/// Where a chain stands: how many links it has, and the last one ([`Hash::ZERO`] for none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ChainHead {
    /// The number of links.
    pub links: u64,
    /// The last link.
    pub hash: Hash,
}

impl ChainHead {
    /// A chain with no link yet.
    pub const GENESIS: ChainHead = ChainHead {
        links: 0,
        hash: Hash::ZERO,
    };

    /// The chain with `link` appended.
    pub fn next(&self, link: &Link<'_>) -> ChainHead {
        let links = self.links + 1;
        ChainHead {
            links,
            hash: link.hash(self.hash, links),
        }
    }
}

/// One transition, field by field, as the chain hashes it (the module's documentation gives
/// the bytes). Absent fields are `None`; which are present depends on the operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link<'a> {
    /// When, in milliseconds since 1970 (a journal without a clock has none).
    pub at: Option<u64>,
    /// Who called.
    pub actor: Option<&'a str>,
    /// The operation.
    pub op: Op,
    /// `ok`, or the refusal's code.
    pub code: &'a str,
    /// The project given (claim, enqueue) or the lease's.
    pub project: Option<&'a str>,
    /// The run given (claim, enqueue) or the lease's.
    pub run: Option<&'a str>,
    /// The queue given (enqueue, dispatch).
    pub queue: Option<&'a str>,
    /// The lease's generation: the one a claim issued, or the one presented.
    pub generation: Option<u64>,
    /// The reservation, by the system's id: the one an enqueue made, a dispatch handed out, or
    /// a call named.
    pub reservation: Option<u64>,
    /// The outcome given (release, finish).
    pub outcome: Option<&'a str>,
    /// Persist's `saved`.
    pub saved: Option<bool>,
    /// A release's receipt: whether a stop had been requested.
    pub stop_requested: Option<bool>,
    /// A persist's answer: `done` or `unresolved`.
    pub settled: Option<&'a str>,
    /// A dispatch that found nothing: how many reservations wait.
    pub retained: Option<u64>,
}

impl<'a> Link<'a> {
    /// A link of `op` answered `code`, every other field absent.
    pub fn new(op: Op, code: &'a str) -> Link<'a> {
        Link {
            at: None,
            actor: None,
            op,
            code,
            project: None,
            run: None,
            queue: None,
            generation: None,
            reservation: None,
            outcome: None,
            saved: None,
            stop_requested: None,
            settled: None,
            retained: None,
        }
    }

    /// This link's hash as link number `number`, after `before`.
    pub fn hash(&self, before: Hash, number: u64) -> Hash {
        let mut h = Sha256::new();
        h.update(b"project-lanes/link/1\0");
        h.update(before.0);
        h.update(number.to_be_bytes());
        number_field(&mut h, self.at);
        text_field(&mut h, self.actor);
        text_field(&mut h, Some(self.op.as_str()));
        text_field(&mut h, Some(self.code));
        text_field(&mut h, self.project);
        text_field(&mut h, self.run);
        text_field(&mut h, self.queue);
        number_field(&mut h, self.generation);
        number_field(&mut h, self.reservation);
        text_field(&mut h, self.outcome);
        flag_field(&mut h, self.saved);
        flag_field(&mut h, self.stop_requested);
        text_field(&mut h, self.settled);
        number_field(&mut h, self.retained);
        Hash(h.finalize().into())
    }
}

fn number_field(h: &mut Sha256, value: Option<u64>) {
    match value {
        None => h.update([0]),
        Some(n) => {
            h.update([1]);
            h.update(n.to_be_bytes());
        }
    }
}

fn flag_field(h: &mut Sha256, value: Option<bool>) {
    match value {
        None => h.update([0]),
        Some(b) => h.update([1, u8::from(b)]),
    }
}

fn text_field(h: &mut Sha256, value: Option<&str>) {
    match value {
        None => h.update([0]),
        Some(text) => {
            h.update([1]);
            // Texts are bounded far below 4 GiB (a record line is at most 1 MiB).
            h.update(u32::try_from(text.len()).unwrap_or(u32::MAX).to_be_bytes());
            h.update(text.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_refuses_what_is_not_a_link() {
        let link = Link::new(Op::Claim, "ok").hash(Hash::ZERO, 1);
        assert_eq!(Hash::from_hex(&link.to_hex()), Some(link));
        assert_eq!(link.tag().len(), TAG_DIGITS);
        assert!(link.to_hex().starts_with(&link.tag()));
        for bad in ["", "00", &"g".repeat(64), &"A".repeat(64), &"0".repeat(65)] {
            assert_eq!(Hash::from_hex(bad), None, "{bad}");
        }
    }

    #[test]
    fn every_field_number_and_predecessor_changes_the_link() {
        let mut base = Link::new(Op::Release, "ok");
        base.at = Some(5);
        base.actor = Some("w");
        base.project = Some("p");
        base.run = Some("r");
        base.generation = Some(2);
        base.outcome = Some("succeeded");
        base.stop_requested = Some(false);
        let hash = base.hash(Hash::ZERO, 1);
        let mut variants = vec![
            base.hash(Hash([1; 32]), 1),
            base.hash(Hash::ZERO, 2),
            Link {
                at: Some(6),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                at: None,
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                actor: Some("x"),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                op: Op::Finish,
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                code: "LEASE_NOT_CURRENT",
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                project: Some("q"),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                run: Some("s"),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                queue: Some("p"),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                generation: Some(3),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                reservation: Some(2),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                outcome: Some("failed"),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                saved: Some(false),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                stop_requested: Some(true),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                settled: Some("done"),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            Link {
                retained: Some(0),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
            // A text moved from one field to the next is another link.
            Link {
                project: Some("pr"),
                run: Some(""),
                ..base.clone()
            }
            .hash(Hash::ZERO, 1),
        ];
        variants.push(hash);
        let mut distinct = variants.clone();
        distinct.sort_by_key(|h| h.0);
        distinct.dedup();
        assert_eq!(distinct.len(), variants.len());
    }

    #[test]
    fn the_bytes_are_the_documented_ones() {
        // Written out by hand from the module's documentation, so a change to the encoding
        // cannot pass unnoticed: every chained record and journal would stop verifying.
        let mut link = Link::new(Op::Claim, "ok");
        link.at = Some(1);
        link.project = Some("p");
        let mut bytes = b"project-lanes/link/1\0".to_vec();
        bytes.extend([0u8; 32]);
        bytes.extend(1u64.to_be_bytes());
        bytes.extend([1, 0, 0, 0, 0, 0, 0, 0, 1]); // at
        bytes.push(0); // actor
        bytes.extend([1, 0, 0, 0, 5]);
        bytes.extend(b"claim");
        bytes.extend([1, 0, 0, 0, 2]);
        bytes.extend(b"ok");
        bytes.extend([1, 0, 0, 0, 1, b'p']);
        bytes.extend([0; 9]); // run … retained
        assert_eq!(
            link.hash(Hash::ZERO, 1).0,
            <[u8; 32]>::from(Sha256::digest(&bytes))
        );
    }
}
