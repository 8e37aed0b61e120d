//! Orphaned lanes: a lane whose holder's session ended is flagged for a person, and the flag
//! always belongs to the holder it was set for — released, claimed again, resolved or recovered,
//! a lane never lists or frees a live holder as an orphan. Each holder runs in a process of its
//! own, as in production.

mod common;

use project_lanes::LaneError;
use project_lanes::backend::Refusal;
use project_lanes_pg::{PgDispatcher, PgLanes};

use common::{TestProcess, fresh_schema, lanes_pg, recover_until_marked, url};

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_released_orphan_is_cleared_and_the_next_holder_is_never_listed_or_freed_as_one() {
    let (url, schema) = (url(), fresh_schema());
    let lanes = PgLanes::connect(&url, &schema).unwrap();

    // job-1 claims in a process of its own and drops its handle: its session ends, its lease
    // lives on.
    let mut job1 = TestProcess::start(&["lease", &url, &schema, "p", "job-1", "--drop-handle"]);
    assert_eq!(job1.line(), "CLAIMED 1");
    // Any dispatcher that connects runs recovery, which flags the lane.
    let recovery = recover_until_marked(|| {
        PgDispatcher::connect(&url, &schema, &["general"])
            .unwrap()
            .recovered()
            .clone()
    });
    assert_eq!(recovery.orphans.len(), 1, "{recovery:?}");
    assert_eq!(lanes.orphans().unwrap().len(), 1);

    // The lease is still current: job-1 releases it through another handle.
    job1.send("release");
    assert_eq!(job1.line(), "RELEASED");
    job1.succeeds();
    assert_eq!(
        lanes.orphans().unwrap(),
        vec![],
        "an idle lane is nobody's orphan"
    );
    assert_eq!(
        lanes.resolve_orphan("p").unwrap_err().lane_error(),
        Some(LaneError::LeaseNotCurrent)
    );

    // job-2, alive in another process, holds the lane now.
    let mut job2 = TestProcess::start(&["lease", &url, &schema, "p", "job-2"]);
    assert_eq!(job2.line(), "CLAIMED 2");
    assert_eq!(lanes.orphans().unwrap(), vec![], "job-2 is alive");
    let (code, out, err) = lanes_pg(&["orphans", &url, &schema]);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "no orphaned lanes\n"),
        "{err}"
    );
    assert_eq!(
        lanes.resolve_orphan("p").unwrap_err().lane_error(),
        Some(LaneError::LeaseNotCurrent),
        "resolving must not free a live holder"
    );
    assert!(
        PgDispatcher::connect(&url, &schema, &["general"])
            .unwrap()
            .recovered()
            .is_empty()
    );
    assert_eq!(
        lanes.claim("p", "job-3").unwrap_err().lane_error(),
        Some(LaneError::ProjectBusy),
        "one holder at a time"
    );

    // job-2's own release goes through; the next claim is generation 3.
    job2.send("release");
    assert_eq!(job2.line(), "RELEASED");
    job2.succeeds();
    assert_eq!(lanes.claim("p", "job-3").unwrap().generation(), 3);
}

/// `lanes-pg orphans URL SCHEMA args…` until its output is not `before` (the server ends a
/// killed process's sessions a moment later), for at most ten seconds: the output then.
fn orphans_after(url: &str, schema: &str, args: &[&str], before: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let mut all = vec!["orphans", url, schema];
    all.extend_from_slice(args);
    loop {
        let (code, out, err) = lanes_pg(&all);
        assert_eq!(code, Some(0), "{err}");
        if out != before || std::time::Instant::now() > deadline {
            return out;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn orphans_names_the_lanes_whose_holder_died_before_recovery_marks_them() {
    let (url, schema) = (url(), fresh_schema());
    let mut d = PgDispatcher::connect(&url, &schema, &["general"]).unwrap();
    d.enqueue("general", "job", "build-1").unwrap();
    let lanes = PgLanes::connect(&url, &schema).unwrap();
    let _alive = lanes.claim("live", "job-2").unwrap();
    // A process holding a lane directly and one for a reservation, killed.
    let mut holder = TestProcess::start(&["hold", &url, &schema, "p", "general"]);
    assert_eq!(holder.line(), "READY 1 R1");
    let (code, out, err) = lanes_pg(&["orphans", &url, &schema]);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "no orphaned lanes\n"),
        "{err}"
    );
    holder.kill();

    let gone = "not yet marked: project=job run=build-1 generation=1 reservation=R1 (its \
                holder's session has ended; lanes-pg recover makes R1 unresolved)\n\
                not yet marked: project=p run=holder generation=1 (its holder's session has \
                ended; lanes-pg recover marks the lane orphaned)\n";
    let mut out = String::from("no orphaned lanes\n");
    while out != gone {
        let said = orphans_after(&url, &schema, &[], &out);
        assert!(said != out, "still {out:?}");
        out = said;
    }
    let said = orphans_after(&url, &schema, &["--json"], "");
    let said: serde_json::Value = serde_json::from_str(&said).unwrap();
    assert_eq!(
        said,
        serde_json::json!({
            "orphaned": [],
            "not_marked": [
                {"project": "job", "run": "build-1", "generation": 1, "reservation": "R1"},
                {"project": "p", "run": "holder", "generation": 1, "reservation": null},
            ],
        })
    );
    // Asking marked nothing: recovery does.
    assert_eq!(lanes.orphans().unwrap(), vec![]);
    let (code, out, err) = lanes_pg(&["recover", &url, &schema]);
    assert_eq!(
        (code, out.as_str()),
        (
            Some(0),
            "unresolved R1 project=job run=build-1 generation=1\n\
             orphaned project=p run=holder generation=1\n"
        ),
        "{err}"
    );
    let (code, out, err) = lanes_pg(&["orphans", &url, &schema]);
    assert_eq!(
        (code, out.as_str()),
        (Some(0), "orphaned project=p run=holder generation=1\n"),
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn the_database_refuses_an_orphan_flag_that_is_not_its_current_holders() {
    let (url, schema) = (url(), fresh_schema());
    let lanes = PgLanes::connect(&url, &schema).unwrap();
    let _lease = lanes.claim("p", "job-1").unwrap();
    lanes.claim("q", "job-1").map(drop).unwrap();
    let mut sql = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let run = |sql: &mut postgres::Client, statement: &str| {
        sql.batch_execute(&format!("SET search_path TO {schema}; {statement}"))
            .map_err(|e| e.code().map(|c| c.code().to_owned()))
    };
    // Flagging the current holder is what recovery does.
    run(
        &mut sql,
        "UPDATE lanes SET orphaned_generation = generation WHERE project = 'p'",
    )
    .unwrap();
    // Every way of passing the flag on is refused: a release that keeps it, a new holder (a new
    // generation) that inherits it, a flag on a lane without a holder or for another generation.
    for forgot in [
        "UPDATE lanes SET run = NULL, token = NULL WHERE project = 'p'",
        "UPDATE lanes SET generation = generation + 1, token = 'new' WHERE project = 'p'",
        "UPDATE lanes SET orphaned_generation = generation - 1 WHERE project = 'q'",
        "UPDATE lanes SET run = NULL, token = NULL, orphaned_generation = generation \
         WHERE project = 'q'",
    ] {
        assert_eq!(run(&mut sql, forgot), Err(Some("23514".into())), "{forgot}");
    }
}

/// `statement` run in `schema` as the test's role, with the orphan constraint dropped first: a
/// database that someone edited by hand, or restored from before the constraint.
fn corrupt(schema: &str, statement: &str) {
    let mut sql = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    sql.batch_execute(&format!(
        "SET search_path TO {schema};
         ALTER TABLE lanes DROP CONSTRAINT IF EXISTS lanes_orphan_is_the_current_holder; {statement}"
    ))
    .unwrap();
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_flagged_lane_without_a_holder_is_reported_not_a_panic_and_changes_nothing() {
    let (url, schema) = (url(), fresh_schema());
    let lanes = PgLanes::connect(&url, &schema).unwrap();
    let lease = lanes.claim("p", "job-1").unwrap();
    lanes
        .release(&lease, project_lanes::Outcome::Succeeded)
        .unwrap();
    lanes.claim("q", "job-1").map(drop).unwrap();
    // The state version 2's bug left behind: a flag on a lane nobody holds.
    corrupt(
        &schema,
        "UPDATE lanes SET orphaned_generation = generation WHERE project = 'p'",
    );

    // From several connections and processes at once: errors, never a panic.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                let lanes = PgLanes::connect(&url, &schema).unwrap();
                let listed = lanes.orphans().unwrap_err();
                assert_eq!(listed.code(), "CONFIG", "{listed}");
                assert!(listed.to_string().contains("\"p\""), "{listed}");
                let resolved = lanes.resolve_orphan("p").unwrap_err();
                assert_eq!(resolved.code(), "CONFIG", "{resolved}");
            });
        }
        for command in ["orphans", "resolve-orphan"] {
            let (url, schema) = (&url, &schema);
            s.spawn(move || {
                let mut args = vec![command, url, schema];
                if command == "resolve-orphan" {
                    args.push("p");
                }
                let (code, _, err) = lanes_pg(&args);
                assert_eq!(code, Some(1), "lanes-pg {command}: {err}");
                assert!(err.starts_with("lanes-pg: CONFIG: "), "{err}");
            });
        }
    });
    // resolve_orphan refused before committing anything: the flag is still there.
    let mut sql = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let flagged: i64 = sql
        .query_one(
            &format!("SELECT count(*) FROM {schema}.lanes WHERE orphaned_generation IS NOT NULL"),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(flagged, 1);
    // What the database holds is not a label: also an error, for every reader.
    corrupt(
        &schema,
        "UPDATE lanes SET run = 'not a label', orphaned_generation = generation \
         WHERE project = 'q'",
    );
    assert_eq!(lanes.view("q").unwrap_err().code(), "CONFIG");
}
