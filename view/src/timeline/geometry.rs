//! Where things go in the timeline's drawing: its size, its rows, the step ↔ x mapping
//! ([`Geometry`]) and the estimated widths of its texts. Coordinates are integer hundredths of
//! a pixel (no float formatting in the wasm).

use project_lanes::record::Record;

use super::zoom::Window;

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
pub struct Geometry<'a> {
    /// The record's steps.
    pub steps: u64,
    /// The width of the label column, in SVG units.
    pub label_w: u64,
    /// The width of the plot, in SVG units; it starts at `label_w`.
    pub plot_w: u64,
    /// On a time axis, [`time_edges`]; `None` for one column per step.
    pub edges: Option<&'a [u64]>,
    /// The steps drawn, spread over the whole plot.
    pub window: Window,
}

impl Geometry<'_> {
    /// x of the left edge of `step` (or the right edge of the plot for the window's end), in
    /// hundredths; a step outside the window is at the plot's nearer edge.
    pub fn x(&self, step: usize) -> u64 {
        let Window { from, to } = self.window;
        let step = step.clamp(from, to);
        if let Some(edges) = self.edges {
            let last = edges.last().copied().unwrap_or(0);
            let edge = |s: usize| edges.get(s).copied().unwrap_or(last);
            let span = (edge(to) - edge(from)).max(1);
            // In floating point: times times widths overflow 64 bits, and 128-bit division
            // costs the viewer a kilobyte of code.
            let offset =
                (edge(step) - edge(from)) as f64 * (self.plot_w * 100) as f64 / span as f64;
            return self.label_w * 100 + offset as u64;
        }
        let (k, len) = ((step - from) as u64, (to - from).max(1) as u64);
        (self.label_w + k * self.plot_w / len) * 100 + (k * self.plot_w % len) * 100 / len
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
        let Window { from, to } = self.window;
        if from >= to || x < self.x(from) || x >= self.x(to) {
            return None;
        }
        // The last step whose left edge is at or before x.
        let (mut lo, mut hi) = (from, to);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if self.x(mid) <= x { lo = mid } else { hi = mid }
        }
        Some(lo)
    }

    /// On a time axis, the window's start and end in milliseconds from the first step (the
    /// end is the next step's time, or the record's end); `(0, 0)` on a step axis.
    pub(super) fn time_span(&self) -> (u64, u64) {
        let Some(edges) = self.edges else {
            return (0, 0);
        };
        let last = edges.last().copied().unwrap_or(0);
        let edge = |s: usize| edges.get(s).copied().unwrap_or(last);
        (edge(self.window.from), edge(self.window.to))
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
            window: Window::whole(3),
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
            edges: Some(&[0, 100, 400, 533]),
            window: Window::whole(3),
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
            edges: Some(&[0, 50, 50, 100]),
            window: Window::whole(3),
        };
        assert_eq!(g.step_at(5_000), Some(2));
    }

    #[test]
    fn a_window_is_spread_over_the_whole_plot() {
        let g = Geometry {
            steps: 1_000,
            label_w: 100,
            plot_w: 100,
            edges: None,
            window: Window { from: 500, to: 504 },
        };
        assert_eq!((g.x(500), g.x(501), g.x(504)), (10_000, 12_500, 20_000));
        assert_eq!(
            (g.x(0), g.x(999)),
            (10_000, 20_000),
            "outside: at the edges"
        );
        assert_eq!(g.step_at(10_000), Some(500));
        assert_eq!(g.step_at(19_999), Some(503));
        assert_eq!(g.step_at(20_000), None);
        // On a time axis: steps 1 and 2, from 100 to 400 ms.
        let g = Geometry {
            steps: 3,
            label_w: 0,
            plot_w: 300,
            edges: Some(&[0, 100, 400, 533]),
            window: Window { from: 1, to: 2 },
        };
        assert_eq!((g.x(1), g.x(2), g.x(0)), (0, 30_000, 0));
        assert_eq!(g.step_at(29_999), Some(1));
    }
}
