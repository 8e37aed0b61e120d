//! A shard's part of the lanes' journal: what a lane operation logs, and where, under the
//! shard's lock.
//!
//! An operation takes its shard's next sequence number under the shard's lock, at the moment it
//! takes effect, but the number is not written: a shard logs into a [`Chunk`] of consecutive
//! numbers from its first one, so an entry's number is its place in the chunk. Only an entry
//! that found no room (its chunk full and no empty one ready) carries its number, and is stored
//! apart.
//!
//! An entry is small (56 bytes): the project is its slot number in the shard, and a run label
//! is kept only for an entry that carries one (a refusal's, and a release's, whose lane no
//! longer holds it); a take finds the run of a claim or a stop request in that release, or in the
//! lane the lease still holds, read with the chunk under the same lock.
//!
//! Nothing under a shard's lock allocates or calls out: the entry is written into spare
//! capacity, and the memory of the next one is prefetched (an `unsafe` intrinsic, but a hint
//! that cannot fault), since the lock's release waits until every store is done. When a
//! chunk is full the shard moves on to the empty one it keeps ready; after the lock is released
//! the operation that filled it moves it out and gets a new empty one ready (recycled from
//! earlier takes, or allocated outside the lock). Without an empty one ready, the entry is
//! handed back with its number and stored once the lock is released.

// Without the feature `journal`, lanes log nothing: these types are there for the hook's
// signatures only.
#![cfg_attr(not(feature = "journal"), allow(dead_code))]

use std::collections::HashMap;

use crate::dispatch::types::DispatchError;
use crate::record::Timestamp;
use crate::{Label, LaneError, LaneState, LaneView, Outcome, Receipt};

use super::entry::{Answer, Call, Entry, LeaseKey};

/// Which lane operation an entry is.
#[derive(Clone, Copy)]
pub enum LaneCall {
    Claim,
    RequestStop,
    Release(Outcome),
}

/// One lane operation as its shard performed it: the project is its slot number in the shard,
/// and the run label is there only when nothing else tells it (a refusal's, and a release's,
/// whose lane no longer holds it). A take finds the others' run in the release that carries
/// it, or in the lane the lease still holds ([`Slots`]).
///
/// In declaration order (`repr(C)`), the run label last: an entry without one (a claim's, a
/// stop request's) is then written as its first 25 bytes, in one piece.
#[repr(C)]
pub struct LaneEntry {
    /// Milliseconds since 1970, or [`NO_TIME`].
    pub(super) at: u64,
    /// The lease's generation (a claim's new one; 0 for a refused claim).
    pub(super) generation: u64,
    /// The project's slot in its shard.
    pub(super) slot: u32,
    pub(super) call: LaneCall,
    /// `Ok(stop_requested)` (the flag a release's receipt carries), or the refusal.
    pub(super) answer: Result<bool, LaneError>,
    pub(super) run: Option<Label>,
}

// An entry is small: the hot path writes one per operation.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<LaneEntry>() <= 56);

/// A lane entry with its number in its shard, as a take handles it.
pub struct Numbered {
    pub(super) seq: u64,
    pub(super) entry: LaneEntry,
}

/// A run of a shard's entries with consecutive numbers from `base`.
pub struct Chunk {
    base: u64,
    entries: Vec<LaneEntry>,
}

impl Chunk {
    /// A chunk with room for `capacity` entries.
    pub(super) fn with_capacity(capacity: usize) -> Chunk {
        Chunk {
            base: 0,
            entries: Vec::with_capacity(capacity),
        }
    }

    /// How many entries it holds.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Empties it, keeping its memory; returns how many entries it has room for.
    pub(super) fn clear(&mut self) -> usize {
        self.entries.clear();
        self.entries.capacity()
    }

    /// The number the entry after the last one gets.
    fn end(&self) -> u64 {
        self.base + self.entries.len() as u64
    }

    /// Keeps `entry` if there is room (never allocating); otherwise hands it back.
    #[inline(always)]
    fn push(&mut self, entry: LaneEntry) -> Result<(), LaneEntry> {
        if self.entries.len() == self.entries.capacity() {
            return Err(entry);
        }
        self.entries.push(entry);
        // The shard's next entry goes right after this one: ask for its memory now, so that
        // writing it does not wait for it under the lock (whose release waits for every store).
        let next = self.entries.as_ptr_range().end;
        prefetch(next.cast());
        prefetch(next.cast::<u8>().wrapping_add(size_of::<LaneEntry>() - 1));
        Ok(())
    }

    /// Its entries, numbered, emptying it.
    pub(super) fn drain_into(&mut self, out: &mut Vec<Numbered>) {
        let numbered = self.entries.drain(..).zip(self.base..);
        out.extend(numbered.map(|(entry, seq)| Numbered { seq, entry }));
    }
}

/// Asks the processor to bring the memory at `address` into its nearest cache: a hint, which
/// never faults and changes no memory, whatever the address (a no-op off x86-64).
#[inline(always)]
fn prefetch(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing into the program and cannot fault, for any address.
    #[allow(unsafe_code)]
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

/// What a take reads from a shard under its lock, together with its chunks: every project's
/// label by slot, and the lease holding each lane, if any.
pub struct Slots(pub Vec<Option<SlotView>>);

/// A project's label, and the generation and run of the lease holding its lane, if any.
pub type SlotView = (Label, Option<(u64, Label)>);

impl LaneEntry {
    /// An entry at `at`: milliseconds since 1970, or [`NO_TIME`].
    #[inline(always)]
    pub(crate) fn new(
        at: u64,
        call: LaneCall,
        slot: u32,
        generation: u64,
        answer: Result<bool, LaneError>,
        run: Option<Label>,
    ) -> LaneEntry {
        LaneEntry {
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
    pub(super) fn run(&self, carried: &HashMap<(u32, u64), Label>, slots: &Slots) -> Option<Label> {
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

    pub(super) fn into_entry(self, project: Label, run: Label) -> Entry {
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

/// An entry's time when the journal has no clock (no timestamp reaches it: they end in 9999).
pub(crate) const NO_TIME: u64 = u64::MAX;

/// A shard's part of the journal, kept inside the shard (under its lock): the chunk it logs
/// into, an empty one ready for when that is full, and a full one waiting to be moved out.
/// Empty (zero-sized) without the feature `journal`.
#[cfg_attr(not(feature = "journal"), derive(Default))]
pub struct ShardLog {
    #[cfg(feature = "journal")]
    current: Chunk,
    #[cfg(feature = "journal")]
    ready: Option<Chunk>,
    #[cfg(feature = "journal")]
    full: Option<Chunk>,
    /// Entries handed back since `current` filled up: numbered after it, stored apart.
    #[cfg(feature = "journal")]
    handed: u64,
}

#[cfg(feature = "journal")]
impl Default for ShardLog {
    /// No chunk yet (the first entry spills and gets one ready); numbers start at 1.
    fn default() -> ShardLog {
        let mut current = Chunk::with_capacity(0);
        current.base = 1;
        ShardLog {
            current,
            ready: None,
            full: None,
            handed: 0,
        }
    }
}

/// What an operation whose entry found its shard's chunk full leaves to do once the shard's
/// lock is released: get an empty chunk ready, and store the entry if it found no room at all.
#[cfg(feature = "journal")]
pub struct Spill(pub(super) Option<Numbered>);

impl ShardLog {
    /// Keeps `entry` as the shard's next; returns what is left to do once the lock is released
    /// if the chunk was full. Never allocates.
    #[cfg(feature = "journal")]
    #[inline(always)]
    pub(crate) fn log(&mut self, entry: LaneEntry) -> Option<Spill> {
        match self.current.push(entry) {
            Ok(()) => None,
            Err(entry) => Some(self.spill(entry)),
        }
    }

    /// The chunk is full: moves on to the ready one, or, with none ready, hands `entry` back
    /// with its number.
    #[cfg(feature = "journal")]
    #[cold]
    fn spill(&mut self, entry: LaneEntry) -> Spill {
        if self.full.is_none()
            && let Some(ready) = self.ready.take()
        {
            let base = self.next_seq();
            let old = std::mem::replace(&mut self.current, ready);
            self.current.base = base;
            self.handed = 0;
            if !old.entries.is_empty() {
                self.full = Some(old);
            }
            // (Otherwise `old` has no capacity: dropping it frees nothing.)
            match self.current.push(entry) {
                Ok(()) => return Spill(None),
                Err(entry) => return self.hand_back(entry),
            }
        }
        self.hand_back(entry)
    }

    #[cfg(feature = "journal")]
    fn hand_back(&mut self, entry: LaneEntry) -> Spill {
        let seq = self.next_seq();
        self.handed += 1;
        Spill(Some(Numbered { seq, entry }))
    }

    /// The number the shard's next entry gets.
    #[cfg(feature = "journal")]
    fn next_seq(&self) -> u64 {
        self.current.end() + self.handed
    }

    /// For a take: what the shard holds (a full chunk waiting to be moved out, then the one
    /// it logs into, swapped for the empty `fresh` one and numbered on from it), and `fresh`
    /// if it was not needed. Never allocates.
    #[cfg(feature = "journal")]
    pub(crate) fn take(&mut self, mut fresh: Chunk) -> ([Option<Chunk>; 2], Option<Chunk>) {
        let full = self.full.take();
        if self.current.entries.is_empty() {
            return ([full, None], Some(fresh));
        }
        fresh.base = self.next_seq();
        self.handed = 0;
        let current = std::mem::replace(&mut self.current, fresh);
        ([full, Some(current)], None)
    }

    /// After a spill: moves out the full chunk (if a take has not) and keeps `fresh` ready if
    /// none is; returns the full chunk and `fresh` if it was not needed. Never allocates.
    #[cfg(feature = "journal")]
    pub(crate) fn refill(&mut self, fresh: Chunk) -> (Option<Chunk>, Option<Chunk>) {
        let full = self.full.take();
        if self.ready.is_none() {
            self.ready = Some(fresh);
            (full, None)
        } else {
            (full, Some(fresh))
        }
    }

    /// Without a journal nothing is logged, so nothing is refilled.
    #[cfg(not(feature = "journal"))]
    pub(crate) fn refill(&mut self, fresh: Chunk) -> (Option<Chunk>, Option<Chunk>) {
        (None, Some(fresh))
    }
}

/// What [`ShardLog::refill`] gives back: the full chunk moved out, and the empty one offered if
/// it was not needed.
pub type Refilled = (Option<Chunk>, Option<Chunk>);

#[cfg(all(test, feature = "journal"))]
mod tests {
    use super::*;

    /// Logs `count` claims of generations `from..` into `log`, keeping what spilled.
    fn log_claims(log: &mut ShardLog, from: u64, count: u64, spills: &mut Vec<Spill>) {
        for generation in from..from + count {
            let entry = LaneEntry::new(NO_TIME, LaneCall::Claim, 0, generation, Ok(false), None);
            spills.extend(log.log(entry));
        }
    }

    #[test]
    fn a_shard_numbers_its_entries_by_place_in_chunks_and_those_handed_back_carry_theirs() {
        let mut log = ShardLog::default();
        let mut spills = Vec::new();
        // No chunk ready: the first two entries are handed back, numbered 1 and 2.
        log_claims(&mut log, 1, 2, &mut spills);
        let (full, unused) = log.refill(Chunk::with_capacity(2));
        assert!(full.is_none() && unused.is_none());
        // 3 moves on to the ready chunk; 4 fills it; 5 finds it full and none ready.
        log_claims(&mut log, 3, 3, &mut spills);
        let handed: Vec<u64> = spills
            .iter()
            .filter_map(|s| Some(s.0.as_ref()?.seq))
            .collect();
        assert_eq!(handed, [1, 2, 5]);
        // A take finds 3 and 4 in the shard; numbering goes on after 5 in the fresh chunk.
        let (chunks, unused) = log.take(Chunk::with_capacity(4));
        assert!(unused.is_none());
        log_claims(&mut log, 6, 1, &mut spills);
        let mut numbered = Vec::new();
        for mut chunk in chunks.into_iter().flatten() {
            chunk.drain_into(&mut numbered);
        }
        for mut chunk in log.take(Chunk::with_capacity(4)).0.into_iter().flatten() {
            chunk.drain_into(&mut numbered);
        }
        numbered.extend(spills.into_iter().filter_map(|s| s.0));
        numbered.sort_unstable_by_key(|n| n.seq);
        let pairs: Vec<(u64, u64)> = numbered
            .iter()
            .map(|n| (n.seq, n.entry.generation))
            .collect();
        assert_eq!(pairs, [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6)]);
    }
}
