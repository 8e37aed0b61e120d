//! The lanes' journal: each shard keeps a list of the operations it performed, written under the
//! shard's lock in the order they took effect; a take swaps every shard's list for an empty one
//! and merges them into one order that replays.
//!
//! Why that order replays: a project always lives in one shard, and an operation is logged
//! under its shard's lock, at the moment it takes effect, so each shard's list follows the order
//! its operations took effect. Operations on different projects commute (each reads and writes
//! only its own project's lane; the token counter they share is never saved), so any
//! interleaving of the shards that keeps each shard's order gives every operation the answer it
//! had. A take merges the shards by time, keeping each shard's order; what a shard logs after
//! its list was swapped comes with the next take, so takes can simply be concatenated.
//!
//! Whether lanes journal is in their type: [`Unjournaled`] lanes keep `()` per shard and every
//! hook is an empty inline function, so they compile to the code of lanes without a journal.

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
use crate::time::Timestamp;
use crate::transition::Entry;
#[cfg(feature = "journal")]
use crate::transition::{Answer, Call, Clock, LeaseKey};
use crate::{Label, LaneError, Outcome};
#[cfg(feature = "journal")]
use crate::{LaneState, LaneView, Receipt};

/// Which lane operation an entry is.
#[derive(Clone, Copy)]
pub enum LaneCall {
    Claim,
    RequestStop,
    Release(Outcome),
}

/// One lane operation as its shard performed it. Small (56 bytes): the project is its slot
/// number in the shard, and the run label is there only when nothing else tells it (a
/// refusal's, and a release's, whose lane no longer holds it). A take finds the others' run in
/// the release that carries it, or in the lane the lease still holds ([`Slots`]): the list and
/// the slots are read under the same lock, so one of the two always tells it.
///
/// In declaration order (`repr(C)`), the run label last: an entry without one (a claim's, a
/// stop request's) is then written as its first 25 bytes, in one piece.
#[repr(C)]
pub struct Logged {
    /// Milliseconds since 1970, or [`NO_TIME`].
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

// An entry is small: the hot path writes one per operation.
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Logged>() <= 56);

impl Logged {
    /// An entry at `at`: milliseconds since 1970, or [`NO_TIME`].
    #[inline(always)]
    pub(crate) fn new(
        at: u64,
        call: LaneCall,
        slot: u32,
        generation: u64,
        answer: Result<bool, LaneError>,
        run: Option<Label>,
    ) -> Logged {
        Logged {
            at,
            generation,
            slot,
            call,
            answer,
            run,
        }
    }
}

/// What a take reads from a shard under the lock it swaps the shard's list under: every
/// project's label by slot, and the lease holding each lane, if any.
pub(crate) struct Slots(pub(crate) Vec<Option<SlotView>>);

/// A project's label, and the generation and run of the lease holding its lane, if any.
pub(crate) type SlotView = (Label, Option<(u64, Label)>);

/// An entry's time when the journal has no clock (no timestamp reaches it: they end in 9999).
pub(crate) const NO_TIME: u64 = u64::MAX;

/// What the lanes call at each operation, by the kind of journal they keep (sealed: this module
/// is the crate's own). For [`Unjournaled`] lanes the log is `()`, every method is empty and
/// every type `()`, so their code is the same as if there were no journal at all.
pub trait Hook: Send + Sync {
    /// What each shard keeps, under its lock.
    type Log: Default + Send;
    /// A project's number in its shard, in order of first claim (`()` without a journal).
    type SlotId: Copy + Default + Send;
    /// The next slot's number, counting on.
    fn next_slot(counter: &mut Self::SlotId) -> Self::SlotId;
    /// The number as entries name projects.
    fn slot_number(id: Self::SlotId) -> u32;
    /// What an operation reads from the clock, before its shard is locked.
    type Time: Copy;
    /// The time for the operation about to run.
    fn now(&self) -> Self::Time;
    /// Under the shard's lock: logs the operation `entry` makes from its time (milliseconds
    /// since 1970, or [`NO_TIME`]).
    fn log(log: &mut Self::Log, at: Self::Time, entry: impl FnOnce(u64) -> Logged);
    /// A claim refused before any lane was looked at (a label that breaks the rule).
    fn refused(&self, entry: impl FnOnce() -> Entry);
}

/// Lanes without a journal: the default of `ProjectLanes`. Nothing is logged, at no cost.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unjournaled;

impl Hook for Unjournaled {
    type Log = ();
    type SlotId = ();
    #[inline(always)]
    fn next_slot(_: &mut ()) {}
    #[inline(always)]
    fn slot_number(_: ()) -> u32 {
        0
    }
    type Time = ();
    #[inline(always)]
    fn now(&self) {}
    #[inline(always)]
    fn log(_: &mut (), _: (), _: impl FnOnce(u64) -> Logged) {}
    #[inline(always)]
    fn refused(&self, _: impl FnOnce() -> Entry) {}
}

/// How a `ProjectLanes` keeps its journal: [`Unjournaled`] (the default: no journal, and no cost
/// at all, since every journal call compiles away) or `Journaled` (feature `journal`, made by
/// `ProjectLanes::with_journal`). Sealed: no other kind exists.
pub trait Journaling: Hook {}

impl Journaling for Unjournaled {}

#[cfg(feature = "journal")]
impl<T: Timekeeping> Journaling for Journaled<T> {}

/// Where the times of a `ProjectLanes` journal come from, chosen in its type (feature
/// `journal`): `Untimed` (no times, and no test for a clock at each operation: the cheapest),
/// an `Arc<dyn Clock>`, or `Option<Arc<dyn Clock>>` (a clock or none, chosen at run time, tested
/// at each operation). Sealed: no other kind exists.
pub trait Timekeeping: Stamp + 'static {}

#[cfg(feature = "journal")]
impl Timekeeping for Untimed {}

#[cfg(feature = "journal")]
impl Timekeeping for Arc<dyn Clock> {}

#[cfg(feature = "journal")]
impl Timekeeping for Option<Arc<dyn Clock>> {}

/// Where a lanes journal's times come from, as its type says (sealed: this module is the
/// crate's own): milliseconds since 1970, or [`NO_TIME`].
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

/// The journal of `ProjectLanes<Journaled<T>>` (made by `ProjectLanes::with_journal`): where its
/// times come from (`T`: [`Untimed`], an `Arc<dyn Clock>`, or by default
/// `Option<Arc<dyn Clock>>`, chosen at run time), and the claims refused for their labels,
/// which touch no lane. Each shard keeps its own list. Feature `journal`.
#[cfg(feature = "journal")]
pub struct Journaled<T: Timekeeping = Option<Arc<dyn Clock>>> {
    clock: T,
    unplaced: Mutex<Vec<Entry>>,
    /// Lists emptied by earlier takes, kept with their room: a shard then logs into memory it
    /// has written before, instead of faulting fresh pages in under its lock.
    spare: Mutex<Vec<Vec<Logged>>>,
}

#[cfg(feature = "journal")]
impl<T: Timekeeping> Journaled<T> {
    pub(crate) fn new(clock: T) -> Journaled<T> {
        Journaled {
            clock,
            unplaced: Mutex::new(Vec::new()),
            spare: Mutex::new(Vec::new()),
        }
    }

    /// An empty list for a shard: one an earlier take emptied, if any.
    pub(crate) fn spare_list(&self) -> Vec<Logged> {
        lock(&self.spare).pop().unwrap_or_default()
    }

    /// Every shard's list (in shard order, each in the order its operations took effect, with
    /// the slots read under the same lock) and the claims refused for their labels, in one
    /// order that replays; see the [module](self). Each list is emptied and kept for reuse.
    pub(crate) fn assemble(&self, shards: Vec<(Vec<Logged>, Slots)>) -> Vec<Entry> {
        let mut sources: Vec<VecDeque<Entry>> = Vec::with_capacity(shards.len() + 1);
        let mut emptied = Vec::with_capacity(shards.len());
        for (mut list, slots) in shards {
            let carried: HashMap<(u32, u64), Label> = list
                .iter()
                .filter(|e| matches!((e.call, e.answer), (LaneCall::Release(_), Ok(_))))
                .filter_map(|e| Some(((e.slot, e.generation), e.run.clone()?)))
                .collect();
            let entries = list.drain(..).map(|logged| {
                let project = match slots.0.get(logged.slot as usize) {
                    Some(Some((project, _))) => project.clone(),
                    _ => unreachable!("a shard's slots are read with its list"),
                };
                let run = match logged.run(&carried, &slots) {
                    Some(run) => run,
                    None => unreachable!("a lease's run is in its release or its lane"),
                };
                logged.into_entry(project, run)
            });
            sources.push(entries.collect());
            emptied.push(list);
        }
        lock(&self.spare).extend(emptied);
        sources.push(std::mem::take(&mut *lock(&self.unplaced)).into());
        merge_by_time(sources)
    }
}

#[cfg(feature = "journal")]
impl<T: Timekeeping> Hook for Journaled<T> {
    type Log = Vec<Logged>;
    type SlotId = u32;
    #[inline(always)]
    fn next_slot(counter: &mut u32) -> u32 {
        let id = *counter;
        *counter += 1;
        id
    }
    #[inline(always)]
    fn slot_number(id: u32) -> u32 {
        id
    }
    /// Milliseconds since 1970, or [`NO_TIME`] without a clock.
    type Time = u64;

    #[inline]
    fn now(&self) -> u64 {
        self.clock.millis()
    }

    /// Pushed onto the shard's list, which grows like the shard's table: rarely, doubling (a
    /// take leaves an empty list with the room the last one needed).
    #[inline]
    fn log(log: &mut Vec<Logged>, at: u64, entry: impl FnOnce(u64) -> Logged) {
        log.push(entry(at));
        let next = log.as_ptr_range().end;
        prefetch(next.cast());
        prefetch(next.cast::<u8>().wrapping_add(size_of::<Logged>() - 1));
    }

    #[cold]
    fn refused(&self, entry: impl FnOnce() -> Entry) {
        let mut entry = entry();
        entry.at = Timestamp::from_millis(self.clock.millis()).ok();
        lock(&self.unplaced).push(entry);
    }
}

#[cfg(feature = "journal")]
impl Logged {
    /// The run of a lease this entry names without carrying it, from a release of the same
    /// take that carries it, or from the lane that lease still holds.
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
        let refused = |e: LaneError| Answer::Refused(e.into());
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

/// Asks the processor to bring the memory at `address` into its nearest cache: a hint, which
/// never faults and changes no memory, whatever the address (a no-op off x86-64).
#[cfg(feature = "journal")]
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

#[cfg(feature = "journal")]
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Nothing panics while these are held; a poisoned lock must not lose the journal.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Merges the sources into one list, taking at each turn the head with the earliest time (an
/// entry without a time counts as earliest; ties go to the lower source), so that each source
/// keeps its own order.
#[cfg(feature = "journal")]
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

#[cfg(all(test, feature = "journal"))]
mod tests {
    use super::*;

    fn label(text: &str) -> Label {
        Label::new(text).unwrap()
    }

    /// One project, `p`, in slot 0; held by `held` if any.
    fn slots(held: Option<(u64, &str)>) -> Slots {
        Slots(vec![Some((
            label("p"),
            held.map(|(g, run)| (g, label(run))),
        ))])
    }

    fn claim(generation: u64, at: u64) -> Logged {
        Logged::new(at, LaneCall::Claim, 0, generation, Ok(false), None)
    }

    fn release(generation: u64, run: &str) -> Logged {
        let call = LaneCall::Release(Outcome::Succeeded);
        Logged::new(NO_TIME, call, 0, generation, Ok(false), Some(label(run)))
    }

    #[test]
    fn shards_are_merged_by_time_each_in_its_own_order() {
        let journal = Journaled::new(Untimed);
        // Shard 0's second entry read the clock earlier than its first: it stays second.
        let merged = journal.assemble(vec![
            (
                vec![claim(1, 10), release(1, "a"), claim(2, 3)],
                slots(Some((2, "b"))),
            ),
            (
                vec![claim(1, 5), release(1, "c"), claim(2, 20)],
                slots(Some((2, "d"))),
            ),
        ]);
        let times: Vec<Option<u64>> = merged.iter().map(|e| e.at.map(|t| t.millis())).collect();
        assert_eq!(times, [Some(5), None, Some(10), None, Some(3), Some(20)]);
    }

    #[test]
    fn a_claims_run_comes_from_its_release_or_from_the_lane_it_still_holds() {
        let journal = Journaled::new(Untimed);
        // Generation 1 was released (its release carries its run); generation 2 still holds.
        let taken = vec![(
            vec![claim(1, NO_TIME), release(1, "first"), claim(2, NO_TIME)],
            slots(Some((2, "second"))),
        )];
        let runs: Vec<String> = journal
            .assemble(taken)
            .iter()
            .map(|e| match &e.call {
                Call::Claim { run, .. } => run.clone(),
                Call::Release { lease, .. } => lease.run.to_string(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(runs, ["first", "first", "second"]);
    }
}
