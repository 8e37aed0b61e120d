//! The timeline's legend, in the viewer's language: the states this record can show (a CSS
//! swatch each, the same bar and fill as the drawing) and the marks; and the same legend drawn
//! in SVG for the standalone picture ([`svg_legend`]).

use project_lanes::dispatch::ReservationState;

#[cfg(not(target_arch = "wasm32"))]
use super::geometry::{ROW_H, text_w};
#[cfg(not(target_arch = "wasm32"))]
use super::look::shape;
use super::model::{State, Timeline};
use crate::i18n::{Lang, TlMsg, text};
use crate::tree::{N, Tree};

/// The legend, in the viewer's language: the states this record can show, and the marks.
/// `counted`: whether refused steps and runs were counted together in the drawing.
pub(super) fn legend(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    model: &Timeline,
    (refused, dense): (bool, bool),
) {
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
    if refused {
        keys.push((TlMsg::RefusedBucket, "lv-tl-key lv-tl-key-bucket"));
    }
    if dense {
        keys.push((TlMsg::DenseMark, "lv-tl-key lv-tl-key-dense"));
    }
    for (msg, class) in keys {
        let item = t.el(marks, "li", class);
        t.el(item, "span", "lv-tl-mark");
        t.text(item, text(lang, msg));
    }
}

/// The legend as SVG, for the timeline drawn as a standalone picture (where no CSS box can be
/// laid out): the same lines as `legend` but the current step's (a picture has none), each
/// state's swatch drawn by `shape` exactly as the drawing draws it, the marks as the drawing
/// draws them, wrapped to `width` px. Under `parent` from `top` px down; returns its height.
#[cfg(not(target_arch = "wasm32"))]
pub fn svg_legend(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    model: &Timeline,
    (refused, dense): (bool, bool),
    prefix: &str,
    (top, width): (u64, u64),
) -> u64 {
    const SWATCH: u64 = 26;
    let wrap = t.svg(parent, "g", "lv-svg-legend");
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
    let mut y = top;
    // One key at `x` on the current row, wrapping first if it would pass `width`.
    let place = |x: &mut u64, y: &mut u64, w: u64| -> (u64, u64) {
        if *x > 0 && *x + w > width {
            *x = 0;
            *y += ROW_H;
        }
        let at = (*x, *y);
        *x += w + 18;
        at
    };
    for (head, states) in lines {
        let mut x = 0;
        let words = text(lang, head);
        let (hx, hy) = place(&mut x, &mut y, text_w(words));
        t.svg_text(wrap, "lv-svg-key lv-svg-key-head", hx * 100, hy + 16, words);
        for state in states {
            let name = state.name(lang);
            let (kx, ky) = place(&mut x, &mut y, SWATCH + 6 + text_w(name));
            let key = t.svg(wrap, "g", "lv-svg-key-item");
            t.attr(key, "data-legend", state.as_str());
            shape(t, key, prefix, state, (kx * 100, SWATCH * 100), ky);
            t.svg_text(key, "lv-svg-key", (kx + SWATCH + 6) * 100, ky + 16, name);
        }
        y += ROW_H;
    }
    let mut marks = Vec::new();
    if !model.refused.is_empty() {
        marks.push(TlMsg::RefusedMark);
    }
    if refused {
        marks.push(TlMsg::RefusedBucket);
    }
    if dense {
        marks.push(TlMsg::DenseMark);
    }
    let mut x = 0;
    for msg in &marks {
        let words = text(lang, *msg);
        let (kx, ky) = place(&mut x, &mut y, 14 + 6 + text_w(words));
        let key = t.svg(wrap, "g", "lv-svg-key-item");
        if *msg == TlMsg::RefusedMark {
            let guide = t.svg(key, "path", "lv-tl-guide");
            t.attr(guide, "d", &format!("M{},{}V{}", kx + 7, ky + 2, ky + 22));
            let cross = t.svg(key, "path", "lv-tl-cross");
            t.attr(cross, "d", &format!("M{},{}l8,8m0,-8l-8,8", kx + 3, ky + 8));
        } else if *msg == TlMsg::DenseMark {
            t.rect(key, "lv-tl-dense lv-tl-d2", (kx * 100, ky + 4), (1_400, 16));
        } else {
            t.rect(key, "lv-tl-bucket-bar", (kx * 100, ky + 7), (1_400, 10));
        }
        t.svg_text(key, "lv-svg-key", (kx + 20) * 100, ky + 16, words);
    }
    if !marks.is_empty() {
        y += ROW_H;
    }
    y - top
}
