//! The rules of a version 2 record's starting state: leases in lanes records, reservations in
//! dispatcher records, each numbered in order, each in a shown project other than the untouched
//! one, and together a state the core can be in (one holder per lane, outcomes that fit their
//! reservation's state).

use crate::Outcome;
use crate::dispatch::{ReservationState, ReservationView};
use crate::label::Quoted;

use super::super::error::RecordError;
use super::super::format::{MAX_STEPS, Record, Start, StartLease, StartLeaseState};
use super::common::Issued;

/// Checks `start` against `record`; returns the handles and ids it issues, from which the steps
/// go on.
pub(super) fn check(record: &Record, start: &Start) -> Result<Issued, RecordError> {
    if record.is_dispatcher() {
        if !start.leases.is_empty() {
            return Err(RecordError::invalid(
                "start.leases",
                "a dispatcher record's lanes are held by its reservations, not by leases",
            ));
        }
    } else if !start.reservations.is_empty() {
        return Err(RecordError::invalid(
            "start.reservations",
            "only dispatcher records (with `queues`) have reservations",
        ));
    }
    for (what, count) in [
        ("leases", start.leases.len()),
        ("reservations", start.reservations.len()),
    ] {
        if count > MAX_STEPS {
            return Err(RecordError::invalid(
                format!("start.{what}"),
                format!("holds {count}; at most {MAX_STEPS}"),
            ));
        }
    }
    for (i, lease) in start.leases.iter().enumerate() {
        check_lease(record, start, i, lease)?;
    }
    for (i, view) in start.reservations.iter().enumerate() {
        check_reservation(record, start, i, view)?;
    }
    Ok(Issued {
        leases: start.leases.len(),
        reservations: start.reservations.len(),
    })
}

/// `project` is one of the record's projects, and not the one it leaves untouched.
fn check_project(record: &Record, at: &str, project: &str) -> Result<(), RecordError> {
    if !record.projects.iter().any(|p| p == project) {
        return Err(RecordError::invalid(
            at,
            format!(
                "{} is not one of `projects`: every project the start holds is shown",
                Quoted(project)
            ),
        ));
    }
    if record.untouched_project == project {
        return Err(RecordError::invalid(
            at,
            format!(
                "{} is the project this record leaves untouched",
                Quoted(project)
            ),
        ));
    }
    Ok(())
}

fn check_lease(
    record: &Record,
    start: &Start,
    i: usize,
    lease: &StartLease,
) -> Result<(), RecordError> {
    let at = |what: &str| format!("start.leases[{i}].{what}");
    let expected = format!("L{}", i + 1);
    if lease.handle != expected {
        return Err(RecordError::invalid(
            at("handle"),
            format!(
                "handles are numbered in order: expected {}, found {}",
                Quoted(&expected),
                Quoted(&lease.handle)
            ),
        ));
    }
    check_project(record, &at("project"), &lease.project)?;
    let holds = |l: &StartLease| l.state != StartLeaseState::Released;
    if holds(lease)
        && let Some(j) = start.leases[..i]
            .iter()
            .position(|l| holds(l) && l.project == lease.project)
    {
        return Err(RecordError::invalid(
            at("state"),
            format!(
                "{} is already held by L{}: a lane has one holder",
                Quoted(&lease.project),
                j + 1
            ),
        ));
    }
    Ok(())
}

fn check_reservation(
    record: &Record,
    start: &Start,
    i: usize,
    view: &ReservationView,
) -> Result<(), RecordError> {
    let at = |what: &str| format!("start.reservations[{i}].{what}");
    if view.id.number() != i as u64 + 1 {
        return Err(RecordError::invalid(
            at("id"),
            format!(
                "ids are numbered in order: expected R{}, found {}",
                i + 1,
                view.id
            ),
        ));
    }
    if !record.queues.contains(&view.queue) {
        return Err(RecordError::invalid(
            at("queue"),
            format!("{} is not one of `queues`", Quoted(&view.queue)),
        ));
    }
    check_project(record, &at("project"), &view.project)?;
    use ReservationState::*;
    let outcome_fits = match view.state {
        Queued | Dispatched | Cancelled => view.outcome.is_none(),
        Persisting => view.outcome.is_some(),
        Done => view.outcome.is_some_and(|o| o != Outcome::NeedsReview),
        Unresolved | Resolved => view.outcome == Some(Outcome::NeedsReview),
    };
    if !outcome_fits {
        let wanted = match view.state {
            Queued | Dispatched | Cancelled => "has no outcome",
            Persisting => "has an outcome",
            Done => "has an outcome other than needs_review",
            Unresolved | Resolved => "has the outcome needs_review",
        };
        return Err(RecordError::invalid(
            at("outcome"),
            format!("a reservation that is {} {wanted}", view.state.as_str()),
        ));
    }
    // One holder per lane, and no holder while an unresolved result blocks the project.
    let blocks = |v: &ReservationView| matches!(v.state, Dispatched | Persisting | Unresolved);
    if blocks(view)
        && let Some(other) = start.reservations[..i]
            .iter()
            .find(|v| blocks(v) && v.project == view.project)
    {
        return Err(RecordError::invalid(
            at("state"),
            format!(
                "{} is already {} by {}: a project has one reservation holding or blocking it",
                Quoted(&view.project),
                if other.state == Unresolved {
                    "blocked"
                } else {
                    "held"
                },
                other.id
            ),
        ));
    }
    Ok(())
}
