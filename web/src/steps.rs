//! Building the step cards in the page: the first [`FIRST`] elements at once and the rest in
//! chunks of at least [`CHUNK`] on later tasks (paced: `pace.rs`), each chunk written as
//! operations only when its turn comes (`project_lanes_view::steps::cards`) and built in one crossing, so
//! a 100,000-step record is never held whole. A list taken off the page (another record, another
//! language, a destroyed viewer) stops being built.

use std::rc::Rc;

use project_lanes_view::i18n::Lang;
use project_lanes_view::tree::{ROOT, Tree};
use wasm_bindgen::prelude::*;
use web_sys::Element;

use crate::dom::{attr, next_task};
use crate::entry::Loaded;
use crate::pace::Pace;
use crate::tree::build;
use crate::zone::Browser;

/// Elements (steps, their lanes and reservations) built before the panel is shown, about 250
/// steps of a four-project record.
const FIRST: usize = 1_500;
/// Elements built per later task, at least (more when the page's updates take longer: [`Pace`]).
const CHUNK: usize = 6_000;

/// Builds the steps of `loaded` into `list`: the first at once, the rest on later tasks.
/// Returns a promise that resolves once every step is in the list (or the list left the page).
pub fn build_all(list: &Element, lang: Lang, loaded: &Rc<Loaded>) -> js_sys::Promise {
    let at = append(list, lang, loaded, 0, FIRST);
    let steps = loaded.record.steps.len();
    if at >= steps {
        return js_sys::Promise::resolve(&JsValue::UNDEFINED);
    }
    attr(list, "aria-busy", "true");
    let (list, loaded) = (list.clone(), loaded.clone());
    js_sys::Promise::new(&mut |resolve, _| {
        let (list, loaded) = (list.clone(), loaded.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let mut at = at;
            let mut pace = Pace::new(CHUNK);
            while at < steps {
                next_task().await;
                if list.parent_node().is_none() {
                    break;
                }
                at = pace.task(|budget| append(&list, lang, &loaded, at, budget));
            }
            list.remove_attribute("aria-busy").ok();
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
    })
}

/// Builds steps from `from` until about `budget` elements are built; returns the next step.
fn append(list: &Element, lang: Lang, loaded: &Loaded, from: usize, budget: usize) -> usize {
    let mismatch = list
        .get_attribute("data-mismatch-at")
        .and_then(|n| n.parse().ok());
    let mut tree = Tree::new();
    let at = project_lanes_view::steps::cards_in_zone(
        &mut tree,
        ROOT,
        lang,
        &loaded.record,
        (from, budget),
        mismatch,
        &Browser,
    );
    build(&tree, list);
    at
}

/// Marks step `n` as the one that does not match the core, now or when it is built.
pub fn mark(list: &Element, n: usize) {
    let n = n.to_string();
    attr(list, "data-mismatch-at", &n);
    if let Ok(Some(step)) = list.query_selector(&format!("[data-step=\"{n}\"]")) {
        attr(&step, "data-mismatch", "");
    }
}
