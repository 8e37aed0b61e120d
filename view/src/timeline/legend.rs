//! The timeline's legend, in the viewer's language: the states this record can show (a CSS
//! swatch each, the same bar and fill as the drawing) and the marks.

use project_lanes::dispatch::ReservationState;

use super::model::{State, Timeline};
use crate::i18n::{Lang, TlMsg, text};
use crate::tree::{N, Tree};

/// The legend, in the viewer's language: the states this record can show, and the marks.
pub(super) fn legend(t: &mut Tree, parent: N, lang: Lang, model: &Timeline, counted: bool) {
    let wrap = t.el(parent, "div", "lv-tl-legend");
    t.attr(wrap, "role", "group");
    t.attr(wrap, "aria-label", text(lang, TlMsg::Legend));
    let mut lines: Vec<(TlMsg, Vec<State>)> = vec![(
        TlMsg::LegendLanes,
        vec![State::Idle, State::Running, State::StopRequested],
    )];
    if model.groups.len() > 1 {
        lines.push((
            TlMsg::LegendReservations,
            ReservationState::ALL
                .into_iter()
                .map(State::Reservation)
                .collect(),
        ));
    }
    for (head, states) in lines {
        let list = t.el(wrap, "ul", "lv-tl-keys");
        let h = t.el(list, "li", "lv-tl-key-head");
        t.text(h, text(lang, head));
        for state in states {
            let item = t.el(list, "li", "lv-tl-key");
            t.attr(item, "data-legend", state.as_str());
            // A CSS swatch (same bar and fill as the drawing): no SVG root per key.
            let swatch = format!("lv-tl-sw lv-tl-sw-{}", state.as_str());
            t.el(item, "span", &swatch);
            t.text(item, state.name(lang));
        }
    }
    let marks = t.el(wrap, "ul", "lv-tl-keys");
    let mut keys = vec![(TlMsg::CurrentMark, "lv-tl-key lv-tl-key-current")];
    if !model.refused.is_empty() {
        keys.push((TlMsg::RefusedMark, "lv-tl-key lv-tl-key-refused"));
    }
    if counted {
        keys.push((TlMsg::RefusedBucket, "lv-tl-key lv-tl-key-bucket"));
    }
    for (msg, class) in keys {
        let item = t.el(marks, "li", class);
        t.el(item, "span", "lv-tl-mark");
        t.text(item, text(lang, msg));
    }
}
