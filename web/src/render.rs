//! Putting `project_lanes_view`'s drawings into the page: the panel of the selected record (its head,
//! the step bar, the timeline — built, or kept from before —, the steps built in the
//! background, its tail with the raw JSON as a JavaScript string), a tab, and a fresh
//! verification line. What is drawn, and every string, is decided in `project_lanes_view`.

use std::rc::Rc;

use project_lanes_view::entry::Content;
use project_lanes_view::error::ViewerError;
use project_lanes_view::frame::{self, TabIds};
use project_lanes_view::i18n::Lang;
use project_lanes_view::panel;
use project_lanes_view::timeline::Drawing;
use project_lanes_view::tree::{ROOT, Tree};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use crate::dom::attr;
use crate::entry::{Entry, Loaded};
use crate::steps;
use crate::tree::build;
use crate::zone::Browser;

/// The tab of `entry`, built apart (to take an old tab's place).
pub fn tab(doc: &Document, lang: Lang, entry: &Entry, ids: &TabIds) -> Element {
    let mut t = Tree::new();
    let tab = frame::tab(&mut t, ROOT, lang, entry, ids);
    build(&t, &doc.create_document_fragment()).element(tab)
}

/// Shows new verification progress or its result in a panel that shows `loaded`.
pub fn update_verification(doc: &Document, lang: Lang, panel: &Element, loaded: &Loaded) {
    let Ok(Some(old)) = panel.query_selector(".lv-verification") else {
        return;
    };
    let mut t = Tree::new();
    let code = panel::verification(&mut t, ROOT, lang, loaded);
    let fragment = doc.create_document_fragment();
    build(&t, &fragment);
    old.replace_with_with_node_1(&fragment).ok();
    attr(panel, "data-verification", code);
    if let Some(step) = loaded.verification.borrow().mismatch_step()
        && let Ok(Some(list)) = panel.query_selector(".lv-steps")
    {
        steps::mark(&list, step);
    }
}

/// The file's text into the element made for it.
fn fill_raw(code: &Element, raw: &js_sys::JsString) {
    // The text stays on the JavaScript side: it never passes through wasm memory again.
    js_sys::Reflect::set(code, &JsValue::from_str("textContent"), raw).ok();
}

/// Fills the panel for `entry`: the record (with the find box showing `query`), or its error.
/// Returns a promise that resolves once every step is in the page (large records finish in the
/// background). `timeline` gives the record's timeline section if one was kept.
pub fn panel(
    (lang, drawing, query): (Lang, Drawing, &str),
    panel: &Element,
    entry: &Entry,
    timeline: &mut dyn FnMut(&Rc<Loaded>) -> Option<Element>,
) -> Option<js_sys::Promise> {
    attr(panel, "data-selected-record", &entry.id);
    let mut t = Tree::new();
    let loaded = match &entry.content {
        Content::Pending => {
            panel::pending(&mut t, ROOT, lang, entry);
            build(&t, panel);
            return None;
        }
        Content::Failed(error) => {
            let raw = panel::failed(&mut t, ROOT, lang, entry, error);
            if error.kind == ViewerError::InvalidRecord {
                // Read but not replayed: it breaks the record format.
                attr(panel, "data-verification", "invalid");
            }
            let built = build(&t, panel);
            if let (Some(raw), Some(text)) = (raw, &error.raw) {
                fill_raw(&built.element(raw), text);
            }
            return None;
        }
        Content::Loaded(loaded) => loaded,
    };
    let record = &loaded.record;
    let verification = panel::head(&mut t, ROOT, lang, loaded);
    panel::origin(&mut t, ROOT, lang, record, loaded.notes(), &Browser);
    attr(panel, "data-verification", verification);
    attr(panel, "data-chain", loaded.proof.code());
    if !entry.hashed {
        panel::no_hash(&mut t, ROOT, lang);
    }
    if verification == "invalid" {
        // A record that breaks the format may be of any shape (a step with 270,000 lanes, say):
        // only the located error and its JSON are shown.
        let raw = panel::raw_json(&mut t, ROOT, lang, entry);
        fill_raw(&build(&t, panel).element(raw), &loaded.raw);
        return None;
    }
    panel::queues(&mut t, ROOT, lang, record);
    // The step bar (sticky, above the timeline and the steps it moves through), then the
    // timeline, drawn from the snapshots (or kept from before).
    let nav = project_lanes_view::timeline::bar(&mut t, ROOT, lang, record.steps.len());
    project_lanes_view::find_box::find_box(&mut t, nav, lang, &panel.id(), query);
    if let Some(kept) = timeline(loaded) {
        build(&t, panel);
        panel.append_child(&kept).ok();
        t = Tree::new();
    } else {
        project_lanes_view::timeline::section_on(&mut t, ROOT, lang, record, &panel.id(), drawing);
    }
    let tail = panel::tail(&mut t, ROOT, lang, entry, loaded);
    let built = build(&t, panel);
    fill_raw(&built.element(tail.raw), &loaded.raw);
    Some(steps::build_all(&built.element(tail.list), lang, loaded))
}
