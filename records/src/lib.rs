//! # lane-records
//!
//! Generates the example records by running the scenarios in [`scenarios`] on the real
//! `project-lanes` core, writes them as pretty JSON with an `index.json`, checks committed files
//! against a fresh generation, and reads and replays record files with clear errors.
//!
//! It is not the viewer (that is `web/`) and holds no lane logic of its own: results come from the
//! core, and the format and its checks live in `project_lanes::record`.

pub mod scenarios;

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use project_lanes::record::{Header, ReplayMismatch, replay};
use project_lanes::record::{INDEX_FORMAT, Index, IndexEntry, Record, RecordError, VERSION};
use serde::Serialize;
use sha2::{Digest, Sha256};

pub use project_lanes::record::MAX_RECORD_BYTES;

/// The file name of the index, next to the records.
pub const INDEX_FILE: &str = "index.json";

/// One generated file: its name inside the records folder and its exact bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputFile {
    /// File name, e.g. `busy-project.json`.
    pub name: String,
    /// Pretty JSON with a final newline.
    pub bytes: Vec<u8>,
}

/// The folder the committed records live in (`records/` in the workspace).
pub fn records_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Pretty JSON, two-space indent, keys in declaration order, final newline: byte-identical on
/// every run.
pub fn to_json<T: Serialize>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).unwrap_or_else(|e| {
        // Only maps with non-string keys fail to serialize; the record types have none.
        unreachable!("record types always serialize: {e}")
    });
    bytes.push(b'\n');
    bytes
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Runs every scenario and returns the record files followed by `index.json`.
pub fn generate() -> Result<Vec<OutputFile>, Box<dyn std::error::Error>> {
    let records = scenarios::all()?;
    let mut files = Vec::with_capacity(records.len() + 1);
    let mut entries = Vec::with_capacity(records.len());
    for record in &records {
        let file = OutputFile {
            name: format!("{}.json", record.id),
            bytes: to_json(record),
        };
        entries.push(IndexEntry {
            id: record.id.clone(),
            file: file.name.clone(),
            title: record.title.clone(),
            sha256: sha256_hex(&file.bytes),
        });
        files.push(file);
    }
    let index = Index {
        format: INDEX_FORMAT.into(),
        version: VERSION,
        records: entries,
    };
    index.check()?;
    files.push(OutputFile {
        name: INDEX_FILE.into(),
        bytes: to_json(&index),
    });
    Ok(files)
}

/// A committed file that differs from a fresh generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// File name inside the records folder.
    pub name: String,
    /// A unified diff from the committed file to the generated one (or why it is missing).
    pub diff: String,
}

/// Compares the files in `dir` with `files`; returns every difference (empty when all match).
pub fn compare(dir: &Path, files: &[OutputFile]) -> Vec<Difference> {
    let mut differences = Vec::new();
    for file in files {
        let path = dir.join(&file.name);
        let committed = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                differences.push(Difference {
                    name: file.name.clone(),
                    diff: format!("cannot read {}: {e}", path.display()),
                });
                continue;
            }
        };
        if committed != file.bytes {
            let old = String::from_utf8_lossy(&committed);
            let new = String::from_utf8_lossy(&file.bytes);
            let diff = similar::TextDiff::from_lines(old.as_ref(), new.as_ref())
                .unified_diff()
                .context_radius(2)
                .header(
                    &format!("{} (committed)", file.name),
                    &format!("{} (generated)", file.name),
                )
                .to_string();
            differences.push(Difference {
                name: file.name.clone(),
                diff,
            });
        }
    }
    differences
}

/// Why a record file could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The file is larger than [`MAX_RECORD_BYTES`].
    TooLarge {
        /// The file's size.
        bytes: u64,
    },
    /// The bytes are not JSON of the expected shape.
    Json {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's description.
        message: String,
    },
    /// The JSON is a record that breaks the format's rules, or not a record of this version.
    Record(RecordError),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read the file: {e}"),
            ReadError::TooLarge { bytes } => write!(
                f,
                "the file is {bytes} bytes; records may be at most {MAX_RECORD_BYTES} bytes"
            ),
            ReadError::Json {
                line,
                column,
                message,
            } => write!(f, "line {line}, column {column}: {message}"),
            ReadError::Record(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<serde_json::Error> for ReadError {
    fn from(e: serde_json::Error) -> Self {
        let message = e.to_string();
        // serde_json appends " at line L column C"; the position is reported separately.
        let message = match message.rfind(" at line ") {
            Some(cut) => message[..cut].to_string(),
            None => message,
        };
        ReadError::Json {
            line: e.line(),
            column: e.column(),
            message,
        }
    }
}

/// Parses and checks one record: the header first (so an unknown version is named as such),
/// then the whole record, then the format's rules.
pub fn parse_record(bytes: &[u8]) -> Result<Record, ReadError> {
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(ReadError::TooLarge {
            bytes: bytes.len() as u64,
        });
    }
    let header: Header = serde_json::from_slice(bytes)?;
    header.check().map_err(ReadError::Record)?;
    let record: Record = serde_json::from_slice(bytes)?;
    record.check().map_err(ReadError::Record)?;
    Ok(record)
}

/// Reads a record file, refusing one larger than [`MAX_RECORD_BYTES`] before reading it all.
pub fn read_record(path: &Path) -> Result<Record, ReadError> {
    let mut file = File::open(path).map_err(ReadError::Io)?;
    let size = file.metadata().map_err(ReadError::Io)?.len();
    if size > MAX_RECORD_BYTES {
        return Err(ReadError::TooLarge { bytes: size });
    }
    let mut bytes = Vec::new();
    file.by_ref()
        .take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    parse_record(&bytes)
}

/// What replaying one file found.
#[derive(Debug)]
pub enum ReplayReport {
    /// Every step matched; the number of steps.
    Matched(usize),
    /// The file could not be read as a record.
    Unreadable(ReadError),
    /// A step differed.
    Mismatch(ReplayMismatch),
}

/// Reads and replays one record file.
pub fn replay_file(path: &Path) -> ReplayReport {
    match read_record(path) {
        Err(e) => ReplayReport::Unreadable(e),
        Ok(record) => match replay(&record) {
            Ok(()) => ReplayReport::Matched(record.steps.len()),
            Err(mismatch) => ReplayReport::Mismatch(mismatch),
        },
    }
}

/// Describes a mismatch for people: the step, its operation, and both results as JSON.
pub fn describe_mismatch(mismatch: &ReplayMismatch) -> String {
    match mismatch {
        ReplayMismatch::Invalid(e) => format!("invalid record: {e}"),
        ReplayMismatch::Result {
            step,
            op,
            saved,
            actual,
        } => format!(
            "step {step} ({op}): result differs\n  saved:  {}\n  actual: {}",
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
        ReplayMismatch::Lanes {
            step,
            op,
            saved,
            actual,
        } => {
            let at = match (step, op) {
                (Some(step), Some(op)) => format!("step {step} ({op}): lanes after the step"),
                _ => "final lanes".to_string(),
            };
            format!(
                "{at} differ\n  saved:  {}\n  actual: {}",
                json(saved),
                json(actual)
            )
        }
        ReplayMismatch::Reservations {
            step,
            op,
            saved,
            actual,
        } => format!(
            "step {step} ({op}): reservations after the step differ\n  saved:  {}\n  actual: {}",
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
    }
}

/// Compact JSON of a record value, for messages.
fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("<{e}>"))
}
