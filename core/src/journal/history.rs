//! A journal's history: the state it starts from and its entries in an order that replays, and
//! the state after any prefix of it (folded from the answers, never recomputed by the core).

use std::collections::BTreeMap;

use crate::dispatch::{ReservationId, ReservationView};
use crate::{Label, LaneState, LaneView};

use crate::record::chain::ChainHead;
use crate::transition::{Answer, Call, Entry, LeaseKey};

use super::link;

/// What a system held at some moment, as its journal's answers tell it: the lanes held (by which
/// lease, stop requested or not) and every reservation (by the system's id).
///
/// A journal kept from the system's start begins from the empty state. One that begins later
/// (older entries pruned, or a database journal) begins from the state at its first entry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct State {
    /// Lanes journals: the lease holding each held lane, and whether a stop was requested.
    leases: BTreeMap<Label, (LeaseKey, bool)>,
    /// Dispatcher journals: every reservation, by the system's id.
    reservations: BTreeMap<ReservationId, ReservationView>,
    /// Dispatcher journals: the reservation holding each held lane.
    holders: BTreeMap<Label, ReservationId>,
}

impl State {
    /// Nothing held, no reservation.
    pub fn new() -> State {
        State::default()
    }

    /// The lanes journal's `lease` holds its lane (a stop requested or not).
    pub fn hold(&mut self, lease: LeaseKey, stop_requested: bool) {
        self.leases
            .insert(lease.project.clone(), (lease, stop_requested));
    }

    /// The dispatcher journal's reservation `view` exists (by the system's id); a dispatched or
    /// persisting one holds its project's lane.
    pub fn add_reservation(&mut self, view: ReservationView) {
        self.set_reservation(view);
    }

    /// The lease holding `project`'s lane, and whether a stop was requested (lanes journals).
    pub fn lease(&self, project: &str) -> Option<(&LeaseKey, bool)> {
        self.leases.get(project).map(|(key, stop)| (key, *stop))
    }

    /// The leases holding lanes, by project.
    pub fn leases(&self) -> impl Iterator<Item = (&LeaseKey, bool)> {
        self.leases.values().map(|(key, stop)| (key, *stop))
    }

    /// A reservation by the system's id (dispatcher journals).
    pub fn reservation(&self, id: ReservationId) -> Option<&ReservationView> {
        self.reservations.get(&id)
    }

    /// Every reservation, by the system's id.
    pub fn reservations(&self) -> impl Iterator<Item = &ReservationView> {
        self.reservations.values()
    }

    /// `project`'s lane as a record shows it.
    pub fn lane(&self, project: &Label) -> LaneView {
        if let Some((key, stop)) = self.leases.get(project) {
            let state = if *stop {
                LaneState::StopRequested
            } else {
                LaneState::Running
            };
            return LaneView::held(project, &key.run, state);
        }
        match self
            .holders
            .get(project)
            .and_then(|id| self.reservations.get(id))
        {
            Some(holder) => LaneView::held(project, &holder.run, LaneState::Running),
            None => LaneView::idle(project),
        }
    }

    /// Forgets reservation `id` (one settled for good, whose store is elsewhere).
    pub(crate) fn forget_reservation(&mut self, id: ReservationId) {
        if let Some(view) = self.reservations.remove(&id)
            && self.holders.get(&view.project) == Some(&id)
        {
            self.holders.remove(&view.project);
        }
    }

    fn set_reservation(&mut self, view: ReservationView) {
        if view.state.holds_lane() {
            self.holders.insert(view.project.clone(), view.id);
        } else if self.holders.get(&view.project) == Some(&view.id) {
            self.holders.remove(&view.project);
        }
        self.reservations.insert(view.id, view);
    }

    /// The project an entry concerns, if it concerns one this state can name: a reservation it
    /// names must be known (an entry naming one never enqueued concerns nothing a record shows).
    pub(crate) fn project_of<'a>(&'a self, entry: &'a Entry) -> Option<&'a str> {
        match &entry.call {
            Call::Claim { project, .. } | Call::Enqueue { project, .. } => Some(project),
            Call::RequestStop { lease } | Call::Release { lease, .. } => Some(&lease.project),
            Call::Dispatch { .. } => match &entry.answer {
                Answer::Dispatched(view) => Some(&view.project),
                _ => None,
            },
            Call::Finish { reservation, .. }
            | Call::Persist { reservation, .. }
            | Call::Cancel { reservation }
            | Call::Resolve { reservation } => self
                .reservations
                .get(reservation)
                .map(|v| v.project.as_str()),
        }
    }

    /// The state after `entry`, as its answer tells it.
    pub fn apply(&mut self, entry: &Entry) {
        match (&entry.call, &entry.answer) {
            (_, Answer::Claimed(key)) => self.hold(key.clone(), false),
            (Call::RequestStop { lease }, Answer::View(_)) => {
                if let Some((key, stop)) = self.leases.get_mut(&lease.project)
                    && key.generation == lease.generation
                {
                    *stop = true;
                }
            }
            (Call::Release { lease, .. }, Answer::Receipt(_))
                if self
                    .leases
                    .get(&lease.project)
                    .is_some_and(|(key, _)| key.generation == lease.generation) =>
            {
                self.leases.remove(&lease.project);
            }
            (
                _,
                Answer::Reservation(view) | Answer::Dispatched(view) | Answer::Persisting(view),
            ) => self.set_reservation(view.clone()),
            (_, Answer::Settled(settled)) => {
                if let Some(view) = self.reservations.get(&settled.reservation) {
                    let mut view = view.clone();
                    view.state = settled.state;
                    view.outcome = Some(settled.receipt.outcome);
                    self.set_reservation(view);
                }
            }
            _ => {}
        }
    }
}

/// A system's journal: the [`State`] it starts from and its [entries](Entry), in an order that
/// replays on the core. Collect entries as the system hands them out (`ProjectLanes::take_journal`,
/// `Dispatcher::take_journal`), then export all of it, some projects, or a time window as a
/// version 2 record ([`Journal::record`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Journal {
    pub(super) queues: Vec<Label>,
    pub(super) start: State,
    /// The hash chain before the first entry: links of entries forgotten, or a start given.
    pub(super) chain_start: ChainHead,
    pub(super) entries: Vec<Entry>,
}

impl Journal {
    /// An empty journal of lanes, starting from nothing held.
    pub fn lanes() -> Journal {
        Journal::dispatcher(&[])
    }

    /// An empty journal of a dispatcher with these queues, starting from no reservation.
    pub fn dispatcher(queues: &[Label]) -> Journal {
        Journal {
            queues: queues.to_vec(),
            start: State::new(),
            chain_start: ChainHead::GENESIS,
            entries: Vec::new(),
        }
    }

    /// The same journal, starting from `state` (what the system held before its first entry).
    pub fn starting_from(mut self, state: State) -> Journal {
        self.start = state;
        self
    }

    /// The same journal, its hash chain continuing from `head` (the chain of the entries before
    /// its first, kept elsewhere) instead of starting anew.
    pub fn chained_from(mut self, head: ChainHead) -> Journal {
        self.chain_start = head;
        self
    }

    /// The hash chain before the first entry ([`ChainHead::GENESIS`] for a journal kept from
    /// the system's start).
    pub fn chain_start(&self) -> ChainHead {
        self.chain_start
    }

    /// The hash chain after every entry: each entry's [link](super::link), hashed in order from
    /// [`chain_start`](Self::chain_start). It takes a pass over the entries (about a microsecond
    /// each); what a checkpoint of the journal proves.
    pub fn chain(&self) -> ChainHead {
        self.entries
            .iter()
            .fold(self.chain_start, |head, entry| head.next(&link(entry)))
    }

    /// Appends entries, in the order the system handed them out.
    pub fn extend(&mut self, entries: impl IntoIterator<Item = Entry>) {
        self.entries.extend(entries);
    }

    /// The entries, in order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The state the journal starts from.
    pub fn start(&self) -> &State {
        &self.start
    }

    /// The queues of a dispatcher journal (empty for lanes).
    pub fn queues(&self) -> &[Label] {
        &self.queues
    }

    /// The state after the first `n` entries.
    pub fn state_after(&self, n: usize) -> State {
        let mut state = self.start.clone();
        for entry in &self.entries[..n.min(self.entries.len())] {
            state.apply(entry);
        }
        state
    }

    /// Forgets the first `n` entries, folding them into the starting state and the chain's start,
    /// so that a long running system keeps its journal's memory bounded. Exports of what remains
    /// are unchanged, and carry the same links.
    pub fn forget_first(&mut self, n: usize) {
        let n = n.min(self.entries.len());
        self.start = self.state_after(n);
        self.chain_start = self.entries[..n]
            .iter()
            .fold(self.chain_start, |head, entry| head.next(&link(entry)));
        self.entries.drain(..n);
    }
}
