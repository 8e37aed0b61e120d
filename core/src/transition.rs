//! Transitions, as a journal holds them: one entry per operation a system performed, with what it answered, when
//! (by a clock the caller injects) and who called.

use std::fmt;
use std::sync::Arc;

use crate::op::{MAX_NAME_CHARS, Nothing, Op};
use crate::reservation::{DispatchError, ReservationId, ReservationView, Settled};
use crate::time::Timestamp;
use crate::{Label, LaneView, Outcome, Receipt};

/// Where a journal's times come from. The core reads no clock of its own: give it one, such as
/// the system clock, a coarse clock your process keeps, or a counter in tests.
///
/// Any `Fn() -> Timestamp` that can be shared between threads is a clock:
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicU64, Ordering};
/// use project_lanes::journal::Clock;
/// use project_lanes::record::Timestamp;
///
/// let ticks = Arc::new(AtomicU64::new(1_777_600_000_000));
/// let clock = move || Timestamp::from_millis(ticks.fetch_add(1, Ordering::Relaxed)).unwrap();
/// assert_eq!(clock.now().to_string(), "2026-05-01T01:46:40.000Z");
/// assert_eq!(clock.now().to_string(), "2026-05-01T01:46:40.001Z");
/// ```
pub trait Clock: Send + Sync {
    /// The time now.
    fn now(&self) -> Timestamp;
}

impl<F: Fn() -> Timestamp + Send + Sync> Clock for F {
    fn now(&self) -> Timestamp {
        self()
    }
}

/// Who called an operation, in the system's words (a host and process, a worker): 1 to 200
/// characters, one line, no control characters, as a record's `actor` must be. Cheap to clone.
///
/// ```
/// use project_lanes::journal::Actor;
/// assert_eq!(Actor::new("host-a/pid 4120").unwrap().as_str(), "host-a/pid 4120");
/// assert!(Actor::new("").is_none() && Actor::new("two\nlines").is_none());
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Actor(Arc<str>);

impl Actor {
    /// The actor named `name`, if it follows the rule.
    pub fn new(name: &str) -> Option<Actor> {
        let chars = name.chars().count();
        let plain = !name.trim().is_empty()
            && chars <= MAX_NAME_CHARS
            && !name.chars().any(char::is_control);
        plain.then(|| Actor(name.into()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Actor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

/// A lease as a journal names it: its project and fencing generation, which together identify
/// it in every backend (the generation only grows per project), and its run. Never its token.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LeaseKey {
    /// The project whose lane it holds (or held).
    pub project: Label,
    /// The run label given at claim.
    pub run: Label,
    /// Its fencing generation.
    pub generation: u64,
}

/// What was called, with its inputs. Reservations are named by the system's own ids; an export
/// numbers them anew (`R1`, `R2`, … in the order the record first holds them), and leases get
/// handles (`L1`, …) the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// `claim(project, run)`; inputs as given, which may break the label rule.
    Claim {
        /// The project given.
        project: String,
        /// The run label given.
        run: String,
    },
    /// `request_stop(lease)`.
    RequestStop {
        /// The lease presented.
        lease: LeaseKey,
    },
    /// `release(lease, outcome)`.
    Release {
        /// The lease presented.
        lease: LeaseKey,
        /// The outcome given.
        outcome: Outcome,
    },
    /// `enqueue(queue, project, run)`; inputs as given.
    Enqueue {
        /// The queue given.
        queue: String,
        /// The project given.
        project: String,
        /// The run label given.
        run: String,
    },
    /// `dispatch(queue)`.
    Dispatch {
        /// The queue given.
        queue: String,
    },
    /// `finish(reservation, outcome)`.
    Finish {
        /// The reservation, by the system's id.
        reservation: ReservationId,
        /// The outcome given.
        outcome: Outcome,
    },
    /// `persisted(reservation, saved)`.
    Persist {
        /// The reservation, by the system's id.
        reservation: ReservationId,
        /// Whether saving the final state succeeded.
        saved: bool,
    },
    /// `cancel(reservation)`.
    Cancel {
        /// The reservation, by the system's id.
        reservation: ReservationId,
    },
    /// `resolve(reservation)`.
    Resolve {
        /// The reservation, by the system's id.
        reservation: ReservationId,
    },
}

impl Call {
    /// The record operation this call is.
    pub fn op(&self) -> Op {
        match self {
            Call::Claim { .. } => Op::Claim,
            Call::RequestStop { .. } => Op::RequestStop,
            Call::Release { .. } => Op::Release,
            Call::Enqueue { .. } => Op::Enqueue,
            Call::Dispatch { .. } => Op::Dispatch,
            Call::Finish { .. } => Op::Finish,
            Call::Persist { .. } => Op::Persist,
            Call::Cancel { .. } => Op::Cancel,
            Call::Resolve { .. } => Op::Resolve,
        }
    }
}

/// What the system answered: a record step's result, with the lease a claim issued named by its
/// key and reservations by the system's ids.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A successful claim: the lease issued.
    Claimed(LeaseKey),
    /// A successful stop request: the lane's view.
    View(LaneView),
    /// A successful release: the receipt.
    Receipt(Receipt),
    /// The reservation after a successful `enqueue`, `cancel` or `resolve`.
    Reservation(ReservationView),
    /// A `dispatch` that handed out a job: the reservation, now holding its lane.
    Dispatched(ReservationView),
    /// A `dispatch` that found nothing available.
    Nothing(Nothing),
    /// A successful `finish`: the reservation, whose final state is being saved.
    Persisting(ReservationView),
    /// A successful `persist`: the reservation's end and the lane's receipt.
    Settled(Settled),
    /// A refusal, by its code.
    Refused(DispatchError),
}

/// One operation a system performed: when, who called, what, and what it answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// When, by the journal's clock (`None` for a journal kept without one).
    pub at: Option<Timestamp>,
    /// Who called, if the system said.
    pub actor: Option<Actor>,
    /// What was called.
    pub call: Call,
    /// What it answered.
    pub answer: Answer,
}
