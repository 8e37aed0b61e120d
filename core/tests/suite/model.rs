//! Random operation sequences on two managers against a simple model of the lane contract, for
//! any backend (`project_lanes::backend::Lanes`): every result and every lane must match.
//!
//! Shared by `core/tests/model.rs` (in memory) and `pg-tests/tests/model.rs` (PostgreSQL): a test file
//! includes this module as `model_suite` and runs `model_suite::agrees_with_the_model` on two
//! new, independent, empty lanes with sequences drawn from `model_suite::op()`.

use std::collections::HashMap;

use proptest::prelude::*;

use project_lanes::backend::{Lanes, LeaseInfo, Refusal};
use project_lanes::{LaneError, LaneState, LaneView, Outcome, Receipt, is_valid_label};

const PROJECTS: [&str; 4] = ["alpha", "beta", "gamma", "bad project"];
const RUNS: [&str; 3] = ["run-1", "run-2", "-bad"];

/// One step of a sequence.
#[derive(Debug, Clone)]
pub enum Op {
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

/// Any step: claims (valid or not), stops and releases of any lease issued so far, views.
pub fn op() -> impl Strategy<Value = Op> {
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
    /// Per manager and project, how many claims succeeded: the last lease's generation.
    claims: [HashMap<&'static str, u64>; 2],
}

impl Model {
    fn claim(
        &mut self,
        m: usize,
        project: &'static str,
        run: &'static str,
        id: usize,
    ) -> Result<u64, LaneError> {
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
        let generation = self.claims[m].entry(project).or_default();
        *generation += 1;
        Ok(*generation)
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

/// A result with its refusal as a `LaneError`; a backend failure (or a refusal that is not a
/// lane's) fails the case.
fn lane_result<T, E: Refusal>(result: Result<T, E>) -> Result<Result<T, LaneError>, TestCaseError> {
    match result {
        Ok(value) => Ok(Ok(value)),
        Err(e) => match e.lane_error() {
            Some(refusal) => Ok(Err(refusal)),
            None => Err(TestCaseError::fail(format!(
                "expected a lane refusal, got {e:?}"
            ))),
        },
    }
}

/// Runs `ops` on `managers` (two new, independent, empty lanes) and on the model, comparing every
/// result and, after every step, every project's lane in both managers.
pub fn agrees_with_the_model<L: Lanes>(
    managers: [L; 2],
    ops: Vec<Op>,
) -> Result<(), TestCaseError> {
    let mut model = Model::default();
    // Every lease ever issued, with the manager that issued it.
    let mut leases: Vec<(usize, L::Lease)> = Vec::new();

    for op in ops {
        match op {
            Op::Claim {
                manager,
                project,
                run,
            } => {
                let (project, run) = (PROJECTS[project], RUNS[run]);
                let expected = model.claim(manager, project, run, leases.len());
                let actual = lane_result(managers[manager].claim(project, run))?;
                prop_assert_eq!(actual.as_ref().err().copied(), expected.err());
                if let (Ok(lease), Ok(generation)) = (actual, expected) {
                    prop_assert_eq!(
                        (lease.project(), lease.run(), lease.generation()),
                        (project, run, generation)
                    );
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
                    prop_assert_eq!(lane_result(manager.request_stop(l))?, expected);
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
                    let actual = match text.parse::<Outcome>() {
                        Err(e) => Err(e),
                        Ok(o) => lane_result(managers[m].release(l, o))?,
                    };
                    prop_assert_eq!(actual, expected);
                }
            }
            Op::View { manager, project } => {
                let project = PROJECTS[project];
                prop_assert_eq!(
                    lane_result(managers[manager].view(project))?,
                    model.view(manager, project)
                );
            }
            Op::Stop { .. } | Op::Release { .. } => {}
        }
        // After every step, every project's lane in both managers matches the model.
        for (m, manager) in managers.iter().enumerate() {
            for project in PROJECTS {
                prop_assert_eq!(lane_result(manager.view(project))?, model.view(m, project));
            }
        }
    }
    Ok(())
}
