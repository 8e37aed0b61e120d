//! The window of step cards a long record lists: a record of more than [`WINDOW_STEPS`] steps
//! lists at most that many cards at a time (and about [`WINDOW_ELEMENTS`] elements with their
//! lanes and reservations), so the page stays small at any record size. The window follows the
//! current step ([`around`]), and buttons before and after it page through the record
//! ([`earlier`], [`later`]); the timeline, its keys and the find box reach every step.
//!
//! DOM contract (docs/src/dom-contract.md): `.lv-steps[data-steps-from][data-steps-to]` (the
//! listed steps, from 0, the end excluded) and `[data-steps-total]`; `[data-steps-shown]` says
//! which steps are listed; the buttons `[data-steps-earlier]` and `[data-steps-later]` (hidden at
//! either end of the record). A test reaches step N with `viewer.select_step(N)`: its card is then
//! listed and current.

use crate::i18n::{Lang, Msg, fill, group, text};
use crate::tree::{N, Tree};

/// Records of more steps than this list a window of their steps.
pub const WINDOW_STEPS: usize = 200;
/// About the most elements a window holds (steps, their lanes and reservations).
pub const WINDOW_ELEMENTS: usize = 3_200;
/// Steps listed before the current one when the window moves to it.
pub const LEAD: usize = 20;

/// Whether a record of `steps` steps lists a window of them rather than every step.
pub fn windowed(steps: usize) -> bool {
    steps > WINDOW_STEPS
}

/// The steps a window showing step `n` lists, if `(from, to)` does not list it already.
pub fn around(n: usize, (from, to): (usize, usize)) -> Option<(usize, usize)> {
    (n < from || n >= to).then(|| {
        let from = n.saturating_sub(LEAD);
        (from, from + WINDOW_STEPS)
    })
}

/// The steps the window before `(from, to)` lists (the end excluded): up to
/// [`WINDOW_STEPS`] ending where it starts.
pub fn earlier((from, _): (usize, usize)) -> Option<(usize, usize)> {
    (from > 0).then(|| (from.saturating_sub(WINDOW_STEPS), from))
}

/// The steps the window after `(from, to)` lists, in a record of `steps` steps.
pub fn later((_, to): (usize, usize), steps: usize) -> Option<(usize, usize)> {
    (to < steps).then(|| (to, to + WINDOW_STEPS))
}

/// The line above a window: which steps of how many are listed.
pub fn shown(lang: Lang, (from, to): (usize, usize), steps: usize) -> String {
    fill(
        text(lang, Msg::StepsWindow),
        &[&group(from + 1), &group(to), &group(steps)],
    )
}

/// What goes before a windowed record's list, under `parent`: the line that says which steps
/// are listed (the page fills it in: [`shown`]) and the earlier-steps button.
pub fn before(t: &mut Tree, parent: N, lang: Lang) {
    let line = t.el(parent, "p", "lv-steps-shown");
    t.attr(line, "data-steps-shown", "");
    t.attr(line, "role", "status");
    page_button(
        t,
        parent,
        text(lang, Msg::StepsEarlier),
        "data-steps-earlier",
    );
}

/// What goes after a windowed record's list, under `parent`: the later-steps button.
pub fn after(t: &mut Tree, parent: N, lang: Lang) {
    page_button(t, parent, text(lang, Msg::StepsLater), "data-steps-later");
}

fn page_button(t: &mut Tree, parent: N, label: &str, key: &str) {
    let button = t.el_text(parent, "button", "lv-steps-page", label);
    t.attr(button, "type", "button");
    t.attr(button, key, "");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_follows_a_step_outside_it_and_pages_by_its_own_length() {
        assert!(!windowed(WINDOW_STEPS) && windowed(WINDOW_STEPS + 1));
        assert_eq!(around(10, (0, 200)), None);
        assert_eq!(around(200, (0, 200)), Some((180, 380)));
        assert_eq!(around(5, (100, 300)), Some((0, 200)));
        assert_eq!(earlier((0, 200)), None);
        assert_eq!(earlier((150, 350)), Some((0, 150)));
        assert_eq!(earlier((1_000, 1_200)), Some((800, 1_000)));
        assert_eq!(later((0, 200), 200), None);
        assert_eq!(later((0, 200), 100_000), Some((200, 400)));
        assert_eq!(
            shown(Lang::En, (1_000, 1_500), 100_000),
            "Steps 1,001–1,500 of 100,000 are listed here; the timeline, its keys and Find reach every step."
        );
        assert_eq!(
            shown(Lang::Ja, (0, 500), 1_000_000),
            "全 1,000,000 ステップのうち、ステップ 1〜500 をここに表示しています。タイムラインとそのキー、検索で、どのステップにも移れます。"
        );
    }
}
