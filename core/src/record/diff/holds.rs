//! What a record says each project's lane went through: its holders in order ([`Hold`]), and
//! the names behind a record's own numbering (lease handles, reservation ids), so that two
//! records that number differently can still be compared.

use serde::Serialize;

use super::Index;

use crate::dispatch::ReservationState;
use crate::record::{Op, Record, StartLeaseState, StepResult};
use crate::{Label, Outcome};

/// One holder of a project's lane, from the step that gave it the lane to the step that
/// released it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hold {
    /// The run holding the lane.
    pub run: Label,
    /// The queue it was dispatched from, for a reservation of the dispatcher.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue: Option<Label>,
    /// The step (from 0) that gave it the lane; `None` if it held the lane before the first.
    pub from: Option<usize>,
    /// The step that released the lane; `None` if it still held the lane after the last.
    pub to: Option<usize>,
    /// The outcome it was released with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Whether a stop was requested while it held the lane.
    pub stop_requested: bool,
    /// For a reservation: how it settled (`done` or `unresolved`), once saved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub settled: Option<ReservationState>,
    /// How long it held the lane, in milliseconds, when both steps have a time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub millis: Option<u64>,
}

impl Hold {
    /// Whether the two holds say the same: the run, the queue, how it ended (or that it did
    /// not) and whether a stop was requested. Steps and times are not compared.
    pub fn same_as(&self, other: &Hold) -> bool {
        self.run == other.run
            && self.queue == other.queue
            && self.to.is_some() == other.to.is_some()
            && self.outcome == other.outcome
            && self.stop_requested == other.stop_requested
            && self.settled == other.settled
    }

    fn new(run: &Label, queue: Option<&Label>, from: Option<usize>) -> Hold {
        Hold {
            run: run.clone(),
            queue: queue.cloned(),
            from,
            to: None,
            outcome: None,
            stop_requested: false,
            settled: None,
            millis: None,
        }
    }
}

/// A record's lease handles and reservation ids, by what they name: a lease by its project
/// and run, a reservation by its queue, project and run. Lookups allocate nothing.
#[derive(Default)]
struct Names {
    leases: Index,
    reservations: Index,
    /// What each handle or id names (`docs/nightly-7`), or the handle itself if the record
    /// never issued it.
    named: Vec<String>,
}

impl Names {
    fn issue(at: &mut Index, named: &mut Vec<String>, key: &str, text: String) {
        at.insert(key, named.len());
        named.push(text);
    }

    fn issue_lease(&mut self, handle: &str, project: &Label, run: &Label) {
        let text = format!("{project}/{run}");
        Names::issue(&mut self.leases, &mut self.named, handle, text);
    }

    fn issue_reservation(&mut self, id: &str, queue: &Label, project: &Label, run: &Label) {
        let text = format!("{queue}/{project}/{run}");
        Names::issue(&mut self.reservations, &mut self.named, id, text);
    }

    /// What the lease handle (`reservation`: the reservation id) `key` names, by its place in
    /// `named`.
    fn name(&mut self, key: &str, reservation: bool) -> u32 {
        let at = if reservation {
            &self.reservations
        } else {
            &self.leases
        };
        match at.get(key) {
            Some(i) => i as u32,
            None => {
                self.named.push(key.to_owned());
                (self.named.len() - 1) as u32
            }
        }
    }
}

/// What a record's steps did to its lanes, read from the answers it saved.
pub struct History {
    /// Each project's holders, in the order they got the lane; projects in the record's order.
    pub holds: Vec<(Label, Vec<Hold>)>,
    /// For each step, what its lease handle or reservation id names (`None` for a step
    /// that names neither), by its place in `names`: handles are resolved as the record stood
    /// at that step.
    pub named: Vec<Option<u32>>,
    /// What the handles and ids name (`docs/nightly-7`).
    pub names: Vec<String>,
}

impl History {
    /// What step `n`'s handle or id names, if it has one.
    pub fn named(&self, n: usize) -> Option<&str> {
        let i = (*self.named.get(n)?)?;
        self.names.get(i as usize).map(String::as_str)
    }
}

/// The hold of `holds` still holding its lane, if any.
fn open(holds: &mut [Hold]) -> Option<&mut Hold> {
    holds.last_mut().filter(|h| h.to.is_none())
}

/// Reads `record`'s history.
pub fn history(record: &Record) -> History {
    let mut names = Names::default();
    let mut at = Index::new();
    let mut holds: Vec<(Label, Vec<Hold>)> = Vec::new();
    // The project's place in `holds`, given one first if it has none.
    let mut slot = |project: &Label, holds: &mut Vec<(Label, Vec<Hold>)>| -> usize {
        *at.get_or_insert(project.as_str(), || {
            holds.push((project.clone(), Vec::new()));
            holds.len() - 1
        })
    };
    for project in &record.projects {
        slot(project, &mut holds);
    }
    if let Some(start) = &record.start {
        for lease in &start.leases {
            names.issue_lease(&lease.handle, &lease.project, &lease.run);
            if lease.state != StartLeaseState::Released {
                let i = slot(&lease.project, &mut holds);
                let mut hold = Hold::new(&lease.run, None, None);
                hold.stop_requested = lease.state == StartLeaseState::StopRequested;
                holds[i].1.push(hold);
            }
        }
        for r in &start.reservations {
            names.issue_reservation(&r.id.to_string(), &r.queue, &r.project, &r.run);
            if r.state.holds_lane() {
                let i = slot(&r.project, &mut holds);
                holds[i].1.push(Hold::new(&r.run, Some(&r.queue), None));
            }
        }
    }
    let mut named = Vec::with_capacity(record.steps.len());
    for (n, step) in record.steps.iter().enumerate() {
        named.push(if let Some(lease) = &step.input.lease {
            Some(names.name(lease, false))
        } else {
            step.input.reservation.as_ref().map(|r| names.name(r, true))
        });
        let millis = |from: Option<usize>| -> Option<u64> {
            let start = record.steps.get(from?)?.at?.millis();
            Some(step.at?.millis().saturating_sub(start))
        };
        match &step.result {
            StepResult::Lease(lease) => {
                names.issue_lease(&lease.handle, &lease.project, &lease.run);
                let i = slot(&lease.project, &mut holds);
                holds[i].1.push(Hold::new(&lease.run, None, Some(n)));
            }
            StepResult::View(view) if step.op == Op::RequestStop => {
                if let Some(i) = Label::new(&view.project).ok().map(|p| slot(&p, &mut holds))
                    && let Some(hold) = open(&mut holds[i].1)
                {
                    hold.stop_requested = true;
                }
            }
            StepResult::Receipt(receipt) => {
                let i = slot(&receipt.project, &mut holds);
                if let Some(hold) = open(&mut holds[i].1) {
                    hold.to = Some(n);
                    hold.outcome = Some(receipt.outcome);
                    hold.stop_requested |= receipt.stop_requested;
                    hold.millis = millis(hold.from);
                }
            }
            StepResult::Reservation(r) | StepResult::Persisting(r) => {
                names.issue_reservation(&r.id.to_string(), &r.queue, &r.project, &r.run);
            }
            StepResult::Dispatched(r) => {
                let i = slot(&r.project, &mut holds);
                holds[i].1.push(Hold::new(&r.run, Some(&r.queue), Some(n)));
            }
            StepResult::Settled(settled) => {
                let i = slot(&settled.receipt.project, &mut holds);
                if let Some(hold) = open(&mut holds[i].1) {
                    hold.to = Some(n);
                    hold.outcome = Some(settled.receipt.outcome);
                    hold.settled = Some(settled.state);
                    hold.millis = millis(hold.from);
                }
            }
            _ => {}
        }
    }
    History {
        holds,
        named,
        names: names.named,
    }
}
