//! A comparison of two records in words ([`project_lanes::record::diff`]): the lines
//! `lane-records diff` prints, in English or Japanese. Steps are counted from 1, as the viewer
//! counts them; at most [`NAMED`] changes of each kind are listed, the rest counted.

use project_lanes::LaneView;
use project_lanes::record::diff::{ChangeKind, Diff, Hold, StepChange};
use project_lanes::record::{Record, Step, Text};

use crate::describe;
use crate::i18n::{DiffMsg, Lang, Msg, Term, fill, group, text};

/// At most this many changes of each kind are listed.
pub const NAMED: usize = 20;

/// How many differences `diff` counts: each changed stretch of steps, project, refused run,
/// hold and final lane.
pub fn count(diff: &Diff) -> usize {
    diff.steps.len()
        + diff.projects.len()
        + diff.refusals.len()
        + diff.holds.len()
        + diff.final_lanes.len()
}

/// What the words of a comparison need of each record: its id, title and number of steps, and
/// the steps the diff names (a record whole, or only those steps: `lane-records diff` reads
/// them again, as [`Plan::wanted`](project_lanes::record::diff::Plan::wanted) asks).
pub trait Compared {
    /// The record's id.
    fn id(&self) -> &str;
    /// Its title.
    fn title(&self) -> &Text;
    /// How many steps it has.
    fn steps(&self) -> usize;
    /// Step `n` (from 0), if at hand.
    fn step(&self, n: usize) -> Option<&Step>;
}

impl Compared for Record {
    fn id(&self) -> &str {
        self.id.as_str()
    }
    fn title(&self) -> &Text {
        &self.title
    }
    fn steps(&self) -> usize {
        self.steps.len()
    }
    fn step(&self, n: usize) -> Option<&Step> {
        self.steps.get(n)
    }
}

/// One difference, as the viewer lists it and `lane-records diff` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// What it is: `only_a`, `only_b`, `asked`, `answered` (steps), `holders` (a project's),
    /// `refused`, `hold` (a hold's time) or `final_lane` (the DOM's `data-diff-kind`).
    pub kind: &'static str,
    /// Its step in A and in B (from 0), where it has one.
    pub steps: [Option<usize>; 2],
    /// In words.
    pub text: String,
}

/// The five groups [`items`] come in: changed steps, projects, refused runs, hold times and
/// final lanes.
pub const GROUPS: [&[&str]; 5] = [
    &["only_a", "only_b", "asked", "answered"],
    &["holders"],
    &["refused"],
    &["hold"],
    &["final_lane"],
];

/// Every difference of `diff` in words, group by group ([`GROUPS`]), steps in step order.
pub fn items(lang: Lang, a: &dyn Compared, b: &dyn Compared, diff: &Diff) -> Vec<Item> {
    let t = |m: DiffMsg| text(lang, m);
    let mut out = Vec::with_capacity(count(diff));
    for c in &diff.steps {
        out.push(Item {
            kind: c.kind.as_str(),
            steps: [c.a.clone(), c.b.clone()].map(|r| (!r.is_empty()).then_some(r.start)),
            text: step_change(lang, a, b, c),
        });
    }
    for p in &diff.projects {
        let [ha, hb] = p.holds.each_ref().map(|h| hold(lang, h.as_ref()));
        out.push(Item {
            kind: "holders",
            steps: p
                .holds
                .each_ref()
                .map(|h| h.as_ref().and_then(|h| h.from.or(h.to))),
            text: fill(
                t(DiffMsg::Holders),
                &[&p.project, &group(p.first + 1), &ha, &hb],
            ),
        });
    }
    for r in &diff.refusals {
        let (msg, refusal) = match &r.refused {
            [Some(refusal), _] => (DiffMsg::RefusedA, refusal),
            [None, Some(refusal)] => (DiffMsg::RefusedB, refusal),
            [None, None] => continue,
        };
        let step = fill(t(DiffMsg::Step), &[&group(refusal.step + 1)]);
        out.push(Item {
            kind: "refused",
            steps: r.refused.each_ref().map(|f| f.as_ref().map(|f| f.step)),
            text: fill(t(msg), &[&r.project, &r.run, refusal.code, &step]),
        });
    }
    for h in &diff.holds {
        let [ma, mb] = h.millis.map(seconds);
        out.push(Item {
            kind: "hold",
            steps: h.from,
            text: fill(t(DiffMsg::Longer), &[&h.project, &h.run, &ma, &mb]),
        });
    }
    for l in &diff.final_lanes {
        let [la, lb] = l.lanes.each_ref().map(|v| final_lane(lang, v.as_ref()));
        out.push(Item {
            kind: "final_lane",
            steps: [a.steps().checked_sub(1), b.steps().checked_sub(1)],
            text: fill(t(DiffMsg::FinalLane), &[&l.project, &la, &lb]),
        });
    }
    out
}

/// The comparison of `a` and `b` (named `names`, e.g. their files) in lines.
pub fn lines(
    lang: Lang,
    names: [&str; 2],
    a: &dyn Compared,
    b: &dyn Compared,
    diff: &Diff,
) -> Vec<String> {
    let t = |m: DiffMsg| text(lang, m);
    let mut out = Vec::new();
    for (side, (name, record)) in ["A", "B"].iter().zip(names.iter().zip([a, b])) {
        out.push(fill(
            t(DiffMsg::Record),
            &[side, name, record.id(), &group(record.steps())],
        ));
    }
    out.push(summary(lang, diff));
    if diff.is_empty() {
        return out;
    }
    if diff.approximate {
        out.push(approximate(lang));
    }
    let items = items(lang, a, b, diff);
    for kinds in GROUPS {
        let listed: Vec<&Item> = items.iter().filter(|i| kinds.contains(&i.kind)).collect();
        let more = listed.len().saturating_sub(NAMED);
        out.extend(listed.iter().take(NAMED).map(|i| format!("  {}", i.text)));
        if more > 0 {
            out.push(format!("  {}", fill(t(DiffMsg::More), &[&group(more)])));
        }
    }
    out
}

/// "No differences: …" or "2 differences:".
pub fn summary(lang: Lang, diff: &Diff) -> String {
    match count(diff) {
        0 => text(lang, DiffMsg::Same).to_owned(),
        1 => text(lang, DiffMsg::CountOne).to_owned(),
        n => fill(text(lang, DiffMsg::Count), &[&group(n)]),
    }
}

/// That the alignment gave up past its budget.
pub fn approximate(lang: Lang) -> String {
    fill(
        text(lang, DiffMsg::Approximate),
        &[&group(project_lanes::record::diff::BUDGET)],
    )
}

/// A change of steps in words.
fn step_change(lang: Lang, a: &dyn Compared, b: &dyn Compared, change: &StepChange) -> String {
    let t = |m: DiffMsg| text(lang, m);
    let steps = |range: &std::ops::Range<usize>| {
        if range.len() == 1 {
            fill(t(DiffMsg::Step), &[&group(range.start + 1)])
        } else {
            fill(
                t(DiffMsg::Steps),
                &[
                    &group(range.start + 1),
                    &group(range.end),
                    &group(range.len()),
                ],
            )
        }
    };
    match change.kind {
        ChangeKind::OnlyA | ChangeKind::OnlyB => {
            let (range, record, one, many) = if change.kind == ChangeKind::OnlyA {
                (&change.a, a, DiffMsg::OnlyAOne, DiffMsg::OnlyA)
            } else {
                (&change.b, b, DiffMsg::OnlyBOne, DiffMsg::OnlyB)
            };
            let msg = if range.len() == 1 { one } else { many };
            let first = record.step(range.start);
            let first = first.map_or_else(String::new, |s| step(lang, s));
            fill(t(msg), &[&steps(range), &first])
        }
        ChangeKind::Asked | ChangeKind::Answered => {
            let (Some(sa), Some(sb)) = (a.step(change.a.start), b.step(change.b.start)) else {
                return String::new();
            };
            let (msg, said_a, said_b) = if change.kind == ChangeKind::Asked {
                (DiffMsg::Asked, asked(lang, sa), asked(lang, sb))
            } else {
                (DiffMsg::Answered, answer(lang, sa), answer(lang, sb))
            };
            fill(
                t(msg),
                &[
                    &group(change.a.start + 1),
                    &group(change.b.start + 1),
                    &step(lang, sa),
                    &said_a,
                    &said_b,
                ],
            )
        }
    }
}

/// A step as asked: its operation and its inputs' values (`claim docs nightly-7`).
pub(crate) fn step(lang: Lang, step: &Step) -> String {
    let input = &step.input;
    let mut words = vec![text(lang, Term::Op(step.op)).to_owned()];
    for value in [
        &input.queue,
        &input.project,
        &input.run,
        &input.lease,
        &input.reservation,
    ]
    .into_iter()
    .flatten()
    {
        words.push(value.to_string());
    }
    words.join(" ")
}

/// What a step was given that the alignment does not match on: its outcome or `saved`.
pub(crate) fn asked(lang: Lang, step: &Step) -> String {
    let outcome = step.input.outcome.as_deref().map(|o| {
        o.parse::<project_lanes::Outcome>()
            .map_or_else(|_| o.to_owned(), |o| describe::outcome(lang, o))
    });
    let saved = step.input.saved.map(|s| format!("saved: {s}"));
    [outcome, saved]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(" · ")
}

/// A step's response, short: the code of a refusal, else its words.
fn answer(lang: Lang, step: &Step) -> String {
    let (code, words) = describe::response(lang, &step.result, step.input.saved);
    if code.is_empty() {
        words
    } else {
        code.to_string()
    }
}

/// A step's response in words, its code first if it was refused.
pub(crate) fn response(lang: Lang, step: &Step) -> String {
    let (code, words) = describe::response(lang, &step.result, step.input.saved);
    match (code.is_empty(), lang) {
        (true, _) => words,
        (false, Lang::En) => format!("{code} ({words})"),
        (false, Lang::Ja) => format!("{code}（{words}）"),
    }
}

/// A hold in words: its run and how it ended.
fn hold(lang: Lang, hold: Option<&Hold>) -> String {
    let t = |m: DiffMsg| text(lang, m);
    let Some(hold) = hold else {
        return t(DiffMsg::NoHold).to_owned();
    };
    let mut end = match (hold.outcome, hold.to) {
        (_, None) => t(DiffMsg::StillHeld).to_owned(),
        (Some(outcome), Some(_)) => describe::outcome(lang, outcome),
        (None, Some(_)) => String::new(),
    };
    if let Some(settled) = hold.settled {
        end = format!("{end} · {}", text(lang, Term::Reservation(settled)));
    }
    if hold.stop_requested {
        end = fill(t(DiffMsg::StopRequested), &[&end]);
    }
    fill(t(DiffMsg::Hold), &[&hold.run, &end])
}

/// A lane after the last step, or that the record has no such project.
fn final_lane(lang: Lang, lane: Option<&LaneView>) -> String {
    match lane {
        None => text(lang, DiffMsg::NoProject).to_owned(),
        Some(view) => match (&view.run, view.state) {
            (Some(run), Some(state)) => format!("{} · {run}", text(lang, Term::State(state))),
            _ => text(lang, Msg::Idle).to_owned(),
        },
    }
}

/// A duration: milliseconds below a second (`10 ms`), else seconds with one decimal (`12.5 s`).
fn seconds(millis: u64) -> String {
    if millis < 1_000 {
        return format!("{millis} ms");
    }
    format!(
        "{}.{} s",
        group((millis / 1000) as usize),
        millis % 1000 / 100
    )
}
