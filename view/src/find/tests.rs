use super::*;
use project_lanes::record::{Recorder, Text};

fn text(s: &str) -> Text {
    Text {
        en: s.into(),
        ja: s.into(),
    }
}

fn at(s: &str) -> Timestamp {
    s.parse().unwrap()
}

/// docs: claimed by nightly-1 (L1), a second claim refused, a stale release refused, released
/// needs_review; site: claimed by Deploy-7 (L2) at 03:00 by worker-2.
fn lanes() -> Record {
    let mut rec =
        Recorder::new("t", text("t"), text("t"), &["docs", "site", "wiki"], "wiki").unwrap();
    rec.claim("docs", "nightly-1")
        .at(at("2026-05-01T01:00:00.000Z"))
        .actor("worker-1");
    rec.claim("docs", "nightly-2")
        .at(at("2026-05-01T02:00:00.000Z"))
        .actor("worker-1");
    rec.claim("site", "Deploy-7")
        .at(at("2026-05-01T03:00:00.000Z"))
        .actor("worker-2");
    rec.release("L1", "needs_review")
        .at(at("2026-05-01T04:00:00.000Z"))
        .actor("worker-1");
    rec.release("L1", "succeeded")
        .at(at("2026-05-01T05:00:00.000Z"))
        .actor("worker-3");
    rec.finish().unwrap()
}

fn found(record: &Record, query: &str) -> Vec<u32> {
    let concerns = Concerns::of(record);
    Query::parse(query)
        .unwrap()
        .find(&concerns)
        .steps()
        .to_vec()
}

#[test]
fn each_key_matches_its_value_exactly() {
    let r = lanes();
    assert_eq!(found(&r, "project:docs"), [0, 1, 3, 4]);
    assert_eq!(found(&r, "project:doc"), [0u32; 0]);
    assert_eq!(found(&r, "run:nightly-1"), [0, 3, 4]);
    assert_eq!(found(&r, "op:release"), [3, 4]);
    assert_eq!(found(&r, "code:PROJECT_BUSY"), [1]);
    assert_eq!(found(&r, "code:ok"), [0, 2, 3]);
    assert_eq!(found(&r, "actor:worker-1"), [0, 1, 3]);
    assert_eq!(found(&r, "is:refused"), [1, 4]);
    assert_eq!(found(&r, "is:recovery"), [3]);
}

#[test]
fn every_word_must_match_and_an_empty_query_matches_all() {
    let r = lanes();
    assert_eq!(found(&r, "project:docs is:refused"), [1, 4]);
    assert_eq!(found(&r, "  project:docs   actor:worker-3 "), [4]);
    assert_eq!(found(&r, ""), [0, 1, 2, 3, 4]);
    assert!(Query::parse(" \t").unwrap().is_empty());
}

#[test]
fn a_plain_word_is_part_of_a_project_run_or_caller_in_any_case() {
    let r = lanes();
    assert_eq!(found(&r, "deploy"), [2]);
    assert_eq!(found(&r, "NIGHTLY"), [0, 1, 3, 4]);
    assert_eq!(found(&r, "worker-3"), [4]);
    assert_eq!(found(&r, "ite"), [2]);
    assert_eq!(found(&r, "nothing-like-it"), [0u32; 0]);
}

#[test]
fn times_bound_the_steps_and_steps_without_times_never_match() {
    let r = lanes();
    assert_eq!(found(&r, "since:2026-05-01T03:00:00.000Z"), [2, 3, 4]);
    assert_eq!(found(&r, "until:2026-05-01T03:00:00.000Z"), [0, 1]);
    assert_eq!(
        found(
            &r,
            "since:2026-05-01T02:00:00.000Z until:2026-05-01T04:00:00.000Z"
        ),
        [1, 2]
    );
    let mut rec = Recorder::new("t", text("t"), text("t"), &["docs", "site"], "site").unwrap();
    rec.claim("docs", "a");
    let untimed = rec.finish().unwrap();
    assert_eq!(found(&untimed, "since:1970-01-01T00:00:00.000Z"), [0u32; 0]);
    assert_eq!(found(&untimed, "until:9999-01-01T00:00:00.000Z"), [0u32; 0]);
}

#[test]
fn steps_on_a_lease_or_a_reservation_concern_what_issued_it() {
    let mut rec = Recorder::dispatcher(
        "t",
        text("t"),
        text("t"),
        &["docs", "site"],
        "site",
        &["main"],
    )
    .unwrap();
    rec.enqueue("main", "docs", "build-1");
    rec.dispatch("main");
    rec.dispatch("main"); // nothing available
    rec.finish_work("R1", "needs_review");
    rec.cancel("R1"); // refused: R1 is persisting
    rec.persist("R1", false);
    rec.finish_work("R1", "succeeded"); // refused: R1 is done
    let r = rec.finish().unwrap();
    let concerns = Concerns::of(&r);
    let each: Vec<_> = (0..r.steps.len())
        .map(|i| (concerns.project(i), concerns.run(i)))
        .collect();
    let docs = (Some("docs"), Some("build-1"));
    assert_eq!(each, [docs, docs, (None, None), docs, docs, docs, docs]);
    assert_eq!(concerns.project(99), None);
    assert_eq!(found(&r, "is:recovery"), [3, 5]);
    assert_eq!(found(&r, "run:build-1 is:refused"), [4, 6]);
}

#[test]
fn bad_words_are_refused_by_code_naming_the_word() {
    let err = |q: &str| Query::parse(q).unwrap_err();
    assert_eq!(err("colour:red").code(), "UNKNOWN_KEY");
    assert_eq!(err("docs project:").code(), "EMPTY_VALUE");
    assert_eq!(err("project:").word(), "project:");
    assert_eq!(err("op:steal").code(), "UNKNOWN_OP");
    assert_eq!(err("since:yesterday").code(), "BAD_TIME");
    assert_eq!(err("until:2026-05-01").word(), "until:2026-05-01");
    assert_eq!(err("is:late").code(), "UNKNOWN_KIND");
    let long = "x".repeat(MAX_QUERY_BYTES + 1);
    assert_eq!(err(&long).code(), "QUERY_TOO_LONG");
    assert_eq!(
        err(&long).to_string(),
        "QUERY_TOO_LONG: the query is 1001 bytes, more than 1000"
    );
    assert_eq!(err("op:x").to_string(), "UNKNOWN_OP: op:x");
    assert!(Query::parse(&"x".repeat(MAX_QUERY_BYTES)).is_ok());
}

#[test]
fn next_previous_and_ordinal_walk_the_matches() {
    let f = Found {
        steps: vec![2, 5, 9],
    };
    assert_eq!(f.count(), 3);
    assert_eq!(f.next(None), Some(2));
    assert_eq!(f.next(Some(0)), Some(2));
    assert_eq!(f.next(Some(2)), Some(5));
    assert_eq!(f.next(Some(6)), Some(9));
    assert_eq!(f.next(Some(9)), None);
    assert_eq!(f.previous(None), Some(9));
    assert_eq!(f.previous(Some(9)), Some(5));
    assert_eq!(f.previous(Some(6)), Some(5));
    assert_eq!(f.previous(Some(2)), None);
    assert_eq!(f.ordinal(5), Some(2));
    assert_eq!(f.ordinal(6), None);
    assert_eq!(f.ordinal(usize::MAX), None);
    let none = Found::default();
    assert_eq!((none.next(None), none.previous(None)), (None, None));
}

#[test]
fn every_bundled_record_is_found_whole_by_its_own_projects() {
    // Each step of a bundled record concerns one of its projects, or none (a dispatch that found
    // nothing, a refusal naming nothing issued); no step is found twice under two projects.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../records");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".json") || name.contains("schema") || name == "index.json" {
            continue;
        }
        let json = std::fs::read(&path).unwrap();
        let record = project_lanes::record::json::parse_record(&json).unwrap();
        let concerns = Concerns::of(&record);
        let mut seen = vec![0; record.steps.len()];
        for project in &record.projects {
            let q = Query::parse(&format!("project:{project}")).unwrap();
            for &s in q.find(&concerns).steps() {
                seen[s as usize] += 1;
            }
        }
        for (i, n) in seen.iter().enumerate() {
            let none = concerns.project(i).is_none();
            assert_eq!(*n, usize::from(!none), "{name}: step {i}");
        }
    }
}

#[test]
fn the_next_and_previous_notable_steps_are_refusals_and_recoveries() {
    let r = lanes(); // refused 1 and 4, recovery 3
    assert_eq!(next_notable(&r, None), Some(1));
    assert_eq!(next_notable(&r, Some(1)), Some(3));
    assert_eq!(next_notable(&r, Some(3)), Some(4));
    assert_eq!(next_notable(&r, Some(4)), None);
    assert_eq!(next_notable(&r, Some(usize::MAX)), None);
    assert_eq!(previous_notable(&r, None), Some(4));
    assert_eq!(previous_notable(&r, Some(4)), Some(3));
    assert_eq!(previous_notable(&r, Some(1)), None);
    assert_eq!(previous_notable(&r, Some(usize::MAX)), Some(4));
    let each: Vec<_> = r.steps.iter().map(notable).collect();
    assert_eq!(each, [false, true, false, true, true]);
}

#[test]
fn a_lease_the_record_starts_with_concerns_its_holder() {
    use project_lanes::Label;
    use project_lanes::record::{Start, StartLease, StartLeaseState};
    let lease = |handle: &str, run: &str, state| StartLease {
        handle: handle.into(),
        project: Label::new("docs").unwrap(),
        run: Label::new(run).unwrap(),
        state,
    };
    let start = Start {
        leases: vec![
            lease("L1", "old", StartLeaseState::Released),
            lease("L2", "holder", StartLeaseState::Running),
        ],
        reservations: Vec::new(),
    };
    let mut rec = Recorder::new("t", text("t"), text("t"), &["docs", "site"], "site")
        .unwrap()
        .without_untouched_project()
        .starting_from(start)
        .unwrap();
    rec.release("L1", "succeeded"); // refused: a late cleanup of a released lease
    rec.claim("site", "next"); // L3
    rec.release("L3", "succeeded");
    rec.release("L3", "succeeded"); // refused
    let r = rec.finish().unwrap();
    assert!(matches!(r.steps[0].result, StepResult::Error(_)));
    let concerns = Concerns::of(&r);
    let each: Vec<_> = (0..r.steps.len())
        .map(|i| (concerns.project(i), concerns.run(i)))
        .collect();
    assert_eq!(
        each,
        [
            (Some("docs"), Some("old")),
            (Some("site"), Some("next")),
            (Some("site"), Some("next")),
            (Some("site"), Some("next")),
        ]
    );
    assert_eq!(found(&r, "run:old"), [0]);
}
