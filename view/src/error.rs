//! What can go wrong loading and reading files: [`ViewerError`], the viewer's own stable codes
//! (never the core's: a test keeps them apart), and [`LoadError`], a code with its detail.

/// Errors of the viewer itself: what went wrong loading or reading files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewerError {
    /// The index could not be fetched.
    IndexUnavailable,
    /// A record could not be fetched.
    RecordUnavailable,
    /// A file is not JSON (or not UTF-8).
    InvalidJson,
    /// A file is not a project-lanes record or index.
    UnknownFormat,
    /// A file has a format version this build cannot read.
    UnsupportedVersion,
    /// A record's SHA-256 differs from the index.
    HashMismatch,
    /// A record or index breaks the format.
    InvalidRecord,
    /// A record file is over the size limit.
    RecordTooLarge,
    /// An id (from `select`, the `record` option or the deep link) names no record in the index.
    UnknownRecord,
    /// The index breaks the index format (too many entries, a repeated id, a bad entry).
    InvalidIndex,
    /// The index lists no records.
    EmptyIndex,
    /// The index file is over the size limit.
    IndexTooLarge,
    /// An opened record has the id of a record already shown.
    DuplicateRecord,
    /// A step's saved result or snapshot differs from what the core returns on replay.
    ReplayMismatch,
}

impl ViewerError {
    /// Every viewer error.
    pub const ALL: [ViewerError; 14] = [
        ViewerError::IndexUnavailable,
        ViewerError::RecordUnavailable,
        ViewerError::InvalidJson,
        ViewerError::UnknownFormat,
        ViewerError::UnsupportedVersion,
        ViewerError::HashMismatch,
        ViewerError::InvalidRecord,
        ViewerError::RecordTooLarge,
        ViewerError::UnknownRecord,
        ViewerError::InvalidIndex,
        ViewerError::EmptyIndex,
        ViewerError::IndexTooLarge,
        ViewerError::DuplicateRecord,
        ViewerError::ReplayMismatch,
    ];

    /// The stable code shown verbatim and used in `data-viewer-error`.
    pub fn code(self) -> &'static str {
        match self {
            ViewerError::IndexUnavailable => "INDEX_UNAVAILABLE",
            ViewerError::RecordUnavailable => "RECORD_UNAVAILABLE",
            ViewerError::InvalidJson => "INVALID_JSON",
            ViewerError::UnknownFormat => "UNKNOWN_FORMAT",
            ViewerError::UnsupportedVersion => "UNSUPPORTED_VERSION",
            ViewerError::HashMismatch => "HASH_MISMATCH",
            ViewerError::InvalidRecord => "INVALID_RECORD",
            ViewerError::RecordTooLarge => "RECORD_TOO_LARGE",
            ViewerError::UnknownRecord => "UNKNOWN_RECORD",
            ViewerError::InvalidIndex => "INVALID_INDEX",
            ViewerError::EmptyIndex => "EMPTY_INDEX",
            ViewerError::IndexTooLarge => "INDEX_TOO_LARGE",
            ViewerError::DuplicateRecord => "DUPLICATE_RECORD",
            ViewerError::ReplayMismatch => "REPLAY_MISMATCH",
        }
    }
}

/// Why something could not be shown: a code for the page and a technical detail.
///
/// `T` is the file's text as the page keeps it (a JavaScript string in the viewer: the wasm
/// never reads it again).
#[derive(Debug, Clone)]
pub struct LoadError<T> {
    /// What kind of failure (its code is shown verbatim).
    pub kind: ViewerError,
    /// What exactly went wrong, in English, for people who debug.
    pub detail: String,
    /// The file's text, when it is a record that breaks the format (shown under the error).
    pub raw: Option<T>,
    /// For a record with more steps than the viewer holds (`RECORD_TOO_LARGE`): the most it
    /// holds, said in the reader's language under the error.
    pub held: Option<Held>,
}

/// The most steps of a record a viewer holds, and about how much memory that is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Held {
    /// Steps.
    pub steps: u64,
    /// Their memory, in bytes (an estimate from a measured size of a step).
    pub memory: u64,
}

impl<T> LoadError<T> {
    /// A failure of this `kind`, with its `detail` and no file text.
    pub fn new(kind: ViewerError, detail: impl Into<String>) -> LoadError<T> {
        LoadError {
            kind,
            detail: detail.into(),
            raw: None,
            held: None,
        }
    }
}
