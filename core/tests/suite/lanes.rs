//! The lane contract, case by case, for any backend (`project_lanes::backend::Lanes`).
//!
//! Shared by `core/tests/contract.rs` (in memory) and `pg-tests/tests/contract.rs` (PostgreSQL): a
//! test file includes this module as `lanes_suite` and calls `lane_contract_tests!(fresh)`,
//! where `fresh()` returns new, independent, empty lanes.

use project_lanes::backend::{Lanes, LeaseInfo, Refusal};
use project_lanes::{Label, LaneError, LaneState, LaneView, Outcome, Receipt, is_valid_label};

/// One `#[test]` per case below, each on `$fresh()` lanes, with the attributes given first
/// (`lane_contract_tests!(#[ignore = "needs a database"] fresh)`).
#[macro_export]
macro_rules! lane_contract_tests {
    ($(#[$attr:meta])* $fresh:path) => {
        $crate::lane_contract_tests!(@cases [$(#[$attr])*] $fresh;
            independent_projects_are_claimed_side_by_side,
            a_second_claim_of_a_busy_project_is_refused_and_the_holder_stays,
            a_busy_refusal_queues_nothing,
            claim_checks_the_project_label_then_the_run_label_then_occupancy,
            the_label_rule_is_exact,
            labels_longer_than_the_inline_size_work_the_same,
            request_stop_keeps_the_lane_occupied,
            a_stop_request_touches_only_its_own_project,
            release_frees_the_lane_and_returns_a_receipt,
            every_outcome_is_carried_into_the_receipt_and_nothing_is_executed,
            a_stop_racing_a_success_is_reported_in_the_receipt,
            a_stale_release_cannot_erase_a_new_owner,
            a_stale_stop_is_refused_and_changes_nothing,
            a_lease_released_twice_is_refused_the_second_time,
            reusing_a_run_label_recovers_nothing,
            a_lease_from_another_manager_is_refused_and_changes_nothing,
            a_lease_from_a_dropped_manager_is_refused_by_a_new_one,
            an_invalid_outcome_never_reaches_the_lanes_and_occupancy_stays,
            views_are_owned_copies,
            dropping_a_lease_does_not_release_the_lane,
            idle_projects_can_be_viewed_without_a_claim,
            many_projects_are_held_at_once_and_released_independently,
            lease_debug_never_shows_the_token,
            views_and_receipts_serialize_as_documented,
            generations_only_grow_per_project,
        );
    };
    (@cases $attrs:tt $fresh:path; $($case:ident),* $(,)?) => {
        $( $crate::lane_contract_tests!(@case $attrs $fresh; $case); )*
    };
    (@case [$(#[$attr:meta])*] $fresh:path; $case:ident) => {
        $(#[$attr])*
        #[test]
        fn $case() {
            lanes_suite::$case(&$fresh)
        }
    };
}

type Fresh<'a, L> = &'a dyn Fn() -> L;

fn claim<L: Lanes>(lanes: &L, project: &str, run: &str) -> L::Lease {
    lanes.claim(project, run).expect("claim should succeed")
}

/// The lane refusal of a result, panicking on success or on a backend failure.
fn refused<T, E: Refusal>(result: Result<T, E>) -> LaneError {
    match result {
        Ok(_) => panic!("expected a refusal, got success"),
        Err(e) => e
            .lane_error()
            .unwrap_or_else(|| panic!("expected a lane refusal, got {e:?}")),
    }
}

fn view<L: Lanes>(lanes: &L, project: &str) -> LaneView {
    lanes.view(project).expect("view should succeed")
}

fn running(project: &str, run: &str) -> LaneView {
    LaneView::held(project, run, LaneState::Running)
}

pub fn independent_projects_are_claimed_side_by_side<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let docs = claim(&lanes, "docs", "build-1");
    let site = claim(&lanes, "site", "build-2");
    assert_eq!(view(&lanes, "docs"), running("docs", "build-1"));
    assert_eq!(view(&lanes, "site"), running("site", "build-2"));
    assert_eq!((docs.project(), docs.run()), ("docs", "build-1"));
    assert_eq!((site.project(), site.run()), ("site", "build-2"));
}

pub fn a_second_claim_of_a_busy_project_is_refused_and_the_holder_stays<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let _first = claim(&lanes, "docs", "build-1");
    assert_eq!(
        refused(lanes.claim("docs", "build-2")),
        LaneError::ProjectBusy
    );
    assert_eq!(view(&lanes, "docs"), running("docs", "build-1"));
}

pub fn a_busy_refusal_queues_nothing<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let first = claim(&lanes, "docs", "build-1");
    assert!(lanes.claim("docs", "build-2").is_err());
    lanes.release(&first, Outcome::Succeeded).unwrap();
    // The refused claim was not queued or replayed: the lane is simply idle now.
    assert_eq!(view(&lanes, "docs"), LaneView::idle("docs"));
}

pub fn claim_checks_the_project_label_then_the_run_label_then_occupancy<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let _held = claim(&lanes, "docs", "build-1");
    // Invalid run on a busy project: labels come before occupancy.
    assert_eq!(
        refused(lanes.claim("docs", "bad run")),
        LaneError::InvalidLabel
    );
    assert_eq!(refused(lanes.claim("", "build-2")), LaneError::InvalidLabel);
    assert_eq!(refused(lanes.claim("docs", "")), LaneError::InvalidLabel);
    assert_eq!(view(&lanes, "docs"), running("docs", "build-1"));
}

pub fn the_label_rule_is_exact<L: Lanes>(fresh: Fresh<L>) {
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
        "a'; DROP TABLE lanes; --",
        &"a".repeat(81),
    ];
    let lanes = fresh();
    for label in ok {
        assert!(is_valid_label(label), "{label:?} should be valid");
        assert!(Label::new(label).is_ok());
        let lease = claim(&lanes, label, label);
        assert_eq!(view(&lanes, label), running(label, label));
        lanes.release(&lease, Outcome::Succeeded).unwrap();
    }
    for label in bad {
        assert!(!is_valid_label(label), "{label:?} should be invalid");
        assert_eq!(Label::new(label), Err(LaneError::InvalidLabel));
        assert_eq!(refused(lanes.claim(label, "run")), LaneError::InvalidLabel);
        assert_eq!(refused(lanes.claim("docs", label)), LaneError::InvalidLabel);
        assert_eq!(refused(lanes.view(label)), LaneError::InvalidLabel);
    }
    assert_eq!(view(&lanes, "docs"), LaneView::idle("docs"));
}

pub fn labels_longer_than_the_inline_size_work_the_same<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let project = "p".repeat(80);
    let run = format!("run-{}", "r".repeat(60));
    let lease = claim(&lanes, &project, &run);
    assert_eq!(
        (lease.project(), lease.run()),
        (project.as_str(), run.as_str())
    );
    assert_eq!(
        refused(lanes.claim(&project, "other")),
        LaneError::ProjectBusy
    );
    let receipt = lanes.release(&lease, Outcome::Failed).unwrap();
    assert_eq!(
        (receipt.project.as_str(), receipt.run.as_str()),
        (project.as_str(), run.as_str())
    );
}

pub fn request_stop_keeps_the_lane_occupied<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let lease = claim(&lanes, "docs", "build-1");
    let stopping = LaneView::held("docs", "build-1", LaneState::StopRequested);
    assert_eq!(lanes.request_stop(&lease).unwrap(), stopping);
    assert_eq!(view(&lanes, "docs"), stopping);
    assert_eq!(
        refused(lanes.claim("docs", "build-2")),
        LaneError::ProjectBusy
    );
    // Asking twice is harmless and changes nothing more.
    assert_eq!(lanes.request_stop(&lease).unwrap(), stopping);
}

pub fn a_stop_request_touches_only_its_own_project<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let docs = claim(&lanes, "docs", "build-1");
    let _site = claim(&lanes, "site", "build-2");
    lanes.request_stop(&docs).unwrap();
    assert_eq!(view(&lanes, "site"), running("site", "build-2"));
}

pub fn release_frees_the_lane_and_returns_a_receipt<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
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
    assert_eq!(view(&lanes, "docs"), LaneView::idle("docs"));
    assert!(lanes.claim("docs", "build-2").is_ok());
}

pub fn every_outcome_is_carried_into_the_receipt_and_nothing_is_executed<L: Lanes>(
    fresh: Fresh<L>,
) {
    let lanes = fresh();
    for outcome in Outcome::ALL {
        let lease = claim(&lanes, outcome.as_str(), "build-1");
        let receipt = lanes.release(&lease, outcome).unwrap();
        assert_eq!(receipt.outcome, outcome);
        assert!(!receipt.work_executed_here);
    }
}

pub fn a_stop_racing_a_success_is_reported_in_the_receipt<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let lease = claim(&lanes, "docs", "build-1");
    lanes.request_stop(&lease).unwrap();
    let receipt = lanes.release(&lease, Outcome::Succeeded).unwrap();
    assert_eq!(receipt.outcome, Outcome::Succeeded);
    assert!(receipt.stop_requested);
    // The next holder starts without a stop request.
    let _next = claim(&lanes, "docs", "build-2");
    assert_eq!(view(&lanes, "docs"), running("docs", "build-2"));
}

pub fn a_stale_release_cannot_erase_a_new_owner<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let old = claim(&lanes, "docs", "build-1");
    lanes.release(&old, Outcome::Failed).unwrap();
    let new = claim(&lanes, "docs", "build-2");
    assert_eq!(
        refused(lanes.release(&old, Outcome::Cancelled)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(view(&lanes, "docs"), running("docs", "build-2"));
    assert!(lanes.release(&new, Outcome::Succeeded).is_ok());
}

pub fn a_stale_stop_is_refused_and_changes_nothing<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let old = claim(&lanes, "docs", "build-1");
    lanes.release(&old, Outcome::Succeeded).unwrap();
    let _new = claim(&lanes, "docs", "build-2");
    assert_eq!(
        refused(lanes.request_stop(&old)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(view(&lanes, "docs"), running("docs", "build-2"));
}

pub fn a_lease_released_twice_is_refused_the_second_time<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let lease = claim(&lanes, "docs", "build-1");
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    assert_eq!(
        refused(lanes.release(&lease, Outcome::Succeeded)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(
        refused(lanes.request_stop(&lease)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(view(&lanes, "docs"), LaneView::idle("docs"));
}

pub fn reusing_a_run_label_recovers_nothing<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let old = claim(&lanes, "docs", "nightly");
    assert_eq!(
        refused(lanes.claim("docs", "nightly")),
        LaneError::ProjectBusy
    );
    lanes.release(&old, Outcome::Succeeded).unwrap();
    // Same run label after release: a new owner with a new token.
    let new = claim(&lanes, "docs", "nightly");
    assert_eq!(
        refused(lanes.release(&old, Outcome::Succeeded)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(
        refused(lanes.request_stop(&old)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(view(&lanes, "docs"), running("docs", "nightly"));
    assert!(lanes.release(&new, Outcome::Succeeded).is_ok());
}

pub fn a_lease_from_another_manager_is_refused_and_changes_nothing<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let other = fresh();
    let mine = claim(&lanes, "docs", "build-1");
    let foreign = claim(&other, "docs", "build-1");
    assert_eq!(
        refused(lanes.release(&foreign, Outcome::Succeeded)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(
        refused(lanes.request_stop(&foreign)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(view(&lanes, "docs"), running("docs", "build-1"));
    assert_eq!(view(&other, "docs"), running("docs", "build-1"));
    assert!(lanes.release(&mine, Outcome::Succeeded).is_ok());
    assert!(other.release(&foreign, Outcome::Succeeded).is_ok());
}

pub fn a_lease_from_a_dropped_manager_is_refused_by_a_new_one<L: Lanes>(fresh: Fresh<L>) {
    let old = fresh();
    let lease = claim(&old, "docs", "build-1");
    drop(old);
    let lanes = fresh();
    let _held = claim(&lanes, "docs", "build-1");
    assert_eq!(
        refused(lanes.release(&lease, Outcome::Succeeded)),
        LaneError::LeaseNotCurrent
    );
    assert_eq!(view(&lanes, "docs"), running("docs", "build-1"));
}

pub fn an_invalid_outcome_never_reaches_the_lanes_and_occupancy_stays<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let lease = claim(&lanes, "docs", "build-1");
    for text in ["", "success", "Succeeded", "needs-review", "cancelled "] {
        let result = text
            .parse::<Outcome>()
            .map_err(L::Error::from)
            .and_then(|o| lanes.release(&lease, o));
        assert_eq!(refused(result), LaneError::InvalidOutcome, "{text:?}");
        assert_eq!(view(&lanes, "docs"), running("docs", "build-1"));
    }
    assert!(lanes.release(&lease, "cancelled".parse().unwrap()).is_ok());
}

pub fn views_are_owned_copies<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let lease = claim(&lanes, "docs", "build-1");
    let mut copy = view(&lanes, "docs");
    copy.busy = false;
    copy.run = Some("someone-else".into());
    copy.state = Some(LaneState::StopRequested);
    assert_eq!(view(&lanes, "docs"), running("docs", "build-1"));
    let mut stopped = lanes.request_stop(&lease).unwrap();
    stopped.run = None;
    assert_eq!(view(&lanes, "docs").run.as_deref(), Some("build-1"));
}

pub fn dropping_a_lease_does_not_release_the_lane<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    drop(claim(&lanes, "docs", "build-1"));
    // Release is explicit, with an outcome; a forgotten lease keeps the lane occupied.
    assert_eq!(view(&lanes, "docs"), running("docs", "build-1"));
    assert_eq!(
        refused(lanes.claim("docs", "build-2")),
        LaneError::ProjectBusy
    );
}

pub fn idle_projects_can_be_viewed_without_a_claim<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    assert_eq!(
        view(&lanes, "never-claimed"),
        LaneView::idle("never-claimed")
    );
}

pub fn many_projects_are_held_at_once_and_released_independently<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let leases: Vec<L::Lease> = (0..1000)
        .map(|i| claim(&lanes, &format!("p{i}"), "run"))
        .collect();
    for (i, lease) in leases.iter().enumerate().filter(|(i, _)| i % 2 == 0) {
        assert_eq!(
            lanes.release(lease, Outcome::Succeeded).unwrap().project,
            format!("p{i}")
        );
    }
    for i in 0..1000 {
        assert_eq!(view(&lanes, &format!("p{i}")).busy, i % 2 == 1, "p{i}");
    }
}

pub fn lease_debug_never_shows_the_token<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let a = claim(&lanes, "docs", "build-1");
    lanes.release(&a, Outcome::Succeeded).unwrap();
    let b = claim(&lanes, "docs", "build-1");
    // Different owners, identical debug output: nothing in it tells them apart.
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
    assert_eq!(format!("{b:#?}").lines().count(), 5);
}

pub fn views_and_receipts_serialize_as_documented<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let idle = serde_json::to_string(&view(&lanes, "docs")).unwrap();
    assert_eq!(idle, r#"{"project":"docs","busy":false}"#);
    let lease = claim(&lanes, "docs", "build-1");
    let busy = serde_json::to_string(&view(&lanes, "docs")).unwrap();
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
}

pub fn generations_only_grow_per_project<L: Lanes>(fresh: Fresh<L>) {
    let lanes = fresh();
    let first = claim(&lanes, "docs", "build-1");
    assert_eq!(first.generation(), 1);
    // Refused claims take no generation.
    assert!(lanes.claim("docs", "build-2").is_err());
    assert_eq!(claim(&lanes, "site", "build-1").generation(), 1);
    lanes.request_stop(&first).unwrap();
    lanes.release(&first, Outcome::Cancelled).unwrap();
    let second = claim(&lanes, "docs", "build-2");
    assert_eq!(second.generation(), 2);
    assert_eq!(first.generation(), 1, "a lease keeps its own generation");
    lanes.release(&second, Outcome::Succeeded).unwrap();
    for n in 3..=10 {
        let lease = claim(&lanes, "docs", "again");
        assert_eq!(lease.generation(), n);
        lanes.release(&lease, Outcome::Succeeded).unwrap();
    }
    // Other lanes start their own count.
    assert_eq!(fresh().claim("docs", "x").unwrap().generation(), 1);
}
