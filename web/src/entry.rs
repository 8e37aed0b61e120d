//! The viewer's data types: `lane_view`'s, with a file's text kept as a JavaScript string (the
//! page shows it as raw JSON; the wasm never reads it again).

use js_sys::JsString;

/// A record read and checked.
pub type Loaded = lane_view::entry::Loaded<JsString>;
/// A tab: one record to show and what became of its file.
pub type Entry = lane_view::entry::Entry<JsString>;
/// Still loading, read, or failed.
pub type Content = lane_view::entry::Content<JsString>;
/// Why something could not be shown.
pub type LoadError = lane_view::error::LoadError<JsString>;
/// One viewer's state.
pub type State = lane_view::state::State<JsString>;
