//! A chained record's proof, checked as it is read: every chained step's link recomputed from
//! the link before it and the step's fields (in the system's names: a lease by its project,
//! run and generation, a reservation by the system's id), compared with the tag the step
//! carries, and the last link with the end's root and the checkpoint's.
//!
//! A step whose link differs from its tag breaks the chain there: it was changed after it was
//! chained, or a step before it was removed, added or moved. That makes the record invalid at
//! that step's line, as any broken rule does, so every reader gives it the same verdict.

use std::sync::Arc;

use crate::op::Op;
use crate::record::chain::{ChainHead, Hash, Link};
use crate::record::checkpoint::{Checkpoint, VerifierKey};

use super::line::{Answer, Broken, End, Item, Step, broken};

/// How a record's chain read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chain {
    /// No chain line: a record from a scenario, from a journal without a chain, or of an
    /// earlier version.
    Unchained,
    /// Every link recomputed and equal to what the record carries.
    Chained(Box<Chained>),
}

/// A chain that holds: where it starts and ends, and what proves its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chained {
    /// The chain before the record's first step.
    pub start: ChainHead,
    /// The chain after its last chained step: `hash` is the record's root.
    pub end: ChainHead,
    /// Steps chained (from the first; steps after them, not yet sealed, are not).
    pub steps: u64,
    /// Steps after the chained ones (journal rows not sealed when the record was exported).
    pub unchained: u64,
    /// Journal entries the record leaves out, carried by their links only.
    pub left_out: u64,
    /// The checkpoint of the journal at the record's root, if the record carries one.
    pub checkpoint: Option<Checkpointed>,
}

/// A checkpoint a record carries, of the journal at the record's root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpointed {
    /// The checkpoint's text.
    pub note: String,
    /// The verifier key the record gives for it, if any.
    pub key: Option<String>,
    /// The journal it names (its identity), and when it was taken.
    pub journal: String,
    /// When it was taken.
    pub time: crate::time::Timestamp,
    /// The fingerprint (`name+id`) of the key whose signature verified: the record's `key`.
    /// `None` for an unsigned checkpoint, or one signed by a key the record does not give.
    pub signer: Option<String>,
    /// The fingerprints of every signature line, verified or not.
    pub signatures: Vec<String>,
}

/// The prover's state: the chain so far, and what a step's fields need to be named as the
/// system names them.
#[derive(Default)]
pub(crate) struct Prover {
    /// The chain line has been read: the chain so far.
    head: Option<ChainHead>,
    /// A step has been read.
    stepped: bool,
    start: ChainHead,
    steps: u64,
    unchained: u64,
    left_out: u64,
    checkpoint: Option<Checkpointed>,
    /// Actors' names, by number from 1.
    actors: Vec<String>,
    /// Leases by handle number from 1: project, run and generation (none if not given).
    leases: Vec<(Arc<str>, Arc<str>, Option<u64>)>,
    /// Reservations by record id from 1: the system's id (none if not given).
    reservations: Vec<Option<u64>>,
}

impl Prover {
    /// One line after the head, after the checker has let it through.
    pub(crate) fn item(&mut self, item: &Item) -> Result<(), Broken> {
        match item {
            Item::Actor { name, .. } => self.actors.push(name.clone()),
            Item::Lease(lease, generation) => self.leases.push((
                lease.project.as_str().into(),
                lease.run.as_str().into(),
                *generation,
            )),
            Item::Reservation(_, sid) => self.reservations.push(*sid),
            Item::Chain(head) => {
                if self.head.is_some() {
                    return Err(broken("chain", "a record has one chain line"));
                }
                if self.stepped {
                    return Err(broken(
                        "chain",
                        "the chain line comes before the first step",
                    ));
                }
                self.head = Some(*head);
                self.start = *head;
            }
            Item::Link(hash) => {
                self.not_checkpointed("link")?;
                let head = self.chained("link")?;
                self.head = Some(ChainHead {
                    links: head.links + 1,
                    hash: *hash,
                });
                self.left_out += 1;
            }
            Item::Step(step, _) => {
                self.not_checkpointed("op")?;
                self.stepped = true;
                self.step(step)?;
            }
            Item::Checkpoint { note, key } => {
                let head = self.chained("checkpoint")?;
                if self.checkpoint.is_some() {
                    return Err(broken("checkpoint", "a record has one checkpoint line"));
                }
                self.checkpoint = Some(checkpointed(note, key.as_deref(), head)?);
            }
            Item::Queue(_) | Item::End(_) => {}
        }
        Ok(())
    }

    /// Nothing chained follows the checkpoint line.
    fn not_checkpointed(&self, what: &'static str) -> Result<(), Broken> {
        match self.checkpoint {
            Some(_) => Err(broken(
                what,
                "the checkpoint line comes after the last step and link",
            )),
            None => Ok(()),
        }
    }

    /// The chain so far, for a line that needs one (`what` names it).
    fn chained(&self, what: &'static str) -> Result<ChainHead, Broken> {
        match self.head {
            Some(_) if self.unchained > 0 => Err(broken(
                what,
                "comes after an unchained step: the chain covers the first steps only",
            )),
            Some(head) => Ok(head),
            None => Err(broken(
                what,
                "a record without a chain line has no link or checkpoint lines",
            )),
        }
    }

    fn step(&mut self, step: &Step) -> Result<(), Broken> {
        // A record without a chain line before its first step has none (`Item::Chain`): no
        // link is ever computed, so the handles it issues are not kept (a million-step
        // record issues hundreds of thousands).
        let Some(head) = self.head else {
            return match step.proof {
                Some(_) => Err(broken("h", "a chained step needs the chain line before it")),
                None => Ok(()),
            };
        };
        // Handles first: a later step may name what this one issued.
        match (step.op, &step.answer) {
            (Op::Claim, Answer::Ok) => self.leases.push((
                step.input.project.clone().unwrap_or_default(),
                step.input.run.clone().unwrap_or_default(),
                step.proof.and_then(|p| p.issued),
            )),
            (Op::Enqueue, Answer::Ok) => self.reservations.push(step.proof.and_then(|p| p.issued)),
            _ => {}
        }
        let Some(proof) = step.proof else {
            self.unchained += 1;
            return Ok(());
        };
        if self.unchained > 0 {
            return Err(broken(
                "h",
                "a chained step after an unchained one: the chain covers the first steps only",
            ));
        }
        let link = self.link(step)?;
        let next = head.next(&link);
        let tag = u64::from_be_bytes(next.hash.0[..8].try_into().unwrap_or_default());
        if tag != proof.tag {
            return Err(broken(
                "h",
                format!(
                    "the chain breaks at this step (link {}): its fields are not the ones \
                     chained, or a step before it was removed, added or moved",
                    next.links
                ),
            ));
        }
        self.head = Some(next);
        self.steps += 1;
        Ok(())
    }

    /// The step as its link, its handles named as the system names them.
    fn link<'a>(&'a self, step: &'a Step) -> Result<Link<'a>, Broken> {
        let mut link = Link::new(step.op, step.answer.code());
        link.at = step.at.map(|at| at.millis());
        link.actor = match step.by {
            Some(by) => self.actors.get(by as usize - 1).map(String::as_str),
            None => None,
        };
        let input = &step.input;
        if let Some(handle) = &input.lease {
            let (project, run, generation) = self.lease(handle)?;
            link.project = Some(project);
            link.run = Some(run);
            link.generation = Some(generation);
        } else {
            link.project = input.project.as_deref();
            link.run = input.run.as_deref();
        }
        link.queue = input.queue.as_deref();
        link.outcome = input.outcome.as_deref();
        link.saved = input.saved;
        if let Some(id) = &input.reservation {
            link.reservation = Some(self.reservation(id, "reservation")?);
        }
        match &step.answer {
            Answer::Ok => {
                if matches!(step.op, Op::Claim | Op::Enqueue) {
                    let issued = step.proof.and_then(|p| p.issued);
                    if step.op == Op::Claim {
                        link.generation = issued;
                    } else {
                        link.reservation = issued;
                    }
                }
            }
            Answer::Released { stop_requested } => link.stop_requested = Some(*stop_requested),
            Answer::Dispatched(id) => {
                link.reservation = Some(self.reservation(&id.to_string(), "dispatched")?);
            }
            Answer::Nothing { retained } => link.retained = Some(*retained),
            Answer::Settled(state) => link.settled = Some(state.as_str()),
            Answer::Viewed(_) | Answer::Refused(_) => {}
        }
        Ok(link)
    }

    fn lease(&self, handle: &str) -> Result<(&str, &str, u64), Broken> {
        let found = crate::record::handle_number(handle)
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.leases.get(i));
        match found {
            Some((project, run, Some(generation))) => Ok((&**project, &**run, *generation)),
            _ => Err(broken(
                "lease",
                format!(
                    "a chained step names lease {handle}, whose generation the record does not \
                     give (`g` on its claim or lease line)"
                ),
            )),
        }
    }

    fn reservation(&self, id: &str, field: &'static str) -> Result<u64, Broken> {
        let found = crate::dispatch::ReservationId::parse(id)
            .and_then(|r| usize::try_from(r.number()).ok())
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.reservations.get(i).copied().flatten());
        found.ok_or_else(|| {
            broken(
                field,
                format!(
                    "a chained step names reservation {id}, whose id in the system the record \
                     does not give (`sid` on its enqueue or reservation line)"
                ),
            )
        })
    }

    /// The end line: a chained record's end gives the chain's last link, and its checkpoint is
    /// of that link.
    pub(crate) fn end(&mut self, end: &End) -> Result<Chain, Broken> {
        let Some(head) = self.head else {
            if end.root.is_some() {
                return Err(broken("end", "a record without a chain line has no `root`"));
            }
            return Ok(Chain::Unchained);
        };
        let root = end.root.as_deref().and_then(Hash::from_hex);
        if end.links != Some(head.links) || root != Some(head.hash) {
            return Err(broken(
                "end",
                format!(
                    "the chain ends at link {} ({}); the end line says {}",
                    head.links,
                    head.hash,
                    match (end.links, &end.root) {
                        (Some(links), Some(root)) => format!("link {links} ({root})"),
                        _ => "nothing (a chained end has `links` and `root`)".to_owned(),
                    }
                ),
            ));
        }
        Ok(Chain::Chained(Box::new(Chained {
            start: self.start,
            end: head,
            steps: self.steps,
            unchained: self.unchained,
            left_out: self.left_out,
            checkpoint: self.checkpoint.clone(),
        })))
    }
}

/// The checkpoint line, read and checked: of the chain's last link, and signed by the key it
/// gives if it gives one.
fn checkpointed(note: &str, key: Option<&str>, head: ChainHead) -> Result<Checkpointed, Broken> {
    let parsed = Checkpoint::parse(note).map_err(|e| broken("checkpoint", e.to_string()))?;
    let checkpoint = parsed.checkpoint();
    if checkpoint.links != head.links || checkpoint.root != head.hash {
        return Err(broken(
            "checkpoint",
            format!(
                "the checkpoint is of link {} ({}); the record's chain ends at link {} ({})",
                checkpoint.links, checkpoint.root, head.links, head.hash
            ),
        ));
    }
    let signer = match key {
        Some(text) => {
            let verifier = VerifierKey::parse(text).map_err(|e| broken("key", e.to_string()))?;
            parsed
                .verify(&verifier)
                .map_err(|e| broken("checkpoint", e.to_string()))?;
            Some(verifier.fingerprint())
        }
        None => None,
    };
    Ok(Checkpointed {
        note: note.to_owned(),
        key: key.map(str::to_owned),
        journal: checkpoint.journal.clone(),
        time: checkpoint.time,
        signer,
        signatures: parsed
            .signatures()
            .iter()
            .map(|s| s.fingerprint())
            .collect(),
    })
}
