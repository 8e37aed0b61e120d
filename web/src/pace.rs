//! How much background work one task does. A browser updates the page between tasks, and an
//! update of a page that already holds tens of thousands of steps can cost more than the work of
//! a task (WebKit lays out and paints in proportion to what is in the page). A fixed amount per
//! task would then spend most of the time in updates; a [`Pace`] gives each task at least as
//! much work time as the browser took since the previous one, so updates take at most about half
//! of the time, whatever they cost, and stay as frequent as they are cheap.

/// The work of one task is never below `least` units (what a task did before any update was
/// measured) and its time never above [`MOST_MS`].
pub struct Pace {
    least: usize,
    /// Units done per millisecond in the last task.
    rate: f64,
    /// When the last task ended.
    ended: f64,
}

/// The longest a task works, so input is never held back for longer than this by the work itself.
const MOST_MS: f64 = 500.0;

impl Pace {
    pub fn new(least: usize) -> Pace {
        Pace {
            least,
            rate: 0.0,
            ended: now(),
        }
    }

    /// Runs the task that starts now: `work` is given how many units to do, and is timed.
    pub fn task<R>(&mut self, work: impl FnOnce(usize) -> R) -> R {
        let started = now();
        let away = (started - self.ended).min(MOST_MS);
        let budget = (self.rate * away).max(self.least as f64) as usize;
        let result = work(budget);
        self.ended = now();
        self.rate = budget as f64 / (self.ended - started).max(1.0);
        result
    }
}

/// Milliseconds on the page's clock.
fn now() -> f64 {
    js_sys::Date::now()
}
