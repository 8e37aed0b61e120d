//! What to export from a journal, and why an export can fail.

use std::fmt;

use crate::Label;
use crate::label::Quoted;
use crate::record::{
    MAX_NAME_CHARS, MAX_PROJECTS, MAX_RECORD_BYTES, MAX_STEPS, RecordError, Text, Timestamp,
};

#[cfg(doc)]
use super::history::Journal;

/// What to export from a [`Journal`], and what to call the record.
///
/// ```
/// use project_lanes::journal::{Export, Journal};
/// use project_lanes::ProjectLanes;
///
/// let lanes = ProjectLanes::new().with_journal(None);
/// let lease = lanes.claim("docs", "nightly-7")?;
/// lanes.claim("docs", "deploy-3").unwrap_err(); // PROJECT_BUSY, journaled too
/// lanes.release(&lease, project_lanes::Outcome::Succeeded)?;
///
/// let mut journal = Journal::lanes();
/// journal.extend(lanes.take_journal());
/// let record = journal.record(&Export::new("tonight", "build farm")?)?;
/// assert_eq!(record.steps.len(), 3);
/// assert_eq!(project_lanes::record::replay(&record), Ok(()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Export {
    pub(super) id: Label,
    pub(super) system: String,
    pub(super) title: Option<Text>,
    pub(super) summary: Option<Text>,
    pub(super) projects: Vec<Label>,
    pub(super) since: Option<Timestamp>,
    pub(super) until: Option<Timestamp>,
    pub(super) size_limit: bool,
    pub(super) chain: bool,
}

/// Why a journal could not become a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExportError {
    /// The record's id breaks the label rule.
    InvalidId(String),
    /// The system's name is not 1 to 200 characters of one line.
    InvalidSystem(String),
    /// A project asked for breaks the label rule.
    InvalidProject(String),
    /// A project asked for appears nowhere in the journal.
    UnknownProject(Label),
    /// The window ends before it starts (or where it starts).
    EmptyWindow {
        /// The window's start.
        since: Timestamp,
        /// The window's end.
        until: Timestamp,
    },
    /// A window was asked for, but the journal holds entries without a time (it was kept without
    /// a clock).
    NoTimes,
    /// No entry of the journal falls in the window and the projects asked for.
    Nothing,
    /// The record would show more than 64 projects: ask for some of them.
    TooManyProjects(usize),
    /// The record would hold more than 100,000 steps: ask for a shorter window.
    TooManySteps(usize),
    /// The record would be larger than readers take ([`MAX_RECORD_BYTES`], 16 MiB), however it
    /// is written: found while it is built, so a large cut fails in bounded memory.
    TooLarge,
    /// An entry's answer does not fit its call, or names a lease or reservation the journal
    /// never issued: the journal is not one a system could have written.
    Inconsistent {
        /// The entry's index in the journal.
        entry: usize,
        /// What does not fit.
        message: String,
    },
    /// The record would break a rule of the format.
    Invalid(RecordError),
    /// The record could not be written (what the output said).
    Write(String),
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExportError::InvalidId(id) => write!(
                f,
                "the record id {} breaks the label rule [A-Za-z0-9][A-Za-z0-9._-]{{0,79}}",
                Quoted(id)
            ),
            ExportError::InvalidSystem(name) => write!(
                f,
                "the system's name {} is not 1 to {MAX_NAME_CHARS} characters of one line",
                Quoted(name)
            ),
            ExportError::InvalidProject(p) => {
                write!(f, "the project {} breaks the label rule", Quoted(p))
            }
            ExportError::UnknownProject(p) => write!(
                f,
                "the project {} appears nowhere in the journal",
                Quoted(p)
            ),
            ExportError::EmptyWindow { since, until } if since == until => write!(
                f,
                "the window starts and ends at {since}: nothing can fall in it (its end is not \
                 part of it)"
            ),
            ExportError::EmptyWindow { since, until } => write!(
                f,
                "the window ends ({until}) before it starts ({since}): nothing can fall in it"
            ),
            ExportError::NoTimes => f.write_str(
                "the journal was kept without a clock: its entries have no times to cut a window by",
            ),
            ExportError::Nothing => f.write_str(
                "no transition of the journal falls in this window and these projects: \
                 there is nothing to export",
            ),
            ExportError::TooManyProjects(n) => write!(
                f,
                "the record would show {n} projects; a record shows at most {MAX_PROJECTS}: \
                 export some projects"
            ),
            ExportError::TooManySteps(n) => write!(
                f,
                "the record would hold {n} steps; a record holds at most {MAX_STEPS}: \
                 export a shorter window"
            ),
            ExportError::TooLarge => write!(
                f,
                "the record would be larger than readers take ({MAX_RECORD_BYTES} bytes, 16 MiB): \
                 export a shorter window or fewer projects"
            ),
            ExportError::Inconsistent { entry, message } => {
                write!(f, "journal entry {entry}: {message}")
            }
            ExportError::Invalid(e) => write!(f, "the record would be invalid: {e}"),
            ExportError::Write(e) => write!(f, "the record could not be written: {e}"),
        }
    }
}

impl std::error::Error for ExportError {}

impl Export {
    /// Exports every entry as the record `id`, from the system `system` (its name as its
    /// operators say it).
    pub fn new(id: &str, system: &str) -> Result<Export, ExportError> {
        let id = Label::new(id).map_err(|_| ExportError::InvalidId(id.to_string()))?;
        let plain = !system.trim().is_empty()
            && system.chars().count() <= MAX_NAME_CHARS
            && !system.chars().any(char::is_control);
        if !plain {
            return Err(ExportError::InvalidSystem(system.to_string()));
        }
        Ok(Export {
            id,
            system: system.to_string(),
            title: None,
            summary: None,
            projects: Vec::new(),
            since: None,
            until: None,
            size_limit: true,
            chain: false,
        })
    }

    /// Only these projects, shown in this order (every entry of another project is left out:
    /// operations on different projects commute, so the rest still replays).
    pub fn projects<S: AsRef<str>>(mut self, projects: &[S]) -> Result<Export, ExportError> {
        let mut labels: Vec<Label> = Vec::with_capacity(projects.len());
        for p in projects {
            let label = Label::new(p.as_ref())
                .map_err(|_| ExportError::InvalidProject(p.as_ref().to_string()))?;
            if !labels.contains(&label) {
                labels.push(label);
            }
        }
        self.projects = labels;
        Ok(self)
    }

    /// Refuses a window that ends before it starts, or where it starts (nothing can fall in it).
    pub fn check(&self) -> Result<(), ExportError> {
        match (self.since, self.until) {
            (Some(since), Some(until)) if since >= until => {
                Err(ExportError::EmptyWindow { since, until })
            }
            _ => Ok(()),
        }
    }

    /// Only the entries from `since` on (inclusive).
    pub fn since(mut self, since: Timestamp) -> Export {
        self.since = Some(since);
        self
    }

    /// Only the entries before `until` (exclusive).
    pub fn until(mut self, until: Timestamp) -> Export {
        self.until = Some(until);
        self
    }

    /// A version 3 record that carries the journal's hash chain
    /// ([`Journal::write_record`](super::Journal::write_record)): each step its link's tag, the
    /// end the root, so a reader
    /// recomputes the chain and names the first step changed after the fact. A record cut by
    /// project carries the other projects' entries as their links.
    pub fn chained(mut self) -> Export {
        self.chain = true;
        self
    }

    /// No limit on the record's size, for a record that is replayed, never written (an audit
    /// of one step whose snapshot alone is larger than readers take): the cut then takes
    /// memory as its snapshots grow.
    pub fn without_size_limit(mut self) -> Export {
        self.size_limit = false;
        self
    }

    /// The record's title (by default "What SYSTEM did").
    pub fn title(mut self, title: Text) -> Export {
        self.title = Some(title);
        self
    }

    /// The record's summary (by default it says the record was recorded from a running system,
    /// how many steps it holds, and its window).
    pub fn summary(mut self, summary: Text) -> Export {
        self.summary = Some(summary);
        self
    }
}

fn window_words(export: &Export) -> (String, String) {
    match (export.since, export.until) {
        (None, None) => (String::new(), String::new()),
        (Some(s), None) => (format!(", from {s}"), format!("（{s} 以降）")),
        (None, Some(u)) => (format!(", before {u}"), format!("（{u} より前）")),
        (Some(s), Some(u)) => (
            format!(", from {s} until {u}"),
            format!("（{s} から {u} まで）"),
        ),
    }
}

pub(super) fn default_title(export: &Export) -> Text {
    Text {
        en: format!("What {} did", export.system),
        ja: format!("{} の記録", export.system),
    }
}

/// The summary of a record written as it is cut (version 3), which does not know its length
/// when it starts (its end line counts the steps).
#[cfg(feature = "json")]
pub(super) fn streamed_summary(export: &Export) -> Text {
    let (en_window, ja_window) = window_words(export);
    Text {
        en: format!(
            "Recorded from a running system, {}{en_window}: every step with the answer the system gave. Replaying it on the core checks every answer.",
            export.system
        ),
        ja: format!(
            "稼働中のシステム {} の記録です{ja_window}。各ステップの応答はシステムが返したもので、コアに再生するとすべての応答を確かめられます。",
            export.system
        ),
    }
}

pub(super) fn default_summary(export: &Export, steps: usize) -> Text {
    let (en_window, ja_window) = window_words(export);
    let noun = if steps == 1 { "step" } else { "steps" };
    Text {
        en: format!(
            "Recorded from a running system, {}: {steps} {noun}{en_window}, each with the answer the system gave. Replaying it on the core checks every answer.",
            export.system
        ),
        ja: format!(
            "稼働中のシステム {} から記録した {steps} ステップです{ja_window}。各ステップの応答はシステムが返したもので、コアに再生するとすべての応答を確かめられます。",
            export.system
        ),
    }
}
