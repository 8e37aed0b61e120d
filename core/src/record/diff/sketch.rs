//! Comparing records read one step at a time: a [`Sketch`] of each record (a few numbers a
//! step, and what each project's lane went through), a [`Plan`] made from the two sketches,
//! and the few steps the plan asks for, read again, to finish the [`Diff`].

use std::hash::{BuildHasher, Hasher};

use hashbrown::DefaultHashBuilder;

use super::align::{Kind, align};
use super::holds::History;
use super::{
    ChangeKind, Diff, Index, Options, Refusal, Said, StepChange, final_lanes, holders, key_fields,
    refusals, says, write_fields,
};
use crate::record::{Record, Start, Step, StepResult};
use crate::{Label, LaneView};

/// What [`Plan`] needs of one record, gathered a step at a time: each step's key (what the
/// alignment matches on) and a check of everything compared (key, outcome and `saved`, what
/// the answer says), both hashed, so about 16 bytes a step; each project's holders; each run's
/// first refusal; and the lanes after the last step.
///
/// Feed it [`start`](Sketch::start) (if the record has one), every [`step`](Sketch::step) in
/// order, then [`finish`](Sketch::finish). The two sketches compared must come from one
/// [`Sketch::pair`].
///
/// ```
/// use project_lanes::record::Recorder;
/// use project_lanes::record::diff::{Options, Plan, Sketch, compare};
/// # use project_lanes::record::Text;
/// # let text = |s: &str| Text { en: s.into(), ja: s.into() };
/// let night = |outcome: &str| -> Result<_, Box<dyn std::error::Error>> {
///     let mut rec = Recorder::new("night", text("A night"), text("One run."), &["docs", "site"], "site")?;
///     rec.claim("docs", "nightly-7");
///     rec.release("L1", outcome);
///     Ok(rec.finish()?)
/// };
/// let (a, b) = (night("succeeded")?, night("failed")?);
/// let [mut sa, mut sb] = Sketch::pair();
/// for (sketch, record) in [(&mut sa, &a), (&mut sb, &b)] {
///     for step in &record.steps {
///         sketch.step(step); // as a reader hands them out
///     }
///     sketch.finish(&record.projects, &record.final_lanes);
/// }
/// let plan = Plan::new(&sa, &sb, &Options::default());
/// // The steps the words need, read again (here at hand).
/// assert_eq!(plan.wanted(), [&[1][..], &[1][..]]);
/// let diff = plan.finish([&sa, &sb], [&|n| a.steps.get(n), &|n| b.steps.get(n)]);
/// assert_eq!(diff, compare(&a, &b, &Options::default()));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Sketch<S = DefaultHashBuilder> {
    /// Hashes keys.
    keys_hasher: S,
    /// Hashes checks: another hasher, so that keys that collide are still told apart.
    checks_hasher: DefaultHashBuilder,
    keys: Vec<u64>,
    checks: Vec<u64>,
    history: History,
    refused: Refused,
    final_lanes: Vec<LaneView>,
}

/// Each run's first refusal (of a claim or a place in a queue), in step order, and where each
/// run's is (keyed `project` and `run` joined by U+001F).
#[derive(Default)]
pub(super) struct Refused {
    pub first: Vec<(String, String, Refusal)>,
    pub at: Index,
}

impl Sketch {
    /// Two empty sketches whose steps can be compared.
    pub fn pair() -> [Sketch; 2] {
        Sketch::pair_with(DefaultHashBuilder::default())
    }
}

impl<S: BuildHasher + Clone> Sketch<S> {
    /// [`Sketch::pair`], with keys hashed by `hasher`.
    pub(super) fn pair_with(hasher: S) -> [Sketch<S>; 2] {
        let checks = DefaultHashBuilder::default();
        [(); 2].map(|()| Sketch {
            keys_hasher: hasher.clone(),
            checks_hasher: checks.clone(),
            keys: Vec::new(),
            checks: Vec::new(),
            history: History::default(),
            refused: Refused::default(),
            final_lanes: Vec::new(),
        })
    }

    /// What was held before the first step (a version 2 or 3 record's start).
    pub fn start(&mut self, start: &Start) {
        self.history.start(start);
    }

    /// The next step.
    pub fn step(&mut self, step: &Step) {
        let n = self.keys.len();
        let named = self.history.named(step, n);
        let [op, queue, project, run, named] = key_fields(step, named);
        let mut h = self.keys_hasher.build_hasher();
        write_fields(&mut h, &[op, queue, project, run, named]);
        self.keys.push(h.finish());
        let said = says(&step.result);
        let yes = |b: Option<bool>| b.map(|b| if b { "true" } else { "false" });
        let mut h = self.checks_hasher.build_hasher();
        write_fields(
            &mut h,
            &[
                op,
                queue,
                project,
                run,
                named,
                step.input.outcome.as_deref(),
                yes(step.input.saved),
                Some(said.code),
                said.state,
                said.project,
                said.run,
                said.outcome.map(|o| o.as_str()),
                yes(said.stop_requested),
            ],
        );
        self.checks.push(h.finish());
        if let (StepResult::Error(e), Some(project), Some(run)) =
            (&step.result, &step.input.project, &step.input.run)
        {
            let Refused { first, at } = &mut self.refused;
            at.get_or_insert(&format!("{project}\u{1f}{run}"), || {
                let refusal = Refusal {
                    step: n,
                    code: e.code(),
                };
                first.push((project.to_string(), run.to_string(), refusal));
                first.len() - 1
            });
        }
        self.history.step(step);
    }

    /// After the last step: the record's projects (in its order) and its lanes after the last
    /// step.
    pub fn finish(&mut self, projects: &[Label], final_lanes: &[LaneView]) {
        self.history.order(projects);
        self.final_lanes = final_lanes.to_vec();
    }

    /// A whole record: its start, its steps, and [`finish`](Sketch::finish).
    pub fn record(&mut self, record: &Record) {
        if let Some(start) = &record.start {
            self.start(start);
        }
        for step in &record.steps {
            self.step(step);
        }
        self.finish(&record.projects, &record.final_lanes);
    }

    /// How many steps it has seen.
    pub fn steps(&self) -> usize {
        self.keys.len()
    }
}

/// The comparison of two [`Sketch`]es, but for the steps it needs to say what differs
/// ([`wanted`](Plan::wanted)): steps aligned whose checks differ, and the first step of each
/// stretch found in one record only. [`finish`](Plan::finish) takes them and gives the
/// [`Diff`] that [`compare`](super::compare) gives for the whole records.
pub struct Plan {
    /// The diff, but for its steps.
    diff: Diff,
    /// The steps' changes in order, aligned steps whose checks differ as yet undecided.
    entries: Vec<Entry>,
    wanted: [Vec<usize>; 2],
}

enum Entry {
    Change(StepChange),
    /// Step `.0` of A aligned with step `.1` of B.
    Pair(usize, usize),
}

impl Plan {
    /// Aligns the sketches' steps and compares the rest: holders, refusals, final lanes.
    pub fn new<S>(a: &Sketch<S>, b: &Sketch<S>, options: &Options) -> Plan {
        let (stretches, approximate) = align(&a.keys, &b.keys, options.budget);
        let mut entries = Vec::new();
        let mut wanted = [Vec::new(), Vec::new()];
        for s in stretches {
            let kind = match s.kind {
                Kind::Same => {
                    for (i, j) in s.a.zip(s.b) {
                        if a.checks[i] != b.checks[j] {
                            entries.push(Entry::Pair(i, j));
                            wanted[0].push(i);
                            wanted[1].push(j);
                        }
                    }
                    continue;
                }
                Kind::OnlyA => {
                    wanted[0].push(s.a.start);
                    ChangeKind::OnlyA
                }
                Kind::OnlyB => {
                    wanted[1].push(s.b.start);
                    ChangeKind::OnlyB
                }
            };
            entries.push(Entry::Change(StepChange {
                kind,
                a: s.a,
                b: s.b,
                answers: None,
            }));
        }
        let (projects, holds) = holders(&a.history, &b.history, options);
        Plan {
            diff: Diff {
                counts: [a.keys.len(), b.keys.len()],
                approximate,
                steps: Vec::new(),
                projects,
                refusals: refusals(&a.refused, &b.refused),
                holds,
                final_lanes: final_lanes(&a.final_lanes, &b.final_lanes),
            },
            entries,
            wanted,
        }
    }

    /// The steps (from 0, in order) of A and of B that [`finish`](Plan::finish) needs.
    pub fn wanted(&self) -> [&[usize]; 2] {
        [&self.wanted[0], &self.wanted[1]]
    }

    /// The diff, given the sketches it was made from and the [`wanted`](Plan::wanted) steps of
    /// each record (`steps[0](n)`: step `n` of A). A pair of steps of which one is missing is
    /// taken for the same.
    pub fn finish<'s, S>(
        self,
        [a, b]: [&Sketch<S>; 2],
        steps: [&dyn Fn(usize) -> Option<&'s Step>; 2],
    ) -> Diff {
        let Plan {
            mut diff, entries, ..
        } = self;
        for entry in entries {
            let (i, j) = match entry {
                Entry::Change(change) => {
                    diff.steps.push(change);
                    continue;
                }
                Entry::Pair(i, j) => (i, j),
            };
            let (Some(sa), Some(sb)) = (steps[0](i), steps[1](j)) else {
                continue;
            };
            // Keys are hashes: two steps aligned by an equal hash of unequal keys (a collision,
            // never seen) are each found in one record only.
            if key_fields(sa, a.history.named(sa, i)) != key_fields(sb, b.history.named(sb, j)) {
                for (kind, a, b) in [
                    (ChangeKind::OnlyA, i..i + 1, j..j),
                    (ChangeKind::OnlyB, i + 1..i + 1, j..j + 1),
                ] {
                    diff.steps.push(StepChange {
                        kind,
                        a,
                        b,
                        answers: None,
                    });
                }
                continue;
            }
            let asked = sa.input.outcome != sb.input.outcome || sa.input.saved != sb.input.saved;
            let answers = [Said::of(&sa.result), Said::of(&sb.result)];
            if asked || answers[0] != answers[1] {
                diff.steps.push(StepChange {
                    kind: if asked {
                        ChangeKind::Asked
                    } else {
                        ChangeKind::Answered
                    },
                    a: i..i + 1,
                    b: j..j + 1,
                    answers: Some(answers),
                });
            }
        }
        diff
    }
}
