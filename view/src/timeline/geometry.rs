//! Where things go in the timeline's drawing: its size, its rows, the step ↔ x mapping
//! ([`Geometry`]) and the estimated widths of its texts. Coordinates are integer hundredths of
//! a pixel (no float formatting in the wasm).

use project_lanes::record::Record;

/// The SVG's width in px.
pub const WIDTH: u64 = 880;
pub(super) const PAD_RIGHT: u64 = 12;
pub(super) const AXIS_H: u64 = 22;
pub(super) const ROW_H: u64 = 24;
pub(super) const GROUP_H: u64 = 20;
pub(super) const CODE_H: u64 = 14;
/// Refused steps whose columns fall in one bucket of this many hundredths of a pixel are drawn
/// as one mark with their count.
pub(super) const BUCKET: u64 = 2_400;
/// Lines of labels (error codes, counts) under the refused marks; a label that fits on none is
/// left out (the step's code is in the mark's `data-code` and in the current step's details).
pub(super) const MAX_LEVELS: usize = 3;
/// Estimated width in px of text at the timeline's 12 px: wide (CJK) characters count double.
pub(super) fn text_w(s: &str) -> u64 {
    s.chars().map(|c| if c.is_ascii() { 7 } else { 13 }).sum()
}

/// Width in hundredths of monospace or digit text at 11 px (codes, counts, step numbers).
pub(super) fn small_w(s: &str) -> u64 {
    s.chars().count() as u64 * 700
}

/// Shortens `s` to about `max` px, with an ellipsis.
pub(super) fn clip(s: &str, max: u64) -> String {
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

/// The timeline's horizontal scale: one column per step, or time (records whose steps all
/// have times).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Axis {
    /// Every step one column of the same width.
    #[default]
    Steps,
    /// Each step from its time to the next step's.
    Time,
}

impl Axis {
    /// `steps` or `time`, as in `data-axis`.
    pub fn as_str(self) -> &'static str {
        match self {
            Axis::Steps => "steps",
            Axis::Time => "time",
        }
    }

    /// `steps` or `time` exactly.
    pub fn from_name(name: &str) -> Option<Axis> {
        match name {
            "steps" => Some(Axis::Steps),
            "time" => Some(Axis::Time),
            _ => None,
        }
    }
}

/// The steps' places on a time axis, in milliseconds from the first step's time: each step's
/// start, then the end (the last step lasts as long as the steps do on average, at least 1 ms).
/// A step saved earlier than the one before it (concurrent callers' clocks) starts where that
/// one does: steps stay in the order they took effect. `None` unless every step has a time.
pub fn time_edges(record: &Record) -> Option<Vec<u64>> {
    let first = record.steps.first()?.at?.millis();
    let mut edges = Vec::with_capacity(record.steps.len() + 1);
    let mut last = 0;
    for step in &record.steps {
        last = (step.at?.millis().saturating_sub(first)).max(last);
        edges.push(last);
    }
    let steps = edges.len() as u64;
    edges.push(last + (last / steps).max(1));
    Some(edges)
}

/// Where things go: the label column, the plot, and the step ↔ x mapping.
pub struct Geometry {
    /// The record's steps.
    pub steps: u64,
    /// The width of the label column, in SVG units.
    pub label_w: u64,
    /// The width of the plot, in SVG units; it starts at `label_w`.
    pub plot_w: u64,
    /// On a time axis, [`time_edges`]; `None` for one column per step.
    pub edges: Option<Vec<u64>>,
}

impl Geometry {
    /// x of the left edge of `step` (or the right edge of the plot for `steps`), in hundredths.
    pub fn x(&self, step: usize) -> u64 {
        if let Some(edges) = &self.edges {
            let end = edges.last().copied().unwrap_or(1).max(1);
            let at = edges.get(step).copied().unwrap_or(end);
            // In floating point: times times widths overflow 64 bits, and 128-bit division
            // costs the viewer a kilobyte of code.
            let offset = at as f64 * (self.plot_w * 100) as f64 / end as f64;
            return self.label_w * 100 + offset as u64;
        }
        (self.label_w + (step as u64).min(self.steps) * self.plot_w / self.steps.max(1)) * 100
            + ((step as u64).min(self.steps) * self.plot_w % self.steps.max(1)) * 100
                / self.steps.max(1)
    }

    /// Where a mark for `step` goes, in hundredths: the middle of its column (`col` wide) with
    /// one column per step; on a time axis, its moment (its column's left edge).
    pub(super) fn center(&self, step: usize, col: u64) -> u64 {
        match self.edges {
            Some(_) => self.x(step),
            None => self.x(step) + col / 2,
        }
    }

    /// The step whose column holds `x` (hundredths), if one does.
    pub fn step_at(&self, x: u64) -> Option<usize> {
        let steps = self.steps as usize;
        if steps == 0 || x < self.x(0) || x >= self.x(steps) {
            return None;
        }
        // The last step whose left edge is at or before x.
        let (mut lo, mut hi) = (0, steps);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if self.x(mid) <= x { lo = mid } else { hi = mid }
        }
        Some(lo)
    }

    /// The plot's left and right edges, in hundredths.
    pub(super) fn plot(&self) -> (u64, u64) {
        (self.label_w * 100, (self.label_w + self.plot_w) * 100)
    }
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_geometry_maps_steps_to_columns() {
        let g = Geometry {
            steps: 3,
            label_w: 100,
            plot_w: 100,
            edges: None,
        };
        assert_eq!((g.x(0), g.x(1), g.x(3)), (10_000, 13_333, 20_000));
        assert_eq!(g.step_at(9_999), None);
        assert_eq!(g.step_at(10_000), Some(0));
        assert_eq!(g.step_at(13_333), Some(1));
        assert_eq!(g.step_at(19_999), Some(2));
        assert_eq!(g.step_at(20_000), None);
    }

    #[test]
    fn on_a_time_axis_a_step_is_as_wide_as_the_time_to_the_next() {
        // Steps at 0, 100 and 400 ms: the last lasts the average, 400 / 3 = 133 ms.
        let g = Geometry {
            steps: 3,
            label_w: 100,
            plot_w: 533,
            edges: Some(vec![0, 100, 400, 533]),
        };
        assert_eq!(
            (g.x(0), g.x(1), g.x(2), g.x(3)),
            (10_000, 20_000, 50_000, 63_300)
        );
        assert_eq!(g.center(1, 0), 20_000, "a mark at the step's moment");
        assert_eq!(g.step_at(19_999), Some(0));
        assert_eq!(g.step_at(49_999), Some(1));
        assert_eq!(g.step_at(63_299), Some(2));
        // Two steps at one moment: a click finds the later one.
        let g = Geometry {
            steps: 3,
            label_w: 0,
            plot_w: 100,
            edges: Some(vec![0, 50, 50, 100]),
        };
        assert_eq!(g.step_at(5_000), Some(2));
    }
}
