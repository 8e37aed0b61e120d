//! What replaying a record proves, and what is only shown as recorded.
//!
//! Replay runs every step on the core and compares its result and the state after it (lanes,
//! reservations) with the record's. It never compares times, callers or the window a journal's
//! record was cut from (`origin.since`, `origin.until`): those are shown as recorded, and the
//! viewer says so. A time can still stand out against the record itself, and is marked
//! ([`mark`]): earlier than the step before it (callers running at the same time can record
//! times a millisecond or so out of order; the order of the steps is the one that replays, and
//! the record stays verified), or outside the record's window (`since` inclusive, `until`
//! exclusive).
//!
//! [`notes`] gathers these for a whole record and [`sentences`] words them; the viewer shows
//! them under the record's origin and `lane-records replay` prints them (in English), so the
//! same file gets the same notes from both.
//!
//! ```
//! use project_lanes_view::i18n::Lang;
//! use project_lanes_view::recorded::{notes, sentences};
//!
//! # use project_lanes::record::{Recorder, Text};
//! # let text = |s: &str| Text { en: s.into(), ja: s.into() };
//! # let mut rec = Recorder::new("busy-project", text("A busy project"), text("Two claims."), &["docs", "site"], "site").unwrap();
//! # rec.claim("docs", "nightly-101");
//! # rec.claim("docs", "nightly-102");
//! # let record: project_lanes::record::Record = rec.finish().unwrap();
//! // `record` was read from a file (such as records/busy-project.json) or made by a `Recorder`
//! // A version 1 record has no times, callers or window: nothing to say.
//! assert!(sentences(Lang::En, &notes(&record)).is_empty());
//! ```

use project_lanes::record::{Origin, Record, Timestamp};

use crate::i18n::{Lang, Msg, fill, group, text};

/// At most this many marked steps are named in [`sentences`]; the rest are counted.
pub const NAMED: usize = 5;

/// Why a step's time stands out (at least one of the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeMark {
    /// Earlier than the step before it.
    pub earlier: bool,
    /// Before the record's window starts (`origin.since`) or at or after it ends
    /// (`origin.until`).
    pub outside: bool,
}

impl TimeMark {
    /// `earlier`, `outside` or `earlier outside`, as in `data-time-mark`.
    pub fn as_str(self) -> &'static str {
        match (self.earlier, self.outside) {
            (true, true) => "earlier outside",
            (true, false) => "earlier",
            _ => "outside",
        }
    }
}

/// Step `i`'s time mark, if its time stands out against the step before it or the window.
pub fn mark(record: &Record, i: usize) -> Option<TimeMark> {
    let at = record.steps.get(i)?.at;
    let before = i
        .checked_sub(1)
        .and_then(|b| record.steps.get(b))
        .and_then(|s| s.at);
    mark_of(record.origin.as_ref(), at, before)
}

/// The mark of a step at `at` after a step at `before`, in a record from `origin`.
fn mark_of(
    origin: Option<&Origin>,
    at: Option<Timestamp>,
    before: Option<Timestamp>,
) -> Option<TimeMark> {
    let at = at?;
    let (since, until) = origin.map_or((None, None), |o| (o.since, o.until));
    let mark = TimeMark {
        earlier: before.is_some_and(|b| at < b),
        outside: since.is_some_and(|s| at < s) || until.is_some_and(|u| at >= u),
    };
    (mark.earlier || mark.outside).then_some(mark)
}

/// What a record shows as recorded, unchecked, and which of its steps' times stand out.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Notes {
    /// Some step has a time.
    pub times: bool,
    /// The first step's time that there is (the zone the panel names is the one then).
    pub first_time: Option<Timestamp>,
    /// Some step has a caller.
    pub callers: bool,
    /// The record names a window (`origin.since` or `origin.until`).
    pub window: bool,
    /// How many steps' times stand out.
    pub marked: usize,
    /// Some of them are earlier than the step before.
    pub earlier: bool,
    /// The first [`NAMED`] of them (steps from 0).
    pub first: Vec<usize>,
}

/// The notes of `record`: what it shows unchecked, and its marked steps.
pub fn notes(record: &Record) -> Notes {
    let mut noting = Noting::new(record.origin.as_ref());
    for step in &record.steps {
        noting.step(step.at, step.actor.is_some());
    }
    noting.notes()
}

/// [`notes`] gathered a step at a time, for a record read as it streams (version 3).
pub struct Noting {
    origin: Option<Origin>,
    notes: Notes,
    steps: usize,
    before: Option<Timestamp>,
}

impl Noting {
    /// Nothing noted yet, of a record from `origin`.
    pub fn new(origin: Option<&Origin>) -> Noting {
        Noting {
            notes: Notes {
                window: origin.is_some_and(|o| o.since.is_some() || o.until.is_some()),
                ..Notes::default()
            },
            origin: origin.cloned(),
            steps: 0,
            before: None,
        }
    }

    /// The next step: its time, and whether it names its caller.
    pub fn step(&mut self, at: Option<Timestamp>, caller: bool) {
        let notes = &mut self.notes;
        notes.times |= at.is_some();
        notes.first_time = notes.first_time.or(at);
        notes.callers |= caller;
        if let Some(mark) = mark_of(self.origin.as_ref(), at, self.before) {
            notes.marked += 1;
            notes.earlier |= mark.earlier;
            if notes.first.len() < NAMED {
                notes.first.push(self.steps);
            }
        }
        self.before = at;
        self.steps += 1;
    }

    /// The notes so far.
    pub fn notes(self) -> Notes {
        self.notes
    }
}

/// The notes in words: what replay checks and what it shows unchecked (for a record with
/// times, callers or a window), then the steps whose times stand out, if any. Empty for a
/// record with none of these (version 1).
pub fn sentences(lang: Lang, notes: &Notes) -> Vec<String> {
    let mut out = Vec::new();
    let mut unchecked = String::new();
    for (shown, what) in [
        (notes.times, Msg::UncheckedTimes),
        (notes.callers, Msg::UncheckedCallers),
        (notes.window, Msg::UncheckedWindow),
    ] {
        if shown {
            if !unchecked.is_empty() {
                unchecked.push_str(separator(lang));
            }
            unchecked.push_str(text(lang, what));
        }
    }
    if unchecked.is_empty() {
        return out;
    }
    out.push(fill(text(lang, Msg::Unchecked), &[&unchecked]));
    if notes.marked > 0 {
        let mut steps = String::new();
        for &i in &notes.first {
            if !steps.is_empty() {
                steps.push_str(separator(lang));
            }
            steps.push_str(&fill(text(lang, Msg::StepLabel), &[&group(i + 1)]));
        }
        if notes.marked > notes.first.len() {
            steps.push_str(separator(lang));
            steps.push('…');
        }
        let msg = if notes.marked == 1 {
            Msg::TimeStandsOut
        } else {
            Msg::TimesStandOut
        };
        let mut marked = fill(text(lang, msg), &[&group(notes.marked), &steps]);
        if notes.earlier {
            marked.push_str(separator_sentence(lang));
            marked.push_str(text(lang, Msg::OutOfOrder));
        }
        out.push(marked);
    }
    out
}

/// The words on a marked step's card: "earlier than step 4", "outside the record's window".
pub fn mark_words(lang: Lang, i: usize, mark: TimeMark) -> String {
    let mut out = String::new();
    if mark.earlier {
        out = fill(text(lang, Msg::EarlierThan), &[&group(i)]);
    }
    if mark.outside {
        if !out.is_empty() {
            out.push_str(" · ");
        }
        out.push_str(text(lang, Msg::OutsideWindow));
    }
    out
}

/// Between listed items: `, ` in English, `、` in Japanese.
fn separator(lang: Lang) -> &'static str {
    match lang {
        Lang::En => ", ",
        Lang::Ja => "、",
    }
}

/// Between sentences: a space in English, none in Japanese.
fn separator_sentence(lang: Lang) -> &'static str {
    match lang {
        Lang::En => " ",
        Lang::Ja => "",
    }
}
