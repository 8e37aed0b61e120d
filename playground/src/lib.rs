//! # lane-playground
//!
//! The WebAssembly of the playground page (`www/playground.html`): a scenario typed in the
//! browser runs on the real core through `lane-records`' own runner ([`Scenario::from_bytes`],
//! [`Scenario::output`]), so the record it offers is byte for byte the file `lane-records run`
//! writes for the same text. It also writes a record back as a scenario
//! ([`lane_records::edit`]), packs a scenario with its record and index into a `.zip`
//! ([`mod@bundle`]) and holds a scenario in a share link's fragment ([`mod@share`]). It is its own
//! module, loaded only by that page; the viewer that shows the record is the usual one.
//!
//! ```js
//! import init, { run, starts, edit, share, unshare, bundle } from "./playground/lane_playground.js";
//! await init();
//! const ran = run("scenario.toml", text);
//! // { ok: true, id, file: "<id>.json", json }  or
//! // { ok: false, code, file, line, column, message, shown }  (`shown`: what the command prints)
//! ```

#![warn(missing_docs)]

pub mod bundle;
pub mod share;
pub mod starts;

use std::path::Path;

use lane_records::OutputFile;
use lane_records::scenario::{Scenario, ScenarioError};
use project_lanes::record::Record;
use project_lanes::record::stream::DEFAULT_MAX_BYTES;
use serde::Serialize;
use wasm_bindgen::prelude::*;

/// What running a scenario gave.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub enum Ran {
    /// The record.
    Record {
        /// Always `true`.
        ok: bool,
        /// The record id.
        id: String,
        /// Its file name, `<id>.json`.
        file: String,
        /// The file's text, as `lane-records run` writes it.
        json: String,
        /// How many steps it has.
        steps: usize,
    },
    /// Why there is none.
    Error(Failure),
}

/// A coded error; `line` and `column` (from 1) when it has a place.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    /// Always `false`.
    pub ok: bool,
    /// A stable code (`SCENARIO_SYNTAX`, `RECORD_TOO_LARGE`, `LINK_INVALID`, …).
    pub code: &'static str,
    /// The file it is in.
    pub file: String,
    /// The line, from 1.
    pub line: Option<usize>,
    /// The column, from 1, in characters.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
    /// The whole error as `lane-records run` prints it: `file:line:column: message`, then the
    /// line with a caret under the column.
    pub shown: String,
}

impl Failure {
    fn of(error: &ScenarioError) -> Failure {
        Failure {
            ok: false,
            code: error.code(),
            file: error.file.display().to_string(),
            line: error.at.map(|at| at.line),
            column: error.at.map(|at| at.column),
            message: error.message.clone(),
            shown: error.to_string(),
        }
    }

    fn plain(code: &'static str, file: &str, message: String) -> Failure {
        Failure {
            ok: false,
            code,
            file: file.to_string(),
            line: None,
            column: None,
            shown: format!("{file}: {message}"),
            message,
        }
    }
}

/// Runs scenario text on the core, as `lane-records run FILE` runs the file `file`.
pub fn run_text(file: &str, text: &str) -> Result<(Scenario, Record, OutputFile), ScenarioError> {
    let scenario = Scenario::from_bytes(Path::new(file), text.as_bytes().to_vec())?;
    let (record, output) = scenario.output()?;
    Ok((scenario, record, output))
}

/// [`run_text`], for the page.
pub fn ran(file: &str, text: &str) -> Ran {
    match run_text(file, text) {
        Ok((_, record, output)) => Ran::Record {
            ok: true,
            id: record.id.to_string(),
            steps: record.steps.len(),
            json: String::from_utf8(output.bytes).unwrap_or_default(),
            file: output.name,
        },
        Err(error) => Ran::Error(Failure::of(&error)),
    }
}

fn to_js<T: Serialize>(value: &T) -> JsValue {
    serde_wasm_bindgen::to_value(value).unwrap_or(JsValue::NULL)
}

/// Runs `text` as the scenario file `file`: `{ok: true, id, file, json, steps}` or a
/// [`Failure`].
#[wasm_bindgen]
pub fn run(file: &str, text: &str) -> JsValue {
    to_js(&ran(file, text))
}

/// Every start: `[{file, kind: "scenario"|"template", id, title: {en, ja}, text}]`.
#[wasm_bindgen]
pub fn starts() -> JsValue {
    to_js(&starts::starts())
}

/// "Edit as scenario": the bytes of a record file (any version) as scenario text,
/// `{ok: true, file: "<id>.toml", text}`, or a [`Failure`] naming `name`.
#[wasm_bindgen]
pub fn edit(name: &str, bytes: &[u8]) -> JsValue {
    #[derive(Serialize)]
    struct Edited {
        ok: bool,
        file: String,
        text: String,
    }
    let edited = lane_records::edit::record_of_bytes(bytes, DEFAULT_MAX_BYTES)
        .and_then(|record| Ok((lane_records::edit::scenario_text(&record)?, record.id)));
    match edited {
        Ok((text, id)) => to_js(&Edited {
            ok: true,
            file: format!("{id}.toml"),
            text,
        }),
        Err(e) => to_js(&Failure::plain(e.code, name, e.message)),
    }
}

/// The share link's fragment value for `text` (`#scenario=<this>`).
#[wasm_bindgen]
pub fn share(text: &str) -> String {
    share::encode(text)
}

/// The scenario text a share link's value holds: `{ok: true, text}` or a [`Failure`].
#[wasm_bindgen]
pub fn unshare(value: &str) -> JsValue {
    #[derive(Serialize)]
    struct Shared {
        ok: bool,
        text: String,
    }
    match share::decode(value) {
        Ok(text) => to_js(&Shared { ok: true, text }),
        Err(e) => to_js(&Failure::plain(e.code, "the link", e.message)),
    }
}

/// The scenario `text` (the file `file`), its record and `index.json` as one `.zip`
/// (a `Uint8Array`), or a [`Failure`] when the scenario does not run.
#[wasm_bindgen]
pub fn bundle(file: &str, text: &str) -> JsValue {
    match run_text(file, text) {
        Ok((scenario, record, output)) => {
            let name = format!("{}.toml", scenario.id());
            let files = bundle::files(&name, text, &record, &output);
            js_sys::Uint8Array::from(bundle::zip(&files).as_slice()).into()
        }
        Err(error) => to_js(&Failure::of(&error)),
    }
}
