//! Loading: fetch the index and the records it lists (at most [`MAX_FETCHES`] at a time), check
//! each record's SHA-256 against the index, parse with the browser's JSON parser, check the
//! format, then deserialize with `serde-wasm-bindgen`. Files a person opens go through the same
//! reading path ([`read_opened`]). A failure in one record never stops the others.
//!
//! Every body is read with a limit: a `Content-Length` over it is refused before reading, and a
//! body without one stops being read at the limit, so a huge or endless file never reaches wasm
//! memory whole.

use std::rc::Rc;

use js_sys::{Array, JSON, Reflect, Uint8Array};
use project_lanes::record::{
    FORMAT, INDEX_FORMAT, Index, IndexEntry, MAX_RECORD_BYTES, Record, Text, VERSION,
};
use sha2::{Digest, Sha256};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStreamDefaultReader, Response, Url};

use crate::i18n::ViewerError;
use crate::verify::Verification;

/// Largest index file read, in bytes: the same 16 MiB as a record.
pub const MAX_INDEX_BYTES: u64 = MAX_RECORD_BYTES;
/// Most records an index may list (the format's limit, `Index::check`).
pub const MAX_INDEX_RECORDS: u32 = 1_024;
/// Record files fetched at the same time.
pub const MAX_FETCHES: usize = 6;

/// Why something could not be shown: a code for the page and a technical detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadError {
    /// What kind of failure (its code is shown verbatim).
    pub kind: ViewerError,
    /// What exactly went wrong, in English, for people who debug.
    pub detail: String,
}

impl LoadError {
    pub fn new(kind: ViewerError, detail: impl Into<String>) -> LoadError {
        LoadError {
            kind,
            detail: detail.into(),
        }
    }
}

/// A record file that loaded, passed its hash check (if it has an index) and parsed.
pub struct Loaded {
    pub record: Record,
    /// The file's text, shown as raw JSON.
    pub raw: String,
    /// What replaying it on the core found (filled in by `verify`).
    pub verification: std::cell::RefCell<Verification>,
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
    /// The file is still being fetched (`content` holds a placeholder until it arrives).
    pub pending: bool,
    pub content: Result<Rc<Loaded>, LoadError>,
}

/// What `src` names: a single record (shown without an index), or an index whose records are
/// still to be fetched ([`pending`], then [`fetch_records`]).
pub enum Listing {
    Record(Entry),
    Index {
        url: String,
        records: Vec<IndexEntry>,
    },
}

/// Loads `src` (relative to the page): a record, or an index (its records are not fetched yet).
pub async fn load_listing(src: &str) -> Result<Listing, LoadError> {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .unwrap_or_default();
    let index_url = Url::new_with_base(src, &base)
        .map_err(|_| LoadError::new(ViewerError::IndexUnavailable, format!("bad URL \"{src}\"")))?
        .href();
    let bytes = fetch(&index_url, MAX_INDEX_BYTES, ViewerError::IndexTooLarge)
        .await
        .map_err(|e| match e {
            Fetched::Failed(detail) => LoadError::new(ViewerError::IndexUnavailable, detail),
            Fetched::Refused(error) => error,
        })?;
    let text = String::from_utf8(bytes).map_err(|e| {
        LoadError::new(
            ViewerError::InvalidJson,
            format!(
                "not UTF-8 text (invalid bytes at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    let value = parse_json(&text)?;
    if format_of(&value).as_deref() == Some(FORMAT) {
        // `src` names a single record: it is shown (and verified) without an index.
        check_header(&value, FORMAT)?;
        let file = index_url
            .rsplit('/')
            .next()
            .and_then(|f| f.split(['?', '#']).next())
            .unwrap_or_default()
            .to_string();
        let loaded = record_from(value, text, None)?;
        return Ok(Listing::Record(Entry {
            id: loaded.record.id.to_string(),
            title: loaded.record.title.clone(),
            file,
            url: Some(index_url),
            opened: false,
            pending: false,
            content: Ok(Rc::new(loaded)),
        }));
    }
    check_header(&value, INDEX_FORMAT)?;
    let index = read_index(value)?;
    Ok(Listing::Index {
        url: index_url,
        records: index.records,
    })
}

/// The index's records as entries whose files are still loading: tabs can be shown at once.
pub fn pending(index_url: &str, records: &[IndexEntry]) -> Vec<Entry> {
    records
        .iter()
        .map(|entry| Entry {
            id: entry.id.to_string(),
            title: entry.title.clone(),
            file: entry.file.clone(),
            url: Some(record_url(index_url, entry)),
            opened: false,
            pending: true,
            content: Err(LoadError::new(
                ViewerError::RecordUnavailable,
                "still loading",
            )),
        })
        .collect()
}

fn record_url(index_url: &str, entry: &IndexEntry) -> String {
    Url::new_with_base(&entry.file, index_url)
        .map(|u| u.href())
        .unwrap_or_default()
}

/// Fetches `records[i]` for each `i` of `order`, at most [`MAX_FETCHES`] at a time, and hands
/// each to `arrived` as it completes, in `order`; stops when `arrived` returns `false` (the
/// viewer was destroyed).
pub async fn fetch_records(
    index_url: &str,
    records: &[IndexEntry],
    order: &[usize],
    mut arrived: impl FnMut(usize, Result<Rc<Loaded>, LoadError>) -> bool,
) {
    // A sliding window of fetches: at most MAX_FETCHES in flight, results taken in order.
    let mut pending = std::collections::VecDeque::new();
    let mut next = order.iter().filter_map(|&i| Some((i, records.get(i)?)));
    loop {
        while pending.len() < MAX_FETCHES {
            let Some((i, entry)) = next.next() else { break };
            let request = match entry_error(entry) {
                Some(error) => Err(error),
                None => Ok(start_fetch(&record_url(index_url, entry))),
            };
            pending.push_back((i, entry, request));
        }
        let Some((i, entry, request)) = pending.pop_front() else {
            return;
        };
        let content = match request {
            Ok(Ok(request)) => finish_fetch(request, MAX_RECORD_BYTES, ViewerError::RecordTooLarge)
                .await
                .map_err(|e| match e {
                    Fetched::Failed(detail) => {
                        LoadError::new(ViewerError::RecordUnavailable, detail)
                    }
                    Fetched::Refused(error) => error,
                })
                .and_then(|bytes| read_record(&bytes, Some(&entry.sha256), Some(&entry.id))),
            Ok(Err(detail)) => Err(LoadError::new(ViewerError::RecordUnavailable, detail)),
            Err(error) => Err(error),
        };
        if !arrived(i, content.map(Rc::new)) {
            return;
        }
    }
}

/// Reads an index: at most [`MAX_INDEX_RECORDS`] entries (counted before anything is
/// deserialized), at least one, unique ids (checked in linear time).
pub fn read_index(value: JsValue) -> Result<Index, LoadError> {
    let records = Reflect::get(&value, &JsValue::from_str("records")).unwrap_or_default();
    if let Some(list) = records.dyn_ref::<Array>() {
        if list.length() > MAX_INDEX_RECORDS {
            return Err(LoadError::new(
                ViewerError::InvalidIndex,
                format!(
                    "the index lists {} records; an index lists at most {MAX_INDEX_RECORDS}",
                    list.length()
                ),
            ));
        }
        if list.length() == 0 {
            return Err(LoadError::new(ViewerError::EmptyIndex, ""));
        }
    }
    let index: Index = serde_wasm_bindgen::from_value(value)
        .map_err(|e| LoadError::new(ViewerError::InvalidIndex, e.to_string()))?;
    // n log n with the B-tree the core's dispatcher already links (no hash table, no sort).
    let mut ids = std::collections::BTreeSet::new();
    for (i, entry) in index.records.iter().enumerate() {
        if !ids.insert(entry.id.as_str()) {
            return Err(LoadError::new(
                ViewerError::InvalidIndex,
                format!("records[{i}].id: \"{}\" is listed twice", entry.id),
            ));
        }
    }
    Ok(index)
}

/// What is wrong with one index entry on its own (the other entries still load).
fn entry_error(entry: &IndexEntry) -> Option<LoadError> {
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

/// Checks the hash (if the index gave one), then the header, then the record; `id` is the id
/// the index lists for it.
pub fn read_record(
    bytes: &[u8],
    sha256: Option<&str>,
    id: Option<&str>,
) -> Result<Loaded, LoadError> {
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(too_large(ViewerError::RecordTooLarge, bytes.len() as u64));
    }
    if let Some(sha256) = sha256 {
        let actual = hex_sha256(bytes);
        if !actual.eq_ignore_ascii_case(sha256) {
            return Err(LoadError::new(
                ViewerError::HashMismatch,
                format!("index says {sha256}, file is {actual}"),
            ));
        }
    }
    let (value, raw) = parse(bytes, FORMAT)?;
    record_from(value, raw, id)
}

/// Deserializes a parsed record whose header was checked.
pub fn record_from(value: JsValue, raw: String, id: Option<&str>) -> Result<Loaded, LoadError> {
    let record: Record = serde_wasm_bindgen::from_value(value)
        .map_err(|e| LoadError::new(ViewerError::InvalidRecord, e.to_string()))?;
    if let Some(id) = id
        && record.id.as_str() != id
    {
        return Err(LoadError::new(
            ViewerError::InvalidRecord,
            format!("the index lists \"{id}\" but the file is \"{}\"", record.id),
        ));
    }
    Ok(Loaded {
        record,
        raw,
        verification: Default::default(),
    })
}

/// Parses JSON text with the browser's parser and checks the format header (`format`,
/// `version`) before anything else, so a file of another version is named as such.
pub fn parse(bytes: &[u8], format: &str) -> Result<(JsValue, String), LoadError> {
    let text = String::from_utf8(bytes.to_vec()).map_err(|e| {
        LoadError::new(
            ViewerError::InvalidJson,
            format!(
                "not UTF-8 text (invalid bytes at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    let value = parse_json(&text)?;
    check_header(&value, format)?;
    Ok((value, text))
}

/// `JSON.parse`, with the browser's message (which names the line and column) as the detail.
pub fn parse_json(text: &str) -> Result<JsValue, LoadError> {
    if text.trim().is_empty() {
        return Err(LoadError::new(
            ViewerError::InvalidJson,
            "the file is empty",
        ));
    }
    JSON::parse(text).map_err(|e| {
        let mut detail = js_sys::Error::from(e)
            .message()
            .as_string()
            .unwrap_or_default();
        // Browsers word this differently and not all name a place: say the line and column.
        if !detail.contains("line") {
            let (line, column) = line_and_column(text, syntax_error_at(text.as_bytes()));
            detail.push_str(&format!(" (line {line}, column {column})"));
        }
        LoadError::new(ViewerError::InvalidJson, detail)
    })
}

/// Line and column (from 1, in characters) of a byte offset.
fn line_and_column(text: &str, position: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 1);
    for (at, c) in text.char_indices() {
        if at >= position {
            break;
        }
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}

/// The byte offset of the first JSON syntax error in `text` (which `JSON.parse` refused), for
/// the error message only: the parsing itself is the browser's.
fn syntax_error_at(text: &[u8]) -> usize {
    let mut at = 0;
    match json_value(text, &mut at) {
        Ok(()) => {
            skip_space(text, &mut at);
            at
        }
        Err(at) => at,
    }
}

fn skip_space(text: &[u8], at: &mut usize) {
    while matches!(text.get(*at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        *at += 1;
    }
}

/// Scans one JSON value; `Err(offset)` where it stops being JSON.
fn json_value(text: &[u8], at: &mut usize) -> Result<(), usize> {
    skip_space(text, at);
    let expect = |at: &mut usize, c: u8| {
        skip_space(text, at);
        if text.get(*at) == Some(&c) {
            *at += 1;
            Ok(())
        } else {
            Err(*at)
        }
    };
    match text.get(*at) {
        Some(b'{') => {
            *at += 1;
            skip_space(text, at);
            if text.get(*at) == Some(&b'}') {
                *at += 1;
                return Ok(());
            }
            loop {
                skip_space(text, at);
                if text.get(*at) != Some(&b'"') {
                    return Err(*at);
                }
                json_value(text, at)?;
                expect(at, b':')?;
                json_value(text, at)?;
                skip_space(text, at);
                match text.get(*at) {
                    Some(b',') => *at += 1,
                    Some(b'}') => {
                        *at += 1;
                        return Ok(());
                    }
                    _ => return Err(*at),
                }
            }
        }
        Some(b'[') => {
            *at += 1;
            skip_space(text, at);
            if text.get(*at) == Some(&b']') {
                *at += 1;
                return Ok(());
            }
            loop {
                json_value(text, at)?;
                skip_space(text, at);
                match text.get(*at) {
                    Some(b',') => *at += 1,
                    Some(b']') => {
                        *at += 1;
                        return Ok(());
                    }
                    _ => return Err(*at),
                }
            }
        }
        Some(b'"') => {
            *at += 1;
            loop {
                match text.get(*at) {
                    Some(b'"') => {
                        *at += 1;
                        return Ok(());
                    }
                    Some(b'\\') => *at += 2,
                    Some(c) if *c >= 0x20 => *at += 1,
                    _ => return Err(*at),
                }
            }
        }
        Some(b't') => literal(text, at, b"true"),
        Some(b'f') => literal(text, at, b"false"),
        Some(b'n') => literal(text, at, b"null"),
        Some(b'-' | b'0'..=b'9') => {
            let start = *at;
            while matches!(
                text.get(*at),
                Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
            ) {
                *at += 1;
            }
            if *at == start { Err(start) } else { Ok(()) }
        }
        _ => Err(*at),
    }
}

fn literal(text: &[u8], at: &mut usize, word: &[u8]) -> Result<(), usize> {
    if text.get(*at..*at + word.len()) == Some(word) {
        *at += word.len();
        Ok(())
    } else {
        Err(*at)
    }
}

/// The `format` of a parsed file, if it has one.
pub fn format_of(value: &JsValue) -> Option<String> {
    if !value.is_object() {
        return None;
    }
    Reflect::get(value, &JsValue::from_str("format"))
        .ok()?
        .as_string()
}

fn check_header(value: &JsValue, format: &str) -> Result<(), LoadError> {
    let found = format_of(value);
    if found.as_deref() != Some(format) {
        return Err(LoadError::new(
            ViewerError::UnknownFormat,
            format!(
                "format is \"{}\", expected \"{format}\"",
                found.unwrap_or_default()
            ),
        ));
    }
    let version = Reflect::get(value, &JsValue::from_str("version"))
        .ok()
        .and_then(|v| v.as_f64());
    if version != Some(f64::from(VERSION)) {
        return Err(LoadError::new(
            ViewerError::UnsupportedVersion,
            format!("this viewer reads version {VERSION}"),
        ));
    }
    Ok(())
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

/// A fetch that did not give a body: the network or the server failed, or the body is over
/// the limit (already a complete error).
enum Fetched {
    Failed(String),
    Refused(LoadError),
}

fn start_fetch(url: &str) -> Result<JsFuture, String> {
    let window = web_sys::window().ok_or("no window")?;
    Ok(JsFuture::from(window.fetch_with_str(url)))
}

/// Waits for the response and reads its body, at most `limit` bytes.
async fn finish_fetch(
    request: JsFuture,
    limit: u64,
    too_big: ViewerError,
) -> Result<Vec<u8>, Fetched> {
    let response: Response = request
        .await
        .map_err(|e| Fetched::Failed(format!("network error: {}", describe(&e))))?
        .unchecked_into();
    if !response.ok() {
        return Err(Fetched::Failed(format!(
            "HTTP {} for {}",
            response.status(),
            response.url()
        )));
    }
    let length = response
        .headers()
        .get("content-length")
        .ok()
        .flatten()
        .and_then(|l| l.trim().parse::<u64>().ok());
    let Some(body) = response.body() else {
        return Ok(Vec::new());
    };
    if let Some(length) = length
        && length > limit
    {
        // Refused from its announced size: nothing of the body is read.
        let _ = body.cancel();
        return Err(Fetched::Refused(too_large(too_big, length)));
    }
    if length.is_some() {
        // Announced and within the limit: the body is read whole (a browser stops at the
        // announced length).
        let buffer = JsFuture::from(
            response
                .array_buffer()
                .map_err(|e| Fetched::Failed(describe(&e)))?,
        )
        .await
        .map_err(|e| Fetched::Failed(format!("reading the body: {}", describe(&e))))?;
        return Ok(Uint8Array::new(&buffer).to_vec());
    }
    // No length announced: read it as a stream and stop at the limit.
    let reader: ReadableStreamDefaultReader = body.get_reader().unchecked_into();
    let capacity = length.unwrap_or(0).min(limit) as usize;
    let mut bytes = Vec::with_capacity(capacity);
    loop {
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(|e| Fetched::Failed(format!("reading the body: {}", describe(&e))))?;
        if Reflect::get(&chunk, &JsValue::from_str("done"))
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true)
        {
            break;
        }
        let value: Uint8Array = Reflect::get(&chunk, &JsValue::from_str("value"))
            .unwrap_or_default()
            .unchecked_into();
        let len = value.length() as usize;
        if (bytes.len() + len) as u64 > limit {
            // Stop reading at the limit: the rest of the body is never downloaded.
            let _ = reader.cancel();
            return Err(Fetched::Refused(too_large(
                too_big,
                (bytes.len() + len) as u64,
            )));
        }
        let start = bytes.len();
        bytes.resize(start + len, 0);
        if let Some(target) = bytes.get_mut(start..) {
            value.copy_to(target);
        }
    }
    Ok(bytes)
}

async fn fetch(url: &str, limit: u64, too_big: ViewerError) -> Result<Vec<u8>, Fetched> {
    let request = start_fetch(url).map_err(Fetched::Failed)?;
    finish_fetch(request, limit, too_big).await
}

/// One file a person opened: its name and its bytes (or why they could not be read).
pub struct Opened {
    pub name: String,
    pub bytes: Result<Vec<u8>, LoadError>,
}

/// Reads files a person opened together: records become entries; an index brings the records
/// it lists from among the files opened with it (by file name, hash checked), and says which
/// are missing. Nothing is fetched.
pub fn read_opened(files: Vec<Opened>) -> Vec<Entry> {
    let by_name = |name: &str| {
        files
            .iter()
            .find(|f| f.name == name)
            .and_then(|f| f.bytes.as_ref().ok())
    };
    // Parse each file once.
    let parsed: Vec<Parsed> = files
        .iter()
        .map(|file| {
            (
                file,
                file.bytes
                    .as_deref()
                    .map_err(Clone::clone)
                    .and_then(parse_any),
            )
        })
        .collect();
    // The indexes among them, and every file they name: a named file is read as a record
    // (even if it is an index: then it is refused as one where a record was expected).
    let mut indexes = Vec::new();
    let mut named: Vec<String> = Vec::new();
    for (file, parsed) in &parsed {
        if let Ok((value, _)) = parsed
            && format_of(value).as_deref() == Some(INDEX_FORMAT)
        {
            let index = check_header(value, INDEX_FORMAT).and_then(|()| read_index(value.clone()));
            if let Ok(index) = &index {
                named.extend(index.records.iter().map(|e| e.file.clone()));
            }
            indexes.push((*file, index));
        }
    }
    let mut entries = Vec::new();
    for (file, index) in indexes {
        if named.contains(&file.name) {
            continue;
        }
        let index = match index {
            Ok(index) => index,
            Err(error) => {
                entries.push(failed(&file.name, error));
                continue;
            }
        };
        for entry in &index.records {
            let content = match (entry_error(entry), by_name(&entry.file)) {
                (Some(error), _) => Err(error),
                (None, Some(bytes)) => read_record(bytes, Some(&entry.sha256), Some(&entry.id)),
                (None, None) => Err(LoadError::new(
                    ViewerError::RecordUnavailable,
                    format!(
                        "{} lists {}, which was not opened with it: open or drop both files together",
                        file.name, entry.file
                    ),
                )),
            };
            entries.push(Entry {
                id: entry.id.to_string(),
                title: entry.title.clone(),
                file: entry.file.clone(),
                url: None,
                opened: true,
                pending: false,
                content: content.map(Rc::new),
            });
        }
    }
    for (file, parsed) in parsed {
        if named.contains(&file.name) {
            continue;
        }
        let content = parsed.and_then(|(value, raw)| {
            if format_of(&value).as_deref() == Some(INDEX_FORMAT) {
                // Read above, as an index.
                return Err(LoadError::new(ViewerError::InvalidIndex, ""));
            }
            check_header(&value, FORMAT)?;
            record_from(value, raw, None)
        });
        entries.push(match content {
            Ok(loaded) => Entry {
                id: loaded.record.id.to_string(),
                title: loaded.record.title.clone(),
                file: file.name.clone(),
                url: None,
                opened: true,
                pending: false,
                content: Ok(Rc::new(loaded)),
            },
            Err(error) if error.kind == ViewerError::InvalidIndex && error.detail.is_empty() => {
                continue;
            }
            Err(error) => failed(&file.name, error),
        });
    }
    entries
}

/// An opened file and its parsed JSON (with its text).
type Parsed<'a> = (&'a Opened, Result<(JsValue, String), LoadError>);

/// Parses an opened file of any format (size, UTF-8 and JSON checked).
fn parse_any(bytes: &[u8]) -> Result<(JsValue, String), LoadError> {
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(too_large(ViewerError::RecordTooLarge, bytes.len() as u64));
    }
    let text = String::from_utf8(bytes.to_vec()).map_err(|e| {
        LoadError::new(
            ViewerError::InvalidJson,
            format!(
                "not UTF-8 text (invalid bytes at offset {})",
                e.utf8_error().valid_up_to()
            ),
        )
    })?;
    let value = parse_json(&text)?;
    Ok((value, text))
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
        pending: false,
        content: Err(error),
    }
}

fn describe(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .and_then(|e| e.message().as_string())
        .or_else(|| value.as_string())
        .unwrap_or_else(|| "unknown error".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_errors_are_located_by_line_and_column() {
        let text = "{\n  \"format\": }";
        assert_eq!(
            line_and_column(text, syntax_error_at(text.as_bytes())),
            (2, 13)
        );
        assert_eq!(syntax_error_at(b"[1, 2"), 5);
        assert_eq!(syntax_error_at(b"{} x"), 3);
        assert_eq!(syntax_error_at(b"\"a\\\"b\" ,"), 7);
    }

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
}
