//! The words for what a record holds: a step's response, a lane, a reservation, an outcome, and
//! a replay mismatch, in the viewer's language. Every part is labelled (`queue: general ·
//! project: docs · run: gen-1 · state: waiting`), so a reader never has to guess what a bare
//! value means. Values from the record are kept exactly as saved.

use project_lanes::dispatch::ReservationView;
use project_lanes::record::{Op, ReplayMismatch, Step, StepResult};
use project_lanes::{LaneView, Outcome, Receipt};

use crate::i18n::{Lang, Msg, Term, fill, group, text};

/// `label: value`, with the language's colon.
fn labelled(lang: Lang, label: Msg, value: &str) -> String {
    fill(text(lang, Msg::Labelled), &[text(lang, label), value])
}

/// Parts joined by ` · `.
fn joined(parts: &[&str]) -> String {
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() {
            out.push_str(" · ");
        }
        out.push_str(part);
    }
    out
}

/// The error code (empty on success) and the words of a step's response; `saved` is the
/// step's `saved` input (a `persist` step reports whether the save succeeded).
pub fn response(lang: Lang, result: &StepResult, saved: Option<bool>) -> (&'static str, String) {
    match result {
        StepResult::Error(error) => (error.code(), text(lang, Term::Dispatch(*error)).to_string()),
        StepResult::Reservation(view) | StepResult::Dispatched(view) => {
            let msg = match result {
                StepResult::Dispatched(_) => Msg::JobDispatched,
                _ => Msg::ReservationEntered,
            };
            let head = fill(text(lang, msg), &[&view.id.to_string()]);
            ("", joined(&[&head, &reservation_parts(lang, view)]))
        }
        StepResult::Nothing(nothing) => (
            "",
            fill(
                text(lang, Msg::NothingDispatched),
                &[&group(nothing.retained as usize)],
            ),
        ),
        StepResult::Persisting(view) => (
            "",
            joined(&[
                &fill(text(lang, Msg::SavingFinalState), &[&view.id.to_string()]),
                &labelled(
                    lang,
                    Msg::LabelOutcome,
                    &outcome(lang, view.outcome.unwrap_or(Outcome::NeedsReview)),
                ),
            ]),
        ),
        StepResult::Settled(settled) => {
            // What the step reported, not what the state implies: a failed save also releases.
            let head = if saved == Some(false) {
                Msg::SettledSaveFailed
            } else {
                Msg::SettledSaved
            };
            let state = text(lang, Term::Reservation(settled.state));
            (
                "",
                joined(&[
                    &fill(text(lang, head), &[&settled.reservation.to_string()]),
                    &labelled(lang, Msg::LabelState, state),
                    &receipt_parts(lang, &settled.receipt),
                ]),
            )
        }
        StepResult::Lease(lease) => (
            "",
            joined(&[
                &fill(text(lang, Msg::LeaseIssued), &[&lease.handle]),
                &labelled(lang, Msg::LabelProject, &lease.project),
                &labelled(lang, Msg::LabelRun, &lease.run),
            ]),
        ),
        StepResult::View(view) => (
            "",
            joined(&[
                text(lang, Msg::ViewReturned),
                &labelled(lang, Msg::LabelProject, &view.project),
                &lane_state(lang, view),
            ]),
        ),
        StepResult::Receipt(receipt) => (
            "",
            joined(&[
                text(lang, Msg::ReceiptReturned),
                &receipt_parts(lang, receipt),
            ]),
        ),
    }
}

/// `project: docs · run: nightly-7 · outcome: succeeded · no stop was requested · …`.
fn receipt_parts(lang: Lang, receipt: &Receipt) -> String {
    let stop = if receipt.stop_requested {
        Msg::StopRequestedYes
    } else {
        Msg::StopRequestedNo
    };
    joined(&[
        &labelled(lang, Msg::LabelProject, &receipt.project),
        &labelled(lang, Msg::LabelRun, &receipt.run),
        &labelled(lang, Msg::LabelOutcome, &outcome(lang, receipt.outcome)),
        text(lang, stop),
        text(lang, Msg::WorkExecutedNo),
    ])
}

/// `queue: general · project: docs · run: gen-1 · state: waiting` (and its outcome, once known).
fn reservation_parts(lang: Lang, view: &ReservationView) -> String {
    let mut parts = vec![
        labelled(lang, Msg::LabelQueue, &view.queue),
        labelled(lang, Msg::LabelProject, &view.project),
        labelled(lang, Msg::LabelRun, &view.run),
        labelled(
            lang,
            Msg::LabelState,
            text(lang, Term::Reservation(view.state)),
        ),
    ];
    if let Some(o) = view.outcome {
        parts.push(labelled(lang, Msg::LabelOutcome, &outcome(lang, o)));
    }
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    joined(&parts)
}

/// A reservation after a step: `R1 · queue: general · project: docs · …`.
pub fn reservation(lang: Lang, view: &ReservationView) -> String {
    joined(&[&view.id.to_string(), &reservation_parts(lang, view)])
}

/// The outcome in `lang`, with its exact name beside it where the two differ.
pub fn outcome(lang: Lang, outcome: Outcome) -> String {
    let shown = text(lang, Term::Outcome(outcome));
    if shown == outcome.as_str() {
        shown.to_string()
    } else {
        fill(text(lang, Msg::Exact), &[shown, outcome.as_str()])
    }
}

/// A lane's state without its project: `running · run: nightly-101`, or `idle`.
fn lane_state(lang: Lang, view: &LaneView) -> String {
    match (&view.run, view.state) {
        (Some(run), Some(state)) => joined(&[
            &labelled(lang, Msg::LabelState, text(lang, Term::State(state))),
            &labelled(lang, Msg::LabelRun, run),
        ]),
        _ => labelled(lang, Msg::LabelState, text(lang, Msg::Idle)),
    }
}

/// A lane's state as the mismatch line says it: `running · run: nightly-101`, or `idle`.
fn lane_state_short(lang: Lang, view: &LaneView) -> String {
    match (&view.run, view.state) {
        (Some(run), Some(state)) => joined(&[
            text(lang, Term::State(state)),
            &labelled(lang, Msg::LabelRun, run),
        ]),
        _ => text(lang, Msg::Idle).to_string(),
    }
}

/// A lane after a step: `docs: running · run: nightly-101`, or `site: idle`.
pub fn lane(lang: Lang, view: &LaneView) -> String {
    fill(
        text(lang, Msg::Labelled),
        &[&view.project, &lane_state_short(lang, view)],
    )
}

/// "Step 4 (release) does not match the core:" and "saved `LEASE_NOT_CURRENT`, the core returns
/// receipt · …"; `steps` are the record's.
pub fn mismatch(lang: Lang, mismatch: &ReplayMismatch, steps: &[Step]) -> (String, String) {
    let head = |step: usize, op: Op| {
        fill(
            text(lang, Msg::MismatchStep),
            &[&group(step + 1), text(lang, Term::Op(op))],
        )
    };
    let result = |r: &StepResult, step: usize| match r {
        StepResult::Error(e) => e.code().to_string(),
        _ => response(lang, r, steps.get(step).and_then(|s| s.input.saved)).1,
    };
    match mismatch {
        ReplayMismatch::Result {
            step,
            op,
            saved,
            actual,
        } => (
            head(*step, *op),
            fill(
                text(lang, Msg::SavedVsCore),
                &[&result(saved, *step), &result(actual, *step)],
            ),
        ),
        ReplayMismatch::Lanes {
            step,
            op,
            saved,
            actual,
        } => (
            match (step, op) {
                (Some(step), Some(op)) => head(*step, *op),
                _ => text(lang, Msg::MismatchFinal).to_string(),
            },
            fill(
                text(lang, Msg::LaneSavedVsCore),
                &[
                    &saved.project,
                    &lane_state_short(lang, saved),
                    &lane_state_short(lang, actual),
                ],
            ),
        ),
        ReplayMismatch::Reservations {
            step,
            op,
            saved,
            actual,
        } => (
            head(*step, *op),
            fill(
                text(lang, Msg::ReservationSavedVsCore),
                &[
                    &saved.id.to_string(),
                    &reservation_parts(lang, saved),
                    &reservation_parts(lang, actual),
                ],
            ),
        ),
        ReplayMismatch::Invalid(error) => (String::new(), error.to_string()),
    }
}
