use super::*;
use crate::record::{Recorder, Text, Timestamp};

fn text(s: &str) -> Text {
    Text {
        en: s.into(),
        ja: s.into(),
    }
}

fn lanes(steps: impl FnOnce(&mut Recorder)) -> Record {
    let mut rec = Recorder::new(
        "night",
        text("A night"),
        text("Runs."),
        &["docs", "site"],
        "site",
    )
    .unwrap()
    .without_untouched_project();
    steps(&mut rec);
    rec.finish().unwrap()
}

fn queues(steps: impl FnOnce(&mut Recorder)) -> Record {
    let mut rec = Recorder::dispatcher(
        "q",
        text("Queues"),
        text("Runs."),
        &["docs", "site"],
        "site",
        &["main"],
    )
    .unwrap();
    steps(&mut rec);
    rec.finish().unwrap()
}

fn kinds(diff: &Diff) -> Vec<(ChangeKind, Range<usize>, Range<usize>)> {
    diff.steps
        .iter()
        .map(|s| (s.kind, s.a.clone(), s.b.clone()))
        .collect()
}

#[test]
fn a_record_against_itself_has_no_differences() {
    let record = lanes(|r| {
        r.claim("docs", "nightly-7");
        r.claim("docs", "nightly-8");
        r.request_stop("L1");
        r.release("L1", "cancelled");
    });
    let diff = compare(&record, &record, &Options::default());
    assert!(diff.is_empty(), "{diff:?}");
    assert_eq!(diff.counts, [4, 4]);
}

#[test]
fn one_outcome_changed_names_the_step_the_project_and_the_final_lane_stays() {
    let night = |outcome| {
        lanes(|r| {
            r.claim("docs", "nightly-7");
            r.claim("site", "deploy-1");
            r.release("L1", outcome);
        })
    };
    let diff = compare(&night("succeeded"), &night("failed"), &Options::default());
    assert_eq!(kinds(&diff), [(ChangeKind::Asked, 2..3, 2..3)]);
    let [a, b] = diff.steps[0].answers.clone().unwrap();
    assert_eq!(
        (a.outcome, b.outcome),
        (Some(Outcome::Succeeded), Some(Outcome::Failed))
    );
    assert_eq!(diff.projects.len(), 1);
    let docs = &diff.projects[0];
    assert_eq!(
        (docs.project.as_str(), docs.first, docs.counts),
        ("docs", 0, [1, 1])
    );
    assert!(diff.final_lanes.is_empty() && diff.refusals.is_empty());
}

#[test]
fn a_claim_added_in_one_shifts_no_handle_and_refuses_a_run() {
    let a = lanes(|r| {
        r.claim("docs", "nightly-7");
        r.release("L1", "succeeded");
        r.claim("docs", "nightly-8");
        r.release("L2", "succeeded");
    });
    // B claims `site` first: every later handle is one more, and nothing else changes
    // but a refused claim of docs.
    let b = lanes(|r| {
        r.claim("site", "deploy-1");
        r.claim("docs", "nightly-7");
        r.claim("docs", "late-1");
        r.release("L2", "succeeded");
        r.claim("docs", "nightly-8");
        r.release("L3", "succeeded");
    });
    let diff = compare(&a, &b, &Options::default());
    assert_eq!(
        kinds(&diff),
        [
            (ChangeKind::OnlyB, 0..0, 0..1),
            (ChangeKind::OnlyB, 1..1, 2..3),
        ]
    );
    assert_eq!(diff.refusals.len(), 1);
    let late = &diff.refusals[0];
    assert_eq!(
        (late.project.as_str(), late.run.as_str()),
        ("docs", "late-1")
    );
    assert_eq!(late.refused[0], None);
    assert_eq!(
        late.refused[1].as_ref().map(|r| (r.step, r.code)),
        Some((2, "PROJECT_BUSY"))
    );
    // docs had the same holders; site was held in B only, and still is.
    assert_eq!(diff.projects.len(), 1);
    assert_eq!(diff.projects[0].project.as_str(), "site");
    assert_eq!(diff.projects[0].counts, [0, 1]);
    assert_eq!(diff.final_lanes.len(), 1);
    assert_eq!(diff.final_lanes[0].project, "site");
}

#[test]
fn a_reservation_settled_differently_is_its_projects_change() {
    let run = |saved| {
        queues(|r| {
            r.enqueue("main", "docs", "nightly-7");
            r.dispatch("main");
            r.finish_work("R1", "succeeded");
            r.persist("R1", saved);
        })
    };
    let diff = compare(&run(true), &run(false), &Options::default());
    // The same reservation's persist, asked differently (`saved`).
    assert_eq!(kinds(&diff), [(ChangeKind::Asked, 3..4, 3..4)]);
    let docs = &diff.projects[0];
    let settled = docs
        .holds
        .each_ref()
        .map(|h| h.as_ref().and_then(|h| h.settled));
    assert_eq!(
        settled,
        [
            Some(crate::dispatch::ReservationState::Done),
            Some(crate::dispatch::ReservationState::Unresolved)
        ]
    );
    assert_eq!(
        docs.holds[0]
            .as_ref()
            .unwrap()
            .queue
            .as_ref()
            .map(|q| q.as_str()),
        Some("main")
    );
}

#[test]
fn holds_much_longer_are_reported_past_the_threshold_only() {
    let night = |hold_ms: u64| {
        lanes(|r| {
            r.claim("docs", "nightly-7");
            r.at(Timestamp::from_millis(1_000_000).unwrap());
            r.release("L1", "succeeded");
            r.at(Timestamp::from_millis(1_000_000 + hold_ms).unwrap());
        })
    };
    let options = Options::default();
    let diff = compare(&night(10_000), &night(25_000), &options);
    assert_eq!(diff.holds.len(), 1, "{diff:?}");
    assert_eq!(diff.holds[0].millis, [10_000, 25_000]);
    assert_eq!(diff.holds[0].from, [Some(0), Some(0)]);
    assert!(diff.steps.is_empty() && diff.projects.is_empty());
    // 1.5× is under the ratio; 0.3 s to 0.9 s is under the least change.
    assert!(compare(&night(10_000), &night(15_000), &options).is_empty());
    assert!(compare(&night(300), &night(900), &options).is_empty());
}

#[test]
fn records_too_different_for_the_budget_are_approximate() {
    let a = lanes(|r| {
        for i in 0..20 {
            r.view(if i % 2 == 0 { "docs" } else { "site" });
        }
    });
    let b = lanes(|r| {
        for i in 0..20 {
            r.claim("docs", &format!("run-{i}"));
        }
    });
    let options = Options {
        budget: 10,
        ..Options::default()
    };
    let diff = compare(&a, &b, &options);
    assert!(diff.approximate);
    assert_eq!(
        kinds(&diff),
        [
            (ChangeKind::OnlyA, 0..20, 0..0),
            (ChangeKind::OnlyB, 20..20, 0..20)
        ]
    );
    assert!(!compare(&a, &b, &Options::default()).approximate);
}

/// A hasher under which every key collides.
struct Colliding;

impl std::hash::BuildHasher for Colliding {
    type Hasher = Constant;
    fn build_hasher(&self) -> Constant {
        Constant
    }
}

struct Constant;

impl std::hash::Hasher for Constant {
    fn finish(&self) -> u64 {
        7
    }
    fn write(&mut self, _: &[u8]) {}
}

#[test]
fn steps_whose_hashed_keys_collide_are_never_taken_for_the_same() {
    let a = lanes(|r| {
        r.claim("docs", "nightly-7");
        r.release("L1", "succeeded");
    });
    let b = lanes(|r| {
        r.claim("site", "deploy-1");
        r.claim("docs", "nightly-7");
        r.release("L2", "succeeded");
    });
    // Every key hashes alike, so the alignment pairs step for step; the keys themselves tell
    // the pairs that are not the same apart.
    let diff = compare_with(&a, &b, &Options::default(), &Colliding);
    let only: usize = diff
        .steps
        .iter()
        .map(|s| match s.kind {
            ChangeKind::OnlyA => s.a.len(),
            ChangeKind::OnlyB => s.b.len(),
            _ => 0,
        })
        .sum();
    assert!(only >= 1, "{diff:?}");
    assert!(
        diff.steps.iter().all(|s| s.kind != ChangeKind::Asked),
        "no step is taken for another: {diff:?}"
    );
    assert!(compare_with(&a, &a, &Options::default(), &Colliding).is_empty());
}
