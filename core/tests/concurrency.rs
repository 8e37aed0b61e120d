//! Many threads at once: exactly one claim wins, and releases from other threads stay correct.

use std::sync::{Arc, Barrier};
use std::thread;

use project_lanes::{LaneError, Outcome, ProjectLanes};

#[test]
fn eight_threads_released_by_a_barrier_onto_one_project_have_exactly_one_winner() {
    const THREADS: usize = 8;
    for round in 0..300 {
        let lanes = Arc::new(ProjectLanes::new());
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let (lanes, barrier) = (lanes.clone(), barrier.clone());
                thread::spawn(move || {
                    barrier.wait();
                    lanes.claim("docs", &format!("run-{t}"))
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let winners: Vec<_> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "round {round}");
        assert!(
            results
                .iter()
                .filter_map(|r| r.as_ref().err())
                .all(|e| *e == LaneError::ProjectBusy)
        );
        let view = lanes.view("docs").unwrap();
        assert_eq!(view.run.as_deref(), Some(winners[0].run()), "round {round}");
    }
}

#[test]
fn threads_on_distinct_projects_never_disturb_each_other() {
    let lanes = Arc::new(ProjectLanes::new());
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let lanes = lanes.clone();
            thread::spawn(move || {
                let project = format!("project-{t}");
                for i in 0..2000 {
                    let lease = lanes.claim(&project, &format!("run-{i}")).unwrap();
                    assert_eq!(
                        lanes.view(&project).unwrap().run.as_deref(),
                        Some(lease.run())
                    );
                    let receipt = lanes.release(&lease, Outcome::Succeeded).unwrap();
                    assert_eq!(receipt.project, project);
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn contended_claims_and_releases_never_overlap_in_one_project() {
    // Each thread repeatedly tries to claim one project; while it holds the lane, no other
    // thread may. A shared counter of holders must never exceed one.
    use std::sync::atomic::{AtomicUsize, Ordering};
    let lanes = Arc::new(ProjectLanes::new());
    let holders = Arc::new(AtomicUsize::new(0));
    let wins = Arc::new(AtomicUsize::new(0));
    let handles: Vec<_> = (0..4)
        .map(|t| {
            let (lanes, holders, wins) = (lanes.clone(), holders.clone(), wins.clone());
            thread::spawn(move || {
                for i in 0..5000 {
                    if let Ok(lease) = lanes.claim("shared", &format!("t{t}-{i}")) {
                        assert_eq!(holders.fetch_add(1, Ordering::SeqCst), 0);
                        wins.fetch_add(1, Ordering::Relaxed);
                        holders.fetch_sub(1, Ordering::SeqCst);
                        lanes.release(&lease, Outcome::Succeeded).unwrap();
                    }
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    assert!(wins.load(Ordering::Relaxed) > 0);
    assert!(!lanes.view("shared").unwrap().busy);
}
