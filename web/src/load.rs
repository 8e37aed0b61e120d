//! Loading over the network: fetch the index (or the single record `src` names) and the records
//! it lists (at most [`MAX_FETCHES`] at a time), and hand each file's bytes to `read`, which
//! checks each record's SHA-256 against the index and reads it with the core's reader. A
//! failure in one record never stops the others.
//!
//! Every body is read a chunk at a time into [`Incoming`], which reads a version 3 record's lines
//! as they arrive, and with a limit: 16 MiB for one JSON document (a version 1 or 2 record, an
//! index), the viewer's `maxBytes` for a version 3 record (256 MiB unless the page sets another;
//! its steps are counted against `maxSteps` as they are read, [`Limits`]).
//! A body whose `Content-Length` is over that is refused before it is read, one over 16 MiB as
//! soon as its first line says it is a document, and a body without a length stops being read at
//! its limit, so a huge or endless file never reaches wasm memory whole. For `src`, which may
//! name either kind, the first chunk of an oversized body is read to say which it is.
//!
//! Every fetch and read takes the viewer's [`Reading`]: destroying the viewer aborts its fetches
//! and cancels the bodies and files being read, wherever they are.

use std::rc::Rc;

use js_sys::{Reflect, Uint8Array};
use project_lanes::record::{IndexEntry, MAX_RECORD_BYTES};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortSignal, ReadableStreamDefaultReader, RequestInit, Response, Url};

use project_lanes_view::error::ViewerError;

use crate::entry::{Content, Entry, LoadError};
use crate::read::{
    Incoming, Limits, Read, entry_error, lines_too_large, read_record, record_of, too_large,
};

/// Largest index file read, in bytes: the same 16 MiB as a record.
pub const MAX_INDEX_BYTES: u64 = MAX_RECORD_BYTES;
/// Record files fetched at the same time.
pub const MAX_FETCHES: usize = 6;

/// How a viewer reads what it opens.
#[derive(Clone)]
pub struct Reading {
    /// How much of a version 3 record is taken (`maxBytes`, `maxSteps`).
    pub limits: Limits,
    /// Aborted when the viewer is destroyed: its fetches stop, and every body or file being
    /// read is cancelled at its next chunk.
    pub signal: AbortSignal,
    /// Shown the body being read as it arrives (how much has, and what a version 3 record's
    /// steps so far are) and its length, if known, at most every [`PROGRESS_MS`] while it is
    /// read (and the browser then runs its other tasks).
    pub progress: Progress,
}

/// What is shown a body as it arrives ([`Reading::progress`]).
pub type Progress = Rc<dyn Fn(&Incoming, Option<u64>)>;

/// The least time between two reports of a body's progress, in milliseconds.
pub const PROGRESS_MS: f64 = 100.0;

/// What `src` names: a single record (shown without an index), or an index whose records are
/// still to be fetched ([`pending`], then [`fetch_records`]).
pub enum Listing {
    /// A single record, read (it is shown without an index).
    Record(Entry),
    /// An index, whose records are still to be fetched.
    Index {
        /// Where the index is, as an absolute URL: its records' files are relative to it.
        url: String,
        /// The records it lists.
        records: Vec<IndexEntry>,
    },
}

/// Loads `src` (relative to the page): a record, or an index (its records are not fetched yet).
pub async fn load_listing(src: &str, reading: &Reading) -> Result<Listing, LoadError> {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .unwrap_or_default();
    let index_url = Url::new_with_base(src, &base)
        .map_err(|_| LoadError::new(ViewerError::IndexUnavailable, format!("bad URL \"{src}\"")))?
        .href();
    let incoming = match fetch(&index_url, reading).await {
        Ok(incoming) => incoming,
        Err(Fetched::Failed(detail)) => {
            return Err(LoadError::new(ViewerError::IndexUnavailable, detail));
        }
        Err(Fetched::TooLarge { bytes, start }) => {
            // The same limit holds for both kinds of document: the file's start says which.
            let kind = if names_a_record(&start) {
                ViewerError::RecordTooLarge
            } else {
                ViewerError::IndexTooLarge
            };
            return Err(too_large(kind, bytes));
        }
        Err(Fetched::LinesTooLarge(bytes)) => {
            return Err(lines_too_large(bytes, reading.limits.bytes));
        }
    };
    match incoming.finish(None)? {
        Read::Record(loaded) => {
            // `src` names a single record: it is shown (and verified) without an index.
            let file = index_url
                .rsplit('/')
                .next()
                .and_then(|f| f.split(['?', '#']).next())
                .unwrap_or_default()
                .to_string();
            Ok(Listing::Record(Entry {
                id: loaded.record.id.to_string(),
                title: loaded.record.title.clone(),
                file,
                url: Some(index_url),
                opened: false,
                named_by_file: false,
                hashed: false,
                verdict_told: Default::default(),
                content: Content::Loaded(Rc::new(*loaded)),
            }))
        }
        Read::Index(records) => Ok(Listing::Index {
            url: index_url,
            records,
        }),
    }
}

/// A record the page holds as text (no fetch, no index, so no hash): read and checked by the
/// core's reader like any other; an error (located, coded) shows in the viewer.
pub fn held(text: String, reading: &Reading) -> Result<Entry, LoadError> {
    let loaded = read_record(text.as_bytes(), None, None, reading.limits)?;
    Ok(Entry {
        id: loaded.record.id.to_string(),
        title: loaded.record.title.clone(),
        file: String::new(),
        url: None,
        opened: false,
        named_by_file: false,
        hashed: false,
        verdict_told: Default::default(),
        content: Content::Loaded(Rc::new(loaded)),
    })
}

/// Whether the start of a file says it is a record rather than an index: its format string
/// comes first (records are written with `format` first).
fn names_a_record(start: &[u8]) -> bool {
    let at = |needle: &[u8]| start.windows(needle.len()).position(|w| w == needle);
    match (
        at(b"\"project-lanes/record\""),
        at(b"\"project-lanes/index\""),
    ) {
        (Some(record), Some(index)) => record < index,
        (record, _) => record.is_some(),
    }
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
            named_by_file: false,
            hashed: true,
            verdict_told: Default::default(),
            content: Content::Pending,
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
    reading: &Reading,
    mut arrived: impl FnMut(usize, Content) -> bool,
) {
    // A sliding window of fetches: at most MAX_FETCHES in flight, results taken in order.
    let mut pending = std::collections::VecDeque::new();
    let mut next = order.iter().filter_map(|&i| Some((i, records.get(i)?)));
    loop {
        while pending.len() < MAX_FETCHES {
            let Some((i, entry)) = next.next() else { break };
            let request = match entry_error(entry) {
                Some(error) => Err(error),
                None => Ok(start_fetch(&record_url(index_url, entry), reading)),
            };
            pending.push_back((i, entry, request));
        }
        let Some((i, entry, request)) = pending.pop_front() else {
            return;
        };
        let content = match request {
            Ok(Ok(request)) => finish_fetch(request, Body::Listed, reading)
                .await
                .map_err(|e| match e {
                    Fetched::Failed(detail) => {
                        LoadError::new(ViewerError::RecordUnavailable, detail)
                    }
                    Fetched::TooLarge { bytes, .. } => {
                        too_large(ViewerError::RecordTooLarge, bytes)
                    }
                    Fetched::LinesTooLarge(bytes) => lines_too_large(bytes, reading.limits.bytes),
                })
                .and_then(|incoming| {
                    record_of(incoming.finish(Some(&entry.sha256)), Some(&entry.id))
                }),
            Ok(Err(detail)) => Err(LoadError::new(ViewerError::RecordUnavailable, detail)),
            Err(error) => Err(error),
        };
        if !arrived(i, Content::from(content.map(Rc::new))) {
            return;
        }
    }
}

/// A fetch that did not give a body: the network or the server failed, or the body is over the
/// limit: a document's (`start` holds its first chunk when it was read to name the file), or a
/// version 3 record's.
enum Fetched {
    Failed(String),
    TooLarge { bytes: u64, start: Vec<u8> },
    LinesTooLarge(u64),
}

fn start_fetch(url: &str, reading: &Reading) -> Result<JsFuture, String> {
    let window = web_sys::window().ok_or("no window")?;
    let init = RequestInit::new();
    init.set_signal(Some(&reading.signal));
    Ok(JsFuture::from(window.fetch_with_str_and_init(url, &init)))
}

/// The next chunk of a body being read, or `None` at its end.
async fn next_chunk(reader: &ReadableStreamDefaultReader) -> Result<Option<Uint8Array>, Fetched> {
    let chunk = JsFuture::from(reader.read())
        .await
        .map_err(|e| Fetched::Failed(format!("reading the body: {}", describe(&e))))?;
    let done = Reflect::get(&chunk, &JsValue::from_str("done"))
        .ok()
        .and_then(|d| d.as_bool())
        .unwrap_or(true);
    if done {
        return Ok(None);
    }
    Ok(Some(
        Reflect::get(&chunk, &JsValue::from_str("value"))
            .unwrap_or_default()
            .unchecked_into(),
    ))
}

/// What a body is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Body {
    /// `src`: a record or an index, which no index names (so nothing to hash).
    Src,
    /// A file opened or dropped: a record or an index, which an index opened with it may name.
    Opened,
    /// A record an index names, with its SHA-256.
    Listed,
}

/// Waits for the response and reads its body into [`Incoming`], a chunk at a time, within the
/// limits: a `Content-Length` over a version 3 record's limit is refused before the body is read
/// (after its first chunk, to tell a record from an index, unless an index listed it), one over
/// a document's as soon as the first line says it is one; a body read past its limit is
/// cancelled there.
async fn finish_fetch(
    request: JsFuture,
    body: Body,
    reading: &Reading,
) -> Result<Incoming, Fetched> {
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
    let Some(stream) = response.body() else {
        return Ok(Incoming::new(reading.limits));
    };
    read_body(stream.get_reader().unchecked_into(), length, body, reading).await
}

/// Reads a body of `length` bytes (if known) into [`Incoming`], a chunk at a time, within the
/// limits (see [`finish_fetch`]).
async fn read_body(
    reader: ReadableStreamDefaultReader,
    length: Option<u64>,
    body: Body,
    reading: &Reading,
) -> Result<Incoming, Fetched> {
    let mut incoming = Incoming::new(reading.limits);
    if body == Body::Src {
        incoming = incoming.unhashed();
    }
    if let Some(length) = length
        && length > reading.limits.bytes.max(MAX_RECORD_BYTES)
    {
        let mut start = Vec::new();
        if body != Body::Listed
            && let Ok(Some(chunk)) = next_chunk(&reader).await
        {
            start = chunk.to_vec();
        }
        let _ = reader.cancel();
        return Err(over(length, start));
    }
    if let Some(length) = length {
        incoming.reserve(length);
    }
    let mut chunk = Vec::new();
    let mut reported = js_sys::Date::now();
    while let Some(value) = next_chunk(&reader).await? {
        if reading.signal.aborted() {
            let _ = reader.cancel();
            return Err(Fetched::Failed("the viewer was destroyed".into()));
        }
        chunk.resize(value.length() as usize, 0);
        value.copy_to(&mut chunk);
        incoming.push(&chunk);
        let now = js_sys::Date::now();
        if now - reported >= PROGRESS_MS {
            reported = now;
            (reading.progress)(&incoming, length);
            // And the browser runs its other tasks (input, timers, drawing the progress):
            // chunks already received resolve the stream's reads at once, with no task in
            // between, so a body arriving faster than it is read (a file, a fast server, a
            // busy machine) would otherwise hold the page until its end.
            crate::dom::next_task().await;
        }
        let document = incoming.is_document();
        let over_document = document && length.is_some_and(|l| l > MAX_RECORD_BYTES);
        let over_lines = incoming.is_lines() && length.is_some_and(|l| l > reading.limits.bytes);
        if over_document || over_lines || incoming.failed() {
            // Refused: the rest of the body is never read.
            let _ = reader.cancel();
            if over_document || (document && incoming.bytes() > MAX_RECORD_BYTES) {
                let bytes = length.unwrap_or(incoming.bytes());
                return Err(Fetched::TooLarge {
                    bytes,
                    start: incoming.start().to_vec(),
                });
            }
            if over_lines {
                return Err(Fetched::LinesTooLarge(length.unwrap_or(incoming.bytes())));
            }
            // Any other error is the reader's verdict, given at the end: past the limit too,
            // for the reader alone tells a line that broke within the limit from the limit,
            // however the chunk that crossed it was cut.
            return Ok(incoming);
        }
    }
    Ok(incoming)
}

/// A file the person opened or dropped, read a chunk at a time like a fetched body, within the
/// same limits (its size is its length): a record of either kind, or an index.
pub async fn read_file(file: &web_sys::File, reading: &Reading) -> Result<Incoming, LoadError> {
    let length = file.size() as u64;
    let reader: ReadableStreamDefaultReader = file.stream().get_reader().unchecked_into();
    read_body(reader, Some(length), Body::Opened, reading)
        .await
        .map_err(|fetched| match fetched {
            Fetched::Failed(_) => {
                LoadError::new(ViewerError::RecordUnavailable, "the file could not be read")
            }
            // The command line's verdict on the same bytes: a document over its limit is a
            // record too large, whatever it names.
            Fetched::TooLarge { bytes, .. } => too_large(ViewerError::RecordTooLarge, bytes),
            Fetched::LinesTooLarge(bytes) => lines_too_large(bytes, reading.limits.bytes),
        })
}

/// A body announced over every limit, named by its first chunk: a version 3 record's, or a
/// document's.
fn over(length: u64, start: Vec<u8>) -> Fetched {
    let first = start.split(|&b| b == b'\n').next().unwrap_or_default();
    if start.contains(&b'\n') && project_lanes::record::json::is_lines(first) {
        Fetched::LinesTooLarge(length)
    } else {
        Fetched::TooLarge {
            bytes: length,
            start,
        }
    }
}

/// Fetches `src`: a record no index names (not hashed), or an index.
async fn fetch(url: &str, reading: &Reading) -> Result<Incoming, Fetched> {
    let request = start_fetch(url, reading).map_err(Fetched::Failed)?;
    finish_fetch(request, Body::Src, reading).await
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
    fn the_start_of_a_file_names_its_kind() {
        assert!(names_a_record(
            b"{\"format\": \"project-lanes/record\", \"x\""
        ));
        assert!(!names_a_record(
            b"{\"format\": \"project-lanes/index\", \"records\": [{\"project-lanes/record\""
        ));
        assert!(!names_a_record(b"          "));
    }
}
