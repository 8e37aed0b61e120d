//! Drawing the timeline: the SVG of rows and segments with its axis and refused steps, the row
//! labels that stay in view while the drawing scrolls sideways, the legend, the text
//! alternative and the note that the drawing scrolls. Coordinates are integer hundredths of a
//! pixel (no float formatting in the wasm).
//!
//! The drawing keeps its natural size ([`WIDTH`] px, 12 px text): in a narrower box it scrolls
//! sideways instead of shrinking its text, and its row labels are a second SVG over its left
//! edge that stays put (`position: sticky`). Refused steps closer together than a
//! [`BUCKET`] are drawn as one mark with their count.

use project_lanes::dispatch::ReservationState;
use project_lanes::record::Record;
use web_sys::{Document, Element};

use super::model::{Group, Row, RowKind, State, Timeline, timeline};
use crate::dom::el;
use crate::i18n::timeline::{TlMsg, fill_n, tl};
use crate::i18n::{Lang, group};
use crate::tree::{N, ROOT, Tree, px};

/// The SVG's width in px.
pub const WIDTH: u64 = 880;
const PAD_RIGHT: u64 = 12;
const AXIS_H: u64 = 22;
const ROW_H: u64 = 24;
const GROUP_H: u64 = 20;
const CODE_H: u64 = 14;
/// Refused steps whose columns fall in one bucket of this many hundredths of a pixel are drawn
/// as one mark with their count.
const BUCKET: u64 = 2_400;
/// Lines of labels (error codes, counts) under the refused marks; a label that fits on none is
/// left out (the step's code is in the mark's `data-code` and in the current step's details).
const MAX_LEVELS: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bar {
    Full,
    Mid,
    Thin,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Fill {
    Class(&'static str),
    Pattern(&'static str),
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

/// How a state is drawn: its bar's height and its fill (a CSS class, or a pattern). No two
/// states share both, so each reads in greyscale too; the legend's swatches are the same in CSS.
fn look(state: State) -> (Bar, Fill) {
    use ReservationState as R;
    match state {
        State::Idle => (Bar::Thin, Fill::Class("idle")),
        State::Running => (Bar::Full, Fill::Class("run")),
        State::StopRequested => (Bar::Full, Fill::Pattern("stop")),
        State::Reservation(R::Queued) => (Bar::Mid, Fill::Class("wait")),
        State::Reservation(R::Dispatched) => (Bar::Full, Fill::Pattern("disp")),
        State::Reservation(R::Persisting) => (Bar::Full, Fill::Pattern("save")),
        State::Reservation(R::Done) => (Bar::Thin, Fill::Class("done")),
        State::Reservation(R::Cancelled) => (Bar::Thin, Fill::Pattern("cancel")),
        State::Reservation(R::Unresolved) => (Bar::Full, Fill::Pattern("block")),
        State::Reservation(R::Resolved) => (Bar::Mid, Fill::Class("resolved")),
    }
}

/// Estimated width in px of text at the timeline's 12 px: wide (CJK) characters count double.
fn text_w(s: &str) -> u64 {
    s.chars().map(|c| if c.is_ascii() { 7 } else { 13 }).sum()
}

/// Width in hundredths of monospace or digit text at 11 px (codes, counts, step numbers).
fn small_w(s: &str) -> u64 {
    s.chars().count() as u64 * 700
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
pub struct Geometry {
    pub steps: u64,
    pub label_w: u64,
    pub plot_w: u64,
}

impl Geometry {
    /// x of the left edge of `step` (or the right edge of the plot for `steps`), in hundredths.
    pub fn x(&self, step: usize) -> u64 {
        (self.label_w + (step as u64).min(self.steps) * self.plot_w / self.steps.max(1)) * 100
            + ((step as u64).min(self.steps) * self.plot_w % self.steps.max(1)) * 100
                / self.steps.max(1)
    }

    /// The plot's left and right edges, in hundredths.
    fn plot(&self) -> (u64, u64) {
        (self.label_w * 100, (self.label_w + self.plot_w) * 100)
    }
}

/// The patterns of the patterned states, once per drawing (ids carry the panel's prefix).
fn patterns(t: &mut Tree, root: N, prefix: &str) {
    let defs = t.svg(root, "defs", "");
    // name, size, foreground path (drawn over the pattern's own background).
    let list: [(&str, &str, &str); 5] = [
        ("stop", "6", "M-1,1 l2,-2 M0,6 l6,-6 M5,7 l2,-2"),
        ("save", "6", "M-1,5 l2,2 M0,0 l6,6 M5,-1 l2,2"),
        ("block", "6", "M0,0 l6,6 M6,0 l-6,6"),
        ("disp", "5", "M1.5,0 v5"),
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

/// A state's shape at `x`…`x + w` (hundredths) in the row whose top is `top` (px). Its class
/// names the state (`lv-tl-s-running`, …) for outlines; its fill is a class or a pattern.
fn shape(t: &mut Tree, parent: N, prefix: &str, state: State, (x, w): (u64, u64), top: u64) -> N {
    let (bar, fill) = look(state);
    let (dy, h) = bar.span();
    let mut class = String::from("lv-tl-seg lv-tl-s-");
    class.push_str(state.as_str());
    if let Fill::Class(name) = fill {
        class.push_str(" lv-tl-f-");
        class.push_str(name);
    }
    let r = t.rect(parent, &class, (x, top + dy), (w, h));
    if let Fill::Pattern(name) = fill {
        t.attr(r, "fill", &format!("url(#{prefix}-{name})"));
    }
    r
}

pub(super) fn row_label(lang: Lang, row: &Row) -> String {
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

/// The ids of the hidden text alternative and keys hint (`aria-describedby` of the drawing).
fn described_by(prefix: &str) -> (String, String) {
    (format!("{prefix}-tl-alt"), format!("{prefix}-tl-keys"))
}

/// The timeline section: heading, the drawing with its row labels, the note that it scrolls,
/// its legend, and (for assistive technologies) its text alternative and keys. `prefix` makes
/// ids unique per viewer.
pub fn section(doc: &Document, lang: Lang, record: &Record, prefix: &str) -> Element {
    let model = timeline(record);
    let wrap = el(doc, "section", "lv-timeline", None);
    let mut t = Tree::new();
    let heading = t.el(ROOT, "h3", "lv-h lv-tl-h");
    t.text(heading, tl(lang, TlMsg::Heading));
    let scroll = t.el(ROOT, "div", "lv-tl-scroll");
    let counted = draw(&mut t, scroll, lang, &model, prefix);
    let hint = t.el(ROOT, "p", "lv-tl-hint");
    t.attr(hint, "data-timeline-hint", "");
    t.attr(hint, "aria-hidden", "true");
    t.text(hint, tl(lang, TlMsg::ScrollHint));
    legend(&mut t, ROOT, lang, &model, counted);
    let (alt, keys) = described_by(prefix);
    for (id, words, data) in [
        (&alt, alt_text(lang, &model), "data-timeline-alt"),
        (
            &keys,
            tl(lang, TlMsg::KeysHint).to_string(),
            "data-timeline-keys",
        ),
    ] {
        let p = t.el(ROOT, "p", "lv-sr");
        t.attr(p, "id", id);
        t.attr(p, data, "");
        t.text(p, &words);
    }
    t.build(&wrap);
    wrap
}

/// The position text of no step: "12 steps · select a step in the timeline".
pub(super) fn no_position(lang: Lang, steps: usize) -> String {
    let msg = if steps == 1 {
        TlMsg::NoPositionOne
    } else {
        TlMsg::NoPosition
    };
    fill_n(tl(lang, msg), &[&group(steps)])
}

/// A refused step drawn alone, or refused steps close together drawn as one mark.
enum Mark {
    One {
        step: usize,
        code: &'static str,
    },
    Bucket {
        from: usize,
        to: usize,
        count: usize,
    },
}

/// A mark, and where its label goes (start in hundredths, line), if it has room.
type Placed = (Mark, Option<(u64, u64)>);

/// The refused marks, left to right, each with its label's place (start in hundredths, line)
/// if it has room; and the number of label lines used. Counts are placed first: a code that
/// finds no room is left out, a count never.
fn refused_marks(model: &Timeline, g: &Geometry, col: u64) -> (Vec<Placed>, u64) {
    let (left, right) = g.plot();
    let mut buckets: Vec<(u64, Vec<(usize, &'static str)>)> = Vec::new();
    for &(step, code) in &model.refused {
        let bucket = (g.x(step) + col / 2 - left) / BUCKET;
        match buckets.last_mut() {
            Some((b, steps)) if *b == bucket => steps.push((step, code)),
            _ => buckets.push((bucket, vec![(step, code)])),
        }
    }
    // Each mark with its label's span (start, width), in hundredths.
    let mut marks: Vec<(Mark, u64, u64)> = Vec::new();
    for (bucket, steps) in buckets {
        let (mark, center, w) = match steps.as_slice() {
            [(step, code)] => (
                Mark::One { step: *step, code },
                g.x(*step) + col / 2,
                small_w(code),
            ),
            _ => {
                let count = steps.len();
                let mark = Mark::Bucket {
                    from: steps[0].0,
                    to: steps[steps.len() - 1].0,
                    count,
                };
                let center = (left + bucket * BUCKET + BUCKET / 2).min(right);
                (mark, center, small_w(&group(count)))
            }
        };
        let start = center
            .saturating_sub(w / 2)
            .max(left + 200)
            .min(((WIDTH - 2) * 100).saturating_sub(w));
        marks.push((mark, start, w));
    }
    let mut lines: Vec<Vec<(u64, u64)>> = Vec::new();
    let mut places = vec![None; marks.len()];
    for counts in [true, false] {
        for (i, (mark, start, w)) in marks.iter().enumerate() {
            if matches!(mark, Mark::Bucket { .. }) != counts {
                continue;
            }
            let (start, end) = (*start, start + w);
            let free = |line: &Vec<(u64, u64)>| {
                line.iter()
                    .all(|&(s, e)| end + 600 <= s || e + 600 <= start)
            };
            let line = match lines.iter().position(free) {
                Some(line) => Some(line),
                None if lines.len() < MAX_LEVELS || counts => {
                    lines.push(Vec::new());
                    Some(lines.len() - 1)
                }
                None => None,
            };
            if let Some(line) = line {
                lines[line].push((start, end));
                places[i] = Some((start, line as u64));
            }
        }
    }
    let levels = lines.len() as u64;
    let out = marks
        .into_iter()
        .zip(places)
        .map(|((mark, _, _), place)| (mark, place))
        .collect();
    (out, levels)
}

/// The drawing and its row labels; whether some refused steps are drawn counted together.
fn draw(t: &mut Tree, parent: N, lang: Lang, model: &Timeline, prefix: &str) -> bool {
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
    let (marks, levels) = refused_marks(model, &g, col);
    let band = if model.refused.is_empty() {
        0
    } else {
        18 + levels * CODE_H + 6
    };
    let height = rows_end + band + 4;

    // The row labels, over the drawing's left edge; they stay in view when it scrolls.
    let labels = t.svg(parent, "svg", "lv-tl-labels");
    for (name, value) in [
        ("aria-hidden", "true"),
        ("width", &label_w.to_string()),
        ("height", &height.to_string()),
        ("viewBox", &format!("0 0 {label_w} {height}")),
    ] {
        t.attr(labels, name, value);
    }
    t.rect(labels, "lv-tl-labels-bg", (0, 0), (label_w * 100, height));

    let root = t.svg(parent, "svg", "lv-tl-svg");
    let (alt, keys) = described_by(prefix);
    for (name, value) in [
        ("role", "slider"),
        ("tabindex", "0"),
        ("data-timeline", ""),
        ("data-steps", &model.steps.to_string()),
        ("data-plot-x", &g.label_w.to_string()),
        ("data-plot-w", &g.plot_w.to_string()),
        ("aria-label", tl(lang, TlMsg::SliderLabel)),
        ("aria-describedby", &format!("{alt} {keys}")),
        ("aria-valuemin", "1"),
        ("aria-valuemax", &model.steps.to_string()),
        ("aria-valuenow", "1"),
        ("aria-valuetext", &no_position(lang, model.steps)),
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
        if n * col >= 4_000 {
            break;
        }
    }
    let axis = t.svg(root, "g", "lv-tl-axis");
    let (left, _) = g.plot();
    let mut grid = String::new();
    for s in 0..model.steps {
        let number = s as u64 + 1;
        if s != 0 && !number.is_multiple_of(every) {
            continue;
        }
        let center = g.x(s) + col / 2;
        let label = group(number as usize);
        let w = small_w(&label);
        // Whole inside the plot: anchored at its end near the right edge, its start near the
        // left one.
        let (x, anchor) = if center + w / 2 > (WIDTH - 2) * 100 {
            ((WIDTH - 2) * 100, "end")
        } else if center < left + w / 2 {
            (left, "start")
        } else {
            (center, "middle")
        };
        let tick = t.svg_text(axis, "lv-tl-tick", x, 15, &label);
        t.attr(tick, "text-anchor", anchor);
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
            t.svg_text(
                labels,
                "lv-tl-group",
                400,
                y + 15,
                &group_label(lang, group),
            );
            for svg in [labels, root] {
                let line = t.svg(svg, "path", "lv-tl-sep");
                t.attr(line, "d", &format!("M0,{}H{}", y, WIDTH - PAD_RIGHT));
            }
            y += GROUP_H;
        }
        for row in &group.rows {
            let class = if row.untouched {
                "lv-tl-label lv-tl-untouched"
            } else {
                "lv-tl-label"
            };
            let label = clip(&row_label(lang, row), g.label_w - 12);
            t.svg_text(labels, class, 400, y + 16, &label);
            draw_row(t, root, prefix, &g, row, y);
            y += ROW_H;
        }
    }

    // Refused steps: alone, a guide through the rows, a cross on the band and the code; close
    // together, one bar on the band with their count.
    if !model.refused.is_empty() {
        t.svg_text(
            labels,
            "lv-tl-label lv-tl-band",
            400,
            y + 14,
            tl(lang, TlMsg::RefusedBand),
        );
        for (mark, label) in &marks {
            let text_y = |level: u64| y + 28 + level * CODE_H;
            match *mark {
                Mark::One { step, code } => {
                    let center = g.x(step) + col / 2;
                    let m = t.svg(root, "g", "lv-tl-refused");
                    t.attr(m, "data-refused-step", &step.to_string());
                    t.attr(m, "data-code", code);
                    let guide = t.svg(m, "path", "lv-tl-guide");
                    t.attr(
                        guide,
                        "d",
                        &format!("M{},{}V{}", px(center), AXIS_H, rows_end),
                    );
                    let cross = t.svg(m, "path", "lv-tl-cross");
                    let d = format!(
                        "M{},{}l8,8m0,-8l-8,8",
                        px(center.saturating_sub(400)),
                        y + 6
                    );
                    t.attr(cross, "d", &d);
                    if let Some((start, level)) = *label {
                        t.svg_text(m, "lv-tl-code", start, text_y(level), code);
                    }
                }
                Mark::Bucket { from, to, count } => {
                    let m = t.svg(root, "g", "lv-tl-refused lv-tl-bucket");
                    t.attr(m, "data-refused-bucket", "");
                    t.attr(m, "data-from", &from.to_string());
                    t.attr(m, "data-to", &to.to_string());
                    t.attr(m, "data-count", &count.to_string());
                    let w = (g.x(to + 1) - g.x(from)).max(400);
                    let x = (g.x(from) + g.x(to + 1)) / 2 - w / 2;
                    t.rect(m, "lv-tl-bucket-bar", (x, y + 5), (w, 10));
                    if let Some((start, level)) = *label {
                        t.svg_text(m, "lv-tl-count", start, text_y(level), &group(count));
                    }
                }
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
    marks
        .iter()
        .any(|(mark, _)| matches!(mark, Mark::Bucket { .. }))
}

fn draw_row(t: &mut Tree, parent: N, prefix: &str, g: &Geometry, row: &Row, top: u64) {
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
    for segment in &row.segments {
        let x = g.x(segment.from);
        let mut w = g.x(segment.to + 1) - x;
        if !matches!(segment.state, State::Idle) {
            // A one-step run in a long record is still visible.
            w = w.max(100);
        }
        let r = shape(t, group, prefix, segment.state, (x, w), top);
        t.attr(r, "data-segment", "");
        t.attr(r, "data-state", segment.state.as_str());
        t.attr(r, "data-from", &segment.from.to_string());
        t.attr(r, "data-to", &segment.to.to_string());
        let (bar, fill) = look(segment.state);
        if let Some(run) = segment.run
            && bar == Bar::Full
            && (text_w(run) + 10) * 100 <= w
        {
            // White on the solid bar; on a pattern, text with a halo.
            let class = match fill {
                Fill::Class(_) => "lv-tl-runlabel",
                Fill::Pattern(_) => "lv-tl-runlabel lv-tl-halo",
            };
            t.svg_text(group, class, x + 500, top + 16, run);
        }
    }
}

/// The legend, in the viewer's language: the states this record can show, and the marks.
fn legend(t: &mut Tree, parent: N, lang: Lang, model: &Timeline, counted: bool) {
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
        t.text(item, tl(lang, msg));
    }
}

/// Rows beyond this many spans are summarised in the text alternative.
const ALT_SPANS: usize = 6;

/// What the timeline shows, in words: every row's spans, then the refused steps.
pub fn alt_text(lang: Lang, t: &Timeline) -> String {
    let intro = if t.steps == 1 {
        TlMsg::AltIntroOne
    } else {
        TlMsg::AltIntro
    };
    let mut out = fill_n(tl(lang, intro), &[&group(t.steps)]);
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
            let (from, to) = (group(s.from + 1), group(s.to + 1));
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
            let more = group(row.segments.len() - ALT_SPANS);
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
            let step = group(step + 1);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::model::fixtures::stop_record;

    #[test]
    fn no_two_states_are_drawn_alike() {
        let mut states = vec![State::Idle, State::Running, State::StopRequested];
        states.extend(ReservationState::ALL.map(State::Reservation));
        for (i, a) in states.iter().enumerate() {
            for b in &states[..i] {
                assert_ne!(look(*a), look(*b), "{a:?} and {b:?}");
            }
        }
    }

    #[test]
    fn the_geometry_maps_steps_to_columns() {
        let g = Geometry {
            steps: 3,
            label_w: 100,
            plot_w: 100,
        };
        assert_eq!((g.x(0), g.x(1), g.x(3)), (10_000, 13_333, 20_000));
    }

    #[test]
    fn refused_steps_close_together_are_one_mark_with_their_count() {
        let record = stop_record();
        let mut model = timeline(&record);
        model.steps = 10_000;
        model.refused = (0..1_000).map(|i| (i * 10, "PROJECT_BUSY")).collect();
        model.refused.push((9_999, "LEASE_NOT_CURRENT"));
        let g = Geometry {
            steps: 10_000,
            label_w: 100,
            plot_w: WIDTH - 100 - PAD_RIGHT,
        };
        let (marks, levels) = refused_marks(&model, &g, g.plot_w * 100 / 10_000);
        assert!(marks.len() < 40, "{} marks", marks.len());
        assert!(levels <= MAX_LEVELS as u64);
        let counted: usize = marks
            .iter()
            .map(|(m, _)| match m {
                Mark::One { .. } => 1,
                Mark::Bucket { count, .. } => *count,
            })
            .sum();
        assert_eq!(counted, 1_001);
        // Every count has its label.
        assert!(
            marks
                .iter()
                .all(|(m, label)| matches!(m, Mark::One { .. }) || label.is_some())
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
}
