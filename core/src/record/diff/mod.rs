//! What changed between two records: [`compare`] aligns their steps and compares what each
//! project's lane went through, in the record's own terms.
//!
//! - **Steps** are aligned by whom they concern: the operation and its input but for an outcome
//!   or `saved`, with lease handles and reservation ids read as what they name (`L3` as
//!   `docs/nightly-7`), so a record that numbers its leases differently still aligns (keys
//!   are hashed, and every pair aligned is checked field by field). The
//!   alignment has the fewest steps found in one record only (Myers' algorithm after the start
//!   and end both share, bounded: see [`Options::budget`]). A step of both given another
//!   outcome or `saved` is [`ChangeKind::Asked`]; one asked the same whose answer differs is
//!   [`ChangeKind::Answered`]. Answers are compared by what they say ([`Said`]), not by
//!   handles or ids.
//! - **Projects**: each project's holders in order ([`Hold`]: the run, its queue, its outcome,
//!   a stop request, how a reservation settled); the first hold that differs is reported.
//! - **Refusals**: a run (project and run label) refused a claim or a place in a queue in one
//!   record and never in the other.
//! - **Hold times**: where both records have times, a hold of the same run that got at least
//!   [`Options::hold_ratio`] times longer or shorter (and by at least
//!   [`Options::hold_min_millis`]): a run's k-th hold of a project against its k-th in the other
//!   record, even after the project's holders differ.
//! - **Final lanes**: the lanes after the last step.
//!
//! Titles, summaries, notes, callers and times of steps are not compared, only what happened.
//!
//! ```
//! use project_lanes::record::Recorder;
//! use project_lanes::record::diff::{ChangeKind, Options, compare};
//! use project_lanes::Outcome;
//! # use project_lanes::record::Text;
//! # let text = |s: &str| Text { en: s.into(), ja: s.into() };
//! let night = |outcome: Outcome| -> Result<_, Box<dyn std::error::Error>> {
//!     let mut rec = Recorder::new("night", text("A night"), text("One run."), &["docs", "site"], "site")?;
//!     rec.claim("docs", "nightly-7");
//!     rec.release("L1", outcome.as_str());
//!     Ok(rec.finish()?)
//! };
//! let (before, after) = (night(Outcome::Succeeded)?, night(Outcome::Failed)?);
//! assert!(compare(&before, &before, &Options::default()).is_empty());
//! let diff = compare(&before, &after, &Options::default());
//! assert_eq!(diff.steps[0].kind, ChangeKind::Asked);
//! assert_eq!((diff.steps[0].a.start, diff.steps[0].b.start), (1, 1)); // the release
//! assert_eq!(diff.projects[0].project.as_str(), "docs");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod align;
mod holds;
mod index;
mod sketch;
mod whole;

use std::hash::Hasher;
use std::ops::Range;

/// Text to a position: the one map of the comparison (each other map type would be code of its
/// own in the viewer's wasm).
use index::Index;

use serde::Serialize;

pub use holds::Hold;
pub use sketch::{Plan, Sketch};

use crate::record::{Record, Step, StepResult};
use crate::{Label, LaneView, Outcome};

use holds::History;
use sketch::Refused;

/// How [`compare`] works.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    /// A hold of the same run is reported when one record's is at least this many times
    /// the other's (default 2).
    pub hold_ratio: f64,
    /// … and longer by at least this many milliseconds (default 1,000).
    pub hold_min_millis: u64,
    /// The most steps found in one record only that the alignment looks for between the start
    /// and the end both records share (default [`BUDGET`]). Past it, the steps between are
    /// reported as found in one only and [`Diff::approximate`] says so: the time taken stays
    /// about `steps × budget` and the memory `budget²` at worst.
    pub budget: usize,
}

/// The alignment's default budget: more steps in one record only than this, and the records
/// are too different to align step by step.
pub const BUDGET: usize = 2_000;

impl Default for Options {
    fn default() -> Options {
        Options {
            hold_ratio: 2.0,
            hold_min_millis: 1_000,
            budget: BUDGET,
        }
    }
}

/// The difference between two records, A and B. Steps are counted from 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    /// How many steps each record has.
    pub counts: [usize; 2],
    /// Whether the alignment gave up (more than [`Options::budget`] steps in one record only):
    /// then the steps between the start and end both share are all reported in one only.
    pub approximate: bool,
    /// The steps found in one record only, and the steps of both answered differently, in
    /// order.
    pub steps: Vec<StepChange>,
    /// The projects whose holders differ, in A's order of projects and then B's.
    pub projects: Vec<ProjectChange>,
    /// The runs refused in one record and not in the other, in order of their first refusal.
    pub refusals: Vec<RefusalChange>,
    /// The holds that got much longer or shorter.
    pub holds: Vec<HoldChange>,
    /// The projects whose lane differs after the last step.
    pub final_lanes: Vec<LaneChange>,
}

impl Diff {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
            && self.projects.is_empty()
            && self.refusals.is_empty()
            && self.holds.is_empty()
            && self.final_lanes.is_empty()
    }
}

/// What a [`StepChange`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// Steps found in A only (`b` is empty: where they would be in B).
    OnlyA,
    /// Steps found in B only (`a` is empty: where they would be in A).
    OnlyB,
    /// One step of both, for the same project, run, lease or reservation, given another
    /// outcome or `saved`.
    Asked,
    /// One step of both, asked the same and answered differently.
    Answered,
}

impl ChangeKind {
    /// `only_a`, `only_b`, `asked` or `answered`.
    pub const fn as_str(self) -> &'static str {
        match self {
            ChangeKind::OnlyA => "only_a",
            ChangeKind::OnlyB => "only_b",
            ChangeKind::Asked => "asked",
            ChangeKind::Answered => "answered",
        }
    }
}

/// A change between the records' steps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepChange {
    /// What it is.
    pub kind: ChangeKind,
    /// Its steps in A.
    pub a: Range<usize>,
    /// Its steps in B.
    pub b: Range<usize>,
    /// For [`ChangeKind::Asked`] and [`ChangeKind::Answered`]: what each record's step
    /// answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answers: Option<[Said; 2]>,
}

/// What an answer says, without the record's own numbering (lease handles, reservation ids).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Said {
    /// `ok`, or the refusal's code.
    pub code: &'static str,
    /// For `ok`: `running` (a lease), `idle` or a lane's state (a view), `released` (a
    /// receipt), a reservation's state, or `nothing` (a dispatch that found nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<&'static str>,
    /// The project it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// The run it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The outcome it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// A receipt's word on whether a stop was requested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_requested: Option<bool>,
}

impl Said {
    /// What `result` says.
    pub fn of(result: &StepResult) -> Said {
        let said = says(result);
        Said {
            code: said.code,
            state: said.state,
            project: said.project.map(str::to_owned),
            run: said.run.map(str::to_owned),
            outcome: said.outcome,
            stop_requested: said.stop_requested,
        }
    }
}

/// [`Said`], borrowed from the result.
struct Says<'a> {
    code: &'static str,
    state: Option<&'static str>,
    project: Option<&'a str>,
    run: Option<&'a str>,
    outcome: Option<Outcome>,
    stop_requested: Option<bool>,
}

/// What `result` says, borrowed.
fn says(result: &StepResult) -> Says<'_> {
    let (project, run, state, outcome, stop): (Option<&str>, Option<&str>, _, _, _) = match result {
        StepResult::Lease(lease) => (
            Some(&lease.project),
            Some(&lease.run),
            Some("running"),
            None,
            None,
        ),
        StepResult::View(view) => (
            Some(&view.project),
            view.run.as_deref(),
            Some(view.state.map_or("idle", |s| s.as_str())),
            None,
            None,
        ),
        StepResult::Receipt(r) => (
            Some(&r.project),
            Some(&r.run),
            Some("released"),
            Some(r.outcome),
            Some(r.stop_requested),
        ),
        StepResult::Reservation(r) | StepResult::Dispatched(r) | StepResult::Persisting(r) => (
            Some(&r.project),
            Some(&r.run),
            Some(r.state.as_str()),
            r.outcome,
            None,
        ),
        StepResult::Settled(s) => (
            Some(&s.receipt.project),
            Some(&s.receipt.run),
            Some(s.state.as_str()),
            Some(s.receipt.outcome),
            Some(s.receipt.stop_requested),
        ),
        StepResult::Nothing(_) => (None, None, Some("nothing"), None, None),
        StepResult::Error(_) => (None, None, None, None, None),
    };
    Says {
        code: result.code(),
        state,
        project,
        run,
        outcome,
        stop_requested: stop,
    }
}

/// A project whose holders differ: the first hold that differs in each (`None` where that
/// record has no more holds).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProjectChange {
    /// The project.
    pub project: Label,
    /// The first hold that differs, counted from 0.
    pub first: usize,
    /// That hold in A and in B.
    pub holds: [Option<Hold>; 2],
    /// How many holds each record has for the project.
    pub counts: [usize; 2],
}

/// A run refused in one record and never in the other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefusalChange {
    /// The project, as the step gave it.
    pub project: String,
    /// The run label, as the step gave it.
    pub run: String,
    /// Its first refusal in A and in B (one of them `None`).
    pub refused: [Option<Refusal>; 2],
}

/// A step that refused a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Refusal {
    /// The step.
    pub step: usize,
    /// The refusal's code.
    pub code: &'static str,
}

/// A hold of the same run that got much longer or shorter.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HoldChange {
    /// The project.
    pub project: Label,
    /// Which of the project's holds in A, counted from 0.
    pub hold: usize,
    /// The run holding it.
    pub run: Label,
    /// How long it held the lane in A and in B, in milliseconds.
    pub millis: [u64; 2],
    /// The step that gave it the lane in A and in B.
    pub from: [Option<usize>; 2],
}

/// A project whose lane differs after the last step (`None` where a record has no such
/// project).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LaneChange {
    /// The project.
    pub project: String,
    /// Its lane after A's last step and after B's.
    pub lanes: [Option<LaneView>; 2],
}

/// Compares records `a` and `b` (any version; a version 3 record as
/// [`Gather`](crate::record::stream::Gather) gathers it). [`Sketch`] and [`Plan`] compare
/// records read one step at a time, as `lane-records diff` does, to the same [`Diff`].
pub fn compare(a: &Record, b: &Record, options: &Options) -> Diff {
    whole::compare_with(a, b, options, &hashbrown::DefaultHashBuilder::default())
}

/// What a step's key is made of: its operation and its input but for an outcome or `saved`,
/// with what its handle or id names (`named`) in place of the handle.
fn key_fields<'a>(step: &'a Step, named: Option<&'a str>) -> [Option<&'a str>; 5] {
    let input = &step.input;
    [
        Some(step.op.as_str()),
        input.queue.as_deref(),
        input.project.as_deref(),
        input.run.as_deref(),
        named,
    ]
}

/// Hashes `fields` into `h`, each kept apart from the next.
fn write_fields(h: &mut impl Hasher, fields: &[Option<&str>]) {
    for &field in fields {
        // 0xfe and 0xff never occur in UTF-8: the fields stay apart.
        match field {
            Some(text) => {
                h.write(text.as_bytes());
                h.write_u8(0xff);
            }
            None => h.write_u8(0xfe),
        }
    }
}

/// Each hold's key: its run, U+001F, and which of the run's holds it is (from 1).
fn kth_keys(holds: &[Hold]) -> impl Iterator<Item = String> + '_ {
    let mut seen = Index::new();
    holds.iter().map(move |h| {
        let k = seen.get_or_insert(h.run.as_str(), || 0);
        *k += 1;
        format!("{}\u{1f}{k}", h.run)
    })
}

/// The projects whose holders differ, and the holds that got much longer or shorter: a run's
/// k-th hold of a project in A timed against its k-th hold of the project in B.
fn holders(a: &History, b: &History, options: &Options) -> (Vec<ProjectChange>, Vec<HoldChange>) {
    let projects = a
        .projects()
        .chain(b.projects().filter(|p| !a.has(p.as_str())));
    let (mut changes, mut longer) = (Vec::new(), Vec::new());
    for project in projects {
        let (ha, hb) = (a.holds_of(project.as_str()), b.holds_of(project.as_str()));
        let same = ha.iter().zip(&hb).take_while(|(x, y)| x.same_as(y)).count();
        // A run's k-th hold of the project in B, to time against the same in A.
        let mut in_b = Index::new();
        for (j, key) in kth_keys(&hb).enumerate() {
            in_b.insert(&key, j);
        }
        for (i, (x, key)) in ha.iter().zip(kth_keys(&ha)).enumerate() {
            let Some(y) = in_b.get(&key).map(|j| &hb[j]) else {
                continue;
            };
            if let (Some(ma), Some(mb)) = (x.millis, y.millis) {
                let (low, high) = (ma.min(mb), ma.max(mb));
                if high - low >= options.hold_min_millis
                    && high as f64 >= low as f64 * options.hold_ratio
                {
                    longer.push(HoldChange {
                        project: project.clone(),
                        hold: i,
                        run: x.run.clone(),
                        millis: [ma, mb],
                        from: [x.from, y.from],
                    });
                }
            }
        }
        if same < ha.len() || same < hb.len() {
            changes.push(ProjectChange {
                project: project.clone(),
                first: same,
                holds: [ha.get(same).cloned(), hb.get(same).cloned()],
                counts: [ha.len(), hb.len()],
            });
        }
    }
    (changes, longer)
}

/// The runs refused in one record and never in the other, in order of their first refusal
/// (A's, then B's).
fn refusals(a: &Refused, b: &Refused) -> Vec<RefusalChange> {
    let mut changes: Vec<RefusalChange> = Vec::new();
    for (side, (mine, theirs)) in [(a, b), (b, a)].into_iter().enumerate() {
        for (project, run, refusal) in &mine.first {
            if theirs.at.contains(&format!("{project}\u{1f}{run}")) {
                continue;
            }
            let mut refused = [None, None];
            refused[side] = Some(refusal.clone());
            changes.push(RefusalChange {
                project: project.clone(),
                run: run.clone(),
                refused,
            });
        }
    }
    changes
}

/// The projects whose lane differs after the last step, in A's order and then B's.
fn final_lanes(a: &[LaneView], b: &[LaneView]) -> Vec<LaneChange> {
    let index = |lanes: &[LaneView]| -> Index {
        (lanes.iter().enumerate())
            .map(|(i, l)| (&*l.project, i))
            .collect()
    };
    let (in_a, in_b) = (index(a), index(b));
    let projects = a
        .iter()
        .map(|l| &*l.project)
        .chain(b.iter().map(|l| &*l.project).filter(|p| !in_a.contains(p)));
    projects
        .filter_map(|p| {
            let la = in_a.get(p).map(|i| &a[i]);
            let lb = in_b.get(p).map(|i| &b[i]);
            (la != lb).then(|| LaneChange {
                project: p.to_owned(),
                lanes: [la.cloned(), lb.cloned()],
            })
        })
        .collect()
}

#[cfg(test)]
mod tests;
