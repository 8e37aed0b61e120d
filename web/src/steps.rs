//! Building the step cards in the page: the first [`FIRST`] elements at once and the rest in
//! chunks of at least [`CHUNK`] on later tasks (paced: `pace.rs`), each chunk written as
//! operations only when its turn comes (`project_lanes_view::steps::cards`) and built in one
//! crossing. A list taken off the page (another record, another language, a destroyed viewer)
//! stops being built. A long record lists a window of its steps instead
//! (`project_lanes_view::step_window`), which follows the current step ([`follow`]) and pages
//! ([`page`]): its page stays small at any size.

use std::rc::Rc;

use project_lanes_view::i18n::Lang;
use project_lanes_view::step_window;
use project_lanes_view::tree::{ROOT, Tree};
use wasm_bindgen::prelude::*;
use web_sys::Element;

use crate::dom::{attr, clear, next_task};
use crate::entry::Loaded;
use crate::pace::Pace;
use crate::tree::build;
use crate::zone::Browser;

/// Elements (steps, their lanes and reservations) built before the panel is shown, about 250
/// steps of a four-project record.
const FIRST: usize = 1_500;
/// Elements built per later task, at least (more when the page's updates take longer: [`Pace`]).
const CHUNK: usize = 6_000;

/// Builds the steps of `loaded` into `list`: the first at once, the rest on later tasks; a
/// long record's first window of steps ([`step_window`]) at once. Returns a promise that
/// resolves once every step (or the window) is in the list (or the list left the page).
pub fn build_all(list: &Element, lang: Lang, loaded: &Rc<Loaded>) -> js_sys::Promise {
    let steps = loaded.record.steps.len();
    if step_window::windowed(steps) {
        show_window(list, lang, loaded, (0, step_window::WINDOW_STEPS));
        return js_sys::Promise::resolve(&JsValue::UNDEFINED);
    }
    let at = append(list, lang, loaded, 0, FIRST);
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
    let mismatch = mismatch_at(list);
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

/// Lists the cards of steps `from` to `until` (excluded; fewer if they hold more than the
/// window's elements) in `list` (a long record's), in place of the window it listed, and
/// updates the line and buttons around it.
fn show_window(list: &Element, lang: Lang, loaded: &Loaded, (from, until): (usize, usize)) {
    let record = &loaded.record;
    let steps = record.steps.len();
    let from = from.min(steps.saturating_sub(1));
    let mut tree = Tree::new();
    let to = project_lanes_view::steps::cards_until(
        &mut tree,
        ROOT,
        (lang, &Browser),
        record,
        (from, until, step_window::WINDOW_ELEMENTS),
        mismatch_at(list),
    );
    clear(list);
    build(&tree, list);
    attr(list, "data-steps-from", &from.to_string());
    attr(list, "data-steps-to", &to.to_string());
    let Some(panel) = list.parent_element() else {
        return;
    };
    if let Ok(Some(line)) = panel.query_selector("[data-steps-shown]") {
        line.set_text_content(Some(&step_window::shown(lang, (from, to), steps)));
    }
    for (selector, shown) in [
        (
            "[data-steps-earlier]",
            step_window::earlier((from, to)).is_some(),
        ),
        (
            "[data-steps-later]",
            step_window::later((from, to), steps).is_some(),
        ),
    ] {
        if let Ok(Some(button)) = panel.query_selector(selector) {
            if shown {
                button.remove_attribute("hidden").ok();
            } else {
                attr(&button, "hidden", "");
            }
        }
    }
}

/// The window `list` shows, if it is a long record's.
fn window_of(list: &Element) -> Option<(usize, usize)> {
    let number = |name| list.get_attribute(name)?.parse().ok();
    Some((number("data-steps-from")?, number("data-steps-to")?))
}

/// Makes step `n`'s card listed: a long record's window moves to it when it is outside.
pub fn follow(list: &Element, lang: Lang, loaded: &Loaded, n: usize) {
    let Some(window) = window_of(list) else {
        return;
    };
    if let Some(steps) = step_window::around(n, window) {
        show_window(list, lang, loaded, steps);
        // Cards so large that the lead alone fills the window: start at the step.
        if window_of(list).is_some_and(|(_, to)| to <= n) {
            show_window(list, lang, loaded, (n, n + step_window::WINDOW_STEPS));
        }
    }
}

/// Lists the window before (`later` false) or after the one `list` shows; returns whether it
/// moved.
pub fn page(list: &Element, lang: Lang, loaded: &Loaded, later: bool) -> bool {
    let Some(window) = window_of(list) else {
        return false;
    };
    let steps = loaded.record.steps.len();
    let next = if later {
        step_window::later(window, steps)
    } else {
        step_window::earlier(window)
    };
    let Some(steps) = next else { return false };
    show_window(list, lang, loaded, steps);
    true
}

fn mismatch_at(list: &Element) -> Option<usize> {
    list.get_attribute("data-mismatch-at")
        .and_then(|n| n.parse().ok())
}

/// Marks step `n` as the one that does not match the core, now or when it is built.
pub fn mark(list: &Element, n: usize) {
    let n = n.to_string();
    attr(list, "data-mismatch-at", &n);
    if let Ok(Some(step)) = list.query_selector(&format!("[data-step=\"{n}\"]")) {
        attr(&step, "data-mismatch", "");
    }
}
