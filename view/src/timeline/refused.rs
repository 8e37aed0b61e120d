//! Refused steps on the band under the rows: a step alone is a guide through the rows, a cross
//! on the band and its code; steps closer together than a [`BUCKET`] are one bar with their
//! count. Labels (codes, counts) take up to [`MAX_LEVELS`] lines; counts are placed first.

use super::geometry::{AXIS_H, BUCKET, CODE_H, Geometry, MAX_LEVELS, WIDTH, small_w};
use crate::i18n::group;
use crate::tree::{N, Tree, px};

/// A refused step drawn alone, or refused steps close together drawn as one mark.
pub(super) enum Mark {
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
pub(super) type Placed = (Mark, Option<(u64, u64)>);

/// The refused marks, left to right, each with its label's place (start in hundredths, line)
/// if it has room; and the number of label lines used. Counts are placed first: a code that
/// finds no room is left out, a count never.
pub(super) fn refused_marks(
    refused: &[(usize, &'static str)],
    g: &Geometry,
    col: u64,
) -> (Vec<Placed>, u64) {
    let (left, right) = g.plot();
    let mut buckets: Vec<(u64, Vec<(usize, &'static str)>)> = Vec::new();
    for &(step, code) in refused {
        let bucket = (g.center(step, col) - left) / BUCKET;
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
                g.center(*step, col),
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

/// Where the band is: its top (px), the bottom of the rows (px) and a column's width
/// (hundredths).
pub(super) struct Band {
    pub top: u64,
    pub rows_end: u64,
    pub col: u64,
}

/// Draws the marks into `root` (the drawing's SVG).
pub(super) fn draw_marks(t: &mut Tree, root: N, g: &Geometry, band: &Band, marks: &[Placed]) {
    let Band {
        top: y,
        rows_end,
        col,
    } = *band;
    // Every mark whole inside the plot: a step at the record's first instant (or in a column
    // narrower than the cross) is drawn as near its moment as the plot allows.
    let (left, right) = g.plot();
    for (mark, label) in marks {
        let text_y = |level: u64| y + 28 + level * CODE_H;
        match *mark {
            Mark::One { step, code } => {
                let center = g.center(step, col).max(left + 400).min(right - 400);
                let m = t.svg(root, "g", "lv-tl-refused");
                t.attr_number(m, "data-refused-step", step as u64);
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
                t.attr_number(m, "data-from", from as u64);
                t.attr_number(m, "data-to", to as u64);
                t.attr_number(m, "data-count", count as u64);
                let w = (g.x(to + 1) - g.x(from)).max(400);
                let x = ((g.x(from) + g.x(to + 1)) / 2)
                    .saturating_sub(w / 2)
                    .max(left)
                    .min(right.saturating_sub(w));
                t.rect(m, "lv-tl-bucket-bar", (x, y + 5), (w, 10));
                if let Some((start, level)) = *label {
                    t.svg_text(m, "lv-tl-count", start, text_y(level), &group(count));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::geometry::PAD_RIGHT;
    use super::super::model::{fixtures::stop_record, timeline};
    use super::*;

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
            edges: None,
            window: super::super::zoom::Window::whole(10_000),
        };
        let (marks, levels) = refused_marks(&model.refused, &g, g.plot_w * 100 / 10_000);
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
}
