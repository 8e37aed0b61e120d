use super::*;
use crate::record::{Recorder, Text, Timestamp};
use hashbrown::DefaultHashBuilder;
use std::hash::BuildHasher;

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
#[derive(Clone)]
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
    let diff = whole::compare_with(&a, &b, &Options::default(), &Colliding);
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
    assert!(whole::compare_with(&a, &a, &Options::default(), &Colliding).is_empty());
    assert_eq!(sketched(&a, &b, &Options::default(), Colliding), diff);
    assert!(sketched(&a, &a, &Options::default(), Colliding).is_empty());
}

/// A step of a generated record.
#[derive(Clone, Debug)]
enum Act {
    Claim(usize, usize),
    Stop(usize),
    Release(usize, &'static str),
    View(usize),
    Enqueue(usize, usize),
    Dispatch,
    Finish(usize, &'static str),
    Persist(usize, bool),
    Cancel(usize),
}

const PROJECTS: [&str; 3] = ["docs", "site", "web"];
const OUTCOMES: [&str; 3] = ["succeeded", "failed", "needs_review"];

/// A small pseudo-random sequence (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn act(&mut self, queues: bool) -> Act {
        let (p, n) = (self.below(PROJECTS.len()), self.below(6) + 1);
        let outcome = OUTCOMES[self.below(OUTCOMES.len())];
        match (queues, self.below(5)) {
            (false, 0 | 1) => Act::Claim(p, self.below(4)),
            (false, 2) => Act::Stop(n),
            (false, 3) => Act::Release(n, outcome),
            (false, _) => Act::View(p),
            (true, 0) => Act::Enqueue(p, self.below(4)),
            (true, 1) => Act::Dispatch,
            (true, 2) => Act::Finish(n, outcome),
            (true, 3) => Act::Persist(n, self.below(3) > 0),
            (true, _) => Act::Cancel(n),
        }
    }
}

/// The record of `acts`, each step `gaps[i]` ms after the one before.
fn played(acts: &[Act], gaps: &[u64], queues: bool) -> Record {
    let run = |r: usize| format!("run-{r}");
    let play = |rec: &mut Recorder| {
        let mut now = 1_000_000;
        // Handles and ids issued so far: a step names only those.
        let (mut leases, mut ids) = (0, 0);
        for (act, gap) in acts.iter().zip(gaps) {
            now += gap;
            rec.at(Timestamp::from_millis(now).unwrap());
            let lease = |l: usize| format!("L{}", 1 + (l - 1) % leases);
            let id = |i: usize| format!("R{}", 1 + (i - 1) % ids);
            match act {
                Act::Claim(p, r) => rec.claim(PROJECTS[*p], &run(*r)),
                Act::Enqueue(p, r) => rec.enqueue("main", PROJECTS[*p], &run(*r)),
                Act::View(p) => rec.view(PROJECTS[*p]),
                Act::Dispatch => rec.dispatch("main"),
                Act::Stop(_) | Act::Release(..) if leases == 0 => rec.view("docs"),
                Act::Stop(l) => rec.request_stop(&lease(*l)),
                Act::Release(l, o) => rec.release(&lease(*l), o),
                _ if ids == 0 => rec.dispatch("main"),
                Act::Finish(i, o) => rec.finish_work(&id(*i), o),
                Act::Persist(i, saved) => rec.persist(&id(*i), *saved),
                Act::Cancel(i) => rec.cancel(&id(*i)),
            };
            match rec.last_step().map(|s| &s.result) {
                Some(StepResult::Lease(_)) => leases += 1,
                Some(StepResult::Reservation(_)) if matches!(act, Act::Enqueue(..)) => ids += 1,
                _ => {}
            }
        }
    };
    let rec = if queues {
        Recorder::dispatcher("q", text("Q"), text("Q."), &PROJECTS, "web", &["main"])
    } else {
        Recorder::new("r", text("R"), text("R."), &PROJECTS, "web")
    };
    let mut rec = rec.unwrap().without_untouched_project();
    play(&mut rec);
    rec.finish().unwrap()
}

/// The comparison of `a` and `b` by [`Sketch`] and [`Plan`], keys hashed by `hasher`.
fn sketched<S: BuildHasher + Clone>(a: &Record, b: &Record, options: &Options, hasher: S) -> Diff {
    let [mut sa, mut sb] = Sketch::pair_with(hasher);
    sa.record(a);
    sb.record(b);
    let plan = Plan::new(&sa, &sb, options);
    plan.finish([&sa, &sb], [&|n| a.steps.get(n), &|n| b.steps.get(n)])
}

#[test]
fn the_comparison_a_step_at_a_time_is_the_whole_records_one() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let options = Options {
        budget: 6,
        ..Options::default()
    };
    let mut differing = 0;
    for round in 0..400 {
        let queues = round % 2 == 1;
        let len = rng.below(40) + 1;
        let acts: Vec<Act> = (0..len).map(|_| rng.act(queues)).collect();
        let gaps: Vec<u64> = (0..len).map(|_| [1, 10, 3_000][rng.below(3)]).collect();
        let (mut acts_b, mut gaps_b) = (acts.clone(), gaps.clone());
        // Changes at the first step, the last, or anywhere; steps added, dropped, cut off.
        for _ in 0..rng.below(4) {
            let at = match rng.below(3) {
                0 => 0,
                1 => acts_b.len().saturating_sub(1),
                _ => rng.below(acts_b.len().max(1)),
            };
            match rng.below(5) {
                0 if at < acts_b.len() => acts_b[at] = rng.act(queues),
                1 => acts_b.insert(at.min(acts_b.len()), rng.act(queues)),
                2 if at < acts_b.len() && acts_b.len() > 1 => {
                    acts_b.remove(at);
                }
                3 => acts_b.truncate(at.max(1)),
                _ if at < gaps_b.len() => gaps_b[at] = 5_000,
                _ => {}
            }
            gaps_b.resize(acts_b.len(), 10);
        }
        let (a, b) = (
            played(&acts, &gaps, queues),
            played(&acts_b, &gaps_b, queues),
        );
        for (x, y) in [(&a, &b), (&b, &a), (&a, &a)] {
            for options in [&options, &Options::default()] {
                let whole = compare(x, y, options);
                let streamed = sketched(x, y, options, DefaultHashBuilder::default());
                assert_eq!(streamed, whole, "{acts:?}\n{acts_b:?}");
                differing += usize::from(!whole.is_empty());
            }
        }
    }
    assert!(differing > 400, "{differing} comparisons differ");
}
