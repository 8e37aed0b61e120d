//! Rendering: builds the viewer's DOM from loaded records. Pure functions of (document,
//! language, data) → elements; the app decides when to call them.
//!
//! The DOM contract other people's tests rely on (documented in the README):
//! `[data-lane-viewer][lang]` root, `[role=tab][data-record-id][aria-selected]` tabs,
//! `[data-selected-record]` panel, `[data-step][data-op][data-result]` steps with
//! `[data-lane][data-busy][data-run][data-state]` lanes, `[data-untouched-project]` and
//! `[data-viewer-error]`.

use project_lanes::dispatch::ReservationView;
use project_lanes::record::{Field, Op, Record, ReplayMismatch, Step, StepResult};
use project_lanes::{LaneView, Outcome, Receipt};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

use crate::dom::{append, append_text, attr, el};
use crate::i18n::{Lang, Msg, ViewerError, fill, fill_all, text};
use crate::load::{Entry, LoadError, Loaded};
use crate::verify::Verification;

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
    let steps = loaded.record.steps.len().to_string();
    match &*state {
        Verification::NotStarted | Verification::Running(_) => {
            let done = match &*state {
                Verification::Running(n) => *n,
                _ => 0,
            };
            attr(&line, "role", "status");
            let shown = fill_all(text(lang, Msg::Verifying), &[&done.to_string(), &steps]);
            append_text(&line, doc, &shown);
            let progress = el(doc, "progress", "", None);
            attr(&progress, "max", &steps);
            attr(&progress, "value", &done.to_string());
            append_text(&line, doc, " ");
            append(&line, &progress);
        }
        Verification::Verified => {
            append_text(&line, doc, &fill(text(lang, Msg::Verified), &steps));
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
            let (head, body) = mismatch_text(lang, mismatch);
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

/// "Step 4 (release) does not match the core:" and "saved `LEASE_NOT_CURRENT`, the core returns
/// receipt · …".
fn mismatch_text(lang: Lang, mismatch: &ReplayMismatch) -> (String, String) {
    let head = |step: usize, op: Op| {
        fill_all(
            text(lang, Msg::MismatchStep),
            &[&(step + 1).to_string(), text(lang, Msg::Op(op))],
        )
    };
    let result = |r: &StepResult| {
        let (code, explanation) = response_text(lang, r);
        if code.is_empty() {
            explanation
        } else {
            code.to_string()
        }
    };
    match mismatch {
        ReplayMismatch::Result {
            step,
            op,
            saved,
            actual,
        } => (
            head(*step, *op),
            fill_all(
                text(lang, Msg::SavedVsCore),
                &[&result(saved), &result(actual)],
            ),
        ),
        ReplayMismatch::Lanes {
            step,
            op,
            saved,
            actual,
        } => (
            match (step, op) {
                (Some(step), Some(op)) => head(*step, *op),
                _ => text(lang, Msg::MismatchFinal).to_string(),
            },
            fill_all(
                text(lang, Msg::LaneSavedVsCore),
                &[
                    &saved.project,
                    &lane_text(lang, saved),
                    &lane_text(lang, actual),
                ],
            ),
        ),
        ReplayMismatch::Reservations {
            step,
            op,
            saved,
            actual,
        } => (
            head(*step, *op),
            fill_all(
                text(lang, Msg::ReservationSavedVsCore),
                &[
                    &saved.id.to_string(),
                    &reservation_text(lang, saved),
                    &reservation_text(lang, actual),
                ],
            ),
        ),
        ReplayMismatch::Invalid(error) => (String::new(), error.to_string()),
    }
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
        mark_step(&list, step as u32);
    }
}

/// Fills the panel for `entry`: the record, or its error. Returns a promise that resolves once
/// every step is in the page (large records finish in the background). `timeline` gives the
/// record's timeline section (issue 10; the app keeps the ones it built).
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
        append(panel, &raw_json(doc, lang, entry, loaded));
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

    // Timeline (issue 10): above the steps; `crate::timeline` draws it from the snapshots.
    append(panel, &timeline(loaded));

    append(
        panel,
        &el(doc, "h3", "lv-h", Some(text(lang, Msg::StepsHeading))),
    );
    let steps = el(doc, "div", "lv-steps", None);
    let mismatch = loaded.verification.borrow().mismatch_step();
    let settled = build_steps(&steps, &pack_steps(lang, record), FIRST_STEPS);
    if let Some(step) = mismatch {
        mark_step(&steps, step as u32);
    }
    append(panel, &steps);

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

    append(&end, &raw_json(doc, lang, entry, loaded));
    Some(settled)
}

/// The record's JSON as saved, and a download link for files from the page's index.
fn raw_json(doc: &Document, lang: Lang, entry: &Entry, loaded: &Loaded) -> Element {
    let raw = el(doc, "details", "lv-raw", None);
    append(
        &raw,
        &el(doc, "summary", "", Some(text(lang, Msg::RawJson))),
    );
    let pre = el(doc, "pre", "lv-json", None);
    attr(&pre, "tabindex", "0");
    append(&pre, &el(doc, "code", "", Some(&loaded.raw)));
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

/// Field and step separators of the packed steps handed to `buildSteps`. Record text cannot
/// smuggle them in: [`push_field`] replaces them.
const FIELD: char = '\u{1f}';
const STEP: char = '\u{1e}';

#[wasm_bindgen(inline_js = r#"
// Builds the step list from the packed text the Rust side prepared: one crossing for all steps
// instead of a hundred per step. Every string becomes text content or an attribute value;
// record text never becomes markup. The first `first` steps are built at once, the rest in
// chunks on later tasks so a record of thousands of steps never blocks the page; `aria-busy`
// marks the list until it is complete, and the returned promise resolves then.
export function buildSteps(list, packed, first) {
  const doc = list.ownerDocument;
  const el = (tag, cls, text) => {
    const e = doc.createElement(tag);
    if (cls) e.className = cls;
    e.textContent = text;
    return e;
  };
  const labeled = (cls, label) => {
    const p = doc.createElement("p");
    p.className = cls;
    p.append(el("span", "lv-k", label));
    return p;
  };
  const step = (packed_step) => {
    const f = packed_step.split("\u001f");
    let k = 0;
    const next = () => f[k++];
    const [index, op, result] = [next(), next(), next()];
    const li = doc.createElement("li");
    li.className = result === "ok" ? "lv-step lv-ok" : "lv-step lv-refused";
    li.setAttribute("data-step", index);
    li.setAttribute("data-op", op);
    li.setAttribute("data-result", result);
    if (index === list.getAttribute("data-mismatch-at")) li.setAttribute("data-mismatch", "");
    const head = doc.createElement("p");
    head.className = "lv-step-head";
    head.append(el("span", "lv-step-n", next()), el("code", "lv-code", op),
      el("span", "lv-badge", next()));
    const inputs = labeled("lv-inputs", next());
    inputs.append(el("code", "lv-code", next()));
    const response = labeled("lv-response", next());
    const error = next();
    if (error) response.append(el("code", "lv-code", error));
    response.append(el("span", "lv-explain", next()));
    li.append(head, inputs, response);
    const note = next();
    if (note) li.append(el("p", "lv-note", note));
    const lanes = doc.createElement("ul");
    lanes.className = "lv-lanes";
    lanes.setAttribute("aria-label", next());
    const laneCount = Number(next());
    cost = 1 + laneCount;
    for (let n = laneCount; n > 0; n--) {
      const [project, busy, run, state, cls, text] = [next(), next(), next(), next(), next(), next()];
      const lane = el("li", cls, text);
      lane.setAttribute("data-lane", project);
      lane.setAttribute("data-busy", busy);
      if (run) {
        lane.setAttribute("data-run", run);
        lane.setAttribute("data-state", state);
      }
      lanes.append(lane);
    }
    li.append(lanes);
    const label = next();
    const count = Number(next());
    cost += count;
    if (count > 0) {
      const list = doc.createElement("ul");
      list.className = "lv-reservations";
      list.setAttribute("aria-label", label);
      for (let n = count; n > 0; n--) {
        const [id, queue, project, state, text] = [next(), next(), next(), next(), next()];
        const item = el("li", "lv-reservation lv-r-" + state, text);
        item.setAttribute("data-reservation", id);
        item.setAttribute("data-queue", queue);
        item.setAttribute("data-project", project);
        item.setAttribute("data-state", state);
        list.append(item);
      }
      li.append(list);
    }
    return li;
  };
  const steps = packed.split("\u001e");
  steps.pop();
  let at = 0;
  let cost = 0;
  // Steps go into lists of up to 100 (`<ol start=…>`): the stylesheet lets the browser skip
  // laying out lists far from the viewport, and a hundred-fold fewer such lists keeps adding
  // and removing huge records cheap. Each task builds about `budget` elements (a step, its
  // lanes and its reservations), so wide steps make smaller chunks.
  const build = (budget) => {
    const frag = doc.createDocumentFragment();
    let spent = 0;
    while (at < steps.length && spent < budget) {
      const ol = doc.createElement("ol");
      ol.className = "lv-chunk";
      ol.start = at + 1;
      for (const stop = Math.min(steps.length, at + 100); at < stop && spent < budget; at++) {
        ol.append(step(steps[at]));
        spent += cost;
      }
      frag.append(ol);
    }
    list.append(frag);
  };
  build(first);
  if (at >= steps.length) return Promise.resolve();
  list.setAttribute("aria-busy", "true");
  return new Promise((resolve) => {
    const more = () => {
      // A list taken off the page (another record, another language) stops building.
      if (!list.parentNode) return resolve();
      build(6000);
      if (at < steps.length) return setTimeout(more, 0);
      list.removeAttribute("aria-busy");
      resolve();
    };
    setTimeout(more, 0);
  });
}

// Marks step `n` as the one that does not match the core, now or when it is built.
export function markStep(list, n) {
  list.setAttribute("data-mismatch-at", String(n));
  const li = list.querySelector(`[data-step="${n}"]`);
  if (li) li.setAttribute("data-mismatch", "");
}

"#)]
extern "C" {
    /// Builds the steps; resolves when every step is in the list.
    #[wasm_bindgen(js_name = buildSteps)]
    fn build_steps(list: &Element, packed: &str, first: u32) -> js_sys::Promise;

    /// Marks step `n` with `data-mismatch`, now or when it is built.
    #[wasm_bindgen(js_name = markStep)]
    fn mark_step(list: &Element, n: u32);
}

/// Elements (steps, their lanes and reservations) built before the panel is shown, about 250
/// steps of a four-project record; the rest follow in the background.
const FIRST_STEPS: u32 = 1_500;

/// Appends one field; separator characters in record text become U+FFFD.
fn push_field(out: &mut String, value: &str) {
    if value.contains([FIELD, STEP]) {
        out.extend(value.chars().map(|c| {
            if c == FIELD || c == STEP {
                '\u{fffd}'
            } else {
                c
            }
        }));
    } else {
        out.push_str(value);
    }
    out.push(FIELD);
}

/// Every step as packed fields, in the order `buildSteps` reads them.
fn pack_steps(lang: Lang, record: &Record) -> String {
    let mut out = String::with_capacity(record.steps.len() * 320);
    let labels = [
        text(lang, Msg::Accepted),
        text(lang, Msg::Refused),
        text(lang, Msg::Inputs),
        text(lang, Msg::Response),
        text(lang, Msg::LanesAfterStep),
    ];
    let [accepted, refused, inputs, response, lanes] = labels;
    let step_label = text(lang, Msg::StepLabel);
    let reservations_label = text(lang, Msg::ReservationsAfterStep);
    for (i, step) in record.steps.iter().enumerate() {
        let code = step.result.code();
        for field in [&i.to_string(), step.op.as_str(), code] {
            push_field(&mut out, field);
        }
        let n = fill(step_label, &(i + 1).to_string());
        push_field(&mut out, &format!("{n} · {}", text(lang, Msg::Op(step.op))));
        push_field(&mut out, if code == "ok" { accepted } else { refused });
        push_field(&mut out, inputs);
        push_field(&mut out, &input_text(step));
        push_field(&mut out, response);
        let (error, explanation) = response_text(lang, &step.result);
        push_field(&mut out, error);
        push_field(&mut out, &explanation);
        push_field(
            &mut out,
            step.note.as_ref().map_or("", |n| n.get(lang.tag())),
        );
        push_field(&mut out, lanes);
        push_field(&mut out, &step.lanes.len().to_string());
        for view in &step.lanes {
            let untouched = record.untouched_project == view.project;
            push_field(&mut out, &view.project);
            push_field(&mut out, if view.busy { "true" } else { "false" });
            push_field(&mut out, view.run.as_deref().unwrap_or_default());
            push_field(&mut out, view.state.map_or("", |s| s.as_str()));
            push_field(&mut out, lane_class(view.busy, untouched));
            push_field(&mut out, &lane_text(lang, view));
        }
        let reservations = step.reservations.as_deref().unwrap_or_default();
        push_field(&mut out, reservations_label);
        push_field(&mut out, &reservations.len().to_string());
        for view in reservations {
            push_field(&mut out, &view.id.to_string());
            push_field(&mut out, &view.queue);
            push_field(&mut out, &view.project);
            push_field(&mut out, view.state.as_str());
            push_field(
                &mut out,
                &format!("{} · {}", view.id, reservation_text(lang, view)),
            );
        }
        out.push(STEP);
    }
    out
}

fn lane_class(busy: bool, untouched: bool) -> &'static str {
    match (busy, untouched) {
        (true, _) => "lv-lane lv-busy",
        (false, true) => "lv-lane lv-untouched",
        (false, false) => "lv-lane",
    }
}

/// `project=docs run=nightly-101`, exactly as saved (hostile strings stay text).
fn input_text(step: &Step) -> String {
    let mut out = String::new();
    for field in step.op.fields() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(field.as_str());
        out.push('=');
        match (field, step.input.saved) {
            (Field::Saved, Some(saved)) => out.push_str(if saved { "true" } else { "false" }),
            _ => out.push_str(step.input.get(*field).unwrap_or_default()),
        }
    }
    out
}

/// The error code (empty on success) and the text of a step's response.
fn response_text(lang: Lang, result: &StepResult) -> (&'static str, String) {
    match result {
        StepResult::Error(error) => (error.code(), text(lang, Msg::Dispatch(*error)).to_string()),
        StepResult::Reservation(view) | StepResult::Dispatched(view) => {
            let msg = match result {
                StepResult::Dispatched(_) => Msg::JobDispatched,
                _ => Msg::ReservationEntered,
            };
            let id = view.id.to_string();
            let head = fill(text(lang, msg), &id);
            ("", format!("{head} · {}", reservation_text(lang, view)))
        }
        StepResult::Nothing(nothing) => (
            "",
            fill(
                text(lang, Msg::NothingDispatched),
                &nothing.retained.to_string(),
            ),
        ),
        StepResult::Persisting(view) => (
            "",
            format!(
                "{} · {}",
                fill(text(lang, Msg::SavingFinalState), &view.id.to_string()),
                outcome_text(lang, view.outcome.unwrap_or(Outcome::NeedsReview))
            ),
        ),
        StepResult::Settled(settled) => (
            "",
            format!(
                "{} · {} · {}",
                fill(text(lang, Msg::Settled), &settled.reservation.to_string()),
                text(lang, Msg::Reservation(settled.state)),
                receipt_text(lang, &settled.receipt)
            ),
        ),
        StepResult::Lease(lease) => (
            "",
            format!(
                "{} · {} / {}",
                fill(text(lang, Msg::LeaseIssued), &lease.handle),
                lease.project,
                lease.run
            ),
        ),
        StepResult::View(view) => (
            "",
            format!(
                "{} · {}",
                text(lang, Msg::ViewReturned),
                lane_text(lang, view)
            ),
        ),
        StepResult::Receipt(receipt) => ("", receipt_text(lang, receipt)),
    }
}

fn receipt_text(lang: Lang, receipt: &Receipt) -> String {
    format!(
        "{} · {} / {} · {} · {} · {}",
        text(lang, Msg::ReceiptReturned),
        receipt.project,
        receipt.run,
        outcome_text(lang, receipt.outcome),
        text(
            lang,
            if receipt.stop_requested {
                Msg::StopRequestedYes
            } else {
                Msg::StopRequestedNo
            }
        ),
        text(lang, Msg::WorkExecutedNo),
    )
}

/// `general · docs / gen-1 · running`.
fn reservation_text(lang: Lang, view: &ReservationView) -> String {
    format!(
        "{} · {} / {} · {}",
        view.queue,
        view.project,
        view.run,
        text(lang, Msg::Reservation(view.state))
    )
}

/// The outcome in `lang`, with its exact name in parentheses where the two differ.
fn outcome_text(lang: Lang, outcome: Outcome) -> String {
    let shown = text(lang, Msg::Outcome(outcome));
    if shown == outcome.as_str() {
        shown.to_string()
    } else {
        format!("{shown} ({})", outcome.as_str())
    }
}

/// `docs: running · nightly-101` or `site: idle`.
fn lane_text(lang: Lang, view: &LaneView) -> String {
    match (&view.run, view.state) {
        (Some(run), Some(state)) => format!(
            "{}: {} · {}",
            view.project,
            text(lang, Msg::State(state)),
            run
        ),
        _ => format!("{}: {}", view.project, text(lang, Msg::Idle)),
    }
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
