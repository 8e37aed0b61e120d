//! The engine a record runs on: fresh lanes, or a fresh dispatcher (which owns its lanes), set
//! to the record's starting state if it has one. Replay and the recorder both run each step
//! through it, so a step means one thing.

use hashbrown::HashMap;

use crate::dispatch::{DispatchError, Dispatcher, ReservationId, ReservationView};
use crate::op::{Field, Nothing, Op};
use crate::{Label, LaneError, Lease, Outcome, ProjectLanes};

use super::format::{LeaseRecord, Start, StartLease, StartLeaseState, Step, StepResult};

/// What a record runs on: the lanes alone, or a dispatcher (which owns its lanes).
pub(super) enum Engine {
    Lanes {
        lanes: ProjectLanes,
        /// Leases issued so far, by handle.
        leases: HashMap<String, Lease>,
    },
    Dispatch(Box<Dispatcher>),
}

impl Engine {
    /// Fresh lanes (no `queues`) or a fresh dispatcher, holding what `start` holds.
    pub(super) fn new(queues: &[Label], start: Option<&Start>) -> Result<Engine, DispatchError> {
        let empty = Start::default();
        let start = start.unwrap_or(&empty);
        if !queues.is_empty() {
            let d = Dispatcher::restored(queues, &start.reservations)?;
            return Ok(Engine::Dispatch(Box::new(d)));
        }
        let lanes = ProjectLanes::new();
        let mut leases = HashMap::with_capacity(start.leases.len());
        // Released leases first: each claims its lane and lets it go before the holders claim.
        let released = |l: &&StartLease| l.state == StartLeaseState::Released;
        let order = start.leases.iter().filter(released);
        for lease in order.chain(start.leases.iter().filter(|l| !released(l))) {
            let issued = lanes.claim(&lease.project, &lease.run)?;
            match lease.state {
                StartLeaseState::Released => {
                    lanes.release(&issued, Outcome::Succeeded)?;
                }
                StartLeaseState::StopRequested => {
                    lanes.request_stop(&issued)?;
                }
                StartLeaseState::Running => {}
            }
            leases.insert(lease.handle.clone(), issued);
        }
        Ok(Engine::Lanes { lanes, leases })
    }

    pub(super) fn lanes(&self) -> &ProjectLanes {
        match self {
            Engine::Lanes { lanes, .. } => lanes,
            Engine::Dispatch(d) => d.lanes(),
        }
    }

    pub(super) fn reservations(&self) -> Option<Vec<ReservationView>> {
        match self {
            Engine::Lanes { .. } => None,
            Engine::Dispatch(d) => Some(d.reservations()),
        }
    }

    /// Runs one step on the real core and returns what it returned.
    pub(super) fn run(&mut self, step: &Step) -> StepResult {
        let input = &step.input;
        let text = |field: Field| input.get(field).unwrap_or_default();
        let outcome = || {
            text(Field::Outcome)
                .parse::<Outcome>()
                .map_err(DispatchError::from)
        };
        // `check` guarantees ids and handles were issued; an unchecked record that names an
        // unknown one gets the code for "no such thing".
        let reservation = || {
            ReservationId::parse(text(Field::Reservation)).ok_or(DispatchError::UnknownReservation)
        };
        let result: Result<StepResult, DispatchError> = match (self, step.op) {
            (engine, Op::View) => lanes_view(engine.lanes(), text(Field::Project)),
            (Engine::Lanes { lanes, leases }, op) => {
                let lease = leases.get(text(Field::Lease));
                match op {
                    Op::Claim => lanes
                        .claim(text(Field::Project), text(Field::Run))
                        .map(|lease| {
                            let handle = format!("L{}", leases.len() + 1);
                            let record = LeaseRecord {
                                handle: handle.as_str().into(),
                                project: lease.project_label().clone(),
                                run: lease.run_label().clone(),
                            };
                            leases.insert(handle, lease);
                            StepResult::Lease(record)
                        })
                        .map_err(DispatchError::from),
                    Op::RequestStop => lease
                        .ok_or(LaneError::InvalidLease)
                        .and_then(|l| lanes.request_stop(l))
                        .map(StepResult::View)
                        .map_err(DispatchError::from),
                    Op::Release => lease
                        .ok_or(LaneError::InvalidLease.into())
                        .and_then(|l| {
                            let outcome = outcome()?;
                            Ok(lanes.release(l, outcome)?)
                        })
                        .map(StepResult::Receipt),
                    _ => Err(DispatchError::UnknownQueue),
                }
            }
            (Engine::Dispatch(d), op) => match op {
                Op::Enqueue => d
                    .enqueue(text(Field::Queue), text(Field::Project), text(Field::Run))
                    .and_then(|id| d.reservation(id))
                    .map(|v| StepResult::Reservation(Box::new(v))),
                Op::Dispatch => {
                    let queue = text(Field::Queue);
                    d.dispatch(queue).and_then(|job| match job {
                        Some(job) => Ok(StepResult::Dispatched(Box::new(
                            d.reservation(job.reservation)?,
                        ))),
                        None => Ok(StepResult::Nothing(Nothing {
                            retained: d.retained(queue)? as u64,
                        })),
                    })
                }
                Op::Finish => reservation()
                    .and_then(|id| {
                        d.finish(id, outcome()?)?;
                        d.reservation(id)
                    })
                    .map(|v| StepResult::Persisting(Box::new(v))),
                Op::Persist => reservation()
                    .and_then(|id| d.persisted(id, input.saved.unwrap_or(false)))
                    .map(|s| StepResult::Settled(Box::new(s))),
                Op::Cancel => reservation()
                    .and_then(|id| d.cancel(id))
                    .map(|v| StepResult::Reservation(Box::new(v))),
                Op::Resolve => reservation()
                    .and_then(|id| d.resolve(id))
                    .map(|v| StepResult::Reservation(Box::new(v))),
                // The dispatcher owns its lanes: direct lane operations are not part of its
                // records (`check` refuses them).
                _ => Err(DispatchError::Lane(LaneError::InvalidLease)),
            },
        };
        result.unwrap_or_else(StepResult::Error)
    }
}

fn lanes_view(lanes: &ProjectLanes, project: &str) -> Result<StepResult, DispatchError> {
    lanes
        .view(project)
        .map(StepResult::View)
        .map_err(DispatchError::from)
}
