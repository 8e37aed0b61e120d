//! The lane contract, case by case.
//!
//! The cases about lanes themselves live in `suite/lanes.rs`, shared with the PostgreSQL backend
//! (`pg-tests/tests/contract.rs`); this file runs them on `ProjectLanes` and adds what only concerns
//! the core's own types.

#[path = "suite/lanes.rs"]
mod lanes_suite;

use project_lanes::{LaneError, LaneView, Lease, Outcome, ProjectLanes, Receipt};

lane_contract_tests!(ProjectLanes::new);

fn claim(lanes: &ProjectLanes, project: &str, run: &str) -> Lease {
    lanes.claim(project, run).expect("claim should succeed")
}

#[test]
fn outcomes_parse_exactly_their_names() {
    for outcome in Outcome::ALL {
        assert_eq!(outcome.as_str().parse::<Outcome>(), Ok(outcome));
        assert_eq!(outcome.to_string(), outcome.as_str());
    }
    let names: Vec<_> = Outcome::ALL.iter().map(|o| o.as_str()).collect();
    assert_eq!(names, ["succeeded", "failed", "cancelled", "needs_review"]);
}

#[test]
fn error_codes_and_messages_are_stable() {
    let codes: Vec<_> = LaneError::ALL.iter().map(|e| e.code()).collect();
    assert_eq!(
        codes,
        [
            "INVALID_LABEL",
            "PROJECT_BUSY",
            "INVALID_LEASE",
            "LEASE_NOT_CURRENT",
            "INVALID_OUTCOME"
        ]
    );
    for error in LaneError::ALL {
        assert!(error.to_string().starts_with(error.code()));
        assert_eq!(LaneError::from_code(error.code()), Some(error));
        let json = serde_json::to_string(&error).unwrap();
        assert_eq!(json, format!("\"{}\"", error.code()));
        assert_eq!(serde_json::from_str::<LaneError>(&json).unwrap(), error);
    }
    let boxed: Box<dyn std::error::Error> = Box::new(LaneError::ProjectBusy);
    assert!(boxed.to_string().contains("PROJECT_BUSY"));
}

/// The documented JSON of views and receipts is checked by the shared suite
/// (`views_and_receipts_serialize_as_documented`); here, that the core's types read it back.
#[test]
fn views_and_receipts_read_back_as_written() {
    let lanes = ProjectLanes::new();
    let idle = serde_json::to_string(&lanes.view("docs").unwrap()).unwrap();
    let lease = claim(&lanes, "docs", "build-1");
    let busy = serde_json::to_string(&lanes.view("docs").unwrap()).unwrap();
    let stopping = serde_json::to_string(&lanes.request_stop(&lease).unwrap()).unwrap();
    let receipt = lanes.release(&lease, Outcome::NeedsReview).unwrap();
    let json = serde_json::to_string(&receipt).unwrap();
    assert_eq!(serde_json::from_str::<Receipt>(&json).unwrap(), receipt);
    for text in [idle, busy, stopping] {
        let view: LaneView = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&view).unwrap(), text);
    }
}

#[test]
fn reading_back_rejects_inconsistent_or_invalid_documents() {
    let bad_views = [
        r#"{"project":"docs","busy":true}"#,
        r#"{"project":"docs","busy":false,"run":"x","state":"running"}"#,
        r#"{"project":"docs","busy":true,"run":"x"}"#,
        r#"{"project":"bad project","busy":false}"#,
        r#"{"project":"docs","busy":true,"run":"x","state":"paused"}"#,
        r#"{"project":"docs","busy":false,"extra":1}"#,
    ];
    for text in bad_views {
        assert!(serde_json::from_str::<LaneView>(text).is_err(), "{text}");
    }
    let bad_receipt = r#"{"project":"docs","run":"r","outcome":"success","stop_requested":false,"work_executed_here":false}"#;
    assert!(serde_json::from_str::<Receipt>(bad_receipt).is_err());
    assert!(serde_json::from_str::<LaneError>(r#""BUSY""#).is_err());
}

#[test]
fn lanes_and_leases_cross_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<ProjectLanes>();
    assert_send_sync::<Lease>();
    assert_send_sync::<Receipt>();
    assert_send_sync::<LaneView>();
    assert_send_sync::<LaneError>();
}
