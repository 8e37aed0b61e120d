//! The deep link in the page's address (`project_lanes_view::deep_link` reads and writes its text): read
//! from `location.hash` with the page's `decodeURIComponent`, written with
//! `encodeURIComponent` as a new history entry or in place of the current one (`history`'s
//! `pushState` and `replaceState`).

use project_lanes_view::deep_link::{Link, parse};
use project_lanes_view::state::Write;
use wasm_bindgen::prelude::*;

use crate::entry::State;

/// The page's deep link.
pub fn read() -> Link {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    parse(&hash, decode)
}

/// `decodeURIComponent`, or the text as it is if it is not valid percent-encoding.
fn decode(value: &str) -> String {
    js_sys::decode_uri_component(value)
        .ok()
        .and_then(|v| v.as_string())
        .unwrap_or_else(|| value.to_string())
}

fn encode(value: &str) -> String {
    js_sys::encode_uri_component(value).into()
}

/// Writes `#record=<id>&lang=<tag>[&step=<n>][&find=<query>]` for what `state` shows, if it
/// changed.
pub fn write(state: &State, write: Write) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let location = window.location();
    let current = location.hash().unwrap_or_default();
    let Some(hash) = state.link(&current, encode) else {
        return;
    };
    // Through `history`, not `location.hash`: a new fragment would be navigated to, which lays
    // out the page at once (22-27 ms a record switch at 1,000,000 steps, in the middle of the
    // switch) and fires a `hashchange` the viewer has no use for. Going back to an entry still
    // fires `hashchange`, which the viewer follows.
    let Ok(history) = window.history() else {
        return;
    };
    match write {
        Write::Replace => history.replace_state_with_url(&JsValue::NULL, "", Some(&hash)),
        Write::Push => history.push_state_with_url(&JsValue::NULL, "", Some(&hash)),
    }
    .ok();
}
