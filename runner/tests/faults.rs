//! Faults on the threaded runner: a held save, retention in one queue, a cancel racing a
//! dispatch, panicking and failing work and saves, unresolved results. Made deterministic with
//! gates (channels) and condition waits on the dispatcher's state: no sleeps.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Barrier, Mutex};

use project_lanes::Outcome;
use project_lanes::dispatch::{DispatchError, Dispatcher, ReservationId, ReservationState};
use project_lanes_runner::Runner;

/// Gates keyed by run label: a step for that run blocks until the gate is opened.
#[derive(Clone, Default)]
struct Gates(Arc<Mutex<HashMap<String, Receiver<()>>>>);

impl Gates {
    fn add(&self, run: &str) -> Sender<()> {
        let (open, wait) = channel();
        self.0.lock().unwrap().insert(run.to_string(), wait);
        open
    }

    fn pass(&self, run: &str) {
        let gate = self.0.lock().unwrap().remove(run);
        if let Some(gate) = gate {
            gate.recv().unwrap();
        }
    }
}

fn state(runner: &Runner, id: ReservationId) -> ReservationState {
    runner.with(|d| d.reservation(id).unwrap().state)
}

fn is(id: ReservationId, wanted: ReservationState) -> impl FnMut(&Dispatcher) -> bool {
    move |d| d.reservation(id).unwrap().state == wanted
}

#[test]
fn a_held_success_write_keeps_the_project_from_the_other_queue_while_other_projects_finish() {
    let saves = Gates::default();
    let gate = saves.add("gen-1");
    let held = saves.clone();
    let runner = Runner::start(
        Dispatcher::new(&["general", "delivery"]).unwrap(),
        2,
        |_| Ok(Outcome::Succeeded),
        move |state, _| {
            held.pass(state.run.as_str());
            Ok::<(), String>(())
        },
    );
    let general = runner.enqueue("general", "docs", "gen-1").unwrap();
    runner.wait_until(is(general, ReservationState::Persisting));
    // The general reservation's success write is held: docs stays occupied.
    let cafe_docs = runner.enqueue("delivery", "docs", "cafe-1").unwrap();
    let cafe_site = runner.enqueue("delivery", "site", "cafe-2").unwrap();
    runner.wait_until(is(cafe_site, ReservationState::Done));
    assert_eq!(
        state(&runner, cafe_docs),
        ReservationState::Queued,
        "undispatched while saving"
    );
    assert_eq!(state(&runner, general), ReservationState::Persisting);
    assert!(runner.with(|d| d.view("docs").unwrap().busy));
    gate.send(()).unwrap();
    runner.wait_until(is(cafe_docs, ReservationState::Done));
    assert_eq!(state(&runner, general), ReservationState::Done);
    let d = runner.shutdown().unwrap();
    assert!(!d.view("docs").unwrap().busy);
}

#[test]
fn a_second_item_for_one_project_waits_in_its_queue_while_another_project_finishes() {
    let work = Gates::default();
    let gate = work.add("a-1");
    let gates = work.clone();
    let runner = Runner::start(
        Dispatcher::new(&["general"]).unwrap(),
        2,
        move |job| {
            gates.pass(job.run.as_str());
            Ok(Outcome::Succeeded)
        },
        |_, _| Ok::<(), String>(()),
    );
    let a1 = runner.enqueue("general", "docs", "a-1").unwrap();
    let a2 = runner.enqueue("general", "docs", "a-2").unwrap();
    let b1 = runner.enqueue("general", "site", "b-1").unwrap();
    runner.wait_until(is(b1, ReservationState::Done));
    assert_eq!(state(&runner, a1), ReservationState::Dispatched);
    assert_eq!(
        state(&runner, a2),
        ReservationState::Queued,
        "retained behind a-1"
    );
    gate.send(()).unwrap();
    runner.wait_until(is(a2, ReservationState::Done));
    runner.shutdown().unwrap();
}

#[test]
fn a_cancel_racing_a_dispatch_has_exactly_one_winner_and_never_leaves_the_lane_held() {
    let (mut cancelled, mut ran) = (0, 0);
    for _ in 0..300 {
        let runner = Arc::new(Runner::start(
            Dispatcher::new(&["general"]).unwrap(),
            1,
            |_| Ok(Outcome::Succeeded),
            |_, _| Ok::<(), String>(()),
        ));
        let barrier = Arc::new(Barrier::new(2));
        let id = runner.enqueue("general", "docs", "racer").unwrap();
        let canceller = {
            let (runner, barrier) = (runner.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                runner.cancel(id)
            })
        };
        barrier.wait();
        let cancel = canceller.join().unwrap();
        runner.wait_until(|d| {
            matches!(
                d.reservation(id).unwrap().state,
                ReservationState::Cancelled | ReservationState::Done
            )
        });
        let end = state(&runner, id);
        match cancel {
            Ok(view) => {
                assert_eq!(view.state, ReservationState::Cancelled);
                assert_eq!(
                    end,
                    ReservationState::Cancelled,
                    "a cancelled item never runs"
                );
                cancelled += 1;
            }
            Err(e) => {
                assert_eq!(e, DispatchError::NotQueued);
                assert_eq!(end, ReservationState::Done);
                ran += 1;
            }
        }
        let runner = Arc::try_unwrap(runner).ok().unwrap();
        let d = runner.shutdown().unwrap();
        assert!(!d.view("docs").unwrap().busy, "the lane is never left held");
    }
    assert_eq!(cancelled + ran, 300);
    eprintln!("cancel won {cancelled} times, dispatch won {ran} times");
}

#[test]
fn a_panicking_or_failing_step_still_releases_the_lane_once() {
    let runner = Runner::start(
        Dispatcher::new(&["general"]).unwrap(),
        1,
        |job| match job.run.as_str() {
            "panics" => panic!("the work blew up"),
            "fails" => Err("exit status 3".to_string()),
            _ => Ok(Outcome::Succeeded),
        },
        |state, error| match state.run.as_str() {
            "save-panics" => panic!("the disk is gone"),
            "save-fails" => Err("write refused"),
            "fails" => {
                assert_eq!(
                    error,
                    Some("exit status 3"),
                    "the work's error reaches the save"
                );
                Ok(())
            }
            _ => Ok(()),
        },
    );
    let panics = runner.enqueue("general", "p1", "panics").unwrap();
    let fails = runner.enqueue("general", "p2", "fails").unwrap();
    let save_panics = runner.enqueue("general", "p3", "save-panics").unwrap();
    let save_fails = runner.enqueue("general", "p4", "save-fails").unwrap();
    for id in [panics, save_panics, save_fails] {
        runner.wait_until(is(id, ReservationState::Unresolved));
    }
    runner.wait_until(is(fails, ReservationState::Done));
    let d = runner.shutdown().unwrap();
    assert_eq!(d.reservation(fails).unwrap().outcome, Some(Outcome::Failed));
    for (id, project) in [
        (panics, "p1"),
        (fails, "p2"),
        (save_panics, "p3"),
        (save_fails, "p4"),
    ] {
        assert!(!d.view(project).unwrap().busy, "{project}");
        if id != fails {
            assert_eq!(
                d.reservation(id).unwrap().outcome,
                Some(Outcome::NeedsReview)
            );
        }
    }
}

#[test]
fn an_unresolved_project_waits_for_a_resolve_and_nothing_is_replayed() {
    let runner = Runner::start(
        Dispatcher::new(&["general"]).unwrap(),
        2,
        |_| Ok(Outcome::Succeeded),
        |state, _| {
            if state.run.as_str() == "first" {
                Err("write refused")
            } else {
                Ok(())
            }
        },
    );
    let first = runner.enqueue("general", "docs", "first").unwrap();
    runner.wait_until(is(first, ReservationState::Unresolved));
    let second = runner.enqueue("general", "docs", "second").unwrap();
    let other = runner.enqueue("general", "site", "other").unwrap();
    runner.wait_until(is(other, ReservationState::Done));
    assert_eq!(state(&runner, second), ReservationState::Queued);
    assert_eq!(
        runner.with(|d| d.reservations().len()),
        3,
        "nothing replayed"
    );
    runner.resolve(first).unwrap();
    runner.wait_until(is(second, ReservationState::Done));
    assert_eq!(state(&runner, first), ReservationState::Resolved);
    runner.shutdown().unwrap();
}
