//! The steps the timeline draws: the whole record, or a [`Window`] of it, zoomed in four times
//! at a time around the current step down to [`MIN_STEPS`], and out again. The window keeps its
//! width and moves to hold a current step that leaves it.

/// The fewest steps a window holds (fewer only in a record that has fewer).
pub const MIN_STEPS: usize = 10;
/// How much one zoom in or out changes the window's width.
const FACTOR: usize = 4;

/// A zoom request: from the buttons `[data-zoom=in|out|whole]` or the timeline's keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zoom {
    /// A window a quarter as wide, around the current step.
    In,
    /// A window four times as wide.
    Out,
    /// The whole record.
    Whole,
}

impl Zoom {
    /// Every zoom request, in the buttons' order.
    pub const ALL: [Zoom; 3] = [Zoom::In, Zoom::Out, Zoom::Whole];

    /// `in`, `out` or `whole`, as in `data-zoom`.
    pub fn as_str(self) -> &'static str {
        match self {
            Zoom::In => "in",
            Zoom::Out => "out",
            Zoom::Whole => "whole",
        }
    }

    /// The request a `data-zoom` value names.
    pub fn from_name(name: &str) -> Option<Zoom> {
        Zoom::ALL.into_iter().find(|z| z.as_str() == name)
    }

    /// The request of a key pressed on the timeline: `+` (or `=`, the same key unshifted),
    /// `-` and `0`.
    pub fn of_key(key: &str) -> Option<Zoom> {
        match key {
            "+" | "=" => Some(Zoom::In),
            "-" => Some(Zoom::Out),
            "0" => Some(Zoom::Whole),
            _ => None,
        }
    }
}

/// Steps `from` to `to` (excluded), from 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The first step drawn.
    pub from: usize,
    /// One past the last step drawn.
    pub to: usize,
}

impl Window {
    /// Every step of a record of `steps` steps.
    pub fn whole(steps: usize) -> Window {
        Window { from: 0, to: steps }
    }

    /// How many steps it holds.
    pub fn len(self) -> usize {
        self.to.saturating_sub(self.from)
    }

    /// Whether it holds no step.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// Whether it holds every step of a record of `steps` steps.
    pub fn is_whole(self, steps: usize) -> bool {
        self.from == 0 && self.to >= steps
    }

    /// Whether it holds `step`.
    pub fn holds(self, step: usize) -> bool {
        (self.from..self.to).contains(&step)
    }

    /// The same window inside a record of `steps` steps (a record may have fewer steps than
    /// the window was made for).
    pub fn within(self, steps: usize) -> Window {
        let len = self.len().min(steps);
        let from = self.from.min(steps - len);
        Window {
            from,
            to: from + len,
        }
    }

    /// The window `zoom` asks for in a record of `steps` steps, around `at` (the current
    /// step; the middle of the window when there is none or it is outside): `at` stays where
    /// it was drawn, as far as the record's ends allow.
    pub fn zoom(self, zoom: Zoom, at: Option<usize>, steps: usize) -> Window {
        let len = match zoom {
            Zoom::Whole => return Window::whole(steps),
            Zoom::In => (self.len() / FACTOR).max(MIN_STEPS),
            Zoom::Out => self.len().saturating_mul(FACTOR),
        }
        .min(steps);
        let at = at
            .filter(|&s| self.holds(s))
            .unwrap_or(self.from + self.len() / 2);
        // The share of the window left of `at` stays the same.
        let left = (at - self.from) as u64 * len as u64 / self.len().max(1) as u64;
        let from = at.saturating_sub(left as usize).min(steps - len);
        Window {
            from,
            to: from + len,
        }
    }

    /// Whether `zoom` would change the window.
    pub fn can(self, zoom: Zoom, steps: usize) -> bool {
        match zoom {
            Zoom::In => self.len() > MIN_STEPS.min(steps),
            Zoom::Out | Zoom::Whole => !self.is_whole(steps),
        }
    }

    /// The part of `items` (in step order, by `step`) whose steps it holds.
    pub fn part<T>(self, items: &[T], step: impl Fn(&T) -> usize) -> &[T] {
        let from = items.partition_point(|i| step(i) < self.from);
        let to = items.partition_point(|i| step(i) < self.to).max(from);
        &items[from..to]
    }

    /// The window that holds `step`: this one if it does, else one as wide centred on it.
    pub fn follow(self, step: usize, steps: usize) -> Window {
        if self.holds(step) || step >= steps {
            return self;
        }
        let len = self.len().min(steps);
        let from = step.saturating_sub(len / 2).min(steps - len);
        Window {
            from,
            to: from + len,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const STEPS: usize = 100_000;

    #[test]
    fn zooming_in_keeps_the_current_step_where_it_was_down_to_ten_steps() {
        let whole = Window::whole(STEPS);
        let w = whole.zoom(Zoom::In, Some(60_000), STEPS);
        assert_eq!(
            w,
            Window {
                from: 45_000,
                to: 70_000
            }
        );
        let mut w = whole;
        for _ in 0..20 {
            w = w.zoom(Zoom::In, Some(60_000), STEPS);
            assert!(w.holds(60_000), "{w:?}");
        }
        assert_eq!(w.len(), MIN_STEPS);
        assert!(!w.can(Zoom::In, STEPS));
        assert!(w.can(Zoom::Out, STEPS));
        // Without a current step: around the middle of the window.
        assert_eq!(
            whole.zoom(Zoom::In, None, STEPS),
            Window {
                from: 37_500,
                to: 62_500
            }
        );
    }

    #[test]
    fn zooming_out_stays_inside_the_record_and_whole_is_every_step() {
        let w = Window {
            from: 99_990,
            to: 100_000,
        };
        assert_eq!(
            w.zoom(Zoom::Out, Some(99_999), STEPS),
            Window {
                from: 99_960,
                to: 100_000
            }
        );
        let w = Window { from: 0, to: 10 };
        assert_eq!(
            w.zoom(Zoom::Out, Some(0), STEPS),
            Window { from: 0, to: 40 }
        );
        let w = Window {
            from: 10_000,
            to: 60_000,
        };
        assert_eq!(w.zoom(Zoom::Out, Some(20_000), STEPS), Window::whole(STEPS));
        assert_eq!(w.zoom(Zoom::Whole, None, STEPS), Window::whole(STEPS));
        assert!(!Window::whole(STEPS).can(Zoom::Out, STEPS));
        assert!(!Window::whole(STEPS).can(Zoom::Whole, STEPS));
        // A record of 4 steps cannot be zoomed in.
        assert!(!Window::whole(4).can(Zoom::In, 4));
        assert_eq!(
            Window::whole(4).zoom(Zoom::In, Some(1), 4),
            Window::whole(4)
        );
    }

    #[test]
    fn the_window_follows_a_step_that_leaves_it() {
        let w = Window { from: 100, to: 110 };
        assert_eq!(w.follow(105, STEPS), w);
        assert_eq!(w.follow(110, STEPS), Window { from: 105, to: 115 });
        assert_eq!(
            w.follow(99_999, STEPS),
            Window {
                from: 99_990,
                to: 100_000
            }
        );
        assert_eq!(w.follow(2, STEPS), Window { from: 0, to: 10 });
        assert_eq!(
            Window { from: 90, to: 100 }.within(50),
            Window { from: 40, to: 50 }
        );
    }

    #[test]
    fn keys_and_names() {
        assert_eq!(Zoom::of_key("+"), Some(Zoom::In));
        assert_eq!(Zoom::of_key("="), Some(Zoom::In));
        assert_eq!(Zoom::of_key("-"), Some(Zoom::Out));
        assert_eq!(Zoom::of_key("0"), Some(Zoom::Whole));
        assert_eq!(Zoom::of_key("1"), None);
        for z in Zoom::ALL {
            assert_eq!(Zoom::from_name(z.as_str()), Some(z));
        }
    }
}
