//! Rendering: builds the viewer's DOM from loaded records. Pure functions of (document,
//! language, data) → elements; the app decides when to call them.
//!
//! The DOM contract other people's tests rely on (documented in the README):
//! `[data-lane-viewer][lang]` root, `[role=tab][data-record-id][aria-selected]` tabs,
//! `[data-selected-record]` panel, `[data-step][data-op][data-result]` steps with
//! `[data-lane][data-busy][data-run][data-state]` lanes, `[data-untouched-project]` and
//! `[data-viewer-error]`.

use std::rc::Rc;

use project_lanes::LaneView;
use project_lanes::record::{Record, ReplayMismatch};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use crate::describe;
use crate::dom::{append, append_text, attr, el};
use crate::entry::{Entry, LoadError, Loaded, Verification};
use crate::i18n::{Lang, Msg, ViewerError, fill, fill_all, group, text};
use crate::steps;

/// The error box for a failed load: localized message, the code verbatim, and the detail.
pub fn error_box(doc: &Document, lang: Lang, error: &LoadError) -> Element {
    let code = error.kind.code();
    let wrap = el(doc, "div", "lv-error", None);
    attr(&wrap, "role", "alert");
    attr(&wrap, "data-viewer-error", code);
    let message = el(doc, "p", "lv-error-message", None);
    append_text(&message, doc, text(lang, Msg::Viewer(error.kind)));
    append_text(&message, doc, " ");
    append(&message, &code_el(doc, code));
    append(&wrap, &message);
    if !error.detail.is_empty() {
        // The detail may quote file contents: text only. It is English in either language.
        let detail = el(doc, "p", "lv-error-detail", Some(&error.detail));
        attr(&detail, "lang", "en");
        append(&wrap, &detail);
    }
    wrap
}

fn code_el(doc: &Document, code: &str) -> Element {
    let c = el(doc, "code", "lv-code", Some(code));
    attr(&c, "translate", "no");
    c
}

/// The record selector's tab for `entry`: its title, the file name for opened files, and for
/// a record that could not be shown, a text saying so (not only a colour).
pub fn tab(doc: &Document, lang: Lang, entry: &Entry, id: &str, panel_id: &str) -> Element {
    let tab = el(doc, "button", "lv-tab", None);
    append(
        &tab,
        &el(
            doc,
            "span",
            "lv-tab-title",
            Some(entry.title.get(lang.tag())),
        ),
    );
    attr(&tab, "type", "button");
    attr(&tab, "role", "tab");
    attr(&tab, "id", id);
    attr(&tab, "aria-controls", panel_id);
    attr(&tab, "data-record-id", &entry.id);
    if entry.opened {
        attr(&tab, "data-opened-file", &entry.file);
        append_text(&tab, doc, " ");
        append(&tab, &el(doc, "span", "lv-tab-file", Some(&entry.file)));
    }
    if entry.pending {
        attr(&tab, "aria-busy", "true");
    } else if let Err(e) = &entry.content {
        tab.class_list().add_1("lv-tab-error").ok();
        attr(&tab, "data-tab-error", e.kind.code());
        append_text(&tab, doc, " ");
        append(
            &tab,
            &el(doc, "span", "lv-sr", Some(text(lang, Msg::TabFailed))),
        );
    }
    tab
}

/// The "Open records…" button, its hidden file input and the note that nothing is uploaded.
pub fn open_controls(doc: &Document, lang: Lang, tools: &Element) {
    let button = el(doc, "button", "lv-open", Some(text(lang, Msg::OpenRecords)));
    attr(&button, "type", "button");
    attr(&button, "data-open-records", "");
    let input = el(doc, "input", "", None);
    attr(&input, "type", "file");
    attr(&input, "accept", ".json,application/json");
    attr(&input, "multiple", "");
    attr(&input, "hidden", "");
    attr(&input, "data-open-input", "");
    let note = el(doc, "p", "lv-open-note", Some(text(lang, Msg::OpenNote)));
    for part in [&button, &input, &note] {
        append(tools, part);
    }
}

/// The verification line above the steps, for the panel's `data-verification`.
fn verification_line(doc: &Document, lang: Lang, loaded: &Loaded) -> (Element, &'static str) {
    let state = loaded.verification.borrow();
    let line = el(doc, "p", "lv-verification", None);
    let count = loaded.record.steps.len();
    let steps = group(count);
    match &*state {
        Verification::NotStarted | Verification::Running(_) => {
            let done = match &*state {
                Verification::Running(n) => *n,
                _ => 0,
            };
            attr(&line, "role", "status");
            let shown = fill_all(text(lang, Msg::Verifying), &[&group(done), &steps]);
            append_text(&line, doc, &shown);
            let progress = el(doc, "progress", "", None);
            attr(&progress, "max", &count.to_string());
            attr(&progress, "value", &done.to_string());
            append_text(&line, doc, " ");
            append(&line, &progress);
        }
        Verification::Verified => {
            let msg = if count == 1 {
                Msg::VerifiedOne
            } else {
                Msg::Verified
            };
            append_text(&line, doc, &fill(text(lang, msg), &steps));
        }
        Verification::Failed(ReplayMismatch::Invalid(error)) => {
            attr(&line, "role", "alert");
            attr(
                &line,
                "data-viewer-error",
                ViewerError::InvalidRecord.code(),
            );
            append_text(&line, doc, text(lang, Msg::InvalidLine));
            append_text(&line, doc, " ");
            append(&line, &code_el(doc, ViewerError::InvalidRecord.code()));
            // `Record::check` locates the problem (step, field), in English.
            let detail = el(doc, "span", "lv-error-detail", Some(&error.to_string()));
            attr(&detail, "lang", "en");
            append(&line, &detail);
        }
        Verification::Failed(mismatch) => {
            attr(&line, "role", "alert");
            attr(
                &line,
                "data-viewer-error",
                ViewerError::ReplayMismatch.code(),
            );
            let (head, body) = describe::mismatch(lang, mismatch, &loaded.record.steps);
            match state.mismatch_step() {
                Some(step) => {
                    // The line links to the step (built now or later in the background).
                    let link = el(doc, "a", "lv-goto", Some(&head));
                    attr(&link, "href", "#");
                    attr(&link, "data-goto-step", &step.to_string());
                    append(&line, &link);
                }
                None => append_text(&line, doc, &head),
            }
            append_text(&line, doc, " ");
            append_text(&line, doc, &body);
            append_text(&line, doc, " ");
            append(&line, &code_el(doc, ViewerError::ReplayMismatch.code()));
        }
    }
    let code = state.code();
    attr(&line, "data-verification-line", code);
    (line, code)
}

/// Shows new verification progress or its result in a panel that shows `loaded`.
pub fn update_verification(doc: &Document, lang: Lang, panel: &Element, loaded: &Loaded) {
    let Ok(Some(old)) = panel.query_selector(".lv-verification") else {
        return;
    };
    let (line, code) = verification_line(doc, lang, loaded);
    old.replace_with_with_node_1(&line).ok();
    attr(panel, "data-verification", code);
    if let Some(step) = loaded.verification.borrow().mismatch_step()
        && let Ok(Some(list)) = panel.query_selector(".lv-steps")
    {
        steps::mark(&list, step);
    }
}

/// Fills the panel for `entry`: the record, or its error. Returns a promise that resolves once
/// every step is in the page (large records finish in the background). `timeline` gives the
/// record's timeline section (the app keeps the ones it built).
pub fn panel(
    doc: &Document,
    lang: Lang,
    panel: &Element,
    entry: &Entry,
    timeline: &mut dyn FnMut(&Rc<Loaded>) -> Element,
) -> Option<js_sys::Promise> {
    attr(panel, "data-selected-record", &entry.id);
    if entry.pending {
        append(
            panel,
            &el(doc, "h2", "lv-title", Some(entry.title.get(lang.tag()))),
        );
        let line = el(doc, "p", "lv-loading", Some(text(lang, Msg::Loading)));
        attr(&line, "role", "status");
        append(panel, &line);
        return None;
    }
    let loaded = match &entry.content {
        Ok(loaded) => loaded,
        Err(error) => {
            append(
                panel,
                &el(doc, "h2", "lv-title", Some(entry.title.get(lang.tag()))),
            );
            append(panel, &error_box(doc, lang, error));
            if error.kind == ViewerError::InvalidRecord {
                // Read but not replayed: it breaks the record format.
                attr(panel, "data-verification", "invalid");
            }
            if let Some(text) = &error.raw {
                // JSON that is not a readable record: the reader may want to see it.
                append(panel, &raw_json(doc, lang, entry, text));
            }
            return None;
        }
    };
    let record = &loaded.record;
    let l = lang.tag();
    let (line, verification) = verification_line(doc, lang, loaded);
    attr(panel, "data-verification", verification);
    append(panel, &el(doc, "h2", "lv-title", Some(record.title.get(l))));
    append(
        panel,
        &el(doc, "p", "lv-summary", Some(record.summary.get(l))),
    );
    let no_work = el(
        doc,
        "p",
        "lv-no-work",
        Some(text(lang, Msg::NothingExecuted)),
    );
    attr(&no_work, "data-nothing-executed", "");
    append(panel, &no_work);
    append(panel, &line);
    if verification == "invalid" {
        // A record that breaks the format may be of any shape (a step with 270,000 lanes, say):
        // only the located error and its JSON are shown.
        append(panel, &raw_json(doc, lang, entry, &loaded.raw));
        return None;
    }
    if record.is_dispatcher() {
        let mut names = String::new();
        for queue in &record.queues {
            if !names.is_empty() {
                names.push_str(", ");
            }
            names.push_str(queue);
        }
        let label = fill(text(lang, Msg::QueuesLabel), &names);
        append(panel, &el(doc, "p", "lv-queues", Some(&label)));
    }

    // The step bar (sticky, above the timeline and the steps it moves through), then the
    // timeline, drawn from the snapshots.
    append(panel, &crate::timeline::bar(doc, lang, record.steps.len()));
    append(panel, &timeline(loaded));

    append(
        panel,
        &el(doc, "h3", "lv-h", Some(text(lang, Msg::StepsHeading))),
    );
    let list = el(doc, "div", "lv-steps", None);
    if let Some(step) = loaded.verification.borrow().mismatch_step() {
        steps::mark(&list, step);
    }
    let settled = steps::build(&list, lang, loaded);
    append(panel, &list);

    // After the steps, so usually below the fold: laid out when it comes near the viewport.
    let end = el(doc, "div", "lv-end", None);
    append(panel, &end);
    append(
        &end,
        &el(doc, "h3", "lv-h", Some(text(lang, Msg::FinalLanesHeading))),
    );
    append(&end, &final_lanes(doc, lang, record));
    append(
        &end,
        &el(
            doc,
            "p",
            "lv-untouched-note",
            Some(&fill(
                text(lang, Msg::UntouchedExplained),
                &record.untouched_project,
            )),
        ),
    );

    append(&end, &raw_json(doc, lang, entry, &loaded.raw));
    Some(settled)
}

/// The record's JSON as saved, and a download link for files from the page's index.
fn raw_json(doc: &Document, lang: Lang, entry: &Entry, json: &js_sys::JsString) -> Element {
    let raw = el(doc, "details", "lv-raw", None);
    append(
        &raw,
        &el(doc, "summary", "", Some(text(lang, Msg::RawJson))),
    );
    let pre = el(doc, "pre", "lv-json", None);
    attr(&pre, "tabindex", "0");
    let code = el(doc, "code", "", None);
    // The text stays on the JavaScript side: it never passes through wasm memory again.
    js_sys::Reflect::set(&code, &JsValue::from_str("textContent"), json).ok();
    append(&pre, &code);
    append(&raw, &pre);
    if let Some(url) = &entry.url {
        let link = el(
            doc,
            "a",
            "lv-download",
            Some(&fill(text(lang, Msg::Download), &entry.file)),
        );
        attr(&link, "href", url);
        attr(&link, "download", &entry.file);
        append(&raw, &link);
    }
    raw
}

fn lane_attrs(element: &Element, view: &LaneView) {
    attr(element, "data-lane", &view.project);
    attr(
        element,
        "data-busy",
        if view.busy { "true" } else { "false" },
    );
    if let (Some(run), Some(state)) = (&view.run, view.state) {
        attr(element, "data-run", run);
        attr(element, "data-state", state.as_str());
    }
}

fn final_lanes(doc: &Document, lang: Lang, record: &Record) -> Element {
    let table = el(doc, "table", "lv-final", None);
    let head = el(doc, "tr", "", None);
    for msg in [Msg::ProjectColumn, Msg::StateColumn, Msg::RunColumn] {
        let th = el(doc, "th", "", Some(text(lang, msg)));
        attr(&th, "scope", "col");
        append(&head, &th);
    }
    let thead = el(doc, "thead", "", None);
    append(&thead, &head);
    append(&table, &thead);
    let body = el(doc, "tbody", "", None);
    for view in &record.final_lanes {
        let row = el(doc, "tr", if view.busy { "lv-busy" } else { "" }, None);
        lane_attrs(&row, view);
        let name = el(doc, "th", "", Some(&view.project));
        attr(&name, "scope", "row");
        if record.untouched_project == view.project {
            row.class_list().add_1("lv-untouched").ok();
            attr(&row, "data-untouched-project", &view.project);
            append_text(&name, doc, " ");
            append(
                &name,
                &el(doc, "span", "lv-badge", Some(text(lang, Msg::Untouched))),
            );
        }
        append(&row, &name);
        let state = match view.state {
            Some(state) => text(lang, Msg::State(state)),
            None => text(lang, Msg::Idle),
        };
        append(&row, &el(doc, "td", "", Some(state)));
        append(
            &row,
            &el(doc, "td", "", Some(view.run.as_deref().unwrap_or("—"))),
        );
        append(&body, &row);
    }
    append(&table, &body);
    table
}
