//! Scenario files: what an author writes to get a record, in TOML.
//!
//! A scenario names the record (id, titles, summaries in English and Japanese), its projects,
//! the queues of a dispatcher scenario, and the operations in order with their inputs and
//! optional notes. It holds no results: [`Scenario::record`] runs every operation on the real
//! core (a [`Recorder`]) and the record keeps what the core returned. The format is documented
//! in `records/README.md`; `records/scenario.schema.json` is its JSON Schema.
//!
//! Every error names the file, the line and the column, and shows the line:
//!
//! ```
//! use lane_records::scenario::Scenario;
//!
//! let text = r#"
//! format = "project-lanes/scenario"
//! version = 1
//! id = "tiny"
//! title = { en = "Tiny", ja = "小さな例" }
//! summary = { en = "One claim.", ja = "取得を一度だけ行います。" }
//! projects = ["docs", "site"]
//! untouched_project = "site"
//!
//! [[steps]]
//! op = "claim"
//! project = "docs"
//! run = "build-1"
//!
//! [[steps]]
//! op = "release"
//! lease = "L2"
//! outcome = "succeeded"
//! "#;
//! let scenario = Scenario::parse("tiny.toml".as_ref(), text).unwrap();
//! let error = scenario.record().unwrap_err();
//! assert!(error.to_string().starts_with(
//!     "tiny.toml:17:9: lease handle \"L2\" was never issued by an earlier step (issued so far: L1)"
//! ), "{error}");
//! ```

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::ops::Range;
use std::path::{Path, PathBuf};

use project_lanes::is_valid_label;
use project_lanes::record::{
    Field, Input, MAX_RECORD_BYTES, Op, Record, RecordError, Recorder, Text,
};
use serde::Deserialize;
use toml::Spanned;

use crate::OutputFile;

/// The format id every scenario file carries in `format`.
pub const SCENARIO_FORMAT: &str = "project-lanes/scenario";
/// The scenario format version this build reads.
pub const SCENARIO_VERSION: u32 = 1;
/// Largest scenario file read, in bytes (4 MiB); larger files are refused before reading.
pub const MAX_SCENARIO_BYTES: u64 = 4 * 1024 * 1024;
/// Most operations a scenario may hold. A record shows every lane (and every reservation) after
/// every step, so records grow quickly; this keeps a run short and the record readable.
pub const MAX_SCENARIO_STEPS: usize = 10_000;
/// Record ids a scenario may not take: the file `index.json` is the index.
const RESERVED_IDS: [&str; 1] = ["index"];

/// A place in a scenario file: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, counted in characters.
    pub column: usize,
}

/// Why a scenario could not become a record: the file, where in it, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    /// What kind of mistake, as a stable code (see [`ScenarioError::code`]).
    code: &'static str,
    /// The scenario file.
    pub file: PathBuf,
    /// Where in the file, when the error has a place.
    pub at: Option<Location>,
    /// What is wrong, for a person.
    pub message: String,
    /// The line at `at`, with a caret under the column.
    excerpt: Option<String>,
}

impl ScenarioError {
    fn whole_file(code: &'static str, file: &Path, message: impl Into<String>) -> ScenarioError {
        ScenarioError {
            code,
            file: file.to_path_buf(),
            at: None,
            message: message.into(),
            excerpt: None,
        }
    }

    /// A stable code for the kind of mistake, for programs (the playground shows it beside the
    /// message): `SCENARIO_UNREADABLE`, `SCENARIO_TOO_LARGE`, `SCENARIO_NOT_UTF8`,
    /// `SCENARIO_SYNTAX` (TOML, or a field of the wrong name or type), `NOT_A_SCENARIO`,
    /// `SCENARIO_VERSION`, `SCENARIO_TOO_MANY_STEPS`, `SCENARIO_INVALID` (a label, an input,
    /// a handle) or `RECORD_TOO_LARGE`.
    pub fn code(&self) -> &'static str {
        self.code
    }

    /// The line at [`ScenarioError::at`] with a caret under the column, as printed after the
    /// message.
    pub fn excerpt(&self) -> Option<&str> {
        self.excerpt.as_deref()
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some(at) = self.at {
            write!(f, ":{}:{}", at.line, at.column)?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(excerpt) = &self.excerpt {
            write!(f, "\n{excerpt}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// Text in both languages, as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TextDef {
    en: Spanned<String>,
    ja: Spanned<String>,
}

impl TextDef {
    fn text(&self) -> Text {
        Text {
            en: self.en.get_ref().clone(),
            ja: self.ja.get_ref().clone(),
        }
    }
}

/// Only the header: read first, so a file of another version is named as such.
#[derive(Debug, Deserialize)]
struct HeaderDef {
    format: Option<Spanned<String>>,
    version: Option<Spanned<i64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScenarioDef {
    #[allow(dead_code)] // checked through `HeaderDef`
    format: String,
    #[allow(dead_code)]
    version: i64,
    id: Spanned<String>,
    title: Spanned<TextDef>,
    summary: Spanned<TextDef>,
    projects: Spanned<Vec<Spanned<String>>>,
    untouched_project: Spanned<String>,
    #[serde(default)]
    queues: Option<Spanned<Vec<Spanned<String>>>>,
    steps: Spanned<Vec<Spanned<StepDef>>>,
}

/// One operation: `op`, its inputs, an optional note.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct StepDef {
    op: Spanned<Op>,
    queue: Option<Spanned<String>>,
    reservation: Option<Spanned<String>>,
    project: Option<Spanned<String>>,
    run: Option<Spanned<String>>,
    lease: Option<Spanned<String>>,
    outcome: Option<Spanned<String>>,
    saved: Option<Spanned<bool>>,
    note: Option<Spanned<TextDef>>,
}

impl StepDef {
    /// The span of an input field, if present.
    fn span_of(&self, field: Field) -> Option<Range<usize>> {
        match field {
            Field::Project => self.project.as_ref().map(Spanned::span),
            Field::Run => self.run.as_ref().map(Spanned::span),
            Field::Lease => self.lease.as_ref().map(Spanned::span),
            Field::Outcome => self.outcome.as_ref().map(Spanned::span),
            Field::Queue => self.queue.as_ref().map(Spanned::span),
            Field::Reservation => self.reservation.as_ref().map(Spanned::span),
            Field::Saved => self.saved.as_ref().map(Spanned::span),
        }
    }

    fn input(&self) -> Input {
        let text = |v: &Option<Spanned<String>>| v.as_ref().map(|s| s.get_ref().as_str().into());
        Input {
            queue: text(&self.queue),
            reservation: text(&self.reservation),
            project: text(&self.project),
            run: text(&self.run),
            lease: text(&self.lease),
            outcome: text(&self.outcome),
            saved: self.saved.as_ref().map(|s| *s.get_ref()),
        }
    }
}

/// A parsed scenario file, ready to run.
#[derive(Debug)]
pub struct Scenario {
    file: PathBuf,
    source: String,
    def: ScenarioDef,
}

impl Scenario {
    /// Reads and parses a scenario file, refusing one over [`MAX_SCENARIO_BYTES`] before
    /// reading it.
    pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
        let cannot = |e: std::io::Error| {
            ScenarioError::whole_file(
                "SCENARIO_UNREADABLE",
                path,
                format!("cannot read the file: {e}"),
            )
        };
        let mut file = File::open(path).map_err(cannot)?;
        let size = file.metadata().map_err(cannot)?.len();
        if size > MAX_SCENARIO_BYTES {
            return Err(too_large(path, size));
        }
        let mut bytes = Vec::new();
        file.by_ref()
            .take(MAX_SCENARIO_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(cannot)?;
        Scenario::from_bytes(path, bytes)
    }

    /// Parses the bytes of a scenario file (`file` names it in errors): refused over
    /// [`MAX_SCENARIO_BYTES`] or when not UTF-8, as [`Scenario::load`] refuses a file. The
    /// playground gives what a person types or opens to this same function.
    pub fn from_bytes(file: &Path, bytes: Vec<u8>) -> Result<Scenario, ScenarioError> {
        if bytes.len() as u64 > MAX_SCENARIO_BYTES {
            return Err(too_large(file, bytes.len() as u64));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            let offset = e.utf8_error().valid_up_to();
            let source = String::from_utf8_lossy(e.as_bytes()).into_owned();
            located(
                "SCENARIO_NOT_UTF8",
                file,
                &source,
                offset..offset,
                "the file is not UTF-8 text".into(),
            )
        })?;
        Scenario::parse(file, &text)
    }

    /// Parses scenario text; `file` names it in errors.
    pub fn parse(file: &Path, text: &str) -> Result<Scenario, ScenarioError> {
        if text.len() as u64 > MAX_SCENARIO_BYTES {
            return Err(too_large(file, text.len() as u64));
        }
        let toml_error = |e: toml::de::Error| {
            let span = e.span().unwrap_or(0..0);
            located(
                "SCENARIO_SYNTAX",
                file,
                text,
                span,
                e.message().trim_end().to_string() + &hint(e.message()),
            )
        };
        let header: HeaderDef = toml::from_str(text).map_err(toml_error)?;
        match &header.format {
            None => {
                return Err(ScenarioError::whole_file(
                    "NOT_A_SCENARIO",
                    file,
                    format!("missing `format = \"{SCENARIO_FORMAT}\"`: is this a scenario file?"),
                ));
            }
            Some(format) if format.get_ref() != SCENARIO_FORMAT => {
                return Err(located(
                    "NOT_A_SCENARIO",
                    file,
                    text,
                    format.span(),
                    format!(
                        "not a scenario file: format is \"{}\", expected \"{SCENARIO_FORMAT}\"",
                        format.get_ref()
                    ),
                ));
            }
            Some(_) => {}
        }
        match &header.version {
            None => {
                return Err(ScenarioError::whole_file(
                    "SCENARIO_VERSION",
                    file,
                    format!("missing `version = {SCENARIO_VERSION}`"),
                ));
            }
            Some(version) if *version.get_ref() != i64::from(SCENARIO_VERSION) => {
                return Err(located(
                    "SCENARIO_VERSION",
                    file,
                    text,
                    version.span(),
                    format!(
                        "unsupported scenario version {} (this build reads version {SCENARIO_VERSION})",
                        version.get_ref()
                    ),
                ));
            }
            Some(_) => {}
        }
        let def: ScenarioDef = toml::from_str(text).map_err(toml_error)?;
        Ok(Scenario {
            file: file.to_path_buf(),
            source: text.to_string(),
            def,
        })
    }

    /// The record id the scenario names.
    pub fn id(&self) -> &str {
        self.def.id.get_ref()
    }

    /// The record title the scenario names.
    pub fn title(&self) -> Text {
        self.def.title.get_ref().text()
    }

    /// The scenario file.
    pub fn file(&self) -> &Path {
        &self.file
    }

    fn error(&self, span: Range<usize>, message: impl Into<String>) -> ScenarioError {
        self.error_coded("SCENARIO_INVALID", span, message)
    }

    fn error_coded(
        &self,
        code: &'static str,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> ScenarioError {
        located(code, &self.file, &self.source, span, message.into())
    }

    /// Runs every operation on the real core and returns the record, checked against every
    /// rule of the record format. Errors point into the scenario file.
    pub fn record(&self) -> Result<Record, ScenarioError> {
        let def = &self.def;
        self.check_labels()?;
        let steps = def.steps.get_ref();
        if steps.len() > MAX_SCENARIO_STEPS {
            return Err(self.error_coded(
                "SCENARIO_TOO_MANY_STEPS",
                steps[MAX_SCENARIO_STEPS].span(),
                format!(
                    "a scenario may hold at most {MAX_SCENARIO_STEPS} operations; this file has {} (this is operation {})",
                    steps.len(),
                    MAX_SCENARIO_STEPS + 1
                ),
            ));
        }
        for step in steps {
            self.check_fields(step)?;
        }
        fn names(list: &Spanned<Vec<Spanned<String>>>) -> Vec<&str> {
            list.get_ref()
                .iter()
                .map(|s| s.get_ref().as_str())
                .collect()
        }
        let projects = names(&def.projects);
        let (title, summary) = (def.title.get_ref().text(), def.summary.get_ref().text());
        let id = def.id.get_ref();
        let untouched = def.untouched_project.get_ref();
        // Labels were checked above, so starting cannot fail on them.
        let started = match &def.queues {
            None => Recorder::new(id, title, summary, &projects, untouched),
            Some(queues) => {
                Recorder::dispatcher(id, title, summary, &projects, untouched, &names(queues))
            }
        };
        let mut recorder = started.map_err(|e| self.error(def.id.span(), e.to_string()))?;
        // Every step is written pretty, two levels deep in the record: count its bytes as it is
        // added, so a scenario whose record outgrows the limit stops there, not after filling
        // memory.
        let mut bytes: u64 = 0;
        for step in steps {
            let s = step.get_ref();
            recorder.step(*s.op.get_ref(), s.input());
            if let Some(note) = &s.note {
                recorder.note(note.get_ref().text());
            }
            if let Some(last) = recorder.last_step() {
                let json = serde_json::to_vec_pretty(last).unwrap_or_default();
                let lines = json.iter().filter(|&&b| b == b'\n').count() as u64 + 1;
                bytes += json.len() as u64 + 4 * lines + 2;
            }
            if bytes > MAX_RECORD_BYTES {
                return Err(self.error_coded(
                    "RECORD_TOO_LARGE",
                    step.span(),
                    format!(
                        "the record grows past {MAX_RECORD_BYTES} bytes (16 MiB, the most a viewer reads) at this operation: every step saves every lane and reservation; split the scenario"
                    ),
                ));
            }
        }
        recorder.finish().map_err(|e| self.record_error(e))
    }

    /// What `lane-records run` writes for this scenario: the record and its file, `<id>.json`
    /// holding [`crate::to_json`]'s bytes, refused past [`MAX_RECORD_BYTES`]. The playground
    /// calls this too, so it offers the same bytes.
    pub fn output(&self) -> Result<(Record, OutputFile), ScenarioError> {
        let record = self.record()?;
        let bytes = crate::to_json(&record);
        if bytes.len() as u64 > MAX_RECORD_BYTES {
            return Err(ScenarioError::whole_file(
                "RECORD_TOO_LARGE",
                &self.file,
                format!(
                    "the record would be {} bytes; records may be at most {MAX_RECORD_BYTES} bytes (16 MiB): split the scenario",
                    bytes.len()
                ),
            ));
        }
        let file = OutputFile {
            name: format!("{}.json", record.id),
            bytes,
        };
        Ok((record, file))
    }

    /// Labels the record itself needs (id, projects, queues) follow the label rule; operation
    /// inputs may be any text, so a record can show what a bad label does.
    fn check_labels(&self) -> Result<(), ScenarioError> {
        let def = &self.def;
        let rule = "labels match [A-Za-z0-9][A-Za-z0-9._-]{0,79}";
        let label = |what: &str, value: &Spanned<String>| {
            if is_valid_label(value.get_ref()) {
                Ok(())
            } else {
                Err(self.error(
                    value.span(),
                    format!(
                        "{what} \"{}\" breaks the label rule: {rule}",
                        value.get_ref()
                    ),
                ))
            }
        };
        label("the record id", &def.id)?;
        if RESERVED_IDS.contains(&def.id.get_ref().as_str()) {
            return Err(self.error(
                def.id.span(),
                "the record id \"index\" is taken: `index.json` is the index of a folder",
            ));
        }
        for project in def.projects.get_ref() {
            label("the project", project)?;
        }
        label("the untouched project", &def.untouched_project)?;
        if let Some(queues) = &def.queues {
            let list = queues.get_ref();
            if list.is_empty() || list.len() > 64 {
                return Err(self.error(
                    queues.span(),
                    "a dispatcher scenario needs 1 to 64 queues (leave `queues` out for a scenario of the lanes alone)",
                ));
            }
            for (i, queue) in list.iter().enumerate() {
                label("the queue", queue)?;
                if list[..i].iter().any(|q| q.get_ref() == queue.get_ref()) {
                    return Err(self.error(
                        queue.span(),
                        format!("the queue \"{}\" is listed twice", queue.get_ref()),
                    ));
                }
            }
        }
        Ok(())
    }

    /// Each operation gets exactly the inputs it takes.
    fn check_fields(&self, step: &Spanned<StepDef>) -> Result<(), ScenarioError> {
        let s = step.get_ref();
        let op = *s.op.get_ref();
        let takes = op.fields();
        for field in Field::ALL {
            match (takes.contains(&field), s.span_of(field)) {
                (true, None) => {
                    return Err(self.error(
                        s.op.span(),
                        format!("`{op}` needs `{}` ({})", field.as_str(), describe(takes)),
                    ));
                }
                (false, Some(span)) => {
                    return Err(self.error(
                        span,
                        format!("`{op}` takes no `{}` ({})", field.as_str(), describe(takes)),
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Points a rule the finished record breaks (`steps[3].input.lease: …`) at the scenario.
    fn record_error(&self, error: RecordError) -> ScenarioError {
        let (at, message) = match &error {
            RecordError::Invalid { at, message } => (at.as_str(), message.clone()),
            other => ("", other.to_string()),
        };
        match self.span_of_path(at) {
            Some(span) => self.error(span, message),
            None => ScenarioError::whole_file("SCENARIO_INVALID", &self.file, error.to_string()),
        }
    }

    /// The span of a record path such as `steps[3].input.lease` or `title.ja`.
    fn span_of_path(&self, path: &str) -> Option<Range<usize>> {
        let def = &self.def;
        let mut parts = path.split('.');
        let first = parts.next()?;
        let (name, index) = match first.split_once('[') {
            Some((name, rest)) => (name, rest.trim_end_matches(']').parse::<usize>().ok()),
            None => (first, None),
        };
        let text_span = |text: &Spanned<TextDef>, lang: Option<&str>| match lang {
            Some("en") => text.get_ref().en.span(),
            Some("ja") => text.get_ref().ja.span(),
            _ => text.span(),
        };
        let item = |list: &Spanned<Vec<Spanned<String>>>| match index {
            Some(i) => list.get_ref().get(i).map_or(list.span(), Spanned::span),
            None => list.span(),
        };
        Some(match name {
            "id" => def.id.span(),
            "title" => text_span(&def.title, parts.next()),
            "summary" => text_span(&def.summary, parts.next()),
            "projects" => item(&def.projects),
            "untouched_project" => def.untouched_project.span(),
            "queues" => item(def.queues.as_ref()?),
            "steps" => {
                let Some(i) = index else {
                    return Some(def.steps.span());
                };
                let step = def.steps.get_ref().get(i)?;
                let s = step.get_ref();
                match (parts.next(), parts.next()) {
                    (Some("op"), _) => s.op.span(),
                    (Some("input"), Some(field)) => Field::ALL
                        .into_iter()
                        .find(|f| f.as_str() == field)
                        .and_then(|f| s.span_of(f))
                        .unwrap_or(step.span()),
                    (Some("note"), lang) => {
                        s.note.as_ref().map_or(step.span(), |n| text_span(n, lang))
                    }
                    _ => step.span(),
                }
            }
            _ => return None,
        })
    }
}

fn describe(fields: &[Field]) -> String {
    let names: Vec<String> = fields.iter().map(|f| format!("`{}`", f.as_str())).collect();
    format!("it takes {}", names.join(", "))
}

/// A hint for the most likely mistakes behind a TOML error.
fn hint(message: &str) -> String {
    if message.contains("missing field `ja`") || message.contains("missing field `en`") {
        " (every title, summary and note needs both `en` and `ja`)".into()
    } else if message.contains("unknown variant") {
        " (the operations of a lanes scenario: claim, request_stop, release, view; of a dispatcher scenario: enqueue, dispatch, finish, persist, cancel, resolve, view)".into()
    } else {
        String::new()
    }
}

/// A file over [`MAX_SCENARIO_BYTES`].
fn too_large(file: &Path, size: u64) -> ScenarioError {
    ScenarioError::whole_file(
        "SCENARIO_TOO_LARGE",
        file,
        format!(
            "the file is {size} bytes; scenario files may be at most {MAX_SCENARIO_BYTES} bytes (4 MiB)"
        ),
    )
}

/// An error at byte offset `span.start` of `text`: line, column and the line with a caret.
fn located(
    code: &'static str,
    file: &Path,
    text: &str,
    span: Range<usize>,
    message: String,
) -> ScenarioError {
    let start = span.start.min(text.len());
    let start = (0..=start)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let line = text[..start].matches('\n').count() + 1;
    let column = text[line_start..start].chars().count() + 1;
    // A long line is shown around the column, so the caret stays under it.
    let skip = column.saturating_sub(100);
    let shown: String = text[line_start..line_end]
        .trim_end_matches('\r')
        .chars()
        .skip(skip)
        .take(160)
        .collect();
    let (prefix, caret) = match skip {
        0 => ("", column - 1),
        _ => ("…", column - skip),
    };
    let gutter = line.to_string();
    let excerpt = format!(
        "{gutter} | {prefix}{shown}\n{} | {}^",
        " ".repeat(gutter.len()),
        " ".repeat(caret)
    );
    ScenarioError {
        code,
        file: file.to_path_buf(),
        at: Some(Location { line, column }),
        message,
        excerpt: Some(excerpt),
    }
}
