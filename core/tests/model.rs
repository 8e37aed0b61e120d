//! Random operation sequences against a simple model of the contract: every result must match.

use std::collections::HashMap;

use project_lanes::{
    LaneError, LaneState, LaneView, Lease, Outcome, ProjectLanes, Receipt, is_valid_label,
};
use proptest::prelude::*;

const PROJECTS: [&str; 4] = ["alpha", "beta", "gamma", "bad project"];
const RUNS: [&str; 3] = ["run-1", "run-2", "-bad"];

#[derive(Debug, Clone)]
enum Op {
    Claim {
        manager: usize,
        project: usize,
        run: usize,
    },
    Stop {
        lease: usize,
    },
    Release {
        lease: usize,
        outcome: usize,
    },
    View {
        manager: usize,
        project: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..2usize, 0..PROJECTS.len(), 0..RUNS.len()).prop_map(|(manager, project, run)| {
            Op::Claim {
                manager,
                project,
                run,
            }
        }),
        (0..64usize).prop_map(|lease| Op::Stop { lease }),
        // Outcome index 4 stands for text that is not an outcome.
        (0..64usize, 0..5usize).prop_map(|(lease, outcome)| Op::Release { lease, outcome }),
        (0..2usize, 0..PROJECTS.len()).prop_map(|(manager, project)| Op::View { manager, project }),
    ]
}

/// What the model knows of one held lane: which lease (by issue number) and whether stop was asked.
#[derive(Clone)]
struct Held {
    lease: usize,
    run: &'static str,
    stop: bool,
}

#[derive(Default)]
struct Model {
    lanes: [HashMap<&'static str, Held>; 2],
}

impl Model {
    fn claim(
        &mut self,
        m: usize,
        project: &'static str,
        run: &'static str,
        id: usize,
    ) -> Result<(), LaneError> {
        if !is_valid_label(project) || !is_valid_label(run) {
            return Err(LaneError::InvalidLabel);
        }
        if self.lanes[m].contains_key(project) {
            return Err(LaneError::ProjectBusy);
        }
        self.lanes[m].insert(
            project,
            Held {
                lease: id,
                run,
                stop: false,
            },
        );
        Ok(())
    }

    fn current(&mut self, m: usize, project: &str, id: usize) -> Result<&mut Held, LaneError> {
        self.lanes[m]
            .get_mut(project)
            .filter(|h| h.lease == id)
            .ok_or(LaneError::LeaseNotCurrent)
    }

    fn view(&self, m: usize, project: &str) -> Result<LaneView, LaneError> {
        if !is_valid_label(project) {
            return Err(LaneError::InvalidLabel);
        }
        Ok(match self.lanes[m].get(project) {
            Some(h) => LaneView::held(project, h.run, state(h.stop)),
            None => LaneView::idle(project),
        })
    }
}

fn state(stop: bool) -> LaneState {
    if stop {
        LaneState::StopRequested
    } else {
        LaneState::Running
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn lanes_agree_with_the_model(ops in proptest::collection::vec(op(), 1..80)) {
        let managers = [ProjectLanes::new(), ProjectLanes::new()];
        let mut model = Model::default();
        // Every lease ever issued, with the manager that issued it.
        let mut leases: Vec<(usize, Lease)> = Vec::new();

        for op in ops {
            match op {
                Op::Claim { manager, project, run } => {
                    let (project, run) = (PROJECTS[project], RUNS[run]);
                    let expected = model.claim(manager, project, run, leases.len());
                    let actual = managers[manager].claim(project, run);
                    prop_assert_eq!(actual.as_ref().err().copied(), expected.err());
                    if let Ok(lease) = actual {
                        prop_assert_eq!((lease.project(), lease.run()), (project, run));
                        leases.push((manager, lease));
                    }
                }
                Op::Stop { lease } if lease < leases.len() => {
                    // Present the lease to both managers: only its own, and only while current.
                    for (m, manager) in managers.iter().enumerate() {
                        let (owner, l) = &leases[lease];
                        let expected = if m == *owner {
                            model.current(m, l.project(), lease).map(|h| {
                                h.stop = true;
                                LaneView::held(l.project(), h.run, LaneState::StopRequested)
                            })
                        } else {
                            Err(LaneError::LeaseNotCurrent)
                        };
                        prop_assert_eq!(manager.request_stop(l), expected);
                    }
                }
                Op::Release { lease, outcome } if lease < leases.len() => {
                    let (owner, l) = &leases[lease];
                    let text = Outcome::ALL.get(outcome).map_or("finished", |o| o.as_str());
                    for m in [1 - owner, *owner] {
                        let expected = match text.parse::<Outcome>() {
                            Err(e) => Err(e),
                            Ok(_) if m != *owner => Err(LaneError::LeaseNotCurrent),
                            Ok(o) => model.current(m, l.project(), lease).map(|h| (h.stop, o)),
                        }
                        .map(|(stop, o)| {
                            model.lanes[m].remove(l.project());
                            Receipt {
                                project: l.project().try_into().unwrap(),
                                run: l.run().try_into().unwrap(),
                                outcome: o,
                                stop_requested: stop,
                                work_executed_here: false,
                            }
                        });
                        let actual = text.parse::<Outcome>().and_then(|o| managers[m].release(l, o));
                        prop_assert_eq!(actual, expected);
                    }
                }
                Op::View { manager, project } => {
                    let project = PROJECTS[project];
                    prop_assert_eq!(managers[manager].view(project), model.view(manager, project));
                }
                Op::Stop { .. } | Op::Release { .. } => {}
            }
            // After every step, every project's lane in both managers matches the model.
            for (m, manager) in managers.iter().enumerate() {
                for project in PROJECTS {
                    prop_assert_eq!(manager.view(project), model.view(m, project));
                }
            }
        }
    }

    #[test]
    fn the_label_rule_matches_its_regular_expression(label in "[A-Za-z0-9._ /é-]{0,90}|[a-z0-9]{75,85}") {
        let rule = regex::Regex::new(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,79}\z").unwrap();
        prop_assert_eq!(is_valid_label(&label), rule.is_match(&label));
    }
}
