//! Drawing the timeline: the section with its heading, the SVG of rows and segments with its
//! axis and refused steps, the row labels that stay in view while the drawing scrolls sideways,
//! the note that it scrolls, the legend and the text alternative.
//!
//! The drawing's natural size is [`WIDTH`] px with 12 px text; the stylesheet fits it to its box
//! down to a readable size, below which it scrolls sideways, and its row labels are a second
//! SVG over its left edge, drawn at its scale, that stays put (`position: sticky`).

use project_lanes::record::Record;

use super::alt::alt_text;
use super::geometry::{
    AXIS_H, Axis, CODE_H, GROUP_H, Geometry, PAD_RIGHT, ROW_H, WIDTH, clip, small_w, text_w,
    time_edges,
};
use super::labels::{group_label, no_position, row_label};
use super::legend::legend;
use super::look::{Bar, Fill, look, patterns, shape};
use super::model::{Row, RowKind, State, Timeline, timeline};
use super::refused::{Band, Mark, draw_marks, refused_marks};
use crate::i18n::{Lang, TlMsg, group, text};
use crate::time::{Local, Utc, Zone};
use crate::tree::{N, Tree, push_number, push_px};

/// The ids of the hidden text alternative and keys hint (`aria-describedby` of the drawing).
fn described_by(prefix: &str) -> (String, String) {
    (format!("{prefix}-tl-alt"), format!("{prefix}-tl-keys"))
}

/// The timeline section under `parent`: heading, the drawing with its row labels, the note that
/// it scrolls, its legend, and (for assistive technologies) its text alternative and keys.
/// `prefix` makes ids unique per viewer. One column per step; [`section_on`] draws a record
/// whose steps have times on a time axis too.
pub fn section(t: &mut Tree, parent: N, lang: Lang, record: &Record, prefix: &str) -> N {
    section_on(t, parent, lang, record, prefix, (Axis::Steps, &Utc))
}

/// [`section`] on `axis`, with times in `zone` (the reader's). A record whose steps all have
/// times gets the switch between the two axes (`[data-axis-choice]`) and says which it shows
/// (`data-axis` on the section and the drawing); on others `axis` is ignored.
pub fn section_on(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    record: &Record,
    prefix: &str,
    (axis, zone): (Axis, &dyn Zone),
) -> N {
    let model = timeline(record);
    let edges = time_edges(record);
    let wrap = t.el(parent, "section", "lv-timeline");
    let heading = t.el(wrap, "h3", "lv-h lv-tl-h");
    t.text(heading, text(lang, TlMsg::Heading));
    let time = match edges {
        Some(edges) => {
            t.attr(wrap, "data-axis", axis.as_str());
            switch(t, wrap, lang, axis);
            (axis == Axis::Time).then(|| {
                let first = record.steps.first().and_then(|s| s.at).map(|a| a.millis());
                (edges, first.unwrap_or_default(), zone)
            })
        }
        None => None,
    };
    let scroll = t.el(wrap, "div", "lv-tl-scroll");
    let counted = draw(t, scroll, lang, &model, prefix, time);
    let hint = t.el(wrap, "p", "lv-tl-hint");
    t.attr(hint, "data-timeline-hint", "");
    t.attr(hint, "aria-hidden", "true");
    t.text(hint, text(lang, TlMsg::ScrollHint));
    legend(t, wrap, lang, &model, counted);
    let (alt, keys) = described_by(prefix);
    for (id, words, data) in [
        (&alt, alt_text(lang, &model), "data-timeline-alt"),
        (
            &keys,
            text(lang, TlMsg::KeysHint).to_string(),
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

/// On a time axis: the steps' places ([`time_edges`]), the first step's time and the zone.
type TimeAxis<'a> = (Vec<u64>, u64, &'a dyn Zone);

/// The drawing and its row labels; whether some refused steps are drawn counted together.
fn draw(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    model: &Timeline,
    prefix: &str,
    time: Option<TimeAxis>,
) -> bool {
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
        None => axis(t, root, &g, model.steps, rows_end),
    }

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
        (g.x(0), 20),
        ((g.x(1) - g.x(0)).max(200), rows_end - 20),
    );
    t.attr(marker, "data-current-marker", "");
    t.attr(marker, "display", "none");
    marks
        .iter()
        .any(|(mark, _)| matches!(mark, Mark::Bucket { .. }))
}

/// Step numbers (from 1) at a readable interval, and a light grid down to `rows_end`.
fn axis(t: &mut Tree, root: N, g: &Geometry, steps: usize, rows_end: u64) {
    let col = g.plot_w * 100 / g.steps.max(1);
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
    for s in 0..steps {
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
        push_px(&mut grid, center);
        grid.push_str(",20V");
        push_number(&mut grid, rows_end);
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
    let span = g
        .edges
        .as_ref()
        .and_then(|e| e.last().copied())
        .unwrap_or(1)
        .max(1);
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
}
