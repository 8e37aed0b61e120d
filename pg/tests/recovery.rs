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

use common::{fresh_schema, url};

/// Runs `recover` until it marks something (the server drops a dead session a moment after its
/// client is gone), for at most ten seconds.
fn recover_until_marked(lanes: &PgLanes) -> Recovery {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let recovery = lanes.recover().unwrap();
        if !recovery.is_empty() || Instant::now() > deadline {
            return recovery;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

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

#[test]
fn a_lane_whose_session_ended_is_marked_orphaned_and_stays_held_until_resolved() {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let lease = {
        let holder = PgLanes::connect(&url(), &schema).unwrap();
        holder.claim("docs", "build-1").unwrap()
        // The handle is dropped: its connection, hence its session, ends.
    };
    let recovery = recover_until_marked(&lanes);
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
    let mut recovery = recover_until_marked(&lanes);
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
