//! Building a record by running each operation on the real core.

use crate::dispatch::DispatchError;
use crate::{Label, LaneError, LaneView};

use super::engine::Engine;
use super::error::RecordError;
use super::format::{
    FORMAT, Input, Origin, Record, Start, Step, StepResult, Text, Untouched, VERSION, VERSION_2,
};
use crate::op::{Field, Op};
use crate::time::Timestamp;

/// Builds a record by running each operation on the real core as it is added: lanes for
/// [`Recorder::new`], a dispatcher for [`Recorder::dispatcher`].
///
/// Results and snapshots are never typed in: they are what the core returned. The record is of
/// version 1 unless a version 2 field is set ([`starting_from`](Self::starting_from),
/// [`without_untouched_project`](Self::without_untouched_project), [`origin`](Self::origin),
/// [`at`](Self::at), [`actor`](Self::actor)).
///
/// ```
/// use project_lanes::record::{Recorder, Text, replay};
///
/// let text = |en: &str, ja: &str| Text { en: en.into(), ja: ja.into() };
/// let mut rec = Recorder::new(
///     "tiny",
///     text("Tiny", "小さな例"),
///     text("One claim.", "取得を一度だけ行います。"),
///     &["docs", "site"],
///     "site",
/// )?;
/// rec.claim("docs", "build-1").note(text("Docs is taken.", "docs を取得しました。"));
/// rec.release("L1", "succeeded");
/// let record = rec.finish()?;
/// assert_eq!(record.steps[0].result.code(), "ok");
/// assert_eq!(replay(&record), Ok(()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Recorder {
    record: Record,
    engine: Engine,
}

impl Recorder {
    /// Starts an empty record of the lanes; labels must follow the label rule.
    pub fn new(
        id: &str,
        title: Text,
        summary: Text,
        projects: &[&str],
        untouched_project: &str,
    ) -> Result<Recorder, DispatchError> {
        Recorder::start(id, title, summary, projects, untouched_project, &[])
    }

    /// Starts an empty record of a dispatcher with these queues.
    pub fn dispatcher(
        id: &str,
        title: Text,
        summary: Text,
        projects: &[&str],
        untouched_project: &str,
        queues: &[&str],
    ) -> Result<Recorder, DispatchError> {
        if queues.is_empty() {
            return Err(DispatchError::UnknownQueue);
        }
        Recorder::start(id, title, summary, projects, untouched_project, queues)
    }

    fn start(
        id: &str,
        title: Text,
        summary: Text,
        projects: &[&str],
        untouched_project: &str,
        queues: &[&str],
    ) -> Result<Recorder, DispatchError> {
        let labels = |names: &[&str]| -> Result<Vec<Label>, LaneError> {
            names.iter().map(|p| Label::new(p)).collect()
        };
        let queues = labels(queues)?;
        Ok(Recorder {
            engine: Engine::new(&queues, None)?,
            record: Record {
                format: FORMAT.into(),
                version: VERSION,
                id: Label::new(id)?,
                title,
                summary,
                work_executed_here: false,
                origin: None,
                projects: labels(projects)?,
                untouched_project: Untouched::new(Label::new(untouched_project)?),
                queues,
                start: None,
                steps: Vec::new(),
                final_lanes: Vec::new(),
            },
        })
    }

    /// Version 2: the record starts from `start`, what was held before its first step; the
    /// steps run on lanes or a dispatcher holding it. Refused once a step was added, or for a
    /// starting state the core cannot be in (the record's check names the rule at
    /// [`finish`](Self::finish)).
    pub fn starting_from(mut self, start: Start) -> Result<Recorder, RecordError> {
        if !self.record.steps.is_empty() {
            return Err(RecordError::invalid(
                "start",
                "a record's start is set before its first step",
            ));
        }
        self.engine = Engine::new(&self.record.queues, Some(&start))
            .map_err(|e| RecordError::invalid("start", e.to_string()))?;
        self.record.start = Some(start);
        self.record.version = VERSION_2;
        Ok(self)
    }

    /// Version 2: the record names no untouched project.
    pub fn without_untouched_project(mut self) -> Recorder {
        self.record.untouched_project = Untouched::none();
        self.record.version = VERSION_2;
        self
    }

    /// Version 2: where the record came from.
    pub fn origin(&mut self, origin: Origin) -> &mut Recorder {
        self.record.origin = Some(origin);
        self.record.version = VERSION_2;
        self
    }

    /// Version 2: when the last step ran.
    pub fn at(&mut self, at: Timestamp) -> &mut Recorder {
        if let Some(step) = self.record.steps.last_mut() {
            step.at = Some(at);
            self.record.version = VERSION_2;
        }
        self
    }

    /// Version 2: who called the last step.
    pub fn actor(&mut self, actor: &str) -> &mut Recorder {
        if let Some(step) = self.record.steps.last_mut() {
            step.actor = Some(actor.into());
            self.record.version = VERSION_2;
        }
        self
    }

    /// Runs `op` with `input` on the core and appends the step with its result and snapshots.
    pub fn step(&mut self, op: Op, input: Input) -> &mut Recorder {
        let mut step = Step {
            op,
            at: None,
            actor: None,
            input,
            result: StepResult::Error(DispatchError::UnknownReservation),
            note: None,
            lanes: Vec::new(),
            reservations: None,
        };
        step.result = self.engine.run(&step);
        step.lanes = self.snapshot();
        step.reservations = self.engine.reservations().map(Vec::into_boxed_slice);
        self.record.steps.push(step);
        self
    }

    fn input(fields: &[(Field, &str)]) -> Input {
        let mut input = Input::default();
        for (field, value) in fields {
            let slot = match field {
                Field::Project => &mut input.project,
                Field::Run => &mut input.run,
                Field::Lease => &mut input.lease,
                Field::Outcome => &mut input.outcome,
                Field::Queue => &mut input.queue,
                Field::Reservation => &mut input.reservation,
                Field::Saved => continue,
            };
            *slot = Some((*value).into());
        }
        input
    }

    /// Adds a `claim` step.
    pub fn claim(&mut self, project: &str, run: &str) -> &mut Recorder {
        let input = Recorder::input(&[(Field::Project, project), (Field::Run, run)]);
        self.step(Op::Claim, input)
    }

    /// Adds a `request_stop` step for the lease with handle `lease` (e.g. `"L1"`).
    pub fn request_stop(&mut self, lease: &str) -> &mut Recorder {
        self.step(Op::RequestStop, Recorder::input(&[(Field::Lease, lease)]))
    }

    /// Adds a `release` step; `outcome` is passed as text, exactly as a caller would.
    pub fn release(&mut self, lease: &str, outcome: &str) -> &mut Recorder {
        let input = Recorder::input(&[(Field::Lease, lease), (Field::Outcome, outcome)]);
        self.step(Op::Release, input)
    }

    /// Adds a `view` step.
    pub fn view(&mut self, project: &str) -> &mut Recorder {
        self.step(Op::View, Recorder::input(&[(Field::Project, project)]))
    }

    /// Adds an `enqueue` step.
    pub fn enqueue(&mut self, queue: &str, project: &str, run: &str) -> &mut Recorder {
        let input = Recorder::input(&[
            (Field::Queue, queue),
            (Field::Project, project),
            (Field::Run, run),
        ]);
        self.step(Op::Enqueue, input)
    }

    /// Adds a `dispatch` step.
    pub fn dispatch(&mut self, queue: &str) -> &mut Recorder {
        self.step(Op::Dispatch, Recorder::input(&[(Field::Queue, queue)]))
    }

    /// Adds a `finish` step for reservation `id` (e.g. `"R1"`).
    pub fn finish_work(&mut self, id: &str, outcome: &str) -> &mut Recorder {
        let input = Recorder::input(&[(Field::Reservation, id), (Field::Outcome, outcome)]);
        self.step(Op::Finish, input)
    }

    /// Adds a `persist` step: saving the final state of `id` succeeded (`saved`) or failed.
    pub fn persist(&mut self, id: &str, saved: bool) -> &mut Recorder {
        let mut input = Recorder::input(&[(Field::Reservation, id)]);
        input.saved = Some(saved);
        self.step(Op::Persist, input)
    }

    /// Adds a `cancel` step.
    pub fn cancel(&mut self, id: &str) -> &mut Recorder {
        self.step(Op::Cancel, Recorder::input(&[(Field::Reservation, id)]))
    }

    /// Adds a `resolve` step.
    pub fn resolve(&mut self, id: &str) -> &mut Recorder {
        self.step(Op::Resolve, Recorder::input(&[(Field::Reservation, id)]))
    }

    /// The step added last, with its result and snapshots (`None` before the first step).
    pub fn last_step(&self) -> Option<&Step> {
        self.record.steps.last()
    }

    /// Attaches a note to the last step.
    pub fn note(&mut self, note: Text) -> &mut Recorder {
        if let Some(step) = self.record.steps.last_mut() {
            step.note = Some(Box::new(note));
        }
        self
    }

    /// Takes the final snapshot and returns the record once it passes [`Record::check`].
    pub fn finish(mut self) -> Result<Record, RecordError> {
        self.record.final_lanes = self.snapshot();
        self.record.check()?;
        Ok(self.record)
    }

    fn snapshot(&self) -> Vec<LaneView> {
        let lanes = self.engine.lanes();
        self.record
            .projects
            .iter()
            .map(|p| lanes.view(p).unwrap_or_else(|_| LaneView::idle(p)))
            .collect()
    }
}
