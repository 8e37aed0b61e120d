//! Drawing the timeline: the section with its heading, the SVG of rows and segments with its
//! axis and refused steps, the row labels that stay in view while the drawing scrolls sideways,
//! the note that it scrolls, the legend and the text alternative.
//!
//! The drawing's natural size is [`WIDTH`] px with 12 px text; the stylesheet fits it to its box
//! down to a readable size, below which it scrolls sideways, and its row labels are a second
//! SVG over its left edge, drawn at its scale, that stays put (`position: sticky`).

use project_lanes::record::Record;

use super::alt::alt_text_of;
use super::geometry::{
    AXIS_H, Axis, CODE_H, GROUP_H, Geometry, PAD_RIGHT, ROW_H, WIDTH, clip, small_w, text_w,
};
use super::labels::{group_label, no_position, row_label};
use super::legend::legend;
use super::look::{Bar, Fill, look, patterns, shape};
use super::model::{Group, Row, RowKind, Segment, State, Timeline, timeline};
use super::refused::{Band, Mark, draw_marks, refused_marks};
use super::rows::{self, MAX_ROWS, Rows};
use super::zoom::{MIN_STEPS, Window, Zoom};
use crate::i18n::{Lang, TlMsg, fill, group, text};
use crate::time::{Local, Utc, Zone};
use crate::tree::{N, Tree, push_number, push_px};

/// The ids of the hidden text alternative and keys hint (`aria-describedby` of the drawing).
fn described_by(prefix: &str) -> (String, String) {
    (format!("{prefix}-tl-alt"), format!("{prefix}-tl-keys"))
}

/// How the timeline is drawn: on which axis, times in which zone (the reader's), and which
/// steps ([`Window`]; `None` for the whole record).
#[derive(Clone, Copy)]
pub struct Drawing<'a> {
    /// One column per step, or time (records whose steps all have times; ignored for others).
    pub axis: Axis,
    /// The zone of the times on a time axis.
    pub zone: &'a dyn Zone,
    /// The steps drawn.
    pub window: Option<Window>,
    /// The first row drawn (of more than [`MAX_ROWS`]; from 0, over every group).
    pub rows: usize,
    /// The record's timeline model, if the caller keeps it (building it costs the record's
    /// steps; drawing a window of it does not); `None`: built here.
    pub model: Option<&'a Timeline<'a>>,
}

impl<'a> Drawing<'a> {
    /// The whole record on `axis`, times in `zone`, from its first row.
    pub fn new(axis: Axis, zone: &'a dyn Zone) -> Drawing<'a> {
        Drawing {
            axis,
            zone,
            window: None,
            rows: 0,
            model: None,
        }
    }
}

/// The timeline section under `parent`: heading, the drawing with its row labels, the note that
/// it scrolls, its legend, and (for assistive technologies) its text alternative and keys.
/// `prefix` makes ids unique per viewer. One column per step, the whole record; [`section_on`]
/// draws a window of it, and a record whose steps have times on a time axis too.
pub fn section(t: &mut Tree, parent: N, lang: Lang, record: &Record, prefix: &str) -> N {
    section_on(
        t,
        parent,
        lang,
        record,
        prefix,
        Drawing::new(Axis::Steps, &Utc),
    )
}

/// [`section`] as `drawing` says. A record whose steps all have times gets the switch between
/// the two axes (`[data-axis-choice]`) and says which it shows (`data-axis` on the section and
/// the drawing); on others the axis is ignored. A record of more than [`MIN_STEPS`] steps gets
/// the zoom buttons (`[data-zoom]`) and the line that says which steps are drawn.
pub fn section_on(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    record: &Record,
    prefix: &str,
    drawing: Drawing,
) -> N {
    let Drawing {
        axis,
        zone,
        window,
        rows,
        model,
    } = drawing;
    let built;
    let model = match model {
        Some(model) => model,
        None => {
            built = timeline(record);
            &built
        }
    };
    let steps = model.steps;
    let window = window.unwrap_or(Window::whole(steps)).within(steps);
    let edges = model.edges.as_deref();
    let wrap = t.el(parent, "section", "lv-timeline");
    let heading = t.el(wrap, "h3", "lv-h lv-tl-h");
    t.text(heading, text(lang, TlMsg::Heading));
    let controls =
        (edges.is_some() || steps > MIN_STEPS).then(|| t.el(wrap, "div", "lv-tl-controls"));
    let controls = controls.unwrap_or(wrap);
    let time = match edges {
        Some(edges) => {
            t.attr(wrap, "data-axis", axis.as_str());
            switch(t, controls, lang, axis);
            (axis == Axis::Time).then(|| {
                let first = record.steps.first().and_then(|s| s.at).map(|a| a.millis());
                (edges, first.unwrap_or_default(), zone)
            })
        }
        None => None,
    };
    let all_rows = model.rows().count();
    let controls = match (all_rows > MAX_ROWS, controls) {
        (true, parent) if parent == wrap => t.el(wrap, "div", "lv-tl-controls"),
        (_, parent) => parent,
    };
    let keys_hint = if steps > MIN_STEPS {
        zoom_buttons(t, controls, lang, window, steps);
        TlMsg::KeysHintZoom
    } else {
        TlMsg::KeysHint
    };
    let drawn_rows = rows::drawn(rows, all_rows);
    if all_rows > MAX_ROWS {
        row_buttons(t, controls, lang, drawn_rows, all_rows);
    }
    let scroll = t.el(wrap, "div", "lv-tl-scroll");
    let counted = draw(t, scroll, (lang, prefix), model, (window, rows), time);
    let hint = t.el(wrap, "p", "lv-tl-hint");
    t.attr(hint, "data-timeline-hint", "");
    t.attr(hint, "aria-hidden", "true");
    t.text(hint, text(lang, TlMsg::ScrollHint));
    legend(t, wrap, lang, model, (counted.refused, counted.dense));
    let (alt, keys) = described_by(prefix);
    for (id, words, data) in [
        (
            &alt,
            alt_text_of(lang, model, window, drawn_rows),
            "data-timeline-alt",
        ),
        (
            &keys,
            text(lang, keys_hint).to_string(),
            "data-timeline-keys",
        ),
    ] {
        let p = t.el(wrap, "p", "lv-sr");
        t.attr(p, "id", id);
        t.attr(p, data, "");
        t.text(p, &words);
    }
    wrap
}

/// The label column's width: it fits the longest label in either language, so both draw alike.
fn label_width(model: &Timeline) -> u64 {
    let dispatcher = model.groups.len() > 1;
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
        longest = longest.max(text_w(text(l, TlMsg::RefusedBand)));
    }
    (longest + 16).clamp(72, 220)
}

/// The two buttons that switch the axis, the one shown pressed.
fn switch(t: &mut Tree, parent: N, lang: Lang, axis: Axis) {
    let group = t.el(parent, "div", "lv-tl-axes");
    t.attr(group, "role", "group");
    t.attr(group, "aria-label", text(lang, TlMsg::AxisLabel));
    for (choice, words) in [
        (Axis::Steps, TlMsg::AxisSteps),
        (Axis::Time, TlMsg::AxisTime),
    ] {
        let button = t.el(group, "button", "lv-tl-axis-choice");
        t.attr(button, "type", "button");
        t.attr(button, "data-axis-choice", choice.as_str());
        t.attr(
            button,
            "aria-pressed",
            if choice == axis { "true" } else { "false" },
        );
        t.text(button, text(lang, words));
    }
}

/// The zoom buttons (`aria-disabled` where they would change nothing) and the line that says
/// which steps are drawn.
fn zoom_buttons(t: &mut Tree, parent: N, lang: Lang, window: Window, steps: usize) {
    let buttons = t.el(parent, "div", "lv-tl-zoom");
    t.attr(buttons, "role", "group");
    t.attr(buttons, "aria-label", text(lang, TlMsg::ZoomLabel));
    for (zoom, words, sign) in [
        (Zoom::In, TlMsg::ZoomIn, "+ "),
        (Zoom::Out, TlMsg::ZoomOut, "− "),
        (Zoom::Whole, TlMsg::ZoomWhole, ""),
    ] {
        let button = t.el(buttons, "button", "lv-tl-zoom-button");
        t.attr(button, "type", "button");
        t.attr(button, "data-zoom", zoom.as_str());
        let can = window.can(zoom, steps);
        t.attr(button, "aria-disabled", if can { "false" } else { "true" });
        t.text(button, &format!("{sign}{}", text(lang, words)));
    }
    let shown = t.el(buttons, "span", "lv-tl-window");
    t.attr(shown, "data-zoom-window", "");
    let words = fill(
        text(lang, TlMsg::ZoomWindow),
        &[&group(window.from + 1), &group(window.to), &group(steps)],
    );
    t.text(shown, &words);
}

/// The buttons that show earlier and later rows (`aria-disabled` at either end), and the line
/// that says which rows are drawn (`first..end` of `rows`).
fn row_buttons(t: &mut Tree, parent: N, lang: Lang, (first, end): (usize, usize), rows: usize) {
    let buttons = t.el(parent, "div", "lv-tl-rows");
    t.attr(buttons, "role", "group");
    t.attr(buttons, "aria-label", text(lang, TlMsg::RowsLabel));
    for (which, words, can) in [
        (Rows::Earlier, TlMsg::RowsEarlier, first > 0),
        (Rows::Later, TlMsg::RowsLater, end < rows),
    ] {
        let button = t.el(buttons, "button", "lv-tl-zoom-button");
        t.attr(button, "type", "button");
        t.attr(button, "data-rows", which.as_str());
        t.attr(button, "aria-disabled", if can { "false" } else { "true" });
        t.text(button, text(lang, words));
    }
    let shown = t.el(buttons, "span", "lv-tl-window");
    t.attr(shown, "data-rows-window", "");
    let words = fill(
        text(lang, TlMsg::RowsWindow),
        &[&group(first + 1), &group(end), &group(rows)],
    );
    t.text(shown, &words);
}

/// On a time axis: the steps' places ([`Timeline::edges`]), the first step's time and the zone.
type TimeAxis<'a> = (&'a [u64], u64, &'a dyn Zone);

/// What the drawing counted together: refused steps close together, runs too close to draw
/// apart (for the legend).
pub(super) struct Counted {
    refused: bool,
    dense: bool,
}

/// The drawing and its row labels, of the steps of `window`.
fn draw(
    t: &mut Tree,
    parent: N,
    (lang, prefix): (Lang, &str),
    model: &Timeline,
    (window, first_row): (Window, usize),
    time: Option<TimeAxis>,
) -> Counted {
    let dispatcher = model.groups.len() > 1;
    let label_w = label_width(model);
    let (edges, time) = match time {
        Some((edges, first, zone)) => (Some(edges), Some((first, zone))),
        None => (None, None),
    };
    let g = Geometry {
        steps: model.steps as u64,
        label_w,
        plot_w: WIDTH - label_w - PAD_RIGHT,
        edges,
        window,
    };
    let col = g.plot_w * 100 / window.len().max(1) as u64;
    // The rows drawn, counted over the groups, and the groups that have some of them (every
    // group when every row is drawn).
    let all_rows: usize = model.groups.iter().map(|g| g.rows.len()).sum();
    let (row_from, row_to) = rows::drawn(first_row, all_rows);
    let shows = |at: usize, group: &Group| {
        all_rows <= MAX_ROWS || (at < row_to && at + group.rows.len() > row_from)
    };
    let mut heads = 0;
    let mut at = 0;
    for group in &model.groups {
        heads += u64::from(dispatcher && shows(at, group));
        at += group.rows.len();
    }
    let rows_end = AXIS_H + heads * GROUP_H + (row_to - row_from) as u64 * ROW_H;
    let refused = window.part(&model.refused, |&(step, _)| step);
    let (marks, levels) = refused_marks(refused, &g, col);
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
        ("data-window-from", &window.from.to_string()),
        ("data-window-to", &window.to.to_string()),
        ("data-rows-from", &row_from.to_string()),
        ("data-rows-to", &row_to.to_string()),
        ("data-plot-x", &g.label_w.to_string()),
        ("data-plot-w", &g.plot_w.to_string()),
        ("aria-label", text(lang, TlMsg::SliderLabel)),
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
    if time.is_some() {
        t.attr(root, "data-axis", "time");
    }
    patterns(t, root, prefix);
    match time {
        Some((first, zone)) => time_axis(t, root, &g, (first, zone, lang), rows_end),
        None => axis(t, root, &g, rows_end),
    }

    // Rows.
    let mut y = AXIS_H;
    let mut dense = false;
    let mut at = 0;
    for group in &model.groups {
        let (first, shown) = (at, shows(at, group));
        at += group.rows.len();
        if !shown {
            continue;
        }
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
        let rows = &group.rows;
        let drawn = row_from.saturating_sub(first).min(rows.len())
            ..row_to.saturating_sub(first).min(rows.len());
        for row in &rows[drawn] {
            let class = if row.untouched {
                "lv-tl-label lv-tl-untouched"
            } else {
                "lv-tl-label"
            };
            let label = clip(&row_label(lang, row), g.label_w - 12);
            t.svg_text(labels, class, 400, y + 16, &label);
            dense |= draw_row(t, root, prefix, &g, row, y);
            y += ROW_H;
        }
    }

    if !model.refused.is_empty() {
        t.svg_text(
            labels,
            "lv-tl-label lv-tl-band",
            400,
            y + 14,
            text(lang, TlMsg::RefusedBand),
        );
        let band = Band {
            top: y,
            rows_end,
            col,
        };
        draw_marks(t, root, &g, &band, &marks);
    }

    // The find box's matches (drawn by the page), under the current step's column.
    let found = t.svg(root, "g", "lv-tl-found");
    t.attr(found, "data-find-marks", "");
    // The current step's column: hidden until a step is selected.
    let marker = t.rect(
        root,
        "lv-tl-current",
        (g.x(window.from), 20),
        (
            (g.x(window.from + 1) - g.x(window.from)).max(200),
            rows_end - 20,
        ),
    );
    t.attr(marker, "data-current-marker", "");
    t.attr(marker, "display", "none");
    Counted {
        refused: marks
            .iter()
            .any(|(mark, _)| matches!(mark, Mark::Bucket { .. })),
        dense,
    }
}

/// Step numbers (from 1) of the window at a readable interval, and a light grid down to
/// `rows_end`.
fn axis(t: &mut Tree, root: N, g: &Geometry<'_>, rows_end: u64) {
    let Window { from, to } = g.window;
    let len = (to - from).max(1) as u64;
    let col = g.plot_w * 100 / len;
    // Labels at least 40 px apart: every 1, 2, 5, 10, 20, 50, … steps (a column of a long
    // record is less than a hundredth of a pixel, so the test multiplies rather than divides).
    let mut every = 1;
    'find: for power in (0..19).map(|p| 10u64.pow(p)) {
        for n in [1, 2, 5] {
            every = n * power;
            if every * g.plot_w * 100 >= 4_000 * len {
                break 'find;
            }
        }
    }
    let axis = t.svg(root, "g", "lv-tl-axis");
    let (left, _) = g.plot();
    let mut grid = String::new();
    // The window's first step, then every multiple of `every` after it.
    let first = from as u64 + 1;
    let mut number = first;
    while number <= to as u64 {
        let s = (number - 1) as usize;
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
        push_px(&mut grid, center);
        grid.push_str(",20V");
        push_number(&mut grid, rows_end);
        number = (number / every + 1) * every;
        // In a window, the first label's neighbour is left out when they would overlap.
        if from > 0 && number < first + every && (number - first) * col < 4_000 {
            number += every;
        }
    }
    let grid_path = t.svg(root, "path", "lv-tl-grid");
    t.attr(grid_path, "d", &grid);
}

/// Times of day in the reader's zone at a readable interval (whole milliseconds, seconds,
/// minutes, hours or days of local time), and a light grid at each down to `rows_end`.
fn time_axis(
    t: &mut Tree,
    root: N,
    g: &Geometry,
    (first, zone, lang): (u64, &dyn Zone, Lang),
    rows_end: u64,
) {
    const SECOND: u64 = 1_000;
    const MINUTE: u64 = 60 * SECOND;
    const HOUR: u64 = 60 * MINUTE;
    const DAY: u64 = 24 * HOUR;
    // The window's span, in milliseconds from its first step.
    let (start, end) = g.time_span();
    let span = (end - start).max(1);
    let first = first + start;
    // Wide enough for the longest label (12:04:05.123, about 84 px) with room around it.
    let min_px = 100;
    let every = [
        1,
        2,
        5,
        10,
        20,
        50,
        100,
        200,
        500,
        SECOND,
        2 * SECOND,
        5 * SECOND,
        10 * SECOND,
        15 * SECOND,
        30 * SECOND,
        MINUTE,
        2 * MINUTE,
        5 * MINUTE,
        10 * MINUTE,
        15 * MINUTE,
        30 * MINUTE,
        HOUR,
        2 * HOUR,
        3 * HOUR,
        6 * HOUR,
        12 * HOUR,
        DAY,
        2 * DAY,
        7 * DAY,
        30 * DAY,
        365 * DAY,
    ]
    .into_iter()
    .find(|&every| every.saturating_mul(g.plot_w) >= span.saturating_mul(min_px))
    .unwrap_or(365 * DAY);
    let digits = match every {
        e if e < SECOND => 3,
        e if e < MINUTE => 2,
        _ => 1,
    };
    let offset = i64::from(zone.offset_minutes(first)) * MINUTE as i64;
    let local_first = first as i64 + offset;
    // The first whole interval of local time at or after the first step.
    let mut tick = local_first.div_euclid(every as i64) * every as i64;
    if tick < local_first {
        tick += every as i64;
    }
    let axis = t.svg(root, "g", "lv-tl-axis");
    let (left, right) = g.plot();
    let mut grid = String::new();
    for _ in 0..64 {
        let Ok(from_first) = u64::try_from(tick - local_first) else {
            break;
        };
        if from_first > span {
            break;
        }
        let at = (tick - offset).max(0) as u64;
        let local = Local::at(at, zone);
        let label = if every >= DAY {
            local.date(lang)
        } else {
            local.clock(digits)
        };
        let x = left + (from_first as f64 * (right - left) as f64 / span as f64) as u64;
        let w = small_w(&label);
        let (tx, anchor) = if x + w / 2 > (WIDTH - 2) * 100 {
            ((WIDTH - 2) * 100, "end")
        } else if x < left + w / 2 {
            (left, "start")
        } else {
            (x, "middle")
        };
        let text = t.svg_text(axis, "lv-tl-tick", tx, 15, &label);
        t.attr(text, "text-anchor", anchor);
        t.attr(text, "data-time-tick", "");
        grid.push('M');
        push_px(&mut grid, x);
        grid.push_str(",20V");
        push_number(&mut grid, rows_end);
        tick += every as i64;
    }
    let grid_path = t.svg(root, "path", "lv-tl-grid");
    t.attr(grid_path, "d", &grid);
}

/// Segments narrower than this (hundredths of a pixel) are counted together with their
/// neighbours, if idle or running: a row is then at most a few hundred marks.
const DENSE_W: u64 = 200;
/// The shades of marks counted together: none of their steps held, then by quarters.
const SHADES: usize = 5;

/// Idle and running segments too narrow to draw apart, counted together: steps `from` to `to`
/// (inclusive), how many segments, and how many of their steps a run held the lane; the first
/// segment (with its steps in the window), drawn as itself if it stays alone.
struct Dense<'s, 'a> {
    from: usize,
    to: usize,
    count: u64,
    busy: u64,
    first: (&'s Segment<'a>, usize, usize),
}

/// A row's marks of one shade: one path, the segments and held steps they count.
#[derive(Default)]
struct Shade {
    d: String,
    count: u64,
    busy: u64,
}

/// Draws the segments of `row` in the window; returns whether some were counted together.
fn draw_row(t: &mut Tree, parent: N, prefix: &str, g: &Geometry, row: &Row, top: u64) -> bool {
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
    let Window { from, to } = g.window;
    let first = row.segments.partition_point(|s| s.to < from);
    let mut dense: Option<Dense> = None;
    let mut shades: [Shade; SHADES] = Default::default();
    // More steps than pixels: even a narrow span alone is counted in its shade (a row of a
    // busy record would otherwise be thousands of slivers).
    let crowded = (to - from) as u64 > g.plot_w;
    let mut flush = |t: &mut Tree, dense: Option<Dense>| {
        let Some(d) = dense else { return };
        if d.count == 1 && !crowded {
            // Alone, where steps have room: drawn as itself.
            let (segment, a, b) = d.first;
            draw_segment(t, group, prefix, g, segment, (a, b), top);
            return;
        }
        let steps = (d.to - d.from + 1) as u64;
        let shade = if d.busy == 0 {
            0
        } else {
            1 + (d.busy * 4 - 1) / steps
        };
        let x = g.x(d.from);
        let w = (g.x(d.to + 1) - x).max(100);
        let s = &mut shades[shade as usize];
        s.d.push('M');
        push_px(&mut s.d, x);
        s.d.push(',');
        push_number(&mut s.d, top + 4);
        s.d.push('h');
        push_px(&mut s.d, w);
        s.d.push_str("v16h-");
        push_px(&mut s.d, w);
        s.d.push('z');
        s.count += d.count;
        s.busy += d.busy;
    };
    for segment in row.segments[first..].iter().take_while(|s| s.from < to) {
        let (a, b) = (segment.from.max(from), segment.to.min(to - 1));
        let w = g.x(b + 1) - g.x(a);
        if w < DENSE_W && matches!(segment.state, State::Idle | State::Running) {
            let d = dense.get_or_insert(Dense {
                from: a,
                to: a,
                count: 0,
                busy: 0,
                first: (segment, a, b),
            });
            d.to = b;
            d.count += 1;
            if segment.state == State::Running {
                d.busy += (b - a + 1) as u64;
            }
            if g.x(d.to + 1) - g.x(d.from) >= DENSE_W {
                flush(t, dense.take());
            }
            continue;
        }
        flush(t, dense.take());
        draw_segment(t, group, prefix, g, segment, (a, b), top);
    }
    flush(t, dense.take());
    let mut counted = false;
    for (n, shade) in shades.iter().enumerate().filter(|(_, s)| s.count > 0) {
        let path = t.svg(group, "path", &format!("lv-tl-dense lv-tl-d{n}"));
        t.attr(path, "d", &shade.d);
        t.attr_number(path, "data-dense", n as u64);
        t.attr_number(path, "data-count", shade.count);
        t.attr_number(path, "data-busy", shade.busy);
        counted = true;
    }
    counted
}

/// One segment (steps `a` to `b` of it, those in the window), with its run's label if it fits.
fn draw_segment(
    t: &mut Tree,
    group: N,
    prefix: &str,
    g: &Geometry,
    segment: &Segment,
    (a, b): (usize, usize),
    top: u64,
) {
    let x = g.x(a);
    let mut w = g.x(b + 1) - x;
    if !matches!(segment.state, State::Idle) {
        // A one-step run in a long record is still visible.
        w = w.max(100);
    }
    let r = shape(t, group, prefix, segment.state, (x, w), top);
    t.attr(r, "data-segment", "");
    t.attr(r, "data-state", segment.state.as_str());
    t.attr_number(r, "data-from", segment.from as u64);
    t.attr_number(r, "data-to", segment.to as u64);
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
