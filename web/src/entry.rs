//! The viewer's data: a record to show ([`Entry`]) and what became of its file ([`Loaded`] or a
//! [`LoadError`]), and a file a person opened ([`Opened`]). Shared by loading, reading,
//! verifying, the app and rendering.

use std::cell::RefCell;

use project_lanes::record::{Record, Text};

use project_lanes::record::ReplayMismatch;

use crate::i18n::ViewerError;

/// Why something could not be shown: a code for the page and a technical detail.
#[derive(Debug, Clone)]
pub struct LoadError {
    /// What kind of failure (its code is shown verbatim).
    pub kind: ViewerError,
    /// What exactly went wrong, in English, for people who debug.
    pub detail: String,
    /// The file's text, when it is a record that breaks the format (shown under the error).
    pub raw: Option<js_sys::JsString>,
}

impl LoadError {
    pub fn new(kind: ViewerError, detail: impl Into<String>) -> LoadError {
        LoadError {
            kind,
            detail: detail.into(),
            raw: None,
        }
    }
}

/// A record file that loaded, passed its hash check (if it has an index) and was read.
pub struct Loaded {
    pub record: Record,
    /// The file's text, shown as raw JSON. Kept as a JavaScript string: the page shows it, the
    /// wasm never reads it again.
    pub raw: js_sys::JsString,
    /// What replaying it on the core found (filled in by `verify`).
    pub verification: RefCell<Verification>,
}

/// One record to show (from the index, or opened by the person) and what became of its file.
pub struct Entry {
    pub id: String,
    pub title: Text,
    /// The file name (for the download link, or the name of the file the person opened).
    pub file: String,
    /// The file's absolute URL (for the download link); `None` for opened files.
    pub url: Option<String>,
    /// Opened by the person (from a file, a drop or `open_text`), not from the page's index.
    pub opened: bool,
    /// An opened file that could not be read: its id is made from its file name and gives way
    /// to a record that has that id.
    pub named_by_file: bool,
    /// The file is still being fetched (`content` holds a placeholder until it arrives).
    pub pending: bool,
    pub content: Result<std::rc::Rc<Loaded>, LoadError>,
}

/// One file a person opened: its name and its bytes (or why they could not be read).
pub struct Opened {
    pub name: String,
    pub bytes: Result<Vec<u8>, LoadError>,
}

/// An entry for an opened file that could not be read: it is named by its file name.
pub fn failed(name: &str, error: LoadError) -> Entry {
    Entry {
        id: String::new(),
        title: Text {
            en: name.to_string(),
            ja: name.to_string(),
        },
        file: name.to_string(),
        url: None,
        opened: true,
        named_by_file: true,
        pending: false,
        content: Err(error),
    }
}

/// What replaying a record on the core found.
#[derive(Default)]
pub enum Verification {
    /// Not started yet (the record was never shown).
    #[default]
    NotStarted,
    /// Replaying: this many steps matched so far.
    Running(usize),
    /// Every step and the final lanes match the core.
    Verified,
    /// The record parsed but breaks the format, or the core returns something else.
    Failed(ReplayMismatch),
}

impl Verification {
    /// `data-verification` on the panel.
    pub fn code(&self) -> &'static str {
        match self {
            Verification::NotStarted | Verification::Running(_) => "pending",
            Verification::Verified => "verified",
            Verification::Failed(ReplayMismatch::Invalid(_)) => "invalid",
            Verification::Failed(_) => "mismatch",
        }
    }

    /// The step that does not match, if any.
    pub fn mismatch_step(&self) -> Option<usize> {
        match self {
            Verification::Failed(ReplayMismatch::Result { step, .. })
            | Verification::Failed(ReplayMismatch::Reservations { step, .. }) => Some(*step),
            Verification::Failed(ReplayMismatch::Lanes { step, .. }) => *step,
            _ => None,
        }
    }
}
