//! A journal as a version 3 record, an entry at a time: what a system held when the window
//! begins becomes the record's start, and every entry after it a step, written (or audited) as
//! it comes. The exporter holds the system's state, and the handle or id the record gave each
//! lease and reservation (a later step may name any of them again: a stale release, a cancel
//! of a finished run) as a few numbers; for a system that keeps its settled reservations
//! itself it forgets them ([`Exporter::forgetting_settled`]), so what it holds is what is live.
//!
//! A window is cut in journal order: from its first entry at or after `since`, up to (not
//! including) its first entry at or after `until`; the times of concurrent entries may be a
//! little out of order, the order is what replays. Entries of projects not asked for are left
//! out (operations on different projects commute, and a dispatch that handed out a project's
//! reservation handed out the head of that project's line), and so is a call naming a
//! reservation that was never enqueued. Leases get handles and reservations ids anew, in the
//! order the record first holds them: a lease or a settled reservation from before the window
//! that a step names is declared on a line of its own just before that step.
//!
//! The record keeps a step's answer without what its call already fixes (a claim's project and
//! run, an enqueue's queue, a finish's outcome, …): an entry whose answer breaks that is not one
//! a system could have written, and is refused ([`ExportError::Inconsistent`]).

use std::collections::HashMap;

use crate::dispatch::{ReservationId, ReservationState, ReservationView};
use crate::label::Quoted;
use crate::op::MAX_INPUT_CHARS;
use crate::record::chain::{ChainHead, Hash};
use crate::record::stream::{Answer as Kept, Head, Item, Proof, Step};
use crate::record::{FORMAT, Input, Origin, OriginKind, StartLease, StartLeaseState, VERSION_3};
use crate::transition::{Answer, Call, Entry, LeaseKey};
use crate::{Label, LaneState, LaneView, Outcome};

use super::export::{Export, ExportError, default_title, streamed_summary};
use super::history::State;
use super::issued::{IdSet, Issued};

/// Turns a journal's entries, given in order, into the items of a version 3 record.
///
/// ```
/// use project_lanes::journal::{Exporter, Export, State};
/// use project_lanes::record::stream::Item;
/// use project_lanes::{Outcome, ProjectLanes};
///
/// let lanes = ProjectLanes::new().with_journal(None);
/// let lease = lanes.claim("docs", "nightly-7")?;
/// lanes.release(&lease, Outcome::Succeeded)?;
/// let export = Export::new("tonight", "build farm")?;
/// let mut exporter = Exporter::new(&export, &[], State::new());
/// let mut items = Vec::new();
/// for entry in lanes.take_journal() {
///     exporter.entry(&entry, &mut |_, item| Ok(items.push(item.clone())))?;
/// }
/// exporter.finish(&mut |_, item| Ok(items.push(item.clone())))?;
/// assert_eq!(items.len(), 3); // two steps, the end
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Exporter {
    export: Export,
    queues: Vec<Label>,
    /// What the system holds, after every entry so far.
    state: State,
    /// Entries given so far (an entry's index names it in errors).
    position: usize,
    /// The window has begun: the start is out.
    begun: bool,
    /// The window is over.
    over: bool,
    /// Lease handles and record ids issued so far.
    issued: Issued,
    /// Every reservation the state has held, forgotten or not.
    seen: IdSet,
    /// Settled reservations are forgotten ([`Exporter::forgetting_settled`]).
    forget: bool,
    actors: HashMap<String, u64>,
    steps: u64,
    /// A chained export: the chain after the entries so far, while every entry had its link.
    chain: Option<ChainHead>,
    /// The chain line is out: the record is chained (until an entry without a link).
    chain_written: bool,
    /// An entry in the window came without its link (not sealed): later steps are unchained.
    chain_stopped: bool,
}

/// Where items go: each with the index of the entry it comes from (`None` for the start), or
/// the reason to stop.
pub type Out<'a> = dyn FnMut(Option<usize>, &Item) -> Result<(), ExportError> + 'a;

impl Exporter {
    /// An exporter of what `export` asks for, from a system with `queues` whose journal starts
    /// from `start`.
    pub fn new(export: &Export, queues: &[Label], start: State) -> Exporter {
        let mut seen = IdSet::default();
        for view in start.reservations() {
            seen.insert(view.id);
        }
        Exporter {
            export: export.clone(),
            queues: queues.to_vec(),
            state: start,
            position: 0,
            begun: false,
            over: false,
            issued: Issued::default(),
            seen,
            forget: false,
            actors: HashMap::new(),
            steps: 0,
            chain: None,
            chain_written: false,
            chain_stopped: false,
        }
    }

    /// The same exporter, writing the journal's hash chain into the record: `start` is the
    /// chain before the journal's first entry. Each step then carries its link's tag (and a
    /// claim's generation, an enqueue's id in the system), each entry the window leaves out its
    /// link, and the end the root. Entries given by [`entry`](Self::entry) are linked here;
    /// [`entry_sealed`](Self::entry_sealed) gives each entry's link as a system stored it.
    pub fn chained(mut self, start: ChainHead) -> Exporter {
        self.chain = Some(start);
        self
    }

    /// The chain after the last entry the record holds, if the record is chained: what a
    /// checkpoint given to [`finish_with`](Self::finish_with) must be of.
    pub fn root(&self) -> Option<ChainHead> {
        self.chain.filter(|_| self.chain_written)
    }

    /// The same exporter, for a system that keeps its settled reservations itself (a
    /// database's table): each reservation is forgotten once it is settled for good (done,
    /// cancelled, resolved), but for its record id and project, so the memory is what is live
    /// and a few numbers for each lease and reservation the record names. An entry that names
    /// one forgotten before the record named it needs it back: [`wants`](Self::wants) says so,
    /// and [`settled`](Self::settled) gives it. The record is the same byte for byte.
    pub fn forgetting_settled(mut self) -> Exporter {
        self.forget = true;
        self
    }

    /// The record's head: what it is, and where it came from.
    pub fn head(&self) -> Head {
        let export = &self.export;
        Head {
            format: FORMAT.into(),
            version: VERSION_3,
            id: export.id.clone(),
            title: export
                .title
                .clone()
                .unwrap_or_else(|| default_title(export)),
            summary: export
                .summary
                .clone()
                .unwrap_or_else(|| streamed_summary(export)),
            work_executed_here: false,
            origin: Some(Origin {
                kind: OriginKind::Journal,
                system: Some(export.system.clone()),
                since: export.since,
                until: export.until,
            }),
        }
    }

    /// The steps written so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// What the system holds after the entries so far (the reservations it knows, but those
    /// settled ones [forgotten](Self::forgetting_settled)).
    pub fn state(&self) -> &State {
        &self.state
    }

    /// Whether reservation `id` is known: held by the start, enqueued by an entry, or given by
    /// [`settled`](Self::settled) (forgotten or not).
    pub fn knows(&self, id: ReservationId) -> bool {
        self.seen.contains(id)
    }

    /// Whether an entry that names reservation `id` needs it back from the system's store:
    /// it was settled and [forgotten](Self::forgetting_settled) before the record named it.
    pub fn wants(&self, id: ReservationId) -> bool {
        self.forget
            && !self.over
            && self.seen.contains(id)
            && self.state.reservation(id).is_none()
            && self.issued.id(id).is_none()
    }

    /// A settled reservation that a later entry names, from the system's own store: one from
    /// before the journal's first entry (a pruned journal's start keeps only what is live), or
    /// one this exporter [wants](Self::wants) back.
    pub fn settled(&mut self, view: ReservationView) {
        self.seen.insert(view.id);
        self.state.add_reservation(view);
    }

    /// The project of the reservation an entry names, or of its lease or call.
    fn project_of<'a>(&'a self, entry: &'a Entry) -> Option<&'a str> {
        self.state.project_of(entry).or_else(|| match &entry.call {
            Call::Finish { reservation, .. }
            | Call::Persist { reservation, .. }
            | Call::Cancel { reservation }
            | Call::Resolve { reservation } => {
                self.issued.id(*reservation).map(|(_, p)| p.as_str())
            }
            _ => None,
        })
    }

    /// The state after `entry`; a reservation it settled, or named settled, is then forgotten
    /// if the exporter forgets them.
    fn apply(&mut self, entry: &Entry) {
        self.state.apply(entry);
        let answered = match &entry.answer {
            Answer::Reservation(view) | Answer::Dispatched(view) | Answer::Persisting(view) => {
                Some(view.id)
            }
            _ => None,
        };
        if let Some(id) = answered {
            self.seen.insert(id);
        }
        if !self.forget {
            return;
        }
        let named = match &entry.call {
            Call::Finish { reservation, .. }
            | Call::Persist { reservation, .. }
            | Call::Cancel { reservation }
            | Call::Resolve { reservation } => Some(*reservation),
            _ => answered,
        };
        if let Some(id) = named
            && self.state.reservation(id).is_some_and(|v| settled(v.state))
        {
            self.state.forget_reservation(id);
        }
    }

    /// The next entry of the journal: before the window, it changes the state the record will
    /// start from; in it, it becomes a step (or is left out); after it, it is ignored.
    pub fn entry(&mut self, entry: &Entry, out: &mut Out<'_>) -> Result<(), ExportError> {
        let link = self.chain.map(|head| head.next(&super::link(entry)).hash);
        self.entry_sealed(entry, link, out)
    }

    /// The next entry, with its link as the system stored it (`None`: not sealed yet, and
    /// neither is any entry after it). The record carries the stored link, so an entry changed
    /// after it was sealed breaks the record's chain at its step. Without
    /// [`chained`](Self::chained), the link is ignored.
    pub fn entry_sealed(
        &mut self,
        entry: &Entry,
        link: Option<Hash>,
        out: &mut Out<'_>,
    ) -> Result<(), ExportError> {
        let index = self.position;
        self.position += 1;
        if self.over {
            return Ok(());
        }
        let timed = |at: Option<crate::record::Timestamp>| at.ok_or(ExportError::NoTimes);
        if !self.begun {
            if let Some(since) = self.export.since
                && timed(entry.at)? < since
            {
                self.apply(entry);
                self.link(link);
                return Ok(());
            }
            self.begin(out)?;
        }
        if let Some(until) = self.export.until
            && timed(entry.at)? >= until
        {
            self.over = true;
            return Ok(());
        }
        let linked = self.link(link).filter(|_| self.chain_written);
        let project = self.project_of(entry).map(str::to_owned);
        let names_unknown = matches!(
            entry.call,
            Call::Finish { .. } | Call::Persist { .. } | Call::Cancel { .. } | Call::Resolve { .. }
        ) && project.is_none();
        let selected = &self.export.projects;
        let keep = !names_unknown
            && (selected.is_empty()
                || project
                    .as_deref()
                    .is_some_and(|p| selected.iter().any(|s| s == p)));
        if keep {
            let mut step =
                self.step(entry, index, out)
                    .map_err(|message| ExportError::Inconsistent {
                        entry: index,
                        message,
                    })?;
            if let Some(hash) = linked {
                step.proof = Some(Proof {
                    tag: u64::from_be_bytes(hash.0[..8].try_into().unwrap_or_default()),
                    issued: match &entry.answer {
                        Answer::Claimed(key) => Some(key.generation),
                        Answer::Reservation(view) if step.op == crate::op::Op::Enqueue => {
                            Some(view.id.number())
                        }
                        _ => None,
                    },
                });
            }
            self.steps += 1;
            out(Some(index), &Item::Step(step, None))?;
        } else if let Some(hash) = linked {
            out(Some(index), &Item::Link(hash))?;
        }
        self.apply(entry);
        Ok(())
    }

    /// The chain after an entry with `link` (the chain stops at the first entry without one).
    fn link(&mut self, link: Option<Hash>) -> Option<Hash> {
        let head = self.chain.as_mut().filter(|_| !self.chain_stopped)?;
        match link {
            Some(hash) => {
                *head = ChainHead {
                    links: head.links + 1,
                    hash,
                };
                Some(hash)
            }
            None => {
                self.chain_stopped = true;
                None
            }
        }
    }

    /// The end of the journal: the end line, or [`ExportError::Nothing`] if no step was kept.
    pub fn finish(self, out: &mut Out<'_>) -> Result<u64, ExportError> {
        self.finish_with(None, out)
    }

    /// The end of the journal, with a checkpoint of the journal at the record's
    /// [`root`](Self::root): its text, and the verifier key of its signer if it is signed
    /// ([`Checkpoint::sign`](crate::record::checkpoint::Checkpoint::sign),
    /// [`VerifierKey::to_text`](crate::record::checkpoint::VerifierKey::to_text)). Ignored if
    /// the record is not chained.
    pub fn finish_with(
        mut self,
        checkpoint: Option<(&str, Option<&str>)>,
        out: &mut Out<'_>,
    ) -> Result<u64, ExportError> {
        if !self.begun {
            self.begin(out)?;
        }
        if self.steps == 0 {
            return Err(ExportError::Nothing);
        }
        let root = self.root();
        if let (Some(_), Some((note, key))) = (root, checkpoint) {
            out(
                None,
                &Item::Checkpoint {
                    note: note.to_owned(),
                    key: key.map(str::to_owned),
                },
            )?;
        }
        let steps = self.steps;
        out(
            None,
            &Item::End(crate::record::stream::End {
                steps,
                links: root.map(|r| r.links),
                root: root.map(|r| r.hash.to_hex()),
            }),
        )?;
        Ok(steps)
    }

    /// The start: the queues, the leases held and the reservations live when the window
    /// begins (of the projects asked for).
    fn begin(&mut self, out: &mut Out<'_>) -> Result<(), ExportError> {
        self.begun = true;
        for queue in &self.queues {
            out(None, &Item::Queue(queue.clone()))?;
        }
        if let Some(head) = self.chain.filter(|_| !self.chain_stopped) {
            self.chain_written = true;
            out(None, &Item::Chain(head))?;
        }
        let chained = self.chain_written;
        let selected = self.export.projects.clone();
        let shown = |p: &Label| selected.is_empty() || selected.contains(p);
        let held: Vec<(LeaseKey, bool)> = self
            .state
            .leases()
            .filter(|(key, _)| shown(&key.project))
            .map(|(key, stop)| (key.clone(), stop))
            .collect();
        for (key, stop) in held {
            let state = if stop {
                StartLeaseState::StopRequested
            } else {
                StartLeaseState::Running
            };
            let lease = self.issue_lease(&key, state);
            out(None, &Item::Lease(lease, chained.then_some(key.generation)))?;
        }
        let live: Vec<ReservationView> = self
            .state
            .reservations()
            .filter(|v| !settled(v.state) && shown(&v.project))
            .cloned()
            .collect();
        for view in live {
            let system = view.id.number();
            let view = self.issue_id(&view);
            out(None, &Item::Reservation(view, chained.then_some(system)))?;
        }
        Ok(())
    }

    fn issue_lease(&mut self, key: &LeaseKey, state: StartLeaseState) -> StartLease {
        let handle = self.issued.issue_lease(&key.project, key.generation);
        StartLease {
            handle: format!("L{handle}"),
            project: key.project.clone(),
            run: key.run.clone(),
            state,
        }
    }

    fn issue_id(&mut self, view: &ReservationView) -> ReservationView {
        let id = self.issued.issue_id(view.id, &view.project);
        ReservationView { id, ..view.clone() }
    }

    /// The system's id of the record's reservation `record`.
    pub fn system_id(&self, record: ReservationId) -> Option<ReservationId> {
        self.issued.system_id(record)
    }

    /// The handle of `lease`: issued by the start or a claim, or declared now as one released
    /// before the window.
    fn handle(
        &mut self,
        lease: &LeaseKey,
        index: usize,
        out: &mut Out<'_>,
    ) -> Result<String, String> {
        if let Some(handle) = self.issued.lease(&lease.project, lease.generation) {
            return Ok(format!("L{handle}"));
        }
        let declared = self.issue_lease(lease, StartLeaseState::Released);
        let handle = declared.handle.clone();
        let generation = self.chain_written.then_some(lease.generation);
        out(Some(index), &Item::Lease(declared, generation)).map_err(|e| e.to_string())?;
        Ok(handle)
    }

    /// The record id of the system's reservation `system`: issued by the start or an enqueue,
    /// or declared now as one settled before the window.
    fn id(
        &mut self,
        system: ReservationId,
        index: usize,
        out: &mut Out<'_>,
    ) -> Result<ReservationId, String> {
        if let Some((id, _)) = self.issued.id(system) {
            return Ok(id);
        }
        match self.state.reservation(system).cloned() {
            Some(view) if settled(view.state) => {
                let declared = self.issue_id(&view);
                let id = declared.id;
                let sid = self.chain_written.then_some(system.number());
                out(Some(index), &Item::Reservation(declared, sid)).map_err(|e| e.to_string())?;
                Ok(id)
            }
            _ => Err(format!(
                "names reservation {system}, which no entry enqueued"
            )),
        }
    }

    fn step(&mut self, entry: &Entry, index: usize, out: &mut Out<'_>) -> Result<Step, String> {
        let by = match &entry.actor {
            Some(actor) => Some(match self.actors.get(actor.as_str()) {
                Some(id) => *id,
                None => {
                    let id = self.actors.len() as u64 + 1;
                    self.actors.insert(actor.as_str().to_owned(), id);
                    let item = Item::Actor {
                        id,
                        name: actor.as_str().to_owned(),
                    };
                    out(Some(index), &item).map_err(|e| e.to_string())?;
                    id
                }
            }),
            None => None,
        };
        let text = |s: &str| Some(s.chars().take(MAX_INPUT_CHARS).collect::<String>().into());
        let mut input = Input::default();
        let answer = &entry.answer;
        let kept = match &entry.call {
            Call::Claim { project, run } => {
                input.project = text(project);
                input.run = text(run);
                match answer {
                    Answer::Claimed(key) => {
                        if key.project.as_str() != project || key.run.as_str() != run {
                            return Err(format!(
                                "a claim of {} for {} answered the lease of {} for {}",
                                Quoted(project),
                                Quoted(run),
                                Quoted(&key.project),
                                Quoted(&key.run)
                            ));
                        }
                        self.issued.issue_lease(&key.project, key.generation);
                        Kept::Ok
                    }
                    other => refused_or(other, "claim")?,
                }
            }
            Call::RequestStop { lease } => {
                input.lease = Some(self.handle(lease, index, out)?.into());
                match answer {
                    Answer::View(view) => {
                        let expected =
                            LaneView::held(&lease.project, &lease.run, LaneState::StopRequested);
                        if *view != expected {
                            return Err(format!(
                                "a stop request answered the lane {view:?}, not its lease's \
                                 lane with the stop requested"
                            ));
                        }
                        Kept::Ok
                    }
                    other => refused_or(other, "request_stop")?,
                }
            }
            Call::Release { lease, outcome } => {
                input.lease = Some(self.handle(lease, index, out)?.into());
                input.outcome = text(outcome.as_str());
                match answer {
                    Answer::Receipt(receipt) => {
                        if receipt.project != lease.project
                            || receipt.run != lease.run
                            || receipt.outcome != *outcome
                            || receipt.work_executed_here
                        {
                            return Err(format!(
                                "a release answered a receipt of another lease or outcome: \
                                 {receipt:?}"
                            ));
                        }
                        Kept::Released {
                            stop_requested: receipt.stop_requested,
                        }
                    }
                    other => refused_or(other, "release")?,
                }
            }
            Call::Enqueue {
                queue,
                project,
                run,
            } => {
                input.queue = text(queue);
                input.project = text(project);
                input.run = text(run);
                match answer {
                    Answer::Reservation(view) => {
                        let fits = view.queue.as_str() == queue
                            && view.project.as_str() == project
                            && view.run.as_str() == run
                            && view.state == ReservationState::Queued
                            && view.outcome.is_none();
                        if !fits {
                            return Err(format!(
                                "an enqueue answered a reservation it did not make: {view:?}"
                            ));
                        }
                        self.issue_id(view);
                        Kept::Ok
                    }
                    other => refused_or(other, "enqueue")?,
                }
            }
            Call::Dispatch { queue } => {
                input.queue = text(queue);
                match answer {
                    Answer::Dispatched(view) => {
                        if view.queue.as_str() != queue
                            || view.state != ReservationState::Dispatched
                        {
                            return Err(format!(
                                "a dispatch of {} answered {view:?}",
                                Quoted(queue)
                            ));
                        }
                        Kept::Dispatched(self.id(view.id, index, out)?)
                    }
                    Answer::Nothing(nothing) => Kept::Nothing {
                        retained: nothing.retained,
                    },
                    other => refused_or(other, "dispatch")?,
                }
            }
            Call::Finish {
                reservation,
                outcome,
            } => {
                input.reservation = Some(self.id(*reservation, index, out)?.to_string().into());
                input.outcome = text(outcome.as_str());
                match answer {
                    Answer::Persisting(view) => {
                        let fits = view.id == *reservation
                            && view.state == ReservationState::Persisting
                            && view.outcome == Some(*outcome);
                        if !fits {
                            return Err(format!("a finish answered {view:?}"));
                        }
                        Kept::Ok
                    }
                    other => refused_or(other, "finish")?,
                }
            }
            Call::Persist { reservation, saved } => {
                input.reservation = Some(self.id(*reservation, index, out)?.to_string().into());
                input.saved = Some(*saved);
                match answer {
                    Answer::Settled(settled) => {
                        let unresolved = settled.state == ReservationState::Unresolved;
                        let fits = settled.reservation == *reservation
                            && matches!(
                                settled.state,
                                ReservationState::Done | ReservationState::Unresolved
                            )
                            && unresolved == (settled.receipt.outcome == Outcome::NeedsReview)
                            && !settled.receipt.work_executed_here;
                        if !fits {
                            return Err(format!("a persist answered {settled:?}"));
                        }
                        Kept::Settled(settled.state)
                    }
                    other => refused_or(other, "persist")?,
                }
            }
            Call::Cancel { reservation } | Call::Resolve { reservation } => {
                input.reservation = Some(self.id(*reservation, index, out)?.to_string().into());
                let wanted = if matches!(entry.call, Call::Cancel { .. }) {
                    ReservationState::Cancelled
                } else {
                    ReservationState::Resolved
                };
                match answer {
                    Answer::Reservation(view) => {
                        if view.id != *reservation || view.state != wanted {
                            return Err(format!(
                                "a {} answered {view:?}",
                                entry.call.op().as_str()
                            ));
                        }
                        Kept::Ok
                    }
                    other => refused_or(other, entry.call.op().as_str())?,
                }
            }
        };
        Ok(Step {
            op: entry.call.op(),
            at: entry.at,
            by,
            input,
            answer: kept,
            note: None,
            proof: None,
        })
    }
}

/// A refusal, kept by its code; any other answer does not fit the call `op`.
fn refused_or(answer: &Answer, op: &str) -> Result<Kept, String> {
    match answer {
        Answer::Refused(e) => Ok(Kept::Refused(*e)),
        other => Err(format!("a {op} cannot answer {other:?}")),
    }
}

/// Settled for good: done, cancelled or resolved (nothing changes it any more).
fn settled(state: ReservationState) -> bool {
    matches!(
        state,
        ReservationState::Done | ReservationState::Cancelled | ReservationState::Resolved
    )
}

impl super::history::Journal {
    /// The entries `export` asks for, as a version 3 record written to `out` as they are cut,
    /// never holding the record. Returns `out` and the number of steps written. See
    /// [`Exporter`] for how a window is cut.
    ///
    /// ```
    /// use project_lanes::journal::{Export, Journal};
    /// use project_lanes::record::stream::Reader;
    /// use project_lanes::{Outcome, ProjectLanes};
    ///
    /// let lanes = ProjectLanes::new().with_journal(None);
    /// let lease = lanes.claim("docs", "nightly-7")?;
    /// lanes.release(&lease, Outcome::Succeeded)?;
    /// let mut journal = Journal::lanes();
    /// journal.extend(lanes.take_journal());
    /// let (bytes, steps) = journal.write_record(&Export::new("tonight", "build farm")?, Vec::new())?;
    /// let mut reader = Reader::new();
    /// reader.feed(&bytes, &mut |_| {})?;
    /// let verdict = reader.finish(&mut |_| {})?;
    /// assert_eq!((steps, verdict.steps, verdict.mismatch), (2, 2, None));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_record<W: std::io::Write>(
        &self,
        export: &Export,
        out: W,
    ) -> Result<(W, u64), ExportError> {
        export.check()?;
        let mut exporter = Exporter::new(export, &self.queues, self.start.clone());
        if export.chain {
            exporter = exporter.chained(self.chain_start);
        }
        let written = |e: std::io::Error| ExportError::Write(e.to_string());
        let mut writer =
            crate::record::stream::Writer::new(out, &exporter.head()).map_err(written)?;
        let mut write = |_: Option<usize>, item: &Item| write_item(&mut writer, item);
        for entry in &self.entries {
            exporter.entry(entry, &mut write)?;
        }
        let steps = exporter.finish(&mut write)?;
        let out = writer.end().map_err(written)?;
        Ok((out, steps))
    }
}

/// Writes one item of a record being cut (the end is the writer's own).
pub fn write_item<W: std::io::Write>(
    writer: &mut crate::record::stream::Writer<W>,
    item: &Item,
) -> Result<(), ExportError> {
    let written = match item {
        Item::Queue(queue) => writer.queue(queue),
        Item::Actor { name, .. } => writer.actor(name).map(|_| ()),
        Item::Lease(lease, generation) => writer.lease(lease, *generation),
        Item::Reservation(view, sid) => writer.reservation(view, *sid),
        Item::Step(step, _) => writer.step(step),
        Item::Chain(head) => writer.chain(*head),
        Item::Link(hash) => writer.link(*hash),
        Item::Checkpoint { note, key } => writer.checkpoint(note, key.as_deref()),
        Item::End(end) => {
            if let (Some(links), Some(root)) =
                (end.links, end.root.as_deref().and_then(Hash::from_hex))
            {
                writer.root(ChainHead { links, hash: root });
            }
            Ok(())
        }
    };
    written.map_err(|e| ExportError::Write(e.to_string()))
}
