//! Replaying a record on the real core: every saved result and snapshot compared.

use std::fmt;

use crate::dispatch::ReservationView;
use crate::{LaneView, ProjectLanes};

use super::engine::Engine;
use super::error::RecordError;
use super::format::{Record, StepResult};
use crate::op::Op;

/// Where a replay first disagreed with the saved record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReplayMismatch {
    /// The record itself breaks the format; nothing was replayed.
    Invalid(RecordError),
    /// A step returned something other than its saved result.
    Result {
        /// Index of the step in `steps`.
        step: usize,
        /// The step's operation.
        op: Op,
        /// What the record says.
        saved: Box<StepResult>,
        /// What the core returned.
        actual: Box<StepResult>,
    },
    /// After a step, a project's lane differs from the saved snapshot.
    Lanes {
        /// Index of the step in `steps`, or `None` for `final_lanes`.
        step: Option<usize>,
        /// The step's operation (`None` for `final_lanes`).
        op: Option<Op>,
        /// What the record says.
        saved: Box<LaneView>,
        /// What the core shows.
        actual: Box<LaneView>,
    },
    /// After a step, a reservation differs from the saved snapshot.
    Reservations {
        /// Index of the step in `steps`.
        step: usize,
        /// The step's operation.
        op: Op,
        /// What the record says.
        saved: Box<ReservationView>,
        /// What the dispatcher shows.
        actual: Box<ReservationView>,
    },
}

impl fmt::Display for ReplayMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayMismatch::Invalid(e) => write!(f, "invalid record: {e}"),
            ReplayMismatch::Result {
                step,
                op,
                saved,
                actual,
            } => write!(
                f,
                "step {step} ({op}): saved result {saved:?}, actual result {actual:?}"
            ),
            ReplayMismatch::Lanes {
                step: Some(step),
                op: Some(op),
                saved,
                actual,
            } => write!(
                f,
                "step {step} ({op}): saved lane {saved:?}, actual lane {actual:?}"
            ),
            ReplayMismatch::Lanes { saved, actual, .. } => {
                write!(f, "final lanes: saved {saved:?}, actual {actual:?}")
            }
            ReplayMismatch::Reservations {
                step,
                op,
                saved,
                actual,
            } => write!(
                f,
                "step {step} ({op}): saved reservation {saved:?}, actual {actual:?}"
            ),
        }
    }
}

impl std::error::Error for ReplayMismatch {}

/// Runs the record's steps on fresh lanes (or a fresh dispatcher with the record's queues), set to
/// the record's `start` if it has one, and compares every saved result and every snapshot; the
/// first difference is returned. Times (`at`) and callers (`actor`) are never compared.
///
/// ```
/// use project_lanes::record::{replay, Record};
/// # use project_lanes::record::{Recorder, Text};
/// # let text = |s: &str| Text { en: s.into(), ja: s.into() };
/// # let mut rec = Recorder::new("busy-project", text("A busy project"), text("Two claims."), &["docs", "site"], "site").unwrap();
/// # rec.claim("docs", "nightly-101");
/// # rec.claim("docs", "nightly-102");
/// # let record: Record = rec.finish().unwrap();
/// // `record` was read from a file (such as records/busy-project.json) or made by a `Recorder`
/// assert_eq!(replay(&record), Ok(()));
/// ```
pub fn replay(record: &Record) -> Result<(), ReplayMismatch> {
    let mut replay = Replay::new(record)?;
    while !replay.run(record, usize::MAX)? {}
    Ok(())
}

/// A [`replay`] in progress, a few steps at a time, for callers that must not block for long
/// (the viewer replays a 100,000-step record between the browser's frames).
///
/// ```
/// use project_lanes::record::{Record, Replay};
/// # use project_lanes::record::{Recorder, Text};
/// # let text = |s: &str| Text { en: s.into(), ja: s.into() };
/// # let mut rec = Recorder::new("busy-project", text("A busy project"), text("Two claims."), &["docs", "site"], "site").unwrap();
/// # rec.claim("docs", "nightly-101");
/// # rec.claim("docs", "nightly-102");
/// # let record: Record = rec.finish().unwrap();
/// let mut replay = Replay::new(&record)?; // checks the record first
/// while !replay.run(&record, 2)? {
///     println!("{} of {} steps replayed", replay.position(), record.steps.len());
/// }
/// # Ok::<(), project_lanes::record::ReplayMismatch>(())
/// ```
pub struct Replay {
    engine: Engine,
    next: usize,
}

impl Replay {
    /// Checks `record` ([`Record::check`]) and prepares fresh lanes or a fresh dispatcher,
    /// holding what the record's `start` holds.
    pub fn new(record: &Record) -> Result<Replay, ReplayMismatch> {
        record.check().map_err(ReplayMismatch::Invalid)?;
        let engine = Engine::new(&record.queues, record.start.as_ref()).map_err(|e| {
            let at = if record.start.is_some() {
                "start"
            } else {
                "queues"
            };
            ReplayMismatch::Invalid(RecordError::invalid(at, e.to_string()))
        })?;
        Ok(Replay { engine, next: 0 })
    }

    /// How many steps have been replayed and matched.
    pub fn position(&self) -> usize {
        self.next
    }

    /// Replays up to `steps` more steps of `record` (the record given to [`Replay::new`]);
    /// `Ok(true)` once every step and the final lanes matched.
    pub fn run(&mut self, record: &Record, steps: usize) -> Result<bool, ReplayMismatch> {
        let end = self.next.saturating_add(steps).min(record.steps.len());
        let engine = &mut self.engine;
        for (i, step) in record.steps.iter().enumerate().take(end).skip(self.next) {
            let actual = engine.run(step);
            if actual != step.result {
                return Err(ReplayMismatch::Result {
                    step: i,
                    op: step.op,
                    saved: Box::new(step.result.clone()),
                    actual: Box::new(actual),
                });
            }
            compare_lanes(engine.lanes(), &step.lanes, Some((i, step.op)))?;
            if let (Some(saved), Some(actual)) = (&step.reservations, engine.reservations())
                && let Some((s, a)) = saved.iter().zip(&actual).find(|(s, a)| s != a)
            {
                return Err(ReplayMismatch::Reservations {
                    step: i,
                    op: step.op,
                    saved: Box::new(s.clone()),
                    actual: Box::new(a.clone()),
                });
            }
            self.next = i + 1;
        }
        if self.next < record.steps.len() {
            return Ok(false);
        }
        compare_lanes(engine.lanes(), &record.final_lanes, None)?;
        Ok(true)
    }
}

fn compare_lanes(
    lanes: &ProjectLanes,
    saved: &[LaneView],
    at: Option<(usize, Op)>,
) -> Result<(), ReplayMismatch> {
    for view in saved {
        let actual = lanes
            .view(&view.project)
            .unwrap_or_else(|_| LaneView::idle(&view.project));
        if actual != *view {
            return Err(ReplayMismatch::Lanes {
                step: at.map(|(i, _)| i),
                op: at.map(|(_, op)| op),
                saved: Box::new(view.clone()),
                actual: Box::new(actual),
            });
        }
    }
    Ok(())
}
