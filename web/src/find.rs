//! The find box in the page: the input's text, the line that counts the matches (or says why
//! the query was not taken) and the matches marked on the timeline, shown from the state after
//! every change that can alter them (`project_lanes_view::find_box` builds the box,
//! `project_lanes_view::timeline::found_marks` the marks).

use project_lanes_view::find_box::status;
use project_lanes_view::timeline::found_marks;
use project_lanes_view::tree::{ROOT, Tree};
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlInputElement};

use crate::dom::{attr, clear};
use crate::entry::State;
use crate::timeline::geometry;
use crate::tree::build;

/// Shows `state`'s query and its matches in `panel`; `marks`: the timeline's marks are drawn
/// again too (the query, the record or the drawing changed), on a time axis at `edges`.
pub fn show(panel: &Element, state: &State, (marks, edges): (bool, Option<&[u64]>)) {
    let Some(find) = panel.query_selector("[data-find]").ok().flatten() else {
        return;
    };
    if let Some(input) = find
        .query_selector("[data-find-input]")
        .ok()
        .flatten()
        .and_then(|e| e.dyn_into::<HtmlInputElement>().ok())
        && input.value() != state.query
    {
        input.set_value(&state.query);
    }
    let shown = status(state.lang, state.found.as_ref(), state.current_step);
    if let Some(line) = find.query_selector("[data-find-status]").ok().flatten() {
        if line.text_content().unwrap_or_default() != shown.text {
            line.set_text_content(Some(&shown.text));
        }
        match shown.count {
            Some(n) => attr(&line, "data-find-count", &n.to_string()),
            None => {
                line.remove_attribute("data-find-count").ok();
            }
        }
        match shown.error {
            Some(code) => attr(&line, "data-find-error", code),
            None => {
                line.remove_attribute("data-find-error").ok();
            }
        }
    }
    if !marks {
        return;
    }
    let (Some(svg), Some(marks)) = (
        panel.query_selector("[data-timeline]").ok().flatten(),
        panel.query_selector("[data-find-marks]").ok().flatten(),
    ) else {
        return;
    };
    clear(&marks);
    if let Some(Ok(found)) = &state.found
        && found.count() > 0
    {
        let mut t = Tree::new();
        found_marks(&mut t, ROOT, &geometry(&svg, edges), found.steps());
        build(&t, &marks);
    }
}
