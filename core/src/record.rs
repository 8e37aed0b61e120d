//! Saved example records: what the lanes did, step by step, in a versioned format.
//!
//! A record is produced by running a scenario on the real core and saving every input and result
//! (see the `lane-records` generator). [`replay`] runs a record's steps on a fresh
//! [`ProjectLanes`] and compares every saved result, so anyone can check a record, including one
//! written by hand. The format is documented in `records/README.md` and `records/schema.json`.
//!
//! This module holds the types and their checks; [`json`] (feature `json`) reads record files
//! with `serde_json`, the one reader the command line and the viewer share, so the same bytes get
//! the same verdict everywhere. It parses [`Header`] first: a file in an unknown format or version
//! is then refused with a precise error instead of a confusing one about a field.
//!
//! ```
//! use project_lanes::record::{Header, Record};
//!
//! let text = r#"{"format":"project-lanes/record","version":99}"#;
//! let header: Header = serde_json::from_str(text).unwrap();
//! assert_eq!(header.check().unwrap_err().to_string(),
//!     "unsupported record version 99 (this build reads version 1)");
//! ```

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::dispatch::{DispatchError, Dispatcher, ReservationId, ReservationView, Settled};
use crate::label::Quoted;
use crate::{Label, LaneError, LaneView, Lease, Outcome, ProjectLanes, Receipt};

#[cfg(feature = "json")]
pub mod json;

/// The format id every record file carries in `format`.
pub const FORMAT: &str = "project-lanes/record";
/// The format version this build reads and writes.
pub const VERSION: u32 = 1;

/// Most steps a record may hold.
pub const MAX_STEPS: usize = 100_000;
/// Most projects a record may involve.
pub const MAX_PROJECTS: usize = 64;
/// Longest title, summary or note, in characters, per language.
pub const MAX_TEXT_CHARS: usize = 2_000;
/// Longest operation input string, in characters (inputs may break the label rule on purpose).
pub const MAX_INPUT_CHARS: usize = 200;
/// Largest record file readers accept, in bytes (16 MiB).
pub const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

/// The first two fields of a record: enough to know whether the rest can be read.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Header {
    /// Must be [`FORMAT`].
    pub format: String,
    /// Must be [`VERSION`].
    pub version: u32,
}

impl Header {
    /// Refuses a file that is not a record of this version.
    pub fn check(&self) -> Result<(), RecordError> {
        self.check_as(FORMAT)
    }

    /// Refuses a file that is not an index of this version.
    pub fn check_index(&self) -> Result<(), RecordError> {
        self.check_as(INDEX_FORMAT)
    }

    fn check_as(&self, format: &'static str) -> Result<(), RecordError> {
        if self.format != format {
            return Err(RecordError::UnknownFormat {
                found: self.format.clone(),
                expected: format,
            });
        }
        if self.version != VERSION {
            return Err(RecordError::UnsupportedVersion(self.version));
        }
        Ok(())
    }
}

/// The format id of `index.json`, the list of records a viewer shows.
pub const INDEX_FORMAT: &str = "project-lanes/index";

/// `index.json`: the records to show, in display order, with the SHA-256 of each file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Index {
    /// Always [`INDEX_FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// The records, in display order.
    pub records: Vec<IndexEntry>,
}

/// One record in the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexEntry {
    /// The record's id.
    pub id: Label,
    /// The record's file name, relative to the index (no folders).
    pub file: String,
    /// The record's title.
    pub title: Text,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
}

impl Index {
    /// Checks the header, ids (unique), file names (plain `*.json` names, no folders, so a
    /// viewer never fetches outside the index's folder) and hashes (64 lowercase hex digits).
    pub fn check(&self) -> Result<(), RecordError> {
        Header {
            format: self.format.clone(),
            version: self.version,
        }
        .check_index()?;
        if self.records.is_empty() || self.records.len() > MAX_PROJECTS * 16 {
            return Err(RecordError::invalid("records", "needs 1 to 1024 records"));
        }
        for (i, entry) in self.records.iter().enumerate() {
            let at = |what: &str| format!("records[{i}].{what}");
            if self.records[..i].iter().any(|e| e.id == entry.id) {
                return Err(RecordError::invalid(
                    at("id"),
                    format!("{} is listed twice", Quoted(&entry.id)),
                ));
            }
            let stem = entry.file.strip_suffix(".json").unwrap_or_default();
            if !crate::is_valid_label(stem) {
                return Err(RecordError::invalid(
                    at("file"),
                    format!(
                        "{} is not a plain record file name like `my-record.json`",
                        Quoted(&entry.file)
                    ),
                ));
            }
            if entry.sha256.len() != 64
                || !entry
                    .sha256
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            {
                return Err(RecordError::invalid(
                    at("sha256"),
                    "needs 64 lowercase hex digits",
                ));
            }
            check_text(&at("title"), &entry.title)?;
        }
        Ok(())
    }
}

/// Text for readers, in English and Japanese.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Text {
    /// English.
    pub en: String,
    /// Japanese.
    pub ja: String,
}

impl Text {
    /// The text in `lang` (`"ja"` gives Japanese; anything else English).
    pub fn get(&self, lang: &str) -> &str {
        if lang == "ja" { &self.ja } else { &self.en }
    }
}

/// One saved record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always [`FORMAT`].
    pub format: String,
    /// Always [`VERSION`].
    pub version: u32,
    /// A stable id that follows the label rule, e.g. `busy-project`.
    pub id: Label,
    /// A short title.
    pub title: Text,
    /// What the record shows, in a sentence or two.
    pub summary: Text,
    /// Always `false`: records show lane metadata; no work ran.
    pub work_executed_here: bool,
    /// Every project the record involves, in display order; each step's `lanes` follow it.
    pub projects: Vec<Label>,
    /// The project no step claims or changes: it stays idle from start to end.
    pub untouched_project: Label,
    /// Records of the [dispatcher](crate::dispatch): its queues, in order. Absent (empty) for
    /// records of the lanes alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<Label>,
    /// The steps, in the order they ran.
    pub steps: Vec<Step>,
    /// The lanes of every project after the last step.
    pub final_lanes: Vec<LaneView>,
}

/// One operation, its inputs, its saved result and the lanes after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Which operation ran.
    pub op: Op,
    /// Its inputs; which fields are present depends on `op`.
    pub input: Input,
    /// What it returned.
    pub result: StepResult,
    /// An optional remark for readers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<Text>,
    /// The lane of every project (in [`Record::projects`] order) after this step.
    pub lanes: Vec<LaneView>,
    /// Dispatcher records: every reservation after this step, in id order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservations: Option<Vec<ReservationView>>,
}

/// The operations a record can hold: the lanes' own, or the dispatcher's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// [`ProjectLanes::claim`]: input `project`, `run`.
    Claim,
    /// [`ProjectLanes::request_stop`]: input `lease`.
    RequestStop,
    /// [`ProjectLanes::release`]: input `lease`, `outcome`.
    Release,
    /// [`ProjectLanes::view`]: input `project`.
    View,
    /// [`Dispatcher::enqueue`]: input `queue`, `project`, `run`.
    Enqueue,
    /// [`Dispatcher::dispatch`]: input `queue`.
    Dispatch,
    /// [`Dispatcher::finish`]: input `reservation`, `outcome`.
    Finish,
    /// [`Dispatcher::persisted`]: input `reservation`, `saved`.
    Persist,
    /// [`Dispatcher::cancel`]: input `reservation`.
    Cancel,
    /// [`Dispatcher::resolve`]: input `reservation`.
    Resolve,
}

impl Op {
    /// Every operation, in a fixed order.
    pub const ALL: [Op; 10] = [
        Op::Claim,
        Op::RequestStop,
        Op::Release,
        Op::View,
        Op::Enqueue,
        Op::Dispatch,
        Op::Finish,
        Op::Persist,
        Op::Cancel,
        Op::Resolve,
    ];

    /// The name saved in `op`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Op::Claim => "claim",
            Op::RequestStop => "request_stop",
            Op::Release => "release",
            Op::View => "view",
            Op::Enqueue => "enqueue",
            Op::Dispatch => "dispatch",
            Op::Finish => "finish",
            Op::Persist => "persist",
            Op::Cancel => "cancel",
            Op::Resolve => "resolve",
        }
    }

    /// The input fields this operation takes, in order.
    pub const fn fields(self) -> &'static [Field] {
        match self {
            Op::Claim => &[Field::Project, Field::Run],
            Op::RequestStop => &[Field::Lease],
            Op::Release => &[Field::Lease, Field::Outcome],
            Op::View => &[Field::Project],
            Op::Enqueue => &[Field::Queue, Field::Project, Field::Run],
            Op::Dispatch => &[Field::Queue],
            Op::Finish => &[Field::Reservation, Field::Outcome],
            Op::Persist => &[Field::Reservation, Field::Saved],
            Op::Cancel | Op::Resolve => &[Field::Reservation],
        }
    }

    /// Which records may hold this operation: `Some(true)` dispatcher records only,
    /// `Some(false)` lane records only, `None` both (`view`).
    pub const fn dispatcher_only(self) -> Option<bool> {
        match self {
            Op::View => None,
            Op::Claim | Op::RequestStop | Op::Release => Some(false),
            _ => Some(true),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An input field of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// `project`: a project label (may break the rule, to show `INVALID_LABEL`).
    Project,
    /// `run`: a run label (may break the rule, to show `INVALID_LABEL`).
    Run,
    /// `lease`: the handle of a lease issued by an earlier step, e.g. `L1`.
    Lease,
    /// `outcome`: the text given to release or finish (may be no outcome at all, to show
    /// `INVALID_OUTCOME`).
    Outcome,
    /// `queue`: a dispatcher queue name.
    Queue,
    /// `reservation`: the id of a reservation enqueued by an earlier step, e.g. `R1`.
    Reservation,
    /// `saved`: whether saving the final state succeeded (a boolean).
    Saved,
}

impl Field {
    /// Every field, in a fixed order.
    pub const ALL: [Field; 7] = [
        Field::Project,
        Field::Run,
        Field::Lease,
        Field::Outcome,
        Field::Queue,
        Field::Reservation,
        Field::Saved,
    ];

    /// The field's name in `input`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Field::Project => "project",
            Field::Run => "run",
            Field::Lease => "lease",
            Field::Outcome => "outcome",
            Field::Queue => "queue",
            Field::Reservation => "reservation",
            Field::Saved => "saved",
        }
    }
}

/// A step's inputs. Strings, not labels: a record may show what happens to a bad label.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// `enqueue` and `dispatch`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<String>,
    /// `finish`, `persist`, `cancel` and `resolve`: a reservation id such as `R1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation: Option<String>,
    /// `claim` and `view`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// `claim`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// `request_stop` and `release`: a lease handle such as `L1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<String>,
    /// `release` and `finish`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// `persist`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved: Option<bool>,
}

impl Input {
    /// The value of a text field, if present (`saved` is not text: see [`Input::saved`]).
    pub fn get(&self, field: Field) -> Option<&str> {
        match field {
            Field::Project => self.project.as_deref(),
            Field::Run => self.run.as_deref(),
            Field::Lease => self.lease.as_deref(),
            Field::Outcome => self.outcome.as_deref(),
            Field::Queue => self.queue.as_deref(),
            Field::Reservation => self.reservation.as_deref(),
            Field::Saved => None,
        }
    }

    /// Whether `field` is present.
    pub fn has(&self, field: Field) -> bool {
        match field {
            Field::Saved => self.saved.is_some(),
            other => self.get(other).is_some(),
        }
    }
}

/// A lease as records show it: a handle instead of the token, which is never saved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LeaseRecord {
    /// `L1`, `L2`, … in the order the record's claims succeeded.
    pub handle: String,
    /// The claimed project.
    pub project: Label,
    /// The run label given at claim.
    pub run: Label,
}

/// What a `dispatch` step returns when every waiting item is retained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nothing {
    /// How many reservations wait in that queue, behind busy or blocked projects.
    pub retained: u64,
}

/// What a step returned: one key naming the kind of result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StepResult {
    /// A successful claim.
    Lease(LeaseRecord),
    /// A successful stop request or view.
    View(LaneView),
    /// A successful release.
    Receipt(Receipt),
    /// A reservation after a successful `enqueue`, `cancel` or `resolve`.
    Reservation(ReservationView),
    /// A `dispatch` that handed out a job: the reservation, now holding its lane.
    Dispatched(ReservationView),
    /// A `dispatch` that found nothing available.
    Nothing(Nothing),
    /// A successful `finish`: the reservation, whose final state is being saved.
    Persisting(ReservationView),
    /// A successful `persist`: the reservation's end and the lane's receipt.
    Settled(Settled),
    /// A refusal, by its code (e.g. `PROJECT_BUSY`, `NOT_QUEUED`).
    Error(DispatchError),
}

impl StepResult {
    /// `"ok"` for a success, else the error code (the viewer's `data-result`).
    pub fn code(&self) -> &'static str {
        match self {
            StepResult::Error(e) => e.code(),
            _ => "ok",
        }
    }
}

/// Why a record could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecordError {
    /// `format` is not the expected format id.
    UnknownFormat {
        /// The file's `format`.
        found: String,
        /// [`FORMAT`] or [`INDEX_FORMAT`].
        expected: &'static str,
    },
    /// `version` is not [`VERSION`].
    UnsupportedVersion(u32),
    /// The record parsed but breaks a rule of the format.
    Invalid {
        /// Where: `steps[3].input`, `projects`, …
        at: String,
        /// What is wrong, for a person.
        message: String,
    },
}

impl RecordError {
    fn invalid(at: impl Into<String>, message: impl Into<String>) -> RecordError {
        RecordError::Invalid {
            at: at.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for RecordError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordError::UnknownFormat { found, expected } => write!(
                f,
                "not a project-lanes file of this kind: format is {}, expected {}",
                Quoted(found),
                Quoted(expected)
            ),
            RecordError::UnsupportedVersion(v) => write!(
                f,
                "unsupported record version {v} (this build reads version {VERSION})"
            ),
            RecordError::Invalid { at, message } => write!(f, "{at}: {message}"),
        }
    }
}

impl std::error::Error for RecordError {}

impl Record {
    /// Checks every rule of the format that JSON parsing alone cannot: header, limits, inputs
    /// matching their operation, results of the right kind, lease handles issued before use,
    /// snapshots covering every project, the untouched project staying untouched.
    pub fn check(&self) -> Result<(), RecordError> {
        Header {
            format: self.format.clone(),
            version: self.version,
        }
        .check()?;
        for (at, text) in [("title", &self.title), ("summary", &self.summary)] {
            check_text(at, text)?;
        }
        if self.work_executed_here {
            return Err(RecordError::invalid(
                "work_executed_here",
                "must be false: records show lane metadata, no work runs",
            ));
        }
        if !(2..=MAX_PROJECTS).contains(&self.projects.len()) {
            return Err(RecordError::invalid(
                "projects",
                format!(
                    "needs 2 to {MAX_PROJECTS} projects, found {}",
                    self.projects.len()
                ),
            ));
        }
        for (i, project) in self.projects.iter().enumerate() {
            if self.projects[..i].contains(project) {
                return Err(RecordError::invalid(
                    format!("projects[{i}]"),
                    format!("{} is listed twice", Quoted(project)),
                ));
            }
        }
        if !self.projects.contains(&self.untouched_project) {
            return Err(RecordError::invalid(
                "untouched_project",
                format!(
                    "{} is not one of `projects`",
                    Quoted(&self.untouched_project)
                ),
            ));
        }
        if self.steps.is_empty() || self.steps.len() > MAX_STEPS {
            return Err(RecordError::invalid(
                "steps",
                format!("needs 1 to {MAX_STEPS} steps, found {}", self.steps.len()),
            ));
        }
        for (i, queue) in self.queues.iter().enumerate() {
            if self.queues[..i].contains(queue) || i >= MAX_PROJECTS {
                return Err(RecordError::invalid(
                    format!("queues[{i}]"),
                    format!(
                        "{} is listed twice, or there are over 64 queues",
                        Quoted(queue)
                    ),
                ));
            }
        }
        let mut issued = Issued::default();
        for (i, step) in self.steps.iter().enumerate() {
            self.check_step(i, step, &mut issued)?;
        }
        self.check_lanes("final_lanes", &self.final_lanes)
    }

    /// Whether this is a record of the dispatcher (it names queues).
    pub fn is_dispatcher(&self) -> bool {
        !self.queues.is_empty()
    }

    fn check_step(&self, i: usize, step: &Step, issued: &mut Issued) -> Result<(), RecordError> {
        let at = |what: &str| format!("steps[{i}].{what}");
        let dispatcher = self.is_dispatcher();
        if step
            .op
            .dispatcher_only()
            .is_some_and(|only| only != dispatcher)
        {
            let kind = if dispatcher {
                "a dispatcher record (it has `queues`)"
            } else {
                "a lanes record"
            };
            return Err(RecordError::invalid(
                at("op"),
                format!("`{}` has no place in {kind}", step.op),
            ));
        }
        let fields = step.op.fields();
        for field in Field::ALL {
            match (fields.contains(&field), step.input.has(field)) {
                (true, false) => {
                    return Err(RecordError::invalid(
                        at("input"),
                        format!("`{}` needs `{}`", step.op, field.as_str()),
                    ));
                }
                (false, true) => {
                    return Err(RecordError::invalid(
                        at("input"),
                        format!("`{}` takes no `{}`", step.op, field.as_str()),
                    ));
                }
                _ => {}
            }
            if step
                .input
                .get(field)
                .is_some_and(|v| v.chars().count() > MAX_INPUT_CHARS)
            {
                return Err(RecordError::invalid(
                    at(&format!("input.{}", field.as_str())),
                    format!("longer than {MAX_INPUT_CHARS} characters"),
                ));
            }
        }
        if let Some(handle) = step.input.lease.as_deref()
            && handle_number(handle).is_none_or(|n| n == 0 || n > issued.leases)
        {
            return Err(RecordError::invalid(
                at("input.lease"),
                format!(
                    "lease handle {} was never issued by an earlier step (issued so far: {})",
                    Quoted(handle),
                    issued_list('L', issued.leases)
                ),
            ));
        }
        if let Some(id) = step.input.reservation.as_deref()
            && ReservationId::parse(id).is_none_or(|r| r.number() > issued.reservations as u64)
        {
            return Err(RecordError::invalid(
                at("input.reservation"),
                format!(
                    "reservation {} was never enqueued by an earlier step (enqueued so far: {})",
                    Quoted(id),
                    issued_list('R', issued.reservations)
                ),
            ));
        }
        if let Some(project) = step.input.project.as_deref()
            && matches!(step.op, Op::Claim | Op::Enqueue)
            && crate::is_valid_label(project)
            && !self.projects.iter().any(|p| p == project)
        {
            return Err(RecordError::invalid(
                at("input.project"),
                format!(
                    "{} is not one of `projects`: every project a step can occupy is shown",
                    Quoted(project)
                ),
            ));
        }
        if matches!(step.op, Op::Claim | Op::Enqueue)
            && step.input.project.as_deref() == Some(&self.untouched_project)
        {
            return Err(RecordError::invalid(
                at("input.project"),
                format!(
                    "{} {}, the project this record leaves untouched",
                    if step.op == Op::Claim {
                        "claims"
                    } else {
                        "enqueues"
                    },
                    Quoted(&self.untouched_project)
                ),
            ));
        }
        let kind_ok = matches!(
            (step.op, &step.result),
            (_, StepResult::Error(_))
                | (Op::Claim, StepResult::Lease(_))
                | (Op::RequestStop | Op::View, StepResult::View(_))
                | (Op::Release, StepResult::Receipt(_))
                | (
                    Op::Enqueue | Op::Cancel | Op::Resolve,
                    StepResult::Reservation(_)
                )
                | (
                    Op::Dispatch,
                    StepResult::Dispatched(_) | StepResult::Nothing(_)
                )
                | (Op::Finish, StepResult::Persisting(_))
                | (Op::Persist, StepResult::Settled(_))
        );
        if !kind_ok {
            return Err(RecordError::invalid(
                at("result"),
                format!(
                    "`{}` cannot return a {}",
                    step.op,
                    result_kind(&step.result)
                ),
            ));
        }
        if let StepResult::Lease(lease) = &step.result {
            issued.leases += 1;
            let expected = format!("L{}", issued.leases);
            if lease.handle != expected {
                return Err(RecordError::invalid(
                    at("result.lease.handle"),
                    format!(
                        "handles are numbered in order of issue: expected {}, found {}",
                        Quoted(&expected),
                        Quoted(&lease.handle)
                    ),
                ));
            }
        }
        if let (Op::Enqueue, StepResult::Reservation(view)) = (step.op, &step.result) {
            issued.reservations += 1;
            if view.id.number() != issued.reservations as u64 {
                return Err(RecordError::invalid(
                    at("result.reservation.id"),
                    format!(
                        "reservations are numbered in order of enqueueing: expected R{}, found {}",
                        issued.reservations, view.id
                    ),
                ));
            }
        }
        if let Some(note) = &step.note {
            check_text(&at("note"), note)?;
        }
        match (&step.reservations, dispatcher) {
            (Some(views), true) if views.len() == issued.reservations => {}
            (Some(views), true) => {
                return Err(RecordError::invalid(
                    at("reservations"),
                    format!(
                        "needs every reservation enqueued so far ({}), found {}",
                        issued.reservations,
                        views.len()
                    ),
                ));
            }
            (None, true) => {
                return Err(RecordError::invalid(
                    at("reservations"),
                    "dispatcher records need it",
                ));
            }
            (Some(_), false) => {
                return Err(RecordError::invalid(
                    at("reservations"),
                    "only dispatcher records (with `queues`) have it",
                ));
            }
            (None, false) => {}
        }
        self.check_lanes(&at("lanes"), &step.lanes)
    }

    fn check_lanes(&self, at: &str, lanes: &[LaneView]) -> Result<(), RecordError> {
        if lanes.len() != self.projects.len() {
            return Err(RecordError::invalid(
                at,
                format!(
                    "needs one view per project ({}), found {}",
                    self.projects.len(),
                    lanes.len()
                ),
            ));
        }
        for (j, (view, project)) in lanes.iter().zip(&self.projects).enumerate() {
            if view.project != project.as_str() {
                return Err(RecordError::invalid(
                    format!("{at}[{j}]"),
                    format!(
                        "expected the view of {}, found {}",
                        Quoted(project),
                        Quoted(&view.project)
                    ),
                ));
            }
            if *project == self.untouched_project && view.busy {
                return Err(RecordError::invalid(
                    format!("{at}[{j}]"),
                    format!(
                        "{} is the untouched project but shows busy",
                        Quoted(project)
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn check_text(at: &str, text: &Text) -> Result<(), RecordError> {
    for (lang, value) in [("en", &text.en), ("ja", &text.ja)] {
        let chars = value.chars().count();
        if value.trim().is_empty() || chars > MAX_TEXT_CHARS {
            return Err(RecordError::invalid(
                format!("{at}.{lang}"),
                format!("needs 1 to {MAX_TEXT_CHARS} characters, found {chars}"),
            ));
        }
    }
    Ok(())
}

fn handle_number(handle: &str) -> Option<usize> {
    let digits = handle.strip_prefix('L')?;
    let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    if !plain || digits.starts_with('0') || digits.len() > 9 {
        return None;
    }
    digits.parse().ok()
}

/// How many leases and reservations the steps so far have issued.
#[derive(Default)]
struct Issued {
    leases: usize,
    reservations: usize,
}

fn issued_list(prefix: char, issued: usize) -> String {
    match issued {
        0 => "none".into(),
        1 => format!("{prefix}1"),
        n => format!("{prefix}1 to {prefix}{n}"),
    }
}

fn result_kind(result: &StepResult) -> &'static str {
    match result {
        StepResult::Lease(_) => "lease",
        StepResult::View(_) => "view",
        StepResult::Receipt(_) => "receipt",
        StepResult::Reservation(_) => "reservation",
        StepResult::Dispatched(_) => "dispatched",
        StepResult::Nothing(_) => "nothing",
        StepResult::Persisting(_) => "persisting",
        StepResult::Settled(_) => "settled",
        StepResult::Error(_) => "error",
    }
}

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

/// Runs the record's steps on fresh lanes (or a fresh dispatcher with the record's queues) and
/// compares every saved result and every snapshot; the first difference is returned.
///
/// ```
/// use project_lanes::record::{replay, Record};
/// # let record: Record = serde_json::from_str(include_str!("../../records/busy-project.json")).unwrap();
/// // `record` was read from records/busy-project.json
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
/// # let record: Record = serde_json::from_str(include_str!("../../records/busy-project.json")).unwrap();
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
    /// Checks `record` ([`Record::check`]) and prepares fresh lanes or a fresh dispatcher.
    pub fn new(record: &Record) -> Result<Replay, ReplayMismatch> {
        record.check().map_err(ReplayMismatch::Invalid)?;
        let engine = Engine::new(&record.queues)
            .map_err(|e| ReplayMismatch::Invalid(RecordError::invalid("queues", e.to_string())))?;
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

/// What a record runs on: the lanes alone, or a dispatcher (which owns its lanes).
enum Engine {
    Lanes {
        lanes: ProjectLanes,
        /// Leases issued so far, by handle.
        leases: HashMap<String, Lease>,
    },
    Dispatch(Box<Dispatcher>),
}

impl Engine {
    fn new(queues: &[Label]) -> Result<Engine, DispatchError> {
        if queues.is_empty() {
            return Ok(Engine::Lanes {
                lanes: ProjectLanes::new(),
                leases: HashMap::new(),
            });
        }
        let names: Vec<&str> = queues.iter().map(|q| q.as_str()).collect();
        Ok(Engine::Dispatch(Box::new(Dispatcher::new(&names)?)))
    }

    fn lanes(&self) -> &ProjectLanes {
        match self {
            Engine::Lanes { lanes, .. } => lanes,
            Engine::Dispatch(d) => d.lanes(),
        }
    }

    fn reservations(&self) -> Option<Vec<ReservationView>> {
        match self {
            Engine::Lanes { .. } => None,
            Engine::Dispatch(d) => Some(d.reservations()),
        }
    }

    /// Runs one step on the real core and returns what it returned.
    fn run(&mut self, step: &Step) -> StepResult {
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
                                handle: handle.clone(),
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
                    .map(StepResult::Reservation),
                Op::Dispatch => {
                    let queue = text(Field::Queue);
                    d.dispatch(queue).and_then(|job| match job {
                        Some(job) => Ok(StepResult::Dispatched(d.reservation(job.reservation)?)),
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
                    .map(StepResult::Persisting),
                Op::Persist => reservation()
                    .and_then(|id| d.persisted(id, input.saved.unwrap_or(false)))
                    .map(StepResult::Settled),
                Op::Cancel => reservation()
                    .and_then(|id| d.cancel(id))
                    .map(StepResult::Reservation),
                Op::Resolve => reservation()
                    .and_then(|id| d.resolve(id))
                    .map(StepResult::Reservation),
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

/// Builds a record by running each operation on the real core as it is added: lanes for
/// [`Recorder::new`], a dispatcher for [`Recorder::dispatcher`].
///
/// Results and snapshots are never typed in: they are what the core returned.
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
            engine: Engine::new(&queues)?,
            record: Record {
                format: FORMAT.into(),
                version: VERSION,
                id: Label::new(id)?,
                title,
                summary,
                work_executed_here: false,
                projects: labels(projects)?,
                untouched_project: Label::new(untouched_project)?,
                queues,
                steps: Vec::new(),
                final_lanes: Vec::new(),
            },
        })
    }

    /// Runs `op` with `input` on the core and appends the step with its result and snapshots.
    pub fn step(&mut self, op: Op, input: Input) -> &mut Recorder {
        let mut step = Step {
            op,
            input,
            result: StepResult::Error(DispatchError::UnknownReservation),
            note: None,
            lanes: Vec::new(),
            reservations: None,
        };
        step.result = self.engine.run(&step);
        step.lanes = self.snapshot();
        step.reservations = self.engine.reservations();
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
            *slot = Some(value.to_string());
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
            step.note = Some(note);
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
