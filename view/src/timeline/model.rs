//! The timeline's model: a pure function of a [`Record`] that reads the snapshots the record
//! saved after every step (`lanes`, `reservations`) and merges consecutive steps of one state
//! into [`Segment`]s. It re-runs nothing. A 10,000-step record whose runs hold their lanes for a
//! while becomes a few hundred segments, not 10,000 cells.
//!
//! A version 3 record, gathered (`record::stream::Gather`), has sparse snapshots: a step shows
//! only the lane and the reservation it concerns, and every other one stays as it was. Its rows
//! start from the record's start, change only where a step shows them, and the model costs the
//! steps plus the changes, never steps × rows. A record of more than [`MAX_RESERVATION_ROWS`]
//! reservations draws no row per reservation (its lanes show who held each project).

use hashbrown::HashMap;

use project_lanes::LaneState;
use project_lanes::dispatch::ReservationState;
use project_lanes::record::{Record, StepResult};

use super::geometry::time_edges;
use crate::i18n::{Lang, Msg, Term, text};

/// What one step of one row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// A lane nobody holds.
    Idle,
    /// A lane held by a run.
    Running,
    /// A lane held by a run asked to stop (still occupied).
    StopRequested,
    /// A reservation's state.
    Reservation(ReservationState),
}

impl State {
    /// The `data-state` value: `idle`, `running`, `stop_requested` or a reservation state.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Running => LaneState::Running.as_str(),
            State::StopRequested => LaneState::StopRequested.as_str(),
            State::Reservation(state) => state.as_str(),
        }
    }

    /// The state's name in `lang`.
    pub fn name(self, lang: Lang) -> &'static str {
        match self {
            State::Idle => text(lang, Msg::Idle),
            State::Running => text(lang, Term::State(LaneState::Running)),
            State::StopRequested => text(lang, Term::State(LaneState::StopRequested)),
            State::Reservation(state) => text(lang, Term::Reservation(state)),
        }
    }
}

/// Consecutive steps of one row in one state (and, for lanes, with one holder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment<'a> {
    /// What the row shows in these steps.
    pub state: State,
    /// First step, from 0.
    pub from: usize,
    /// Last step, inclusive.
    pub to: usize,
    /// The run holding the lane (lane rows only).
    pub run: Option<&'a str>,
}

/// Which kind of thing a row follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    /// A project's lane.
    Lane,
    /// One reservation.
    Reservation,
}

/// One row: a project's lane or one reservation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row<'a> {
    /// What the row follows.
    pub kind: RowKind,
    /// The project, or the reservation id (`R1`).
    pub id: String,
    /// The lane's project, or the reservation's.
    pub project: &'a str,
    /// The reservation's queue.
    pub queue: Option<&'a str>,
    /// The record's untouched project.
    pub untouched: bool,
    /// In step order. A step whose snapshot lacks this row has no segment (a gap).
    pub segments: Vec<Segment<'a>>,
}

/// Rows under one heading: the lanes, or one queue's reservations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group<'a> {
    /// `None` for the lanes.
    pub queue: Option<&'a str>,
    /// Its rows, top to bottom.
    pub rows: Vec<Row<'a>>,
}

/// The timeline of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline<'a> {
    /// The record's steps.
    pub steps: usize,
    /// The lanes first (in `projects` order), then one group per queue (in `queues` order) with
    /// its reservations in id order.
    pub groups: Vec<Group<'a>>,
    /// Refused steps and their error codes.
    pub refused: Vec<(usize, &'static str)>,
    /// The steps' places on a time axis ([`time_edges`]), if every step has a time.
    pub edges: Option<Vec<u64>>,
}

impl Timeline<'_> {
    /// Every row, group after group.
    pub fn rows(&self) -> impl Iterator<Item = &Row<'_>> {
        self.groups.iter().flat_map(|g| &g.rows)
    }
}

fn extend<'a>(segments: &mut Vec<Segment<'a>>, state: State, run: Option<&'a str>, step: usize) {
    if let Some(last) = segments.last_mut()
        && last.state == state
        && last.run == run
        && last.to + 1 == step
    {
        last.to = step;
        return;
    }
    segments.push(Segment {
        state,
        from: step,
        to: step,
        run,
    });
}

/// Most reservations a version 3 record's timeline gives a row each.
pub const MAX_RESERVATION_ROWS: usize = 64;

/// Builds the timeline from the snapshots the record saved after each step.
pub fn timeline(record: &Record) -> Timeline<'_> {
    let mut model = if record.version == project_lanes::record::VERSION_3 {
        sparse(record)
    } else {
        dense(record)
    };
    model.edges = time_edges(record);
    model
}

/// The timeline of a record that saved every lane and reservation after every step (versions
/// 1 and 2).
fn dense(record: &Record) -> Timeline<'_> {
    let steps = record.steps.len();
    let mut lanes: Vec<Row> = record
        .projects
        .iter()
        .map(|project| Row {
            kind: RowKind::Lane,
            id: project.to_string(),
            project,
            queue: None,
            untouched: record.untouched_project == *project,
            segments: Vec::new(),
        })
        .collect();
    let mut reservations: Vec<(u64, Row)> = Vec::new();
    let mut refused = Vec::new();
    for (i, step) in record.steps.iter().enumerate() {
        if let StepResult::Error(error) = &step.result {
            refused.push((i, error.code()));
        }
        for (p, row) in lanes.iter_mut().enumerate() {
            // Snapshots follow `projects`; a hand-written record may not, so look further.
            let view = step
                .lanes
                .get(p)
                .filter(|v| *v.project == *row.project)
                .or_else(|| step.lanes.iter().find(|v| *v.project == *row.project));
            let Some(view) = view else { continue };
            let state = match view.state {
                Some(LaneState::Running) => State::Running,
                Some(LaneState::StopRequested) => State::StopRequested,
                None => State::Idle,
            };
            extend(&mut row.segments, state, view.run.as_deref(), i);
        }
        for (k, view) in step.reservations.iter().flatten().enumerate() {
            let number = view.id.number();
            // Reservations are listed in id order, so the k-th is usually the k-th row.
            let at = match reservations.get(k) {
                Some((n, _)) if *n == number => Some(k),
                _ => reservations.iter().position(|(n, _)| *n == number),
            };
            let at = at.unwrap_or_else(|| {
                // Kept in id order by inserting in place (no sort: it costs kilobytes of wasm).
                let at = reservations.partition_point(|(n, _)| *n < number);
                let row = Row {
                    kind: RowKind::Reservation,
                    id: view.id.to_string(),
                    project: &view.project,
                    queue: Some(&view.queue),
                    untouched: false,
                    segments: Vec::new(),
                };
                reservations.insert(at, (number, row));
                at
            });
            if let Some((_, row)) = reservations.get_mut(at) {
                extend(&mut row.segments, State::Reservation(view.state), None, i);
            }
        }
    }
    let mut groups = vec![Group {
        queue: None,
        rows: lanes,
    }];
    for queue in &record.queues {
        groups.push(Group {
            queue: Some(queue),
            rows: Vec::new(),
        });
    }
    for (_, row) in reservations {
        let at = groups
            .iter()
            .position(|g| g.queue.is_some() && g.queue == row.queue);
        match at.and_then(|at| groups.get_mut(at)) {
            Some(group) => group.rows.push(row),
            // A queue the record does not list: its own group at the end.
            None => groups.push(Group {
                queue: row.queue,
                rows: vec![row],
            }),
        }
    }
    Timeline {
        steps,
        groups,
        refused,
        edges: None,
    }
}

/// A row of a sparse record as it stands: its finished segments, and the state since `from`.
struct Open<'a> {
    row: Row<'a>,
    now: Option<(State, Option<&'a str>, usize)>,
}

impl<'a> Open<'a> {
    fn new(row: Row<'a>) -> Open<'a> {
        Open { row, now: None }
    }

    /// The row is `state` (held by `run`) from step `at` on.
    fn set(&mut self, state: State, run: Option<&'a str>, at: usize) {
        match self.now {
            Some((s, r, _)) if s == state && r == run => {}
            Some((s, r, from)) => {
                if at > from {
                    self.row.segments.push(Segment {
                        state: s,
                        from,
                        to: at - 1,
                        run: r,
                    });
                }
                self.now = Some((state, run, at));
            }
            None => self.now = Some((state, run, at)),
        }
    }

    /// The row, its last state lasting to the last step.
    fn close(mut self, steps: usize) -> Row<'a> {
        if let Some((state, run, from)) = self.now
            && steps > from
        {
            self.row.segments.push(Segment {
                state,
                from,
                to: steps - 1,
                run,
            });
        }
        self.row
    }
}

fn lane_state(view: &project_lanes::LaneView) -> State {
    match view.state {
        Some(LaneState::Running) => State::Running,
        Some(LaneState::StopRequested) => State::StopRequested,
        None => State::Idle,
    }
}

/// The timeline of a record whose snapshots are sparse (version 3).
fn sparse(record: &Record) -> Timeline<'_> {
    let steps = record.steps.len();
    let mut lanes: Vec<Open> = record
        .projects
        .iter()
        .map(|project| {
            let mut open = Open::new(Row {
                kind: RowKind::Lane,
                id: project.to_string(),
                project,
                queue: None,
                untouched: false,
                segments: Vec::new(),
            });
            open.set(State::Idle, None, 0);
            open
        })
        .collect();
    // Each project's row, found in constant time: a record may have thousands of projects.
    let lane_rows: HashMap<&str, usize> = record
        .projects
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), i))
        .collect();
    let lane = |project: &str| lane_rows.get(project).copied();
    let start = record.start.as_ref();
    for lease in start.map_or(&[][..], |s| s.leases.as_slice()) {
        let state = match lease.state {
            project_lanes::record::StartLeaseState::Running => State::Running,
            project_lanes::record::StartLeaseState::StopRequested => State::StopRequested,
            project_lanes::record::StartLeaseState::Released => continue,
        };
        if let Some(i) = lane(&lease.project) {
            lanes[i].set(state, Some(&lease.run), 0);
        }
    }
    let rows = sparse_reservations(record) <= MAX_RESERVATION_ROWS;
    let mut reservations: Vec<Open> = Vec::new();
    for view in start.map_or(&[][..], |s| s.reservations.as_slice()) {
        if view.state.holds_lane()
            && let Some(i) = lane(&view.project)
        {
            lanes[i].set(State::Running, Some(&view.run), 0);
        }
        if rows {
            let mut open = Open::new(reservation_row(view));
            open.set(State::Reservation(view.state), None, 0);
            reservations.push(open);
        }
    }
    let mut refused = Vec::new();
    for (i, step) in record.steps.iter().enumerate() {
        if let StepResult::Error(error) = &step.result {
            refused.push((i, error.code()));
        }
        for view in &step.lanes {
            if let Some(at) = lane(&view.project) {
                lanes[at].set(lane_state(view), view.run.as_deref(), i);
            }
        }
        if !rows {
            continue;
        }
        for view in step.reservations.iter().flatten() {
            let at = match reservations
                .iter()
                .position(|o| o.row.id == view.id.to_string())
            {
                Some(at) => at,
                None => {
                    reservations.push(Open::new(reservation_row(view)));
                    reservations.len() - 1
                }
            };
            reservations[at].set(State::Reservation(view.state), None, i);
        }
    }
    let mut groups = vec![Group {
        queue: None,
        rows: lanes.into_iter().map(|o| o.close(steps)).collect(),
    }];
    for queue in &record.queues {
        groups.push(Group {
            queue: Some(queue),
            rows: Vec::new(),
        });
    }
    for open in reservations {
        let row = open.close(steps);
        if let Some(group) = groups
            .iter_mut()
            .find(|g| g.queue.is_some() && g.queue == row.queue)
        {
            group.rows.push(row);
        }
    }
    if !rows {
        groups.truncate(1);
    }
    Timeline {
        steps,
        groups,
        refused,
        edges: None,
    }
}

/// The reservations of a version 3 record: those at its start, and every one enqueued.
pub(super) fn sparse_reservations(record: &Record) -> usize {
    let start = record.start.as_ref().map_or(0, |s| s.reservations.len());
    start
        + record
            .steps
            .iter()
            .filter(|s| {
                s.op == project_lanes::record::Op::Enqueue
                    && !matches!(s.result, StepResult::Error(_))
            })
            .count()
}

fn reservation_row(view: &project_lanes::dispatch::ReservationView) -> Row<'_> {
    Row {
        kind: RowKind::Reservation,
        id: view.id.to_string(),
        project: &view.project,
        queue: Some(&view.queue),
        untouched: false,
        segments: Vec::new(),
    }
}

/// Records for the unit tests.
#[cfg(test)]
pub(crate) mod fixtures {
    use project_lanes::record::{Record, Recorder, Text};

    pub fn text(s: &str) -> Text {
        Text {
            en: s.into(),
            ja: s.into(),
        }
    }

    /// Two claims of docs (the second refused), a stop request, a release, a third claim.
    pub fn stop_record() -> Record {
        let mut rec = Recorder::new("t", text("t"), text("t"), &["docs", "site"], "site").unwrap();
        rec.claim("docs", "run-1");
        rec.claim("docs", "run-2");
        rec.request_stop("L1");
        rec.release("L1", "cancelled");
        rec.claim("docs", "run-3");
        rec.finish().unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::{stop_record, text};
    use super::*;
    use project_lanes::record::Recorder;

    fn spans(row: &Row) -> Vec<(&'static str, usize, usize)> {
        row.segments
            .iter()
            .map(|s| (s.state.as_str(), s.from, s.to))
            .collect()
    }

    #[test]
    fn lane_rows_merge_steps_of_one_state_and_one_run() {
        let record = stop_record();
        let t = timeline(&record);
        assert_eq!(t.steps, 5);
        assert_eq!(t.groups.len(), 1);
        let rows: Vec<_> = t.rows().collect();
        assert_eq!(rows[0].id, "docs");
        assert_eq!(
            spans(rows[0]),
            [
                ("running", 0, 1),
                ("stop_requested", 2, 2),
                ("idle", 3, 3),
                ("running", 4, 4)
            ]
        );
        assert_eq!(rows[0].segments[0].run, Some("run-1"));
        assert_eq!(rows[0].segments[3].run, Some("run-3"));
        assert!(rows[1].untouched);
        assert_eq!(spans(rows[1]), [("idle", 0, 4)]);
        assert_eq!(t.refused, [(1, "PROJECT_BUSY")]);
    }

    #[test]
    fn reservation_rows_start_where_they_were_enqueued_grouped_by_queue() {
        let mut rec = Recorder::dispatcher(
            "d",
            text("d"),
            text("d"),
            &["docs", "site", "billing"],
            "billing",
            &["general", "delivery"],
        )
        .unwrap();
        rec.enqueue("delivery", "docs", "cafe-1");
        rec.enqueue("general", "docs", "gen-1");
        rec.dispatch("general");
        rec.dispatch("delivery");
        rec.finish_work("R2", "succeeded");
        rec.persist("R2", true);
        rec.dispatch("delivery");
        rec.cancel("R1");
        let record = rec.finish().unwrap();
        let t = timeline(&record);
        let groups: Vec<_> = t.groups.iter().map(|g| g.queue).collect();
        assert_eq!(groups, [None, Some("general"), Some("delivery")]);
        let general = &t.groups[1].rows;
        assert_eq!(general[0].id, "R2");
        assert_eq!(
            spans(&general[0]),
            [
                ("queued", 1, 1),
                ("dispatched", 2, 3),
                ("persisting", 4, 4),
                ("done", 5, 7)
            ]
        );
        let delivery = &t.groups[2].rows;
        assert_eq!(delivery[0].id, "R1");
        assert_eq!(
            spans(&delivery[0]),
            [("queued", 0, 5), ("dispatched", 6, 7)]
        );
        // The project stays busy while R2 is saving, and R1 waits until it is released.
        let docs = &t.groups[0].rows[0];
        assert_eq!(
            spans(docs),
            [
                ("idle", 0, 1),
                ("running", 2, 4),
                ("idle", 5, 5),
                ("running", 6, 7)
            ]
        );
        assert_eq!(t.refused, [(7, "NOT_QUEUED")]);
    }

    #[test]
    fn a_step_without_a_snapshot_leaves_a_gap_instead_of_inventing_a_state() {
        let mut record = stop_record();
        record.steps[2].lanes.retain(|v| &*v.project != "docs");
        let t = timeline(&record);
        let docs = t.rows().next().unwrap();
        assert_eq!(
            spans(docs),
            [("running", 0, 1), ("idle", 3, 3), ("running", 4, 4)]
        );
    }
}
