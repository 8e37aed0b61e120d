//! The timeline above a record's steps: one row per project (and, in dispatcher records, one per
//! reservation, grouped by queue), one column per step, drawn as SVG.
//!
//! Two halves:
//! - [`timeline`], a pure function of a [`Record`]: it reads the snapshots the record saved
//!   after every step (`lanes`, `reservations`) and merges consecutive steps of one state into
//!   [`Segment`]s. It re-runs nothing. A 10,000-step record whose runs hold their lanes for a
//!   while becomes a few hundred segments, not 10,000 cells.
//! - drawing ([`section`]) and the current step ([`show`], [`click`],
//!   [`key`]): the SVG, its legend and the step navigation. The app keeps the current
//!   step; everything else is read back from the drawn DOM, so a redraw needs no extra state.
//!
//! DOM contract (README): `[data-timeline]` (the SVG, `role="img"` with a text alternative),
//! `[data-timeline-row=<project or reservation id>]` with `data-row-kind` (`lane` or
//! `reservation`), segments `[data-segment][data-state][data-from][data-to]` (0-based steps,
//! `data-to` inclusive), refused steps `[data-refused-step=<n>][data-code=<CODE>]`, and
//! `[data-current-step=<n>]` on the viewer's root. Record text reaches the SVG only as text
//! content or attribute values.

use project_lanes::LaneState;
use project_lanes::dispatch::ReservationState;
use project_lanes::record::{Record, StepResult};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, Event, KeyboardEvent, MouseEvent};

use crate::dom::{attr, el};
use crate::i18n::timeline::{TlMsg, fill_n, tl};
use crate::i18n::{Lang, Msg, text};

/// What one step of one row shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// A lane nobody holds.
    Idle,
    /// A lane held by a run.
    Running,
    /// A lane held by a run asked to stop (still occupied).
    StopRequested,
    /// A reservation's state.
    Reservation(ReservationState),
}

impl State {
    /// The `data-state` value: `idle`, `running`, `stop_requested` or a reservation state.
    pub fn as_str(self) -> &'static str {
        match self {
            State::Idle => "idle",
            State::Running => LaneState::Running.as_str(),
            State::StopRequested => LaneState::StopRequested.as_str(),
            State::Reservation(state) => state.as_str(),
        }
    }

    fn name(self, lang: Lang) -> &'static str {
        text(
            lang,
            match self {
                State::Idle => Msg::Idle,
                State::Running => Msg::State(LaneState::Running),
                State::StopRequested => Msg::State(LaneState::StopRequested),
                State::Reservation(state) => Msg::Reservation(state),
            },
        )
    }

    /// How the state is drawn: its bar's height class and its fill (a CSS class, or a pattern
    /// so the state reads in greyscale too).
    fn look(self) -> Look {
        use ReservationState as R;
        let (bar, fill) = match self {
            State::Idle => (Bar::Thin, Fill::Class("idle")),
            State::Running | State::Reservation(R::Dispatched) => (Bar::Full, Fill::Class("run")),
            State::StopRequested => (Bar::Full, Fill::Pattern("stop")),
            State::Reservation(R::Queued) => (Bar::Mid, Fill::Pattern("wait")),
            State::Reservation(R::Persisting) => (Bar::Full, Fill::Pattern("save")),
            State::Reservation(R::Done) => (Bar::Thin, Fill::Class("done")),
            State::Reservation(R::Cancelled) => (Bar::Thin, Fill::Pattern("cancel")),
            State::Reservation(R::Unresolved) => (Bar::Full, Fill::Pattern("block")),
            State::Reservation(R::Resolved) => (Bar::Mid, Fill::Class("resolved")),
        };
        Look { bar, fill }
    }
}

/// Consecutive steps of one row in one state (and, for lanes, with one holder).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment<'a> {
    pub state: State,
    /// First step, from 0.
    pub from: usize,
    /// Last step, inclusive.
    pub to: usize,
    /// The run holding the lane (lane rows only).
    pub run: Option<&'a str>,
}

/// Which kind of thing a row follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Lane,
    Reservation,
}

/// One row: a project's lane or one reservation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row<'a> {
    pub kind: RowKind,
    /// The project, or the reservation id (`R1`).
    pub id: String,
    pub project: &'a str,
    /// The reservation's queue.
    pub queue: Option<&'a str>,
    /// The record's untouched project.
    pub untouched: bool,
    /// In step order. A step whose snapshot lacks this row has no segment (a gap).
    pub segments: Vec<Segment<'a>>,
}

/// Rows under one heading: the lanes, or one queue's reservations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group<'a> {
    /// `None` for the lanes.
    pub queue: Option<&'a str>,
    pub rows: Vec<Row<'a>>,
}

/// The timeline of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline<'a> {
    pub steps: usize,
    /// The lanes first (in `projects` order), then one group per queue (in `queues` order) with
    /// its reservations in id order.
    pub groups: Vec<Group<'a>>,
    /// Refused steps and their error codes.
    pub refused: Vec<(usize, &'static str)>,
}

impl Timeline<'_> {
    pub fn rows(&self) -> impl Iterator<Item = &Row<'_>> {
        self.groups.iter().flat_map(|g| &g.rows)
    }
}

fn extend<'a>(segments: &mut Vec<Segment<'a>>, state: State, run: Option<&'a str>, step: usize) {
    if let Some(last) = segments.last_mut()
        && last.state == state
        && last.run == run
        && last.to + 1 == step
    {
        last.to = step;
        return;
    }
    segments.push(Segment {
        state,
        from: step,
        to: step,
        run,
    });
}

/// Builds the timeline from the snapshots the record saved after each step.
pub fn timeline(record: &Record) -> Timeline<'_> {
    let steps = record.steps.len();
    let mut lanes: Vec<Row> = record
        .projects
        .iter()
        .map(|project| Row {
            kind: RowKind::Lane,
            id: project.to_string(),
            project,
            queue: None,
            untouched: record.untouched_project == *project,
            segments: Vec::new(),
        })
        .collect();
    let mut reservations: Vec<(u64, Row)> = Vec::new();
    let mut refused = Vec::new();
    for (i, step) in record.steps.iter().enumerate() {
        if let StepResult::Error(error) = &step.result {
            refused.push((i, error.code()));
        }
        for (p, row) in lanes.iter_mut().enumerate() {
            // Snapshots follow `projects`; a hand-written record may not, so look further.
            let view = step
                .lanes
                .get(p)
                .filter(|v| v.project == row.project)
                .or_else(|| step.lanes.iter().find(|v| v.project == row.project));
            let Some(view) = view else { continue };
            let state = match view.state {
                Some(LaneState::Running) => State::Running,
                Some(LaneState::StopRequested) => State::StopRequested,
                None => State::Idle,
            };
            extend(&mut row.segments, state, view.run.as_deref(), i);
        }
        for (k, view) in step.reservations.iter().flatten().enumerate() {
            let number = view.id.number();
            // Reservations are listed in id order, so the k-th is usually the k-th row.
            let at = match reservations.get(k) {
                Some((n, _)) if *n == number => Some(k),
                _ => reservations.iter().position(|(n, _)| *n == number),
            };
            let at = at.unwrap_or_else(|| {
                // Kept in id order by inserting in place (no sort: it costs kilobytes of wasm).
                let at = reservations.partition_point(|(n, _)| *n < number);
                let row = Row {
                    kind: RowKind::Reservation,
                    id: view.id.to_string(),
                    project: &view.project,
                    queue: Some(&view.queue),
                    untouched: false,
                    segments: Vec::new(),
                };
                reservations.insert(at, (number, row));
                at
            });
            if let Some((_, row)) = reservations.get_mut(at) {
                extend(&mut row.segments, State::Reservation(view.state), None, i);
            }
        }
    }
    let mut groups = vec![Group {
        queue: None,
        rows: lanes,
    }];
    for queue in &record.queues {
        groups.push(Group {
            queue: Some(queue),
            rows: Vec::new(),
        });
    }
    for (_, row) in reservations {
        let at = groups
            .iter()
            .position(|g| g.queue.is_some() && g.queue == row.queue);
        match at.and_then(|at| groups.get_mut(at)) {
            Some(group) => group.rows.push(row),
            // A queue the record does not list: its own group at the end.
            None => groups.push(Group {
                queue: row.queue,
                rows: vec![row],
            }),
        }
    }
    Timeline {
        steps,
        groups,
        refused,
    }
}

// ---------------------------------------------------------------------------------------------
// Drawing

/// The SVG's natural width in px (it shrinks to its box down to a minimum, then scrolls).
const WIDTH: u64 = 880;
const PAD_RIGHT: u64 = 12;
const AXIS_H: u64 = 22;
const ROW_H: u64 = 24;
const GROUP_H: u64 = 20;
const CODE_H: u64 = 14;
/// Refused steps beyond this many are marked without their codes (which would only overlap).
const MAX_CODE_LABELS: usize = 200;

#[derive(Clone, Copy)]
enum Bar {
    Full,
    Mid,
    Thin,
}

#[derive(Clone, Copy)]
enum Fill {
    Class(&'static str),
    Pattern(&'static str),
}

#[derive(Clone, Copy)]
struct Look {
    bar: Bar,
    fill: Fill,
}

impl Bar {
    /// (top offset, height) within a row, in px.
    fn span(self) -> (u64, u64) {
        match self {
            Bar::Full => (4, 16),
            Bar::Mid => (8, 8),
            Bar::Thin => (10, 4),
        }
    }
}

/// Hundredths of a pixel as SVG number text, without float formatting (which would cost
/// kilobytes of the wasm budget).
fn px(hundredths: u64) -> String {
    let mut out = (hundredths / 100).to_string();
    let frac = hundredths % 100;
    if frac != 0 {
        out.push('.');
        out.push(char::from(b'0' + (frac / 10) as u8));
        if !frac.is_multiple_of(10) {
            out.push(char::from(b'0' + (frac % 10) as u8));
        }
    }
    out
}

/// Estimated width in px of text at the timeline's 12 px: wide (CJK) characters count double.
fn text_w(s: &str) -> u64 {
    s.chars().map(|c| if c.is_ascii() { 7 } else { 13 }).sum()
}

/// Shortens `s` to about `max` px, with an ellipsis.
fn clip(s: &str, max: u64) -> String {
    if text_w(s) <= max {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 7;
    for c in s.chars() {
        w += text_w(c.encode_utf8(&mut [0; 4]));
        if w > max {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

/// Where things go: the label column, the plot, and the step ↔ x mapping.
struct Geometry {
    steps: u64,
    label_w: u64,
    plot_w: u64,
}

impl Geometry {
    /// x of the left edge of `step` (or the right edge of the plot for `steps`), in hundredths.
    fn x(&self, step: usize) -> u64 {
        (self.label_w + (step as u64).min(self.steps) * self.plot_w / self.steps.max(1)) * 100
            + ((step as u64).min(self.steps) * self.plot_w % self.steps.max(1)) * 100
                / self.steps.max(1)
    }
}

/// The timeline's DOM as a list of operations that one inline JS function (`buildTree`) carries
/// out: one wasm↔JS crossing for the whole drawing instead of several per element (as
/// `render.rs` does for the steps). Operations are four fields each: a kind, a node index (0 is
/// the element passed in; every created element gets the next index) and two arguments. Record
/// text only ever becomes text content or attribute values.
struct Tree {
    ops: String,
    nodes: usize,
}

/// A node of a [`Tree`], by index.
#[derive(Clone, Copy)]
struct N(usize);

const FIELD: char = '\u{1f}';

#[wasm_bindgen(inline_js = r#"
export function buildTree(root, packed) {
  const doc = root.ownerDocument, nodes = [root], f = packed.split("\u001f");
  for (let i = 0; i + 3 < f.length; i += 4) {
    const k = f[i], n = nodes[+f[i + 1]], a = f[i + 2], b = f[i + 3];
    if (k === "a") n.setAttribute(a, b);
    else if (k === "t") n.append(a);
    else {
      const e = k === "s" ? doc.createElementNS("http://www.w3.org/2000/svg", a)
        : doc.createElement(a);
      if (b) e.setAttribute("class", b);
      n.append(e);
      nodes.push(e);
    }
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = buildTree)]
    fn build_tree(root: &Element, packed: &str);
}

impl Tree {
    fn new() -> Tree {
        Tree {
            ops: String::with_capacity(8192),
            nodes: 1,
        }
    }

    fn field(&mut self, value: &str) {
        if value.contains(FIELD) {
            self.ops.extend(
                value
                    .chars()
                    .map(|c| if c == FIELD { '\u{fffd}' } else { c }),
            );
        } else {
            self.ops.push_str(value);
        }
        self.ops.push(FIELD);
    }

    fn op(&mut self, kind: &str, node: N, a: &str, b: &str) {
        self.field(kind);
        self.field(&node.0.to_string());
        self.field(a);
        self.field(b);
    }

    /// A new HTML element under `parent`.
    fn el(&mut self, parent: N, tag: &str, class: &str) -> N {
        self.op("e", parent, tag, class);
        self.nodes += 1;
        N(self.nodes - 1)
    }

    /// A new SVG element under `parent`.
    fn svg(&mut self, parent: N, tag: &str, class: &str) -> N {
        self.op("s", parent, tag, class);
        self.nodes += 1;
        N(self.nodes - 1)
    }

    fn attr(&mut self, node: N, name: &str, value: &str) {
        self.op("a", node, name, value);
    }

    /// Appends a text node.
    fn text(&mut self, node: N, value: &str) {
        self.op("t", node, value, "");
    }

    fn svg_text(&mut self, parent: N, class: &str, x: u64, y: u64, value: &str) -> N {
        let t = self.svg(parent, "text", class);
        self.attr(t, "x", &px(x));
        self.attr(t, "y", &px(y * 100));
        self.text(t, value);
        t
    }

    fn rect(&mut self, parent: N, class: &str, (x, y): (u64, u64), (w, h): (u64, u64)) -> N {
        let r = self.svg(parent, "rect", class);
        self.attr(r, "x", &px(x));
        self.attr(r, "y", &px(y * 100));
        self.attr(r, "width", &px(w));
        self.attr(r, "height", &px(h * 100));
        r
    }

    /// A state's shape at `x`…`x + w` (hundredths) in the row whose top is `top` (px). Its
    /// class names the state (`lv-tl-s-running`, …) for outlines; its fill is a class or a
    /// pattern.
    fn shape(&mut self, parent: N, prefix: &str, state: State, (x, w): (u64, u64), top: u64) -> N {
        let look = state.look();
        let (dy, h) = look.bar.span();
        let mut class = String::from("lv-tl-seg lv-tl-s-");
        class.push_str(state.as_str());
        if let Fill::Class(name) = look.fill {
            class.push_str(" lv-tl-f-");
            class.push_str(name);
        }
        let r = self.rect(parent, &class, (x, top + dy), (w, h));
        if let Fill::Pattern(name) = look.fill {
            self.attr(r, "fill", &format!("url(#{prefix}-{name})"));
        }
        r
    }
}

/// The patterns of the patterned states, once per viewer panel (ids carry the panel's prefix).
fn patterns(t: &mut Tree, root: N, prefix: &str) {
    let defs = t.svg(root, "defs", "");
    // name, size, foreground path (drawn over the pattern's own background).
    let list: [(&str, &str, &str); 5] = [
        ("stop", "6", "M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2"),
        ("save", "6", "M-1,5 l2,2 M0,0 l6,6 M5,-1 l2,2"),
        ("block", "6", "M0,0 l6,6 M6,0 l-6,6"),
        ("wait", "4", "M1,2 h2"),
        ("cancel", "6", "M0,2 h3"),
    ];
    for (name, size, path) in list {
        let pattern = t.svg(defs, "pattern", "");
        t.attr(pattern, "id", &format!("{prefix}-{name}"));
        t.attr(pattern, "patternUnits", "userSpaceOnUse");
        t.attr(pattern, "width", size);
        t.attr(pattern, "height", size);
        let bg = t.svg(pattern, "rect", &format!("lv-tl-pb-{name}"));
        t.attr(bg, "width", size);
        t.attr(bg, "height", size);
        let fg = t.svg(pattern, "path", &format!("lv-tl-pf-{name}"));
        t.attr(fg, "d", path);
    }
}

fn row_label(lang: Lang, row: &Row) -> String {
    match row.kind {
        RowKind::Lane if row.untouched => fill_n(tl(lang, TlMsg::AltUntouched), &[&row.id]),
        RowKind::Lane => row.id.clone(),
        RowKind::Reservation => format!("{} · {}", row.id, row.project),
    }
}

fn group_label(lang: Lang, group: &Group) -> String {
    match group.queue {
        None => tl(lang, TlMsg::LanesGroup).to_string(),
        Some(queue) => fill_n(tl(lang, TlMsg::QueueGroup), &[queue]),
    }
}

/// The timeline section: heading, step navigation, the SVG and its legend. `prefix` makes the
/// pattern ids unique per viewer.
pub fn section(doc: &Document, lang: Lang, record: &Record, prefix: &str) -> Element {
    let model = timeline(record);
    let wrap = el(doc, "section", "lv-timeline", None);
    let mut t = Tree::new();
    let root = N(0);
    let heading = t.el(root, "h3", "lv-h lv-tl-h");
    t.text(heading, tl(lang, TlMsg::Heading));
    nav(&mut t, root, lang, model.steps);
    let scroll = t.el(root, "div", "lv-tl-scroll");
    draw(&mut t, scroll, lang, &model, prefix);
    legend(&mut t, root, lang, &model);
    build_tree(&wrap, &t.ops);
    wrap
}

fn nav(t: &mut Tree, parent: N, lang: Lang, steps: usize) {
    let nav = t.el(parent, "div", "lv-tl-nav");
    for (msg, data, arrow) in [
        (TlMsg::Previous, "data-step-prev", "‹ "),
        (TlMsg::Next, "data-step-next", ""),
    ] {
        let label = if arrow.is_empty() {
            format!("{} ›", tl(lang, msg))
        } else {
            format!("{arrow}{}", tl(lang, msg))
        };
        if data == "data-step-next" {
            let position = t.el(nav, "span", "lv-tl-pos");
            t.attr(position, "aria-live", "polite");
            t.attr(position, "data-step-position", "");
            t.text(position, &position_text(lang, None, steps));
        }
        let button = t.el(nav, "button", "lv-tl-step-button");
        t.attr(button, "type", "button");
        t.attr(button, data, "");
        t.text(button, &label);
    }
}

fn position_text(lang: Lang, step: Option<usize>, steps: usize) -> String {
    let count = steps.to_string();
    match step {
        Some(n) => fill_n(tl(lang, TlMsg::Position), &[&(n + 1).to_string(), &count]),
        None => fill_n(tl(lang, TlMsg::NoPosition), &[&count]),
    }
}

/// The SVG itself.
fn draw(t: &mut Tree, parent: N, lang: Lang, model: &Timeline, prefix: &str) {
    let dispatcher = model.groups.len() > 1;
    // The label column fits the longest label in either language, so both draw alike.
    let mut longest = 0;
    for group in &model.groups {
        if dispatcher {
            for l in Lang::ALL {
                longest = longest.max(text_w(&group_label(l, group)));
            }
        }
        for row in &group.rows {
            for l in Lang::ALL {
                longest = longest.max(text_w(&row_label(l, row)));
            }
        }
    }
    for l in Lang::ALL {
        longest = longest.max(text_w(tl(l, TlMsg::RefusedBand)));
    }
    let label_w = (longest + 16).clamp(72, 220);
    let g = Geometry {
        steps: model.steps as u64,
        label_w,
        plot_w: WIDTH - label_w - PAD_RIGHT,
    };
    let col = g.plot_w * 100 / g.steps.max(1);
    let rows: usize = model.groups.iter().map(|g| g.rows.len()).sum();
    let heads = if dispatcher {
        model.groups.len() as u64
    } else {
        0
    };
    let rows_end = AXIS_H + heads * GROUP_H + rows as u64 * ROW_H;
    // The refused band's height: code labels in levels so neighbours do not overlap.
    let mut level_ends: Vec<u64> = Vec::new();
    let mut code_at: Vec<(u64, u64)> = Vec::new(); // (x, level) of each code label
    for &(step, code) in model.refused.iter().take(MAX_CODE_LABELS) {
        let center = g.x(step) + col / 2;
        let w = text_w(code) * 100 * 9 / 10;
        let right_edge = (WIDTH - 2) * 100;
        let start = center
            .saturating_sub(w / 2)
            .min(right_edge.saturating_sub(w));
        let level = level_ends
            .iter()
            .position(|&end| end + 600 <= start)
            .unwrap_or(level_ends.len());
        if level == level_ends.len() {
            level_ends.push(0);
        }
        if let Some(end) = level_ends.get_mut(level) {
            *end = start + w;
        }
        code_at.push((start, level as u64));
    }
    let band = if model.refused.is_empty() {
        0
    } else {
        18 + level_ends.len() as u64 * CODE_H + 6
    };
    let height = rows_end + band + 4;

    let root = t.svg(parent, "svg", "lv-tl-svg");
    for (name, value) in [
        ("role", "img"),
        ("tabindex", "0"),
        ("data-timeline", ""),
        ("data-steps", &model.steps.to_string()),
        ("data-plot-x", &g.label_w.to_string()),
        ("data-plot-w", &g.plot_w.to_string()),
        ("aria-label", &alt_text(lang, model)),
        ("width", &WIDTH.to_string()),
        ("height", &height.to_string()),
        ("viewBox", &format!("0 0 {WIDTH} {height}")),
    ] {
        t.attr(root, name, value);
    }
    patterns(t, root, prefix);

    // Axis: step numbers (from 1) at a readable interval, and a light grid.
    let mut every = 1u64;
    for n in [
        1u64, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000,
    ] {
        every = n;
        if n * col >= 3_200 {
            break;
        }
    }
    let axis = t.svg(root, "g", "lv-tl-axis");
    let mut grid = String::new();
    for s in 0..model.steps {
        let number = s as u64 + 1;
        if s != 0 && !number.is_multiple_of(every) {
            continue;
        }
        let center = g.x(s) + col / 2;
        let label = t.svg_text(axis, "lv-tl-tick", center, 15, &number.to_string());
        t.attr(label, "text-anchor", "middle");
        grid.push('M');
        grid.push_str(&px(center));
        grid.push_str(",20V");
        grid.push_str(&rows_end.to_string());
    }
    let grid_path = t.svg(root, "path", "lv-tl-grid");
    t.attr(grid_path, "d", &grid);

    // Rows.
    let mut y = AXIS_H;
    for group in &model.groups {
        if dispatcher {
            t.svg_text(root, "lv-tl-group", 400, y + 15, &group_label(lang, group));
            let line = t.svg(root, "path", "lv-tl-sep");
            t.attr(line, "d", &format!("M0,{}H{}", y, WIDTH - PAD_RIGHT));
            y += GROUP_H;
        }
        for row in &group.rows {
            draw_row(t, root, lang, prefix, &g, row, y);
            y += ROW_H;
        }
    }

    // Refused steps: a guide through the rows, a mark on the band and the code.
    if !model.refused.is_empty() {
        t.svg_text(
            root,
            "lv-tl-label lv-tl-band",
            400,
            y + 14,
            tl(lang, TlMsg::RefusedBand),
        );
        for (n, &(step, code)) in model.refused.iter().enumerate() {
            let center = g.x(step) + col / 2;
            let mark = t.svg(root, "g", "lv-tl-refused");
            t.attr(mark, "data-refused-step", &step.to_string());
            t.attr(mark, "data-code", code);
            let guide = t.svg(mark, "path", "lv-tl-guide");
            t.attr(
                guide,
                "d",
                &format!("M{},{}V{}", px(center), AXIS_H, rows_end),
            );
            let cross = t.svg(mark, "path", "lv-tl-cross");
            let d = format!(
                "M{},{}l8,8m0,-8l-8,8",
                px(center.saturating_sub(400)),
                y + 6
            );
            t.attr(cross, "d", &d);
            if let Some(&(start, level)) = code_at.get(n) {
                t.svg_text(mark, "lv-tl-code", start, y + 28 + level * CODE_H, code);
            }
        }
    }

    // The current step's column: hidden until a step is selected.
    let marker = t.rect(
        root,
        "lv-tl-current",
        (g.x(0), 20),
        (col.max(200), rows_end - 20),
    );
    t.attr(marker, "data-current-marker", "");
    t.attr(marker, "display", "none");
}

fn draw_row(t: &mut Tree, parent: N, lang: Lang, prefix: &str, g: &Geometry, row: &Row, top: u64) {
    let group = t.svg(parent, "g", "lv-tl-row");
    t.attr(group, "data-timeline-row", &row.id);
    let kind = match row.kind {
        RowKind::Lane => "lane",
        RowKind::Reservation => "reservation",
    };
    t.attr(group, "data-row-kind", kind);
    if let Some(queue) = row.queue {
        t.attr(group, "data-queue", queue);
    }
    let class = if row.untouched {
        "lv-tl-label lv-tl-untouched"
    } else {
        "lv-tl-label"
    };
    let label = clip(&row_label(lang, row), g.label_w - 12);
    t.svg_text(group, class, 400, top + 16, &label);
    for segment in &row.segments {
        let x = g.x(segment.from);
        let mut w = g.x(segment.to + 1) - x;
        if !matches!(segment.state, State::Idle) {
            // A one-step run in a long record is still visible.
            w = w.max(100);
        }
        let shape = t.shape(group, prefix, segment.state, (x, w), top);
        t.attr(shape, "data-segment", "");
        t.attr(shape, "data-state", segment.state.as_str());
        t.attr(shape, "data-from", &segment.from.to_string());
        t.attr(shape, "data-to", &segment.to.to_string());
        let look = segment.state.look();
        if let Some(run) = segment.run
            && matches!(look.bar, Bar::Full)
            && (text_w(run) + 10) * 100 <= w
        {
            // White on the solid bar; on a pattern, text with a halo.
            let class = match look.fill {
                Fill::Class(_) => "lv-tl-runlabel",
                Fill::Pattern(_) => "lv-tl-runlabel lv-tl-halo",
            };
            t.svg_text(group, class, x + 500, top + 16, run);
        }
    }
}

/// The legend, in the viewer's language: the states this record can show, and the marks.
fn legend(t: &mut Tree, parent: N, lang: Lang, model: &Timeline) {
    let wrap = t.el(parent, "div", "lv-tl-legend");
    t.attr(wrap, "role", "group");
    t.attr(wrap, "aria-label", tl(lang, TlMsg::Legend));
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
        t.text(h, tl(lang, head));
        for state in states {
            let item = t.el(list, "li", "lv-tl-key");
            t.attr(item, "data-legend", state.as_str());
            // A CSS swatch (same bar and pattern as the drawing): no SVG root per key.
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
    for (msg, class) in keys {
        let item = t.el(marks, "li", class);
        t.el(item, "span", "lv-tl-mark");
        t.text(item, tl(lang, msg));
    }
}

/// Rows beyond this many spans are summarised in the text alternative.
const ALT_SPANS: usize = 6;

/// What the timeline shows, in words: every row's spans, then the refused steps.
pub fn alt_text(lang: Lang, t: &Timeline) -> String {
    let mut out = fill_n(tl(lang, TlMsg::AltIntro), &[&t.steps.to_string()]);
    for row in t.rows() {
        let name = match row.kind {
            RowKind::Lane => row_label(lang, row),
            RowKind::Reservation => fill_n(
                tl(lang, TlMsg::AltReservation),
                &[&row.id, row.queue.unwrap_or_default(), row.project],
            ),
        };
        let mut spans = String::new();
        for (n, s) in row.segments.iter().take(ALT_SPANS).enumerate() {
            if n > 0 {
                spans.push_str(tl(lang, TlMsg::AltThen));
            }
            let state = s.state.name(lang);
            let (from, to) = ((s.from + 1).to_string(), (s.to + 1).to_string());
            spans.push_str(
                &if row.segments.len() == 1 && s.from == 0 && s.to + 1 == t.steps {
                    fill_n(tl(lang, TlMsg::AltThroughout), &[state])
                } else if s.from == s.to {
                    fill_n(tl(lang, TlMsg::AltSpanOne), &[state, &from])
                } else {
                    fill_n(tl(lang, TlMsg::AltSpan), &[state, &from, &to])
                },
            );
        }
        if row.segments.len() > ALT_SPANS {
            let more = (row.segments.len() - ALT_SPANS).to_string();
            spans.push_str(&fill_n(tl(lang, TlMsg::AltMore), &[&more]));
        }
        out.push(' ');
        out.push_str(&fill_n(tl(lang, TlMsg::AltRow), &[&name, &spans]));
    }
    if !t.refused.is_empty() {
        let mut list = String::new();
        for (n, (step, code)) in t.refused.iter().take(ALT_SPANS * 4).enumerate() {
            if n > 0 {
                list.push_str(", ");
            }
            let step = (step + 1).to_string();
            list.push_str(&fill_n(tl(lang, TlMsg::AltRefusedStep), &[&step, code]));
        }
        if t.refused.len() > ALT_SPANS * 4 {
            list.push_str(", …");
        }
        out.push(' ');
        out.push_str(&fill_n(tl(lang, TlMsg::AltRefused), &[&list]));
    }
    out
}

// ---------------------------------------------------------------------------------------------
// The current step

/// A request to move the current step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    To(usize),
    Previous,
    Next,
    First,
    Last,
}

impl Action {
    /// The step this action selects in a record of `steps` steps, from `current`.
    pub fn target(self, current: Option<usize>, steps: usize) -> Option<usize> {
        let last = steps.checked_sub(1)?;
        Some(match self {
            Action::To(n) if n <= last => n,
            Action::To(_) => return None,
            Action::Previous => current.map_or(last, |c| c.saturating_sub(1).min(last)),
            Action::Next => current.map_or(0, |c| (c + 1).min(last)),
            Action::First => 0,
            Action::Last => last,
        })
    }
}

/// A click on the step buttons, or on a column of the timeline; `None` for any other click.
pub fn click(target: &Element, event: &Event) -> Option<Action> {
    if closest(target, "[data-step-prev]").is_some() {
        return Some(Action::Previous);
    }
    if closest(target, "[data-step-next]").is_some() {
        return Some(Action::Next);
    }
    let svg = closest(target, "[data-timeline]")?;
    let mouse = event.dyn_ref::<MouseEvent>()?;
    let number =
        |name: &str| -> Option<f64> { svg.get_attribute(name)?.parse::<u32>().ok().map(f64::from) };
    let (steps, plot_x, plot_w) = (
        number("data-steps")?,
        number("data-plot-x")?,
        number("data-plot-w")?,
    );
    let bounds = svg.get_bounding_client_rect();
    if bounds.width() <= 0.0 {
        return None;
    }
    // The SVG may be drawn narrower than its natural width (it shrinks to its box).
    let x = (f64::from(mouse.client_x()) - bounds.left()) * WIDTH as f64 / bounds.width();
    let at = (x - plot_x) * steps / plot_w;
    if at < 0.0 || at >= steps {
        return None;
    }
    Some(Action::To(at as usize))
}

/// Arrow keys, Home and End while the timeline has focus.
pub fn key(target: &Element, event: &Event) -> Option<Action> {
    closest(target, "[data-timeline]")?;
    Some(match event.dyn_ref::<KeyboardEvent>()?.key().as_str() {
        "ArrowRight" | "ArrowDown" => Action::Next,
        "ArrowLeft" | "ArrowUp" => Action::Previous,
        "Home" => Action::First,
        "End" => Action::Last,
        _ => return None,
    })
}

fn closest(element: &Element, selector: &str) -> Option<Element> {
    element.closest(selector).ok().flatten()
}

/// Shows `step` as the current step (or none): `data-current-step` on `root`, the column
/// marker, "Step 5 of 12", the step's card highlighted and, when `scroll`, scrolled into view.
/// A card not built yet (a large record still rendering) is marked once `settled` resolves.
pub fn show(
    root: &Element,
    panel: &Element,
    lang: Lang,
    step: Option<usize>,
    scroll: bool,
    settled: Option<js_sys::Promise>,
) {
    match step {
        Some(n) => attr(root, "data-current-step", &n.to_string()),
        None => {
            root.remove_attribute("data-current-step").ok();
        }
    }
    let Some(svg) = panel.query_selector("[data-timeline]").ok().flatten() else {
        return;
    };
    let number = |name: &str| -> u64 {
        svg.get_attribute(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    let steps = number("data-steps") as usize;
    let g = Geometry {
        steps: steps as u64,
        label_w: number("data-plot-x"),
        plot_w: number("data-plot-w"),
    };
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
        position.set_text_content(Some(&position_text(lang, step, steps)));
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

/// Scrolls the timeline's own box sideways so the column at `x` (hundredths) is visible.
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
    let at = x as f64 / 100.0 * drawn / WIDTH as f64;
    let left = f64::from(scroller.scroll_left());
    if at < left + 40.0 || at > left + view - 40.0 {
        scroller.set_scroll_left((at - view / 2.0).max(0.0) as i32);
    }
}

fn mark_card(panel: &Element, step: Option<usize>, scroll: bool, settled: Option<js_sys::Promise>) {
    if let Ok(list) = panel.query_selector_all(".lv-current") {
        for i in 0..list.length() {
            if let Some(old) = list.item(i).and_then(|n| n.dyn_into::<Element>().ok()) {
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
            let options = web_sys::ScrollIntoViewOptions::new();
            options.set_block(web_sys::ScrollLogicalPosition::Nearest);
            card.scroll_into_view_with_scroll_into_view_options(&options);
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

/// The `step=<n>` of a deep link (from 1, as readers count) as a 0-based step.
pub fn parse_step(hash: &str) -> Option<usize> {
    hash.trim_start_matches('#')
        .split('&')
        .filter_map(|pair| pair.strip_prefix("step="))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && n.len() <= 9)
        .filter_map(|n| n.parse::<usize>().ok())
        .next_back()?
        .checked_sub(1)
}

/// The deep link's step, from the page's location.
pub fn read_step() -> Option<usize> {
    parse_step(&web_sys::window()?.location().hash().ok()?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use project_lanes::record::Recorder;
    use project_lanes::record::Text;

    fn text(s: &str) -> Text {
        Text {
            en: s.into(),
            ja: s.into(),
        }
    }

    fn spans(row: &Row) -> Vec<(&'static str, usize, usize)> {
        row.segments
            .iter()
            .map(|s| (s.state.as_str(), s.from, s.to))
            .collect()
    }

    fn stop_record() -> Record {
        let mut rec = Recorder::new("t", text("t"), text("t"), &["docs", "site"], "site").unwrap();
        rec.claim("docs", "run-1");
        rec.claim("docs", "run-2");
        rec.request_stop("L1");
        rec.release("L1", "cancelled");
        rec.claim("docs", "run-3");
        rec.finish().unwrap()
    }

    #[test]
    fn lane_rows_merge_steps_of_one_state_and_one_run() {
        let record = stop_record();
        let t = timeline(&record);
        assert_eq!(t.steps, 5);
        assert_eq!(t.groups.len(), 1);
        let rows: Vec<_> = t.rows().collect();
        assert_eq!(rows[0].id, "docs");
        assert_eq!(
            spans(rows[0]),
            [
                ("running", 0, 1),
                ("stop_requested", 2, 2),
                ("idle", 3, 3),
                ("running", 4, 4)
            ]
        );
        assert_eq!(rows[0].segments[0].run, Some("run-1"));
        assert_eq!(rows[0].segments[3].run, Some("run-3"));
        assert!(rows[1].untouched);
        assert_eq!(spans(rows[1]), [("idle", 0, 4)]);
        assert_eq!(t.refused, [(1, "PROJECT_BUSY")]);
    }

    #[test]
    fn reservation_rows_start_where_they_were_enqueued_grouped_by_queue() {
        let mut rec = Recorder::dispatcher(
            "d",
            text("d"),
            text("d"),
            &["docs", "site", "billing"],
            "billing",
            &["general", "delivery"],
        )
        .unwrap();
        rec.enqueue("delivery", "docs", "cafe-1");
        rec.enqueue("general", "docs", "gen-1");
        rec.dispatch("general");
        rec.dispatch("delivery");
        rec.finish_work("R2", "succeeded");
        rec.persist("R2", true);
        rec.dispatch("delivery");
        rec.cancel("R1");
        let record = rec.finish().unwrap();
        let t = timeline(&record);
        let groups: Vec<_> = t.groups.iter().map(|g| g.queue).collect();
        assert_eq!(groups, [None, Some("general"), Some("delivery")]);
        let general = &t.groups[1].rows;
        assert_eq!(general[0].id, "R2");
        assert_eq!(
            spans(&general[0]),
            [
                ("queued", 1, 1),
                ("dispatched", 2, 3),
                ("persisting", 4, 4),
                ("done", 5, 7)
            ]
        );
        let delivery = &t.groups[2].rows;
        assert_eq!(delivery[0].id, "R1");
        assert_eq!(
            spans(&delivery[0]),
            [("queued", 0, 5), ("dispatched", 6, 7)]
        );
        // The project stays busy while R2 is saving, and R1 waits until it is released.
        let docs = &t.groups[0].rows[0];
        assert_eq!(
            spans(docs),
            [
                ("idle", 0, 1),
                ("running", 2, 4),
                ("idle", 5, 5),
                ("running", 6, 7)
            ]
        );
        assert_eq!(t.refused, [(7, "NOT_QUEUED")]);
    }

    #[test]
    fn a_step_without_a_snapshot_leaves_a_gap_instead_of_inventing_a_state() {
        let mut record = stop_record();
        record.steps[2].lanes.retain(|v| v.project != "docs");
        let t = timeline(&record);
        let docs = t.rows().next().unwrap();
        assert_eq!(
            spans(docs),
            [("running", 0, 1), ("idle", 3, 3), ("running", 4, 4)]
        );
    }

    #[test]
    fn the_text_alternative_says_what_each_row_does() {
        let record = stop_record();
        let t = timeline(&record);
        let en = alt_text(Lang::En, &t);
        assert!(en.starts_with("Timeline of 5 steps."), "{en}");
        assert!(
            en.contains("docs: running from step 1 to 2, then stop requested at step 3, then idle at step 4, then running at step 5."),
            "{en}"
        );
        assert!(en.contains("site (untouched): idle throughout."), "{en}");
        assert!(en.contains("Refused: step 2 (PROJECT_BUSY)."), "{en}");
        let ja = alt_text(Lang::Ja, &t);
        assert!(
            ja.contains("docs：ステップ 1〜2 は実行中、その後ステップ 3 は停止要求済み"),
            "{ja}"
        );
        assert!(
            ja.contains("site（手つかず）：最初から最後まで空き。"),
            "{ja}"
        );
    }

    #[test]
    fn actions_stay_inside_the_record() {
        assert_eq!(Action::Next.target(None, 5), Some(0));
        assert_eq!(Action::Previous.target(None, 5), Some(4));
        assert_eq!(Action::Next.target(Some(4), 5), Some(4));
        assert_eq!(Action::Previous.target(Some(0), 5), Some(0));
        assert_eq!(Action::To(5).target(None, 5), None);
        assert_eq!(Action::Last.target(Some(1), 5), Some(4));
        assert_eq!(Action::First.target(None, 0), None);
    }

    #[test]
    fn deep_links_count_steps_from_one() {
        assert_eq!(parse_step("#record=a&lang=en&step=5"), Some(4));
        assert_eq!(parse_step("#step=1"), Some(0));
        assert_eq!(parse_step("#step=0"), None);
        assert_eq!(parse_step("#step=-1"), None);
        assert_eq!(parse_step("#step=2x"), None);
        assert_eq!(parse_step("#record=a"), None);
        assert_eq!(parse_step("#step=99999999999"), None);
    }

    #[test]
    fn coordinates_are_written_without_float_formatting() {
        assert_eq!(px(0), "0");
        assert_eq!(px(1234), "12.34");
        assert_eq!(px(1230), "12.3");
        assert_eq!(px(1205), "12.05");
        let g = Geometry {
            steps: 3,
            label_w: 100,
            plot_w: 100,
        };
        assert_eq!((g.x(0), g.x(1), g.x(3)), (10_000, 13_333, 20_000));
    }
}
