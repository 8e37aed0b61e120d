//! Records of version 2: a starting state, times and callers, an origin. Version 1 records keep
//! their rules; a version 2 record replays from its start and never compares times.

use project_lanes::LaneError;
use project_lanes::dispatch::{ReservationId, ReservationState, ReservationView};
use project_lanes::record::{
    Origin, OriginKind, Record, RecordError, Recorder, ReplayMismatch, Start, StartLease,
    StartLeaseState, StepResult, Text, Timestamp, Untouched, VERSION_2, replay,
};
use project_lanes::{Label, Outcome};

fn text(s: &str) -> Text {
    Text {
        en: s.into(),
        ja: s.into(),
    }
}

fn label(s: &str) -> Label {
    Label::new(s).unwrap()
}

fn time(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn lease(n: usize, project: &str, run: &str, state: StartLeaseState) -> StartLease {
    StartLease {
        handle: format!("L{n}"),
        project: label(project),
        run: label(run),
        state,
    }
}

/// A lanes record cut from a longer history: `docs` held by `nightly-7` (L2) with a stop
/// requested, `site` by `deploy-3` (L3), and `nightly-6` (L1) released before the cut.
fn window() -> Record {
    let start = Start {
        leases: vec![
            lease(1, "docs", "nightly-6", StartLeaseState::Released),
            lease(2, "docs", "nightly-7", StartLeaseState::StopRequested),
            lease(3, "site", "deploy-3", StartLeaseState::Running),
        ],
        reservations: Vec::new(),
    };
    let mut rec = Recorder::new(
        "window",
        text("W"),
        text("W."),
        &["docs", "site", "wiki"],
        "wiki",
    )
    .unwrap()
    .starting_from(start)
    .unwrap()
    .without_untouched_project();
    rec.origin(Origin {
        kind: OriginKind::Journal,
        system: Some("billing workers".into()),
        since: Some(time("2026-05-01T03:00:00.000Z")),
        until: Some(time("2026-05-01T04:00:00.000Z")),
    });
    rec.claim("docs", "nightly-8")
        .at(time("2026-05-01T03:00:00.125Z"))
        .actor("host-a/pid 4120");
    rec.release("L1", "failed")
        .at(time("2026-05-01T03:00:01.000Z"));
    rec.release("L2", "cancelled").actor("host-a/pid 4119");
    rec.claim("docs", "nightly-8");
    rec.release("L3", "succeeded");
    rec.finish().unwrap()
}

#[test]
fn a_record_cut_from_a_history_replays_from_its_start() {
    let record = window();
    assert_eq!(record.version, VERSION_2);
    replay(&record).unwrap();
    let codes: Vec<&str> = record.steps.iter().map(|s| s.result.code()).collect();
    assert_eq!(
        codes,
        ["PROJECT_BUSY", "LEASE_NOT_CURRENT", "ok", "ok", "ok"],
        "docs is held from the start; the released L1 is stale"
    );
    let StepResult::Receipt(receipt) = &record.steps[2].result else {
        panic!("{:?}", record.steps[2].result)
    };
    assert!(
        receipt.stop_requested,
        "the stop was requested before the cut"
    );
    let StepResult::Lease(issued) = &record.steps[3].result else {
        panic!()
    };
    assert_eq!(&*issued.handle, "L4", "handles go on after the start's");
    let json = serde_json::to_string(&record).unwrap();
    assert_eq!(serde_json::from_str::<Record>(&json).unwrap(), record);
}

#[test]
fn replay_never_compares_times_or_callers() {
    let mut record = window();
    record.steps[0].at = Some(time("1999-12-31T23:59:59.999Z"));
    record.steps[1].at = None;
    record.steps[2].actor = Some("someone else".into());
    replay(&record).unwrap();
}

#[test]
fn a_start_that_does_not_match_the_steps_is_a_mismatch() {
    let mut record = window();
    // Without the stop request at the start, docs shows running after the first step.
    record.start.as_mut().unwrap().leases[1].state = StartLeaseState::Running;
    assert!(
        matches!(
            replay(&record),
            Err(ReplayMismatch::Lanes { step: Some(0), .. })
        ),
        "{:?}",
        replay(&record)
    );
    let mut record = window();
    // With L3 released before the cut, site is idle after the first step.
    record.start.as_mut().unwrap().leases[2].state = StartLeaseState::Released;
    assert!(matches!(
        replay(&record),
        Err(ReplayMismatch::Lanes { step: Some(0), .. })
    ));
}

#[test]
fn a_dispatcher_record_replays_from_the_reservations_it_starts_with() {
    let view = |n: u64, project: &str, state: ReservationState, outcome: Option<Outcome>| {
        ReservationView {
            id: ReservationId::from_number(n).unwrap(),
            queue: label("general"),
            project: label(project),
            run: label(&format!("run-{n}")),
            state,
            outcome,
        }
    };
    let start = Start {
        leases: Vec::new(),
        reservations: vec![
            view(1, "docs", ReservationState::Done, Some(Outcome::Succeeded)),
            view(
                2,
                "docs",
                ReservationState::Persisting,
                Some(Outcome::Failed),
            ),
            view(3, "docs", ReservationState::Queued, None),
            view(
                4,
                "site",
                ReservationState::Unresolved,
                Some(Outcome::NeedsReview),
            ),
        ],
    };
    let mut rec = Recorder::dispatcher(
        "gate",
        text("G"),
        text("G."),
        &["docs", "site", "wiki"],
        "wiki",
        &["general"],
    )
    .unwrap()
    .starting_from(start)
    .unwrap();
    rec.dispatch("general"); // docs is held by R2, site blocked by R4: nothing
    rec.persist("R2", true);
    rec.dispatch("general"); // R3
    rec.cancel("R1"); // done long ago: NOT_QUEUED
    rec.resolve("R4");
    rec.enqueue("general", "site", "run-5");
    let record = rec.finish().unwrap();
    replay(&record).unwrap();
    let codes: Vec<&str> = record.steps.iter().map(|s| s.result.code()).collect();
    assert_eq!(codes, ["ok", "ok", "ok", "NOT_QUEUED", "ok", "ok"]);
    assert!(matches!(record.steps[0].result, StepResult::Nothing(_)));
    let StepResult::Reservation(view) = &record.steps[5].result else {
        panic!()
    };
    assert_eq!(view.id.to_string(), "R5", "ids go on after the start's");
}

fn refused(record: &Record) -> String {
    match record.check() {
        Err(RecordError::Invalid { at, message }) => format!("{at}: {message}"),
        other => panic!("expected a located refusal, got {other:?}"),
    }
}

#[test]
fn version_1_records_keep_their_rules() {
    let mut rec = Recorder::new("v1", text("V"), text("V."), &["docs", "site"], "site").unwrap();
    rec.claim("docs", "build-1");
    let v1 = rec.finish().unwrap();
    assert_eq!(v1.version, 1);
    let mut r = v1.clone();
    r.steps[0].at = Some(time("2026-05-01T03:00:00.000Z"));
    assert_eq!(refused(&r), "steps[0].at: only version 2 records have it");
    let mut r = v1.clone();
    r.steps[0].actor = Some("me".into());
    assert_eq!(
        refused(&r),
        "steps[0].actor: only version 2 records have it"
    );
    let mut r = v1.clone();
    r.start = Some(Start::default());
    assert_eq!(refused(&r), "start: only version 2 records have it");
    let mut r = v1.clone();
    r.untouched_project = Untouched::none();
    assert!(refused(&r).contains("missing field `untouched_project`"));
    // The same record as version 2 is valid: version 2 only adds.
    let mut r = v1;
    r.version = VERSION_2;
    replay(&r).unwrap();
    r.untouched_project = Untouched::none();
    r.projects.pop();
    r.final_lanes.pop();
    r.steps[0].lanes.pop();
    replay(&r).unwrap();
}

#[test]
fn starting_states_the_core_cannot_be_in_are_refused_where_they_break_a_rule() {
    let base = window();
    type Edit = fn(&mut Start);
    let cases: [(&str, Edit); 5] = [
        (
            "start.leases[1].handle: handles are numbered in order: expected \"L2\", found \"L7\"",
            |s| s.leases[1].handle = "L7".into(),
        ),
        (
            "start.leases[2].state: \"docs\" is already held by L2: a lane has one holder",
            |s| s.leases[2].project = label("docs"),
        ),
        (
            "start.leases[0].project: \"elsewhere\" is not one of `projects`",
            |s| s.leases[0].project = label("elsewhere"),
        ),
        (
            "start.reservations: only dispatcher records (with `queues`) have reservations",
            |s| {
                s.reservations.push(ReservationView {
                    id: ReservationId::from_number(1).unwrap(),
                    queue: label("general"),
                    project: label("docs"),
                    run: label("r"),
                    state: ReservationState::Queued,
                    outcome: None,
                })
            },
        ),
        (
            "steps[3].result.lease.handle: handles are numbered in order of issue",
            |s| {
                s.leases.pop();
            },
        ),
    ];
    for (expected, edit) in cases {
        let mut record = base.clone();
        edit(record.start.as_mut().unwrap());
        let message = refused(&record);
        assert!(message.starts_with(expected), "{message}");
    }
    let mut record = base.clone();
    record.untouched_project = Untouched::new(label("site"));
    assert_eq!(
        refused(&record),
        "start.leases[2].project: \"site\" is the project this record leaves untouched"
    );
}

#[test]
fn a_dispatcher_start_needs_outcomes_that_fit_and_one_holder_per_project() {
    let view = |n: u64, project: &str, state: ReservationState, outcome: Option<Outcome>| {
        ReservationView {
            id: ReservationId::from_number(n).unwrap(),
            queue: label("general"),
            project: label(project),
            run: label("r"),
            state,
            outcome,
        }
    };
    let record_with = |reservations: Vec<ReservationView>| {
        let mut rec = Recorder::dispatcher(
            "d",
            text("D"),
            text("D."),
            &["docs", "site"],
            "site",
            &["general"],
        )
        .unwrap();
        rec.enqueue("general", "docs", "x");
        let mut record = rec.finish().unwrap();
        record.version = VERSION_2;
        record.start = Some(Start {
            leases: Vec::new(),
            reservations,
        });
        record
    };
    use ReservationState::*;
    for (reservations, expected) in [
        (
            vec![view(1, "docs", Done, Some(Outcome::NeedsReview))],
            "start.reservations[0].outcome: a reservation that is done has an outcome other than needs_review",
        ),
        (
            vec![view(1, "docs", Queued, Some(Outcome::Succeeded))],
            "start.reservations[0].outcome: a reservation that is queued has no outcome",
        ),
        (
            vec![view(1, "docs", Resolved, Some(Outcome::Failed))],
            "start.reservations[0].outcome: a reservation that is resolved has the outcome needs_review",
        ),
        (
            vec![
                view(1, "docs", Unresolved, Some(Outcome::NeedsReview)),
                view(2, "docs", Dispatched, None),
            ],
            "start.reservations[1].state: \"docs\" is already blocked by R1",
        ),
        (
            vec![view(2, "docs", Queued, None)],
            "start.reservations[0].id: ids are numbered in order: expected R1, found R2",
        ),
    ] {
        let message = refused(&record_with(reservations));
        assert!(message.starts_with(expected), "{message}");
    }
}

#[test]
fn an_origin_and_an_actor_follow_their_rules() {
    let base = window();
    let mut r = base.clone();
    r.origin.as_mut().unwrap().system = None;
    assert_eq!(
        refused(&r),
        "origin.system: a journal's origin names its system"
    );
    let mut r = base.clone();
    r.origin = Some(Origin {
        kind: OriginKind::Scenario,
        system: None,
        since: Some(time("2026-05-01T03:00:00.000Z")),
        until: None,
    });
    assert_eq!(refused(&r), "origin.since: only a journal's origin has it");
    let mut r = base.clone();
    r.origin.as_mut().unwrap().until = Some(time("2026-05-01T02:00:00.000Z"));
    assert!(refused(&r).starts_with("origin.until: the window ends"));
    for bad in ["", "   ", "two\nlines", "bell\u{7}", &"x".repeat(201)] {
        let mut r = base.clone();
        r.steps[1].actor = Some(bad.into());
        assert!(refused(&r).starts_with("steps[1].actor: "), "{bad:?}");
    }
    let mut r = base;
    r.steps[1].actor = Some("x".repeat(200).into());
    r.check().unwrap();
}

#[test]
fn a_time_in_another_spelling_is_a_shape_error_naming_it() {
    let json = serde_json::to_string(&window())
        .unwrap()
        .replace("2026-05-01T03:00:00.125Z", "2026-05-01T03:00:00.125+00:00");
    let e = serde_json::from_str::<Record>(&json).unwrap_err();
    assert!(
        e.to_string()
            .contains("is not a time in UTC like 2026-05-01T03:12:45.123Z"),
        "{e}"
    );
}

#[test]
fn a_refused_claim_keeps_its_lane_error_in_version_2() {
    // The start's holder makes the window's first claim PROJECT_BUSY, as in version 1.
    let record = window();
    assert_eq!(
        record.steps[0].result,
        StepResult::Error(LaneError::ProjectBusy.into())
    );
}
