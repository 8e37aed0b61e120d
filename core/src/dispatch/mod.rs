//! Queues that share project lanes: a sans-IO dispatcher.
//!
//! Several named queues hold reservations (a run to execute in a project). They share one
//! [`ProjectLanes`]: a project is available only when no queue holds its lane and no unresolved
//! result blocks it. Each queue keeps its own first-in, first-out order per project; an item whose
//! project is busy is retained (never dropped, never reordered within its project) while items
//! for other projects pass it.
//!
//! A reservation moves `queued → dispatched → persisting → done`, or `queued → cancelled`, or ends
//! `unresolved` (outcome `needs_review`) until a person [resolves](Dispatcher::resolve) it. The
//! lane stays held while the final state is saved: [`Dispatcher::finish`] only records the outcome
//! and [`Dispatcher::persisted`] releases the lane, with the reservation's own lease, exactly once.
//! A failed save turns the outcome into `needs_review`. Nothing is ever replayed automatically.
//!
//! This is a pure state machine: no threads, clocks or I/O, so it runs in tests step by step, in
//! WebAssembly, and under the `project-lanes-runner` crate's `Runner`, which drives it with worker
//! threads. Every
//! operation is a short, bounded transition: finding the next dispatchable item never scans the
//! retained ones (an ordered set of available heads per queue).
//!
//! ```
//! use project_lanes::Outcome;
//! use project_lanes::dispatch::{Dispatcher, ReservationState};
//!
//! let mut d = Dispatcher::new(&["general", "delivery"])?;
//! let a = d.enqueue("general", "docs", "gen-1")?;
//! let b = d.enqueue("delivery", "docs", "cafe-1")?;
//! let c = d.enqueue("delivery", "site", "cafe-2")?;
//!
//! assert_eq!(d.dispatch("general")?.unwrap().reservation, a);
//! // docs is held by the general queue: the delivery queue passes b and runs c.
//! assert_eq!(d.dispatch("delivery")?.unwrap().reservation, c);
//!
//! d.finish(a, Outcome::Succeeded)?; // work returned; its final state is being saved
//! assert!(d.dispatch("delivery")?.is_none()); // docs stays held until the save completes
//! d.persisted(a, true)?; // saved: the lane is released
//! assert_eq!(d.dispatch("delivery")?.unwrap().reservation, b);
//! assert_eq!(d.reservation(a)?.state, ReservationState::Done);
//! assert!(d.view("docs")?.busy); // b holds it now
//! # Ok::<(), project_lanes::dispatch::DispatchError>(())
//! ```

mod journal;
mod restore;
#[cfg(feature = "json")]
mod retire;

use std::collections::BTreeMap;

use hashbrown::HashMap;
use std::fmt;

use crate::transition::{Answer, Call, LeaseKey};
use crate::{Label, LaneError, LaneView, Lease, Outcome, ProjectLanes, Receipt};
use journal::{answer, input};

pub use crate::reservation::{
    DispatchError, FinalState, Job, ReservationId, ReservationState, ReservationView, Settled,
};

struct Reservation {
    queue: u32,
    /// Index into `Dispatcher::projects`.
    project: u32,
    run: Label,
    state: ReservationState,
    outcome: Option<Outcome>,
    /// The reservation enqueued after this one in the same queue for the same project (its
    /// waiting line is a list threaded through the reservations: no allocation per line, and
    /// the next item is found where the current one already is).
    next: Option<ReservationId>,
}

/// One queue's waiting line for one project: the oldest and the newest reservation in it.
/// Cancelled ones may linger behind the head and are skipped when they reach it.
#[derive(Default, Clone, Copy)]
struct Line {
    head: Option<ReservationId>,
    tail: Option<ReservationId>,
}

/// One project, interned: everything the dispatcher tracks about it, found by index (no hashing
/// after `enqueue`).
struct Project {
    name: Label,
    /// The lease of the reservation holding the lane (dispatched or persisting).
    lease: Option<(ReservationId, Lease)>,
    /// An unresolved result blocking automatic dispatch and direct claims.
    unresolved: Option<ReservationId>,
    /// The lane is held by a direct claim ([`Dispatcher::claim`]).
    direct: bool,
}

impl Project {
    fn available(&self) -> bool {
        self.lease.is_none() && self.unresolved.is_none() && !self.direct
    }
}

#[derive(Default)]
struct Queue {
    /// The head of every available project that has waiting reservations in this queue, by id
    /// (= age): `dispatch` takes the first.
    ready: BTreeMap<ReservationId, u32>,
    /// Queued (not cancelled) reservations in this queue.
    retained: usize,
}

/// Several named queues dispatching into one set of project lanes. See the [module](self).
pub struct Dispatcher {
    lanes: ProjectLanes,
    names: Vec<Label>,
    queues: Vec<Queue>,
    /// The reservations after the retired ones, by id.
    reservations: Vec<Reservation>,
    /// Reservations `R1` … `R(retired)` were settled for good and are forgotten (a record's
    /// audit retires them: `retire.rs`); 0 otherwise.
    retired: u64,
    /// How many reservations at the front of `reservations` are settled for good.
    #[cfg(feature = "json")]
    settled_front: usize,
    projects: Vec<Project>,
    project_index: HashMap<Label, u32>,
    /// The waiting lines, one per (project, queue), flat: project `p`, queue `q` at
    /// `p * queues + q`.
    lines: Vec<Line>,
    /// The journal, if this dispatcher keeps one (feature `journal`).
    #[cfg(feature = "journal")]
    journal: Option<Box<journal::DispatchJournal>>,
}

impl Dispatcher {
    /// A dispatcher with these queues and fresh lanes. Queue names follow the label rule
    /// (`INVALID_LABEL`); an empty list, a repeated name or more than 64 queues is
    /// `UNKNOWN_QUEUE`.
    pub fn new(queues: &[&str]) -> Result<Dispatcher, DispatchError> {
        let mut names: Vec<Label> = Vec::with_capacity(queues.len());
        for name in queues {
            names.push(Label::new(name)?);
        }
        if names.is_empty() || names.len() > 64 {
            return Err(DispatchError::UnknownQueue);
        }
        Dispatcher::with_queues(&names)
    }

    /// A dispatcher with these queues (any number, none too: a record's engine, where the
    /// lanes may be used only directly); a repeated name is `UNKNOWN_QUEUE`.
    pub(crate) fn with_queues(queues: &[Label]) -> Result<Dispatcher, DispatchError> {
        let distinct: hashbrown::HashSet<&Label> = queues.iter().collect();
        if distinct.len() != queues.len() {
            return Err(DispatchError::UnknownQueue);
        }
        let names = queues.to_vec();
        Ok(Dispatcher {
            lanes: ProjectLanes::new(),
            queues: names.iter().map(|_| Queue::default()).collect(),
            names,
            reservations: Vec::new(),
            retired: 0,
            #[cfg(feature = "json")]
            settled_front: 0,
            projects: Vec::new(),
            project_index: HashMap::new(),
            lines: Vec::new(),
            #[cfg(feature = "journal")]
            journal: None,
        })
    }

    /// A view of `project`'s lane. The lanes themselves stay private: a claim made behind the
    /// dispatcher's back would hold a project it believes available; claim through
    /// [`claim`](Self::claim) instead.
    pub fn view(&self, project: &str) -> Result<LaneView, LaneError> {
        self.lanes.view(project)
    }

    /// Claims `project`'s lane directly, beside the queues, as [`ProjectLanes::claim`] does: a
    /// lane held by a reservation, or a project blocked by an unresolved result, is
    /// `PROJECT_BUSY`; while the lease holds the lane, no queue dispatches that project. The
    /// same lanes serve both, as they do on PostgreSQL, where direct and queued runs share a
    /// schema.
    ///
    /// ```
    /// use project_lanes::{LaneError, Outcome};
    /// use project_lanes::dispatch::Dispatcher;
    ///
    /// let mut d = Dispatcher::new(&["general"])?;
    /// let lease = d.claim("docs", "hotfix-1")?;
    /// let id = d.enqueue("general", "docs", "nightly-1")?;
    /// assert!(d.dispatch("general")?.is_none()); // docs is held directly: the queue waits
    /// d.release(&lease, Outcome::Succeeded)?;
    /// assert_eq!(d.dispatch("general")?.map(|job| job.reservation), Some(id));
    /// assert_eq!(d.claim("docs", "hotfix-2").unwrap_err(), LaneError::ProjectBusy);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn claim(&mut self, project: &str, run: &str) -> Result<Lease, LaneError> {
        let result = self.journaled(
            |d| d.claim_now(project, run),
            |_, result| {
                let call = Call::Claim {
                    project: input(project),
                    run: input(run),
                };
                Some((
                    call,
                    answer(result, |lease| Ok(Answer::Claimed(key(lease))))?,
                ))
            },
        );
        result.map_err(lane_error)
    }

    fn claim_now(&mut self, project: &str, run: &str) -> Result<Lease, DispatchError> {
        let project_label = Label::new(project)?;
        Label::new(run)?;
        let known = self.project_index.get(project).copied();
        if known.is_some_and(|p| self.projects[p as usize].unresolved.is_some()) {
            return Err(LaneError::ProjectBusy.into());
        }
        let lease = self.lanes.claim(project, run)?;
        let p = known.unwrap_or_else(|| self.intern(project_label));
        self.projects[p as usize].direct = true;
        self.withdraw(p);
        Ok(lease)
    }

    /// Asks a direct claim's run to stop, as [`ProjectLanes::request_stop`] does: the lane
    /// stays held.
    pub fn request_stop(&mut self, lease: &Lease) -> Result<LaneView, LaneError> {
        if !self.lanes.issued(lease) {
            return Err(LaneError::LeaseNotCurrent);
        }
        let result = self.journaled(
            |d| Ok(d.lanes.request_stop(lease)?),
            |_, result| {
                let call = Call::RequestStop { lease: key(lease) };
                Some((call, answer(result, |view| Ok(Answer::View(view.clone())))?))
            },
        );
        result.map_err(lane_error)
    }

    /// Releases a direct claim's lane, as [`ProjectLanes::release`] does; its project is then
    /// available to the queues again.
    pub fn release(&mut self, lease: &Lease, outcome: Outcome) -> Result<Receipt, LaneError> {
        if !self.lanes.issued(lease) {
            return Err(LaneError::LeaseNotCurrent);
        }
        let result = self.journaled(
            |d| d.release_now(lease, outcome),
            |_, result| {
                let call = Call::Release {
                    lease: key(lease),
                    outcome,
                };
                Some((call, answer(result, |r| Ok(Answer::Receipt(r.clone())))?))
            },
        );
        result.map_err(lane_error)
    }

    fn release_now(&mut self, lease: &Lease, outcome: Outcome) -> Result<Receipt, DispatchError> {
        let receipt = self.lanes.release(lease, outcome)?;
        if let Some(&p) = self.project_index.get(lease.project()) {
            self.projects[p as usize].direct = false;
            self.offer(p);
        }
        Ok(receipt)
    }

    /// The lanes, for the record engine's snapshots (crate-internal, read-only use).
    pub(crate) fn lanes(&self) -> &ProjectLanes {
        &self.lanes
    }

    /// The queue names, in the order given.
    pub fn queues(&self) -> &[Label] {
        &self.names
    }

    /// Adds a reservation to the end of `queue` for `project`.
    pub fn enqueue(
        &mut self,
        queue: &str,
        project: &str,
        run: &str,
    ) -> Result<ReservationId, DispatchError> {
        self.journaled(
            |d| d.enqueue_now(queue, project, run),
            |d, result| {
                let call = Call::Enqueue {
                    queue: input(queue),
                    project: input(project),
                    run: input(run),
                };
                Some((
                    call,
                    answer(result, |id| Ok(Answer::Reservation(d.reservation(*id)?)))?,
                ))
            },
        )
    }

    fn enqueue_now(
        &mut self,
        queue: &str,
        project: &str,
        run: &str,
    ) -> Result<ReservationId, DispatchError> {
        let q = self.queue_index(queue)?;
        let project = Label::new(project)?;
        let run = Label::new(run)?;
        let p = self.intern(project);
        let id = ReservationId(self.count() + 1);
        self.reservations.push(Reservation {
            queue: q as u32,
            project: p,
            run,
            state: ReservationState::Queued,
            outcome: None,
            next: None,
        });
        self.append(q, p, id);
        let offer =
            self.lines[self.line(p, q)].head == Some(id) && self.projects[p as usize].available();
        if offer {
            self.queues[q].ready.insert(id, p);
        }
        Ok(id)
    }

    /// Hands out the oldest reservation in `queue` whose project is available, claiming its
    /// lane; `None` when every waiting item is retained behind a busy or blocked project.
    pub fn dispatch(&mut self, queue: &str) -> Result<Option<Job>, DispatchError> {
        self.journaled(
            |d| d.dispatch_now(queue),
            |d, result| {
                let call = Call::Dispatch {
                    queue: input(queue),
                };
                // A dispatch that hands out nothing changes nothing: it is not journaled.
                let answer = answer(result, |job| match job {
                    Some(job) => Ok(Answer::Dispatched(d.reservation(job.reservation)?)),
                    None => Err(DispatchError::UnknownReservation),
                })?;
                Some((call, answer))
            },
        )
    }

    fn dispatch_now(&mut self, queue: &str) -> Result<Option<Job>, DispatchError> {
        let q = self.queue_index(queue)?;
        let Some((&id, &p)) = self.queues[q].ready.first_key_value() else {
            return Ok(None);
        };
        let run = self.reservations[self.index(id)].run.clone();
        let project = &mut self.projects[p as usize];
        // Claim before changing anything: a refusal (impossible while the dispatcher owns the
        // lanes) leaves the queues as they were.
        let lease = self.lanes.claim(&project.name, &run)?;
        project.lease = Some((id, lease));
        let job = Job {
            reservation: id,
            project: project.name.clone(),
            run,
        };
        self.queues[q].ready.remove(&id);
        self.queues[q].retained -= 1;
        self.pop_head(q, p);
        let i = self.index(id);
        self.reservations[i].state = ReservationState::Dispatched;
        self.withdraw(p);
        Ok(Some(job))
    }

    /// Project `p` is busy now: no queue may offer it until it is released.
    fn withdraw(&mut self, p: u32) {
        let first = self.line(p, 0);
        let lines = &self.lines[first..first + self.queues.len()];
        for (queue, line) in self.queues.iter_mut().zip(lines) {
            if let Some(head) = line.head {
                queue.ready.remove(&head);
            }
        }
    }

    /// The work of a dispatched reservation returned with `outcome`. The lane stays held; save
    /// the returned final state, then call [`persisted`](Self::persisted).
    pub fn finish(
        &mut self,
        id: ReservationId,
        outcome: Outcome,
    ) -> Result<FinalState, DispatchError> {
        self.journaled(
            |d| d.finish_now(id, outcome),
            |d, result| {
                let call = Call::Finish {
                    reservation: id,
                    outcome,
                };
                Some((
                    call,
                    answer(result, |_| Ok(Answer::Persisting(d.reservation(id)?)))?,
                ))
            },
        )
    }

    fn finish_now(
        &mut self,
        id: ReservationId,
        outcome: Outcome,
    ) -> Result<FinalState, DispatchError> {
        let r = self.get_mut(id, DispatchError::NotDispatched)?;
        if r.state != ReservationState::Dispatched {
            return Err(DispatchError::NotDispatched);
        }
        r.state = ReservationState::Persisting;
        r.outcome = Some(outcome);
        let (p, run) = (r.project, r.run.clone());
        Ok(FinalState {
            reservation: id,
            project: self.projects[p as usize].name.clone(),
            run,
            outcome,
        })
    }

    /// Saving the final state completed (`saved`) or failed: releases the lane with the
    /// reservation's own lease, exactly once. A failed save, or an outcome of `needs_review`,
    /// leaves the reservation unresolved and blocks its project until [`resolve`](Self::resolve).
    pub fn persisted(&mut self, id: ReservationId, saved: bool) -> Result<Settled, DispatchError> {
        self.journaled(
            |d| d.persisted_now(id, saved),
            |_, result| {
                let call = Call::Persist {
                    reservation: id,
                    saved,
                };
                Some((call, answer(result, |s| Ok(Answer::Settled(s.clone())))?))
            },
        )
    }

    fn persisted_now(&mut self, id: ReservationId, saved: bool) -> Result<Settled, DispatchError> {
        let r = self.get_mut(id, DispatchError::NotPersisting)?;
        if r.state != ReservationState::Persisting {
            return Err(DispatchError::NotPersisting);
        }
        let outcome = match (saved, r.outcome) {
            (true, Some(outcome)) => outcome,
            _ => Outcome::NeedsReview,
        };
        let p = r.project as usize;
        let project = &mut self.projects[p];
        let lease = match &project.lease {
            Some((holder, lease)) if *holder == id => lease,
            _ => return Err(DispatchError::NotPersisting),
        };
        // Released before it is dropped: were the release refused, the lease would stay.
        let receipt = self.lanes.release(lease, outcome)?;
        project.lease = None;
        let state = if outcome == Outcome::NeedsReview {
            project.unresolved = Some(id);
            ReservationState::Unresolved
        } else {
            ReservationState::Done
        };
        let i = self.index(id);
        let r = &mut self.reservations[i];
        r.outcome = Some(outcome);
        r.state = state;
        self.offer(p as u32);
        Ok(Settled {
            reservation: id,
            state,
            receipt,
        })
    }

    /// Cancels a queued reservation. One that was already dispatched gets `NOT_QUEUED`: between
    /// a cancel and a dispatch racing for the same reservation, exactly one wins.
    pub fn cancel(&mut self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        self.journaled(
            |d| d.cancel_now(id),
            |_, result| {
                let call = Call::Cancel { reservation: id };
                Some((
                    call,
                    answer(result, |v| Ok(Answer::Reservation(v.clone())))?,
                ))
            },
        )
    }

    fn cancel_now(&mut self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        let r = self.get_mut(id, DispatchError::NotQueued)?;
        if r.state != ReservationState::Queued {
            return Err(DispatchError::NotQueued);
        }
        r.state = ReservationState::Cancelled;
        let (q, p) = (r.queue as usize, r.project);
        self.queues[q].retained -= 1;
        if self.lines[self.line(p, q)].head == Some(id) {
            self.queues[q].ready.remove(&id);
            self.pop_head(q, p);
            if self.projects[p as usize].available() {
                self.offer_in(q, p);
            }
        }
        self.reservation(id)
    }

    /// Clears an unresolved result after a person looked at it; its project becomes available.
    pub fn resolve(&mut self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        self.journaled(
            |d| d.resolve_now(id),
            |_, result| {
                let call = Call::Resolve { reservation: id };
                Some((
                    call,
                    answer(result, |v| Ok(Answer::Reservation(v.clone())))?,
                ))
            },
        )
    }

    fn resolve_now(&mut self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        let r = self.get_mut(id, DispatchError::NotUnresolved)?;
        if r.state != ReservationState::Unresolved {
            return Err(DispatchError::NotUnresolved);
        }
        r.state = ReservationState::Resolved;
        let p = r.project;
        self.projects[p as usize].unresolved = None;
        self.offer(p);
        self.reservation(id)
    }

    /// A snapshot of one reservation.
    pub fn reservation(&self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        let r = &self.reservations[self.slot(id)?];
        Ok(ReservationView {
            id,
            queue: self.names[r.queue as usize].clone(),
            project: self.projects[r.project as usize].name.clone(),
            run: r.run.clone(),
            state: r.state,
            outcome: r.outcome,
        })
    }

    /// Snapshots of every reservation, in id order.
    pub fn reservations(&self) -> Vec<ReservationView> {
        (self.retired + 1..=self.count())
            .filter_map(|n| self.reservation(ReservationId(n)).ok())
            .collect()
    }

    /// How many reservations have been enqueued (or restored).
    #[cfg_attr(not(feature = "json"), allow(dead_code))]
    pub(crate) fn reservation_count(&self) -> u64 {
        self.count()
    }

    /// Reservations issued, retired ones included.
    fn count(&self) -> u64 {
        self.retired + self.reservations.len() as u64
    }

    /// How many reservations wait in `queue` (queued, not cancelled).
    pub fn retained(&self, queue: &str) -> Result<usize, DispatchError> {
        Ok(self.queues[self.queue_index(queue)?].retained)
    }

    fn queue_index(&self, queue: &str) -> Result<usize, DispatchError> {
        self.names
            .iter()
            .position(|n| n == queue)
            .ok_or(DispatchError::UnknownQueue)
    }

    /// The project's index, adding it on first sight.
    fn intern(&mut self, project: Label) -> u32 {
        if let Some(&p) = self.project_index.get(&project) {
            return p;
        }
        let p = self.projects.len() as u32;
        self.projects.push(Project {
            name: project.clone(),
            lease: None,
            unresolved: None,
            direct: false,
        });
        self.lines
            .extend(std::iter::repeat_n(Line::default(), self.queues.len()));
        self.project_index.insert(project, p);
        p
    }

    /// Where project `p`'s line for queue `q` is in `lines`.
    fn line(&self, p: u32, q: usize) -> usize {
        p as usize * self.queues.len() + q
    }

    /// Where a reservation named from outside (a caller, a record) is held. The id is checked
    /// against the reservations held *before* it becomes a `usize`: on 32-bit targets (wasm32)
    /// a cast would wrap `R4294967297` onto `R1`.
    fn slot(&self, id: ReservationId) -> Result<usize, DispatchError> {
        id.0.checked_sub(1 + self.retired)
            .filter(|&i| i < self.reservations.len() as u64)
            .map(|i| i as usize) // < len, so it fits
            .ok_or(DispatchError::UnknownReservation)
    }

    /// The reservation `id` for a transition that refuses one settled for good with
    /// `settled`: a retired one gets that refusal, as it got it before it was retired.
    fn get_mut(
        &mut self,
        id: ReservationId,
        settled: DispatchError,
    ) -> Result<&mut Reservation, DispatchError> {
        if id.0 >= 1 && id.0 <= self.retired {
            return Err(settled);
        }
        let i = self.slot(id)?;
        Ok(&mut self.reservations[i])
    }

    /// The slot of an id this dispatcher issued itself and still holds (`R(n)` for the n-th
    /// reservation, n ≤ the reservations issued, so the cast cannot wrap; a live reservation
    /// and every id a waiting line holds are after the retired ones). Ids that come from
    /// outside go through [`Dispatcher::slot`], which checks them first.
    fn index(&self, id: ReservationId) -> usize {
        (id.0 - self.retired) as usize - 1
    }

    /// Puts the queued reservation `id` at the end of project `p`'s waiting line in queue `q`.
    fn append(&mut self, q: usize, p: u32, id: ReservationId) {
        let line = self.line(p, q);
        let line = &mut self.lines[line];
        match line.tail.replace(id) {
            Some(tail) => {
                let i = self.index(tail);
                self.reservations[i].next = Some(id);
            }
            None => line.head = Some(id),
        }
        self.queues[q].retained += 1;
    }

    /// Removes the head of project `p`'s waiting line in queue `q`, then any cancelled ids that
    /// reach the front.
    fn pop_head(&mut self, q: usize, p: u32) {
        let line = self.line(p, q);
        let line = &mut self.lines[line];
        let mut next = line
            .head
            .and_then(|head| self.reservations[(head.0 - self.retired) as usize - 1].next);
        while let Some(id) = next {
            let r = &self.reservations[(id.0 - self.retired) as usize - 1];
            if r.state != ReservationState::Cancelled {
                break;
            }
            next = r.next;
        }
        line.head = next;
        if next.is_none() {
            line.tail = None;
        }
    }

    /// Project `p` may have become available: offer its head in every queue.
    fn offer(&mut self, p: u32) {
        if self.projects[p as usize].available() {
            for q in 0..self.queues.len() {
                self.offer_in(q, p);
            }
        }
    }

    fn offer_in(&mut self, q: usize, p: u32) {
        if let Some(head) = self.lines[self.line(p, q)].head {
            self.queues[q].ready.insert(head, p);
        }
    }
}

/// A lease as the journal names it.
fn key(lease: &Lease) -> LeaseKey {
    LeaseKey {
        project: lease.project_label().clone(),
        run: lease.run_label().clone(),
        generation: lease.generation(),
    }
}

/// A direct lane operation's refusal: always one of the lanes' own.
fn lane_error(e: DispatchError) -> LaneError {
    match e {
        DispatchError::Lane(e) => e,
        _ => LaneError::InvalidLease,
    }
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("queues", &self.names)
            .field("reservations", &self.count())
            .finish_non_exhaustive()
    }
}
