//! The comparison's transitions: two records compared (by id, whichever is selected), their
//! [`Diff`] once both are read, and the current difference; showing a difference's step in
//! one record's panel selects that record and step.

use std::rc::Rc;

use project_lanes::record::diff::{Diff, Options, compare};

use super::{Changes, Origin, State, unknown};
use crate::compare::LISTED;
use crate::diff::items;

/// Two records compared.
#[derive(Debug)]
pub struct Comparison {
    /// A's id and B's.
    pub ids: [String; 2],
    /// Their differences, once both records are read.
    pub diff: Option<Rc<Diff>>,
    /// The current difference (from 0), if any.
    pub at: Option<usize>,
}

impl Comparison {
    /// How many differences are listed (at most [`LISTED`]).
    pub fn listed(&self) -> usize {
        self.diff
            .as_deref()
            .map_or(0, |d| crate::diff::count(d).min(LISTED))
    }
}

impl<T> State<T> {
    /// Compares records `ids` (A, B), or ends the comparison (`None`). An id that names no
    /// record shows `UNKNOWN_RECORD` and changes nothing.
    pub fn set_compare(&mut self, ids: Option<[String; 2]>, origin: Origin) -> Changes {
        if self.compare.as_ref().map(|c| &c.ids) == ids.as_ref() {
            return Changes::default();
        }
        if let Some(missing) = ids.iter().flatten().find(|id| self.position(id).is_none()) {
            self.notice = Some(unknown(missing));
            return Changes {
                status: true,
                ..Changes::default()
            };
        }
        self.compare = ids.map(|ids| Comparison {
            ids,
            diff: None,
            at: None,
        });
        self.recompare();
        Changes {
            compare: true,
            link: self.push(origin),
            ..Changes::default()
        }
    }

    /// Compares the two records again if both are read and were not compared yet; `true` if
    /// the comparison changed. The first difference becomes current.
    pub(super) fn recompare(&mut self) -> bool {
        let Some(comparison) = &self.compare else {
            return false;
        };
        if comparison.diff.is_some() {
            return false;
        }
        let [a, b] = comparison.ids.each_ref().map(|id| {
            self.position(id)
                .and_then(|i| self.entries[i].content.loaded())
                .map(|l| &l.record)
        });
        let (Some(a), Some(b)) = (a, b) else {
            return false;
        };
        let diff = compare(a, b, &Options::default());
        let empty = diff.is_empty();
        if let Some(comparison) = &mut self.compare {
            comparison.diff = Some(Rc::new(diff));
            comparison.at = comparison.at.or((!empty).then_some(0));
            let listed = comparison.listed();
            comparison.at = comparison.at.filter(|&k| k < listed);
        }
        true
    }

    /// Makes difference `k` (from 0) current; nothing if there is no such difference listed.
    pub fn select_diff(&mut self, k: usize, origin: Origin) -> Changes {
        let Some(comparison) = self.compare.as_mut() else {
            return Changes::default();
        };
        if comparison.diff.is_none() {
            // Kept until both records are read.
            comparison.at = Some(k);
            return Changes::default();
        }
        if k >= comparison.listed() || comparison.at == Some(k) {
            return Changes::default();
        }
        comparison.at = Some(k);
        Changes {
            compare: true,
            link: self.push(origin),
            ..Changes::default()
        }
    }

    /// Makes the next difference current (`forward`) or the previous one, going round.
    pub fn step_diff(&mut self, forward: bool) -> Changes {
        let Some(comparison) = &self.compare else {
            return Changes::default();
        };
        let listed = comparison.listed();
        if listed == 0 {
            return Changes::default();
        }
        let k = match (comparison.at, forward) {
            (None, true) => 0,
            (None, false) => listed - 1,
            (Some(k), true) => (k + 1) % listed,
            (Some(k), false) => (k + listed - 1) % listed,
        };
        self.select_diff(k, Origin::User)
    }

    /// Selects record A (`side` 0) or B (1) of the comparison, at the current difference's
    /// step there.
    pub fn show_side(&mut self, side: usize) -> Changes {
        let Some((id, step)) = self.compare.as_ref().and_then(|c| {
            let id = c.ids.get(side)?.clone();
            let (diff, k) = (c.diff.as_deref()?, c.at?);
            let [a, b] = c.ids.each_ref().map(|id| {
                self.position(id)
                    .and_then(|i| self.entries[i].content.loaded())
                    .map(|l| &l.record)
            });
            let item = items(self.lang, a?, b?, diff).into_iter().nth(k)?;
            Some((id, item.steps[side]))
        }) else {
            return Changes::default();
        };
        let (_, mut changes) = self.select(&id, Origin::User);
        if let Some(n) = step {
            changes |= self.select_step(n, Origin::User).unwrap_or_default();
        }
        changes
    }
}
