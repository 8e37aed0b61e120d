//! The contract as traits, so one test suite runs against every backend.
//!
//! [`Lanes`] is what [`ProjectLanes`] does (claim, request_stop, release, view), [`Queues`]
//! what [`Dispatcher`] does, and [`DirectLanes`] the lane operations beside the queues, on the
//! same lanes. The in-memory types implement them here; `project-lanes-pg`
//! implements them on PostgreSQL, where an operation can also fail for reasons of its own (a
//! lost connection). [`Refusal`] tells the two apart: a refusal of the contract carries its
//! stable code, a backend failure carries none.
//!
//! ```
//! use project_lanes::backend::{LeaseInfo, Lanes, Refusal};
//! use project_lanes::{LaneError, Outcome, ProjectLanes};
//!
//! fn claim_twice<L: Lanes>(lanes: &L) -> Option<LaneError> {
//!     let lease = lanes.claim("docs", "build-1").ok()?;
//!     let refused = lanes.claim("docs", "build-2").err()?.lane_error();
//!     lanes.release(&lease, Outcome::Succeeded).ok()?;
//!     refused
//! }
//! assert_eq!(claim_twice(&ProjectLanes::new()), Some(LaneError::ProjectBusy));
//! ```

use std::fmt;

use crate::dispatch::{
    DispatchError, Dispatcher, FinalState, Job, ReservationId, ReservationView, Settled,
};
use crate::journal::Journaling;
use crate::{LaneError, LaneView, Lease, Outcome, ProjectLanes, Receipt};

/// An error of a backend: a refusal with a stable code, or a failure of the backend itself.
pub trait Refusal: fmt::Debug {
    /// The refusal, with its code; `None` for a backend failure (a lost connection, …).
    fn refusal(&self) -> Option<DispatchError>;

    /// The lane refusal, if this is one.
    fn lane_error(&self) -> Option<LaneError> {
        match self.refusal()? {
            DispatchError::Lane(e) => Some(e),
            _ => None,
        }
    }
}

impl Refusal for LaneError {
    fn refusal(&self) -> Option<DispatchError> {
        Some(DispatchError::Lane(*self))
    }
}

impl Refusal for DispatchError {
    fn refusal(&self) -> Option<DispatchError> {
        Some(*self)
    }
}

/// What every lease shows: its project, its run, and its fencing generation (never its token).
pub trait LeaseInfo: fmt::Debug {
    /// The project whose lane the lease holds (or held).
    fn project(&self) -> &str;
    /// The run label given at claim.
    fn run(&self) -> &str;
    /// The fencing generation: 1 for a project's first claim, one more for each claim after it.
    fn generation(&self) -> u64;
}

impl LeaseInfo for Lease {
    fn project(&self) -> &str {
        Lease::project(self)
    }
    fn run(&self) -> &str {
        Lease::run(self)
    }
    fn generation(&self) -> u64 {
        Lease::generation(self)
    }
}

/// The lane contract: see [`ProjectLanes`] for the rules every implementation keeps.
pub trait Lanes {
    /// The proof of holding a lane.
    type Lease: LeaseInfo;
    /// Refusals and backend failures.
    type Error: Refusal + From<LaneError>;

    /// [`ProjectLanes::claim`].
    fn claim(&self, project: &str, run: &str) -> Result<Self::Lease, Self::Error>;
    /// [`ProjectLanes::request_stop`].
    fn request_stop(&self, lease: &Self::Lease) -> Result<LaneView, Self::Error>;
    /// [`ProjectLanes::release`].
    fn release(&self, lease: &Self::Lease, outcome: Outcome) -> Result<Receipt, Self::Error>;
    /// [`ProjectLanes::view`].
    fn view(&self, project: &str) -> Result<LaneView, Self::Error>;
}

impl<J: Journaling> Lanes for ProjectLanes<J> {
    type Lease = Lease;
    type Error = LaneError;

    fn claim(&self, project: &str, run: &str) -> Result<Lease, LaneError> {
        ProjectLanes::claim(self, project, run)
    }
    fn request_stop(&self, lease: &Lease) -> Result<LaneView, LaneError> {
        ProjectLanes::request_stop(self, lease)
    }
    fn release(&self, lease: &Lease, outcome: Outcome) -> Result<Receipt, LaneError> {
        ProjectLanes::release(self, lease, outcome)
    }
    fn view(&self, project: &str) -> Result<LaneView, LaneError> {
        ProjectLanes::view(self, project)
    }
}

/// The dispatcher's contract: see [`Dispatcher`] for the rules every implementation keeps.
pub trait Queues {
    /// Refusals and backend failures.
    type Error: Refusal + From<DispatchError>;

    /// [`Dispatcher::enqueue`].
    fn enqueue(
        &mut self,
        queue: &str,
        project: &str,
        run: &str,
    ) -> Result<ReservationId, Self::Error>;
    /// [`Dispatcher::dispatch`].
    fn dispatch(&mut self, queue: &str) -> Result<Option<Job>, Self::Error>;
    /// [`Dispatcher::finish`].
    fn finish(&mut self, id: ReservationId, outcome: Outcome) -> Result<FinalState, Self::Error>;
    /// [`Dispatcher::persisted`].
    fn persisted(&mut self, id: ReservationId, saved: bool) -> Result<Settled, Self::Error>;
    /// [`Dispatcher::cancel`].
    fn cancel(&mut self, id: ReservationId) -> Result<ReservationView, Self::Error>;
    /// [`Dispatcher::resolve`].
    fn resolve(&mut self, id: ReservationId) -> Result<ReservationView, Self::Error>;
    /// [`Dispatcher::reservation`].
    fn reservation(&mut self, id: ReservationId) -> Result<ReservationView, Self::Error>;
    /// [`Dispatcher::reservations`].
    fn reservations(&mut self) -> Result<Vec<ReservationView>, Self::Error>;
    /// [`Dispatcher::retained`].
    fn retained(&mut self, queue: &str) -> Result<usize, Self::Error>;
    /// [`Dispatcher::view`].
    fn view(&mut self, project: &str) -> Result<LaneView, Self::Error>;
}

/// Direct lane operations beside the queues, on the lanes they dispatch into: see
/// [`Dispatcher::claim`]. A lane held directly keeps the queues from dispatching its project;
/// a project that a reservation holds or an unresolved result blocks refuses a direct claim.
pub trait DirectLanes: Queues {
    /// The proof of holding a lane.
    type Lease: LeaseInfo;

    /// [`Dispatcher::claim`].
    fn claim(&mut self, project: &str, run: &str) -> Result<Self::Lease, Self::Error>;
    /// [`Dispatcher::request_stop`].
    fn request_stop(&mut self, lease: &Self::Lease) -> Result<LaneView, Self::Error>;
    /// [`Dispatcher::release`].
    fn release(&mut self, lease: &Self::Lease, outcome: Outcome) -> Result<Receipt, Self::Error>;
}

impl DirectLanes for Dispatcher {
    type Lease = Lease;

    fn claim(&mut self, project: &str, run: &str) -> Result<Lease, DispatchError> {
        Ok(Dispatcher::claim(self, project, run)?)
    }
    fn request_stop(&mut self, lease: &Lease) -> Result<LaneView, DispatchError> {
        Ok(Dispatcher::request_stop(self, lease)?)
    }
    fn release(&mut self, lease: &Lease, outcome: Outcome) -> Result<Receipt, DispatchError> {
        Ok(Dispatcher::release(self, lease, outcome)?)
    }
}

impl Queues for Dispatcher {
    type Error = DispatchError;

    fn enqueue(
        &mut self,
        queue: &str,
        project: &str,
        run: &str,
    ) -> Result<ReservationId, DispatchError> {
        Dispatcher::enqueue(self, queue, project, run)
    }
    fn dispatch(&mut self, queue: &str) -> Result<Option<Job>, DispatchError> {
        Dispatcher::dispatch(self, queue)
    }
    fn finish(&mut self, id: ReservationId, outcome: Outcome) -> Result<FinalState, DispatchError> {
        Dispatcher::finish(self, id, outcome)
    }
    fn persisted(&mut self, id: ReservationId, saved: bool) -> Result<Settled, DispatchError> {
        Dispatcher::persisted(self, id, saved)
    }
    fn cancel(&mut self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        Dispatcher::cancel(self, id)
    }
    fn resolve(&mut self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        Dispatcher::resolve(self, id)
    }
    fn reservation(&mut self, id: ReservationId) -> Result<ReservationView, DispatchError> {
        Dispatcher::reservation(self, id)
    }
    fn reservations(&mut self) -> Result<Vec<ReservationView>, DispatchError> {
        Ok(Dispatcher::reservations(self))
    }
    fn retained(&mut self, queue: &str) -> Result<usize, DispatchError> {
        Dispatcher::retained(self, queue)
    }
    fn view(&mut self, project: &str) -> Result<LaneView, DispatchError> {
        Ok(Dispatcher::view(self, project)?)
    }
}
