//! The viewer's data types: `project_lanes_view`'s, with a file's text kept as a JavaScript string (the
//! page shows it as raw JSON; the wasm never reads it again).

use js_sys::JsString;

/// A record read and checked.
pub type Loaded = project_lanes_view::entry::Loaded<JsString>;
/// A tab: one record to show and what became of its file.
pub type Entry = project_lanes_view::entry::Entry<JsString>;
/// Still loading, read, or failed.
pub type Content = project_lanes_view::entry::Content<JsString>;
/// Why something could not be shown.
pub type LoadError = project_lanes_view::error::LoadError<JsString>;
/// One viewer's state.
pub type State = project_lanes_view::state::State<JsString>;
