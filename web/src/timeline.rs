//! The timeline in the page: the section built from `project_lanes_view`'s drawing, the requests that
//! move the current step (clicks on a column or the step buttons, the timeline's keys), and
//! showing the current step everywhere (the slider's value, the column marker, the step bar's
//! words, the highlighted card; focus kept in view).
//!
//! The step bar stays at the top of the view while the panel scrolls (`position: sticky`), so
//! Previous and Next stay where the reader pressed them; a card scrolled into view never pushes
//! the focused control out of view (WCAG 2.4.11): if it would, the control is brought back.
//! The app keeps the current step; everything else is read back from the drawn DOM, so a
//! redraw needs no extra state.

use project_lanes::record::{Record, Step};
use project_lanes_view::i18n::Lang;
use project_lanes_view::timeline::{
    Action, Axis, Drawing, Geometry, Rows, WIDTH, Window, Zoom, detail, position,
};
use project_lanes_view::tree::{ROOT, Tree, px};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, Event, KeyboardEvent, MouseEvent};

use crate::dom::{as_element, attr, event_as};
use crate::tree::build;
use crate::zone::Browser;

/// The timeline section of `record`, built apart; `prefix` makes its ids unique per viewer.
pub fn section(doc: &Document, lang: Lang, record: &Record, prefix: &str) -> Element {
    let drawing = Drawing::new(Axis::Steps, &Browser);
    section_on(doc, lang, record, prefix, drawing)
}

/// [`section`] as `drawing` says (its zone: the reader's, for a page).
pub fn section_on(
    doc: &Document,
    lang: Lang,
    record: &Record,
    prefix: &str,
    drawing: Drawing,
) -> Element {
    let mut t = Tree::new();
    let section =
        project_lanes_view::timeline::section_on(&mut t, ROOT, lang, record, prefix, drawing);
    build(&t, &doc.create_document_fragment()).element(section)
}

/// The steps the drawing `svg` shows (`data-window-from`, `data-window-to`) and its first row
/// (`data-rows-from`).
pub fn drawn(svg: &Element) -> (Window, usize) {
    let number = |name: &str| -> usize {
        svg.get_attribute(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let window = Window {
        from: number("data-window-from"),
        to: number("data-window-to"),
    };
    (window, number("data-rows-from"))
}

/// Where the drawing `svg` puts its steps: its plot and its window (read back from the
/// drawing) and, on a time axis, the steps' places `edges` (its record's).
pub fn geometry<'a>(svg: &Element, edges: Option<&'a [u64]>) -> Geometry<'a> {
    let number = |name: &str| -> u64 {
        svg.get_attribute(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let timed = svg.get_attribute("data-axis").as_deref() == Some("time");
    Geometry {
        steps: number("data-steps"),
        label_w: number("data-plot-x"),
        plot_w: number("data-plot-w"),
        edges: edges.filter(|_| timed),
        window: drawn(svg).0,
    }
}

/// The zoom a click on a zoom button asks for; `None` for any other click.
pub fn zoom_click(target: &Element) -> Option<Zoom> {
    let button = closest(target, "[data-zoom]")?;
    Zoom::from_name(&button.get_attribute("data-zoom")?)
}

/// The rows a click on a rows button asks for; `None` for any other click.
pub fn rows_click(target: &Element) -> Option<Rows> {
    let button = closest(target, "[data-rows]")?;
    Rows::from_name(&button.get_attribute("data-rows")?)
}

/// `+`, `-` and `0` while the timeline has focus.
pub fn zoom_key(target: &Element, event: &Event) -> Option<Zoom> {
    closest(target, "[data-timeline]")?;
    Zoom::of_key(&event_as::<KeyboardEvent>(event, "keydown")?.key())
}

/// The axis a click on a switch button asks for; `None` for any other click.
pub fn axis_click(target: &Element) -> Option<Axis> {
    let button = closest(target, "[data-axis-choice]")?;
    Axis::from_name(&button.get_attribute("data-axis-choice")?)
}

/// A click on the step buttons, or on a column of the timeline (whose record's steps are at
/// `edges` on a time axis); `None` for any other click.
pub fn click(target: &Element, event: &Event, edges: Option<&[u64]>) -> Option<Action> {
    if closest(target, "[data-step-prev]").is_some() {
        return Some(Action::Previous);
    }
    if closest(target, "[data-step-next]").is_some() {
        return Some(Action::Next);
    }
    let svg = closest(target, "[data-timeline]")?;
    let mouse = event_as::<MouseEvent>(event, "click")?;
    let g = geometry(&svg, edges);
    let bounds = svg.get_bounding_client_rect();
    if bounds.width() <= 0.0 || g.plot_w == 0 {
        return None;
    }
    // Drawn at its natural width on screen; printed smaller.
    let x = (f64::from(mouse.client_x()) - bounds.left()) * WIDTH as f64 / bounds.width();
    if x < 0.0 {
        return None;
    }
    g.step_at((x * 100.0) as u64).map(Action::To)
}

/// Arrow keys, Home and End while the timeline has focus.
pub fn key(target: &Element, event: &Event) -> Option<Action> {
    closest(target, "[data-timeline]")?;
    Action::of_key(&event_as::<KeyboardEvent>(event, "keydown")?.key())
}

fn closest(element: &Element, selector: &str) -> Option<Element> {
    element.closest(selector).ok().flatten()
}

/// Shows step `n` (`step` is the record's) as the current step, or none: `data-current-step`
/// on `root`, the slider's value, the column marker, "Step 5 of 12" and what the step did, the
/// step's card highlighted and, when `scroll`, scrolled into view (on a time axis, the steps
/// are at `edges`). A card not built yet (a large record still rendering) is marked once
/// `settled` resolves.
pub fn show(
    root: &Element,
    panel: &Element,
    (lang, edges): (Lang, Option<&[u64]>),
    current: Option<(usize, &Step)>,
    scroll: bool,
    settled: Option<js_sys::Promise>,
) {
    let step = current.map(|(n, _)| n);
    match step {
        Some(n) => attr(root, "data-current-step", &n.to_string()),
        None => {
            root.remove_attribute("data-current-step").ok();
        }
    }
    let Some(svg) = panel.query_selector("[data-timeline]").ok().flatten() else {
        return;
    };
    let g = geometry(&svg, edges);
    let steps = g.steps as usize;
    let where_ = position(lang, step, steps);
    let what = current.map(|(_, s)| detail(lang, s)).unwrap_or_default();
    attr(
        &svg,
        "aria-valuenow",
        &step.map_or(1, |n| n + 1).to_string(),
    );
    if what.is_empty() {
        attr(&svg, "aria-valuetext", &where_);
    } else {
        attr(&svg, "aria-valuetext", &format!("{where_} · {what}"));
    }
    if let Some(marker) = panel.query_selector("[data-current-marker]").ok().flatten() {
        match step {
            Some(n) => {
                let x = g.x(n);
                let w = (g.x(n + 1) - x).max(200);
                attr(&marker, "x", &px(x));
                attr(&marker, "width", &px(w));
                marker.remove_attribute("display").ok();
                if scroll {
                    scroll_timeline(panel, &svg, x);
                }
            }
            None => attr(&marker, "display", "none"),
        }
    }
    if let Some(position) = panel.query_selector("[data-step-position]").ok().flatten() {
        position.set_text_content(Some(&where_));
    }
    if let Some(detail) = panel.query_selector("[data-step-detail]").ok().flatten() {
        let shown = if what.is_empty() {
            String::new()
        } else {
            format!(" · {what}")
        };
        detail.set_text_content(Some(&shown));
    }
    for (selector, at_end) in [
        ("[data-step-prev]", step == Some(0)),
        (
            "[data-step-next]",
            step.is_some() && step.map(|n| n + 1) == Some(steps),
        ),
    ] {
        if let Some(button) = panel.query_selector(selector).ok().flatten() {
            // aria-disabled, not disabled: a focused button must keep its focus.
            attr(
                &button,
                "aria-disabled",
                if at_end { "true" } else { "false" },
            );
        }
    }
    mark_card(panel, step, scroll, settled);
}

/// Scrolls the timeline's own box sideways so the column at `x` (hundredths) is visible beside
/// the row labels.
fn scroll_timeline(panel: &Element, svg: &Element, x: u64) {
    let Some(scroller) = panel.query_selector(".lv-tl-scroll").ok().flatten() else {
        return;
    };
    let (view, drawn) = (
        f64::from(scroller.client_width()),
        svg.get_bounding_client_rect().width(),
    );
    if view <= 0.0 || drawn <= view {
        return;
    }
    let labels = svg
        .get_attribute("data-plot-x")
        .and_then(|v| v.parse::<u32>().ok())
        .map_or(0.0, f64::from)
        * drawn
        / WIDTH as f64;
    let at = x as f64 / 100.0 * drawn / WIDTH as f64;
    let left = f64::from(scroller.scroll_left());
    if at < left + labels + 20.0 || at > left + view - 40.0 {
        scroller.set_scroll_left((at - labels - (view - labels) / 2.0).max(0.0) as i32);
    }
}

fn mark_card(panel: &Element, step: Option<usize>, scroll: bool, settled: Option<js_sys::Promise>) {
    if let Ok(list) = panel.query_selector_all(".lv-current") {
        for i in 0..list.length() {
            if let Some(old) = list.item(i).and_then(|n| as_element(n.into())) {
                old.class_list().remove_1("lv-current").ok();
                old.remove_attribute("aria-current").ok();
            }
        }
    }
    let Some(n) = step else { return };
    let selector = format!("[data-step=\"{n}\"]");
    if let Some(card) = panel.query_selector(&selector).ok().flatten() {
        card.class_list().add_1("lv-current").ok();
        attr(&card, "aria-current", "step");
        if scroll {
            scroll_into_view(&card);
            keep_focus_in_view(panel);
        }
        return;
    }
    // Not built yet: mark it when the list is complete, if it is still the current step.
    let Some(settled) = settled else { return };
    let panel = panel.clone();
    let later = Closure::once_into_js(move || {
        let root = panel.closest("[data-lane-viewer]").ok().flatten();
        let current = root.and_then(|r| r.get_attribute("data-current-step"));
        if current.as_deref() == Some(n.to_string().as_str()) {
            mark_card(&panel, Some(n), scroll, None);
        }
    });
    // `then` through Reflect: the typed `Promise::then` wants a `Closure` kept alive by hand,
    // while this one-shot function frees itself once called.
    if let Ok(then) = js_sys::Reflect::get(&settled, &JsValue::from_str("then"))
        .and_then(|f| f.dyn_into::<js_sys::Function>())
    {
        let _ = then.call1(&settled, &later);
    }
}

fn scroll_into_view(element: &Element) {
    let options = web_sys::ScrollIntoViewOptions::new();
    options.set_block(web_sys::ScrollLogicalPosition::Nearest);
    element.scroll_into_view_with_scroll_into_view_options(&options);
}

/// If scrolling a card hid the focused control (the timeline, say), brings the control back
/// into view: focus never ends up out of sight. Controls in the sticky step bar never move.
fn keep_focus_in_view(panel: &Element) {
    let Some(doc) = panel.owner_document() else {
        return;
    };
    let Some(focused) = doc.active_element() else {
        return;
    };
    if !panel.contains(Some(&focused)) || closest(&focused, ".lv-tl-nav").is_some() {
        return;
    }
    let height = doc
        .default_view()
        .and_then(|w| w.inner_height().ok())
        .and_then(|h| h.as_f64())
        .unwrap_or(0.0);
    let rect = focused.get_bounding_client_rect();
    // What the sticky bar covers is hidden too.
    let top = panel
        .query_selector(".lv-tl-nav")
        .ok()
        .flatten()
        .map(|bar| bar.get_bounding_client_rect())
        .filter(|bar| bar.top() <= 1.0)
        .map_or(0.0, |bar| bar.bottom());
    let seen = rect.bottom().min(height) - rect.top().max(top);
    if seen < rect.height().min(40.0) {
        scroll_into_view(&focused);
    }
}
