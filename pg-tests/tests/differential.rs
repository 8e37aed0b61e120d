//! Differential tests: random operation sequences on the in-memory core and on PostgreSQL,
//! comparing every result (values, generations and error codes) step by step; the dispatcher's
//! with direct claims of the same lanes mixed in, as one schema serves both.

mod common;
#[path = "../../core/tests/suite/queues.rs"]
#[allow(dead_code)]
mod queues_suite;

use project_lanes::backend::{Lanes, LeaseInfo, Refusal};
use project_lanes::dispatch::{DispatchError, Dispatcher, ReservationId};
use project_lanes::{LaneView, Outcome, ProjectLanes, Receipt};
use project_lanes_pg::{PgDispatcher, PgLanes};
use proptest::prelude::*;
use queues_suite::{Op, PROJECTS as QPROJECTS, QUEUES};

use common::{fresh_dispatcher, fresh_lanes};

const PROJECTS: [&str; 4] = ["alpha", "beta", "gamma", "bad project"];
const RUNS: [&str; 3] = ["run-1", "run-2", "-bad"];

#[derive(Debug, Clone)]
enum LaneOp {
    Claim(usize, usize, usize),
    Stop(usize, usize),
    Release(usize, usize, usize),
    View(usize, usize),
}

fn lane_op() -> impl Strategy<Value = LaneOp> {
    prop_oneof![
        3 => (0..2usize, 0..4usize, 0..3usize).prop_map(|(m, p, r)| LaneOp::Claim(m, p, r)),
        1 => (0..2usize, 0..32usize).prop_map(|(m, l)| LaneOp::Stop(m, l)),
        // Outcome index 4: text that is not an outcome.
        2 => (0..2usize, 0..32usize, 0..5usize).prop_map(|(m, l, o)| LaneOp::Release(m, l, o)),
        1 => (0..2usize, 0..4usize).prop_map(|(m, p)| LaneOp::View(m, p)),
    ]
}

fn code<T, E: Refusal>(r: Result<T, E>) -> Result<T, DispatchError> {
    r.map_err(|e| e.refusal().expect("a refusal, not a backend failure"))
}

type Claimed = Result<(String, String, u64), DispatchError>;

fn claimed<L: LeaseInfo, E: Refusal>(r: &Result<L, E>) -> Claimed {
    match r {
        Ok(l) => Ok((l.project().into(), l.run().into(), l.generation())),
        Err(e) => Err(e.refusal().expect("a refusal")),
    }
}

fn release<L: Lanes>(lanes: &L, lease: &L::Lease, o: usize) -> Result<Receipt, DispatchError> {
    let text = Outcome::ALL.get(o).map_or("finished", |o| o.as_str());
    code(
        text.parse::<Outcome>()
            .map_err(L::Error::from)
            .and_then(|o| lanes.release(lease, o)),
    )
}

fn view<L: Lanes>(lanes: &L, p: usize) -> Result<LaneView, DispatchError> {
    code(lanes.view(PROJECTS[p]))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
    #[test]
    fn lanes_agree_on_both_backends(ops in proptest::collection::vec(lane_op(), 1..60)) {
        let memory = [ProjectLanes::new(), ProjectLanes::new()];
        let pg = [fresh_lanes(), fresh_lanes()];
        // Every lease issued, on both sides, with the manager that issued it.
        let mut leases: Vec<(usize, project_lanes::Lease, project_lanes_pg::PgLease)> = Vec::new();
        for op in ops {
            match op {
                LaneOp::Claim(m, p, r) => {
                    let a = memory[m].claim(PROJECTS[p], RUNS[r]);
                    let b = PgLanes::claim(&pg[m], PROJECTS[p], RUNS[r]);
                    prop_assert_eq!(claimed(&a), claimed(&b));
                    if let (Ok(a), Ok(b)) = (a, b) {
                        leases.push((m, a, b));
                    }
                }
                LaneOp::Stop(m, l) if l < leases.len() => {
                    let (_, a, b) = &leases[l];
                    prop_assert_eq!(
                        code(memory[m].request_stop(a)),
                        code(pg[m].request_stop(b))
                    );
                }
                LaneOp::Release(m, l, o) if l < leases.len() => {
                    let (_, a, b) = &leases[l];
                    prop_assert_eq!(release(&memory[m], a, o), release(&pg[m], b, o));
                }
                LaneOp::View(m, p) => {
                    prop_assert_eq!(view(&memory[m], p), view(&pg[m], p));
                }
                LaneOp::Stop(..) | LaneOp::Release(..) => {}
            }
            for m in 0..2 {
                for p in 0..PROJECTS.len() {
                    prop_assert_eq!(view(&memory[m], p), view(&pg[m], p));
                }
            }
        }
    }

    #[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
    #[test]
    fn dispatchers_agree_on_both_backends(
        ops in proptest::collection::vec(queues_suite::op(), 1..80)
    ) {
        let mut memory = Dispatcher::new(&QUEUES).unwrap();
        let mut pg: PgDispatcher = fresh_dispatcher(&QUEUES).unwrap();
        // Direct claims beside the queues, on the same lanes.
        let lanes = PgLanes::connect(&common::url(), pg.schema()).unwrap();
        let mut leases: Vec<(project_lanes::Lease, project_lanes_pg::PgLease)> = Vec::new();
        let id = |i: usize| ReservationId::parse(&format!("R{}", i + 1)).unwrap();
        for op in ops {
            match op {
                Op::Claim(p) => {
                    let a = memory.claim(QPROJECTS[p], "direct");
                    let b = lanes.claim(QPROJECTS[p], "direct");
                    prop_assert_eq!(claimed(&a), claimed(&b));
                    if let (Ok(a), Ok(b)) = (a, b) {
                        leases.push((a, b));
                    }
                }
                Op::Stop(l) => if let Some((a, b)) = leases.get(l) {
                    prop_assert_eq!(code(memory.request_stop(a)), code(lanes.request_stop(b)));
                }
                Op::Release(l, o) => if let Some((a, b)) = leases.get(l) {
                    prop_assert_eq!(
                        code(memory.release(a, Outcome::ALL[o])),
                        code(lanes.release(b, Outcome::ALL[o]))
                    );
                }
                Op::Enqueue(q, p) => prop_assert_eq!(
                    code(memory.enqueue(QUEUES[q], QPROJECTS[p], "run")),
                    code(pg.enqueue(QUEUES[q], QPROJECTS[p], "run"))
                ),
                Op::Dispatch(q) => prop_assert_eq!(
                    code(memory.dispatch(QUEUES[q])),
                    code(pg.dispatch(QUEUES[q]))
                ),
                Op::Finish(i, o) => prop_assert_eq!(
                    code(memory.finish(id(i), Outcome::ALL[o])),
                    code(pg.finish(id(i), Outcome::ALL[o]))
                ),
                Op::Persist(i, saved) => prop_assert_eq!(
                    code(memory.persisted(id(i), saved)),
                    code(pg.persisted(id(i), saved))
                ),
                Op::Cancel(i) => {
                    prop_assert_eq!(code(memory.cancel(id(i))), code(pg.cancel(id(i))))
                }
                Op::Resolve(i) => {
                    prop_assert_eq!(code(memory.resolve(id(i))), code(pg.resolve(id(i))))
                }
            }
            prop_assert_eq!(memory.reservations(), pg.reservations().unwrap());
            for queue in QUEUES {
                prop_assert_eq!(memory.retained(queue).unwrap(), pg.retained(queue).unwrap());
            }
            for project in QPROJECTS {
                prop_assert_eq!(memory.view(project).unwrap(), pg.view(project).unwrap());
            }
        }
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_project_blocked_by_an_unresolved_result_looks_idle_and_neither_backend_offers_it() {
    let mut memory = Dispatcher::new(&["general"]).unwrap();
    let schema = common::fresh_schema();
    let mut pg = PgDispatcher::connect(&common::url(), &schema, &["general"]).unwrap();
    let lanes = PgLanes::connect(&common::url(), &schema).unwrap();
    let failed = memory.enqueue("general", "docs", "gen-1").unwrap();
    assert_eq!(pg.enqueue("general", "docs", "gen-1").unwrap(), failed);
    let waiting = memory.enqueue("general", "docs", "gen-2").unwrap();
    assert_eq!(pg.enqueue("general", "docs", "gen-2").unwrap(), waiting);
    assert_eq!(
        memory.dispatch("general").unwrap(),
        pg.dispatch("general").unwrap()
    );
    assert_eq!(
        memory.finish(failed, Outcome::Succeeded).unwrap(),
        pg.finish(failed, Outcome::Succeeded).unwrap()
    );
    // The save fails: the lane is released, the result is unresolved and blocks the project.
    assert_eq!(
        memory.persisted(failed, false).unwrap(),
        pg.persisted(failed, false).unwrap()
    );
    let idle = LaneView::idle("docs");
    assert_eq!(memory.view("docs").unwrap(), idle);
    assert_eq!(pg.view("docs").unwrap(), idle);
    assert_eq!(
        lanes.view("docs").unwrap(),
        idle,
        "PgLanes shows the lane as the core does"
    );
    assert_eq!(memory.dispatch("general").unwrap(), None);
    assert_eq!(pg.dispatch("general").unwrap(), None);
    assert_eq!(memory.reservations(), pg.reservations().unwrap());
    // A direct claim of a dispatcher's lane is refused while the project is blocked.
    assert_eq!(
        lanes.claim("docs", "direct").unwrap_err().lane_error(),
        Some(project_lanes::LaneError::ProjectBusy)
    );
    assert_eq!(
        memory.claim("docs", "direct").unwrap_err(),
        project_lanes::LaneError::ProjectBusy
    );
    // Resolved, both offer the next item.
    assert_eq!(memory.resolve(failed).unwrap(), pg.resolve(failed).unwrap());
    let next = memory.dispatch("general").unwrap();
    assert_eq!(next.as_ref().map(|j| j.reservation), Some(waiting));
    assert_eq!(next, pg.dispatch("general").unwrap());
    assert_eq!(memory.view("docs").unwrap(), pg.view("docs").unwrap());
    assert_eq!(lanes.view("docs").unwrap(), pg.view("docs").unwrap());
}
