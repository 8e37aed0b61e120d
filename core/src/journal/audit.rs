//! An audit: a journal replayed on the core in one pass, every answer compared, without a
//! record in between; the first transition whose answer the core does not give is named.
//!
//! It replays exactly what an export of the same entries would hold (the same cut, the same
//! steps), so an audit and a replay of the export agree on the same journal.

use crate::record::stream::{Answer, Engine, Item};
use crate::time::Timestamp;
use crate::transition::Entry;

use super::export::{Export, ExportError};
use super::exporter::Exporter;
use super::history::{Journal, State};

/// What an audit found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    /// Transitions replayed.
    pub transitions: u64,
    /// The first transition whose answer the core does not give, if any.
    pub mismatch: Option<AuditMismatch>,
}

/// A transition whose answer the core does not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditMismatch {
    /// The entry's index among those audited (for a database, the caller maps it to its row).
    pub entry: usize,
    /// What the journal says the system answered (reservations by the system's ids).
    pub journaled: String,
    /// What the core answers (empty when the journal's answer does not fit its call at all:
    /// `journaled` then says why).
    pub core: String,
}

/// Replays entries on the core as they come, as an export of them would hold them.
pub struct Auditor {
    exporter: Exporter,
    engine: Engine,
    transitions: u64,
    /// The first mismatch: the entry, what the record holds, what the core answers.
    found: Option<(usize, Answer, Answer)>,
    mismatch: Option<AuditMismatch>,
}

impl Auditor {
    /// An audit of a system with `queues` whose journal starts from `start`, from `since` on
    /// (as an export cuts it).
    pub fn new(queues: &[crate::Label], start: State, since: Option<Timestamp>) -> Auditor {
        let mut export = Export::new("audit", "audit").unwrap_or_else(|_| unreachable!("valid"));
        if let Some(since) = since {
            export = export.since(since);
        }
        Auditor {
            exporter: Exporter::new(&export, queues, start),
            engine: Engine::new(),
            transitions: 0,
            found: None,
            mismatch: None,
        }
    }

    /// The next entry. Once a mismatch is found the rest is not replayed. An entry that no
    /// system could have written is that mismatch.
    pub fn entry(&mut self, entry: &Entry) -> Result<(), ExportError> {
        if self.mismatch.is_some() {
            return Ok(());
        }
        let Auditor {
            exporter,
            engine,
            transitions,
            found,
            ..
        } = self;
        let result = exporter.entry(entry, &mut |index, item| {
            replay(engine, transitions, found, index, item)
        });
        match result {
            Err(ExportError::Inconsistent { entry, message }) => {
                self.mismatch = Some(AuditMismatch {
                    entry,
                    journaled: message,
                    core: String::new(),
                });
                Ok(())
            }
            Err(e) => Err(e),
            Ok(()) => {
                if let Some((index, recorded, replayed)) = self.found.take() {
                    let words = |a: &Answer| describe(a, &self.exporter);
                    self.mismatch = Some(AuditMismatch {
                        entry: index,
                        journaled: words(&recorded),
                        core: words(&replayed),
                    });
                }
                Ok(())
            }
        }
    }

    /// The first mismatch, once found.
    pub fn mismatch(&self) -> Option<&AuditMismatch> {
        self.mismatch.as_ref()
    }

    /// The transitions replayed so far.
    pub fn transitions(&self) -> u64 {
        self.transitions
    }

    /// The same audit, for a system that keeps its settled reservations itself: see
    /// [`Exporter::forgetting_settled`]. Its core also forgets the reservations settled for
    /// good before the oldest live one. The verdict is the same.
    pub fn forgetting_settled(mut self) -> Auditor {
        self.exporter = self.exporter.forgetting_settled();
        self.engine = std::mem::replace(&mut self.engine, Engine::new()).retiring();
        self
    }

    /// What the system holds after the entries so far (the reservations it knows, but those
    /// settled ones forgotten).
    pub fn state(&self) -> &State {
        self.exporter.state()
    }

    /// Whether reservation `id` is known ([`Exporter::knows`]).
    pub fn knows(&self, id: crate::dispatch::ReservationId) -> bool {
        self.exporter.knows(id)
    }

    /// Whether an entry naming reservation `id` needs it back ([`Exporter::wants`]).
    pub fn wants(&self, id: crate::dispatch::ReservationId) -> bool {
        self.exporter.wants(id)
    }

    /// A settled reservation that a later entry names, from the system's own store
    /// ([`Exporter::settled`]).
    pub fn settled(&mut self, view: crate::dispatch::ReservationView) {
        self.exporter.settled(view);
    }

    /// The audit, once every entry was given; auditing nothing is [`ExportError::Nothing`].
    pub fn finish(self) -> Result<Audit, ExportError> {
        if self.transitions == 0 && self.mismatch.is_none() {
            return Err(ExportError::Nothing);
        }
        Ok(Audit {
            transitions: self.transitions,
            mismatch: self.mismatch,
        })
    }
}

fn replay(
    engine: &mut Engine,
    transitions: &mut u64,
    found: &mut Option<(usize, Answer, Answer)>,
    index: Option<usize>,
    item: &Item,
) -> Result<(), ExportError> {
    let start = |e: crate::dispatch::DispatchError| {
        ExportError::Invalid(crate::record::RecordError::Invalid {
            at: "start".into(),
            message: format!("the core cannot start from the journal's state: {e}"),
        })
    };
    match item {
        Item::Queue(queue) => engine.queue(queue),
        Item::Lease(lease, _) => engine.lease(lease).map_err(start)?,
        Item::Reservation(view, _) => engine.reservation(view).map_err(start)?,
        Item::Step(step, _) => {
            let replayed = engine.run(step);
            *transitions += 1;
            if replayed != step.answer {
                *found = Some((index.unwrap_or(0), step.answer.clone(), replayed));
            }
        }
        Item::Actor { .. }
        | Item::End(_)
        | Item::Chain(_)
        | Item::Link(_)
        | Item::Checkpoint { .. } => {}
    }
    Ok(())
}

/// An answer in words, reservations by the system's ids.
fn describe(answer: &Answer, exporter: &Exporter) -> String {
    match answer {
        Answer::Dispatched(id) => {
            let system = exporter.system_id(*id).unwrap_or(*id);
            format!("ok: dispatched {system}")
        }
        other => other.to_string(),
    }
}

impl Journal {
    /// Replays the journal (from `since` on, starting from the state then) on the core in one
    /// pass: the number of transitions, and the first whose answer the core does not give.
    ///
    /// ```
    /// use project_lanes::journal::Journal;
    /// use project_lanes::{Outcome, ProjectLanes};
    ///
    /// let lanes = ProjectLanes::new().with_journal(None);
    /// let lease = lanes.claim("docs", "nightly-7")?;
    /// lanes.release(&lease, Outcome::Succeeded)?;
    /// let mut journal = Journal::lanes();
    /// journal.extend(lanes.take_journal());
    /// let audit = journal.audit(None)?;
    /// assert_eq!((audit.transitions, audit.mismatch), (2, None));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn audit(&self, since: Option<Timestamp>) -> Result<Audit, ExportError> {
        let mut auditor = Auditor::new(&self.queues, self.start.clone(), since);
        for entry in &self.entries {
            auditor.entry(entry)?;
        }
        auditor.finish()
    }
}
