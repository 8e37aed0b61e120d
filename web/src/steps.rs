//! The step cards: every step of a record with its inputs, its response, its note and the lanes
//! (and reservations) after it.
//!
//! Rust decides every string and packs the steps as fields; one small inline JS function
//! (`appendSteps`) turns a packed chunk into elements — one wasm↔JS crossing per chunk instead of
//! a hundred per step. The first [`FIRST`] elements are built at once and the rest in chunks of
//! [`CHUNK`] on later tasks, each packed only when its turn comes, so a 100,000-step record is
//! never held packed whole. A list taken off the page (another record, another language, a
//! destroyed viewer) stops being built. Record text only ever becomes text content or attribute
//! values.

use std::rc::Rc;

use project_lanes::record::{Field, Record, Step};
use wasm_bindgen::prelude::*;
use web_sys::Element;

use crate::describe;
use crate::dom::{attr, next_task};
use crate::entry::Loaded;
use crate::i18n::{Lang, Msg, fill, group, text};

/// Elements (steps, their lanes and reservations) built before the panel is shown, about 250
/// steps of a four-project record.
const FIRST: usize = 1_500;
/// Elements built per later task.
const CHUNK: usize = 6_000;

/// Field and step separators of the packed steps. Record text cannot smuggle them in:
/// [`push_field`] replaces them.
const FIELD: char = '\u{1f}';
const STEP: char = '\u{1e}';

// The fields of one step, in order (`pack` writes them, `appendSteps` reads them):
// index, op, result code, "Step n", the operation's name (empty when it is the op itself),
// accepted/refused, "Inputs", the inputs, "Response", the error code (or empty), the response's
// words, the note (or empty), "Lanes after this step", the number of lanes, then per lane
// project, busy, run, state, class and words; "Reservations after this step", their number,
// then per reservation id, queue, project, state and words.
#[wasm_bindgen(inline_js = r#"
export function appendSteps(list, packed) {
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
  const frag = doc.createDocumentFragment();
  let ol = null;
  for (const packedStep of packed.split("\u001e")) {
    if (!packedStep) continue;
    const f = packedStep.split("\u001f");
    let k = 0;
    const next = () => f[k++];
    const [index, op, result] = [next(), next(), next()];
    // Lists of up to 100 steps: the stylesheet lets the browser skip laying out lists far from
    // the viewport.
    if (!ol || Number(index) % 100 === 0) {
      ol = doc.createElement("ol");
      ol.className = "lv-chunk";
      ol.start = Number(index) + 1;
      frag.append(ol);
    }
    const li = doc.createElement("li");
    li.className = result === "ok" ? "lv-step lv-ok" : "lv-step lv-refused";
    li.setAttribute("data-step", index);
    li.setAttribute("data-op", op);
    li.setAttribute("data-result", result);
    if (index === list.getAttribute("data-mismatch-at")) li.setAttribute("data-mismatch", "");
    const head = doc.createElement("p");
    head.className = "lv-step-head";
    head.append(el("span", "lv-step-n", next()));
    head.append(el("span", "lv-op", next()), el("code", "lv-code", op),
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
    for (let n = Number(next()); n > 0; n--) {
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
    ol.append(li);
  }
  list.append(frag);
}
"#)]
extern "C" {
    /// Appends the packed steps to `list`.
    #[wasm_bindgen(js_name = appendSteps)]
    fn append_steps(list: &Element, packed: &str);
}

/// Builds the steps of `loaded` into `list`: the first at once, the rest on later tasks.
/// Returns a promise that resolves once every step is in the list (or the list left the page).
pub fn build(list: &Element, lang: Lang, loaded: &Rc<Loaded>) -> js_sys::Promise {
    let at = append(list, lang, &loaded.record, 0, FIRST);
    let steps = loaded.record.steps.len();
    if at >= steps {
        return js_sys::Promise::resolve(&JsValue::UNDEFINED);
    }
    attr(list, "aria-busy", "true");
    let (list, loaded) = (list.clone(), loaded.clone());
    wasm_bindgen_futures::future_to_promise(async move {
        let mut at = at;
        while at < steps {
            next_task().await;
            if list.parent_node().is_none() {
                break;
            }
            at = append(&list, lang, &loaded.record, at, CHUNK);
        }
        list.remove_attribute("aria-busy").ok();
        Ok(JsValue::UNDEFINED)
    })
}

/// Packs and appends steps from `from` until about `budget` elements are built; returns the
/// next step to build.
fn append(list: &Element, lang: Lang, record: &Record, from: usize, budget: usize) -> usize {
    let mut packed = String::new();
    let mut spent = 0;
    let mut at = from;
    while let Some(step) = record.steps.get(at) {
        if spent >= budget {
            break;
        }
        pack(&mut packed, lang, record, at, step);
        spent += 1 + step.lanes.len() + step.reservations.as_ref().map_or(0, Vec::len);
        at += 1;
    }
    append_steps(list, &packed);
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

/// Step `i` as packed fields, in the order `appendSteps` reads them.
fn pack(out: &mut String, lang: Lang, record: &Record, i: usize, step: &Step) {
    let code = step.result.code();
    for field in [&i.to_string(), step.op.as_str(), code] {
        push_field(out, field);
    }
    push_field(out, &fill(text(lang, Msg::StepLabel), &group(i + 1)));
    // The reader's name of the operation, unless it is the operation's own name.
    let name = text(lang, Msg::Op(step.op));
    push_field(out, if name == step.op.as_str() { "" } else { name });
    let badge = if code == "ok" {
        Msg::Accepted
    } else {
        Msg::Refused
    };
    push_field(out, text(lang, badge));
    push_field(out, text(lang, Msg::Inputs));
    push_field(out, &inputs(step));
    push_field(out, text(lang, Msg::Response));
    let (error, words) = describe::response(lang, &step.result, step.input.saved);
    push_field(out, error);
    push_field(out, &words);
    push_field(out, step.note.as_ref().map_or("", |n| n.get(lang.tag())));
    push_field(out, text(lang, Msg::LanesAfterStep));
    push_field(out, &step.lanes.len().to_string());
    for view in &step.lanes {
        let untouched = record.untouched_project == view.project;
        push_field(out, &view.project);
        push_field(out, if view.busy { "true" } else { "false" });
        push_field(out, view.run.as_deref().unwrap_or_default());
        push_field(out, view.state.map_or("", |s| s.as_str()));
        push_field(out, lane_class(view.busy, untouched));
        push_field(out, &describe::lane(lang, view));
    }
    let reservations = step.reservations.as_deref().unwrap_or_default();
    push_field(out, text(lang, Msg::ReservationsAfterStep));
    push_field(out, &reservations.len().to_string());
    for view in reservations {
        push_field(out, &view.id.to_string());
        push_field(out, &view.queue);
        push_field(out, &view.project);
        push_field(out, view.state.as_str());
        push_field(out, &describe::reservation(lang, view));
    }
    out.push(STEP);
}

fn lane_class(busy: bool, untouched: bool) -> &'static str {
    match (busy, untouched) {
        (true, _) => "lv-lane lv-busy",
        (false, true) => "lv-lane lv-untouched",
        (false, false) => "lv-lane",
    }
}

/// `project=docs run=nightly-101`, exactly as saved (hostile strings stay text).
fn inputs(step: &Step) -> String {
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
