//! A worker survives whatever a save hands back: an error whose destructor panics, or a panic
//! whose payload panics when dropped. The reservation is settled (unresolved) and the queue's
//! only worker goes on dispatching.

use std::fmt;
use std::time::Duration;

use project_lanes::Outcome;
use project_lanes::dispatch::{Dispatcher, ReservationId, ReservationState};
use project_lanes_runner::Runner;

/// Long enough for any machine to settle a reservation that nothing holds up; only a dead
/// worker makes a test wait this long.
const PATIENCE: Duration = Duration::from_secs(20);

/// A value whose destructor panics.
struct PanicsOnDrop;

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        panic!("PanicsOnDrop was dropped (expected by this test)");
    }
}

impl fmt::Display for PanicsOnDrop {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a save error whose destructor panics")
    }
}

fn is(id: ReservationId, wanted: ReservationState) -> impl FnMut(&Dispatcher) -> bool {
    move |d| d.reservation(id).is_ok_and(|r| r.state == wanted)
}

/// One worker for the only queue: the run `bomb-1`'s save fails through `save_bomb`; every
/// other save succeeds. After the bomb, the queue must still dispatch.
fn the_queue_goes_on_after(save_bomb: fn() -> Result<(), PanicsOnDrop>) {
    let runner = Runner::start(
        Dispatcher::new(&["general"]).unwrap(),
        1,
        |_| Ok(Outcome::Succeeded),
        move |state, _| {
            if state.run == "bomb-1" {
                save_bomb()
            } else {
                Ok(())
            }
        },
    );
    let bomb = runner.enqueue("general", "docs", "bomb-1").unwrap();
    assert!(
        runner.wait_until_timeout(PATIENCE, is(bomb, ReservationState::Unresolved)),
        "the failed save leaves the reservation unresolved"
    );
    let next = runner.enqueue("general", "site", "deploy-1").unwrap();
    assert!(
        runner.wait_until_timeout(PATIENCE, is(next, ReservationState::Done)),
        "the queue's only worker stopped dispatching: {:?}",
        runner.with(|d| d.reservation(next))
    );
    let d = runner.shutdown().expect("no worker died");
    assert!(!d.view("docs").unwrap().busy && !d.view("site").unwrap().busy);
}

#[test]
fn a_save_error_that_panics_when_dropped_does_not_kill_the_worker() {
    the_queue_goes_on_after(|| Err(PanicsOnDrop));
}

#[test]
fn a_save_panic_whose_payload_panics_when_dropped_does_not_kill_the_worker() {
    the_queue_goes_on_after(|| std::panic::panic_any(PanicsOnDrop));
}
