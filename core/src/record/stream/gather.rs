//! A version 3 record gathered into the in-memory [`Record`] its readers show: the steps with
//! the results and snapshots the record's own answers imply, as versions 1 and 2 save them.
//!
//! The snapshots are sparse: a step's `lanes` hold the lane of the project it concerns (none
//! for a refusal that concerns no lane), and its `reservations` the reservation it concerns; a
//! lane or reservation a step does not show is as the last step that showed it left it.
//! Everything here follows from what the record says (its answers), never from the core: the
//! core's verdict is the reader's ([`Reader`](super::Reader)), as replay's is for a version 2
//! record's saved snapshots.

use hashbrown::{HashMap, HashSet};
use std::sync::Arc;

use crate::dispatch::{ReservationId, ReservationState, ReservationView, Settled};
use crate::op::{Field, Nothing, Op};
use crate::record::{
    FORMAT, Input, LeaseRecord, Record, Start, StartLeaseState, Step as Saved, StepResult,
    Untouched,
};
use crate::{Label, LaneState, LaneView, Outcome, Receipt};

use super::engine::Engine;
use super::line::{Answer, Head, Item, Step};
use super::read::{Mismatch, Seen};
use crate::record::ReplayMismatch;

/// How many reservations the core holds (the newest one's number).
fn engine_reservations(engine: &Engine) -> u64 {
    engine.reservation_count()
}

/// Gathers what a [`Reader`](super::Reader) sees into a [`Record`].
///
/// ```
/// use project_lanes::record::stream::{Gather, Reader};
///
/// let text = concat!(
///     r#"{"format":"project-lanes/record","version":3,"id":"tiny","#,
///     r#""title":{"en":"Tiny","ja":"小さな記録"},"summary":{"en":"One claim.","ja":"取得が一つ。"},"#,
///     r#""work_executed_here":false}"#, "\n",
///     r#"{"op":"claim","project":"docs","run":"nightly-7","result":"ok"}"#, "\n",
///     r#"{"end":{"steps":1}}"#, "\n",
/// );
/// let mut gather = Gather::new();
/// let mut reader = Reader::new();
/// reader.feed(text.as_bytes(), &mut |seen| gather.seen(seen))?;
/// reader.finish(&mut |seen| gather.seen(seen))?;
/// let record = gather.record();
/// assert_eq!(record.steps[0].lanes[0].run.as_deref(), Some("nightly-7"));
/// assert_eq!(record.projects[0].as_str(), "docs");
/// # Ok::<(), project_lanes::record::json::ReadError>(())
/// ```
#[derive(Default)]
pub struct Gather {
    record: Option<Record>,
    actors: Vec<Arc<str>>,
    /// Every lease issued, by handle number.
    leases: Vec<Issued>,
    /// The lease holding each lane held directly, and whether a stop was asked.
    held: HashMap<Label, (usize, bool)>,
    /// Every reservation, by id.
    reservations: Vec<ReservationView>,
    /// The reservation holding each lane held by the dispatcher.
    holders: HashMap<Label, ReservationId>,
    /// The record's projects so far.
    shown: HashSet<Label>,
    /// The projects, queues and outcomes the steps' inputs name, each kept once: the steps
    /// that name one share it.
    names: HashSet<Arc<str>>,
    started: bool,
    /// The first step whose answer the core does not give, as versions 1 and 2 say it.
    mismatch: Option<ReplayMismatch>,
}

impl Gather {
    /// Nothing gathered yet.
    pub fn new() -> Gather {
        Gather::default()
    }

    /// What the reader has just seen.
    pub fn seen(&mut self, seen: Seen<'_>) {
        match seen {
            Seen::Head(head) => self.record = Some(empty(head)),
            Seen::Item {
                item,
                engine,
                mismatch,
                ..
            } => {
                // The core's answer in full, from what the record says before the step.
                let actual = match (mismatch, item) {
                    (Some(m), Item::Step(step, _)) => Some((m, self.core_result(m, step, engine))),
                    _ => None,
                };
                self.item(item);
                if let Some((m, actual)) = actual {
                    let saved = self
                        .record
                        .as_ref()
                        .and_then(|r| r.steps.last())
                        .map(|s| s.result.clone());
                    self.mismatch = saved.map(|saved| ReplayMismatch::Result {
                        step: m.step as usize,
                        op: m.op,
                        saved: Box::new(saved),
                        actual: Box::new(actual),
                    });
                }
            }
        }
    }

    /// The record as gathered so far, once its head is read: its steps so far (each replayed
    /// before it was gathered) and the projects they name; its final lanes are set by
    /// [`finish`](Gather::finish). For a reader that shows a record while it is read.
    pub fn so_far(&self) -> Option<&Record> {
        self.record.as_ref()
    }

    /// The first step gathered whose answer the core does not give, if one is.
    pub fn mismatch_so_far(&self) -> Option<usize> {
        match self.mismatch {
            Some(ReplayMismatch::Result { step, .. }) => Some(step),
            _ => None,
        }
    }

    /// How many steps are gathered, and how many the record's list of steps has room for.
    pub fn steps_room(&self) -> (usize, usize) {
        self.record
            .as_ref()
            .map_or((0, 0), |r| (r.steps.len(), r.steps.capacity()))
    }

    /// Makes room for `steps` steps in all (at least), in one allocation: a reader that can
    /// estimate the record's length (from its size) spares the list's doublings, each of
    /// which holds the old list and the new one at once. Room the memory cannot give is not
    /// taken: the list then grows as it fills.
    pub fn reserve_steps(&mut self, steps: usize) {
        if let Some(record) = &mut self.record {
            let len = record.steps.len();
            let _ = record.steps.try_reserve_exact(steps.saturating_sub(len));
        }
    }

    /// Takes the step just gathered out of the record, for a reader that handles each step as
    /// it comes and keeps none (`lane-records diff`): call it after every
    /// [`seen`](Gather::seen). The record then ends without those steps.
    pub fn take_step(&mut self) -> Option<Saved> {
        self.record.as_mut()?.steps.pop()
    }

    /// What was held before the first step, as gathered so far (complete once a step is
    /// seen).
    pub fn start(&self) -> Option<&Start> {
        self.record.as_ref()?.start.as_ref()
    }

    /// The record, once the reader has finished (its final lanes are every project's).
    pub fn record(self) -> Record {
        self.finish().0
    }

    /// The record, and the first step whose answer the core does not give, as versions 1 and 2
    /// say one: the step's result as the record says it, and as the core answers.
    pub fn finish(mut self) -> (Record, Option<ReplayMismatch>) {
        let mut record = self.record.take().unwrap_or_else(|| empty(&placeholder()));
        record.final_lanes = record.projects.iter().map(|p| self.lane(p)).collect();
        (record, self.mismatch)
    }

    /// The core's answer to `step` in full, as versions 1 and 2 save a result: from its answer
    /// in `m`, what the record says before the step, and what the core holds after it.
    fn core_result(&self, m: &Mismatch, step: &Step, engine: &Engine) -> StepResult {
        let saved = StepResult::Error(match &m.recorded {
            Answer::Refused(e) => *e,
            _ => crate::dispatch::DispatchError::UnknownReservation,
        });
        let text = |field: Field| step.input.get(field).unwrap_or_default();
        let view = |id: ReservationId| engine.reservation_view(id);
        match (&m.replayed, step.op) {
            (Answer::Refused(e), _) => StepResult::Error(*e),
            (Answer::Ok, Op::Claim) => match (
                Label::new(text(Field::Project)),
                Label::new(text(Field::Run)),
            ) {
                (Ok(project), Ok(run)) => StepResult::Lease(LeaseRecord {
                    handle: format!("L{}", self.leases.len() + 1).into(),
                    project,
                    run,
                }),
                _ => saved.clone(),
            },
            (Answer::Released { stop_requested }, _) => {
                let lease = text(Field::Lease)
                    .strip_prefix('L')
                    .and_then(|n| n.parse::<usize>().ok())
                    .and_then(|n| self.leases.get(n - 1));
                match (lease, text(Field::Outcome).parse()) {
                    (Some(issued), Ok(outcome)) => StepResult::Receipt(Receipt {
                        project: Label::from_valid(issued.project.clone()),
                        run: Label::from_valid(issued.run.clone()),
                        outcome,
                        stop_requested: *stop_requested,
                        work_executed_here: false,
                    }),
                    _ => saved.clone(),
                }
            }
            (Answer::Viewed(lane), _) => StepResult::View(lane.clone()),
            (Answer::Nothing { retained }, _) => StepResult::Nothing(Nothing {
                retained: *retained,
            }),
            (Answer::Dispatched(id), _) => {
                view(*id).map_or(saved.clone(), |v| StepResult::Dispatched(Box::new(v)))
            }
            (Answer::Settled(state), _) => {
                let id = ReservationId::parse(text(Field::Reservation));
                match id.and_then(view) {
                    Some(v) => StepResult::Settled(Box::new(Settled {
                        reservation: v.id,
                        state: *state,
                        receipt: Receipt {
                            project: v.project,
                            run: v.run,
                            outcome: v.outcome.unwrap_or(Outcome::NeedsReview),
                            stop_requested: false,
                            work_executed_here: false,
                        },
                    })),
                    None => saved.clone(),
                }
            }
            (Answer::Ok, op) => {
                let id = match op {
                    Op::Enqueue => ReservationId::from_number(engine_reservations(engine)),
                    _ => ReservationId::parse(text(Field::Reservation)),
                };
                match (id.and_then(view), op) {
                    (Some(v), Op::Finish) => StepResult::Persisting(Box::new(v)),
                    (Some(v), _) => StepResult::Reservation(Box::new(v)),
                    (None, Op::RequestStop) => {
                        let lease = text(Field::Lease)
                            .strip_prefix('L')
                            .and_then(|n| n.parse::<usize>().ok())
                            .and_then(|n| self.leases.get(n - 1));
                        match lease {
                            Some(issued) => StepResult::View(LaneView::held(
                                &issued.project,
                                &issued.run,
                                LaneState::StopRequested,
                            )),
                            None => saved.clone(),
                        }
                    }
                    (None, _) => saved.clone(),
                }
            }
        }
    }

    fn item(&mut self, item: &Item) {
        let Some(record) = &mut self.record else {
            return;
        };
        match item {
            Item::Queue(queue) => record.queues.push(queue.clone()),
            Item::Actor { name, .. } => self.actors.push(name.as_str().into()),
            Item::Lease(lease, _) => {
                show(record, &mut self.shown, &lease.project);
                self.leases.push(Issued {
                    project: kept_label(&mut self.names, &lease.project),
                    run: lease.run.as_str().into(),
                    handle: lease.handle.as_str().into(),
                });
                if lease.state != StartLeaseState::Released {
                    let stop = lease.state == StartLeaseState::StopRequested;
                    self.held
                        .insert(lease.project.clone(), (self.leases.len(), stop));
                }
                if !self.started {
                    record
                        .start
                        .get_or_insert_with(Start::default)
                        .leases
                        .push(lease.clone());
                }
            }
            Item::Reservation(view, _) => {
                show(record, &mut self.shown, &view.project);
                if !self.started {
                    record
                        .start
                        .get_or_insert_with(Start::default)
                        .reservations
                        .push(view.clone());
                }
                self.set(view.clone());
            }
            Item::Step(step, _) => {
                self.started = true;
                let saved = self.step(step);
                if let Some(record) = &mut self.record {
                    record.steps.push(saved);
                }
            }
            Item::End(_) | Item::Chain(_) | Item::Link(_) | Item::Checkpoint { .. } => {}
        }
    }

    /// The step as versions 1 and 2 save it, from the record's own answer and what the record
    /// says before it.
    fn step(&mut self, step: &Step) -> Saved {
        let text = |field: Field| step.input.get(field).unwrap_or_default();
        let reservation = ReservationId::parse(text(Field::Reservation));
        let lease = text(Field::Lease)
            .strip_prefix('L')
            .and_then(|n| n.parse::<usize>().ok());
        let mut touched_lane: Option<Label> = None;
        let mut touched: Option<ReservationId> = None;
        let result = match (&step.answer, step.op) {
            (Answer::Refused(e), _) => {
                touched_lane = Label::new(text(Field::Project)).ok();
                if let Some(n) = lease
                    && let Some(Issued { project, .. }) = self.leases.get(n - 1)
                {
                    touched_lane = Some(Label::from_valid(project.clone()));
                }
                touched = reservation;
                StepResult::Error(*e)
            }
            (Answer::Ok, Op::Claim) => {
                let project = label(text(Field::Project));
                let run = step.input.run.clone().unwrap_or_default();
                let handle: Arc<str> = format!("L{}", self.leases.len() + 1).into();
                self.leases.push(Issued {
                    project: kept_label(&mut self.names, &project),
                    run: run.clone(),
                    handle: handle.clone(),
                });
                self.held
                    .insert(project.clone(), (self.leases.len(), false));
                touched_lane = Some(project.clone());
                StepResult::Lease(LeaseRecord {
                    handle,
                    project,
                    run: Label::from_valid(run),
                })
            }
            (Answer::Ok, Op::RequestStop) => {
                let (project, run) = self.lease(lease);
                if let Some(held) = self.held.get_mut(&project) {
                    held.1 = true;
                }
                touched_lane = Some(project.clone());
                let project_name = kept_label(&mut self.names, &project);
                StepResult::View(held_lane(project_name, run, LaneState::StopRequested))
            }
            (Answer::Released { stop_requested }, _) => {
                let (project, run) = self.lease(lease);
                self.held.remove(&project);
                touched_lane = Some(project.clone());
                StepResult::Receipt(Receipt {
                    project,
                    run: Label::from_valid(run),
                    outcome: text(Field::Outcome).parse().unwrap_or(Outcome::Succeeded),
                    stop_requested: *stop_requested,
                    work_executed_here: false,
                })
            }
            (Answer::Viewed(lane), _) => {
                touched_lane = Label::new(&lane.project).ok();
                StepResult::View(lane.clone())
            }
            (Answer::Ok, Op::Enqueue) => {
                let id = ReservationId::from_number(self.reservations.len() as u64 + 1)
                    .unwrap_or_else(|| unreachable!("from 1"));
                let view = ReservationView {
                    id,
                    queue: label(text(Field::Queue)),
                    project: label(text(Field::Project)),
                    run: label(text(Field::Run)),
                    state: ReservationState::Queued,
                    outcome: None,
                };
                self.set(view.clone());
                touched = Some(id);
                StepResult::Reservation(Box::new(view))
            }
            (Answer::Dispatched(id), _) => {
                let view = self.change(*id, ReservationState::Dispatched, None);
                touched_lane = Some(view.project.clone());
                touched = Some(*id);
                StepResult::Dispatched(Box::new(view))
            }
            (Answer::Nothing { retained }, _) => StepResult::Nothing(Nothing {
                retained: *retained,
            }),
            (Answer::Ok, Op::Finish) => {
                let outcome = text(Field::Outcome).parse().ok();
                let id = reservation.unwrap_or_else(|| unreachable!("checked"));
                touched = Some(id);
                StepResult::Persisting(Box::new(self.change(
                    id,
                    ReservationState::Persisting,
                    outcome,
                )))
            }
            (Answer::Settled(state), _) => {
                let id = reservation.unwrap_or_else(|| unreachable!("checked"));
                let before = self.view(id);
                let outcome = match (*state, step.input.saved, before.outcome) {
                    (ReservationState::Done, Some(true), Some(outcome)) => outcome,
                    _ => Outcome::NeedsReview,
                };
                let view = self.change(id, *state, Some(outcome));
                touched_lane = Some(view.project.clone());
                touched = Some(id);
                StepResult::Settled(Box::new(Settled {
                    reservation: id,
                    state: *state,
                    receipt: Receipt {
                        project: view.project.clone(),
                        run: view.run.clone(),
                        outcome,
                        stop_requested: false,
                        work_executed_here: false,
                    },
                }))
            }
            (Answer::Ok, Op::Cancel | Op::Resolve) => {
                let id = reservation.unwrap_or_else(|| unreachable!("checked"));
                let state = if step.op == Op::Cancel {
                    ReservationState::Cancelled
                } else {
                    ReservationState::Resolved
                };
                touched = Some(id);
                let view = self.change(id, state, None);
                touched_lane = Some(view.project.clone());
                StepResult::Reservation(Box::new(view))
            }
            // The reader pairs every other answer with its own operation.
            (Answer::Ok, _) => {
                unreachable!("the reader pairs each answer with its operation")
            }
        };
        let lanes = match touched_lane {
            Some(project) => {
                if let Some(record) = &mut self.record {
                    show(record, &mut self.shown, &project);
                }
                vec![self.lane(&project)]
            }
            None => Vec::new(),
        };
        let reservations = touched
            .and_then(|id| self.reservations.get(id.number() as usize - 1))
            .map(|view| Box::from([view.clone()]));
        Saved {
            op: step.op,
            at: step.at,
            actor: step
                .by
                .and_then(|n| self.actors.get(n as usize - 1))
                .cloned(),
            input: Input {
                project: self.name(&step.input.project),
                queue: self.name(&step.input.queue),
                outcome: self.name(&step.input.outcome),
                lease: self.handle(&step.input.lease, lease),
                ..step.input.clone()
            },
            result,
            note: step.note.clone().map(Box::new),
            lanes,
            reservations,
        }
    }

    /// `name`, as the string kept for it.
    fn name(&mut self, name: &Option<Arc<str>>) -> Option<Arc<str>> {
        let name = name.as_ref()?;
        Some(kept(&mut self.names, name, || name.clone()))
    }

    /// The project and run of lease handle number `n` (the reader checked it was issued).
    fn lease(&self, n: Option<usize>) -> (Label, Arc<str>) {
        n.and_then(|n| self.leases.get(n - 1))
            .map(|issued| {
                (
                    Label::from_valid(issued.project.clone()),
                    issued.run.clone(),
                )
            })
            .unwrap_or_else(|| unreachable!("the reader checks every handle"))
    }

    /// The handle a step names, as the string kept for lease number `n` when it is the same.
    fn handle(&self, named: &Option<Arc<str>>, n: Option<usize>) -> Option<Arc<str>> {
        let named = named.as_ref()?;
        match n.and_then(|n| self.leases.get(n.checked_sub(1)?)) {
            Some(issued) if issued.handle == *named => Some(issued.handle.clone()),
            _ => Some(named.clone()),
        }
    }

    fn view(&self, id: ReservationId) -> ReservationView {
        self.reservations
            .get(id.number() as usize - 1)
            .cloned()
            .unwrap_or_else(|| unreachable!("the reader checks every id"))
    }

    /// Reservation `id` now `state` (with `outcome`, if given), as the record says.
    fn change(
        &mut self,
        id: ReservationId,
        state: ReservationState,
        outcome: Option<Outcome>,
    ) -> ReservationView {
        let mut view = self.view(id);
        view.state = state;
        if outcome.is_some() {
            view.outcome = outcome;
        }
        self.set(view.clone());
        view
    }

    fn set(&mut self, view: ReservationView) {
        if view.state.holds_lane() {
            self.holders.insert(view.project.clone(), view.id);
        } else if self.holders.get(&view.project) == Some(&view.id) {
            self.holders.remove(&view.project);
        }
        let at = view.id.number() as usize - 1;
        if at < self.reservations.len() {
            self.reservations[at] = view;
        } else {
            self.reservations.push(view);
        }
    }

    /// `project`'s lane as the record says it stands.
    fn lane(&mut self, project: &Label) -> LaneView {
        if let Some(&(n, stop)) = self.held.get(project) {
            let issued = &self.leases[n - 1];
            let state = if stop {
                LaneState::StopRequested
            } else {
                LaneState::Running
            };
            return held_lane(issued.project.clone(), issued.run.clone(), state);
        }
        let holder = self
            .holders
            .get(project)
            .and_then(|id| self.reservations.get(id.number() as usize - 1))
            .map(|holder| Arc::from(holder.run.as_str()));
        let project = kept_label(&mut self.names, project);
        match holder {
            Some(run) => held_lane(project, run, LaneState::Running),
            None => LaneView {
                project,
                busy: false,
                run: None,
                state: None,
            },
        }
    }
}

/// The string kept in `names` for `text`, made by `make` if none is yet.
fn kept(names: &mut HashSet<Arc<str>>, text: &str, make: impl FnOnce() -> Arc<str>) -> Arc<str> {
    if let Some(kept) = names.get(text) {
        return kept.clone();
    }
    let made = make();
    names.insert(made.clone());
    made
}

/// The string kept in `names` for the label `project`.
fn kept_label(names: &mut HashSet<Arc<str>>, project: &Label) -> Arc<str> {
    kept(names, project, || project.as_str().into())
}

/// `project`'s lane held by `run`, `state`, its strings shared with the steps'.
fn held_lane(project: Arc<str>, run: Arc<str>, state: LaneState) -> LaneView {
    LaneView {
        project,
        busy: true,
        run: Some(run),
        state: Some(state),
    }
}

/// A lease issued before or in the record: its project, its run and its handle, each shared
/// with the steps that show it.
struct Issued {
    project: Arc<str>,
    run: Arc<str>,
    handle: Arc<str>,
}

/// A label the reader has checked (inputs of successful operations follow the rule).
fn label(text: &str) -> Label {
    Label::new(text).unwrap_or_else(|_| unreachable!("a successful step's labels are valid"))
}

/// Adds `project` to the record's projects (`shown`), in order of first appearance.
fn show(record: &mut Record, shown: &mut HashSet<Label>, project: &Label) {
    if shown.insert(project.clone()) {
        record.projects.push(project.clone());
    }
}

fn empty(head: &Head) -> Record {
    Record {
        format: head.format.clone(),
        version: head.version,
        id: head.id.clone(),
        title: head.title.clone(),
        summary: head.summary.clone(),
        work_executed_here: head.work_executed_here,
        origin: head.origin.clone(),
        projects: Vec::new(),
        untouched_project: Untouched::none(),
        queues: Vec::new(),
        start: None,
        steps: Vec::new(),
        final_lanes: Vec::new(),
    }
}

fn placeholder() -> Head {
    Head {
        format: FORMAT.into(),
        version: crate::record::VERSION_3,
        id: label("record"),
        title: crate::record::Text {
            en: String::new(),
            ja: String::new(),
        },
        summary: crate::record::Text {
            en: String::new(),
            ja: String::new(),
        },
        work_executed_here: false,
        origin: None,
    }
}
