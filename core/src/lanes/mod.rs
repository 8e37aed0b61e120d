//! The lanes themselves: claim, request a stop, release, view.

use std::fmt;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

use hashbrown::{DefaultHashBuilder, HashTable};

pub(crate) mod journal;

#[cfg(feature = "journal")]
use journal::Journaled;
#[cfg(feature = "journal")]
use journal::Slots;
use journal::{Hook, Journaling, LaneCall, Logged, Unjournaled};

use crate::{Label, LaneError, LaneState, LaneView, Outcome, Receipt, validate_label};

/// Lanes are spread over this many independently locked shards, so claims in unrelated projects
/// rarely meet on one lock. A power of two.
const SHARDS: usize = 64;

/// Every `ProjectLanes` gets a distinct id; a lease remembers which manager issued it.
static NEXT_MANAGER: AtomicU64 = AtomicU64::new(1);

/// One lane per project; a run claims it, holds a [`Lease`], and releases it with an [`Outcome`].
///
/// `ProjectLanes` is `Send + Sync`: share it with `Arc`. Each operation takes one short lock on the
/// shard its project hashes to and never waits, allocates much, or calls user code under it.
///
/// Every claim gets a [fencing generation](Lease::generation) that only grows per project, so a
/// project's lane is remembered (a label and a counter) from its first claim for as long as the
/// `ProjectLanes` lives, busy or idle.
///
/// `J` says whether the lanes keep a [journal](crate::journal): [`Unjournaled`] (the default,
/// at no cost) or `Journaled` ([`with_journal`](ProjectLanes::with_journal), feature `journal`).
///
/// ```
/// use project_lanes::{LaneError, Outcome, ProjectLanes};
///
/// let lanes = ProjectLanes::new();
/// let lease = lanes.claim("docs", "build-1")?;
/// assert_eq!(lanes.claim("docs", "build-2").unwrap_err(), LaneError::ProjectBusy);
/// assert!(lanes.claim("site", "build-3").is_ok()); // other projects are independent
///
/// let receipt = lanes.release(&lease, Outcome::Succeeded)?;
/// assert_eq!(receipt.outcome, Outcome::Succeeded);
/// assert!(!lanes.view("docs")?.busy);
/// # Ok::<(), LaneError>(())
/// ```
pub struct ProjectLanes<J: Journaling = Unjournaled> {
    id: u64,
    hasher: DefaultHashBuilder,
    shards: Box<[Shard<J>]>,
    /// The journal: [`Unjournaled`] (nothing, compiled away) unless made by
    /// [`with_journal`](ProjectLanes::with_journal).
    journal: J,
}

/// The proof of holding a project's lane.
///
/// Only [`ProjectLanes::claim`] makes one. It carries a private ownership token: two leases with the
/// same project and run labels are still different owners, and its `Debug` output never shows
/// the token.
///
/// ```
/// let lanes = project_lanes::ProjectLanes::new();
/// let lease = lanes.claim("docs", "build-1").unwrap();
/// assert_eq!(lease.project(), "docs");
/// assert_eq!(lease.run(), "build-1");
/// assert_eq!(format!("{lease:?}"), r#"Lease { project: "docs", run: "build-1", .. }"#);
/// ```
///
/// A lease cannot be fabricated or duplicated outside this crate:
///
/// ```compile_fail
/// let forged = project_lanes::Lease { manager: 1, token: 1, generation: 1, hash: 0, project: todo!(), run: todo!() };
/// ```
///
/// ```compile_fail
/// let lanes = project_lanes::ProjectLanes::new();
/// let lease = lanes.claim("docs", "build-1").unwrap();
/// let copy = lease.clone();
/// ```
pub struct Lease {
    manager: u64,
    token: u64,
    generation: u64,
    /// The project's hash under the issuing manager's hasher, so release never rehashes.
    hash: u64,
    project: Label,
    run: Label,
}

impl Lease {
    /// The project whose lane this lease holds (or held).
    pub fn project(&self) -> &str {
        self.project.as_str()
    }

    /// The run label given at claim.
    pub fn run(&self) -> &str {
        self.run.as_str()
    }

    /// The fencing generation of this claim: 1 for a project's first claim, and one more for
    /// every claim after it, so it only grows per project. Hand it to a downstream system with
    /// every write and let it refuse writes carrying an older generation than it has seen: a
    /// run that lost its lane can then no longer overwrite its successor's work.
    ///
    /// ```
    /// use project_lanes::{Outcome, ProjectLanes};
    /// let lanes = ProjectLanes::new();
    /// let first = lanes.claim("docs", "build-1")?;
    /// assert_eq!(first.generation(), 1);
    /// lanes.release(&first, Outcome::Succeeded)?;
    /// let second = lanes.claim("docs", "build-2")?;
    /// assert_eq!(second.generation(), 2);
    /// assert_eq!(lanes.claim("site", "build-3")?.generation(), 1); // per project
    /// # Ok::<(), project_lanes::LaneError>(())
    /// ```
    pub fn generation(&self) -> u64 {
        self.generation
    }

    pub(crate) fn project_label(&self) -> &Label {
        &self.project
    }

    /// The journal's entry for `call` on this lease, whose project is in slot `slot`.
    #[inline(always)]
    fn logged(
        &self,
        at: u64,
        call: LaneCall,
        slot: u32,
        answer: Result<bool, LaneError>,
        run: Option<Label>,
    ) -> Logged {
        Logged::new(at, call, slot, self.generation, answer, run)
    }

    pub(crate) fn run_label(&self) -> &Label {
        &self.run
    }
}

impl fmt::Debug for Lease {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Lease")
            .field("project", &self.project())
            .field("run", &self.run())
            .finish_non_exhaustive()
    }
}

/// One project's lane, kept after its first claim so its generation survives releases.
struct Slot<J: Hook> {
    /// Its number in the shard, in order of first claim: the journal names projects by it
    /// (`()` without a journal).
    id: J::SlotId,
    project: Label,
    /// The number of claims so far: the current (or last) lease's fencing generation.
    generation: u64,
    held: Option<Held>,
}

/// The lease holding a lane.
struct Held {
    run: Label,
    token: u64,
    stop_requested: bool,
}

impl Held {
    fn state(&self) -> LaneState {
        if self.stop_requested {
            LaneState::StopRequested
        } else {
            LaneState::Running
        }
    }
}

/// A lock and the lanes behind it, on its own cache lines so neighbouring shards don't contend.
#[repr(align(128))]
struct Shard<J: Hook> {
    lanes: Mutex<ShardLanes<J>>,
}

struct ShardLanes<J: Hook> {
    table: HashTable<Slot<J>>,
    /// Tokens are unique per shard; a project always maps to the same shard.
    next_token: u64,
    /// The number the next new project's slot gets.
    next_slot: J::SlotId,
    /// This shard's part of the journal (`()` without one).
    log: J::Log,
}

impl<J: Hook> Shard<J> {
    fn new(table: HashTable<Slot<J>>, next_token: u64, next_slot: J::SlotId) -> Shard<J> {
        Shard {
            lanes: Mutex::new(ShardLanes {
                table,
                next_token,
                next_slot,
                log: J::Log::default(),
            }),
        }
    }
}

impl ProjectLanes {
    /// Empty lanes: every project is idle.
    pub fn new() -> ProjectLanes {
        ProjectLanes {
            id: NEXT_MANAGER.fetch_add(1, Ordering::Relaxed),
            hasher: DefaultHashBuilder::default(),
            shards: (0..SHARDS)
                .map(|_| Shard::new(HashTable::new(), 0, ()))
                .collect(),
            journal: Unjournaled,
        }
    }

    /// The same lanes, keeping a journal of every claim, stop request and release (refusals
    /// included) with its answer, and the time `clock` gives: see [`journal`](crate::journal)
    /// and [`take_journal`](Self::take_journal). Feature `journal`.
    ///
    /// `clock` is [`Untimed`](crate::journal::Untimed) (no times), an `Arc<dyn Clock>`, or an
    /// `Option<Arc<dyn Clock>>` (`None`: no times), as [`Timekeeping`](crate::journal::Timekeeping)
    /// says; the choice is in the journal's type, so `Untimed` lanes test for no clock at each
    /// operation, and an `Arc<dyn Clock>` is called without a test.
    ///
    /// Each shard logs its operations under its own lock, onto a list a take swaps for an
    /// empty one; the clock is read before the lock. A claim and a release cost more than
    /// without (`cargo bench -p project-lanes` measures it); lanes without a journal, of another
    /// type, cost nothing more than before.
    ///
    /// ```
    /// use project_lanes::{Outcome, ProjectLanes};
    /// use project_lanes::journal::{Answer, Call, Untimed};
    ///
    /// let lanes = ProjectLanes::new().with_journal(Untimed);
    /// let lease = lanes.claim("docs", "build-1")?;
    /// lanes.release(&lease, Outcome::Succeeded)?;
    /// let entries = lanes.take_journal();
    /// assert!(matches!(entries[0].call, Call::Claim { .. }));
    /// assert!(matches!(entries[1].answer, Answer::Receipt(_)));
    /// assert!(lanes.take_journal().is_empty()); // taken once
    /// # Ok::<(), project_lanes::LaneError>(())
    /// ```
    #[cfg(feature = "journal")]
    pub fn with_journal<T: crate::journal::Timekeeping>(
        self,
        clock: T,
    ) -> ProjectLanes<Journaled<T>> {
        let hasher = self.hasher;
        let shards = self.shards.into_vec().into_iter().map(|shard| {
            let lanes = shard
                .lanes
                .into_inner()
                .unwrap_or_else(PoisonError::into_inner);
            // Numbered in the order the table holds them: slot numbers are the journal's own.
            let mut table = HashTable::with_capacity(lanes.table.len());
            let mut next_slot = 0;
            for slot in lanes.table {
                let id = Journaled::<T>::next_slot(&mut next_slot);
                let hash = hasher.hash_one(slot.project.as_str());
                let slot = Slot {
                    id,
                    project: slot.project,
                    generation: slot.generation,
                    held: slot.held,
                };
                table.insert_unique(hash, slot, |s: &Slot<Journaled<T>>| {
                    hasher.hash_one(s.project.as_str())
                });
            }
            Shard::new(table, lanes.next_token, next_slot)
        });
        let shards = shards.collect();
        ProjectLanes {
            id: self.id,
            hasher,
            shards,
            journal: Journaled::new(clock),
        }
    }
}

#[cfg(feature = "journal")]
impl<T: crate::journal::Timekeeping> ProjectLanes<Journaled<T>> {
    /// The journal's entries since the last take, in an order that replays on the core.
    /// Concatenated, takes keep that order: what a shard logs after its list was taken comes
    /// with the next take. Feature `journal`.
    pub fn take_journal(&self) -> Vec<crate::journal::Entry> {
        let mut taken = Vec::with_capacity(SHARDS);
        for index in 0..SHARDS {
            // Got outside the lock: an empty list with the room an earlier take's needed, and
            // room for the slots; under the lock, the list swapped and the slots read with it.
            let mut fresh = Some(self.journal.spare_list());
            let mut room = 0;
            loop {
                let mut slots = Vec::with_capacity(room);
                let mut shard = self.lock_shard(index);
                let count = shard.next_slot as usize;
                if count > room {
                    drop(shard);
                    room = count + 8;
                    continue;
                }
                slots.resize_with(count, || None);
                for slot in shard.table.iter() {
                    let held = slot.held.as_ref().map(|h| (slot.generation, h.run.clone()));
                    if let Some(place) = slots.get_mut(slot.id as usize) {
                        *place = Some((slot.project.clone(), held));
                    }
                }
                let list = std::mem::replace(&mut shard.log, fresh.take().unwrap_or_default());
                drop(shard);
                taken.push((list, Slots(slots)));
                break;
            }
        }
        self.journal.assemble(taken)
    }
}

impl<J: Journaling> ProjectLanes<J> {
    /// Claims `project`'s lane for `run`.
    ///
    /// Checks the project label, then the run label, then occupancy. A busy project is refused
    /// with [`LaneError::ProjectBusy`]: nothing is queued and nothing is replayed later, and
    /// reusing the current holder's run label recovers nothing.
    ///
    /// ```
    /// use project_lanes::{LaneError, ProjectLanes};
    /// let lanes = ProjectLanes::new();
    /// let _held = lanes.claim("docs", "build-1")?;
    /// assert_eq!(lanes.claim("docs", "build-1").unwrap_err(), LaneError::ProjectBusy);
    /// assert_eq!(lanes.claim("docs/", "build-1").unwrap_err(), LaneError::InvalidLabel);
    /// # Ok::<(), LaneError>(())
    /// ```
    // Natively, always inlined: returning a lease or a receipt through memory costs more than
    // the operation's own work. The viewer's WebAssembly, built for size, inlines where it pays.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub fn claim(&self, project: &str, run: &str) -> Result<Lease, LaneError> {
        let refused = |e: LaneError| {
            self.journal.refused(|| refused_claim(project, run, e));
            Err(e)
        };
        let project_label = match Label::new(project) {
            Ok(label) => label,
            Err(e) => return refused(e),
        };
        let run_label = match Label::new(run) {
            Ok(label) => label,
            Err(e) => return refused(e),
        };
        let hash = self.hasher.hash_one(project);
        let at = self.journal.now();
        let (token, generation) = {
            let mut guard = self.lock(hash);
            let shard = &mut *guard;
            shard.next_token += 1;
            let token = shard.next_token;
            let held = Held {
                run: run_label.clone(),
                token,
                stop_requested: false,
            };
            let (id, generation) = match shard.table.find_mut(hash, |s| s.project == project) {
                Some(slot) if slot.held.is_some() => {
                    let id = J::slot_number(slot.id);
                    J::log(&mut shard.log, at, |at| {
                        let busy = Err(LaneError::ProjectBusy);
                        Logged::new(at, LaneCall::Claim, id, 0, busy, Some(run_label.clone()))
                    });
                    return Err(LaneError::ProjectBusy);
                }
                Some(slot) => {
                    slot.generation += 1;
                    slot.held = Some(held);
                    (slot.id, slot.generation)
                }
                None => {
                    let id = J::next_slot(&mut shard.next_slot);
                    let slot = Slot {
                        id,
                        project: project_label.clone(),
                        generation: 1,
                        held: Some(held),
                    };
                    let hasher = &self.hasher;
                    shard
                        .table
                        .insert_unique(hash, slot, |s| hasher.hash_one(s.project.as_str()));
                    (id, 1)
                }
            };
            J::log(&mut shard.log, at, |at| {
                let id = J::slot_number(id);
                Logged::new(at, LaneCall::Claim, id, generation, Ok(false), None)
            });
            (token, generation)
        };
        Ok(Lease {
            manager: self.id,
            token,
            generation,
            hash,
            project: project_label,
            run: run_label,
        })
    }

    /// Records that `lease`'s run was asked to stop and returns the lane's view.
    ///
    /// The lane stays occupied (`state: stop_requested`) until the lease is released: stopping
    /// work is the adapter's job, and a new claim before the old run is settled would overlap.
    ///
    /// ```
    /// use project_lanes::{LaneError, LaneState, ProjectLanes};
    /// let lanes = ProjectLanes::new();
    /// let lease = lanes.claim("docs", "build-1")?;
    /// let view = lanes.request_stop(&lease)?;
    /// assert!(view.busy);
    /// assert_eq!(view.state, Some(LaneState::StopRequested));
    /// assert_eq!(lanes.claim("docs", "build-2").unwrap_err(), LaneError::ProjectBusy);
    /// # Ok::<(), LaneError>(())
    /// ```
    pub fn request_stop(&self, lease: &Lease) -> Result<LaneView, LaneError> {
        self.check_manager(lease)?;
        let at = self.journal.now();
        {
            let mut guard = self.lock(lease.hash);
            let shard = &mut *guard;
            let stopped = shard
                .table
                .find_mut(lease.hash, |s| holds(s, lease.token))
                .and_then(|s| Some((s.id, s.held.as_mut()?)))
                .map(|(id, held)| {
                    held.stop_requested = true;
                    id
                });
            let Some(id) = stopped else {
                J::log(&mut shard.log, at, |at| {
                    refused(&shard.table, lease, at, LaneCall::RequestStop)
                });
                return Err(LaneError::LeaseNotCurrent);
            };
            J::log(&mut shard.log, at, |at| {
                let id = J::slot_number(id);
                lease.logged(at, LaneCall::RequestStop, id, Ok(true), None)
            });
        }
        Ok(LaneView::held(
            lease.project(),
            lease.run(),
            LaneState::StopRequested,
        ))
    }

    /// Frees the lane held by `lease` and returns a receipt with `outcome`.
    ///
    /// Only the current lease frees a lane: a lease released already, one whose project was
    /// claimed again since, or one from another `ProjectLanes` gets
    /// [`LaneError::LeaseNotCurrent`] and changes nothing. A late cleanup can never erase a newer
    /// owner. If a stop was requested, the receipt says so whatever the outcome.
    ///
    /// ```
    /// use project_lanes::{LaneError, Outcome, ProjectLanes};
    /// let lanes = ProjectLanes::new();
    /// let old = lanes.claim("docs", "build-1")?;
    /// lanes.release(&old, Outcome::Failed)?;
    /// let new = lanes.claim("docs", "build-2")?;
    /// // The old run's late cleanup is refused; the new owner keeps the lane.
    /// assert_eq!(lanes.release(&old, Outcome::Cancelled).unwrap_err(), LaneError::LeaseNotCurrent);
    /// assert_eq!(lanes.view("docs")?.run.as_deref(), Some("build-2"));
    /// # let _ = new;
    /// # Ok::<(), LaneError>(())
    /// ```
    // Natively, always inlined: returning a lease or a receipt through memory costs more than
    // the operation's own work. The viewer's WebAssembly, built for size, inlines where it pays.
    #[cfg_attr(not(target_arch = "wasm32"), inline(always))]
    #[cfg_attr(target_arch = "wasm32", inline)]
    pub fn release(&self, lease: &Lease, outcome: Outcome) -> Result<Receipt, LaneError> {
        self.check_manager(lease)?;
        let at = self.journal.now();
        let held = {
            let mut guard = self.lock(lease.hash);
            let shard = &mut *guard;
            let call = LaneCall::Release(outcome);
            let taken = shard
                .table
                .find_mut(lease.hash, |s| holds(s, lease.token))
                .and_then(|s| Some((s.id, s.held.take()?)));
            let Some((id, held)) = taken else {
                J::log(&mut shard.log, at, |at| {
                    refused(&shard.table, lease, at, call)
                });
                return Err(LaneError::LeaseNotCurrent);
            };
            J::log(&mut shard.log, at, |at| {
                let (id, stop) = (J::slot_number(id), Ok(held.stop_requested));
                lease.logged(at, call, id, stop, Some(lease.run.clone()))
            });
            held
        };
        Ok(Receipt {
            project: lease.project.clone(),
            run: lease.run.clone(),
            outcome,
            stop_requested: held.stop_requested,
            work_executed_here: false,
        })
    }

    /// An owned snapshot of `project`'s lane; idle projects need no claim to be viewed.
    ///
    /// ```
    /// use project_lanes::{LaneState, LaneView, ProjectLanes};
    /// let lanes = ProjectLanes::new();
    /// assert_eq!(lanes.view("docs")?, LaneView::idle("docs"));
    /// let _lease = lanes.claim("docs", "build-1")?;
    /// assert_eq!(lanes.view("docs")?, LaneView::held("docs", "build-1", LaneState::Running));
    /// # Ok::<(), project_lanes::LaneError>(())
    /// ```
    pub fn view(&self, project: &str) -> Result<LaneView, LaneError> {
        validate_label(project)?;
        let hash = self.hasher.hash_one(project);
        let held = {
            let shard = self.lock(hash);
            shard
                .table
                .find(hash, |s| s.project == project)
                .and_then(|s| s.held.as_ref())
                .map(|h| (h.run.clone(), h.state()))
        };
        Ok(match held {
            Some((run, state)) => LaneView::held(project, &run, state),
            None => LaneView::idle(project),
        })
    }

    /// Whether `lease` was issued by these lanes (current or not).
    pub(crate) fn issued(&self, lease: &Lease) -> bool {
        lease.manager == self.id
    }

    /// A lease from another manager never holds one of these lanes.
    ///
    /// Past this check, the lease's token identifies its slot: tokens are unique within a shard
    /// and a project always hashes to the same shard, so a slot held by the lease's token exists exactly
    /// when the lease is current (same manager, same token, hence same project and run).
    fn check_manager(&self, lease: &Lease) -> Result<(), LaneError> {
        if lease.manager == self.id {
            Ok(())
        } else {
            Err(LaneError::LeaseNotCurrent)
        }
    }

    /// The shard a project's hash maps to.
    fn shard_of(hash: u64) -> usize {
        // Middle bits: hashbrown uses the top 7 bits for its tags and the low bits for buckets.
        (hash >> 32) as usize & (SHARDS - 1)
    }

    fn lock(&self, hash: u64) -> MutexGuard<'_, ShardLanes<J>> {
        self.lock_shard(Self::shard_of(hash))
    }

    fn lock_shard(&self, index: usize) -> MutexGuard<'_, ShardLanes<J>> {
        // Nothing panics while a shard is locked, but a poisoned lock must not wedge the lanes.
        self.shards[index]
            .lanes
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

/// The journal entry of a claim refused for its labels, inputs kept as given (at most 200
/// characters each, as records hold them; a longer label breaks the rule just the same).
fn refused_claim(project: &str, run: &str, error: LaneError) -> crate::journal::Entry {
    use crate::transition::{Answer, Call, Entry};
    let cut = |s: &str| s.chars().take(crate::op::MAX_INPUT_CHARS).collect();
    Entry {
        at: None,
        actor: None,
        call: Call::Claim {
            project: cut(project),
            run: cut(run),
        },
        answer: Answer::Refused(error.into()),
    }
}

/// The journal's entry for an operation refused because `lease` is not current: its project
/// has a slot in this shard (its claim made it), and the entry carries its run.
#[cold]
fn refused<J: Hook>(table: &HashTable<Slot<J>>, lease: &Lease, at: u64, call: LaneCall) -> Logged {
    let slot = table
        .find(lease.hash, |s| s.project == lease.project)
        .map_or(0, |s| J::slot_number(s.id));
    let answer = Err(LaneError::LeaseNotCurrent);
    lease.logged(at, call, slot, answer, Some(lease.run.clone()))
}

/// Whether `slot` is held by the lease with `token` (tokens are unique within a shard).
fn holds<J: Hook>(slot: &Slot<J>, token: u64) -> bool {
    slot.held.as_ref().is_some_and(|h| h.token == token)
}

impl Default for ProjectLanes {
    fn default() -> Self {
        ProjectLanes::new()
    }
}

impl<J: Journaling> fmt::Debug for ProjectLanes<J> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProjectLanes").finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slot, a shard and a lease as they were before lanes could keep a journal.
    #[allow(dead_code)]
    struct PlainSlot {
        project: Label,
        generation: u64,
        held: Option<Held>,
    }

    #[allow(dead_code)]
    struct PlainShard {
        table: HashTable<PlainSlot>,
        next_token: u64,
    }

    #[allow(dead_code)]
    struct PlainLease {
        manager: u64,
        token: u64,
        generation: u64,
        hash: u64,
        project: Label,
        run: Label,
    }

    #[test]
    fn plain_lanes_carry_nothing_of_a_journal() {
        assert_eq!(size_of::<Slot<Unjournaled>>(), size_of::<PlainSlot>());
        assert_eq!(
            size_of::<ShardLanes<Unjournaled>>(),
            size_of::<PlainShard>()
        );
        assert_eq!(size_of::<Lease>(), size_of::<PlainLease>());
        assert_eq!(
            size_of::<ProjectLanes>(),
            size_of::<ProjectLanes<Unjournaled>>()
        );
    }
}
