//! The core's lane contract (`core/tests/suite/lanes.rs`) on PostgreSQL, and what only concerns
//! this backend: many handles on one schema share the lanes, errors never show tokens.

mod common;
#[path = "../../core/tests/suite/lanes.rs"]
mod lanes_suite;

use project_lanes::{LaneError, LaneState, LaneView, Outcome};
use project_lanes_pg::{PgError, PgLanes, PgLease};

use common::{fresh_lanes, fresh_schema, url};

lane_contract_tests!(
    #[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
    fresh_lanes
);

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn handles_on_one_schema_share_the_lanes() {
    let schema = fresh_schema();
    let a = PgLanes::connect(&url(), &schema).unwrap();
    let b = PgLanes::connect(&url(), &schema).unwrap();
    let lease = a.claim("docs", "build-1").unwrap();
    assert_eq!(
        b.claim("docs", "build-2").unwrap_err().code(),
        LaneError::ProjectBusy.code()
    );
    assert_eq!(
        b.view("docs").unwrap(),
        LaneView::held("docs", "build-1", LaneState::Running)
    );
    // The lease is the proof, whichever handle presents it.
    b.request_stop(&lease).unwrap();
    assert!(
        b.release(&lease, Outcome::Cancelled)
            .unwrap()
            .stop_requested
    );
    assert_eq!(a.claim("docs", "build-3").unwrap().generation(), 2);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_handle_connected_again_sees_the_same_lanes() {
    let schema = fresh_schema();
    let lease = {
        let lanes = PgLanes::connect(&url(), &schema).unwrap();
        lanes.claim("docs", "build-1").unwrap()
    };
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    assert!(lanes.view("docs").unwrap().busy, "durable");
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    assert!(!lanes.view("docs").unwrap().busy);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn bad_schema_names_and_unreachable_databases_are_clear_errors() {
    for bad in ["", "Lanes", "1abc", "a-b", "a;b", &"a".repeat(64)] {
        let error = PgLanes::connect(&url(), bad).unwrap_err();
        assert_eq!(error.code(), "CONFIG", "{bad:?}");
    }
    let error = PgLanes::connect("host=/nonexistent-folder user=nobody", "lanes").unwrap_err();
    assert_eq!(error.code(), "DATABASE");
    assert!(matches!(error, PgError::Database(..)));
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn leases_and_errors_never_show_the_token() {
    let lanes = fresh_lanes();
    let lease = lanes.claim("docs", "build-1").unwrap();
    let debug = format!("{lease:?} {lanes:?}");
    assert_eq!(
        format!("{lease:?}"),
        r#"PgLease { project: "docs", run: "build-1", .. }"#
    );
    // No 36-character UUID anywhere.
    assert!(!debug.contains('-') || !debug.split(['"', ' ']).any(|w| w.len() == 36));
    let refused = lanes.claim("docs", "again").unwrap_err();
    assert_eq!(format!("{refused:?}"), "Refused(PROJECT_BUSY)");
}

#[test]
fn lanes_and_leases_cross_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<PgLanes>();
    assert_send_sync::<PgLease>();
    assert_send_sync::<PgError>();
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_schema_newer_than_this_crate_is_refused() {
    use project_lanes_pg::schema::SCHEMA_VERSION;
    let schema = fresh_schema();
    drop(PgLanes::connect(&url(), &schema).unwrap());
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .execute(
            &format!(
                "INSERT INTO {schema}.lanes_schema_version (version, description) VALUES ($1, 'x')"
            ),
            &[&(SCHEMA_VERSION + 1)],
        )
        .unwrap();
    let newer = PgLanes::connect(&url(), &schema).unwrap_err();
    assert_eq!(newer.code(), "CONFIG");
    assert!(
        newer.to_string().contains("newer than this crate"),
        "{newer}"
    );
}
