//! Loading: fetch the index and every record it lists, check each record's SHA-256 against the
//! index, parse with the browser's JSON parser and check the format. A failure in one record
//! never stops the others.

use js_sys::{JSON, Reflect, Uint8Array};
use project_lanes::record::{FORMAT, INDEX_FORMAT, Index, MAX_RECORD_BYTES, Record, Text, VERSION};
use sha2::{Digest, Sha256};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Response, Url};

use crate::i18n::ViewerError;
use crate::js_de;

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

/// A record file that loaded, passed its hash check and parsed.
pub struct Loaded {
    pub record: Record,
    /// The file's text, shown as raw JSON.
    pub raw: String,
}

/// One entry of the index and what became of its file.
pub struct Entry {
    pub id: String,
    pub title: Text,
    pub file: String,
    /// The file's absolute URL (for the download link).
    pub url: String,
    pub content: Result<Loaded, LoadError>,
}

/// Loads the index at `src` (relative to the page) and every record it lists.
pub async fn load(src: &str) -> Result<Vec<Entry>, LoadError> {
    let base = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.base_uri().ok().flatten())
        .unwrap_or_default();
    let index_url = Url::new_with_base(src, &base)
        .map_err(|_| LoadError::new(ViewerError::IndexUnavailable, format!("bad URL \"{src}\"")))?
        .href();
    let bytes = fetch(&index_url)
        .await
        .map_err(|detail| LoadError::new(ViewerError::IndexUnavailable, detail))?;
    let index: Index = js_de::from_value(parse(&bytes, INDEX_FORMAT)?.0).map_err(invalid)?;
    // The index's full checks (`Index::check`) stay with the generator and `lane-records`;
    // here only what keeps fetches inside the index's folder.
    if let Some((i, entry)) = index
        .records
        .iter()
        .enumerate()
        .find(|(i, e)| index.records[..*i].iter().any(|o| o.id == e.id))
    {
        return Err(LoadError::new(
            ViewerError::InvalidRecord,
            format!("index entry {i} repeats the id \"{}\"", entry.id),
        ));
    }
    if let Some(entry) = index.records.iter().find(|e| !plain_file_name(&e.file)) {
        return Err(LoadError::new(
            ViewerError::InvalidRecord,
            format!(
                "index entry \"{}\" names a file outside its folder",
                entry.id
            ),
        ));
    }

    // Start every fetch before waiting for any, so the files load in parallel.
    let pending: Vec<_> = index
        .records
        .iter()
        .map(|entry| {
            let url = Url::new_with_base(&entry.file, &index_url)
                .map(|u| u.href())
                .unwrap_or_default();
            let request = start_fetch(&url);
            (entry, url, request)
        })
        .collect();
    let mut entries = Vec::with_capacity(pending.len());
    for (entry, url, request) in pending {
        let content = match request {
            Ok(request) => finish_fetch(request).await,
            Err(detail) => Err(detail),
        }
        .map_err(|detail| LoadError::new(ViewerError::RecordUnavailable, detail))
        .and_then(|bytes| read_record(&bytes, &entry.sha256, entry.id.as_str()));
        entries.push(Entry {
            id: entry.id.to_string(),
            title: entry.title.clone(),
            file: entry.file.clone(),
            url,
            content,
        });
    }
    Ok(entries)
}

/// Checks the hash, then the header, then the record and its format rules.
fn read_record(bytes: &[u8], sha256: &str, id: &str) -> Result<Loaded, LoadError> {
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(LoadError::new(
            ViewerError::RecordTooLarge,
            format!("{} bytes; the limit is {MAX_RECORD_BYTES}", bytes.len()),
        ));
    }
    let actual = hex_sha256(bytes);
    if actual != sha256 {
        return Err(LoadError::new(
            ViewerError::HashMismatch,
            format!("index says {sha256}, file is {actual}"),
        ));
    }
    let (value, raw) = parse(bytes, FORMAT)?;
    let record: Record = js_de::from_value(value).map_err(invalid)?;
    // `Record::check` (handles issued before use, snapshots per project, …) is left to
    // `lane-records replay`: the viewer shows what parsed and matched its hash, and its code
    // would cost about 4 KB of the gzipped size budget.
    if record.id.as_str() != id {
        return Err(LoadError::new(
            ViewerError::InvalidRecord,
            format!("the index lists \"{id}\" but the file is \"{}\"", record.id),
        ));
    }
    Ok(Loaded { record, raw })
}

/// Parses JSON text with the browser's parser and checks the format header (`format`,
/// `version`) before anything else, so a file of another version is named as such.
fn parse(bytes: &[u8], format: &str) -> Result<(JsValue, String), LoadError> {
    let text = String::from_utf8(bytes.to_vec())
        .map_err(|e| LoadError::new(ViewerError::InvalidJson, format!("not UTF-8: {e}")))?;
    let value = JSON::parse(&text).map_err(|e| {
        let detail = js_sys::Error::from(e)
            .message()
            .as_string()
            .unwrap_or_default();
        LoadError::new(ViewerError::InvalidJson, detail)
    })?;
    let field = |name: &str| Reflect::get(&value, &JsValue::from_str(name)).ok();
    let found = field("format").and_then(|f| f.as_string());
    if found.as_deref() != Some(format) {
        return Err(LoadError::new(
            ViewerError::UnknownFormat,
            format!(
                "format is \"{}\", expected \"{format}\"",
                found.unwrap_or_default()
            ),
        ));
    }
    let version = field("version").and_then(|v| v.as_f64());
    if version != Some(f64::from(VERSION)) {
        return Err(LoadError::new(
            ViewerError::UnsupportedVersion,
            format!("this viewer reads version {VERSION}"),
        ));
    }
    Ok((value, text))
}

fn invalid(e: js_de::Error) -> LoadError {
    LoadError::new(ViewerError::InvalidRecord, e.to_string())
}

/// `<label>.json`, nothing else: no folders, no scheme, no `..`.
fn plain_file_name(file: &str) -> bool {
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

fn start_fetch(url: &str) -> Result<JsFuture, String> {
    let window = web_sys::window().ok_or("no window")?;
    Ok(JsFuture::from(window.fetch_with_str(url)))
}

async fn finish_fetch(request: JsFuture) -> Result<Vec<u8>, String> {
    let response: Response = request
        .await
        .map_err(|e| format!("network error: {}", describe(&e)))?
        .unchecked_into();
    if !response.ok() {
        return Err(format!("HTTP {} for {}", response.status(), response.url()));
    }
    let buffer = JsFuture::from(response.array_buffer().map_err(|e| describe(&e))?)
        .await
        .map_err(|e| describe(&e))?;
    Ok(Uint8Array::new(&buffer).to_vec())
}

async fn fetch(url: &str) -> Result<Vec<u8>, String> {
    finish_fetch(start_fetch(url)?).await
}

fn describe(value: &JsValue) -> String {
    value
        .dyn_ref::<js_sys::Error>()
        .and_then(|e| e.message().as_string())
        .or_else(|| value.as_string())
        .unwrap_or_else(|| "unknown error".into())
}
