//! [`compare`](super::compare) for records held whole: each record's history and keys gathered
//! first, then aligned. It is what the viewer compares with, and its WebAssembly size: the
//! [`Sketch`](super::Sketch) and [`Plan`](super::Plan) that `lane-records diff` reads records
//! with must give the same [`Diff`] (the tests compare them on generated records), and cost
//! 1.5 KB gzip more in the viewer, which holds its records anyway.

#![allow(clippy::type_complexity)]

use std::hash::{BuildHasher, Hasher};

use crate::Label;
use crate::record::diff::align::{Kind, align};
use crate::record::diff::index::Index;
use crate::record::diff::{
    ChangeKind, Diff, Hold, HoldChange, LaneChange, Options, ProjectChange, Refusal, RefusalChange,
    Said, StepChange, key_fields, kth_keys,
};
use crate::record::{Op, Record, StartLeaseState, StepResult};

/// A hold of `run` (from `queue`) from step `from`, not yet released.
fn new_hold(run: &Label, queue: Option<&Label>, from: Option<usize>) -> Hold {
    Hold {
        run: run.clone(),
        queue: queue.cloned(),
        from,
        to: None,
        outcome: None,
        stop_requested: false,
        settled: None,
        millis: None,
    }
}

/// A record's lease handles and reservation ids, by what they name: a lease by its project
/// and run, a reservation by its queue, project and run. Lookups allocate nothing.
#[derive(Default)]
struct Names {
    leases: Index,
    reservations: Index,
    /// What each handle or id names (`docs/nightly-7`), or the handle itself if the record
    /// never issued it.
    named: Vec<String>,
}

impl Names {
    fn issue(at: &mut Index, named: &mut Vec<String>, key: &str, text: String) {
        at.insert(key, named.len());
        named.push(text);
    }

    fn issue_lease(&mut self, handle: &str, project: &Label, run: &Label) {
        let text = format!("{project}/{run}");
        Names::issue(&mut self.leases, &mut self.named, handle, text);
    }

    fn issue_reservation(&mut self, id: &str, queue: &Label, project: &Label, run: &Label) {
        let text = format!("{queue}/{project}/{run}");
        Names::issue(&mut self.reservations, &mut self.named, id, text);
    }

    /// What the lease handle (`reservation`: the reservation id) `key` names, by its place in
    /// `named`.
    fn name(&mut self, key: &str, reservation: bool) -> u32 {
        let at = if reservation {
            &self.reservations
        } else {
            &self.leases
        };
        match at.get(key) {
            Some(i) => i as u32,
            None => {
                self.named.push(key.to_owned());
                (self.named.len() - 1) as u32
            }
        }
    }
}

/// What a record's steps did to its lanes, read from the answers it saved.
pub struct History {
    /// Each project's holders, in the order they got the lane; projects in the record's order.
    pub holds: Vec<(Label, Vec<Hold>)>,
    /// For each step, what its lease handle or reservation id names (`None` for a step
    /// that names neither), by its place in `names`: handles are resolved as the record stood
    /// at that step.
    pub named: Vec<Option<u32>>,
    /// What the handles and ids name (`docs/nightly-7`).
    pub names: Vec<String>,
}

impl History {
    /// What step `n`'s handle or id names, if it has one.
    pub fn named(&self, n: usize) -> Option<&str> {
        let i = (*self.named.get(n)?)?;
        self.names.get(i as usize).map(String::as_str)
    }
}

/// The hold of `holds` still holding its lane, if any.
fn open(holds: &mut [Hold]) -> Option<&mut Hold> {
    holds.last_mut().filter(|h| h.to.is_none())
}

/// Reads `record`'s history.
pub fn history(record: &Record) -> History {
    let mut names = Names::default();
    let mut at = Index::new();
    let mut holds: Vec<(Label, Vec<Hold>)> = Vec::new();
    // The project's place in `holds`, given one first if it has none.
    let mut slot = |project: &Label, holds: &mut Vec<(Label, Vec<Hold>)>| -> usize {
        *at.get_or_insert(project.as_str(), || {
            holds.push((project.clone(), Vec::new()));
            holds.len() - 1
        })
    };
    for project in &record.projects {
        slot(project, &mut holds);
    }
    if let Some(start) = &record.start {
        for lease in &start.leases {
            names.issue_lease(&lease.handle, &lease.project, &lease.run);
            if lease.state != StartLeaseState::Released {
                let i = slot(&lease.project, &mut holds);
                let mut hold = new_hold(&lease.run, None, None);
                hold.stop_requested = lease.state == StartLeaseState::StopRequested;
                holds[i].1.push(hold);
            }
        }
        for r in &start.reservations {
            names.issue_reservation(&r.id.to_string(), &r.queue, &r.project, &r.run);
            if r.state.holds_lane() {
                let i = slot(&r.project, &mut holds);
                holds[i].1.push(new_hold(&r.run, Some(&r.queue), None));
            }
        }
    }
    let mut named = Vec::with_capacity(record.steps.len());
    for (n, step) in record.steps.iter().enumerate() {
        named.push(if let Some(lease) = &step.input.lease {
            Some(names.name(lease, false))
        } else {
            step.input.reservation.as_ref().map(|r| names.name(r, true))
        });
        let millis = |from: Option<usize>| -> Option<u64> {
            let start = record.steps.get(from?)?.at?.millis();
            Some(step.at?.millis().saturating_sub(start))
        };
        match &step.result {
            StepResult::Lease(lease) => {
                names.issue_lease(&lease.handle, &lease.project, &lease.run);
                let i = slot(&lease.project, &mut holds);
                holds[i].1.push(new_hold(&lease.run, None, Some(n)));
            }
            StepResult::View(view) if step.op == Op::RequestStop => {
                if let Some(i) = Label::new(&view.project).ok().map(|p| slot(&p, &mut holds))
                    && let Some(hold) = open(&mut holds[i].1)
                {
                    hold.stop_requested = true;
                }
            }
            StepResult::Receipt(receipt) => {
                let i = slot(&receipt.project, &mut holds);
                if let Some(hold) = open(&mut holds[i].1) {
                    hold.to = Some(n);
                    hold.outcome = Some(receipt.outcome);
                    hold.stop_requested |= receipt.stop_requested;
                    hold.millis = millis(hold.from);
                }
            }
            StepResult::Reservation(r) | StepResult::Persisting(r) => {
                names.issue_reservation(&r.id.to_string(), &r.queue, &r.project, &r.run);
            }
            StepResult::Dispatched(r) => {
                let i = slot(&r.project, &mut holds);
                holds[i].1.push(new_hold(&r.run, Some(&r.queue), Some(n)));
            }
            StepResult::Settled(settled) => {
                let i = slot(&settled.receipt.project, &mut holds);
                if let Some(hold) = open(&mut holds[i].1) {
                    hold.to = Some(n);
                    hold.outcome = Some(settled.receipt.outcome);
                    hold.settled = Some(settled.state);
                    hold.millis = millis(hold.from);
                }
            }
            _ => {}
        }
    }
    History {
        holds,
        named,
        names: names.named,
    }
}

/// [`compare`](super::compare), with steps' keys hashed by `hasher`.
pub fn compare_with(a: &Record, b: &Record, options: &Options, hasher: &impl BuildHasher) -> Diff {
    let (history_a, history_b) = (history(a), history(b));
    let keys_a = step_keys(a, &history_a, hasher);
    let keys_b = step_keys(b, &history_b, hasher);
    let (stretches, approximate) = align(&keys_a, &keys_b, options.budget);
    let mut steps = Vec::new();
    for s in stretches {
        match s.kind {
            Kind::Same => {
                for (i, j) in s.a.zip(s.b) {
                    let (sa, sb) = (&a.steps[i], &b.steps[j]);
                    // Keys are hashes: two steps aligned by an equal hash of unequal keys (a
                    // collision, never seen) are each found in one record only.
                    if key_fields(sa, history_a.named(i)) != key_fields(sb, history_b.named(j)) {
                        for (kind, a, b) in [
                            (ChangeKind::OnlyA, i..i + 1, j..j),
                            (ChangeKind::OnlyB, i + 1..i + 1, j..j + 1),
                        ] {
                            steps.push(StepChange {
                                kind,
                                a,
                                b,
                                answers: None,
                            });
                        }
                        continue;
                    }
                    let asked =
                        sa.input.outcome != sb.input.outcome || sa.input.saved != sb.input.saved;
                    // The same result says the same (most steps): no words to make.
                    if !asked && sa.result == sb.result {
                        continue;
                    }
                    let answers = [Said::of(&sa.result), Said::of(&sb.result)];
                    if asked || answers[0] != answers[1] {
                        steps.push(StepChange {
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
            }
            Kind::OnlyA | Kind::OnlyB => steps.push(StepChange {
                kind: if s.kind == Kind::OnlyA {
                    ChangeKind::OnlyA
                } else {
                    ChangeKind::OnlyB
                },
                a: s.a,
                b: s.b,
                answers: None,
            }),
        }
    }
    let (projects, holds) = holders(&history_a, &history_b, options);
    Diff {
        counts: [a.steps.len(), b.steps.len()],
        approximate,
        steps,
        projects,
        refusals: refusals(a, b),
        holds,
        final_lanes: final_lanes(a, b),
    }
}

/// Each step's key ([`key_fields`]), hashed by `hasher` (the same for both records).
fn step_keys(record: &Record, history: &History, hasher: &impl BuildHasher) -> Vec<u64> {
    (record.steps.iter().enumerate())
        .map(|(n, step)| {
            let mut h = hasher.build_hasher();
            for field in key_fields(step, history.named(n)) {
                // 0xfe and 0xff never occur in UTF-8: the fields stay apart.
                match field {
                    Some(text) => {
                        h.write(text.as_bytes());
                        h.write_u8(0xff);
                    }
                    None => h.write_u8(0xfe),
                }
            }
            h.finish()
        })
        .collect()
}

/// The projects whose holders differ, and the holds that got much longer or shorter: a run's
/// k-th hold of a project in A timed against its k-th hold of the project in B.
fn holders(a: &History, b: &History, options: &Options) -> (Vec<ProjectChange>, Vec<HoldChange>) {
    let index = |h: &History| -> Index {
        (h.holds.iter().enumerate())
            .map(|(i, (p, _))| (p.as_str(), i))
            .collect()
    };
    let (in_a, in_b) = (index(a), index(b));
    let none = Vec::new();
    let projects = a.holds.iter().map(|(p, _)| p).chain(
        b.holds
            .iter()
            .map(|(p, _)| p)
            .filter(|p| !in_a.contains(p.as_str())),
    );
    let (mut changes, mut longer) = (Vec::new(), Vec::new());
    for project in projects {
        let ha = in_a.get(project.as_str()).map_or(&none, |i| &a.holds[i].1);
        let hb = in_b.get(project.as_str()).map_or(&none, |i| &b.holds[i].1);
        let same = ha.iter().zip(hb).take_while(|(x, y)| x.same_as(y)).count();
        // A run's k-th hold of the project in B, to time against the same in A.
        let mut in_b = Index::new();
        for (j, key) in kth_keys(hb).enumerate() {
            in_b.insert(&key, j);
        }
        for (i, (x, key)) in ha.iter().zip(kth_keys(ha)).enumerate() {
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

/// Each run's first refusal (of a claim or a place in a queue) in `record`, in step order,
/// and where each run's is (keyed `project` and `run` joined by U+001F).
fn refused(record: &Record) -> (Vec<(&str, &str, Refusal)>, Index) {
    let (mut first, mut at) = (Vec::new(), Index::new());
    for (step, s) in record.steps.iter().enumerate() {
        if let (StepResult::Error(e), Some(project), Some(run)) =
            (&s.result, &s.input.project, &s.input.run)
        {
            at.get_or_insert(&format!("{project}\u{1f}{run}"), || {
                let refusal = Refusal {
                    step,
                    code: e.code(),
                };
                first.push((&**project, &**run, refusal));
                first.len() - 1
            });
        }
    }
    (first, at)
}

/// The runs refused in one record and never in the other, in order of their first refusal
/// (A's, then B's).
fn refusals(a: &Record, b: &Record) -> Vec<RefusalChange> {
    let [ra, rb] = [refused(a), refused(b)];
    let mut changes: Vec<RefusalChange> = Vec::new();
    for (side, (mine, theirs)) in [(&ra, &rb), (&rb, &ra)].into_iter().enumerate() {
        for (project, run, refusal) in &mine.0 {
            if theirs.1.contains(&format!("{project}\u{1f}{run}")) {
                continue;
            }
            let mut refused = [None, None];
            refused[side] = Some(refusal.clone());
            changes.push(RefusalChange {
                project: (*project).to_owned(),
                run: (*run).to_owned(),
                refused,
            });
        }
    }
    changes
}

/// The projects whose lane differs after the last step, in A's order and then B's.
fn final_lanes(a: &Record, b: &Record) -> Vec<LaneChange> {
    let index = |r: &Record| -> Index {
        (r.final_lanes.iter().enumerate())
            .map(|(i, l)| (&*l.project, i))
            .collect()
    };
    let (in_a, in_b) = (index(a), index(b));
    let projects = a.final_lanes.iter().map(|l| &*l.project).chain(
        b.final_lanes
            .iter()
            .map(|l| &*l.project)
            .filter(|p| !in_a.contains(p)),
    );
    projects
        .filter_map(|p| {
            let la = in_a.get(p).map(|i| &a.final_lanes[i]);
            let lb = in_b.get(p).map(|i| &b.final_lanes[i]);
            (la != lb).then(|| LaneChange {
                project: p.to_owned(),
                lanes: [la.cloned(), lb.cloned()],
            })
        })
        .collect()
}
