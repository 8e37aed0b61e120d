//! The lanes' journal: every shard logs its operations, inside its own critical section, into a
//! chunk allocated beforehand; a take puts the shards' logs in one order that replays.
//!
//! Why that order replays: a project always lives in one shard, and an operation takes its
//! shard's next sequence number under the shard's lock, at the moment it takes effect, so each
//! shard's numbers follow the order its operations took effect. Operations on different projects
//! commute (each reads and writes only its own project's lane; the token counter they share is
//! never saved), so any interleaving of the shards that keeps each shard's order gives every
//! operation the answer it had. A take merges the shards by time, keeping each shard's order.
//!
//! Each shard logs into chunks of numbered entries ([`shard_log`](super::shard_log)). A take
//! swaps each shard's chunk for an empty one got ready outside its lock, so chunks are reused
//! and the hot path writes into memory it has written before. It hands out each shard's entries
//! only up to the first missing number (a full chunk or an entry on its way out of its shard),
//! and, since a claim or a stop request names its run only through a release or the lane its
//! lease holds, an entry whose run is not known yet (its release is on its way out of its
//! shard) waits, like one after a gap. What waits comes with the next take, so takes can
//! simply be concatenated.

// Without the feature `journal`, lanes log nothing: these types are there for the hook's
// signatures only.
#![cfg_attr(not(feature = "journal"), allow(dead_code))]

#[cfg(feature = "journal")]
use std::cmp::Reverse;
#[cfg(feature = "journal")]
use std::collections::{BinaryHeap, HashMap, VecDeque};
#[cfg(feature = "journal")]
use std::sync::{Arc, Mutex, PoisonError};

#[cfg(feature = "journal")]
use crate::Label;
#[cfg(feature = "journal")]
use crate::record::Timestamp;

#[cfg(feature = "journal")]
use super::entry::Clock;
use super::entry::Entry;
use super::shard_log::{Chunk, LaneEntry, Refilled, ShardLog};
#[cfg(feature = "journal")]
use super::shard_log::{LaneCall, NO_TIME, Numbered, Slots, Spill};

/// Entries a chunk holds.
#[cfg(feature = "journal")]
const CHUNK: usize = 256;
/// Empty chunks kept for reuse, at most (about 15 MB): a journal taken every few milliseconds
/// reuses warm memory instead of faulting fresh pages in.
#[cfg(feature = "journal")]
const SPARE: usize = 1024;

/// Where a lanes journal's times come from, as its type says (sealed: this module is the crate's
/// own): milliseconds since 1970, or `NO_TIME`.
pub trait Stamp: Send + Sync {
    /// The time for an operation about to run.
    fn millis(&self) -> u64;
}

/// No times: a journal whose type says so reads no clock and tests for none at each operation,
/// so it costs the least. Its entries have no `at`. Feature `journal`.
#[cfg(feature = "journal")]
#[derive(Debug, Clone, Copy, Default)]
pub struct Untimed;

#[cfg(feature = "journal")]
impl Stamp for Untimed {
    #[inline(always)]
    fn millis(&self) -> u64 {
        NO_TIME
    }
}

#[cfg(feature = "journal")]
impl Stamp for Arc<dyn Clock> {
    #[inline]
    fn millis(&self) -> u64 {
        self.now().millis()
    }
}

#[cfg(feature = "journal")]
impl Stamp for Option<Arc<dyn Clock>> {
    #[inline]
    fn millis(&self) -> u64 {
        match self {
            Some(clock) => clock.now().millis(),
            None => NO_TIME,
        }
    }
}

#[cfg(feature = "journal")]
/// The journal of `ProjectLanes<Journaled<T>>` (made by `ProjectLanes::with_journal`): where its
/// times come from (`T`: [`Untimed`], an `Arc<dyn Clock>`, or by default
/// `Option<Arc<dyn Clock>>`, chosen at run time), and what has left the shards but not been
/// taken yet. Feature `journal`.
pub struct Journaled<T: super::Timekeeping = Option<Arc<dyn Clock>>> {
    clock: T,
    /// Full chunks moved out of their shards, and entries handed back, by shard.
    overflow: Mutex<Overflow>,
    /// Empty chunks, ready to be swapped into a shard.
    spare: Mutex<Vec<Chunk>>,
    /// Claims refused before any lane was looked at: they touch no lane and go anywhere.
    unplaced: Mutex<Vec<Entry>>,
    /// What takes have not handed out yet.
    pending: Mutex<Pending>,
}

#[cfg(feature = "journal")]
/// What has left the shards: full chunks and entries handed back, by shard.
#[derive(Default)]
struct Overflow {
    chunks: Vec<(usize, Chunk)>,
    entries: Vec<(usize, Numbered)>,
}

#[cfg(feature = "journal")]
/// Per shard: the next sequence number a take hands out, and entries after a missing one.
struct Pending {
    next: Vec<u64>,
    held: Vec<Vec<Numbered>>,
}

#[cfg(feature = "journal")]
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing panics while these are held; a poisoned lock must not lose the journal.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(feature = "journal")]
impl<T: super::Timekeeping> Journaled<T> {
    pub(crate) fn new(clock: T, shards: usize) -> Journaled<T> {
        Journaled {
            clock,
            overflow: Mutex::new(Overflow::default()),
            spare: Mutex::new(Vec::new()),
            unplaced: Mutex::new(Vec::new()),
            pending: Mutex::new(Pending {
                next: vec![1; shards],
                held: (0..shards).map(|_| Vec::new()).collect(),
            }),
        }
    }

    /// After the shard's lock is released: gets an empty chunk ready and hands it to `refill`,
    /// which locks the shard again and calls [`ShardLog::refill`]; stores what comes back, and
    /// the entry that found no room.
    #[cold]
    fn spilled(&self, shard: usize, spill: Spill, refill: impl FnOnce(Chunk) -> Refilled) {
        let (full, unused) = refill(self.spare_chunk());
        if let Some(unused) = unused {
            self.recycle(unused);
        }
        if full.is_some() || spill.0.is_some() {
            let mut overflow = lock(&self.overflow);
            if let Some(chunk) = full {
                overflow.chunks.push((shard, chunk));
            }
            if let Some(entry) = spill.0 {
                overflow.entries.push((shard, entry));
            }
        }
    }

    /// An empty chunk to swap into a shard: a recycled one, or a new one (allocated here,
    /// outside any shard's lock).
    pub(crate) fn spare_chunk(&self) -> Chunk {
        lock(&self.spare)
            .pop()
            .unwrap_or_else(|| Chunk::with_capacity(CHUNK))
    }

    /// Keeps an emptied chunk for reuse (up to [`SPARE`] of them).
    pub(crate) fn recycle(&self, mut chunk: Chunk) {
        if chunk.clear() >= CHUNK {
            let mut spare = lock(&self.spare);
            if spare.len() < SPARE {
                spare.push(chunk);
            }
        }
    }

    /// Puts every shard's entries (`taken[i]`: what shard `i` held, and its slots) and what
    /// left the shards before into one order that replays; see the [module](self).
    pub(crate) fn assemble(&self, taken: Vec<(Vec<Chunk>, Slots)>) -> Vec<Entry> {
        let mut numbered: Vec<(Vec<Numbered>, Slots)> = Vec::with_capacity(taken.len());
        for (chunks, slots) in taken {
            let mut entries = Vec::with_capacity(chunks.iter().map(Chunk::len).sum());
            for mut chunk in chunks {
                chunk.drain_into(&mut entries);
                self.recycle(chunk);
            }
            numbered.push((entries, slots));
        }
        self.order(numbered)
    }

    /// With what left the shards before, orders each shard's entries by number, hands out
    /// those up to the first gap, and merges the shards by time.
    fn order(&self, mut taken: Vec<(Vec<Numbered>, Slots)>) -> Vec<Entry> {
        // Drained, not taken: the lists keep their capacity, so operations that move a chunk
        // out of their shard do not grow them again after every take.
        let (chunks, entries) = {
            let mut overflow = lock(&self.overflow);
            let chunks: Vec<(usize, Chunk)> = overflow.chunks.drain(..).collect();
            let entries: Vec<(usize, Numbered)> = overflow.entries.drain(..).collect();
            (chunks, entries)
        };
        for (shard, mut chunk) in chunks {
            chunk.drain_into(&mut taken[shard].0);
            self.recycle(chunk);
        }
        for (shard, entry) in entries {
            taken[shard].0.push(entry);
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
                .map(|n| &n.entry)
                .filter(|e| matches!((e.call, e.answer), (LaneCall::Release(_), Ok(_))))
                .filter_map(|e| Some(((e.slot, e.generation), e.run.clone()?)))
                .collect();
            // Hand out the run of numbers without a gap whose labels are known; keep the rest
            // (an entry still on its way out of its shard, or a claim whose release is) for
            // the next take.
            let mut ready = VecDeque::with_capacity(entries.len());
            let mut count = 0;
            for (numbered, expected) in entries.iter().zip(next[shard]..) {
                let entry = &numbered.entry;
                let project = slots.0.get(entry.slot as usize).and_then(|s| s.as_ref());
                let run = entry.run(&carried, &slots);
                match (numbered.seq == expected, project, run) {
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
                    .into_iter()
                    .zip(ready)
                    .map(|(numbered, (project, run))| numbered.entry.into_entry(project, run))
                    .collect(),
            );
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
    fn after(&self, shard: usize, pending: Self::Pending, refill: impl FnOnce(Chunk) -> Refilled);
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
    fn after(&self, _: usize, _: (), _: impl FnOnce(Chunk) -> Refilled) {}
    #[inline(always)]
    fn refused(&self, _: impl FnOnce() -> Entry) {}
}

#[cfg(feature = "journal")]
impl<T: super::Timekeeping> Hook for Journaled<T> {
    /// Milliseconds since 1970, or [`NO_TIME`] without a clock.
    type Time = u64;
    type Pending = Option<Spill>;

    #[inline]
    fn now(&self) -> u64 {
        self.clock.millis()
    }

    #[inline]
    fn log(
        &self,
        log: &mut ShardLog,
        at: u64,
        entry: impl FnOnce(u64) -> LaneEntry,
    ) -> Option<Spill> {
        log.log(entry(at))
    }

    #[inline]
    fn after(&self, shard: usize, pending: Option<Spill>, refill: impl FnOnce(Chunk) -> Refilled) {
        if let Some(spill) = pending {
            self.spilled(shard, spill, refill);
        }
    }

    #[cold]
    fn refused(&self, entry: impl FnOnce() -> Entry) {
        let mut entry = entry();
        entry.at = Timestamp::from_millis(self.clock.millis()).ok();
        lock(&self.unplaced).push(entry);
    }
}

#[cfg(all(test, feature = "journal"))]
mod tests {
    use super::*;
    use crate::Outcome;
    use crate::journal::{Answer, Call};

    fn label(text: &str) -> Label {
        Label::new(text).unwrap()
    }

    /// A claim, numbered `seq` in its shard, with generation `seq`, carrying its run.
    fn entry(seq: u64, at: u64) -> Numbered {
        let entry = LaneEntry::new(at, LaneCall::Claim, 0, seq, Ok(false), Some(label("r")));
        Numbered { seq, entry }
    }

    /// One project, `p`, in slot 0; held by `held` if any.
    fn slots(held: Option<(u64, &str)>) -> Slots {
        Slots(vec![Some((
            label("p"),
            held.map(|(g, run)| (g, label(run))),
        ))])
    }

    fn shards(first: Vec<Numbered>, second: Vec<Numbered>) -> Vec<(Vec<Numbered>, Slots)> {
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
        let journal = Journaled::new(Untimed, 2);
        let first = journal.order(shards(vec![entry(1, 5), entry(2, 6), entry(4, 8)], vec![]));
        assert_eq!(generations(&first), [1, 2], "3 is missing: 4 waits");
        lock(&journal.overflow).entries.push((0, entry(3, 7)));
        let second = journal.order(shards(vec![entry(5, 9)], vec![]));
        assert_eq!(generations(&second), [3, 4, 5]);
    }

    #[test]
    fn a_claims_run_comes_from_its_release_or_from_the_lane_it_still_holds() {
        let journal = Journaled::new(Untimed, 1);
        let claim = |seq, generation| {
            let entry = LaneEntry::new(NO_TIME, LaneCall::Claim, 0, generation, Ok(false), None);
            Numbered { seq, entry }
        };
        let release = |seq, generation, run: &str| {
            let outcome = LaneCall::Release(Outcome::Succeeded);
            let entry =
                LaneEntry::new(NO_TIME, outcome, 0, generation, Ok(false), Some(label(run)));
            Numbered { seq, entry }
        };
        // Generation 1 was released (its release carries its run); generation 2 still holds.
        let taken = vec![(
            vec![claim(1, 1), release(2, 1, "first"), claim(3, 2)],
            slots(Some((2, "second"))),
        )];
        let entries = journal.order(taken);
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
        assert!(journal.order(taken).is_empty());
        lock(&journal.overflow)
            .entries
            .push((0, release(5, 3, "third")));
        let entries = journal.order(vec![(vec![], slots(None))]);
        assert_eq!(generations(&entries), [3, 3]);
    }

    #[test]
    fn shards_are_merged_by_time_each_in_its_own_order() {
        let journal = Journaled::new(Untimed, 2);
        // Shard 0's second entry read the clock earlier than its first: it stays second.
        let merged = journal.order(shards(
            vec![entry(1, 10), entry(2, 3)],
            vec![entry(1, 5), entry(2, 20)],
        ));
        let times: Vec<u64> = merged.iter().map(|e| e.at.unwrap().millis()).collect();
        assert_eq!(times, [5, 10, 3, 20]);
    }
}
