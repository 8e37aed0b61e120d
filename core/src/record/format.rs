//! The record format's types: what a record file holds, field by field.
//!
//! Every type here serializes to the shape `records/README.md` documents and `records/schema.json`
//! describes; the rules JSON cannot express are checked in [`check`](super::check).

use std::ops::Deref;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};

use crate::dispatch::{DispatchError, ReservationView, Settled};
use crate::{Label, LaneView, Receipt};

use crate::op::{Field, Nothing, Op};
use crate::time::Timestamp;

/// The format id every record file carries in `format`.
pub const FORMAT: &str = "project-lanes/record";
/// Version 1 of the record format, and the version of the index (`index.json`). A version 1
/// record has none of version 2's fields.
pub const VERSION: u32 = 1;
/// Version 2 of the record format: version 1 and, all optional, a step's time (`at`) and caller
/// (`actor`), the record's `origin`, and a `start` (what was held before the first step), so that
/// a record can be cut from a long history and still replay on its own.
pub const VERSION_2: u32 = 2;
/// Version 3 of the record format: lines (`record::stream`, feature `json`), with no snapshots
/// (the state after each step is what replay computes), direct lane operations and the
/// dispatcher's in one record, and no limit on projects, queues, steps or bytes.
pub const VERSION_3: u32 = 3;
/// Every record format version this build reads, oldest first.
pub const VERSIONS: [u32; 3] = [VERSION, VERSION_2, VERSION_3];

/// Most steps a record may hold.
pub const MAX_STEPS: usize = 100_000;
/// Most projects a record may involve.
pub const MAX_PROJECTS: usize = 64;
/// Longest title, summary or note, in characters, per language.
pub const MAX_TEXT_CHARS: usize = 2_000;
/// Largest record file readers accept, in bytes (16 MiB).
pub const MAX_RECORD_BYTES: u64 = 16 * 1024 * 1024;

/// The first two fields of a record: enough to know whether the rest can be read.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Header {
    /// Must be [`FORMAT`] (or [`INDEX_FORMAT`] for the index).
    pub format: String,
    /// One of [`VERSIONS`] for a record, [`VERSION`] for the index.
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
    /// [`VERSION`] or [`VERSION_2`].
    pub version: u32,
    /// A stable id that follows the label rule, e.g. `busy-project`.
    pub id: Label,
    /// A short title.
    pub title: Text,
    /// What the record shows, in a sentence or two.
    pub summary: Text,
    /// Always `false`: records show lane metadata; no work ran.
    pub work_executed_here: bool,
    /// Version 2, optional: where the record came from (a scenario, or a running system's
    /// journal).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<Origin>,
    /// Every project the record involves, in display order; each step's `lanes` follow it.
    pub projects: Vec<Label>,
    /// The project no step claims or changes: it stays idle from start to end. Required in
    /// version 1; optional in version 2 (a system's journal may touch every project it shows).
    #[serde(default, skip_serializing_if = "Untouched::is_none")]
    pub untouched_project: Untouched,
    /// Records of the [dispatcher](crate::dispatch): its queues, in order. Absent (empty) for
    /// records of the lanes alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queues: Vec<Label>,
    /// Version 2, optional: what was held before the first step. Without it, every lane starts
    /// idle and no reservation exists.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub start: Option<Start>,
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
    /// Version 2, optional: when it ran, as the system's clock read it. Steps are in the order
    /// they took effect; times of concurrent steps may be slightly out of that order. Replay
    /// never compares times.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub at: Option<Timestamp>,
    /// Version 2, optional: who called, in the system's words (a host and process, a worker):
    /// 1 to 200 characters, no control characters.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub actor: Option<Arc<str>>,
    /// Its inputs; which fields are present depends on `op`.
    pub input: Input,
    /// What it returned.
    pub result: StepResult,
    /// An optional remark for readers (boxed: few steps have one, and every step's size counts
    /// in a record of a million).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub note: Option<Box<Text>>,
    /// The lane of every project (in [`Record::projects`] order) after this step.
    pub lanes: Vec<LaneView>,
    /// Dispatcher records: every reservation after this step, in id order.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub reservations: Option<Box<[ReservationView]>>,
}

// A viewer holds a million steps: each byte of a step is a megabyte of its memory.
#[cfg(target_arch = "wasm32")]
const _: () = assert!(std::mem::size_of::<Step>() <= 152);

/// The project a record leaves untouched, if it names one (version 1 records always do).
///
/// Saved as the project's label, or absent. It dereferences to the label, or to the empty
/// string when there is none: labels are never empty, so comparing it with any project is
/// `false` then. [`get`](Self::get) tells the two apart.
///
/// ```
/// use project_lanes::Label;
/// use project_lanes::record::Untouched;
///
/// let site = Untouched::new(Label::new("site")?);
/// assert!(site == "site" && site != "docs");
/// assert_eq!(site.get().map(|l| l.as_str()), Some("site"));
/// assert!(Untouched::none() != "site" && Untouched::none().get().is_none());
/// # Ok::<(), project_lanes::LaneError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Untouched(Option<Label>);

impl Untouched {
    /// The record leaves `project` untouched.
    pub fn new(project: Label) -> Untouched {
        Untouched(Some(project))
    }

    /// The record names no untouched project (version 2 only).
    pub fn none() -> Untouched {
        Untouched(None)
    }

    /// The project, if the record names one.
    pub fn get(&self) -> Option<&Label> {
        self.0.as_ref()
    }

    /// Whether the record names no untouched project.
    pub fn is_none(&self) -> bool {
        self.0.is_none()
    }

    /// The project's label, or `""` when there is none.
    pub fn as_str(&self) -> &str {
        self
    }
}

impl Deref for Untouched {
    type Target = str;

    /// The project's label, or `""` when there is none.
    fn deref(&self) -> &str {
        self.0.as_deref().unwrap_or_default()
    }
}

impl PartialEq<str> for Untouched {
    fn eq(&self, other: &str) -> bool {
        self.0.as_ref().is_some_and(|p| p.as_str() == other)
    }
}

impl PartialEq<&str> for Untouched {
    fn eq(&self, other: &&str) -> bool {
        *self == **other
    }
}

impl PartialEq<String> for Untouched {
    fn eq(&self, other: &String) -> bool {
        *self == *other.as_str()
    }
}

impl PartialEq<Label> for Untouched {
    fn eq(&self, other: &Label) -> bool {
        *self == *other.as_str()
    }
}

impl PartialEq<Untouched> for String {
    fn eq(&self, other: &Untouched) -> bool {
        *other == *self
    }
}

impl PartialEq<Untouched> for Label {
    fn eq(&self, other: &Untouched) -> bool {
        *other == *self
    }
}

/// Version 2: where a record came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Origin {
    /// A scenario run on the core, or a running system's journal.
    pub kind: OriginKind,
    /// Journals only: the system's name, as its operators call it (1 to 200 characters, no
    /// control characters).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub system: Option<String>,
    /// Journals only, optional: the window the record was cut from starts here (inclusive).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub since: Option<Timestamp>,
    /// Journals only, optional: the window ends here (exclusive).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub until: Option<Timestamp>,
}

/// What a record was made from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OriginKind {
    /// A scenario: operations written by a person and run on the core.
    Scenario,
    /// A journal: the transitions a running system performed, exported as they happened.
    Journal,
}

/// Version 2: what was held before a record's first step, so that a record cut from a long
/// history replays on its own. Lanes records hold `leases`, dispatcher records `reservations`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    /// Lanes records: the leases issued before the first step that hold a lane then, or that a
    /// step names later; handles `L1`, `L2`, … in this order, and the steps' claims go on from
    /// there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leases: Vec<StartLease>,
    /// Dispatcher records: the reservations present before the first step, ids `R1`, `R2`, …
    /// in this order (their queues' order); the steps' enqueues go on from there. A dispatched
    /// or persisting reservation holds its project's lane; an unresolved one blocks it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reservations: Vec<ReservationView>,
}

/// A lease issued before a record's first step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartLease {
    /// Its handle: `L1` for the first in [`Start::leases`], and so on.
    pub handle: String,
    /// The project it was claimed for.
    pub project: Label,
    /// The run label given at claim.
    pub run: Label,
    /// Whether it holds its lane at the start, and how.
    pub state: StartLeaseState,
}

/// Where a lease issued before the first step stands when the record starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StartLeaseState {
    /// It holds its lane; nobody asked it to stop.
    Running,
    /// It holds its lane; a stop was requested.
    StopRequested,
    /// It was released before the first step (a step names it later, e.g. a late cleanup).
    Released,
}

impl StartLeaseState {
    /// `"running"`, `"stop_requested"` or `"released"`, as saved in records.
    pub const fn as_str(self) -> &'static str {
        match self {
            StartLeaseState::Running => "running",
            StartLeaseState::StopRequested => "stop_requested",
            StartLeaseState::Released => "released",
        }
    }
}

/// A step's inputs. Strings, not labels: a record may show what happens to a bad label. Each is
/// shared (`Arc<str>`): a reader may hand the steps that name the same project or outcome one
/// string, and a step's copy costs no allocation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// `enqueue` and `dispatch`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub queue: Option<Arc<str>>,
    /// `finish`, `persist`, `cancel` and `resolve`: a reservation id such as `R1`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub reservation: Option<Arc<str>>,
    /// `claim` and `view`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub project: Option<Arc<str>>,
    /// `claim`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub run: Option<Arc<str>>,
    /// `request_stop` and `release`: a lease handle such as `L1`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub lease: Option<Arc<str>>,
    /// `release` and `finish`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub outcome: Option<Arc<str>>,
    /// `persist`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
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
    /// `L1`, `L2`, … in the order the record's claims succeeded (shared: a reader may hand the
    /// steps that name the lease the same string).
    pub handle: Arc<str>,
    /// The claimed project.
    pub project: Label,
    /// The run label given at claim.
    pub run: Label,
}

/// What a step returned: one key naming the kind of result.
///
/// A reservation is boxed: it is the largest result (three labels and an id), and a result is
/// in every step, so it would set the size of every step of every record.
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
    Reservation(Box<ReservationView>),
    /// A `dispatch` that handed out a job: the reservation, now holding its lane.
    Dispatched(Box<ReservationView>),
    /// A `dispatch` that found nothing available.
    Nothing(Nothing),
    /// A successful `finish`: the reservation, whose final state is being saved.
    Persisting(Box<ReservationView>),
    /// A successful `persist`: the reservation's end and the lane's receipt.
    Settled(Box<Settled>),
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

/// An optional field that is there holds a value: `null` is refused (the schema refuses it
/// too), where serde would read it as the field's absence.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}
