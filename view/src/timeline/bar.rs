//! The step bar above the timeline (previous, where we are and what the step did, next), its
//! words, and the requests that move the current step ([`Action`]).

use project_lanes::record::{Record, Step};

use super::labels::no_position;
use crate::i18n::{Lang, Msg, Term, TlMsg, fill, group, text};
use crate::tree::{N, Tree};

/// The step bar under `parent`: previous, the current step (a live region) and next.
pub fn bar(t: &mut Tree, parent: N, lang: Lang, steps: usize) -> N {
    let nav = t.el(parent, "div", "lv-tl-nav");
    let previous = t.el(nav, "button", "lv-tl-step-button");
    t.attr(previous, "type", "button");
    t.attr(previous, "data-step-prev", "");
    t.text(previous, &format!("‹ {}", text(lang, TlMsg::Previous)));
    let now = t.el(nav, "span", "lv-tl-now");
    t.attr(now, "aria-live", "polite");
    let position = t.el(now, "span", "lv-tl-pos");
    t.attr(position, "data-step-position", "");
    t.text(position, &no_position(lang, steps));
    let detail = t.el(now, "span", "lv-tl-detail");
    t.attr(detail, "data-step-detail", "");
    let next = t.el(nav, "button", "lv-tl-step-button");
    t.attr(next, "type", "button");
    t.attr(next, "data-step-next", "");
    t.text(next, &format!("{} ›", text(lang, TlMsg::Next)));
    nav
}

/// "Step 5 of 12", or what to do when no step is current.
pub fn position(lang: Lang, step: Option<usize>, steps: usize) -> String {
    match step {
        Some(n) => fill(text(lang, TlMsg::Position), &[&group(n + 1), &group(steps)]),
        None => no_position(lang, steps),
    }
}

/// What the current step did: "release · refused LEASE_NOT_CURRENT".
pub fn detail(lang: Lang, step: &Step) -> String {
    let code = step.result.code();
    let outcome = if code == "ok" {
        text(lang, Msg::Accepted).to_string()
    } else {
        format!("{} {code}", text(lang, Msg::Refused))
    };
    format!("{} · {outcome}", text(lang, Term::Op(step.op)))
}

/// A request to move the current step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// To this step (from 0); none past the last.
    To(usize),
    /// To the step before the current one (the last when none is current).
    Previous,
    /// To the step after the current one (the first when none is current).
    Next,
    /// To the first step.
    First,
    /// To the last step.
    Last,
    /// To the next refusal or recovery after the current step (from the first step when none
    /// is current): [`find::next_notable`](crate::find::next_notable).
    NextNotable,
    /// To the refusal or recovery before the current step (from the last step when none is
    /// current).
    PreviousNotable,
}

impl Action {
    /// The step this action selects in a record of `steps` steps, from `current`; `None` for
    /// the actions that need the record's steps ([`target_in`](Self::target_in)).
    pub fn target(self, current: Option<usize>, steps: usize) -> Option<usize> {
        let last = steps.checked_sub(1)?;
        Some(match self {
            Action::To(n) if n <= last => n,
            Action::To(_) => return None,
            Action::Previous => current.map_or(last, |c| c.saturating_sub(1).min(last)),
            Action::Next => current.map_or(0, |c| (c + 1).min(last)),
            Action::First => 0,
            Action::Last => last,
            Action::NextNotable | Action::PreviousNotable => return None,
        })
    }

    /// The step this action selects in `record`, from `current`; `None` when there is none to
    /// go to (no refusal or recovery after the last one, say), so the current step stays.
    pub fn target_in(self, current: Option<usize>, record: &Record) -> Option<usize> {
        match self {
            Action::NextNotable => crate::find::next_notable(record, current),
            Action::PreviousNotable => crate::find::previous_notable(record, current),
            _ => self.target(current, record.steps.len()),
        }
    }

    /// The action of a key pressed on the timeline, if it has one.
    pub fn of_key(key: &str) -> Option<Action> {
        Some(match key {
            "ArrowRight" | "ArrowDown" => Action::Next,
            "ArrowLeft" | "ArrowUp" => Action::Previous,
            "Home" => Action::First,
            "End" => Action::Last,
            "]" => Action::NextNotable,
            "[" => Action::PreviousNotable,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_stay_inside_the_record() {
        assert_eq!(Action::Next.target(None, 5), Some(0));
        assert_eq!(Action::Previous.target(None, 5), Some(4));
        assert_eq!(Action::Next.target(Some(4), 5), Some(4));
        assert_eq!(Action::Previous.target(Some(0), 5), Some(0));
        assert_eq!(Action::To(5).target(None, 5), None);
        assert_eq!(Action::Last.target(Some(1), 5), Some(4));
        assert_eq!(Action::First.target(None, 0), None);
        assert_eq!(Action::NextNotable.target(None, 5), None);
        assert_eq!(Action::of_key("]"), Some(Action::NextNotable));
        assert_eq!(Action::of_key("["), Some(Action::PreviousNotable));
        assert_eq!(Action::of_key("}"), None);
    }
}
