//! Saved example records: what the lanes did, step by step, in a versioned format.
//!
//! A record is produced by running a scenario on the real core and saving every input and result
//! (see the `lane-records` generator). [`replay`] runs a record's steps on a fresh
//! [`ProjectLanes`] and compares every saved result, so anyone can check a record, including one
//! written by hand. The format is documented in `records/README.md` and `records/schema.json`.
//!
//! This module holds the types and their checks only; parsing JSON is the caller's business (the
//! viewer uses the browser's parser, the generator uses `serde_json`). Parse [`Header`] first: a
//! file in an unknown format or version is then refused with a precise error instead of a
//! confusing one about a field.
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

use crate::label::Quoted;
use crate::{Label, LaneError, LaneView, Lease, Outcome, ProjectLanes, Receipt};

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
}

/// The operations a record can hold.
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
}

impl Op {
    /// Every operation, in a fixed order.
    pub const ALL: [Op; 4] = [Op::Claim, Op::RequestStop, Op::Release, Op::View];

    /// The name saved in `op`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Op::Claim => "claim",
            Op::RequestStop => "request_stop",
            Op::Release => "release",
            Op::View => "view",
        }
    }

    /// The input fields this operation takes, in order.
    pub const fn fields(self) -> &'static [Field] {
        match self {
            Op::Claim => &[Field::Project, Field::Run],
            Op::RequestStop => &[Field::Lease],
            Op::Release => &[Field::Lease, Field::Outcome],
            Op::View => &[Field::Project],
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
    /// `outcome`: the text given to release (may be no outcome at all, to show `INVALID_OUTCOME`).
    Outcome,
}

impl Field {
    /// The field's name in `input`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Field::Project => "project",
            Field::Run => "run",
            Field::Lease => "lease",
            Field::Outcome => "outcome",
        }
    }
}

/// A step's inputs. Strings, not labels: a record may show what happens to a bad label.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Input {
    /// `claim` and `view`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// `claim`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// `request_stop` and `release`: a lease handle such as `L1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lease: Option<String>,
    /// `release`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

impl Input {
    /// The value of `field`, if present.
    pub fn get(&self, field: Field) -> Option<&str> {
        match field {
            Field::Project => self.project.as_deref(),
            Field::Run => self.run.as_deref(),
            Field::Lease => self.lease.as_deref(),
            Field::Outcome => self.outcome.as_deref(),
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
    /// A refusal, by its code (e.g. `PROJECT_BUSY`).
    Error(LaneError),
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
    /// A stable code for the kind of error (used by the viewer).
    pub fn code(&self) -> &'static str {
        match self {
            RecordError::UnknownFormat { .. } => "UNKNOWN_FORMAT",
            RecordError::UnsupportedVersion(_) => "UNSUPPORTED_VERSION",
            RecordError::Invalid { .. } => "INVALID_RECORD",
        }
    }

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
        let mut issued = 0usize;
        for (i, step) in self.steps.iter().enumerate() {
            self.check_step(i, step, &mut issued)?;
        }
        self.check_lanes("final_lanes", &self.final_lanes)
    }

    fn check_step(&self, i: usize, step: &Step, issued: &mut usize) -> Result<(), RecordError> {
        let at = |what: &str| format!("steps[{i}].{what}");
        let fields = step.op.fields();
        for field in [Field::Project, Field::Run, Field::Lease, Field::Outcome] {
            match (fields.contains(&field), step.input.get(field)) {
                (true, None) => {
                    return Err(RecordError::invalid(
                        at("input"),
                        format!("`{}` needs `{}`", step.op, field.as_str()),
                    ));
                }
                (false, Some(_)) => {
                    return Err(RecordError::invalid(
                        at("input"),
                        format!("`{}` takes no `{}`", step.op, field.as_str()),
                    ));
                }
                (true, Some(value)) if value.chars().count() > MAX_INPUT_CHARS => {
                    return Err(RecordError::invalid(
                        at(&format!("input.{}", field.as_str())),
                        format!("longer than {MAX_INPUT_CHARS} characters"),
                    ));
                }
                _ => {}
            }
        }
        if let Some(handle) = step.input.lease.as_deref()
            && handle_number(handle).is_none_or(|n| n == 0 || n > *issued)
        {
            return Err(RecordError::invalid(
                at("input.lease"),
                format!(
                    "lease handle {} was never issued by an earlier step (issued so far: {})",
                    Quoted(handle),
                    issued_list(*issued)
                ),
            ));
        }
        if step.op == Op::Claim && step.input.project.as_deref() == Some(&self.untouched_project) {
            return Err(RecordError::invalid(
                at("input.project"),
                format!(
                    "claims {}, the project this record leaves untouched",
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
            *issued += 1;
            let expected = format!("L{issued}");
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
        if let Some(note) = &step.note {
            check_text(&at("note"), note)?;
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
    if digits.starts_with('0') || digits.len() > 9 {
        return None;
    }
    digits.parse().ok()
}

fn issued_list(issued: usize) -> String {
    match issued {
        0 => "none".into(),
        1 => "L1".into(),
        n => format!("L1 to L{n}"),
    }
}

fn result_kind(result: &StepResult) -> &'static str {
    match result {
        StepResult::Lease(_) => "lease",
        StepResult::View(_) => "view",
        StepResult::Receipt(_) => "receipt",
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
        }
    }
}

impl std::error::Error for ReplayMismatch {}

/// Runs the record's steps on a fresh [`ProjectLanes`] and compares every saved result and
/// every lane snapshot; the first difference is returned.
///
/// ```
/// use project_lanes::record::{replay, Record};
/// # let record: Record = serde_json::from_str(include_str!("../../records/busy-project.json")).unwrap();
/// // `record` was read from records/busy-project.json
/// assert_eq!(replay(&record), Ok(()));
/// ```
pub fn replay(record: &Record) -> Result<(), ReplayMismatch> {
    record.check().map_err(ReplayMismatch::Invalid)?;
    let lanes = ProjectLanes::new();
    let mut leases: HashMap<String, Lease> = HashMap::new();
    for (i, step) in record.steps.iter().enumerate() {
        let actual = run_step(&lanes, &mut leases, step);
        if actual != step.result {
            return Err(ReplayMismatch::Result {
                step: i,
                op: step.op,
                saved: Box::new(step.result.clone()),
                actual: Box::new(actual),
            });
        }
        compare_lanes(&lanes, &step.lanes, Some((i, step.op)))?;
    }
    compare_lanes(&lanes, &record.final_lanes, None)
}

/// Runs one step; `leases` maps handles to the leases issued so far.
fn run_step(lanes: &ProjectLanes, leases: &mut HashMap<String, Lease>, step: &Step) -> StepResult {
    let input = &step.input;
    let text = |field: Field| input.get(field).unwrap_or_default();
    let lease = |leases: &HashMap<String, Lease>| leases.get(text(Field::Lease)).is_some();
    let outcome = match step.op {
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
            }),
        // `check` guarantees handles were issued; a record that was not checked and names an
        // unknown handle gets INVALID_LEASE, the code for "not a lease".
        Op::RequestStop if !lease(leases) => Err(LaneError::InvalidLease),
        Op::Release if !lease(leases) => Err(LaneError::InvalidLease),
        Op::RequestStop => lanes
            .request_stop(&leases[text(Field::Lease)])
            .map(StepResult::View),
        Op::Release => text(Field::Outcome)
            .parse::<Outcome>()
            .and_then(|outcome| lanes.release(&leases[text(Field::Lease)], outcome))
            .map(StepResult::Receipt),
        Op::View => lanes.view(text(Field::Project)).map(StepResult::View),
    };
    outcome.unwrap_or_else(StepResult::Error)
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

/// Builds a record by running each operation on a real [`ProjectLanes`] as it is added.
///
/// Results and lane snapshots are never typed in: they are what the core returned.
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
    lanes: ProjectLanes,
    leases: HashMap<String, Lease>,
}

impl Recorder {
    /// Starts an empty record; labels must follow the label rule.
    pub fn new(
        id: &str,
        title: Text,
        summary: Text,
        projects: &[&str],
        untouched_project: &str,
    ) -> Result<Recorder, LaneError> {
        Ok(Recorder {
            record: Record {
                format: FORMAT.into(),
                version: VERSION,
                id: Label::new(id)?,
                title,
                summary,
                work_executed_here: false,
                projects: projects
                    .iter()
                    .map(|p| Label::new(p))
                    .collect::<Result<_, _>>()?,
                untouched_project: Label::new(untouched_project)?,
                steps: Vec::new(),
                final_lanes: Vec::new(),
            },
            lanes: ProjectLanes::new(),
            leases: HashMap::new(),
        })
    }

    /// Runs `op` with `input` on the lanes and appends the step with its result and snapshot.
    pub fn step(&mut self, op: Op, input: Input) -> &mut Recorder {
        let mut step = Step {
            op,
            input,
            result: StepResult::Error(LaneError::InvalidLease),
            note: None,
            lanes: Vec::new(),
        };
        step.result = run_step(&self.lanes, &mut self.leases, &step);
        step.lanes = self.snapshot();
        self.record.steps.push(step);
        self
    }

    /// Adds a `claim` step.
    pub fn claim(&mut self, project: &str, run: &str) -> &mut Recorder {
        self.step(
            Op::Claim,
            Input {
                project: Some(project.into()),
                run: Some(run.into()),
                ..Input::default()
            },
        )
    }

    /// Adds a `request_stop` step for the lease with handle `lease` (e.g. `"L1"`).
    pub fn request_stop(&mut self, lease: &str) -> &mut Recorder {
        self.step(
            Op::RequestStop,
            Input {
                lease: Some(lease.into()),
                ..Input::default()
            },
        )
    }

    /// Adds a `release` step; `outcome` is passed as text, exactly as a caller would.
    pub fn release(&mut self, lease: &str, outcome: &str) -> &mut Recorder {
        self.step(
            Op::Release,
            Input {
                lease: Some(lease.into()),
                outcome: Some(outcome.into()),
                ..Input::default()
            },
        )
    }

    /// Adds a `view` step.
    pub fn view(&mut self, project: &str) -> &mut Recorder {
        self.step(
            Op::View,
            Input {
                project: Some(project.into()),
                ..Input::default()
            },
        )
    }

    /// Attaches a note to the last step.
    pub fn note(&mut self, note: Text) -> &mut Recorder {
        if let Some(step) = self.record.steps.last_mut() {
            step.note = Some(note);
        }
        self
    }

    /// The result of the last step, if any.
    pub fn last_result(&self) -> Option<&StepResult> {
        self.record.steps.last().map(|s| &s.result)
    }

    /// Takes the final snapshot and returns the record once it passes [`Record::check`].
    pub fn finish(mut self) -> Result<Record, RecordError> {
        self.record.final_lanes = self.snapshot();
        self.record.check()?;
        Ok(self.record)
    }

    fn snapshot(&self) -> Vec<LaneView> {
        self.record
            .projects
            .iter()
            .map(|p| self.lanes.view(p).unwrap_or_else(|_| LaneView::idle(p)))
            .collect()
    }
}
