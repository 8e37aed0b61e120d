//! Crash recovery without silent replay: a holder whose session ended is marked, never released
//! as if finished; its project stays blocked until a person resolves it.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use project_lanes::backend::Refusal;
use project_lanes::dispatch::{DispatchError, ReservationState};
use project_lanes::{LaneError, Outcome};
use project_lanes_pg::{PgDispatcher, PgLanes, Recovery};

use common::roles::{Role, as_admin, grants};
use common::{TestProcess, fresh_schema, lanes_pg, recover_until_marked, url};

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn recovery_never_touches_a_live_holder() {
    let schema = fresh_schema();
    let holder = PgLanes::connect(&url(), &schema).unwrap();
    let lease = holder.claim("docs", "build-1").unwrap();
    let mut d = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    let id = d.enqueue("general", "site", "s").unwrap();
    d.dispatch("general").unwrap().unwrap();
    let other = PgLanes::connect(&url(), &schema).unwrap();
    assert!(other.recover().unwrap().is_empty());
    assert!(
        PgDispatcher::connect(&url(), &schema, &["general"])
            .unwrap()
            .recovered()
            .is_empty()
    );
    assert_eq!(
        d.reservation(id).unwrap().state,
        ReservationState::Dispatched
    );
    holder.release(&lease, Outcome::Succeeded).unwrap();
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_lane_whose_session_ended_is_marked_orphaned_and_stays_held_until_resolved() {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let lease = {
        let holder = PgLanes::connect(&url(), &schema).unwrap();
        holder.claim("docs", "build-1").unwrap()
        // The handle is dropped: its connection, hence its session, ends.
    };
    let recovery = recover_until_marked(|| lanes.recover().unwrap());
    assert_eq!(recovery.orphans.len(), 1, "{recovery:?}");
    assert_eq!(
        (
            recovery.orphans[0].project.as_str(),
            recovery.orphans[0].generation
        ),
        ("docs", 1)
    );
    assert!(recovery.reservations.is_empty());
    // Still held: nothing was released behind anyone's back.
    assert!(lanes.view("docs").unwrap().busy);
    assert_eq!(
        lanes.claim("docs", "build-2").unwrap_err().lane_error(),
        Some(LaneError::ProjectBusy)
    );
    assert_eq!(lanes.orphans().unwrap().len(), 1);
    assert!(lanes.recover().unwrap().is_empty(), "marked once");
    // A person resolves it; the receipt says nobody vouches for the outcome.
    let receipt = lanes.resolve_orphan("docs").unwrap();
    assert_eq!(receipt.outcome, Outcome::NeedsReview);
    assert!(!receipt.work_executed_here);
    assert_eq!(
        lanes.resolve_orphan("docs").unwrap_err().lane_error(),
        Some(LaneError::LeaseNotCurrent)
    );
    // The dead holder's lease stays refused; the next claim has a newer generation.
    assert_eq!(
        lanes
            .release(&lease, Outcome::Succeeded)
            .unwrap_err()
            .lane_error(),
        Some(LaneError::LeaseNotCurrent)
    );
    assert_eq!(lanes.claim("docs", "build-2").unwrap().generation(), 2);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn sigkill_while_holding_a_lane_and_a_reservation_is_recovered_as_unresolved() {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let mut d = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    let held = d.enqueue("general", "site", "nightly-1").unwrap();
    let waiting = d.enqueue("general", "site", "nightly-2").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_lanes-pg-test-process"))
        .args(["hold", &url(), &schema, "docs", "general"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), format!("READY 1 {held}"));
    assert!(lanes.recover().unwrap().is_empty(), "the holder is alive");

    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let mut recovery = recover_until_marked(|| lanes.recover().unwrap());
    // The two sessions may be seen ending one after the other.
    let deadline = Instant::now() + Duration::from_secs(10);
    while recovery.orphans.len() + recovery.reservations.len() < 2 && Instant::now() < deadline {
        let more = lanes.recover().unwrap();
        recovery.orphans.extend(more.orphans);
        recovery.reservations.extend(more.reservations);
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(recovery.orphans.len(), 1, "{recovery:?}");
    assert_eq!(recovery.orphans[0].project.as_str(), "docs");
    assert_eq!(recovery.reservations.len(), 1, "{recovery:?}");
    assert_eq!(recovery.reservations[0].reservation, Some(held));

    // The reservation is unresolved (needs_review), not re-queued: nothing is replayed.
    let view = d.reservation(held).unwrap();
    assert_eq!(
        (view.state, view.outcome),
        (ReservationState::Unresolved, Some(Outcome::NeedsReview))
    );
    assert_eq!(d.dispatch("general").unwrap(), None, "site is blocked");
    assert_eq!(d.retained("general").unwrap(), 1);
    assert_eq!(
        lanes.claim("site", "x").unwrap_err().lane_error(),
        Some(LaneError::ProjectBusy)
    );
    assert_eq!(
        d.persisted(held, true).unwrap_err().refusal(),
        Some(DispatchError::NotPersisting)
    );
    // The direct lane stays held until resolved.
    assert!(lanes.view("docs").unwrap().busy);

    // A person resolves both; work goes on with newer generations.
    d.resolve(held).unwrap();
    let next = d.dispatch_with_generation("general").unwrap().unwrap();
    assert_eq!((next.job.reservation, next.generation), (waiting, 2));
    lanes.resolve_orphan("docs").unwrap();
    assert_eq!(lanes.claim("docs", "after").unwrap().generation(), 2);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn recovery_by_a_role_that_cannot_see_other_sessions_never_marks_a_live_holder() {
    // Two application roles without pg_read_all_stats: to each, the other's sessions show no
    // start time in pg_stat_activity.
    let (one, two) = (Role::create("app", ""), Role::create("app", ""));
    let schema = fresh_schema();
    let mut setup = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    as_admin(&(grants(&schema, &one.name) + &grants(&schema, &two.name)));
    let held = setup.enqueue("general", "site", "nightly-1").unwrap();

    // Role one holds a lane and a reservation, in a process of its own.
    let mut holder = TestProcess::start(&["hold", &one.url(), &schema, "docs", "general"]);
    assert_eq!(holder.line(), format!("READY 1 {held}"));

    // Role two recovers, in this process and with the operator's command: nothing to mark.
    let d = PgDispatcher::connect(&two.url(), &schema, &["general"]).unwrap();
    assert!(d.recovered().is_empty(), "{:?}", d.recovered());
    let lanes = PgLanes::connect(&two.url(), &schema).unwrap();
    assert!(lanes.recover().unwrap().is_empty());
    let (code, out, err) = lanes_pg(&["recover", &two.url(), &schema]);
    assert_eq!((code, out.trim()), (Some(0), "nothing to recover"), "{err}");
    assert_eq!(
        setup.reservation(held).unwrap().state,
        ReservationState::Dispatched
    );
    assert_eq!(lanes.orphans().unwrap(), vec![]);

    // Once role one's process is gone, role two's recovery marks both.
    holder.kill();
    let mut recovery = Recovery::default();
    let deadline = Instant::now() + Duration::from_secs(10);
    while recovery.orphans.len() + recovery.reservations.len() < 2 && Instant::now() < deadline {
        let more = lanes.recover().unwrap();
        recovery.orphans.extend(more.orphans);
        recovery.reservations.extend(more.reservations);
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(recovery.orphans.len(), 1, "{recovery:?}");
    assert_eq!(recovery.reservations[0].reservation, Some(held));
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_lane_of_an_older_process_counts_as_alive_while_a_session_of_its_pid_may_be_its_own() {
    // Lanes taken by a process of an older version (no session key) are judged by
    // pg_stat_activity, where another role's session shows no start time: such a session counts
    // as alive, only a session visibly gone as ended.
    let (one, two) = (Role::create("app", ""), Role::create("app", ""));
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    as_admin(&(grants(&schema, &one.name) + &grants(&schema, &two.name)));
    let mut old = postgres::Client::connect(&one.url(), postgres::NoTls).unwrap();
    let row = old
        .query_one(
            "SELECT pid, backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid()",
            &[],
        )
        .unwrap();
    let (pid, started): (i32, std::time::SystemTime) = (row.get(0), row.get(1));
    let mut admin = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    admin
        .execute(
            &format!(
                "INSERT INTO {schema}.lanes (project, generation, run, token, owner_pid, \
                 owner_started) VALUES ('alive', 1, 'old-1', 'a', $1, $2), \
                 ('gone', 1, 'old-2', 'b', NULL, NULL), \
                 ('restarted', 1, 'old-3', 'c', $1, $2 - interval '1 day')"
            ),
            &[&pid, &started],
        )
        .unwrap();
    let by_two = PgLanes::connect(&two.url(), &schema).unwrap();
    let marked: Vec<String> = by_two
        .recover()
        .unwrap()
        .orphans
        .iter()
        .map(|m| m.project.to_string())
        .collect();
    // `restarted`'s pid belongs to a session two cannot date: it may be the holder's.
    assert_eq!(marked, ["gone"]);
    // The test's own role sees start times: `restarted`'s session is not the holder's.
    let marked: Vec<String> = lanes
        .recover()
        .unwrap()
        .orphans
        .iter()
        .map(|m| m.project.to_string())
        .collect();
    assert_eq!(marked, ["restarted"]);
    drop(old);
    let marked = recover_until_marked(|| by_two.recover().unwrap());
    assert_eq!(marked.orphans[0].project.as_str(), "alive");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_holder_whose_backend_is_terminated_is_recovered() {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let mut holder = TestProcess::start(&["lease", &url(), &schema, "docs", "job-1"]);
    assert_eq!(holder.line(), "CLAIMED 1");
    assert!(lanes.recover().unwrap().is_empty());
    let mut admin = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let terminated: i64 = admin
        .query_one(
            &format!(
                "SELECT count(pg_terminate_backend(owner_pid)) FROM {schema}.lanes \
                 WHERE project = 'docs'"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(terminated, 1);
    let recovery = recover_until_marked(|| lanes.recover().unwrap());
    assert_eq!(recovery.orphans.len(), 1, "{recovery:?}");
    // The holder's lease still releases its lane, through a new session.
    holder.send("release");
    assert_eq!(holder.line(), "RELEASED");
    holder.succeeds();
    assert_eq!(lanes.orphans().unwrap(), vec![]);
}
