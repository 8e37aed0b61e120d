//! Reading files: the bytes the viewer holds become a record, an index or a [`LoadError`], with
//! exactly the verdict `lane-records replay` gives the same bytes. Records are read by the
//! core's one reader, [`parse_record`] (serde_json: syntax, then the header, then the shape with
//! unknown and duplicate fields refused, then `Record::check`; a byte order mark skipped;
//! nesting of any depth refused with its line and column). Indexes are read with serde_json
//! too, with the viewer's own rules: at most [`MAX_INDEX_RECORDS`] entries (refused at the next
//! one, before the rest is read), unique ids, and a bad file name or hash failing only its
//! entry.

use std::rc::Rc;

use project_lanes::record::json::{JsonKind, ReadError, parse_header, parse_record, without_bom};
use project_lanes::record::{FORMAT, INDEX_FORMAT, IndexEntry, MAX_RECORD_BYTES, RecordError};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use lane_view::error::ViewerError;

use crate::entry::{Content, Entry, LoadError, Loaded, Opened};

/// Most records an index may list (the format's limit, `Index::check`).
pub const MAX_INDEX_RECORDS: usize = 1_024;

/// What a file turned out to be.
pub enum Read {
    Record(Box<Loaded>),
    Index(Vec<IndexEntry>),
}

/// Reads a file that may be a record or an index (`src`, opened files).
pub fn read_any(bytes: &[u8]) -> Result<Read, LoadError> {
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
) -> Result<Loaded, LoadError> {
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(too_large(ViewerError::RecordTooLarge, bytes.len() as u64));
    }
    if let Some(sha256) = sha256 {
        check_hash(bytes, sha256)?;
    }
    let record = parse_record(bytes).map_err(|e| record_error(e, bytes))?;
    check_id(loaded(record, bytes), id)
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
        ReadError::TooLarge { .. } => (ViewerError::RecordTooLarge, false),
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

/// `<label>.json`, nothing else: no folders, no scheme, no `..`.
pub fn plain_file_name(file: &str) -> bool {
    file.strip_suffix(".json")
        .is_some_and(project_lanes::is_valid_label)
}

/// Lowercase hex SHA-256.
pub fn hex_sha256(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push(HEX[(b >> 4) as usize] as char);
        out.push(HEX[(b & 15) as usize] as char);
    }
    out
}

pub fn too_large(kind: ViewerError, bytes: u64) -> LoadError {
    LoadError::new(
        kind,
        format!("{bytes} bytes or more; the limit is {MAX_RECORD_BYTES} bytes (16 MiB)"),
    )
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
        content: Content::from(content.map(Rc::new)),
    }
}

/// Reads files a person opened together: records become entries; an index brings the records
/// it lists from among the files opened with it (by file name, hash checked), and says which
/// are missing. Nothing is fetched. Each file is read once.
pub fn read_opened(files: Vec<Opened>) -> Vec<Entry> {
    struct File {
        name: String,
        bytes: Option<Vec<u8>>,
        read: Option<Result<Read, LoadError>>,
    }
    let mut files: Vec<File> = files
        .into_iter()
        .map(|file| {
            let read = match &file.bytes {
                Ok(bytes) => read_any(bytes),
                Err(error) => Err(error.clone()),
            };
            File {
                name: file.name,
                bytes: file.bytes.ok(),
                read: Some(read),
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
                (None, Some(file)) => match (&file.bytes, file.read.take()) {
                    (Some(bytes), read) => {
                        check_hash(bytes, &entry.sha256).and_then(|()| match read {
                            Some(Ok(Read::Record(loaded))) => {
                                check_id(*loaded, Some(entry.id.as_str()))
                            }
                            // Named twice: read again.
                            None => read_record(bytes, None, Some(entry.id.as_str())),
                            Some(Ok(Read::Index(_))) => Err(LoadError::new(
                                ViewerError::UnknownFormat,
                                format!("format is \"{INDEX_FORMAT}\", expected \"{FORMAT}\""),
                            )),
                            Some(Err(error)) => Err(error),
                        })
                    }
                    (None, Some(Err(error))) => Err(error),
                    (None, _) => Err(LoadError::new(
                        ViewerError::RecordUnavailable,
                        "the file could not be read",
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
    for file in files {
        if named(&file.name) {
            continue;
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
}
