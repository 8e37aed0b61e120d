//! A journal as a version 2 record: all of it, some projects, or a time window.
//!
//! The record's steps are the journal's entries in order, with the system's answers as their
//! results: the core computes nothing here, so replaying the record checks the system against
//! the core. Snapshots follow from the answers ([`State`]). Leases get handles and reservations
//! ids anew (`L1`, `R1`, … in the order the record first holds them: its start, then its steps).

use std::collections::HashMap;

use crate::dispatch::{ReservationId, ReservationState, ReservationView};
use crate::label::Quoted;
use crate::record::{
    FORMAT, Input, LeaseRecord, MAX_INPUT_CHARS, MAX_PROJECTS, MAX_RECORD_BYTES, MAX_STEPS, Origin,
    OriginKind, Record, Start, StartLease, StartLeaseState, Step, StepResult, Timestamp, Untouched,
    VERSION_2,
};
use crate::{Label, LaneView, is_valid_label};

use super::export::{Export, ExportError, default_summary, default_title};
use super::history::{Journal, State};
use crate::transition::{Answer, Call, Entry, LeaseKey};

impl Journal {
    /// The entries `export` asks for, as a version 2 record whose origin is this journal.
    ///
    /// A window is cut in journal order: from the first entry at or after `since` to the last
    /// one before `until` (times of concurrent entries may be slightly out of order; the order
    /// is what replays). What the system held before the cut becomes the record's `start`:
    /// lanes held (and leases released earlier that a step names), or reservations not yet
    /// settled (and settled ones a step names). Left out, besides other projects' entries: a
    /// call naming a reservation that was never enqueued (no record can name it) and, when
    /// projects are asked for, a `dispatch` that handed out nothing (its count of waiting items
    /// is over every project).
    pub fn record(&self, export: &Export) -> Result<Record, ExportError> {
        let (lo, hi) = self.window(export)?;
        let at_start = self.state_after(lo);
        let selected = (!export.projects.is_empty()).then_some(export.projects.as_slice());
        if let Some(selected) = selected {
            self.check_known(selected)?;
        }
        let kept = self.kept(&at_start, lo, hi, selected);
        if kept.is_empty() {
            return Err(ExportError::Nothing);
        }
        if kept.len() > MAX_STEPS {
            return Err(ExportError::TooManySteps(kept.len()));
        }
        let mut cut = Cut::new(self, &at_start, &kept, selected)?;
        let steps = cut.steps(&at_start, &kept, export.size_limit)?;
        let final_lanes = steps.last().map(|s| s.lanes.clone()).unwrap_or_default();
        let record = Record {
            format: FORMAT.into(),
            version: VERSION_2,
            id: export.id.clone(),
            title: export
                .title
                .clone()
                .unwrap_or_else(|| default_title(export)),
            summary: export
                .summary
                .clone()
                .unwrap_or_else(|| default_summary(export, steps.len())),
            work_executed_here: false,
            origin: Some(Origin {
                kind: OriginKind::Journal,
                system: Some(export.system.clone()),
                since: export.since,
                until: export.until,
            }),
            projects: cut.projects,
            untouched_project: Untouched::none(),
            queues: self.queues.clone(),
            start: cut.start,
            steps,
            final_lanes,
        };
        record.check().map_err(ExportError::Invalid)?;
        Ok(record)
    }

    /// The entries `lo..hi` that the window covers.
    fn window(&self, export: &Export) -> Result<(usize, usize), ExportError> {
        if export.since.is_none() && export.until.is_none() {
            return Ok((0, self.entries.len()));
        }
        if let (Some(since), Some(until)) = (export.since, export.until)
            && since >= until
        {
            return Err(ExportError::EmptyWindow { since, until });
        }
        let times: Vec<Timestamp> = self
            .entries
            .iter()
            .map(|e| e.at)
            .collect::<Option<_>>()
            .ok_or(ExportError::NoTimes)?;
        let lo = match export.since {
            Some(since) => times
                .iter()
                .position(|&t| t >= since)
                .unwrap_or(times.len()),
            None => 0,
        };
        let hi = match export.until {
            Some(until) => times.iter().rposition(|&t| t < until).map_or(0, |i| i + 1),
            None => times.len(),
        };
        if lo >= hi {
            return Err(ExportError::Nothing);
        }
        Ok((lo, hi))
    }

    /// Every project asked for appears in the journal: its start or an entry.
    fn check_known(&self, selected: &[Label]) -> Result<(), ExportError> {
        let mut state = self.start.clone();
        let mut seen = vec![false; selected.len()];
        let mut known = |p: &str| {
            if let Some(i) = selected.iter().position(|s| s.as_str() == p) {
                seen[i] = true;
            }
        };
        for (key, _) in state.leases() {
            known(&key.project);
        }
        for view in state.reservations() {
            known(&view.project);
        }
        for entry in &self.entries {
            if let Some(p) = state.project_of(entry) {
                known(p);
            }
            state.apply(entry);
        }
        match seen.iter().position(|seen| !seen) {
            Some(i) => Err(ExportError::UnknownProject(selected[i].clone())),
            None => Ok(()),
        }
    }

    /// The entries of `lo..hi` the record shows, with their index in the journal.
    fn kept<'a>(
        &'a self,
        at_start: &State,
        lo: usize,
        hi: usize,
        selected: Option<&[Label]>,
    ) -> Vec<(usize, &'a Entry)> {
        let mut state = at_start.clone();
        let mut kept = Vec::new();
        for (i, entry) in self.entries[lo..hi].iter().enumerate() {
            let project = state.project_of(entry);
            let names_unknown = matches!(
                entry.call,
                Call::Finish { .. }
                    | Call::Persist { .. }
                    | Call::Cancel { .. }
                    | Call::Resolve { .. }
            ) && project.is_none();
            let keep = match selected {
                _ if names_unknown => false,
                Some(selected) => project.is_some_and(|p| selected.iter().any(|s| s == p)),
                None => true,
            };
            if keep {
                kept.push((lo + i, entry));
            }
            state.apply(entry);
        }
        kept
    }
}

/// The record being cut: its projects, its start, and the names it gives leases and
/// reservations.
struct Cut {
    dispatcher: bool,
    projects: Vec<Label>,
    start: Option<Start>,
    handles: HashMap<(Label, u64), String>,
    /// Record ids by the system's ids, and the system's ids in record order.
    ids: HashMap<ReservationId, ReservationId>,
    in_order: Vec<ReservationId>,
}

impl Cut {
    fn new(
        journal: &Journal,
        at_start: &State,
        kept: &[(usize, &Entry)],
        selected: Option<&[Label]>,
    ) -> Result<Cut, ExportError> {
        let shown = |p: &Label| selected.is_none_or(|s| s.contains(p));
        // The lanes and reservations held when the record starts.
        let held: Vec<(&LeaseKey, bool)> = at_start
            .leases()
            .filter(|(k, _)| shown(&k.project))
            .collect();
        let live = |v: &&ReservationView| {
            matches!(
                v.state,
                ReservationState::Queued
                    | ReservationState::Dispatched
                    | ReservationState::Persisting
                    | ReservationState::Unresolved
            )
        };
        let mut reservations: Vec<&ReservationView> = at_start
            .reservations()
            .filter(live)
            .filter(|v| shown(&v.project))
            .collect();
        let mut released: Vec<&LeaseKey> = Vec::new();
        let mut claimed: Vec<(&Label, u64)> = Vec::new();
        for (_, entry) in kept {
            match (&entry.call, &entry.answer) {
                (_, Answer::Claimed(key)) => claimed.push((&key.project, key.generation)),
                (Call::RequestStop { lease } | Call::Release { lease, .. }, _) => {
                    let known = claimed.contains(&(&lease.project, lease.generation))
                        || held.iter().any(|(k, _)| *k == lease)
                        || released.contains(&lease);
                    if !known {
                        released.push(lease);
                    }
                }
                (
                    Call::Finish { reservation, .. }
                    | Call::Persist { reservation, .. }
                    | Call::Cancel { reservation }
                    | Call::Resolve { reservation },
                    _,
                ) => {
                    if let Some(view) = at_start.reservation(*reservation)
                        && !reservations.iter().any(|v| v.id == view.id)
                    {
                        reservations.push(view);
                    }
                }
                _ => {}
            }
        }
        // The projects: those asked for, or every one the record holds or names, in order.
        let mut projects: Vec<Label> = selected.map(<[Label]>::to_vec).unwrap_or_default();
        let mut show = |p: &str| {
            if is_valid_label(p) && !projects.iter().any(|q| q == p) {
                projects.push(Label::new(p).unwrap_or_else(|_| unreachable!("checked")));
            }
        };
        for (key, _) in &held {
            show(&key.project);
        }
        reservations.sort_by_key(|v| v.id);
        for view in &reservations {
            show(&view.project);
        }
        let mut state = at_start.clone();
        for (_, entry) in kept {
            if let Some(p) = state.project_of(entry) {
                show(p);
            }
            state.apply(entry);
        }
        if projects.len() > MAX_PROJECTS {
            return Err(ExportError::TooManyProjects(projects.len()));
        }
        // Handles and ids: the start's first, in the order of `projects` then generation.
        let position = |p: &Label| projects.iter().position(|q| q == p);
        let mut leases: Vec<(&LeaseKey, StartLeaseState)> = held
            .iter()
            .map(|&(k, stop)| {
                let state = if stop {
                    StartLeaseState::StopRequested
                } else {
                    StartLeaseState::Running
                };
                (k, state)
            })
            .chain(released.iter().map(|&k| (k, StartLeaseState::Released)))
            .collect();
        leases.sort_by_key(|(k, _)| (position(&k.project), k.generation));
        let mut cut = Cut {
            dispatcher: !journal.queues.is_empty(),
            projects: Vec::new(),
            start: None,
            handles: HashMap::new(),
            ids: HashMap::new(),
            in_order: Vec::new(),
        };
        let mut start = Start::default();
        for (key, state) in leases {
            let handle = cut.issue_handle(key);
            start.leases.push(StartLease {
                handle,
                project: key.project.clone(),
                run: key.run.clone(),
                state,
            });
        }
        for view in reservations {
            let id = cut.issue_id(view.id);
            start
                .reservations
                .push(ReservationView { id, ..view.clone() });
        }
        cut.projects = projects;
        if !(start.leases.is_empty() && start.reservations.is_empty()) {
            cut.start = Some(start);
        }
        Ok(cut)
    }

    fn issue_handle(&mut self, key: &LeaseKey) -> String {
        let handle = format!("L{}", self.handles.len() + 1);
        self.handles
            .insert((key.project.clone(), key.generation), handle.clone());
        handle
    }

    fn issue_id(&mut self, system: ReservationId) -> ReservationId {
        let id = ReservationId::from_number(self.in_order.len() as u64 + 1)
            .unwrap_or_else(|| unreachable!("numbers start at 1"));
        self.ids.insert(system, id);
        self.in_order.push(system);
        id
    }

    /// The record's steps: each kept entry with its inputs, answer and the snapshots after it.
    fn steps(
        &mut self,
        at_start: &State,
        kept: &[(usize, &Entry)],
        size_limit: bool,
    ) -> Result<Vec<Step>, ExportError> {
        let dispatcher = self.dispatcher;
        let mut state = at_start.clone();
        let mut steps = Vec::with_capacity(kept.len());
        // What the steps' snapshots take written as compactly as JSON allows: a lower bound of
        // the record's size, so a cut too large to read fails here, before it takes memory many
        // times its size (a dispatcher's snapshot lists every reservation the record holds,
        // after every step).
        let mut least_bytes: u64 = 0;
        for &(index, entry) in kept {
            let inconsistent = |message: String| ExportError::Inconsistent {
                entry: index,
                message,
            };
            let input = self.input(&entry.call).map_err(inconsistent)?;
            let result = self.result(entry).map_err(inconsistent)?;
            state.apply(entry);
            let lanes: Vec<LaneView> = self.projects.iter().map(|p| state.lane(p)).collect();
            let reservations = dispatcher.then(|| {
                self.in_order
                    .iter()
                    .filter_map(|system| {
                        let view = state.reservation(*system)?;
                        Some(ReservationView {
                            id: self.ids[system],
                            ..view.clone()
                        })
                    })
                    .collect()
            });
            least_bytes += least_json_bytes(&lanes, reservations.as_deref());
            if size_limit && least_bytes > MAX_RECORD_BYTES {
                return Err(ExportError::TooLarge);
            }
            steps.push(Step {
                op: entry.call.op(),
                at: entry.at,
                actor: entry.actor.as_ref().map(|a| a.as_str().into()),
                input,
                result,
                note: None,
                lanes,
                reservations,
            });
        }
        Ok(steps)
    }

    fn handle(&self, lease: &LeaseKey) -> Result<String, String> {
        self.handles
            .get(&(lease.project.clone(), lease.generation))
            .cloned()
            .ok_or_else(|| {
                format!(
                    "names the lease of {} generation {}, which no entry issued",
                    Quoted(&lease.project),
                    lease.generation
                )
            })
    }

    fn id(&self, system: ReservationId) -> Result<ReservationId, String> {
        self.ids
            .get(&system)
            .copied()
            .ok_or_else(|| format!("names reservation {system}, which no entry enqueued"))
    }

    fn view(&self, view: &ReservationView) -> Result<ReservationView, String> {
        Ok(ReservationView {
            id: self.id(view.id)?,
            ..view.clone()
        })
    }

    fn input(&self, call: &Call) -> Result<Input, String> {
        let text = |s: &str| Some(s.chars().take(MAX_INPUT_CHARS).collect::<String>().into());
        let mut input = Input::default();
        match call {
            Call::Claim { project, run } => {
                input.project = text(project);
                input.run = text(run);
            }
            Call::RequestStop { lease } => input.lease = Some(self.handle(lease)?.into()),
            Call::Release { lease, outcome } => {
                input.lease = Some(self.handle(lease)?.into());
                input.outcome = text(outcome.as_str());
            }
            Call::Enqueue {
                queue,
                project,
                run,
            } => {
                input.queue = text(queue);
                input.project = text(project);
                input.run = text(run);
            }
            Call::Dispatch { queue } => input.queue = text(queue),
            Call::Finish {
                reservation,
                outcome,
            } => {
                input.reservation = Some(self.id(*reservation)?.to_string().into());
                input.outcome = text(outcome.as_str());
            }
            Call::Persist { reservation, saved } => {
                input.reservation = Some(self.id(*reservation)?.to_string().into());
                input.saved = Some(*saved);
            }
            Call::Cancel { reservation } | Call::Resolve { reservation } => {
                input.reservation = Some(self.id(*reservation)?.to_string().into());
            }
        }
        Ok(input)
    }

    fn result(&mut self, entry: &Entry) -> Result<StepResult, String> {
        Ok(match &entry.answer {
            Answer::Claimed(key) => {
                let handle = self.issue_handle(key);
                StepResult::Lease(LeaseRecord {
                    handle: handle.into(),
                    project: key.project.clone(),
                    run: key.run.clone(),
                })
            }
            Answer::View(view) => StepResult::View(view.clone()),
            Answer::Receipt(receipt) => StepResult::Receipt(receipt.clone()),
            Answer::Reservation(view) => {
                if matches!(entry.call, Call::Enqueue { .. }) {
                    self.issue_id(view.id);
                }
                StepResult::Reservation(Box::new(self.view(view)?))
            }
            Answer::Dispatched(view) => StepResult::Dispatched(Box::new(self.view(view)?)),
            Answer::Nothing(nothing) => StepResult::Nothing(nothing.clone()),
            Answer::Persisting(view) => StepResult::Persisting(Box::new(self.view(view)?)),
            Answer::Settled(settled) => {
                let mut settled = settled.clone();
                settled.reservation = self.id(settled.reservation)?;
                StepResult::Settled(Box::new(settled))
            }
            Answer::Refused(error) => StepResult::Error(*error),
        })
    }
}

/// The fewest bytes `lanes` and `reservations` take as JSON: each view written compactly, its
/// labels unescaped (the label rule allows no character JSON escapes), its optional fields left
/// out, a reservation's id and state at their shortest, no commas between them.
fn least_json_bytes(lanes: &[LaneView], reservations: Option<&[ReservationView]>) -> u64 {
    // `{"project":"","busy":false}`
    let lanes = lanes.iter().map(|v| 27 + v.project.len());
    // `{"id":"R1","queue":"","project":"","run":"","state":"done"}`
    let reservations = reservations
        .unwrap_or_default()
        .iter()
        .map(|v| 59 + v.queue.as_str().len() + v.project.as_str().len() + v.run.as_str().len());
    lanes.chain(reservations).sum::<usize>() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Outcome;
    use crate::dispatch::ReservationState as S;

    #[test]
    fn the_least_bytes_counted_are_never_more_than_json_writes() {
        let a = Label::new("a").unwrap();
        let mut views = Vec::new();
        for state in [
            S::Queued,
            S::Dispatched,
            S::Persisting,
            S::Done,
            S::Cancelled,
        ] {
            for outcome in [None, Some(Outcome::Failed)] {
                views.push(ReservationView {
                    id: ReservationId::from_number(1).unwrap(),
                    queue: a.clone(),
                    project: a.clone(),
                    run: a.clone(),
                    state,
                    outcome,
                });
            }
        }
        views.extend([S::Unresolved, S::Resolved].map(|state| ReservationView {
            id: ReservationId::from_number(1).unwrap(),
            queue: a.clone(),
            project: a.clone(),
            run: a.clone(),
            state,
            outcome: None,
        }));
        let lanes = [LaneView::idle("a"), LaneView::idle("a")];
        for view in &views {
            let lane = &lanes[..1];
            let counted = least_json_bytes(lane, Some(std::slice::from_ref(view)));
            let written = serde_json::to_string(&lane[0]).unwrap().len()
                + serde_json::to_string(view).unwrap().len();
            assert!(counted <= written as u64, "{counted} > {written}: {view:?}");
        }
        // Tight for the shortest: two idle lanes and a done reservation, without commas.
        let done = &views[6];
        assert_eq!(done.state, S::Done);
        let written = 2 * serde_json::to_string(&lanes[0]).unwrap().len()
            + serde_json::to_string(done).unwrap().len();
        assert_eq!(
            least_json_bytes(&lanes, Some(std::slice::from_ref(done))),
            written as u64
        );
    }
}
