//! Where things go in the timeline's drawing: its size, its rows, the step ↔ x mapping
//! ([`Geometry`]) and the estimated widths of its texts. Coordinates are integer hundredths of
//! a pixel (no float formatting in the wasm).

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
        };
        assert_eq!((g.x(0), g.x(1), g.x(3)), (10_000, 13_333, 20_000));
    }
}
