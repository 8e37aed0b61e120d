//! Reservation ids from outside (a caller, a record) address only reservations the dispatcher
//! holds: an id beyond them is `UNKNOWN_RESERVATION` for every operation and changes nothing.
//!
//! These tests also run compiled for `wasm32-unknown-unknown` under Node.js (`cargo xtask test`
//! does it; see `xtask/src/wasm_core.rs`): there `usize` has 32 bits, and an id cast with `as`
//! would wrap onto another reservation.

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
    // Cancel `R4294967297`, then dispatch. On wasm32, an id cast with `as` would mark R1
    // cancelled while leaving it ready, hand out the cancelled R1, and underflow `retained`.
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
