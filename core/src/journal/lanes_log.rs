//! The lanes' journal: every shard logs its operations, inside its own critical section, with
//! its own sequence number, into a buffer allocated beforehand; a take puts the shards' logs in
//! one order that replays.
//!
//! Why that order replays: a project always lives in one shard, and an operation takes its
//! shard's next sequence number under the shard's lock, at the moment it takes effect, so each
//! shard's numbers follow the order its operations took effect. Operations on different projects
//! commute (each reads and writes only its own project's lane; the token counter they share is
//! never saved), so any interleaving of the shards that keeps each shard's order gives every
//! operation the answer it had. A take merges the shards by time, keeping each shard's order.
//!
//! An entry is small (one cache line): the project is its slot number in the shard, and a run
//! label is copied only for a refusal; a release moves its lease's run out of the lane it held
//! into its entry, and a take finds the run of a claim or a stop request in that
//! release, or in the lane the lease still holds, read with the buffer under the same lock. An
//! entry whose run is not known yet (its release is on its way into a buffer) waits, like one
//! after a gap.
//!
//! Nothing under a shard's lock allocates or calls out: the entry is written into spare
//! capacity, and when there is none it is handed back; after the lock is released the full
//! buffer is swapped for an empty one (recycled from earlier takes, or allocated outside the
//! lock) and the entry goes into it. A take swaps each shard's buffer for an empty one the same
//! way, so buffers are reused and the hot path writes into memory it has written before. A take
//! hands out each shard's entries only up to the first missing number (an entry on its way into
//! a fresh buffer); the rest wait for the next take, so takes can simply be concatenated.

// Without the feature `journal`, lanes log nothing: these types are there for the hook's
// signatures only.
#![cfg_attr(not(feature = "journal"), allow(dead_code))]

#[cfg(feature = "journal")]
use std::cmp::Reverse;
use std::collections::HashMap;
#[cfg(feature = "journal")]
use std::collections::{BinaryHeap, VecDeque};
#[cfg(feature = "journal")]
use std::sync::{Arc, Mutex, PoisonError};

use crate::dispatch::types::DispatchError;
use crate::record::Timestamp;
use crate::{Label, LaneError, LaneState, LaneView, Outcome, Receipt};

#[cfg(feature = "journal")]
use super::entry::Clock;
use super::entry::{Answer, Call, Entry, LeaseKey};

/// Entries a shard's buffer holds before it is swapped for a fresh one.
#[cfg(feature = "journal")]
const CHUNK: usize = 256;
/// Empty buffers kept for reuse, at most (about 26 MB): a journal taken every few milliseconds
/// reuses warm memory instead of faulting fresh pages in.
#[cfg(feature = "journal")]
const SPARE: usize = 1024;

/// Which lane operation an entry is.
#[derive(Clone, Copy)]
pub enum LaneCall {
    Claim,
    RequestStop,
    Release(Outcome),
}

/// One lane operation as its shard performed it, kept small: the project is its slot number in
/// the shard, and the run label is there only when nothing else tells it (a refusal's, and a
/// release's, moved out of the lane it held). A take finds the others' run in the release that
/// carries it, or in the lane the lease still holds ([`Slots`]).
pub struct LaneEntry {
    seq: u64,
    /// Milliseconds since 1970, or [`NO_TIME`] (kept in 8 bytes: the entry fits a cache line).
    at: u64,
    /// The lease's generation (a claim's new one; 0 for a refused claim).
    generation: u64,
    /// The project's slot in its shard.
    slot: u32,
    call: LaneCall,
    /// `Ok(stop_requested)` (the flag a release's receipt carries), or the refusal.
    answer: Result<bool, LaneError>,
    run: Option<Label>,
}

/// What a take reads from a shard under its lock, together with its buffer: every project's
/// label by slot, and the lease holding each lane, if any.
pub struct Slots(pub Vec<Option<SlotView>>);

/// A project's label, and the generation and run of the lease holding its lane, if any.
pub type SlotView = (Label, Option<(u64, Label)>);

impl LaneEntry {
    /// An entry at `at`: milliseconds since 1970, or [`NO_TIME`].
    pub(crate) fn new(
        at: u64,
        call: LaneCall,
        slot: u32,
        generation: u64,
        answer: Result<bool, LaneError>,
        run: Option<Label>,
    ) -> LaneEntry {
        LaneEntry {
            seq: 0,
            at,
            generation,
            slot,
            call,
            answer,
            run,
        }
    }

    /// The run of a lease this entry names without carrying it, from a release of this take
    /// that carries it, or from the lane that lease still holds.
    fn run(&self, carried: &HashMap<(u32, u64), Label>, slots: &Slots) -> Option<Label> {
        if let Some(run) = &self.run {
            return Some(run.clone());
        }
        if let Some(run) = carried.get(&(self.slot, self.generation)) {
            return Some(run.clone());
        }
        match slots.0.get(self.slot as usize)? {
            Some((_, Some((generation, run)))) if *generation == self.generation => {
                Some(run.clone())
            }
            _ => None,
        }
    }

    fn into_entry(self, project: Label, run: Label) -> Entry {
        let lease = LeaseKey {
            project,
            run,
            generation: self.generation,
        };
        let refused = |e: LaneError| Answer::Refused(DispatchError::Lane(e));
        let (call, answer) = match (self.call, self.answer) {
            (LaneCall::Claim, answer) => (
                Call::Claim {
                    project: lease.project.to_string(),
                    run: lease.run.to_string(),
                },
                match answer {
                    Ok(_) => Answer::Claimed(lease),
                    Err(e) => refused(e),
                },
            ),
            (LaneCall::RequestStop, answer) => {
                let answer = match answer {
                    Ok(_) => Answer::View(LaneView::held(
                        &lease.project,
                        &lease.run,
                        LaneState::StopRequested,
                    )),
                    Err(e) => refused(e),
                };
                (Call::RequestStop { lease }, answer)
            }
            (LaneCall::Release(outcome), answer) => {
                let answer = match answer {
                    Ok(stop_requested) => Answer::Receipt(Receipt {
                        project: lease.project.clone(),
                        run: lease.run.clone(),
                        outcome,
                        stop_requested,
                        work_executed_here: false,
                    }),
                    Err(e) => refused(e),
                };
                (Call::Release { lease, outcome }, answer)
            }
        };
        Entry {
            at: Timestamp::from_millis(self.at).ok(),
            actor: None,
            call,
            answer,
        }
    }
}

// An entry is one cache line at most: the hot path writes one per operation.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<LaneEntry>() <= 64);

/// An entry's time when the journal has no clock (no timestamp reaches it: they end in 9999).
pub(crate) const NO_TIME: u64 = u64::MAX;

/// A shard's part of the journal, kept inside the shard (under its lock). Empty (zero-sized)
/// without the feature `journal`.
#[derive(Default)]
pub struct ShardLog {
    #[cfg(feature = "journal")]
    seq: u64,
    #[cfg(feature = "journal")]
    buffer: Vec<LaneEntry>,
}

impl ShardLog {
    /// Gives `entry` the shard's next sequence number and keeps it if the buffer has room;
    /// otherwise hands it back, to be stored once the lock is released. Never allocates.
    #[cfg(feature = "journal")]
    #[inline]
    pub(crate) fn log(&mut self, mut entry: LaneEntry) -> Option<LaneEntry> {
        self.seq += 1;
        entry.seq = self.seq;
        if self.buffer.len() < self.buffer.capacity() {
            self.buffer.push(entry);
            None
        } else {
            Some(entry)
        }
    }

    /// Whether the buffer holds nothing.
    #[cfg(feature = "journal")]
    pub(crate) fn is_empty(&self) -> bool {
        self.buffer.is_empty()
    }

    /// Swaps the buffer for the empty `fresh` one and returns the old one.
    #[cfg(feature = "journal")]
    pub(crate) fn swap(&mut self, fresh: Vec<LaneEntry>) -> Vec<LaneEntry> {
        std::mem::replace(&mut self.buffer, fresh)
    }

    /// Puts `entry` (logged earlier, when the buffer was full) into the buffer, if the buffer is
    /// still full swapping it for `fresh` first; returns the full buffer taken out, and the entry
    /// if there is no room for it even so (others filled `fresh` meanwhile). Never allocates.
    #[cfg(feature = "journal")]
    pub(crate) fn refill(
        &mut self,
        fresh: Vec<LaneEntry>,
        entry: LaneEntry,
    ) -> (Vec<LaneEntry>, Option<LaneEntry>) {
        let full = if self.buffer.len() < self.buffer.capacity() {
            fresh
        } else {
            self.swap(fresh)
        };
        if self.buffer.len() < self.buffer.capacity() {
            self.buffer.push(entry);
            (full, None)
        } else {
            (full, Some(entry))
        }
    }

    /// Without a journal nothing is logged, so nothing is refilled.
    #[cfg(not(feature = "journal"))]
    pub(crate) fn refill(
        &mut self,
        fresh: Vec<LaneEntry>,
        entry: LaneEntry,
    ) -> (Vec<LaneEntry>, Option<LaneEntry>) {
        (fresh, Some(entry))
    }
}

#[cfg(feature = "journal")]
/// The journal of `ProjectLanes<Journaled>` (made by `ProjectLanes::with_journal`): its clock, and
/// what the shards' buffers could not hold. Feature `journal`.
pub struct Journaled {
    clock: Option<Arc<dyn Clock>>,
    /// Full buffers moved out of their shards (and, rarely, an entry that found no room), by
    /// shard.
    overflow: Mutex<Vec<(usize, Vec<LaneEntry>)>>,
    /// Empty buffers, ready to be swapped into a shard.
    spare: Mutex<Vec<Vec<LaneEntry>>>,
    /// Claims refused before any lane was looked at: they touch no lane and go anywhere.
    unplaced: Mutex<Vec<Entry>>,
    /// What takes have not handed out yet.
    pending: Mutex<Pending>,
}

#[cfg(feature = "journal")]
/// Per shard: the next sequence number a take hands out, and entries after a missing one.
struct Pending {
    next: Vec<u64>,
    held: Vec<Vec<LaneEntry>>,
}

#[cfg(feature = "journal")]
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing panics while these are held; a poisoned lock must not lose the journal.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(feature = "journal")]
impl Journaled {
    pub(crate) fn new(clock: Option<Arc<dyn Clock>>, shards: usize) -> Journaled {
        Journaled {
            clock,
            overflow: Mutex::new(Vec::new()),
            spare: Mutex::new(Vec::new()),
            unplaced: Mutex::new(Vec::new()),
            pending: Mutex::new(Pending {
                next: vec![1; shards],
                held: (0..shards).map(|_| Vec::new()).collect(),
            }),
        }
    }

    /// After the shard's lock is released: gets an empty buffer ready and hands it and the
    /// entry the shard's buffer had no room for to `refill`, which locks the shard again and
    /// calls [`ShardLog::refill`]; stores what comes back.
    #[cold]
    fn overflowed(
        &self,
        shard: usize,
        entry: LaneEntry,
        refill: impl FnOnce(Vec<LaneEntry>, LaneEntry) -> (Vec<LaneEntry>, Option<LaneEntry>),
    ) {
        let (full, homeless) = refill(self.spare_buffer(), entry);
        if full.is_empty() {
            self.recycle(full);
        } else {
            lock(&self.overflow).push((shard, full));
        }
        if let Some(entry) = homeless {
            lock(&self.overflow).push((shard, vec![entry]));
        }
    }

    /// An empty buffer to swap into a shard: a recycled one, or a new one (allocated here,
    /// outside any shard's lock).
    pub(crate) fn spare_buffer(&self) -> Vec<LaneEntry> {
        lock(&self.spare)
            .pop()
            .unwrap_or_else(|| Vec::with_capacity(CHUNK))
    }

    /// Keeps an emptied buffer for reuse (up to [`SPARE`] of them).
    pub(crate) fn recycle(&self, mut buffer: Vec<LaneEntry>) {
        buffer.clear();
        if buffer.capacity() >= CHUNK {
            let mut spare = lock(&self.spare);
            if spare.len() < SPARE {
                spare.push(buffer);
            }
        }
    }

    /// Puts every shard's entries (`taken[i]`: what shard `i`'s buffer held, and its slots) and
    /// what overflowed into one order that replays; see the [module](self).
    pub(crate) fn assemble(&self, mut taken: Vec<(Vec<LaneEntry>, Slots)>) -> Vec<Entry> {
        for (shard, mut entries) in std::mem::take(&mut *lock(&self.overflow)) {
            taken[shard].0.append(&mut entries);
            self.recycle(entries);
        }
        let unplaced = std::mem::take(&mut *lock(&self.unplaced));
        let mut pending = lock(&self.pending);
        let Pending { next, held } = &mut *pending;
        let mut sources: Vec<VecDeque<Entry>> = Vec::with_capacity(taken.len() + 1);
        for (shard, (mut entries, slots)) in taken.into_iter().enumerate() {
            entries.append(&mut held[shard]);
            entries.sort_unstable_by_key(|e| e.seq);
            let carried: HashMap<(u32, u64), Label> = entries
                .iter()
                .filter(|e| matches!((e.call, e.answer), (LaneCall::Release(_), Ok(_))))
                .filter_map(|e| Some(((e.slot, e.generation), e.run.clone()?)))
                .collect();
            // Hand out the run of numbers without a gap whose labels are known; keep the rest
            // (an entry still on its way into a buffer, or a claim whose release is) for the
            // next take.
            let mut ready = VecDeque::with_capacity(entries.len());
            let mut count = 0;
            for (entry, expected) in entries.iter().zip(next[shard]..) {
                let project = slots.0.get(entry.slot as usize).and_then(|s| s.as_ref());
                let run = entry.run(&carried, &slots);
                match (entry.seq == expected, project, run) {
                    (true, Some((project, _)), Some(run)) => {
                        ready.push_back((project.clone(), run))
                    }
                    _ => break,
                }
                count += 1;
            }
            held[shard] = entries.split_off(count);
            next[shard] += count as u64;
            sources.push(
                entries
                    .drain(..)
                    .zip(ready)
                    .map(|(entry, (project, run))| entry.into_entry(project, run))
                    .collect(),
            );
            self.recycle(entries);
        }
        drop(pending);
        sources.push(unplaced.into());
        merge_by_time(sources)
    }
}

#[cfg(feature = "journal")]
/// Merges the sources into one list, taking at each turn the head with the earliest time (an
/// entry without a time counts as earliest; ties go to the lower source), so that each source
/// keeps its own order.
fn merge_by_time(mut sources: Vec<VecDeque<Entry>>) -> Vec<Entry> {
    let total = sources.iter().map(VecDeque::len).sum();
    let mut merged = Vec::with_capacity(total);
    let mut heads: BinaryHeap<Reverse<(Option<Timestamp>, usize)>> = sources
        .iter()
        .enumerate()
        .filter_map(|(i, s)| s.front().map(|e| Reverse((e.at, i))))
        .collect();
    while let Some(Reverse((_, i))) = heads.pop() {
        let Some(entry) = sources[i].pop_front() else {
            continue;
        };
        merged.push(entry);
        if let Some(next) = sources[i].front() {
            heads.push(Reverse((next.at, i)));
        }
    }
    merged
}

/// What the lanes call at each operation, by the kind of journal they keep (sealed: this module
/// is the crate's own). For [`Unjournaled`] lanes every method is empty and every type `()`, so
/// their code is the same as if there were no journal at all.
pub trait Hook: Send + Sync {
    /// What an operation reads from the clock, before its shard is locked.
    type Time: Copy;
    /// What a logged entry leaves to do once the lock is released.
    type Pending;
    /// The time for the operation about to run.
    fn now(&self) -> Self::Time;
    /// Under the shard's lock: logs the operation, made by `entry` from its time (milliseconds
    /// since 1970, or [`NO_TIME`]).
    fn log(
        &self,
        log: &mut ShardLog,
        at: Self::Time,
        entry: impl FnOnce(u64) -> LaneEntry,
    ) -> Self::Pending;
    /// After the lock: what the log left to do, with `refill` to lock the shard again and call
    /// [`ShardLog::refill`].
    fn after(
        &self,
        shard: usize,
        pending: Self::Pending,
        refill: impl FnOnce(Vec<LaneEntry>, LaneEntry) -> (Vec<LaneEntry>, Option<LaneEntry>),
    );
    /// A claim refused before any lane was looked at (a label that breaks the rule).
    fn refused(&self, entry: impl FnOnce() -> Entry);
}

/// Lanes without a journal: the default of `ProjectLanes`. Nothing is logged, at no cost.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unjournaled;

impl Hook for Unjournaled {
    type Time = ();
    type Pending = ();
    #[inline(always)]
    fn now(&self) {}
    #[inline(always)]
    fn log(&self, _: &mut ShardLog, _: (), _: impl FnOnce(u64) -> LaneEntry) {}
    #[inline(always)]
    fn after(
        &self,
        _: usize,
        _: (),
        _: impl FnOnce(Vec<LaneEntry>, LaneEntry) -> (Vec<LaneEntry>, Option<LaneEntry>),
    ) {
    }
    #[inline(always)]
    fn refused(&self, _: impl FnOnce() -> Entry) {}
}

#[cfg(feature = "journal")]
impl Hook for Journaled {
    /// Milliseconds since 1970, or [`NO_TIME`] without a clock.
    type Time = u64;
    type Pending = Option<LaneEntry>;

    #[inline]
    fn now(&self) -> u64 {
        match &self.clock {
            Some(clock) => clock.now().millis(),
            None => NO_TIME,
        }
    }

    #[inline]
    fn log(
        &self,
        log: &mut ShardLog,
        at: u64,
        entry: impl FnOnce(u64) -> LaneEntry,
    ) -> Option<LaneEntry> {
        log.log(entry(at))
    }

    #[inline]
    fn after(
        &self,
        shard: usize,
        pending: Option<LaneEntry>,
        refill: impl FnOnce(Vec<LaneEntry>, LaneEntry) -> (Vec<LaneEntry>, Option<LaneEntry>),
    ) {
        if let Some(entry) = pending {
            self.overflowed(shard, entry, refill);
        }
    }

    #[cold]
    fn refused(&self, entry: impl FnOnce() -> Entry) {
        let mut entry = entry();
        entry.at = self.clock.as_ref().map(|c| c.now());
        lock(&self.unplaced).push(entry);
    }
}

#[cfg(all(test, feature = "journal"))]
mod tests {
    use super::*;

    fn label(text: &str) -> Label {
        Label::new(text).unwrap()
    }

    /// A claim, numbered `seq` in its shard, with generation `seq`, carrying its run.
    fn entry(seq: u64, at: u64) -> LaneEntry {
        let mut e = LaneEntry::new(at, LaneCall::Claim, 0, seq, Ok(false), Some(label("r")));
        e.seq = seq;
        e
    }

    /// One project, `p`, in slot 0; held by `held` if any.
    fn slots(held: Option<(u64, &str)>) -> Slots {
        Slots(vec![Some((
            label("p"),
            held.map(|(g, run)| (g, label(run))),
        ))])
    }

    fn shards(first: Vec<LaneEntry>, second: Vec<LaneEntry>) -> Vec<(Vec<LaneEntry>, Slots)> {
        vec![(first, slots(None)), (second, slots(None))]
    }

    fn generations(entries: &[Entry]) -> Vec<u64> {
        entries
            .iter()
            .map(|e| match (&e.call, &e.answer) {
                (_, Answer::Claimed(key)) => key.generation,
                (Call::Release { lease, .. }, _) => lease.generation,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    #[test]
    fn a_take_stops_at_a_missing_number_and_the_next_take_goes_on_from_it() {
        let journal = Journaled::new(None, 2);
        let first = journal.assemble(shards(vec![entry(1, 5), entry(2, 6), entry(4, 8)], vec![]));
        assert_eq!(generations(&first), [1, 2], "3 is missing: 4 waits");
        lock(&journal.overflow).push((0, vec![entry(3, 7)]));
        let second = journal.assemble(shards(vec![entry(5, 9)], vec![]));
        assert_eq!(generations(&second), [3, 4, 5]);
    }

    #[test]
    fn a_claims_run_comes_from_its_release_or_from_the_lane_it_still_holds() {
        let journal = Journaled::new(None, 1);
        let claim = |seq, generation| {
            let mut e = LaneEntry::new(NO_TIME, LaneCall::Claim, 0, generation, Ok(false), None);
            e.seq = seq;
            e
        };
        let release = |seq, generation, run: &str| {
            let outcome = LaneCall::Release(Outcome::Succeeded);
            let mut e =
                LaneEntry::new(NO_TIME, outcome, 0, generation, Ok(false), Some(label(run)));
            e.seq = seq;
            e
        };
        // Generation 1 was released (its release carries its run); generation 2 still holds.
        let taken = vec![(
            vec![claim(1, 1), release(2, 1, "first"), claim(3, 2)],
            slots(Some((2, "second"))),
        )];
        let entries = journal.assemble(taken);
        let runs: Vec<&str> = entries
            .iter()
            .map(|e| match &e.call {
                Call::Claim { run, .. } => run.as_str(),
                Call::Release { lease, .. } => lease.run.as_str(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(runs, ["first", "first", "second"]);
        // A claim whose release is still on its way waits for it, and what comes after it too.
        let taken = vec![(vec![claim(4, 3)], slots(None))];
        assert!(journal.assemble(taken).is_empty());
        lock(&journal.overflow).push((0, vec![release(5, 3, "third")]));
        let entries = journal.assemble(vec![(vec![], slots(None))]);
        assert_eq!(generations(&entries), [3, 3]);
    }

    #[test]
    fn shards_are_merged_by_time_each_in_its_own_order() {
        let journal = Journaled::new(None, 2);
        // Shard 0's second entry read the clock earlier than its first: it stays second.
        let merged = journal.assemble(shards(
            vec![entry(1, 10), entry(2, 3)],
            vec![entry(1, 5), entry(2, 20)],
        ));
        let times: Vec<u64> = merged.iter().map(|e| e.at.unwrap().millis()).collect();
        assert_eq!(times, [5, 10, 3, 20]);
    }
}
