//! The viewer's comparison of two records ([`project_lanes::record::diff`]) as [`Tree`]
//! operations: a heading, the count, a strip that marks where the records differ (A above, B
//! below, on one axis as the alignment pairs their steps, a gap where one has steps the other
//! has not, a line joining the two places of one difference), the list of
//! differences ([`crate::diff::items`], at most [`LISTED`]) and, side by side, what each record's
//! step of the current difference asked and answered.
//!
//! DOM contract (docs/src/dom-contract.md): `section.lv-compare[data-compare-a][data-compare-b]`
//! with `[data-differences]` (the count); each difference is
//! `[data-diff=<k>][data-diff-kind][data-step-a][data-step-b]` (steps from 0, absent where a
//! record has no step for it), the current one `[aria-current=true]`, chosen by its
//! `button[data-diff-choice]`; `[data-compare-side=a|b]` show the current difference's steps,
//! `button[data-compare-show=a|b]` shows that step in its record's panel, and
//! `button[data-compare-close]` ends the comparison. Before it, `select[data-compare-with]`
//! ("Compare with…") lists the other records.

use project_lanes::record::Record;
use project_lanes::record::diff::{ChangeKind, Diff};

use crate::diff::{Item, approximate, asked, items, response, step, summary};
use crate::i18n::{DiffMsg, Lang, fill, group, text};
use crate::tree::{N, Tree, isolated};

/// At most this many differences are listed (and marked on the strip).
pub const LISTED: usize = 200;

/// The strip's width and height, in its own units.
const WIDTH: u64 = 1000;
const HEIGHT: u64 = 64;
/// Where each record's bar starts (after its label "A" or "B", when the strip draws them).
const LEFT: [u64; 2] = [4, 24];
/// The bars' tops and their height.
const TOPS: [u64; 2] = [8, 40];
const BAR_H: u64 = 16;

/// The "Compare with…" control: a `select[data-compare-with]` listing `others` (id, title),
/// none chosen. Returns the select.
pub fn chooser(t: &mut Tree, parent: N, lang: Lang, others: &[(&str, &str)], prefix: &str) -> N {
    let wrap = t.el(parent, "div", "lv-cmp-with");
    let id = format!("{prefix}-compare-with");
    let label = t.el_text(wrap, "label", "", text(lang, DiffMsg::CompareWith));
    t.attr(label, "for", &id);
    let select = t.el(wrap, "select", "lv-cmp-select");
    t.attr(select, "id", &id);
    t.attr(select, "data-compare-with", "");
    options(t, select, lang, others);
    select
}

/// The chooser's options: none, then `others` (id, title).
pub fn options(t: &mut Tree, select: N, lang: Lang, others: &[(&str, &str)]) {
    let none = t.el_text(select, "option", "", text(lang, DiffMsg::CompareNothing));
    t.attr(none, "value", "");
    for (other, title) in others {
        let option = t.el_text(select, "option", "", title);
        t.attr(option, "value", other);
    }
}

/// The comparison of records A and B (`sides`: each one's id and title): their `records` and
/// `diff` once both are read (else `Err`: the words that say why not); `at`, the current
/// difference.
pub fn section(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    sides: [(&str, &str); 2],
    diff: Result<(&Diff, [&Record; 2]), &str>,
    at: Option<usize>,
) -> N {
    let section = t.el(parent, "section", "lv-compare");
    t.attr(section, "data-compare-a", sides[0].0);
    t.attr(section, "data-compare-b", sides[1].0);
    let head = t.el(section, "div", "lv-cmp-head");
    let h = t.el(head, "h2", "lv-cmp-title");
    isolated(
        t,
        h,
        text(lang, DiffMsg::Comparing),
        &[sides[0].1, sides[1].1],
    );
    let close = t.el_text(
        head,
        "button",
        "lv-cmp-close",
        text(lang, DiffMsg::StopComparing),
    );
    t.attr(close, "type", "button");
    t.attr(close, "data-compare-close", "");
    let (diff, [a, b]) = match diff {
        Ok(read) => read,
        Err(waiting) => {
            t.el_text(section, "p", "lv-cmp-waiting", waiting);
            return section;
        }
    };
    let items = items(lang, a, b, diff);
    let p = t.el_text(section, "p", "lv-cmp-summary", &summary(lang, diff));
    t.attr_number(p, "data-differences", items.len() as u64);
    if diff.approximate {
        t.el_text(section, "p", "lv-cmp-approximate", &approximate(lang));
    }
    if items.is_empty() {
        return section;
    }
    let listed = &items[..items.len().min(LISTED)];
    // The page stretches the strip to its width: its labels are text beside it, not in it.
    let boxed = t.el(section, "div", "lv-cmp-strip-box");
    let names = t.el(boxed, "div", "lv-cmp-names");
    t.attr(names, "aria-hidden", "true");
    t.el_text(names, "span", "", "A");
    t.el_text(names, "span", "", "B");
    let counts = [a.steps.len(), b.steps.len()];
    strip(t, boxed, lang, (counts, diff), (listed, at), false);
    let list = t.el(section, "ol", "lv-diff-list");
    t.attr(list, "aria-label", text(lang, DiffMsg::ListLabel));
    for (k, item) in listed.iter().enumerate() {
        let li = t.el(list, "li", "lv-diff");
        t.attr_number(li, "data-diff", k as u64);
        t.attr(li, "data-diff-kind", item.kind);
        for (name, n) in ["data-step-a", "data-step-b"].iter().zip(item.steps) {
            if let Some(n) = n {
                t.attr_number(li, name, n as u64);
            }
        }
        let button = t.el_text(li, "button", "lv-diff-choice", &item.text);
        t.attr(button, "type", "button");
        t.attr_number(button, "data-diff-choice", k as u64);
        // One stop for the list: arrows move within it.
        let current = at == Some(k) || (at.is_none() && k == 0);
        t.attr(button, "tabindex", if current { "0" } else { "-1" });
        if at == Some(k) {
            t.attr(li, "aria-current", "true");
        }
    }
    if items.len() > LISTED {
        let more = fill(
            text(lang, DiffMsg::ListMore),
            &[&group(items.len() - LISTED)],
        );
        t.el_text(section, "p", "lv-cmp-more", &more);
    }
    if let Some(item) = at.and_then(|k| listed.get(k)) {
        sides_of(t, section, lang, [a, b], item);
    }
    section
}

/// The strip (`strip`): each record's bar (with its label "A" or "B" if `labels`), a mark per listed difference on each side that has a step
/// for it, joined by a line; the current one stands out.
pub(crate) fn strip(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    (counts, diff): ([usize; 2], &Diff),
    (items, at): (&[Item], Option<usize>),
    labels: bool,
) {
    let columns = Columns::new(counts[0], diff);
    let left = LEFT[usize::from(labels)];
    let bar = WIDTH - left - 4;
    let svg = t.svg(parent, "svg", "lv-cmp-strip");
    let label = fill(
        text(lang, DiffMsg::StripLabel),
        &[&group(counts[0]), &group(counts[1])],
    );
    for (name, value) in [
        ("role", "img"),
        ("aria-label", label.as_str()),
        ("viewBox", &format!("0 0 {WIDTH} {HEIGHT}")),
        ("preserveAspectRatio", "none"),
    ] {
        t.attr(svg, name, value);
    }
    // Hundredths of a unit along the bars, for aligned column `c`.
    let x = |c: usize| left * 100 + (c as u64 * bar * 100) / columns.total.max(1) as u64;
    for (side, top) in ["A", "B"].into_iter().zip(TOPS) {
        if labels {
            t.svg_text(svg, "lv-cmp-side-label", 400, top + BAR_H - 3, side);
        }
        t.rect(svg, "lv-cmp-bar", (left * 100, top), (bar * 100, BAR_H));
    }
    // Where one record has steps the other has not, the other's bar has a gap.
    for c in &diff.steps {
        let (top, other, from, len) = match c.kind {
            ChangeKind::OnlyA => (TOPS[1], 0, c.a.start, c.a.len()),
            ChangeKind::OnlyB => (TOPS[0], 1, c.b.start, c.b.len()),
            _ => continue,
        };
        let start = columns.at(other, from);
        let width = (x(start + len) - x(start)).max(100);
        t.rect(svg, "lv-cmp-gap", (x(start), top + 3), (width, BAR_H - 6));
    }
    for (k, item) in items.iter().enumerate() {
        let class = if at == Some(k) {
            format!("lv-cmp-mark lv-cmp-{} lv-cmp-current", item.kind)
        } else {
            format!("lv-cmp-mark lv-cmp-{}", item.kind)
        };
        let g = t.svg(svg, "g", &class);
        t.attr_number(g, "data-diff-mark", k as u64);
        let places: Vec<(u64, u64)> = item
            .steps
            .iter()
            .zip(TOPS)
            .enumerate()
            .filter_map(|(side, (n, top))| Some((x(columns.at(side, (*n)?)), top)))
            .collect();
        for &(px, top) in &places {
            t.rect(g, "", (px, top - 2), (300, BAR_H + 4));
        }
        if let [(xa, ya), (xb, _)] = places[..] {
            let line = t.svg(g, "line", "lv-cmp-join");
            t.attr_px(line, "x1", xa + 150);
            t.attr_number(line, "y1", ya + BAR_H + 2);
            t.attr_px(line, "x2", xb + 150);
            t.attr_number(line, "y2", TOPS[1] - 2);
        }
    }
}

/// The steps of both records on one axis, as the alignment pairs them: a step both records
/// did is in the same column in each, and the steps one record has alone push the other's on.
struct Columns {
    /// For A, the B-only stretches (where in A, how long); for B, the A-only ones.
    shifts: [Vec<(usize, usize)>; 2],
    /// Columns in all.
    total: usize,
}

impl Columns {
    fn new(steps_a: usize, diff: &Diff) -> Columns {
        let mut shifts = [Vec::new(), Vec::new()];
        for c in &diff.steps {
            match c.kind {
                ChangeKind::OnlyB => shifts[0].push((c.a.start, c.b.len())),
                ChangeKind::OnlyA => shifts[1].push((c.b.start, c.a.len())),
                _ => {}
            }
        }
        let total = steps_a + shifts[0].iter().map(|s| s.1).sum::<usize>();
        Columns { shifts, total }
    }

    /// The column of step `n` of record `side` (0: A, 1: B).
    fn at(&self, side: usize, n: usize) -> usize {
        n + self.shifts[side]
            .iter()
            .take_while(|(at, _)| *at <= n)
            .map(|s| s.1)
            .sum::<usize>()
    }
}

/// What each record's step of `item` asked and answered, side by side.
fn sides_of(t: &mut Tree, parent: N, lang: Lang, records: [&Record; 2], item: &Item) {
    let sides = t.el(parent, "div", "lv-cmp-sides");
    for ((name, key), (record, n)) in [("A", "a"), ("B", "b")]
        .into_iter()
        .zip(records.into_iter().zip(item.steps))
    {
        let side = t.el(sides, "div", "lv-cmp-side");
        t.attr(side, "data-compare-side", key);
        let Some((n, s)) = n.and_then(|n| Some((n, record.steps.get(n)?))) else {
            t.el_text(side, "h3", "", &fill(text(lang, DiffMsg::NoStep), &[name]));
            continue;
        };
        t.attr_number(side, "data-step-of", n as u64);
        let step_words = fill(text(lang, DiffMsg::Step), &[&group(n + 1)]);
        let heading = fill(text(lang, DiffMsg::Side), &[name, &step_words]);
        t.el_text(side, "h3", "", &heading);
        let extra = asked(lang, s);
        let said = if extra.is_empty() {
            step(lang, s)
        } else {
            format!("{} · {extra}", step(lang, s))
        };
        t.el_text(
            side,
            "p",
            "lv-cmp-asked",
            &fill(text(lang, DiffMsg::SideAsked), &[&said]),
        );
        let answer = fill(text(lang, DiffMsg::SideAnswered), &[&response(lang, s)]);
        t.el_text(side, "p", "lv-cmp-answered", &answer);
        let show = fill(text(lang, DiffMsg::ShowStep), &[&step_words, name]);
        let button = t.el_text(side, "button", "lv-cmp-show", &show);
        t.attr(button, "type", "button");
        t.attr(button, "data-compare-show", key);
    }
}

/// The comparison of `a` with `b` as a static HTML fragment, readable before and without the
/// viewer's wasm (`mdbook-lanes`' `{{#lanes-diff}}`): the section [`section`] draws, with the
/// first difference current, in a `[data-lane-viewer-static]` root.
pub fn still(a: &Record, b: &Record, lang: Lang) -> String {
    let diff = project_lanes::record::diff::compare(a, b, &Default::default());
    let l = lang.tag();
    let mut t = Tree::new();
    let root = t.el(crate::tree::ROOT, "div", "lane-viewer lv-static");
    t.attr(root, "data-lane-viewer-static", "");
    t.attr(root, "lang", l);
    let note = t.el_text(
        root,
        "p",
        "lv-static-note",
        text(lang, crate::i18n::Msg::NotYetVerified),
    );
    t.attr(note, "data-static-note", "");
    let sides = [
        (a.id.as_str(), a.title.get(l)),
        (b.id.as_str(), b.title.get(l)),
    ];
    let at = (!diff.is_empty()).then_some(0);
    section(&mut t, root, lang, sides, Ok((&diff, [a, b])), at);
    crate::tree::html::write(&t)
}

#[cfg(test)]
mod tests {
    use project_lanes::record::diff::{Options, compare};
    use project_lanes::record::{Recorder, Text};

    use super::*;

    fn record(extra: bool) -> Record {
        let text = |s: &str| Text {
            en: s.into(),
            ja: s.into(),
        };
        let projects = ["docs", "site", "web"];
        let mut rec = Recorder::new("r", text("R"), text("R."), &projects, "web").unwrap();
        rec.claim("docs", "r0");
        if extra {
            rec.claim("site", "x");
        }
        rec.claim("docs", "r1");
        rec.view("docs");
        rec.finish().unwrap()
    }

    #[test]
    fn a_step_both_did_is_in_one_column_and_the_other_record_has_a_gap() {
        let (a, b) = (record(false), record(true));
        let diff = compare(&a, &b, &Options::default());
        let columns = Columns::new(a.steps.len(), &diff);
        assert_eq!(columns.total, 4);
        assert_eq!((columns.at(0, 0), columns.at(1, 0)), (0, 0));
        assert_eq!(
            (columns.at(0, 1), columns.at(1, 2)),
            (2, 2),
            "claim docs r1"
        );
        assert_eq!((columns.at(0, 2), columns.at(1, 3)), (3, 3), "view docs");
        let mut t = Tree::new();
        let items = crate::diff::items(Lang::En, &a, &b, &diff);
        strip(
            &mut t,
            crate::tree::ROOT,
            Lang::En,
            ([a.steps.len(), b.steps.len()], &diff),
            (&items, None),
            true,
        );
        let svg = crate::tree::html::write(&t);
        assert_eq!(svg.matches("lv-cmp-gap").count(), 1, "{svg}");
    }
}
