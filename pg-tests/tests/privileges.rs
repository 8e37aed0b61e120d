//! Two roles, as in production: an owner that creates and upgrades the schema, and an
//! application role that only uses it, with the grants the README lists.

mod common;

use project_lanes::backend::Refusal;
use project_lanes::dispatch::ReservationState;
use project_lanes::{LaneError, Outcome};
use project_lanes_pg::{PgDispatcher, PgLanes};

use common::fresh_schema;
use common::roles::{Role, grants};

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_application_role_uses_a_schema_its_owner_created() {
    let owner = Role::create("owner", "GRANT CREATE ON DATABASE {db} TO {role}");
    let app = Role::create("app", "");
    let schema = fresh_schema();
    PgLanes::connect(&owner.url(), &schema).unwrap();
    owner.run(&grants(&schema, &app.name));

    let lanes = PgLanes::connect(&app.url(), &schema).unwrap();
    let lease = lanes.claim("docs", "build-1").unwrap();
    lanes.request_stop(&lease).unwrap();
    assert!(
        lanes
            .release(&lease, Outcome::Cancelled)
            .unwrap()
            .stop_requested
    );
    assert_eq!(lanes.orphans().unwrap(), vec![]);
    assert_eq!(
        lanes.resolve_orphan("docs").unwrap_err().lane_error(),
        Some(LaneError::LeaseNotCurrent)
    );
    assert!(lanes.recover().unwrap().is_empty());

    let mut d = PgDispatcher::connect(&app.url(), &schema, &["general", "delivery"]).unwrap();
    let id = d.enqueue("delivery", "docs", "gen-1").unwrap();
    let job = d.dispatch("delivery").unwrap().unwrap();
    d.finish(job.reservation, Outcome::Succeeded).unwrap();
    d.persisted(id, false).unwrap();
    assert_eq!(d.resolve(id).unwrap().state, ReservationState::Resolved);
    assert_eq!(d.reservations().unwrap().len(), 1);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_application_role_that_would_have_to_create_or_upgrade_says_who_can() {
    let owner = Role::create("owner", "GRANT CREATE ON DATABASE {db} TO {role}");
    let app = Role::create("app", "");
    let missing = PgLanes::connect(&app.url(), &fresh_schema()).unwrap_err();
    assert_eq!(missing.code(), "DATABASE");
    let text = missing.to_string();
    assert!(
        text.contains("42501") && text.contains("is missing") && text.contains("owner"),
        "{text}"
    );

    // A pre-release schema that the application role may use: it may not upgrade it.
    let schema = fresh_schema();
    owner.run(&format!(
        "{} {}",
        common::pre_release::schema(&schema, common::pre_release::MIGRATIONS.len()),
        grants(&schema, &app.name)
    ));
    let old = PgLanes::connect(&app.url(), &schema).unwrap_err();
    let text = old.to_string();
    assert!(
        text.contains("42501") && text.contains("at version 7 of the pre-release schema"),
        "{text}"
    );
    // Its owner upgrades it; the application role connects from then on.
    PgLanes::connect(&owner.url(), &schema).unwrap();
    owner.run(&grants(&schema, &app.name));
    PgLanes::connect(&app.url(), &schema).unwrap();
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_application_role_journals_audits_and_reads_the_status_but_only_the_owner_prunes() {
    let owner = Role::create("owner", "GRANT CREATE ON DATABASE {db} TO {role}");
    let app = Role::create("app", "");
    let schema = fresh_schema();
    PgLanes::connect(&owner.url(), &schema).unwrap();
    owner.run(&grants(&schema, &app.name));

    let lanes = PgLanes::connect(&app.url(), &schema).unwrap();
    let lease = lanes.claim("docs", "build-1").unwrap();
    // The application role sees the owner's holder alive, as recovery does.
    let owners = PgLanes::connect(&owner.url(), &schema).unwrap();
    let site = owners.claim("site", "deploy-1").unwrap();
    let (code, out, err) = common::lanes_pg(&["status", &app.url(), &schema, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let said: serde_json::Value = serde_json::from_str(&out).unwrap();
    let alive: Vec<(&str, bool)> = said["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["project"].as_str().unwrap(), l["holder_alive"] == true))
        .collect();
    assert_eq!(alive, [("docs", true), ("site", true)], "{out}");
    owners.release(&site, Outcome::Succeeded).unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    let (code, out, err) = common::lanes_pg(&["audit", &app.url(), &schema]);
    // The replay's verdict; the chain's is the second line (never sealed here: unchained).
    assert_eq!(
        (code, out.lines().next().unwrap_or_default()),
        (Some(0), "all 4 transitions match"),
        "{err}"
    );

    // A dry run only reads: the application role may ask.
    let (code, out, err) =
        common::lanes_pg(&["prune", &app.url(), &schema, "--before", "0s", "--dry-run"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("would remove 4 transitions"), "{out}");
    let (code, _, err) = common::lanes_pg(&["prune", &app.url(), &schema, "--before", "0s"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with("lanes-pg: ") && err.contains("42501"),
        "{err}"
    );
    let (_, out, _) = common::lanes_pg(&["audit", &app.url(), &schema]);
    assert_eq!(
        out.lines().next().unwrap_or_default(),
        "all 4 transitions match",
        "the refused prune removed rows"
    );

    let (code, out, err) = common::lanes_pg(&["prune", &owner.url(), &schema, "--before", "0s"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("removed 4 transitions"), "{out}");
}
