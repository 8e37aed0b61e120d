//! The lane contract, case by case (seed 001's twenty-one cases and the points the issue adds).

use project_lanes::{
    Label, LaneError, LaneState, LaneView, Lease, Outcome, ProjectLanes, Receipt, is_valid_label,
};

fn claim(lanes: &ProjectLanes, project: &str, run: &str) -> Lease {
    lanes.claim(project, run).expect("claim should succeed")
}

fn running(project: &str, run: &str) -> LaneView {
    LaneView::held(project, run, LaneState::Running)
}

#[test]
fn independent_projects_are_claimed_side_by_side() {
    let lanes = ProjectLanes::new();
    let docs = claim(&lanes, "docs", "build-1");
    let site = claim(&lanes, "site", "build-2");
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-1"));
    assert_eq!(lanes.view("site").unwrap(), running("site", "build-2"));
    assert_eq!((docs.project(), docs.run()), ("docs", "build-1"));
    assert_eq!((site.project(), site.run()), ("site", "build-2"));
}

#[test]
fn a_second_claim_of_a_busy_project_is_refused_and_the_holder_stays() {
    let lanes = ProjectLanes::new();
    let _first = claim(&lanes, "docs", "build-1");
    assert_eq!(
        lanes.claim("docs", "build-2").unwrap_err(),
        LaneError::ProjectBusy
    );
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-1"));
}

#[test]
fn a_busy_refusal_queues_nothing() {
    let lanes = ProjectLanes::new();
    let first = claim(&lanes, "docs", "build-1");
    assert!(lanes.claim("docs", "build-2").is_err());
    lanes.release(&first, Outcome::Succeeded).unwrap();
    // The refused claim was not queued or replayed: the lane is simply idle now.
    assert_eq!(lanes.view("docs").unwrap(), LaneView::idle("docs"));
}

#[test]
fn claim_checks_the_project_label_then_the_run_label_then_occupancy() {
    let lanes = ProjectLanes::new();
    let _held = claim(&lanes, "docs", "build-1");
    // Invalid run on a busy project: labels come before occupancy.
    assert_eq!(
        lanes.claim("docs", "bad run").unwrap_err(),
        LaneError::InvalidLabel
    );
    // Invalid project: refused before anything else.
    assert_eq!(
        lanes.claim("", "build-2").unwrap_err(),
        LaneError::InvalidLabel
    );
    assert_eq!(
        lanes.claim("docs", "").unwrap_err(),
        LaneError::InvalidLabel
    );
    // Nothing changed.
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-1"));
}

#[test]
fn the_label_rule_is_exact() {
    let ok = ["a", "Z", "7", "a.b_c-d", "0-", "x.", &"a".repeat(80)];
    let bad = [
        "",
        ".a",
        "_a",
        "-a",
        "a b",
        "a/b",
        "a\\b",
        "a:b",
        "é",
        "a\u{0}",
        "a\n",
        &"a".repeat(81),
    ];
    for label in ok {
        assert!(is_valid_label(label), "{label:?} should be valid");
        assert!(Label::new(label).is_ok());
    }
    for label in bad {
        assert!(!is_valid_label(label), "{label:?} should be invalid");
        assert_eq!(Label::new(label), Err(LaneError::InvalidLabel));
        let lanes = ProjectLanes::new();
        assert_eq!(
            lanes.claim(label, "run").unwrap_err(),
            LaneError::InvalidLabel
        );
        assert_eq!(
            lanes.claim("docs", label).unwrap_err(),
            LaneError::InvalidLabel
        );
        assert_eq!(lanes.view(label).unwrap_err(), LaneError::InvalidLabel);
    }
}

#[test]
fn labels_longer_than_the_inline_size_work_the_same() {
    let lanes = ProjectLanes::new();
    let project = "p".repeat(80);
    let run = format!("run-{}", "r".repeat(60));
    let lease = claim(&lanes, &project, &run);
    assert_eq!(
        (lease.project(), lease.run()),
        (project.as_str(), run.as_str())
    );
    assert_eq!(
        lanes.claim(&project, "other").unwrap_err(),
        LaneError::ProjectBusy
    );
    let receipt = lanes.release(&lease, Outcome::Failed).unwrap();
    assert_eq!(
        (receipt.project.as_str(), receipt.run.as_str()),
        (project.as_str(), run.as_str())
    );
}

#[test]
fn request_stop_keeps_the_lane_occupied() {
    let lanes = ProjectLanes::new();
    let lease = claim(&lanes, "docs", "build-1");
    let view = lanes.request_stop(&lease).unwrap();
    let stopping = LaneView::held("docs", "build-1", LaneState::StopRequested);
    assert_eq!(view, stopping);
    assert_eq!(lanes.view("docs").unwrap(), stopping);
    assert_eq!(
        lanes.claim("docs", "build-2").unwrap_err(),
        LaneError::ProjectBusy
    );
    // Asking twice is harmless and changes nothing more.
    assert_eq!(lanes.request_stop(&lease).unwrap(), stopping);
}

#[test]
fn a_stop_request_touches_only_its_own_project() {
    let lanes = ProjectLanes::new();
    let docs = claim(&lanes, "docs", "build-1");
    let _site = claim(&lanes, "site", "build-2");
    lanes.request_stop(&docs).unwrap();
    assert_eq!(lanes.view("site").unwrap(), running("site", "build-2"));
}

#[test]
fn release_frees_the_lane_and_returns_a_receipt() {
    let lanes = ProjectLanes::new();
    let lease = claim(&lanes, "docs", "build-1");
    let receipt = lanes.release(&lease, Outcome::Succeeded).unwrap();
    assert_eq!(
        receipt,
        Receipt {
            project: Label::new("docs").unwrap(),
            run: Label::new("build-1").unwrap(),
            outcome: Outcome::Succeeded,
            stop_requested: false,
            work_executed_here: false,
        }
    );
    assert_eq!(lanes.view("docs").unwrap(), LaneView::idle("docs"));
    assert!(lanes.claim("docs", "build-2").is_ok());
}

#[test]
fn every_outcome_is_carried_into_the_receipt_and_nothing_is_executed() {
    for outcome in Outcome::ALL {
        let lanes = ProjectLanes::new();
        let lease = claim(&lanes, "docs", "build-1");
        let receipt = lanes.release(&lease, outcome).unwrap();
        assert_eq!(receipt.outcome, outcome);
        assert!(!receipt.work_executed_here);
    }
}

#[test]
fn a_stop_racing_a_success_is_reported_in_the_receipt() {
    let lanes = ProjectLanes::new();
    let lease = claim(&lanes, "docs", "build-1");
    lanes.request_stop(&lease).unwrap();
    let receipt = lanes.release(&lease, Outcome::Succeeded).unwrap();
    assert_eq!(receipt.outcome, Outcome::Succeeded);
    assert!(receipt.stop_requested);
}

#[test]
fn a_stale_release_cannot_erase_a_new_owner() {
    let lanes = ProjectLanes::new();
    let old = claim(&lanes, "docs", "build-1");
    lanes.release(&old, Outcome::Failed).unwrap();
    let new = claim(&lanes, "docs", "build-2");
    assert_eq!(
        lanes.release(&old, Outcome::Cancelled).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-2"));
    assert!(lanes.release(&new, Outcome::Succeeded).is_ok());
}

#[test]
fn a_stale_stop_is_refused_and_changes_nothing() {
    let lanes = ProjectLanes::new();
    let old = claim(&lanes, "docs", "build-1");
    lanes.release(&old, Outcome::Succeeded).unwrap();
    let _new = claim(&lanes, "docs", "build-2");
    assert_eq!(
        lanes.request_stop(&old).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-2"));
}

#[test]
fn a_lease_released_twice_is_refused_the_second_time() {
    let lanes = ProjectLanes::new();
    let lease = claim(&lanes, "docs", "build-1");
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    assert_eq!(
        lanes.release(&lease, Outcome::Succeeded).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(
        lanes.request_stop(&lease).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(lanes.view("docs").unwrap(), LaneView::idle("docs"));
}

#[test]
fn reusing_a_run_label_recovers_nothing() {
    let lanes = ProjectLanes::new();
    let old = claim(&lanes, "docs", "nightly");
    // Same run label while held: still busy, no lease handed out again.
    assert_eq!(
        lanes.claim("docs", "nightly").unwrap_err(),
        LaneError::ProjectBusy
    );
    lanes.release(&old, Outcome::Succeeded).unwrap();
    // Same run label after release: a new owner with a new token.
    let new = claim(&lanes, "docs", "nightly");
    assert_eq!(
        lanes.release(&old, Outcome::Succeeded).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(
        lanes.request_stop(&old).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "nightly"));
    assert!(lanes.release(&new, Outcome::Succeeded).is_ok());
}

#[test]
fn a_lease_from_another_manager_is_refused_and_changes_nothing() {
    let lanes = ProjectLanes::new();
    let other = ProjectLanes::new();
    let mine = claim(&lanes, "docs", "build-1");
    let foreign = claim(&other, "docs", "build-1");
    assert_eq!(
        lanes.release(&foreign, Outcome::Succeeded).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(
        lanes.request_stop(&foreign).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-1"));
    assert_eq!(other.view("docs").unwrap(), running("docs", "build-1"));
    assert!(lanes.release(&mine, Outcome::Succeeded).is_ok());
    assert!(other.release(&foreign, Outcome::Succeeded).is_ok());
}

#[test]
fn a_lease_from_a_dropped_manager_is_refused_by_a_new_one() {
    let old = ProjectLanes::new();
    let lease = claim(&old, "docs", "build-1");
    drop(old);
    let lanes = ProjectLanes::new();
    let _held = claim(&lanes, "docs", "build-1");
    assert_eq!(
        lanes.release(&lease, Outcome::Succeeded).unwrap_err(),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-1"));
}

#[test]
fn an_invalid_outcome_never_reaches_the_lanes_and_occupancy_stays() {
    let lanes = ProjectLanes::new();
    let lease = claim(&lanes, "docs", "build-1");
    for text in ["", "success", "Succeeded", "needs-review", "cancelled "] {
        let result = text
            .parse::<Outcome>()
            .and_then(|o| lanes.release(&lease, o));
        assert_eq!(result.unwrap_err(), LaneError::InvalidOutcome, "{text:?}");
        assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-1"));
    }
    assert!(lanes.release(&lease, "cancelled".parse().unwrap()).is_ok());
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
fn views_are_owned_copies() {
    let lanes = ProjectLanes::new();
    let _lease = claim(&lanes, "docs", "build-1");
    let mut view = lanes.view("docs").unwrap();
    view.busy = false;
    view.run = Some("someone-else".into());
    view.state = Some(LaneState::StopRequested);
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-1"));
    let mut stopped = lanes.request_stop(&_lease).unwrap();
    stopped.run = None;
    assert_eq!(lanes.view("docs").unwrap().run.as_deref(), Some("build-1"));
}

#[test]
fn dropping_a_lease_does_not_release_the_lane() {
    let lanes = ProjectLanes::new();
    drop(claim(&lanes, "docs", "build-1"));
    // Release is explicit, with an outcome; a forgotten lease keeps the lane occupied.
    assert_eq!(lanes.view("docs").unwrap(), running("docs", "build-1"));
    assert_eq!(
        lanes.claim("docs", "build-2").unwrap_err(),
        LaneError::ProjectBusy
    );
}

#[test]
fn idle_projects_can_be_viewed_without_a_claim() {
    let lanes = ProjectLanes::default();
    assert_eq!(
        lanes.view("never-claimed").unwrap(),
        LaneView::idle("never-claimed")
    );
}

#[test]
fn many_projects_are_held_at_once_and_released_independently() {
    let lanes = ProjectLanes::new();
    let leases: Vec<Lease> = (0..1000)
        .map(|i| claim(&lanes, &format!("p{i}"), "run"))
        .collect();
    for (i, lease) in leases.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        assert_eq!(
            lanes.release(lease, Outcome::Succeeded).unwrap().project,
            format!("p{i}")
        );
    }
    for i in 0..1000 {
        assert_eq!(
            lanes.view(&format!("p{i}")).unwrap().busy,
            i % 2 == 1,
            "p{i}"
        );
    }
}

#[test]
fn lease_debug_never_shows_the_token() {
    let lanes = ProjectLanes::new();
    let a = claim(&lanes, "docs", "build-1");
    lanes.release(&a, Outcome::Succeeded).unwrap();
    let b = claim(&lanes, "docs", "build-1");
    // Different owners, identical debug output: nothing in it tells them apart.
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_eq!(format!("{b:#?}").lines().count(), 5);
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

#[test]
fn views_receipts_and_outcomes_serialize_as_documented() {
    let lanes = ProjectLanes::new();
    let idle = serde_json::to_string(&lanes.view("docs").unwrap()).unwrap();
    assert_eq!(idle, r#"{"project":"docs","busy":false}"#);
    let lease = claim(&lanes, "docs", "build-1");
    let busy = serde_json::to_string(&lanes.view("docs").unwrap()).unwrap();
    assert_eq!(
        busy,
        r#"{"project":"docs","busy":true,"run":"build-1","state":"running"}"#
    );
    let stopping = serde_json::to_string(&lanes.request_stop(&lease).unwrap()).unwrap();
    assert_eq!(
        stopping,
        r#"{"project":"docs","busy":true,"run":"build-1","state":"stop_requested"}"#
    );
    let receipt = lanes.release(&lease, Outcome::NeedsReview).unwrap();
    let json = serde_json::to_string(&receipt).unwrap();
    assert_eq!(
        json,
        r#"{"project":"docs","run":"build-1","outcome":"needs_review","stop_requested":true,"work_executed_here":false}"#
    );
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
