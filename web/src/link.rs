//! The deep link in the page's address (`project_lanes_view::deep_link` reads and writes its text): read
//! from `location.hash` with the page's `decodeURIComponent`, written with
//! `encodeURIComponent` as a new history entry or in place of the current one.

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
    match write {
        Write::Replace => {
            if let Ok(history) = window.history() {
                history
                    .replace_state_with_url(&JsValue::NULL, "", Some(&hash))
                    .ok();
            }
        }
        Write::Push => {
            location.set_hash(&hash).ok();
        }
    }
}
