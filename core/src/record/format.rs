//! The record format's types: what a record file holds, field by field.
//!
//! Every type here serializes to the shape `records/README.md` documents and `records/schema.json`
//! describes; the rules JSON cannot express are checked in [`check`](super::check).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::dispatch::{DispatchError, ReservationView, Settled};
use crate::{Label, LaneView, Receipt};

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
