//! The dispatcher as a state machine: shared project claims across queues, per-project order,
//! occupancy through persistence, unresolved results, cancel, and a model-based property test.
//!
//! The rules and the model live in `suite/queues.rs`, shared with the PostgreSQL backend
//! (`pg-tests/tests/queues.rs`); this file runs them on `Dispatcher`.

#[path = "suite/queues.rs"]
mod queues_suite;

use project_lanes::LaneError;
use project_lanes::dispatch::{DispatchError, Dispatcher, ReservationId};
use proptest::prelude::*;

queue_rule_tests!(Dispatcher::new);

#[test]
fn error_codes_round_trip() {
    for e in DispatchError::OWN {
        assert_eq!(DispatchError::from_code(e.code()), Some(e));
        assert!(e.to_string().starts_with(e.code()));
        let json = serde_json::to_string(&e).unwrap();
        assert_eq!(serde_json::from_str::<DispatchError>(&json).unwrap(), e);
    }
    assert_eq!(
        DispatchError::from_code("PROJECT_BUSY"),
        Some(DispatchError::Lane(LaneError::ProjectBusy))
    );
    assert!(serde_json::from_str::<DispatchError>(r#""BUSY""#).is_err());
    assert_eq!(ReservationId::parse("R12").unwrap().number(), 12);
    for bad in ["R0", "R01", "r1", "R", "12", "R1x", "R+1", "R+0", "R 1"] {
        assert!(ReservationId::parse(bad).is_none(), "{bad}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn the_dispatcher_agrees_with_the_model(
        ops in proptest::collection::vec(queues_suite::op(), 1..120)
    ) {
        let mut d = Dispatcher::new(&queues_suite::QUEUES).unwrap();
        queues_suite::agrees_with_the_model(&mut d, ops)?;
    }
}
