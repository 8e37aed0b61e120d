//! The core a version 3 record replays on: one dispatcher, whose lanes its direct lane
//! operations share, as on PostgreSQL. It keeps what is live (the leases holding lanes, the
//! dispatcher's state) and no snapshot: the state after a step is what it holds then.

use hashbrown::HashMap;

use crate::dispatch::{DispatchError, Dispatcher, ReservationId, ReservationView};
use crate::op::{Field, Op};
use crate::record::{StartLease, StartLeaseState};
use crate::{Label, LaneError, LaneView, Lease, Outcome};

use super::line::{Answer, Step};

/// The lanes and queues a version 3 record's steps run on.
pub struct Engine {
    /// The queues declared so far, until the dispatcher is made (at the first line that needs
    /// it: queue lines come first).
    queues: Vec<Label>,
    dispatcher: Option<Dispatcher>,
    /// The direct leases holding lanes now, by handle number; an issued handle that is not
    /// here was released (any operation on it is `LEASE_NOT_CURRENT`, as the core answers).
    leases: HashMap<u64, Lease>,
    /// Lease handles issued so far.
    issued: u64,
    started: bool,
    /// The dispatcher forgets the reservations settled for good at the front
    /// ([`Engine::retiring`]).
    retiring: bool,
}

impl Engine {
    /// Fresh lanes, and a dispatcher without queues yet.
    pub(crate) fn new() -> Engine {
        Engine {
            queues: Vec::new(),
            dispatcher: None,
            leases: HashMap::new(),
            issued: 0,
            started: false,
            retiring: false,
        }
    }

    /// The same engine, whose dispatcher forgets the reservations settled for good at the
    /// front as the steps run (an audit's, which asks for no view of them): its memory is what
    /// is live and what was enqueued since the oldest live reservation. Every answer is the
    /// same.
    pub(crate) fn retiring(mut self) -> Engine {
        self.retiring = true;
        self
    }

    /// The dispatcher has `queue` (declared before any lease, reservation or step).
    pub(crate) fn queue(&mut self, queue: &Label) {
        self.queues.push(queue.clone());
    }

    /// The dispatcher, made with the queues declared when a line first needs it.
    fn dispatcher(&mut self) -> Result<&mut Dispatcher, DispatchError> {
        if self.dispatcher.is_none() {
            self.dispatcher = Some(Dispatcher::with_queues(&self.queues)?);
        }
        Ok(self
            .dispatcher
            .as_mut()
            .unwrap_or_else(|| unreachable!("just made")))
    }

    /// A lease held before the first step, or issued and released before a step names it.
    pub(crate) fn lease(&mut self, lease: &StartLease) -> Result<(), DispatchError> {
        self.issued += 1;
        let stop = match lease.state {
            StartLeaseState::Released => return Ok(()),
            StartLeaseState::Running => false,
            StartLeaseState::StopRequested => true,
        };
        let held = self
            .dispatcher()?
            .restore_claim(&lease.project, &lease.run, stop)?;
        self.leases.insert(self.issued, held);
        Ok(())
    }

    /// A reservation present before the first step, or settled before a step names it.
    pub(crate) fn reservation(&mut self, view: &ReservationView) -> Result<(), DispatchError> {
        self.dispatcher()?.restore_reservation(view)
    }

    /// Runs `step` on the core and returns what the core answers, as version 3 keeps it.
    pub(crate) fn run(&mut self, step: &Step) -> Answer {
        if let Err(e) = self.dispatcher() {
            return Answer::Refused(e);
        }
        let Some(d) = self.dispatcher.as_mut() else {
            unreachable!("just made")
        };
        if !self.started {
            d.finish_restore();
            self.started = true;
        }
        let input = &step.input;
        let text = |field: Field| input.get(field).unwrap_or_default();
        let outcome = || text(Field::Outcome).parse::<Outcome>();
        // The reader checked that every handle and id was issued.
        let reservation = || {
            ReservationId::parse(text(Field::Reservation)).ok_or(DispatchError::UnknownReservation)
        };
        let handle = || {
            text(Field::Lease)
                .strip_prefix('L')
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(0)
        };
        let answer: Result<Answer, DispatchError> = match step.op {
            Op::Claim => d
                .claim(text(Field::Project), text(Field::Run))
                .map(|lease| {
                    self.issued += 1;
                    self.leases.insert(self.issued, lease);
                    Answer::Ok
                })
                .map_err(DispatchError::from),
            Op::RequestStop => match self.leases.get(&handle()) {
                Some(lease) => d
                    .request_stop(lease)
                    .map(|_| Answer::Ok)
                    .map_err(Into::into),
                None => Err(LaneError::LeaseNotCurrent.into()),
            },
            Op::Release => match (outcome(), self.leases.get(&handle())) {
                (Err(e), _) => Err(e.into()),
                (Ok(outcome), Some(lease)) => match d.release(lease, outcome) {
                    Ok(receipt) => {
                        self.leases.remove(&handle());
                        Ok(Answer::Released {
                            stop_requested: receipt.stop_requested,
                        })
                    }
                    Err(e) => Err(e.into()),
                },
                (Ok(_), None) => Err(LaneError::LeaseNotCurrent.into()),
            },
            Op::View => d
                .view(text(Field::Project))
                .map(Answer::Viewed)
                .map_err(Into::into),
            Op::Enqueue => d
                .enqueue(text(Field::Queue), text(Field::Project), text(Field::Run))
                .map(|_| Answer::Ok),
            Op::Dispatch => {
                let queue = text(Field::Queue);
                d.dispatch(queue).and_then(|job| match job {
                    Some(job) => Ok(Answer::Dispatched(job.reservation)),
                    None => Ok(Answer::Nothing {
                        retained: d.retained(queue)? as u64,
                    }),
                })
            }
            Op::Finish => reservation().and_then(|id| {
                let outcome = outcome().map_err(DispatchError::from)?;
                d.finish(id, outcome).map(|_| Answer::Ok)
            }),
            Op::Persist => reservation().and_then(|id| {
                d.persisted(id, input.saved.unwrap_or(false))
                    .map(|settled| Answer::Settled(settled.state))
            }),
            Op::Cancel => reservation().and_then(|id| d.cancel(id).map(|_| Answer::Ok)),
            Op::Resolve => reservation().and_then(|id| d.resolve(id).map(|_| Answer::Ok)),
        };
        if self.retiring {
            d.retire_settled();
        }
        answer.unwrap_or_else(Answer::Refused)
    }

    /// `project`'s lane now (idle if the label is not one).
    pub fn lane(&self, project: &str) -> LaneView {
        self.dispatcher
            .as_ref()
            .and_then(|d| d.view(project).ok())
            .unwrap_or_else(|| LaneView::idle(project))
    }

    /// How many reservations have been enqueued or declared.
    pub fn reservation_count(&self) -> u64 {
        self.dispatcher
            .as_ref()
            .map_or(0, |d| d.reservation_count())
    }

    /// Reservation `id` now, if it was issued.
    pub fn reservation_view(&self, id: ReservationId) -> Option<ReservationView> {
        self.dispatcher.as_ref()?.reservation(id).ok()
    }
}
