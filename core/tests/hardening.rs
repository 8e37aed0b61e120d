//! Regression tests for the core's defects found by the independent review (issue 13, items 14
//! and 15), one test per behaviour.
//!
//! The reservation-id tests also run compiled for `wasm32-unknown-unknown` under Node.js
//! (`cargo xtask test` does it; see `xtask/src/wasm_core.rs`): there `usize` has 32 bits, and an
//! id cast with `as` used to wrap onto another reservation. The runner tests need threads, so
//! they run natively only.

use project_lanes::Outcome;
use project_lanes::dispatch::{DispatchError, Dispatcher, ReservationId, ReservationState};
// On wasm32, the same tests run under wasm-bindgen-test (in Node.js).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

/// Ids whose number is a multiple of 2^32 plus one: on a 32-bit target, `n as usize` is 1.
const WRAPPING_ONTO_R1: [&str; 3] = ["R4294967297", "R8589934593", "R18446744069414584321"];

#[test]
fn an_id_beyond_the_reservations_held_never_addresses_another_reservation() {
    let mut d = Dispatcher::new(&["general"]).unwrap();
    let r1 = d.enqueue("general", "docs", "nightly-1").unwrap();
    let mut wide: Vec<ReservationId> = WRAPPING_ONTO_R1
        .iter()
        .filter_map(|text| ReservationId::parse(text))
        .collect();
    // The parser takes up to 18 digits: the last one is refused there already.
    assert_eq!(wide.len(), 2, "{wide:?}");
    wide.push(serde_json::from_str("\"R4294967297\"").unwrap());
    wide.push(ReservationId::parse("R999999999999999999").unwrap());
    for id in wide {
        let unknown = DispatchError::UnknownReservation;
        assert_eq!(d.reservation(id).unwrap_err(), unknown, "{id}");
        assert_eq!(d.cancel(id).unwrap_err(), unknown, "{id}");
        assert_eq!(d.resolve(id).unwrap_err(), unknown, "{id}");
        assert_eq!(
            d.finish(id, Outcome::Succeeded).unwrap_err(),
            unknown,
            "{id}"
        );
        assert_eq!(d.persisted(id, true).unwrap_err(), unknown, "{id}");
    }
    // R1 is untouched: still queued, still counted, and dispatched normally.
    assert_eq!(d.reservation(r1).unwrap().state, ReservationState::Queued);
    assert_eq!(d.retained("general"), Ok(1));
    assert_eq!(d.reservations().len(), 1);
    let job = d.dispatch("general").unwrap().expect("R1 is dispatched");
    assert_eq!(job.reservation, r1);
    assert_eq!(d.retained("general"), Ok(0));
    d.finish(r1, Outcome::Succeeded).unwrap();
    assert_eq!(d.persisted(r1, true).unwrap().state, ReservationState::Done);
    assert!(!d.view("docs").unwrap().busy);
}

#[test]
fn a_cancel_of_a_wrapping_id_leaves_the_reservation_it_would_wrap_onto_dispatchable() {
    // The review's reproduction: cancel `R4294967297`, then dispatch. On wasm32 this used to mark
    // R1 cancelled while leaving it ready, hand out the cancelled R1, and underflow `retained`.
    let mut d = Dispatcher::new(&["general"]).unwrap();
    let r1 = d.enqueue("general", "docs", "nightly-1").unwrap();
    let r2 = d.enqueue("general", "site", "deploy-1").unwrap();
    let wide = ReservationId::parse("R4294967297").unwrap();
    assert_eq!(d.cancel(wide), Err(DispatchError::UnknownReservation));
    assert_eq!(d.retained("general"), Ok(2));
    let first = d.dispatch("general").unwrap().unwrap();
    assert_eq!(first.reservation, r1);
    assert_eq!(
        d.reservation(r1).unwrap().state,
        ReservationState::Dispatched
    );
    let second = d.dispatch("general").unwrap().unwrap();
    assert_eq!(second.reservation, r2);
    assert_eq!(d.retained("general"), Ok(0));
    assert_eq!(d.dispatch("general"), Ok(None));
}

#[test]
fn reservation_zero_and_the_next_unissued_id_are_unknown() {
    let mut d = Dispatcher::new(&["general"]).unwrap();
    d.enqueue("general", "docs", "nightly-1").unwrap();
    assert_eq!(ReservationId::parse("R0"), None);
    let next = ReservationId::parse("R2").unwrap();
    assert_eq!(d.cancel(next), Err(DispatchError::UnknownReservation));
    assert_eq!(d.retained("general"), Ok(1));
}

/// The runner needs threads, which wasm32-unknown-unknown does not have.
#[cfg(not(target_arch = "wasm32"))]
mod runner {
    use std::fmt;
    use std::time::Duration;

    use project_lanes::Outcome;
    use project_lanes::dispatch::{Dispatcher, ReservationId, ReservationState};
    use project_lanes::runner::Runner;

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
}
