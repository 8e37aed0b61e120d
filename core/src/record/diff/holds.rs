//! What a record says each project's lane went through: its holders in order ([`Hold`]), and
//! the names behind a record's own numbering (lease handles, reservation ids), so that two
//! records that number differently can still be compared.

use serde::Serialize;

use super::Index;

use crate::dispatch::ReservationState;
use crate::record::{Op, Start, StartLeaseState, Step, StepResult};
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
}

/// A record's lease handles and reservation ids, by what they name: a lease by its project
/// and run, a reservation by its queue, project and run. Lookups allocate nothing.
#[derive(Default)]
struct Names {
    leases: Index,
    reservations: Index,
    /// The latest name of each handle `L<n>` and id `R<n>` (by `n`; `NONE`: none), as records
    /// number them: a number costs 4 bytes here, where a key costs about 30 in an index.
    numbered: [Vec<u32>; 2],
    /// Every name given (`docs/nightly-7`), one after another.
    text: String,
    /// Each name's end in `text` (it starts where the one before ends), how many steps came
    /// before it was given, and the name its handle or id had before (`u32::MAX`: none).
    given: Vec<(u32, u32, u32)>,
}

/// No name before.
const NONE: u32 = u32::MAX;

impl Names {
    /// The latest name `key` was given (its place in `given`), or `NONE`.
    fn latest(&self, key: &str, reservation: bool) -> u32 {
        let side = usize::from(reservation);
        let numbered = number(key, reservation).and_then(|n| self.numbered[side].get(n));
        match numbered {
            Some(&at) if at != NONE => at,
            _ if reservation => self.reservations.get(key).map_or(NONE, |i| i as u32),
            _ => self.leases.get(key).map_or(NONE, |i| i as u32),
        }
    }

    fn issue(&mut self, reservation: bool, key: &str, name: std::fmt::Arguments<'_>, at: usize) {
        use std::fmt::Write;
        let i = self.given.len() as u32;
        let before = self.latest(key, reservation);
        let numbered = &mut self.numbered[usize::from(reservation)];
        // Numbers far past the last (a record may start anywhere) go to the index.
        match number(key, reservation).filter(|&n| n < numbered.len() + 1024) {
            Some(n) => {
                if numbered.len() <= n {
                    numbered.resize(n + 1, NONE);
                }
                numbered[n] = i;
            }
            None if reservation => self.reservations.insert(key, i as usize),
            None => self.leases.insert(key, i as usize),
        }
        let _ = self.text.write_fmt(name);
        self.given
            .push((self.text.len() as u32, at.min(NONE as usize) as u32, before));
    }

    /// What the lease handle (`reservation`: the reservation id) `key` named before step `n`
    /// (counted from 0), or the handle itself if it named nothing then.
    fn name<'a>(&'a self, key: &'a str, reservation: bool, n: usize) -> &'a str {
        let mut at = self.latest(key, reservation);
        while let Some(&(_, given, before)) = self.given.get(at as usize) {
            if given as usize <= n {
                let start = at.checked_sub(1).map_or(0, |j| self.given[j as usize].0);
                return &self.text[start as usize..self.given[at as usize].0 as usize];
            }
            at = before;
        }
        key
    }
}

/// The number of a lease handle `L<n>` (`reservation`: an id `R<n>`) written as records write
/// them (digits, no leading zero), if it is one.
fn number(key: &str, reservation: bool) -> Option<usize> {
    let digits = key.strip_prefix(if reservation { 'R' } else { 'L' })?;
    let plain = !digits.is_empty() && digits.len() <= 9 && !digits.starts_with('0');
    if !plain || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// What a record's steps did to its lanes, read from the answers it saved, one step at a time.
#[derive(Default)]
pub struct History {
    /// Each project's holders, in the order they got the lane; projects in the order they
    /// were first named until [`History::order`] puts them in the record's.
    holds: Vec<(Label, Vec<Held>)>,
    /// The queues holds were dispatched from.
    queues: Vec<Label>,
    /// Each project's place in `holds`.
    at: Index,
    /// For each project of `holds`, when the hold still holding its lane got it (milliseconds).
    since: Vec<Option<u64>>,
    names: Names,
    /// Steps read.
    steps: usize,
}

impl History {
    /// The project's place in `holds`, given one first if it has none.
    fn slot(&mut self, project: &Label) -> usize {
        let History {
            holds, at, since, ..
        } = self;
        *at.get_or_insert(project.as_str(), || {
            holds.push((project.clone(), Vec::new()));
            since.push(None);
            holds.len() - 1
        })
    }

    /// A hold of `run` (from `queue`) from step `from`, in project `i`.
    fn hold(&mut self, i: usize, run: &Label, queue: Option<&Label>, from: Option<usize>) {
        let queue = queue.map_or(NONE, |q| match self.queues.iter().position(|x| x == q) {
            Some(at) => at as u32,
            None => {
                self.queues.push(q.clone());
                (self.queues.len() - 1) as u32
            }
        });
        self.holds[i].1.push(Held {
            run: run.clone(),
            queue,
            from: from.map_or(UNSET, |n| n as u64),
            to: UNSET,
            millis: UNSET,
            outcome: None,
            settled: None,
            stop_requested: false,
        });
    }

    /// The projects, in order.
    pub fn projects(&self) -> impl Iterator<Item = &Label> {
        self.holds.iter().map(|(p, _)| p)
    }

    /// Whether `project` is one of them.
    pub fn has(&self, project: &str) -> bool {
        self.at.contains(project)
    }

    /// The holders of `project`, in order (none for a project it does not have).
    pub fn holds_of(&self, project: &str) -> Vec<Hold> {
        let Some((_, held)) = self.at.get(project).and_then(|i| self.holds.get(i)) else {
            return Vec::new();
        };
        let step = |n: u64| (n != UNSET).then_some(n as usize);
        (held.iter())
            .map(|h| Hold {
                run: h.run.clone(),
                queue: self.queues.get(h.queue as usize).cloned(),
                from: step(h.from),
                to: step(h.to),
                outcome: h.outcome,
                stop_requested: h.stop_requested,
                settled: h.settled,
                millis: (h.millis != UNSET).then_some(h.millis),
            })
            .collect()
    }

    /// What was held before the first step.
    pub fn start(&mut self, start: &Start) {
        for lease in &start.leases {
            let name = format_args!("{}/{}", lease.project, lease.run);
            self.names.issue(false, &lease.handle, name, 0);
            if lease.state != StartLeaseState::Released {
                let i = self.slot(&lease.project);
                self.hold(i, &lease.run, None, None);
                if let Some(hold) = open(&mut self.holds[i].1) {
                    hold.stop_requested = lease.state == StartLeaseState::StopRequested;
                }
            }
        }
        for r in &start.reservations {
            let name = format_args!("{}/{}/{}", r.queue, r.project, r.run);
            self.names.issue(true, &r.id.to_string(), name, 0);
            if r.state.holds_lane() {
                let i = self.slot(&r.project);
                self.hold(i, &r.run, Some(&r.queue), None);
            }
        }
    }

    /// What step `n`'s lease handle or reservation id names, as the record stood before it
    /// (the handle itself if it names nothing); `None` for a step that has neither.
    pub fn named<'a>(&'a self, step: &'a Step, n: usize) -> Option<&'a str> {
        if let Some(lease) = &step.input.lease {
            Some(self.names.name(lease, false, n))
        } else {
            (step.input.reservation.as_deref()).map(|r| self.names.name(r, true, n))
        }
    }

    /// The next step.
    pub fn step(&mut self, step: &Step) {
        let n = self.steps;
        self.steps += 1;
        let now = step.at.map(|t| t.millis());
        let took = |since: Option<u64>| Some(now?.saturating_sub(since?));
        match &step.result {
            StepResult::Lease(lease) => {
                let name = format_args!("{}/{}", lease.project, lease.run);
                self.names.issue(false, &lease.handle, name, n + 1);
                let i = self.slot(&lease.project);
                self.hold(i, &lease.run, None, Some(n));
                self.since[i] = now;
            }
            StepResult::View(view) if step.op == Op::RequestStop => {
                if let Ok(project) = Label::new(&view.project) {
                    let i = self.slot(&project);
                    if let Some(hold) = open(&mut self.holds[i].1) {
                        hold.stop_requested = true;
                    }
                }
            }
            StepResult::Receipt(receipt) => {
                let i = self.slot(&receipt.project);
                let since = self.since[i];
                if let Some(hold) = open(&mut self.holds[i].1) {
                    hold.to = n as u64;
                    hold.outcome = Some(receipt.outcome);
                    hold.stop_requested |= receipt.stop_requested;
                    hold.millis = took(since).unwrap_or(UNSET);
                }
            }
            StepResult::Reservation(r) | StepResult::Persisting(r) => {
                let name = format_args!("{}/{}/{}", r.queue, r.project, r.run);
                self.names.issue(true, &r.id.to_string(), name, n + 1);
            }
            StepResult::Dispatched(r) => {
                let i = self.slot(&r.project);
                self.hold(i, &r.run, Some(&r.queue), Some(n));
                self.since[i] = now;
            }
            StepResult::Settled(settled) => {
                let i = self.slot(&settled.receipt.project);
                let since = self.since[i];
                if let Some(hold) = open(&mut self.holds[i].1) {
                    hold.to = n as u64;
                    hold.outcome = Some(settled.receipt.outcome);
                    hold.settled = Some(settled.state);
                    hold.millis = took(since).unwrap_or(UNSET);
                }
            }
            _ => {}
        }
    }

    /// Puts the projects in the record's order (`projects`, each given a place even without
    /// holds), then those it does not list in the order they were first named. The last call.
    pub fn order(&mut self, projects: &[Label]) {
        let listed: Vec<usize> = projects.iter().map(|p| self.slot(p)).collect();
        let mut slots: Vec<_> = std::mem::take(&mut self.holds)
            .into_iter()
            .map(Some)
            .collect();
        let mut at = Index::new();
        for i in listed.into_iter().chain(0..slots.len()) {
            if let Some(project) = slots.get_mut(i).and_then(Option::take) {
                at.insert(project.0.as_str(), self.holds.len());
                self.holds.push(project);
            }
        }
        self.at = at;
        self.since.clear();
    }
}

/// A [`Hold`] as a history keeps it, in about half the bytes: a long record keeps a hold for
/// every claim.
struct Held {
    run: Label,
    /// Its place in the history's queues, or `NONE`.
    queue: u32,
    /// Steps and milliseconds, or `UNSET`.
    from: u64,
    to: u64,
    millis: u64,
    outcome: Option<Outcome>,
    settled: Option<ReservationState>,
    stop_requested: bool,
}

/// No step or time.
const UNSET: u64 = u64::MAX;

/// The hold of `holds` still holding its lane, if any.
fn open(holds: &mut [Held]) -> Option<&mut Held> {
    holds.last_mut().filter(|h| h.to == UNSET)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_names_what_it_was_last_given_before_the_step_however_it_is_written() {
        let mut names = Names::default();
        names.issue(false, "L1", format_args!("docs/a"), 0);
        // Far past the last number: kept in the index, and found there as the numbers grow.
        names.issue(false, "L5000", format_args!("docs/b"), 1);
        names.issue(false, "L01", format_args!("docs/c"), 2);
        names.issue(false, "L1", format_args!("site/d"), 3);
        names.issue(true, "R1", format_args!("main/docs/e"), 3);
        assert_eq!(names.name("L1", false, 2), "docs/a");
        assert_eq!(names.name("L1", false, 3), "site/d");
        assert_eq!(names.name("L5000", false, 0), "L5000");
        assert_eq!(names.name("L5000", false, 1), "docs/b");
        assert_eq!(names.name("L01", false, 9), "docs/c");
        assert_eq!(names.name("R1", true, 9), "main/docs/e");
        assert_eq!(
            (names.name("R1", false, 9), names.name("L2", false, 9)),
            ("R1", "L2")
        );
        for n in 2..5_100 {
            names.issue(false, &format!("L{n}"), format_args!("p/{n}"), 10 + n);
        }
        assert_eq!(names.name("L5000", false, 5_009), "docs/b");
        assert_eq!(names.name("L5000", false, 5_010), "p/5000");
        assert_eq!(names.name("L4999", false, 9_999), "p/4999");
    }
}
