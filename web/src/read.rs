//! Reading files: the bytes the viewer holds become a record, an index or a [`LoadError`], with
//! exactly the verdict `lane-records replay` gives the same bytes. A file arrives a chunk at a
//! time ([`Incoming`]); its first line says whether it is one JSON document (versions 1 and 2,
//! and indexes: kept until it is whole, at most 16 MiB, then read by the core's one reader,
//! [`parse_record`]: serde_json syntax, the header, the shape with unknown and duplicate fields
//! refused, `Record::check`; a byte order mark skipped; nesting of any depth refused with its
//! line and column) or lines (version 3: each line read, checked and replayed by the core's
//! [`Reader`] as it arrives, and gathered into what the viewer shows, so the file is never
//! held whole; at most the viewer's [`Limits`]: `maxBytes` bytes read, by default
//! [`DEFAULT_MAX_BYTES`], and `maxSteps` steps held, by default [`DEFAULT_MAX_STEPS`], the
//! viewer's memory budget). Indexes are read
//! with serde_json too, with the viewer's own rules: at most [`MAX_INDEX_RECORDS`] entries (refused at the next one, before
//! the rest is read), unique ids, and a bad file name or hash failing only its entry.

use std::rc::Rc;

use project_lanes::record::json::{
    JsonKind, ReadError, is_lines, parse_header, parse_record, without_bom,
};
use project_lanes::record::stream::{
    Chain, DEFAULT_MAX_BYTES, Gather, Item, MAX_LINE_BYTES, Reader, Seen, Verdict,
};
use project_lanes::record::{
    FORMAT, INDEX_FORMAT, IndexEntry, MAX_RECORD_BYTES, Record, RecordError,
};
use project_lanes_view::entry::{Proof, Verification};
use project_lanes_view::error::Held;
use project_lanes_view::i18n::binary_size;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use project_lanes_view::error::ViewerError;

use crate::entry::{Content, Entry, LoadError, Loaded};

/// Most records an index may list (the format's limit, `Index::check`).
pub const MAX_INDEX_RECORDS: usize = 1_024;

/// The WebAssembly memory the viewer lets the steps of one record take by default: 1 GiB, a
/// quarter of the 4 GiB a wasm32 module can address at most, so that a record within it opens
/// beside the page's other records and panels in a browser tab.
pub const MEMORY_BUDGET: u64 = 1 << 30;

/// The WebAssembly memory one step of a version 3 record takes in the viewer, in bytes,
/// measured: the 1,000,000 steps of the build farm's record take 339 MiB in Chromium sent
/// without a length (their list of steps grows by doubling; `cargo xtask bench
/// a_farm_sent_without_its_length`), 355 bytes a step, and 255 MiB with their size known
/// (`Lines::make_room`; `cargo xtask bench open_a_busy_farm`, docs/src/viewer.md). Measure
/// again when the viewer's step store changes and write the new figure here: the step budget
/// follows.
pub const STEP_BYTES: u64 = 355;

/// The most steps of a version 3 record the viewer holds by default (`maxSteps`): its memory
/// budget over the memory of a step (rounded up), 3,024,625 steps, so a record of a million
/// steps opens with room. A record with more is refused with `RECORD_TOO_LARGE` at the step
/// past it.
pub const DEFAULT_MAX_STEPS: u64 = MEMORY_BUDGET.div_ceil(STEP_BYTES);
// A million steps, the farm's busy week, fit with room.
const _: () = assert!(DEFAULT_MAX_STEPS >= 2_000_000);

/// How much of a version 3 record a viewer takes: at most `bytes` bytes read (`maxBytes`) and
/// `steps` steps held (`maxSteps`). Documents keep the format's 16 MiB whatever these say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most bytes read.
    pub bytes: u64,
    /// The most steps held.
    pub steps: u64,
}

impl Limits {
    /// The viewer's defaults: [`DEFAULT_MAX_BYTES`] and [`DEFAULT_MAX_STEPS`].
    pub const DEFAULT: Limits = Limits {
        bytes: DEFAULT_MAX_BYTES,
        steps: DEFAULT_MAX_STEPS,
    };

    /// No limit (a document, which keeps its own).
    const NONE: Limits = Limits {
        bytes: u64::MAX,
        steps: u64::MAX,
    };
}

/// What a file turned out to be.
pub enum Read {
    /// A record, read by the core's reader.
    Record(Box<Loaded>),
    /// An index: the records it lists.
    Index(Vec<IndexEntry>),
}

/// A file as it arrives, a chunk at a time.
pub struct Incoming {
    /// The document so far (versions 1 and 2, indexes), or, for lines, their text while it is
    /// at most 16 MiB (shown as the file's text).
    kept: Vec<u8>,
    /// Lines, once the first one said so.
    lines: Option<Lines>,
    /// The first line has been seen (or is longer than any line can be).
    decided: bool,
    bytes: u64,
    /// How many bytes the file has, when that is known before its end (its `Content-Length`,
    /// or a file that arrived whole).
    size: Option<u64>,
    /// The first error: the rest is not read.
    failed: Option<LoadError>,
    /// How much of a version 3 record is taken (documents keep the format's 16 MiB).
    limits: Limits,
    /// Whether lines are hashed as they arrive (for a hash an index may name; a document's
    /// bytes are kept whole and hashed at the end).
    hashed: bool,
}

/// A version 3 record being read: the core's reader and what the viewer gathers from it.
struct Lines {
    reader: Reader,
    gather: Gather,
    /// Steps seen so far (gathered while they are at most the limit's).
    steps: u64,
    /// The SHA-256 of every byte so far, unless no index can name the file (a document's is
    /// taken from its bytes at the end).
    hasher: Option<Sha256>,
    /// The list of steps was given room from the file's size (`make_room`).
    sized: bool,
}

/// What stopped a version 3 record's reading: the reader's error, or the step past the limit.
enum Fault {
    Read(ReadError),
    Steps,
}

impl Lines {
    /// Reads `chunk` (`None`: the end, which gives the reader's verdict) and gathers its steps
    /// while there are at most `max_steps`. The first fault in the bytes wins, as among the
    /// reader's own: the step past the limit, unless the reader stopped before reaching it.
    fn read(&mut self, chunk: Option<&[u8]>, max_steps: u64) -> Result<Option<Verdict>, Fault> {
        let (gather, steps) = (&mut self.gather, &mut self.steps);
        let mut over = false;
        let mut seen = |seen: Seen<'_>| {
            if over {
                return;
            }
            if let Seen::Item {
                item: Item::Step(..),
                ..
            } = &seen
            {
                *steps += 1;
                if *steps > max_steps {
                    over = true;
                    return;
                }
            }
            gather.seen(seen);
        };
        let read = match chunk {
            Some(chunk) => self.reader.feed(chunk, &mut seen).map(|()| None),
            None => self.reader.finish(&mut seen).map(Some),
        };
        if over {
            return Err(Fault::Steps);
        }
        read.map_err(Fault::Read)
    }

    /// Reads `chunk`, the file's bytes up to its first `bytes`, then gives the list of steps
    /// room from the file's `size` if it is known.
    fn take(
        &mut self,
        chunk: &[u8],
        bytes: u64,
        size: Option<u64>,
        max_steps: u64,
    ) -> Result<(), Fault> {
        self.read(Some(chunk), max_steps)?;
        if let Some(size) = size {
            self.make_room(size, bytes, max_steps);
        }
        Ok(())
    }

    /// Gives the list of steps room for what the rest of a file of `size` bytes likely holds,
    /// judged from the steps in its first `bytes`: the list then grows once, early, instead of
    /// doubling. A doubling holds the old list and the new one at once: at a million steps,
    /// about 100 MB of WebAssembly memory that is never given back; and room taken early lands
    /// where a destroyed record's list was, before small blocks split that space. When the
    /// estimate falls short, the room grows by an eighth; once more bytes arrived than the size
    /// said (a compressed body's length), the list grows by doubling again. Room the memory
    /// cannot give is not taken (at most `max_steps`, the viewer's budget).
    fn make_room(&mut self, size: u64, bytes: u64, max_steps: u64) {
        let (len, room) = self.gather.steps_room();
        if len < 1_024 || bytes == 0 || bytes > size {
            return;
        }
        // Judged once a thousand steps are in, and again whenever the room is nearly full.
        if self.sized && room - len > len / 64 {
            return;
        }
        let expected = (len as u64).saturating_mul(size) / bytes;
        if !self.sized && room as u64 >= expected {
            return;
        }
        let len = len as u64;
        let total = (expected + expected / 32 + 1_024)
            .max(len + len / 8)
            .min(max_steps);
        self.sized = true;
        self.gather.reserve_steps(total as usize);
    }
}

impl Incoming {
    /// A file of which nothing has arrived yet, taken if it is a version 3 record within
    /// `limits` or a document of at most 16 MiB.
    pub fn new(limits: Limits) -> Incoming {
        Incoming {
            kept: Vec::new(),
            lines: None,
            decided: false,
            bytes: 0,
            size: None,
            failed: None,
            limits,
            hashed: true,
        }
    }

    /// The same, for a file no index names (`src`'s record): its lines are not hashed.
    pub fn unhashed(self) -> Incoming {
        Incoming {
            hashed: false,
            ..self
        }
    }

    /// A file that arrived whole (text a page handed over): read without copying it.
    pub fn whole(bytes: Vec<u8>, limits: Limits) -> Incoming {
        let mut incoming = Incoming::new(limits);
        incoming.bytes = bytes.len() as u64;
        incoming.size = Some(incoming.bytes);
        incoming.kept = bytes;
        incoming.decide();
        incoming.decided = true;
        incoming.check_document_size();
        if incoming.is_lines() && incoming.bytes > MAX_RECORD_BYTES {
            // Read; too long to be shown as the file's text (as when it arrives in chunks).
            incoming.kept = Vec::new();
        }
        incoming
    }

    /// Room for a document of `bytes` bytes (its `Content-Length`), if it is one a reader takes.
    pub fn reserve(&mut self, bytes: u64) {
        self.size = Some(bytes);
        if bytes <= MAX_RECORD_BYTES {
            self.kept.reserve(bytes as usize);
        }
    }

    /// Bytes arrived so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// A file that is not lines and has not failed: its bytes, taken out to be read as a whole
    /// document (`None` for lines or a failure, which [`finish`](Incoming::finish) reads).
    pub fn take_document(&mut self) -> Option<Vec<u8>> {
        if self.lines.is_some() || self.failed.is_some() {
            return None;
        }
        Some(std::mem::take(&mut self.kept))
    }

    /// Whether reading has already failed (the rest need not be fetched).
    pub fn failed(&self) -> bool {
        self.failed.is_some()
    }

    /// The next chunk of the file.
    pub fn push(&mut self, chunk: &[u8]) {
        if self.failed.is_some() {
            return;
        }
        self.bytes += chunk.len() as u64;
        if let Some(lines) = &mut self.lines {
            if let Some(hasher) = &mut lines.hasher {
                hasher.update(chunk);
            }
            // The text is kept while the whole file so far is within 16 MiB, and then never.
            if self.bytes <= MAX_RECORD_BYTES {
                self.kept.extend_from_slice(chunk);
            } else if !self.kept.is_empty() {
                self.kept = Vec::new();
            }
            if let Err(fault) = lines.take(chunk, self.bytes, self.size, self.limits.steps) {
                self.failed = Some(self.lines_error(fault));
            }
            return;
        }
        self.kept.extend_from_slice(chunk);
        if !self.decided {
            self.decide();
        }
        self.check_document_size();
    }

    fn check_document_size(&mut self) {
        if self.is_document() && self.kept.len() as u64 > MAX_RECORD_BYTES {
            self.failed = Some(too_large(ViewerError::RecordTooLarge, self.bytes));
        }
    }

    /// Whether the first line has said this is one JSON document (a version 1 or 2 record, or
    /// an index), whose limit is 16 MiB.
    pub fn is_document(&self) -> bool {
        self.decided && self.lines.is_none()
    }

    /// Whether the first line has said this is lines (version 3).
    pub fn is_lines(&self) -> bool {
        self.lines.is_some()
    }

    /// A version 3 record read so far: its steps so far, each replayed before it was gathered,
    /// and the first of them the core answers otherwise, if one is (`None` for a document, a
    /// failure, or lines whose head is not read yet).
    pub fn so_far(&self) -> Option<(&Record, Option<usize>)> {
        if self.failed.is_some() {
            return None;
        }
        let gather = &self.lines.as_ref()?.gather;
        Some((gather.so_far()?, gather.mismatch_so_far()))
    }

    /// The file's first bytes, to name what it is.
    pub fn start(&self) -> &[u8] {
        &self.kept[..self.kept.len().min(64 * 1024)]
    }

    /// Tells a document from lines by the first line, once it is there.
    fn decide(&mut self) {
        let scanned = &self.kept[..self.kept.len().min(MAX_LINE_BYTES + 1)];
        let Some(end) = scanned.iter().position(|&b| b == b'\n') else {
            self.decided = scanned.len() > MAX_LINE_BYTES;
            return;
        };
        self.decided = true;
        if !is_lines(&self.kept[..end]) {
            return;
        }
        let mut lines = Lines {
            reader: Reader::new().limit(self.limits.bytes),
            gather: Gather::new(),
            steps: 0,
            hasher: self.hashed.then(Sha256::new),
            sized: false,
        };
        if let Some(hasher) = &mut lines.hasher {
            hasher.update(&self.kept);
        }
        // A megabyte at a time, so the list of steps is given room as it fills (a file that
        // arrived whole is all here).
        let mut read = 0;
        for piece in self.kept.chunks(1 << 20) {
            read += piece.len() as u64;
            if let Err(fault) = lines.take(piece, read, self.size, self.limits.steps) {
                self.failed = Some(self.lines_error(fault));
                break;
            }
        }
        self.lines = Some(lines);
    }

    /// The error for what stopped the lines: past a limit, in the viewer's words (the bytes
    /// so far or the steps, the limit and how a page sets it).
    fn lines_error(&self, fault: Fault) -> LoadError {
        match fault {
            Fault::Read(ReadError::OverLimit { .. }) => {
                lines_too_large(self.bytes, self.limits.bytes)
            }
            Fault::Read(error) => record_error(error, &[]),
            Fault::Steps => too_many_steps(self.limits.steps),
        }
    }

    /// The whole file, as a record or an index (documents of either kind), its hash checked
    /// against `sha256` if an index gave one.
    pub fn finish(mut self, sha256: Option<&str>) -> Result<Read, LoadError> {
        if let Some(error) = self.failed.take() {
            return Err(error);
        }
        let Some(mut lines) = self.lines else {
            if let Some(sha256) = sha256 {
                check_hash(&self.kept, sha256)?;
            }
            return read_document(&self.kept);
        };
        if let Some(sha256) = sha256 {
            let Some(hasher) = lines.hasher.take() else {
                return Err(LoadError::new(
                    ViewerError::HashMismatch,
                    format!("index says {sha256}, and the file was read without its hash"),
                ));
            };
            let actual = hex(&hasher.finalize());
            if !actual.eq_ignore_ascii_case(sha256) {
                return Err(LoadError::new(
                    ViewerError::HashMismatch,
                    format!("index says {sha256}, file is {actual}"),
                ));
            }
        }
        let max_steps = self.limits.steps;
        let verdict = match lines.read(None, max_steps) {
            Ok(Some(verdict)) => verdict,
            // `read` gives the verdict at the end.
            Ok(None) => return Err(LoadError::new(ViewerError::InvalidRecord, "no verdict")),
            Err(Fault::Steps) => return Err(too_many_steps(max_steps)),
            Err(Fault::Read(e)) => return Err(record_error(e, &[])),
        };
        let (record, mismatch) = lines.gather.finish();
        let raw = if self.kept.is_empty() {
            js_sys::JsString::from("")
        } else {
            text_of(&self.kept)
        };
        let mut loaded = Loaded::new(record, raw);
        loaded.proof = proof(verdict.chain);
        *loaded.verification.borrow_mut() = match (mismatch, verdict.mismatch) {
            (Some(mismatch), _) => Verification::Failed(mismatch),
            (None, None) => Verification::Verified,
            // A mismatch the gathered record cannot word (it always can: the reader names it).
            (None, Some(_)) => Verification::Verified,
        };
        Ok(Read::Record(Box::new(loaded)))
    }
}

/// The chain the reader recomputed, as the viewer shows it: its root, the key whose signature
/// verified, and the keys of signatures it could not verify.
fn proof(chain: Chain) -> Proof {
    let Chain::Chained(chained) = chain else {
        return Proof::Unchained;
    };
    let (signer, others) = match chained.checkpoint {
        Some(checkpoint) => {
            let signer = checkpoint.signer;
            let others = checkpoint
                .signatures
                .into_iter()
                .filter(|f| Some(f) != signer.as_ref())
                .collect();
            (signer, others)
        }
        None => (None, Vec::new()),
    };
    Proof::Chained {
        root: chained.end.hash,
        signer,
        others,
    }
}

/// Reads a whole document: a record of version 1 or 2, or an index.
fn read_document(bytes: &[u8]) -> Result<Read, LoadError> {
    match parse_record(bytes) {
        Ok(record) => Ok(Read::Record(Box::new(loaded(record, bytes)))),
        Err(ReadError::Record(RecordError::UnknownFormat { found, .. }))
            if found == INDEX_FORMAT =>
        {
            read_index(bytes).map(Read::Index)
        }
        Err(error) => Err(record_error(error, bytes)),
    }
}

/// Checks the hash (if the index gave one), then reads the record; `id` is the id the index
/// lists for it.
pub fn read_record(
    bytes: &[u8],
    sha256: Option<&str>,
    id: Option<&str>,
    limits: Limits,
) -> Result<Loaded, LoadError> {
    let mut incoming = Incoming::new(limits);
    incoming.push(bytes);
    record_of(incoming.finish(sha256), id)
}

/// The record a file read into, whose id is `id` if an index listed it: an index where a
/// record was expected is refused as such.
pub fn record_of(read: Result<Read, LoadError>, id: Option<&str>) -> Result<Loaded, LoadError> {
    match read? {
        Read::Record(loaded) => check_id(*loaded, id),
        Read::Index(_) => Err(LoadError::new(
            ViewerError::UnknownFormat,
            format!("format is \"{INDEX_FORMAT}\", expected \"{FORMAT}\""),
        )),
    }
}

fn check_hash(bytes: &[u8], sha256: &str) -> Result<(), LoadError> {
    let actual = hex_sha256(bytes);
    if actual.eq_ignore_ascii_case(sha256) {
        Ok(())
    } else {
        Err(LoadError::new(
            ViewerError::HashMismatch,
            format!("index says {sha256}, file is {actual}"),
        ))
    }
}

fn check_id(loaded: Loaded, id: Option<&str>) -> Result<Loaded, LoadError> {
    match id {
        Some(id) if loaded.record.id.as_str() != id => Err(LoadError::new(
            ViewerError::InvalidRecord,
            format!(
                "the index lists \"{id}\" but the file is \"{}\"",
                loaded.record.id
            ),
        )),
        _ => Ok(loaded),
    }
}

fn loaded(record: project_lanes::record::Record, bytes: &[u8]) -> Loaded {
    Loaded::new(record, text_of(bytes))
}

/// The file's text as a JavaScript string (without a byte order mark).
fn text_of(bytes: &[u8]) -> js_sys::JsString {
    let bytes = without_bom(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => text.into(),
        Err(_) => String::from_utf8_lossy(bytes).as_ref().into(),
    }
}

/// The viewer's error for what the core's reader found, with the file's text when it is a
/// record that breaks the format (JSON of the wrong shape, or a rule of `Record::check`).
fn record_error(error: ReadError, bytes: &[u8]) -> LoadError {
    let (kind, json) = match &error {
        ReadError::TooLarge { .. } | ReadError::OverLimit { .. } => {
            (ViewerError::RecordTooLarge, false)
        }
        ReadError::Line {
            error: RecordError::UnknownFormat { .. },
            ..
        } => (ViewerError::UnknownFormat, false),
        ReadError::Line {
            error: RecordError::UnsupportedVersion(_),
            ..
        } => (ViewerError::UnsupportedVersion, false),
        ReadError::Line { .. } => (ViewerError::InvalidRecord, !bytes.is_empty()),
        ReadError::Json {
            kind: JsonKind::Syntax,
            ..
        } => (ViewerError::InvalidJson, false),
        ReadError::Json {
            kind: JsonKind::Shape,
            ..
        } => (ViewerError::InvalidRecord, true),
        ReadError::Record(RecordError::UnknownFormat { .. }) => (ViewerError::UnknownFormat, false),
        ReadError::Record(
            RecordError::UnsupportedVersion(_) | RecordError::UnsupportedIndexVersion(_),
        ) => (ViewerError::UnsupportedVersion, false),
        ReadError::Record(RecordError::Invalid { .. }) => (ViewerError::InvalidRecord, true),
    };
    let detail = match &error {
        ReadError::Record(RecordError::Invalid { at, message }) => located(at, message),
        other => other.to_string(),
    };
    LoadError {
        kind,
        detail,
        raw: (json && !bytes.is_empty()).then(|| text_of(bytes)),
        held: None,
    }
}

/// `steps[3].input.lease: …` as `step 4 (steps[3].input.lease): …`: readers count steps from 1.
fn located(at: &str, message: &str) -> String {
    let step = at
        .strip_prefix("steps[")
        .and_then(|rest| rest.split(']').next())
        .and_then(|n| n.parse::<usize>().ok());
    match step {
        Some(n) => format!("step {} ({at}): {message}", n + 1),
        None => format!("{at}: {message}"),
    }
}

/// `index.json` as the viewer reads it: the header was checked, unknown fields are refused.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexFile {
    #[allow(dead_code)]
    format: String,
    #[allow(dead_code)]
    version: u32,
    records: Entries,
}

/// The index's entries, refused at the one past [`MAX_INDEX_RECORDS`].
struct Entries(Vec<IndexEntry>);

/// The message of an index over the limit (also how the error is recognised).
const TOO_MANY: &str = "the index lists more than 1024 records; an index lists at most 1024";

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a list of records")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<Entries, A::Error> {
                let mut entries = Vec::new();
                while let Some(entry) = seq.next_element()? {
                    if entries.len() == MAX_INDEX_RECORDS {
                        return Err(serde::de::Error::custom(TOO_MANY));
                    }
                    entries.push(entry);
                }
                Ok(Entries(entries))
            }
        }
        d.deserialize_seq(Visit)
    }
}

/// Reads an index: its header, then its entries (at least one, at most [`MAX_INDEX_RECORDS`],
/// unique ids).
pub fn read_index(bytes: &[u8]) -> Result<Vec<IndexEntry>, LoadError> {
    let header = parse_header(bytes).map_err(index_error)?;
    header
        .check_index()
        .map_err(|e| index_error(ReadError::Record(e)))?;
    // The whole file is JSON (the header was read from it): what fails now is its shape.
    let index: IndexFile =
        serde_json::from_slice(without_bom(bytes)).map_err(|e| index_error(ReadError::from(e)))?;
    let records = index.records.0;
    if records.is_empty() {
        return Err(LoadError::new(ViewerError::EmptyIndex, ""));
    }
    // Each id against the ones before it: at most 1,024 entries, about half a million
    // comparisons of short labels at worst (a millisecond); a set or a sort of `&str` would link
    // kilobytes of code into the wasm.
    for (i, entry) in records.iter().enumerate() {
        if records.iter().take(i).any(|e| e.id == entry.id) {
            return Err(LoadError::new(
                ViewerError::InvalidIndex,
                format!("records[{i}].id: \"{}\" is listed twice", entry.id),
            ));
        }
    }
    Ok(records)
}

fn index_error(error: ReadError) -> LoadError {
    match error {
        ReadError::TooLarge { bytes } => too_large(ViewerError::IndexTooLarge, bytes),
        ReadError::Json {
            kind: JsonKind::Shape,
            ..
        }
        | ReadError::Record(RecordError::Invalid { .. }) => {
            LoadError::new(ViewerError::InvalidIndex, error.to_string())
        }
        other => record_error(other, &[]),
    }
}

/// What is wrong with one index entry on its own (the other entries still load).
pub fn entry_error(entry: &IndexEntry) -> Option<LoadError> {
    if !plain_file_name(&entry.file) {
        return Some(LoadError::new(
            ViewerError::InvalidIndex,
            format!(
                "the index names the file \"{}\", not a plain file name like `my-record.json` in its folder",
                entry.file
            ),
        ));
    }
    if entry.sha256.len() != 64 || !entry.sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Some(LoadError::new(
            ViewerError::InvalidIndex,
            "the index's sha256 for this file is not 64 hex digits",
        ));
    }
    None
}

/// `<label>.json` or `<label>.jsonl`, nothing else: no folders, no scheme, no `..`.
pub fn plain_file_name(file: &str) -> bool {
    file.strip_suffix(".json")
        .or_else(|| file.strip_suffix(".jsonl"))
        .is_some_and(project_lanes::is_valid_label)
}

/// Lowercase hex SHA-256.
pub fn hex_sha256(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// A digest in lowercase hex.
fn hex(digest: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
    out
}

/// A record or an index (`kind` says which) of `bytes` bytes or more, over the 16 MiB limit.
pub fn too_large(kind: ViewerError, bytes: u64) -> LoadError {
    LoadError::new(
        kind,
        format!("{bytes} bytes or more; the limit is {MAX_RECORD_BYTES} bytes (16 MiB)"),
    )
}

/// A version 3 record of `bytes` bytes or more, larger than the viewer takes (`max_bytes`).
pub fn lines_too_large(bytes: u64, max_bytes: u64) -> LoadError {
    LoadError::new(
        ViewerError::RecordTooLarge,
        format!(
            "{bytes} bytes or more; this viewer takes version 3 records of at most {max_bytes} \
             bytes ({}; the page sets another limit with maxBytes)",
            binary_size(max_bytes)
        ),
    )
}

/// A version 3 record with more steps than the viewer holds (`max_steps`): refused at the step
/// past it, saying how many it holds and about how much memory that is.
pub fn too_many_steps(max_steps: u64) -> LoadError {
    let memory = max_steps.saturating_mul(STEP_BYTES);
    LoadError {
        held: Some(Held {
            steps: max_steps,
            memory,
        }),
        ..LoadError::new(
            ViewerError::RecordTooLarge,
            format!(
                "more than {max_steps} steps; this viewer holds version 3 records of at most \
                 {max_steps} steps (about {} of memory; the page sets another limit with \
                 maxSteps)",
                binary_size(memory)
            ),
        )
    }
}

/// An entry for a record read from a file the person opened (or from an index they opened).
fn opened(
    id: String,
    title: project_lanes::record::Text,
    file: &str,
    hashed: bool,
    content: Result<Loaded, LoadError>,
) -> Entry {
    Entry {
        id,
        title,
        file: file.to_string(),
        url: None,
        opened: true,
        named_by_file: false,
        hashed,
        verdict_told: Default::default(),
        content: Content::from(content.map(Rc::new)),
    }
}

/// One file a person opened: its name and what was read of it (or why it could not be read).
pub struct Opened {
    /// The file's name.
    pub name: String,
    /// Its bytes, or why they could not be read.
    pub content: Result<Incoming, LoadError>,
}

/// Reads files a person opened together: records become entries; an index brings the records
/// it lists from among the files opened with it (by file name, hash checked), and says which
/// are missing. Nothing is fetched. Each file is read once.
pub fn read_opened(files: Vec<Opened>) -> Vec<Entry> {
    /// An opened file: a version 3 record is read once an index has said what its hash should
    /// be (or that none lists it); a document is read at once, its bytes kept for the hash.
    struct File {
        name: String,
        bytes: Option<Vec<u8>>,
        lines: Option<Incoming>,
        read: Option<Result<Read, LoadError>>,
    }
    let mut files: Vec<File> = files
        .into_iter()
        .map(|file| {
            let (bytes, lines, read) = match file.content {
                Ok(mut incoming) => match incoming.take_document() {
                    Some(bytes) => {
                        let read = read_document(&bytes);
                        (Some(bytes), None, Some(read))
                    }
                    None if !incoming.failed() => (None, Some(incoming), None),
                    None => (None, None, Some(incoming.finish(None))),
                },
                Err(error) => (None, None, Some(Err(error))),
            };
            File {
                name: file.name,
                bytes,
                lines,
                read,
            }
        })
        .collect();
    // The indexes among them, and every file they name: a named file is read as a record (an
    // index where a record was expected is refused as such).
    let mut indexes = Vec::new();
    for file in &mut files {
        if let Some(Ok(Read::Index(_))) = &file.read
            && let Some(Ok(Read::Index(records))) = file.read.take()
        {
            indexes.push((file.name.clone(), records));
        }
    }
    let named = |name: &str| {
        indexes
            .iter()
            .any(|(_, records)| records.iter().any(|e| e.file == name))
    };
    let mut entries = Vec::new();
    for (name, records) in &indexes {
        if named(name) {
            continue;
        }
        for entry in records {
            let content = match (
                entry_error(entry),
                files.iter_mut().find(|f| f.name == entry.file),
            ) {
                (Some(error), _) => Err(error),
                (None, None) => Err(LoadError::new(
                    ViewerError::RecordUnavailable,
                    format!(
                        "{name} lists {}, which was not opened with it: open or drop both files together",
                        entry.file
                    ),
                )),
                (None, Some(file)) => match (file.lines.take(), &file.bytes, file.read.take()) {
                    (Some(lines), _, _) => {
                        record_of(lines.finish(Some(&entry.sha256)), Some(entry.id.as_str()))
                    }
                    (None, Some(bytes), read) => {
                        check_hash(bytes, &entry.sha256).and_then(|()| match read {
                            Some(Ok(Read::Record(loaded))) => {
                                check_id(*loaded, Some(entry.id.as_str()))
                            }
                            // Named twice: read again (a document: no lines' limit).
                            None => read_record(bytes, None, Some(entry.id.as_str()), Limits::NONE),
                            Some(Ok(Read::Index(_))) => Err(LoadError::new(
                                ViewerError::UnknownFormat,
                                format!("format is \"{INDEX_FORMAT}\", expected \"{FORMAT}\""),
                            )),
                            Some(Err(error)) => Err(error),
                        })
                    }
                    (None, None, Some(Err(error))) => Err(error),
                    // A version 3 record listed a second time: it was read for the first.
                    (None, None, _) => Err(LoadError::new(
                        ViewerError::RecordUnavailable,
                        format!(
                            "{} is listed more than once by the opened indexes",
                            entry.file
                        ),
                    )),
                },
            };
            entries.push(opened(
                entry.id.to_string(),
                entry.title.clone(),
                &entry.file,
                true,
                content,
            ));
        }
    }
    for mut file in files {
        if named(&file.name) {
            continue;
        }
        if let Some(lines) = file.lines.take() {
            file.read = Some(lines.finish(None));
        }
        entries.push(match file.read {
            Some(Ok(Read::Record(loaded))) => opened(
                loaded.record.id.to_string(),
                loaded.record.title.clone(),
                &file.name,
                false,
                Ok(*loaded),
            ),
            Some(Err(error)) => Entry::failed(&file.name, error),
            // An index, read above.
            Some(Ok(Read::Index(_))) | None => continue,
        });
    }
    entries
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_json_file_names_stay_in_the_index_folder() {
        assert!(plain_file_name("busy-project.json"));
        for bad in [
            "../x.json",
            "a/b.json",
            "x.txt",
            ".json",
            "https://h/x.json",
        ] {
            assert!(!plain_file_name(bad), "{bad}");
        }
    }

    #[test]
    fn a_step_in_a_located_error_is_counted_from_1() {
        assert_eq!(
            located("steps[3].input.lease", "never issued"),
            "step 4 (steps[3].input.lease): never issued"
        );
        assert_eq!(located("projects[1]", "twice"), "projects[1]: twice");
        assert_eq!(located("steps", "needs 1"), "steps: needs 1");
    }

    #[test]
    fn the_text_of_lines_is_kept_whole_or_not_at_all() {
        let head = concat!(
            r#"{"format":"project-lanes/record","version":3,"id":"v","#,
            r#""title":{"en":"V","ja":"V"},"summary":{"en":"V","ja":"V"},"#,
            r#""work_executed_here":false}"#,
            "\n"
        );
        let step = b"{\"op\":\"view\",\"project\":\"docs\",\"result\":\"ok\",\"lane\":{\"project\":\"docs\",\"busy\":false}}\n";
        let mut incoming = Incoming::new(Limits::NONE);
        incoming.push(head.as_bytes());
        let piece = step.repeat(8_000);
        while incoming.bytes() <= MAX_RECORD_BYTES {
            incoming.push(&piece);
            let whole = incoming.bytes() <= MAX_RECORD_BYTES;
            let kept = if whole { incoming.bytes() } else { 0 };
            assert_eq!(incoming.kept.len() as u64, kept);
        }
        for _ in 0..3 {
            incoming.push(&piece);
            assert!(incoming.kept.is_empty(), "no tail of the file is kept");
        }
        assert!(!incoming.failed());
    }

    /// A version 3 record of `steps` views, its end line last (without its newline unless
    /// `ended`), or cut after its steps.
    fn views(steps: u64, end: Option<bool>) -> Vec<u8> {
        let mut text = String::from(concat!(
            r#"{"format":"project-lanes/record","version":3,"id":"v","#,
            r#""title":{"en":"V","ja":"V"},"summary":{"en":"V","ja":"V"},"#,
            r#""work_executed_here":false}"#,
            "\n"
        ));
        for _ in 0..steps {
            text.push_str(r#"{"op":"view","project":"docs","result":"ok","lane":{"project":"docs","busy":false}}"#);
            text.push('\n');
        }
        if let Some(newline) = end {
            text.push_str(&format!(r#"{{"end":{{"steps":{steps}}}}}"#));
            if newline {
                text.push('\n');
            }
        }
        text.into_bytes()
    }

    /// How reading `bytes` in chunks of `chunk` bytes ends with at most `max_steps` steps: the
    /// steps read, or the error (without the page: `finish` makes a JavaScript string).
    fn read_in(bytes: &[u8], chunk: usize, max_steps: u64) -> Result<u64, LoadError> {
        let limits = Limits {
            steps: max_steps,
            ..Limits::DEFAULT
        };
        let mut incoming = Incoming::new(limits);
        for piece in bytes.chunks(chunk) {
            incoming.push(piece);
        }
        if let Some(error) = incoming.failed.take() {
            return Err(error);
        }
        let mut lines = incoming.lines.take().expect("lines");
        match lines.read(None, max_steps) {
            Ok(Some(verdict)) => Ok(verdict.steps),
            Ok(None) => unreachable!("the end gives a verdict"),
            Err(Fault::Steps) => Err(too_many_steps(max_steps)),
            Err(Fault::Read(e)) => Err(record_error(e, &[])),
        }
    }

    /// The list of steps of a file whose size is known grows to about its length, never to
    /// the next power of two; without a size it grows as a list does.
    #[test]
    fn the_list_of_steps_gets_the_room_the_size_of_the_file_implies() {
        let file = views(70_000, Some(true));
        let room = |incoming: &Incoming| incoming.lines.as_ref().unwrap().gather.steps_room();
        let whole = Incoming::whole(file.clone(), Limits::DEFAULT);
        let streamed = |size: Option<u64>| {
            let mut incoming = Incoming::new(Limits::DEFAULT);
            if let Some(size) = size {
                incoming.reserve(size);
            }
            for piece in file.chunks(64 * 1024) {
                incoming.push(piece);
            }
            incoming
        };
        for (how, incoming) in [
            ("whole", whole),
            ("streamed", streamed(Some(file.len() as u64))),
        ] {
            let (len, capacity) = room(&incoming);
            assert_eq!(len, 70_000, "{how}");
            assert!(
                capacity <= 70_000 + 70_000 / 32 + 1_024,
                "{how}: {capacity}"
            );
        }
        // A size that says less than the file holds (a compressed body's length): room an
        // eighth at a time while the size is believable, then the list's own doubling.
        let (len, capacity) = room(&streamed(Some(file.len() as u64 / 3)));
        assert_eq!(len, 70_000);
        assert!(capacity < 2 * 70_000, "{capacity}");
        // No size: the list's own growth.
        assert_eq!(room(&streamed(None)), (70_000, 131_072));
    }

    #[test]
    fn a_record_of_exactly_max_steps_is_held_and_one_more_step_is_refused() {
        for chunk in [1, 7, 100, usize::MAX] {
            for newline in [true, false] {
                let five = views(5, Some(newline));
                assert_eq!(read_in(&five, chunk, 5).unwrap(), 5, "chunks of {chunk}");
                assert_eq!(read_in(&five, chunk, 6).unwrap(), 5);
                let error = read_in(&five, chunk, 4).unwrap_err();
                assert_eq!(error.kind, ViewerError::RecordTooLarge, "chunks of {chunk}");
                assert_eq!(
                    error.held,
                    Some(Held {
                        steps: 4,
                        memory: 4 * STEP_BYTES
                    })
                );
            }
        }
    }

    #[test]
    fn the_step_past_the_limit_is_refused_wherever_the_file_stops() {
        // Cut after its steps, the last one's newline missing: the step past the limit is read
        // at the end, and is the verdict rather than the missing end line.
        let mut cut = views(3, None);
        cut.pop();
        for chunk in [1, 10, usize::MAX] {
            let error = read_in(&cut, chunk, 2).unwrap_err();
            assert_eq!(error.kind, ViewerError::RecordTooLarge, "{}", error.detail);
            assert!(error.held.is_some());
            // Within the limit, the cut is the verdict.
            let error = read_in(&cut, chunk, 3).unwrap_err();
            assert_eq!(error.kind, ViewerError::InvalidRecord, "{}", error.detail);
        }
    }

    #[test]
    fn the_first_fault_in_the_bytes_wins_between_a_broken_line_and_the_step_limit() {
        let mut broken_after = views(3, None);
        broken_after.extend_from_slice(b"{\"op\":\n");
        let mut broken_before = views(1, None);
        broken_before.extend_from_slice(b"{\"op\":\n");
        broken_before.extend_from_slice(&views(3, None)[views(0, None).len()..]);
        for chunk in [1, 13, usize::MAX] {
            let error = read_in(&broken_after, chunk, 2).unwrap_err();
            assert!(error.held.is_some(), "{}", error.detail);
            let error = read_in(&broken_before, chunk, 2).unwrap_err();
            assert_eq!(error.kind, ViewerError::InvalidJson, "{}", error.detail);
            assert!(error.held.is_none());
        }
    }

    #[test]
    fn the_default_budget_holds_a_million_steps_with_room() {
        assert_eq!(DEFAULT_MAX_STEPS, 3_024_625);
        let error = too_many_steps(DEFAULT_MAX_STEPS);
        assert!(
            error
                .detail
                .contains("at most 3024625 steps (about 1 GiB of memory;"),
            "{}",
            error.detail
        );
    }

    #[test]
    fn a_record_past_the_limit_names_the_limit() {
        let error = lines_too_large(5_000, 1_000);
        assert_eq!(error.kind, ViewerError::RecordTooLarge);
        assert!(
            error.detail.contains("at most 1000 bytes (1000 bytes;"),
            "{}",
            error.detail
        );
    }
}
