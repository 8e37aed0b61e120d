//! # lane-records
//!
//! Turns scenario files ([`scenario`], TOML) into records by running them on the real
//! `project-lanes` core, writes records as pretty JSON, indexes a folder of records
//! (`index.json` with the SHA-256 of each file), checks the committed records against a fresh
//! generation from `records/scenarios/`, and reads and replays record files with clear errors.
//!
//! ```
//! use lane_records::scenario::Scenario;
//!
//! let text = r#"
//! format = "project-lanes/scenario"
//! version = 1
//! id = "tiny"
//! title = { en = "Tiny", ja = "小さな例" }
//! summary = { en = "A second claim is refused.", ja = "二度目の取得は拒否されます。" }
//! projects = ["docs", "site"]
//! untouched_project = "site"
//!
//! [[steps]]
//! op = "claim"
//! project = "docs"
//! run = "build-1"
//!
//! [[steps]]
//! op = "claim"
//! project = "docs"
//! run = "build-2"
//! "#;
//! // As `lane-records run tiny.toml` does: each step runs on the core, which gives its answer.
//! let record = Scenario::parse("tiny.toml".as_ref(), text)?.record()?;
//! assert_eq!(record.steps[1].result.code(), "PROJECT_BUSY");
//! let bytes = lane_records::to_json(&record); // the file it writes
//!
//! // As `lane-records replay` does with the file.
//! let read = lane_records::parse_record(&bytes)?;
//! assert!(project_lanes::record::replay(&read).is_ok());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! It is not the viewer (that is `web/`) and holds no lane logic of its own: results come from the
//! core, and the record format and its checks live in `project_lanes::record`.

#![warn(missing_docs)]

#[cfg(feature = "cli")]
pub mod diff;
pub mod edit;
#[cfg(feature = "cli")]
pub mod render;
pub mod scenario;

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

use project_lanes::record::{INDEX_FORMAT, Index, IndexEntry, Record, RecordError, VERSION};
use project_lanes::record::{ReplayMismatch, json, replay, stream};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::scenario::Scenario;

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

/// A committed record that a running system made, not a scenario: it lives in [`records_dir`]
/// beside the generated ones, the guide embeds it from there, `cargo xtask dist` publishes it
/// under `records/`, and `lane-records --check` replays it (it cannot be generated again).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Recorded {
    /// File name in [`records_dir`], e.g. `chaos-run.jsonl`.
    pub file: &'static str,
    /// The command that made it (run in a clone); the record it writes, copied here, refreshes
    /// the file.
    pub made_by: &'static str,
}

/// The committed records made by a running system: the one place where the chaos run's record
/// and the guide's chapter on it meet.
pub const RECORDED: [Recorded; 1] = [Recorded {
    file: "chaos-run.jsonl",
    made_by: "cargo xtask chaos --secs 4 --workers 3 --pace 150 --seed 28",
}];

/// Replays the [`RECORDED`] files in `dir` (`lane-records --check` does, in [`records_dir`]):
/// each one that does not replay, and why, as `lane-records replay` says it.
pub fn check_recorded(dir: &Path) -> Vec<(Recorded, String)> {
    let mut failed = Vec::new();
    for recorded in RECORDED {
        let path = dir.join(recorded.file);
        let (report, _) =
            replay_file_noting(&path, project_lanes::record::stream::DEFAULT_MAX_BYTES);
        let why = match report {
            ReplayReport::Matched(_) => continue,
            ReplayReport::Unreadable(e) => format!("unreadable: {e} ({})", e.code()),
            ReplayReport::Mismatch(m) => format!("MISMATCH at {}", describe_mismatch(&m)),
            ReplayReport::StepMismatch(m) => format!("MISMATCH at {}", describe_step_mismatch(&m)),
        };
        failed.push((recorded, why));
    }
    failed
}

/// The folder of the bundled scenario files (`records/scenarios/`); their file names give the
/// display order (`01-…`, `02-…`).
pub fn scenarios_dir() -> PathBuf {
    records_dir().join("scenarios")
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

/// Several problems, one per line (every file is checked before any is written).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problems(pub Vec<String>);

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.join("\n"))
    }
}

impl std::error::Error for Problems {}

/// One record made from a scenario file.
#[derive(Debug, Clone)]
pub struct Made {
    /// The scenario file it came from.
    pub scenario: PathBuf,
    /// The record.
    pub record: Record,
    /// Its file: `<id>.json` and its bytes.
    pub file: OutputFile,
}

/// Runs scenario files on the core. Every file is tried; any problem (in any file, or two
/// scenarios with one id, or a record over [`MAX_RECORD_BYTES`]) fails the whole run.
pub fn run_scenarios(files: &[PathBuf]) -> Result<Vec<Made>, Problems> {
    let mut made: Vec<Made> = Vec::with_capacity(files.len());
    let mut problems = Vec::new();
    for path in files {
        let (record, file) = match Scenario::load(path).and_then(|s| s.output()) {
            Ok(made) => made,
            Err(e) => {
                problems.push(e.to_string());
                continue;
            }
        };
        if let Some(other) = made.iter().find(|m| m.record.id == record.id) {
            problems.push(format!(
                "{}: the record id \"{}\" is also the id of {}: each record needs its own id (and file)",
                path.display(),
                record.id,
                other.scenario.display()
            ));
            continue;
        }
        made.push(Made {
            scenario: path.clone(),
            file,
            record,
        });
    }
    if problems.is_empty() {
        Ok(made)
    } else {
        Err(Problems(problems))
    }
}

/// `index.json` for these record files, in this order.
pub fn index_of(records: &[(&Record, &OutputFile)]) -> Result<OutputFile, RecordError> {
    let index = Index {
        format: INDEX_FORMAT.into(),
        version: VERSION,
        records: records
            .iter()
            .map(|(record, file)| IndexEntry {
                id: record.id.clone(),
                file: file.name.clone(),
                title: record.title.clone(),
                sha256: sha256_hex(&file.bytes),
            })
            .collect(),
    };
    index.check()?;
    Ok(OutputFile {
        name: INDEX_FILE.into(),
        bytes: to_json(&index),
    })
}

/// The bundled scenario files, in display order (by file name).
pub fn bundled_scenarios() -> Result<Vec<PathBuf>, Problems> {
    scenario_files(&scenarios_dir())
}

/// The `*.toml` files of `dir`, sorted by name.
pub fn scenario_files(dir: &Path) -> Result<Vec<PathBuf>, Problems> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Problems(vec![format!("cannot read {}: {e}", dir.display())]))?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    Ok(files)
}

/// Runs the bundled scenarios and returns the record files followed by `index.json`.
pub fn generate() -> Result<Vec<OutputFile>, Problems> {
    let made = run_scenarios(&bundled_scenarios()?)?;
    let pairs: Vec<(&Record, &OutputFile)> = made.iter().map(|m| (&m.record, &m.file)).collect();
    let index = index_of(&pairs).map_err(|e| Problems(vec![format!("index: {e}")]))?;
    let mut files: Vec<OutputFile> = made.into_iter().map(|m| m.file).collect();
    files.push(index);
    Ok(files)
}

#[cfg(feature = "cli")]
/// Writes files all or nothing: each is first written in full to a temporary file next to its
/// destination, and only when every one is complete are they renamed into place. A failure
/// leaves no partial file behind (the temporary files are removed).
///
/// The files are for publishing: a new one is readable as the umask allows, like any file the
/// user creates (0644 under umask 022); one already there keeps its permissions. Only a regular
/// file is replaced, never a link, a device or a folder (nothing is written then).
pub fn write_files(files: &[(PathBuf, &OutputFile)]) -> Result<(), String> {
    let mut staged = Vec::with_capacity(files.len());
    for (dir, file) in files {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let path = dir.join(&file.name);
        let cannot = |e: std::io::Error| format!("cannot write {}: {e}", path.display());
        let existing = match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_file() => Some(meta.permissions()),
            Ok(_) => {
                return Err(format!(
                    "{}: not a regular file (a link, a device or a folder): it is never replaced; \
                     move it away or write into another folder",
                    path.display()
                ));
            }
            Err(_) => None,
        };
        let mut temp = tempfile::Builder::new()
            .prefix(".lane-records-")
            .suffix(".tmp")
            .permissions(new_file_permissions())
            .tempfile_in(dir)
            .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
        if let Some(permissions) = existing {
            temp.as_file()
                .set_permissions(permissions)
                .map_err(cannot)?;
        }
        std::io::Write::write_all(&mut temp, &file.bytes)
            .and_then(|()| std::io::Write::flush(&mut temp))
            .map_err(cannot)?;
        staged.push((temp, path));
    }
    for (temp, path) in staged {
        temp.persist(&path)
            .map_err(|e| format!("cannot write {}: {}", path.display(), e.error))?;
    }
    Ok(())
}

#[cfg(feature = "cli")]
/// Read and write for everyone the umask allows (the mode a new file is opened with: `0o666`).
fn new_file_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::Permissions::from_mode(0o666)
}

/// One record found in a folder by [`index_dir`].
struct Found {
    record: Record,
    file: OutputFile,
}

/// Reads every record in `dir` (every `*.json` but `index.json`), replays each on the core, and
/// returns `index.json` for them: in the order of `order` (record ids; every record in the
/// folder listed once) or else by file name. JSON Schemas (a top-level `$schema`) are skipped
/// and returned as such; any other file that is not a good record fails the whole index.
pub fn index_dir(
    dir: &Path,
    order: Option<&[String]>,
) -> Result<(OutputFile, Vec<PathBuf>), Problems> {
    let entries = std::fs::read_dir(dir)
        .map_err(|e| Problems(vec![format!("cannot read {}: {e}", dir.display())]))?;
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|ext| ext == "json" || ext == "jsonl")
        })
        .filter(|p| p.file_name().is_some_and(|name| name != INDEX_FILE))
        .collect();
    paths.sort();
    let mut problems = Vec::new();
    let mut found: Vec<Found> = Vec::new();
    let mut skipped = Vec::new();
    for path in &paths {
        let (record, bytes, mismatch) = match open_record(path) {
            Ok(read) => read,
            Err(_) if is_json_schema(path) => {
                skipped.push(path.clone());
                continue;
            }
            Err(e) => {
                problems.push(format!("{}: {e}", path.display()));
                continue;
            }
        };
        if let Some(mismatch) = mismatch {
            problems.push(format!(
                "{}: the record does not replay on the core: {mismatch}",
                path.display(),
            ));
            continue;
        }
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        // A version 3 record (lines) is `<id>.jsonl`, a version 1 or 2 one `<id>.json`.
        let extension = if record.version == project_lanes::record::VERSION_3 {
            "jsonl"
        } else {
            "json"
        };
        let expected = format!("{}.{extension}", record.id);
        if name != expected {
            problems.push(format!(
                "{}: the record's id is \"{}\", so its file must be named {expected}",
                path.display(),
                record.id
            ));
            continue;
        }
        found.push(Found {
            file: OutputFile {
                name: expected,
                bytes,
            },
            record,
        });
    }
    if found.is_empty() && problems.is_empty() {
        problems.push(format!(
            "{}: no record files (*.json) to index; make some with `lane-records run`",
            dir.display()
        ));
    }
    if let Some(order) = order {
        let mut ordered = Vec::with_capacity(found.len());
        for (i, id) in order.iter().enumerate() {
            if order[..i].contains(id) {
                problems.push(format!("--order: \"{id}\" is listed twice"));
            } else if let Some(at) = found.iter().position(|f| f.record.id == id.as_str()) {
                ordered.push(found.remove(at));
            } else if !problems.iter().any(|p| p.contains(&format!("{id}.json"))) {
                problems.push(format!(
                    "--order: no record \"{id}\" in {} (records there: {})",
                    dir.display(),
                    list_ids(ordered.iter().chain(&found))
                ));
            }
        }
        if !found.is_empty() {
            problems.push(format!(
                "--order leaves out {}: list every record of the folder",
                list_ids(found.iter())
            ));
        }
        found = ordered;
    }
    if !problems.is_empty() {
        return Err(Problems(problems));
    }
    let pairs: Vec<(&Record, &OutputFile)> = found.iter().map(|f| (&f.record, &f.file)).collect();
    let index = index_of(&pairs)
        .map_err(|e| Problems(vec![format!("{}: {e}", dir.join(INDEX_FILE).display())]))?;
    Ok((index, skipped))
}

/// Whether the file is a JSON Schema (such as `schema.json` beside the bundled records).
fn is_json_schema(path: &Path) -> bool {
    read_record_bytes(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok())
        .is_some_and(|value| value.get("$schema").is_some())
}

fn list_ids<'a>(found: impl Iterator<Item = &'a Found>) -> String {
    let ids: Vec<String> = found.map(|f| format!("\"{}\"", f.record.id)).collect();
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

#[cfg(feature = "cli")]
/// A committed file that differs from a fresh generation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// File name inside the records folder.
    pub name: String,
    /// A unified diff from the committed file to the generated one (or why it is missing).
    pub diff: String,
}

#[cfg(feature = "cli")]
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

/// Why a record file could not be read: the file itself, or what the core's reader
/// ([`project_lanes::record::json::parse_record`], the one verdict every reader gives) found.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read.
    Io(std::io::Error),
    /// The bytes are not a readable record of this version.
    Parse(json::ReadError),
}

impl ReadError {
    /// The stable code of the error (`INVALID_JSON`, `INVALID_RECORD`, …; `IO` for the file).
    pub fn code(&self) -> &'static str {
        match self {
            ReadError::Io(_) => "IO",
            ReadError::Parse(e) => e.code(),
        }
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io(e) => write!(f, "cannot read the file: {e}"),
            ReadError::Parse(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<json::ReadError> for ReadError {
    fn from(e: json::ReadError) -> Self {
        ReadError::Parse(e)
    }
}

/// Parses and checks one record with the core's reader: the header first (so an unknown version
/// is named as such), then the whole record, then the format's rules.
pub fn parse_record(bytes: &[u8]) -> Result<Record, ReadError> {
    Ok(json::parse_record(bytes)?)
}

/// Reads a record file, refusing one larger than [`MAX_RECORD_BYTES`] before reading it all.
pub fn read_record(path: &Path) -> Result<Record, ReadError> {
    parse_record(&read_record_bytes(path)?)
}

/// The bytes of a record file, refusing one larger than [`MAX_RECORD_BYTES`] before reading it.
pub fn read_record_bytes(path: &Path) -> Result<Vec<u8>, ReadError> {
    let mut file = File::open(path).map_err(ReadError::Io)?;
    let size = file.metadata().map_err(ReadError::Io)?.len();
    if size > MAX_RECORD_BYTES {
        return Err(json::ReadError::TooLarge { bytes: size }.into());
    }
    let mut bytes = Vec::new();
    Read::by_ref(&mut file)
        .take(MAX_RECORD_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    Ok(bytes)
}

/// What replaying one file found.
#[derive(Debug)]
pub enum ReplayReport {
    /// Every step matched; the number of steps.
    Matched(usize),
    /// The file could not be read as a record.
    Unreadable(ReadError),
    /// A step differed (a version 1 or 2 record).
    Mismatch(ReplayMismatch),
    /// A step's answer differed (a version 3 record).
    StepMismatch(stream::Mismatch),
}

/// A record file, opened: one JSON document (versions 1 and 2; its bytes, at most
/// [`MAX_RECORD_BYTES`]), or lines (version 3; its first line read, the rest still to read).
enum Opened {
    Document(Vec<u8>),
    Lines(Vec<u8>, std::io::BufReader<File>),
}

/// Opens a record file and tells a document from lines by its first line, as every reader
/// does ([`json::is_lines`]); lines larger than `limit` bytes are refused before they are read.
fn open(path: &Path, limit: u64) -> Result<Opened, ReadError> {
    use std::io::BufRead;
    let file = File::open(path).map_err(ReadError::Io)?;
    let size = file.metadata().map_err(ReadError::Io)?.len();
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut first = Vec::new();
    Read::by_ref(&mut reader)
        .take(stream::MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut first)
        .map_err(ReadError::Io)?;
    if first.last() == Some(&b'\n') && json::is_lines(&first[..first.len() - 1]) {
        if size > limit {
            return Err(json::ReadError::OverLimit { limit }.into());
        }
        return Ok(Opened::Lines(first, reader));
    }
    if size > MAX_RECORD_BYTES {
        return Err(json::ReadError::TooLarge { bytes: size }.into());
    }
    Read::by_ref(&mut reader)
        .take(MAX_RECORD_BYTES + 1 - first.len() as u64)
        .read_to_end(&mut first)
        .map_err(ReadError::Io)?;
    Ok(Opened::Document(first))
}

/// Reads the lines of a version 3 record through `reader`, its first line already read,
/// handing each to `seen`: the verdict, in the memory one line and the core's live state take.
fn read_lines(
    first: &[u8],
    rest: &mut impl Read,
    limit: u64,
    seen: &mut dyn FnMut(stream::Seen<'_>),
) -> Result<stream::Verdict, ReadError> {
    let mut lines = stream::Reader::new().limit(limit);
    lines.feed(first, seen)?;
    let mut chunk = vec![0; 1 << 16];
    loop {
        let n = rest.read(&mut chunk).map_err(ReadError::Io)?;
        if n == 0 {
            return Ok(lines.finish(seen)?);
        }
        lines.feed(&chunk[..n], seen)?;
    }
}

/// Reads and replays one record file.
pub fn replay_file(path: &Path) -> ReplayReport {
    replay_file_noting(path, stream::DEFAULT_MAX_BYTES).0
}

/// [`replay_file`], and for a file read as a record, what replay does not check and the steps
/// whose times stand out ([`project_lanes_view::recorded`], the viewer's notes for the same file), in
/// English: one line each, none for a record without times, callers or a window.
///
/// A version 3 record larger than `limit` bytes is refused (`RECORD_TOO_LARGE`), as the
/// viewer refuses one larger than its own limit; versions 1 and 2 are at most
/// [`MAX_RECORD_BYTES`].
pub fn replay_file_noting(path: &Path, limit: u64) -> (ReplayReport, Vec<String>) {
    let (report, notes, _) = replay_file_proving(path, limit);
    (report, notes)
}

/// [`replay_file_noting`], with the record's hash chain as its reader recomputed it (a record of
/// version 1 or 2, or one that did not read, is unchained).
pub fn replay_file_proving(path: &Path, limit: u64) -> (ReplayReport, Vec<String>, stream::Chain) {
    let opened = match open(path, limit) {
        Ok(opened) => opened,
        Err(e) => {
            return (
                ReplayReport::Unreadable(e),
                Vec::new(),
                stream::Chain::Unchained,
            );
        }
    };
    let bytes = match opened {
        Opened::Document(bytes) => bytes,
        Opened::Lines(first, mut rest) => return replay_lines(&first, &mut rest, limit),
    };
    match parse_record(&bytes) {
        Err(e) => (
            ReplayReport::Unreadable(e),
            Vec::new(),
            stream::Chain::Unchained,
        ),
        Ok(record) => {
            let notes = project_lanes_view::recorded::notes(&record);
            let lines =
                project_lanes_view::recorded::sentences(project_lanes_view::i18n::Lang::En, &notes);
            let report = match replay(&record) {
                Ok(()) => ReplayReport::Matched(record.steps.len()),
                Err(mismatch) => ReplayReport::Mismatch(mismatch),
            };
            (report, lines, stream::Chain::Unchained)
        }
    }
}

/// A record file read and replayed on the core: the record (a version 3 one gathered into the
/// snapshots its viewers show, [`stream::Gather`]), its bytes, and how its replay went: `None`
/// if every step matched, else the first mismatch in words.
pub fn open_record(path: &Path) -> Result<(Record, Vec<u8>, Option<String>), ReadError> {
    open_record_within(path, stream::DEFAULT_MAX_BYTES)
}

/// [`open_record`], refusing a version 3 record larger than `limit` bytes.
pub fn open_record_within(
    path: &Path,
    limit: u64,
) -> Result<(Record, Vec<u8>, Option<String>), ReadError> {
    match open(path, limit)? {
        Opened::Document(bytes) => {
            let record = parse_record(&bytes)?;
            let mismatch = replay(&record).err().map(|m| describe_mismatch(&m));
            Ok((record, bytes, mismatch))
        }
        Opened::Lines(first, rest) => {
            let mut bytes = first.clone();
            let mut copy = Tee {
                inner: rest,
                copy: &mut bytes,
            };
            let mut gather = stream::Gather::new();
            let verdict = read_lines(&first, &mut copy, limit, &mut |seen| gather.seen(seen))?;
            let mismatch = verdict.mismatch.as_ref().map(describe_step_mismatch);
            Ok((gather.record(), bytes, mismatch))
        }
    }
}

/// A reader that keeps a copy of what it reads.
struct Tee<'a, R: Read> {
    inner: R,
    copy: &'a mut Vec<u8>,
}

impl<R: Read> Read for Tee<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.copy.extend_from_slice(&buf[..n]);
        Ok(n)
    }
}

/// A version 3 record's verdict and notes, read a chunk at a time.
fn replay_lines(
    first: &[u8],
    rest: &mut impl Read,
    limit: u64,
) -> (ReplayReport, Vec<String>, stream::Chain) {
    let mut noting: Option<project_lanes_view::recorded::Noting> = None;
    let mut seen = |seen: stream::Seen<'_>| match seen {
        stream::Seen::Head(head) => {
            noting = Some(project_lanes_view::recorded::Noting::new(
                head.origin.as_ref(),
            ))
        }
        stream::Seen::Item {
            item: stream::Item::Step(step, _),
            ..
        } => {
            if let Some(noting) = &mut noting {
                noting.step(step.at, step.by.is_some());
            }
        }
        _ => {}
    };
    let verdict = read_lines(first, rest, limit, &mut seen);
    let mut lines = noting.map_or_else(Vec::new, |n| {
        project_lanes_view::recorded::sentences(project_lanes_view::i18n::Lang::En, &n.notes())
    });
    match verdict {
        Err(e) => (
            ReplayReport::Unreadable(e),
            Vec::new(),
            stream::Chain::Unchained,
        ),
        Ok(verdict) => {
            if let Some(proof) = describe_chain(&verdict.chain) {
                lines.insert(0, proof);
            }
            let report = match verdict.mismatch {
                Some(m) => ReplayReport::StepMismatch(m),
                None => ReplayReport::Matched(verdict.steps as usize),
            };
            (report, lines, verdict.chain)
        }
    }
}

/// What a record's hash chain proves, in a sentence (`None` for a record without one).
pub fn describe_chain(chain: &stream::Chain) -> Option<String> {
    let stream::Chain::Chained(chained) = chain else {
        return None;
    };
    let mut text = format!(
        "chained: links {} to {}, root {}",
        chained.start.links + 1,
        chained.end.links,
        chained.end.hash
    );
    if chained.unchained > 0 {
        text.push_str(&format!(
            "; the last {} steps are not chained (not yet sealed)",
            chained.unchained
        ));
    }
    match &chained.checkpoint {
        Some(c) => match &c.signer {
            Some(signer) => text.push_str(&format!(
                "; checkpoint of journal {} at {} signed by {signer}",
                c.journal, c.time
            )),
            None if c.signatures.is_empty() => text.push_str(&format!(
                "; unsigned checkpoint of journal {} at {}",
                c.journal, c.time
            )),
            None => text.push_str(&format!(
                "; checkpoint of journal {} at {} signed by {}, whose key the record does not give",
                c.journal,
                c.time,
                c.signatures.join(", ")
            )),
        },
        None => text.push_str("; unsigned (no checkpoint)"),
    }
    Some(text)
}

/// Describes a version 3 record's mismatch for people: the step (counted from 1, as the viewer
/// counts them), its operation and line, what the record says and what the core answers.
pub fn describe_step_mismatch(m: &stream::Mismatch) -> String {
    format!(
        "step {} ({}, line {}): the record says {}, the core answers {}",
        m.step + 1,
        m.op,
        m.line,
        m.recorded,
        m.replayed
    )
}

/// Describes a mismatch for people: the step (counted from 1, as the viewer counts them), its
/// operation, and both results as JSON.
pub fn describe_mismatch(mismatch: &ReplayMismatch) -> String {
    let counted = |step: &usize| step + 1;
    match mismatch {
        ReplayMismatch::Invalid(e) => format!("invalid record: {e}"),
        ReplayMismatch::Result {
            step,
            op,
            saved,
            actual,
        } => format!(
            "step {} ({op}): result differs\n  saved:  {}\n  actual: {}",
            counted(step),
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
                (Some(n), Some(op)) => format!("step {} ({op}): lanes after the step", counted(n)),
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
            "step {} ({op}): reservations after the step differ\n  saved:  {}\n  actual: {}",
            counted(step),
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
    }
}

/// Compact JSON of a record value, for messages.
fn json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|e| format!("<{e}>"))
}
