//! How each state is drawn: its bar's height and its fill (a CSS class, or a pattern), the
//! patterns themselves, and a segment's shape. No two states share both, so each reads in
//! greyscale too; the legend's swatches (CSS) are the same.

use project_lanes::dispatch::ReservationState;

use super::model::State;
use crate::tree::{N, Tree};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Bar {
    Full,
    Mid,
    Thin,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Fill {
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
pub(super) fn look(state: State) -> (Bar, Fill) {
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
/// The patterns of the patterned states, once per drawing (ids carry the panel's prefix).
pub(super) fn patterns(t: &mut Tree, root: N, prefix: &str) {
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
pub(super) fn shape(
    t: &mut Tree,
    parent: N,
    prefix: &str,
    state: State,
    (x, w): (u64, u64),
    top: u64,
) -> N {
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
#[cfg(test)]
mod tests {
    use super::*;

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
}
