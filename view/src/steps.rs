//! The step cards: every step of a record with its inputs, its response, its note and the lanes
//! (and reservations) after it, as [`Tree`] operations. They come in lists of up to 100 steps
//! (`ol.lv-chunk`, which the stylesheet lets the browser skip laying out far from the viewport);
//! a caller builds them a chunk at a time ([`cards`]), so a 100,000-step record is never held as
//! operations whole.
//!
//! DOM contract (docs/src/dom-contract.md): `[data-step][data-op][data-result]` steps (from 0), `[data-mismatch]`
//! on the step that does not match the core, `[data-time-mark]` on a step whose time stands
//! out (`earlier`, `outside`), `[data-lane][data-busy][data-run][data-state]`
//! lanes and `[data-reservation][data-queue][data-project][data-state]` reservations.

use project_lanes::record::{Field, Record, Step};

use crate::describe;
use crate::i18n::{Lang, Msg, Term, fill, group, text};
use crate::recorded;
use crate::time::{Local, Utc, Zone};
use crate::tree::{N, Tree};

/// Steps per list.
pub const PER_LIST: usize = 100;

/// Cards from step `from` on, under `parent`, until about `budget` elements are built; returns
/// the next step to build. `mismatch` is the step that does not match the core, if known.
/// Steps' times (version 2) are written in UTC; [`cards_in_zone`] writes them in another zone.
pub fn cards(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    record: &Record,
    range: (usize, usize),
    mismatch: Option<usize>,
) -> usize {
    cards_in_zone(t, parent, lang, record, range, mismatch, &Utc)
}

/// [`cards`], with steps' times written in `zone` (the reader's).
pub fn cards_in_zone(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    record: &Record,
    (from, budget): (usize, usize),
    mismatch: Option<usize>,
    zone: &dyn Zone,
) -> usize {
    cards_until(
        t,
        parent,
        (lang, zone),
        record,
        (from, usize::MAX, budget),
        mismatch,
    )
}

/// [`cards_in_zone`], stopping before step `until` too.
pub fn cards_until(
    t: &mut Tree,
    parent: N,
    (lang, zone): (Lang, &dyn Zone),
    record: &Record,
    (from, until, budget): (usize, usize, usize),
    mismatch: Option<usize>,
) -> usize {
    let mut spent = 0;
    let mut at = from;
    let mut list = None;
    while let Some(step) = record.steps.get(at) {
        if spent >= budget || at >= until {
            break;
        }
        let ol = match list {
            Some(ol) if !at.is_multiple_of(PER_LIST) => ol,
            _ => {
                let ol = t.el(parent, "ol", "lv-chunk");
                t.attr_number(ol, "start", at as u64 + 1);
                ol
            }
        };
        list = Some(ol);
        card(t, ol, (lang, zone), record, at, mismatch == Some(at));
        spent += 1 + step.lanes.len() + step.reservations.as_ref().map_or(0, |r| r.len());
        at += 1;
    }
    at
}

/// Step `i`'s card.
fn card(
    t: &mut Tree,
    list: N,
    (lang, zone): (Lang, &dyn Zone),
    record: &Record,
    i: usize,
    mismatch: bool,
) {
    let Some(step) = record.steps.get(i) else {
        return;
    };
    let code = step.result.code();
    let ok = code == "ok";
    let li = t.el(
        list,
        "li",
        if ok {
            "lv-step lv-ok"
        } else {
            "lv-step lv-refused"
        },
    );
    t.attr_number(li, "data-step", i as u64);
    t.attr(li, "data-op", step.op.as_str());
    t.attr(li, "data-result", code);
    if mismatch {
        t.attr(li, "data-mismatch", "");
    }
    if let Some(at) = step.at {
        t.attr(li, "data-at", &at.to_string());
    }
    if let Some(actor) = &step.actor {
        t.attr(li, "data-actor", actor);
    }
    let head = t.el(li, "p", "lv-step-head");
    let label = fill(text(lang, Msg::StepLabel), &[&group(i + 1)]);
    t.el_text(head, "span", "lv-step-n", &label);
    // The reader's name of the operation, unless it is the operation's own name.
    let name = text(lang, Term::Op(step.op));
    let name = if name == step.op.as_str() { "" } else { name };
    t.el_text(head, "span", "lv-op", name);
    t.el_text(head, "code", "lv-code", step.op.as_str());
    let badge = if ok { Msg::Accepted } else { Msg::Refused };
    t.el_text(head, "span", "lv-badge", text(lang, badge));

    when(t, li, (lang, zone), record, i);
    let inputs = labelled(t, li, "lv-inputs", text(lang, Msg::Inputs));
    t.el_text(inputs, "code", "lv-code", &inputs_text(step));
    let response = labelled(t, li, "lv-response", text(lang, Msg::Response));
    let (error, words) = describe::response(lang, &step.result, step.input.saved);
    if !error.is_empty() {
        t.el_text(response, "code", "lv-code", error);
    }
    t.el_text(response, "span", "lv-explain", &words);
    if let Some(note) = &step.note {
        let note = note.get(lang.tag());
        if !note.is_empty() {
            t.el_text(li, "p", "lv-note", note);
        }
    }

    let lanes = t.el(li, "ul", "lv-lanes");
    t.attr(lanes, "aria-label", text(lang, Msg::LanesAfterStep));
    for view in &step.lanes {
        let untouched = record.untouched_project == *view.project;
        let class = match (view.busy, untouched) {
            (true, _) => "lv-lane lv-busy",
            (false, true) => "lv-lane lv-untouched",
            (false, false) => "lv-lane",
        };
        let lane = t.el(lanes, "li", class);
        t.text(lane, &describe::lane(lang, view));
        t.attr(lane, "data-lane", &view.project);
        t.attr(lane, "data-busy", if view.busy { "true" } else { "false" });
        if let Some(run) = view.run.as_deref().filter(|r| !r.is_empty()) {
            t.attr(lane, "data-run", run);
            t.attr(lane, "data-state", view.state.map_or("", |s| s.as_str()));
        }
    }
    let reservations = step.reservations.as_deref().unwrap_or_default();
    if !reservations.is_empty() {
        let list = t.el(li, "ul", "lv-reservations");
        t.attr(list, "aria-label", text(lang, Msg::ReservationsAfterStep));
        for view in reservations {
            let state = view.state.as_str();
            let item = t.el(list, "li", &format!("lv-reservation lv-r-{state}"));
            t.text(item, &describe::reservation(lang, view));
            t.attr(item, "data-reservation", &view.id.to_string());
            t.attr(item, "data-queue", &view.queue);
            t.attr(item, "data-project", &view.project);
            t.attr(item, "data-state", state);
        }
    }
}

/// When step `i` ran, in the reader's zone, and who called (version 2 records), if saved; a
/// time that stands out (earlier than the step before, outside the window) says so, and its
/// card has `data-time-mark`.
fn when(t: &mut Tree, li: N, (lang, zone): (Lang, &dyn Zone), record: &Record, i: usize) {
    let Some(step) = record.steps.get(i) else {
        return;
    };
    if step.at.is_none() && step.actor.is_none() {
        return;
    }
    let p = t.el(li, "p", "lv-when");
    if let Some(at) = step.at {
        t.el_text(p, "span", "lv-k", text(lang, Msg::StepTime));
        let local = Local::at(at.millis(), zone).full(lang);
        let time = t.el_text(p, "time", "lv-time", &local);
        t.attr(time, "datetime", &at.to_string());
        if let Some(mark) = recorded::mark(record, i) {
            t.attr(li, "data-time-mark", mark.as_str());
            let words = recorded::mark_words(lang, i, mark);
            t.el_text(p, "span", "lv-time-mark", &words);
        }
    }
    if let Some(actor) = &step.actor {
        t.el_text(p, "span", "lv-k", text(lang, Msg::StepActor));
        t.el_text(p, "code", "lv-code lv-actor", actor);
    }
}

/// `<p class=…><span class="lv-k">label</span></p>`, for the value to follow.
fn labelled(t: &mut Tree, parent: N, class: &str, label: &str) -> N {
    let p = t.el(parent, "p", class);
    t.el_text(p, "span", "lv-k", label);
    p
}

/// `project=docs run=nightly-101`, exactly as saved (hostile strings stay text).
fn inputs_text(step: &Step) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::timeline;
    use crate::tree::{ROOT, html};
    use project_lanes::record::{Recorder, Text};

    fn text_of(s: &str) -> Text {
        Text {
            en: s.into(),
            ja: s.into(),
        }
    }

    #[test]
    fn cards_come_in_lists_of_a_hundred_and_stop_at_the_budget() {
        let mut rec =
            Recorder::new("t", text_of("t"), text_of("t"), &["docs", "site"], "site").unwrap();
        for n in 0..150 {
            rec.claim("docs", &format!("run-{n}"));
        }
        let record = rec.finish().unwrap();
        assert_eq!(timeline(&record).steps, 150);
        let mut t = Tree::new();
        // Three elements per step (the card and two lanes): 90 steps fill a budget of 270.
        let next = cards(&mut t, ROOT, Lang::En, &record, (50, 270), Some(60));
        assert_eq!(next, 140);
        let markup = html::write(&t);
        assert!(markup.starts_with("<ol class=\"lv-chunk\" start=\"51\"><li class=\"lv-step lv-refused\" data-step=\"50\" data-op=\"claim\" data-result=\"PROJECT_BUSY\">"), "{markup}");
        assert!(markup.contains("<ol class=\"lv-chunk\" start=\"101\">"));
        assert_eq!(markup.matches("<ol").count(), 2);
        assert_eq!(markup.matches("data-mismatch").count(), 1);
        assert!(markup.contains(
            "data-step=\"60\" data-op=\"claim\" data-result=\"PROJECT_BUSY\" data-mismatch=\"\""
        ));
    }
}
