//! `lanes-pg status` and `project_lanes_pg::status`: what is held now, by whom and since when,
//! and what waits in each queue, read without changing anything.

mod common;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use project_lanes::Outcome;
use project_lanes::record::Timestamp;
use project_lanes_pg::{PgConfig, PgDispatcher, PgLanes, status};
use serde_json::{Value, json};

use common::{TestProcess, fresh_schema, journal_rows, lanes_pg, url};

/// The time now, as the journal writes it.
fn now() -> String {
    let since_epoch = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    Timestamp::from_millis(since_epoch.as_millis() as u64)
        .unwrap()
        .to_string()
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn status_says_what_is_held_by_whom_since_when_and_what_waits_in_each_queue() {
    let (url, schema) = (url(), fresh_schema());
    let config = PgConfig::new(&url, &schema).actor("ops-1");
    let lanes = PgLanes::connect_with(&config).unwrap();
    let mut d = PgDispatcher::connect_with(&config, &["general", "delivery"]).unwrap();
    let start = now();
    let docs = lanes.claim("docs", "nightly-7").unwrap();
    lanes.request_stop(&docs).unwrap();
    let r1 = d.enqueue("general", "site", "deploy-1").unwrap();
    d.dispatch("general").unwrap().unwrap(); // R1 holds site
    let r2 = d.enqueue("general", "site", "deploy-2").unwrap(); // waits for site
    let r3 = d.enqueue("delivery", "web", "ship-1").unwrap();
    d.dispatch("delivery").unwrap().unwrap();
    d.finish(r3, Outcome::Succeeded).unwrap(); // persisting, web still held
    let r4 = d.enqueue("general", "api", "gen-1").unwrap();
    d.dispatch("general").unwrap().unwrap();
    d.finish(r4, Outcome::Succeeded).unwrap();
    d.persisted(r4, false).unwrap(); // unresolved: blocks api
    let done = d.enqueue("delivery", "web", "ship-2").unwrap();
    d.cancel(done).unwrap(); // settled: not listed
    // A holder in a process of its own, killed: gone, and not marked until a recovery runs.
    let mut holder = TestProcess::start(&["lease", &url, &schema, "dead", "job-9"]);
    assert_eq!(holder.line(), "CLAIMED 1");
    holder.kill();
    let end = now();
    let rows = journal_rows(&schema);

    // The library's reading: the dead holder's session is seen as ended a moment later.
    let deadline = Instant::now() + Duration::from_secs(10);
    let read = loop {
        let read = status::read(&config).unwrap();
        let dead = read.lanes.iter().find(|l| l.project.as_str() == "dead");
        if dead.is_some_and(|l| !l.holder_alive) || Instant::now() > deadline {
            break read;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // project, run, reservation, stop requested, orphaned, holder alive (all generation 1).
    let held: Vec<String> = read
        .lanes
        .iter()
        .map(|l| {
            assert_eq!(l.generation, 1, "{l:?}");
            let reservation = l.reservation.map_or("-".into(), |r| r.to_string());
            format!(
                "{} {} {reservation} {} {} {}",
                l.project, l.run, l.stop_requested, l.orphaned, l.holder_alive
            )
        })
        .collect();
    assert_eq!(
        held,
        [
            "dead job-9 - false false false",
            "docs nightly-7 - true false true",
            "site deploy-1 R1 false false true",
            "web ship-1 R3 false false true",
        ]
    );
    for lane in &read.lanes {
        let since = lane.since.unwrap().to_string();
        assert!(start <= since && since <= end, "{since} in {start}..{end}");
    }
    let docs = &read.lanes[1];
    assert_eq!(docs.actor.as_deref(), Some("ops-1"));

    // The command's JSON says the same.
    let (code, out, err) = lanes_pg(&["status", &url, &schema, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let said: Value = serde_json::from_str(&out).unwrap();
    let lane = |project: &str| {
        said["lanes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["project"] == project)
            .cloned()
            .unwrap_or_else(|| panic!("{project} is not in {said}"))
    };
    let docs_since = read.lanes[1].since.unwrap().to_string();
    assert_eq!(
        lane("docs"),
        json!({
            "project": "docs",
            "run": "nightly-7",
            "generation": 1,
            "since": docs_since,
            "actor": "ops-1",
            "reservation": null,
            "queue": null,
            "stop_requested": true,
            "orphaned": false,
            "holder_alive": true,
            "holder_pid": lane("docs")["holder_pid"],
            "holder_session_started": lane("docs")["holder_session_started"],
        })
    );
    assert!(lane("docs")["holder_pid"].is_number(), "{said}");
    assert_eq!(
        (&lane("site")["reservation"], &lane("site")["queue"]),
        (&json!("R1"), &json!("general"))
    );
    assert_eq!(
        (&lane("dead")["holder_alive"], &lane("dead")["orphaned"]),
        (&json!(false), &json!(false))
    );
    // Per queue: id, state and project of each reservation not settled.
    let queues: Vec<String> = said["queues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let reservations: Vec<String> = q["reservations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| format!("{} {} {}", r["id"], r["state"], r["project"]))
                .collect();
            format!("{}: {}", q["queue"], reservations.join(", "))
        })
        .collect();
    assert_eq!(
        queues,
        [
            format!(r#""delivery": "{r3}" "persisting" "web""#),
            format!(r#""general": "{r1}" "dispatched" "site", "{r2}" "queued" "site", "#)
                + &format!(r#""{r4}" "unresolved" "api""#),
        ]
    );

    // For people: one line per lane and per reservation, saying what to do about the dead.
    let (code, out, err) = lanes_pg(&["status", &url, &schema]);
    assert_eq!(code, Some(0), "{err}");
    for line in [
        format!(
            "  docs  run=nightly-7 generation=1 since={docs_since} actor=ops-1 held directly, \
             stop requested"
        ),
        "held for R1 (queue general)".to_owned(),
        "its holder's session has ended and recovery has not marked it yet (lanes-pg recover)"
            .to_owned(),
        "queue delivery: 0 queued, 0 dispatched, 1 persisting, 0 unresolved".to_owned(),
        "queue general: 1 queued, 1 dispatched, 0 persisting, 1 unresolved".to_owned(),
        format!("  {r4} unresolved project=api run=gen-1 outcome=needs_review"),
    ] {
        assert!(out.contains(&line), "{line:?} is not in:\n{out}");
    }
    // Read, never written.
    assert_eq!(journal_rows(&schema), rows);
    assert_eq!(lanes.orphans().unwrap(), vec![]);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn status_of_lanes_with_nothing_held_says_so() {
    let (url, schema) = (url(), fresh_schema());
    let lanes = PgLanes::connect(&url, &schema).unwrap();
    let lease = lanes.claim("docs", "nightly-1").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    let (code, out, err) = lanes_pg(&["status", &url, &schema]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("no lanes held (as of "), "{out}");
    assert_eq!(out.lines().count(), 1, "{out}");
    let (code, out, err) = lanes_pg(&["status", &url, &schema, "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let said: Value = serde_json::from_str(&out).unwrap();
    assert_eq!((&said["lanes"], &said["queues"]), (&json!([]), &json!([])));
}
