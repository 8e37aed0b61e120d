//! The find box's matches on the timeline: a thin mark over the rows for every pixel column
//! that holds matching steps, with how many it holds, so a query's matches are seen over the
//! whole record at any size (a million matches are a few hundred marks).

use super::geometry::{AXIS_H, Geometry};
use crate::tree::{N, Tree};

/// The marks' height in px; they sit on the rows' top edge, under the axis labels.
const MARK_H: u64 = 4;

/// Draws a mark under `parent` for each pixel column of `g` that holds steps of `steps`
/// (matches, in order; those outside its window are left out):
/// `[data-find-mark][data-from][data-to][data-count]` (steps from 0, `to` inclusive). Returns
/// how many marks were drawn.
pub fn found_marks(t: &mut Tree, parent: N, g: &Geometry, steps: &[u32]) -> usize {
    // Those the drawing shows.
    let steps = g.window.part(steps, |&s| s as usize);
    let mut marks = 0;
    let mut at = 0;
    while let Some(&first) = steps.get(at) {
        let column = g.x(first as usize) / 100;
        // Every following match in the same pixel column.
        let mut last = at;
        while steps
            .get(last + 1)
            .is_some_and(|&s| g.x(s as usize) / 100 == column)
        {
            last += 1;
        }
        let (from, to) = (first as usize, steps[last] as usize);
        let x = g.x(from);
        let w = (g.x(to + 1) - x).max(200);
        let mark = t.rect(
            parent,
            "lv-tl-found-mark",
            (x, AXIS_H - MARK_H),
            (w, MARK_H),
        );
        t.attr(mark, "data-find-mark", "");
        t.attr_number(mark, "data-from", from as u64);
        t.attr_number(mark, "data-to", to as u64);
        t.attr_number(mark, "data-count", (last - at + 1) as u64);
        marks += 1;
        at = last + 1;
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::{ROOT, html};

    fn plot(steps: u64) -> Geometry<'static> {
        Geometry {
            steps,
            label_w: 100,
            plot_w: 700,
            edges: None,
            window: super::super::zoom::Window::whole(steps as usize),
        }
    }

    #[test]
    fn a_few_steps_are_a_mark_each_over_their_columns() {
        let mut t = Tree::new();
        assert_eq!(found_marks(&mut t, ROOT, &plot(7), &[1, 2, 6]), 3);
        let html = html::write(&t);
        assert!(
            html.starts_with("<rect class=\"lv-tl-found-mark\" x=\"200\" y=\"18\" width=\"100\" height=\"4\" data-find-mark=\"\" data-from=\"1\" data-to=\"1\" data-count=\"1\">"),
            "{html}"
        );
    }

    #[test]
    fn a_million_matches_are_one_mark_per_pixel_with_their_count() {
        let steps: Vec<u32> = (0..1_000_000).collect();
        let mut t = Tree::new();
        let marks = found_marks(&mut t, ROOT, &plot(1_000_000), &steps);
        assert_eq!(marks, 700);
        let html = html::write(&t);
        assert_eq!(html.matches("data-find-mark").count(), 700);
        let counted: u64 = html
            .split("data-count=\"")
            .skip(1)
            .map(|s| s.split('"').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(counted, 1_000_000);
        let mut t = Tree::new();
        assert_eq!(found_marks(&mut t, ROOT, &plot(10), &[]), 0);
        assert!(t.is_empty());
    }
}
