//! The audit's check of the hash chain: each sealed row's link recomputed from its fields and
//! the link before it, the first row that breaks the sealing invariant named, and, given a
//! checkpoint's link number and root, whether the journal still extends it.

use std::fmt;

use project_lanes::record::chain::ChainHead;

use super::StoredEntry;

/// What an audit found of the journal's hash chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// The chain before the journal's first row (link 0, or the last pruned row's).
    pub start: ChainHead,
    /// The last link verified (`start` if none was).
    pub head: ChainHead,
    /// Sealed rows whose links were recomputed and matched.
    pub verified: u64,
    /// Rows after the last sealed one, not sealed yet (the next seal gives them their links).
    pub unsealed: u64,
    /// The first row that breaks the chain.
    pub broken: Option<Break>,
    /// What the checkpoint asked about proved, if one was given.
    pub checkpoint: Option<Proof>,
}

impl Chain {
    /// No row was ever sealed, and nothing broke: the journal carries no chain to check (an
    /// older one, or one never sealed). Not a pass.
    pub fn is_unchained(&self) -> bool {
        self.verified == 0 && self.broken.is_none() && self.start.links == 0
    }
}

/// The first row that breaks the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Break {
    /// The row's `seq`.
    pub seq: i64,
    /// Its link number as sealed, if it is sealed.
    pub link: Option<u64>,
    /// What is wrong, in a sentence.
    pub message: String,
}

impl fmt::Display for Break {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the chain breaks at journal row {}", self.seq)?;
        if let Some(link) = self.link {
            write!(f, " (link {link})")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Whether the journal extends a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// The row at the checkpoint's link has its root.
    Extends {
        /// That row's `seq` (the start's if the checkpoint is the pruned point).
        seq: i64,
    },
    /// The journal's sealed chain ends before the checkpoint's link.
    Shorter {
        /// The last link the journal reaches.
        ends: u64,
        /// The checkpoint's.
        links: u64,
    },
    /// The row at the checkpoint's link has another hash: the journal was rewritten.
    Differs {
        /// That row's `seq`.
        seq: i64,
        /// Its link number.
        links: u64,
    },
    /// The checkpoint is from before the journal's pruned start, and is not the start itself.
    BeforeStart {
        /// The start's link.
        start: u64,
        /// The checkpoint's.
        links: u64,
    },
    /// The chain breaks (or a row cannot be read) before the checkpoint's link, so the journal
    /// does not reach it.
    Broken,
}

impl Proof {
    /// Whether the journal extends the checkpoint.
    pub fn holds(&self) -> bool {
        matches!(self, Proof::Extends { .. })
    }
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Proof::Extends { seq } => write!(
                f,
                "the journal extends the checkpoint (its root is journal row {seq}'s link)"
            ),
            Proof::Shorter { ends, links } => write!(
                f,
                "the journal is shorter than the checkpoint: it ends at link {ends}, the \
                 checkpoint at {links} (rows were removed from its end, or were never sealed)"
            ),
            Proof::Differs { seq, links } => write!(
                f,
                "journal row {seq} (link {links}) does not have the checkpoint's root: the \
                 journal was rewritten, its chain recomputed"
            ),
            Proof::BeforeStart { start, links } => write!(
                f,
                "the checkpoint (link {links}) predates the journal's start (link {start}): \
                 its rows were pruned, so it can no longer be checked"
            ),
            Proof::Broken => f.write_str(
                "the chain breaks (or a row cannot be read) before the checkpoint's link, so \
                 the journal does not extend it",
            ),
        }
    }
}

/// The chain as the audit reads the rows, in `seq` order.
pub(crate) struct Checking {
    chain: Chain,
    /// The first unsealed row so far: a sealed one after it breaks the chain.
    first_unsealed: Option<i64>,
    /// A checkpoint's link number and root.
    against: Option<ChainHead>,
}

impl Checking {
    /// Before the first row, whose predecessor is `start`; `against` a checkpoint's head.
    pub(crate) fn new(start: ChainHead, against: Option<ChainHead>) -> Checking {
        let checkpoint = against.and_then(|c| {
            if c.links > start.links {
                return None;
            }
            Some(if c == start {
                Proof::Extends { seq: 0 }
            } else {
                Proof::BeforeStart {
                    start: start.links,
                    links: c.links,
                }
            })
        });
        Checking {
            chain: Chain {
                start,
                head: start,
                verified: 0,
                unsealed: 0,
                broken: None,
                checkpoint,
            },
            first_unsealed: None,
            against,
        }
    }

    /// The start was the pruned row `seq`: a checkpoint proven at it names that row.
    pub(crate) fn start_seq(&mut self, seq: i64) {
        if let Some(Proof::Extends { seq: at }) = &mut self.chain.checkpoint {
            *at = seq;
        }
    }

    /// The next row.
    pub(crate) fn row(&mut self, row: &StoredEntry) {
        if self.chain.broken.is_some() {
            return;
        }
        let Some(sealed) = row.chain else {
            self.chain.unsealed += 1;
            self.first_unsealed.get_or_insert(row.seq);
            return;
        };
        let broken = |message: String| {
            Some(Break {
                seq: row.seq,
                link: Some(sealed.links),
                message,
            })
        };
        let expected = self.chain.head.links + 1;
        self.chain.broken = if let Some(unsealed) = self.first_unsealed {
            Some(Break {
                seq: unsealed,
                link: None,
                message: format!(
                    "it is not sealed, but a later row is (journal row {}, link {}): a row's \
                     seal was removed, or a row inserted",
                    row.seq, sealed.links
                ),
            })
        } else if sealed.links > expected {
            broken(format!(
                "the link numbers skip from {} to {}: {} sealed row(s) before it were removed",
                self.chain.head.links,
                sealed.links,
                sealed.links - expected
            ))
        } else if sealed.links < expected {
            broken(format!(
                "link {} follows link {}: rows were moved or inserted",
                sealed.links, self.chain.head.links
            ))
        } else {
            let next = self
                .chain
                .head
                .next(&project_lanes::journal::link(&row.entry));
            if next != sealed {
                broken(
                    "its fields differ from what was sealed (its time, actor, operation, \
                     answer, outcome or another field was changed, or it was moved)"
                        .into(),
                )
            } else {
                self.chain.head = next;
                self.chain.verified += 1;
                if let Some(c) = self.against.filter(|c| c.links == next.links) {
                    self.chain.checkpoint = Some(if c == next {
                        Proof::Extends { seq: row.seq }
                    } else {
                        Proof::Differs {
                            seq: row.seq,
                            links: next.links,
                        }
                    });
                }
                None
            }
        };
    }

    /// The verdict, once every row was read (`stopped`: the reading stopped at a row that
    /// cannot be read).
    pub(crate) fn finish(mut self, stopped: bool) -> Chain {
        if let (Some(c), None) = (self.against, &self.chain.checkpoint) {
            self.chain.checkpoint = Some(if self.chain.broken.is_some() || stopped {
                Proof::Broken
            } else {
                Proof::Shorter {
                    ends: self.chain.head.links,
                    links: c.links,
                }
            });
        }
        self.chain
    }
}
