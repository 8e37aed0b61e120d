//! The records a viewer shows: an [`Entry`] per tab, what became of its file ([`Content`]:
//! still loading, read as [`Loaded`], or failed), and what replaying it found
//! ([`Verification`]).
//!
//! `T` is the file's text as the page keeps it (a JavaScript string in the viewer, shown as raw
//! JSON and never read by the wasm again; anything in native tests).

use std::cell::{Cell, OnceCell, RefCell};
use std::rc::Rc;

use project_lanes::record::chain::Hash;
use project_lanes::record::{Record, ReplayMismatch, Text};

use crate::error::{LoadError, ViewerError};
use crate::find::{Concerns, Found};
use crate::recorded::Notes;

/// A record file that loaded, passed its hash check (if it has an index) and was read.
pub struct Loaded<T> {
    /// The record.
    pub record: Record,
    /// The file's text, shown as raw JSON.
    pub raw: T,
    /// What replaying it on the core found.
    pub verification: RefCell<Verification>,
    /// The hash chain it carries, as the reader recomputed it (a chain that breaks makes the
    /// record invalid before it is loaded).
    pub proof: Proof,
    /// How many rows its timeline has, once asked.
    rows: OnceCell<usize>,
    /// What it shows unchecked and its steps whose times stand out, once asked.
    notes: OnceCell<Notes>,
    /// What each step concerns, once searched ([`Concerns::sources`], four bytes a step).
    concerns: OnceCell<Vec<u32>>,
    /// The last search in it and its matches.
    found: RefCell<Option<(String, Found)>>,
}

impl<T> Loaded<T> {
    /// A record read from the file with text `raw`, not replayed yet.
    pub fn new(record: Record, raw: T) -> Loaded<T> {
        Loaded {
            record,
            raw,
            verification: RefCell::default(),
            proof: Proof::Unchained,
            rows: OnceCell::new(),
            notes: OnceCell::new(),
            concerns: OnceCell::new(),
            found: RefCell::default(),
        }
    }

    /// How many rows its timeline has ([`rows::count`](crate::timeline::rows::count), counted
    /// once: it reads every step of a version 3 record).
    pub fn rows(&self) -> usize {
        *self
            .rows
            .get_or_init(|| crate::timeline::rows::count(&self.record))
    }

    /// Its [`Notes`] (noted once: they read every step, and every drawing of its panel shows
    /// them).
    pub fn notes(&self) -> &Notes {
        self.notes
            .get_or_init(|| crate::recorded::notes(&self.record))
    }

    /// What each of its steps concerns, for the find box (read once, at its first search: a
    /// search on every key and on every switch back to the record would read every step).
    pub fn concerns(&self) -> Concerns<'_> {
        let sources = self
            .concerns
            .get_or_init(|| Concerns::sources(&self.record));
        Concerns::with(&self.record, sources)
    }

    /// The matches of `query` in it: those of its last search if that was `query` (a switch
    /// back to the record finds them again), else `find`'s, kept as its last.
    pub fn found(&self, query: &str, find: impl FnOnce() -> Found) -> Found {
        let mut last = self.found.borrow_mut();
        match &*last {
            Some((q, found)) if q == query => found.clone(),
            _ => {
                let found = find();
                *last = Some((query.to_owned(), found.clone()));
                found
            }
        }
    }
}

/// What became of an entry's file.
pub enum Content<T> {
    /// Still being fetched.
    Pending,
    /// Read and checked.
    Loaded(Rc<Loaded<T>>),
    /// It could not be shown, and why.
    Failed(LoadError<T>),
}

impl<T> Content<T> {
    /// The record, once it loaded.
    pub fn loaded(&self) -> Option<&Rc<Loaded<T>>> {
        match self {
            Content::Loaded(loaded) => Some(loaded),
            _ => None,
        }
    }

    /// Whether the file is still being fetched.
    pub fn is_pending(&self) -> bool {
        matches!(self, Content::Pending)
    }

    /// It could not be shown.
    pub fn is_failed(&self) -> bool {
        matches!(self, Content::Failed(_))
    }
}

impl<T> From<Result<Rc<Loaded<T>>, LoadError<T>>> for Content<T> {
    fn from(result: Result<Rc<Loaded<T>>, LoadError<T>>) -> Content<T> {
        match result {
            Ok(loaded) => Content::Loaded(loaded),
            Err(error) => Content::Failed(error),
        }
    }
}

/// One record to show (from the index, or opened by the person) and what became of its file.
pub struct Entry<T> {
    /// The record's id (its tab's `data-record-id`, the deep link's `record`).
    pub id: String,
    /// The record's title, in both languages (the tab's text).
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
    /// Its file's SHA-256 is compared with an index's (records of an index); a record without
    /// one (a single record, one held in the page, a lone opened file) is still checked and
    /// replayed, and its panel says there was no hash to compare.
    pub hashed: bool,
    /// The page was told its [`Verdict`] (the viewer's `lane-viewer-verdict`, once per entry).
    pub verdict_told: Cell<bool>,
    /// What became of its file.
    pub content: Content<T>,
}

impl<T> Entry<T> {
    /// An entry for an opened file that could not be read: it is named by its file name.
    pub fn failed(name: &str, error: LoadError<T>) -> Entry<T> {
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
            hashed: false,
            verdict_told: Default::default(),
            content: Content::Failed(error),
        }
    }

    /// Steps of its record (0 unless it loaded).
    pub fn steps(&self) -> usize {
        self.content.loaded().map_or(0, |l| l.record.steps.len())
    }

    /// How reading and replaying its record ended; `None` while its file loads or its replay
    /// runs (or has not started: a record is replayed once shown, or once a page asks).
    pub fn verdict(&self) -> Option<Verdict> {
        match &self.content {
            Content::Pending => None,
            Content::Failed(error) => Some(Verdict::invalid(error.kind)),
            Content::Loaded(loaded) => {
                let verdict = loaded.verification.borrow().verdict()?;
                Some(Verdict {
                    chain: loaded.proof.code(),
                    root: loaded.proof.root().map(Hash::to_hex),
                    ..verdict
                })
            }
        }
    }
}

/// How many hex digits of a root are shown (the whole is copied, and in the title).
pub const ROOT_SHOWN: usize = 12;

/// A record's hash chain, recomputed by the reader when it was read (version 3 records of a
/// journal; `project_lanes::record::stream::Chain`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Proof {
    /// No chain: a record of a scenario, of a journal without a chain, or of version 1 or 2.
    #[default]
    Unchained,
    /// Every link recomputed and equal to what the record carries.
    Chained {
        /// The chain's last link: the record's identity.
        root: Hash,
        /// The fingerprint of the key whose signature of the record's checkpoint verified.
        signer: Option<String>,
        /// The fingerprints of the checkpoint's signatures by keys the record does not give.
        others: Vec<String>,
    },
}

impl Proof {
    /// `data-chain` on the panel, and `chain` in a verdict: `signed`, `unsigned` or `none`.
    pub fn code(&self) -> &'static str {
        match self {
            Proof::Unchained => "none",
            Proof::Chained {
                signer: Some(_), ..
            } => "signed",
            Proof::Chained { signer: None, .. } => "unsigned",
        }
    }

    /// The record's root, if it is chained.
    pub fn root(&self) -> Option<&Hash> {
        match self {
            Proof::Unchained => None,
            Proof::Chained { root, .. } => Some(root),
        }
    }
}

/// How reading and replaying a record ended, as a page is told it (`lane-viewer-verdict`,
/// `verdict()` on the viewer's handle and element).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// `verified`, `mismatch` or `invalid` (it breaks the format, or its file could not be
    /// read: `code` says which).
    pub verdict: &'static str,
    /// The step (from 0, as `data-step`) where the record and the core part, when there is one.
    pub step: Option<usize>,
    /// The error code shown (`REPLAY_MISMATCH`, `INVALID_RECORD`, a loading error's); none
    /// when verified.
    pub code: Option<&'static str>,
    /// The record's hash chain ([`Proof::code`]): `signed`, `unsigned`, or `none` (no chain,
    /// or a record that could not be read: a chain that breaks makes it invalid).
    pub chain: &'static str,
    /// The record's root (64 hex digits), if it is chained.
    pub root: Option<String>,
}

impl Verdict {
    /// A record whose file could not be shown, or an index or `src` that could not be.
    pub fn invalid(kind: ViewerError) -> Verdict {
        Verdict {
            verdict: "invalid",
            step: None,
            code: Some(kind.code()),
            chain: "none",
            root: None,
        }
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

    /// How the replay ended; `None` while it has not.
    pub fn verdict(&self) -> Option<Verdict> {
        match self {
            Verification::NotStarted | Verification::Running(_) => None,
            Verification::Verified => Some(Verdict {
                verdict: "verified",
                step: None,
                code: None,
                chain: "none",
                root: None,
            }),
            Verification::Failed(ReplayMismatch::Invalid(_)) => {
                Some(Verdict::invalid(ViewerError::InvalidRecord))
            }
            Verification::Failed(_) => Some(Verdict {
                verdict: "mismatch",
                step: self.mismatch_step(),
                code: Some(ViewerError::ReplayMismatch.code()),
                chain: "none",
                root: None,
            }),
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

    /// What a verification line shows: its state and, while running, its progress.
    pub fn signature(&self) -> (&'static str, usize) {
        let progress = match self {
            Verification::Running(n) => *n,
            _ => 0,
        };
        (self.code(), progress)
    }
}
