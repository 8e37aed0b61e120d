//! The rules of one step: its operation belongs to the record's kind, its inputs are exactly the
//! operation's, the handles and ids it names were issued by earlier steps, a project it occupies
//! is shown and is not the untouched one, its result is of the operation's kind and numbers what
//! it issues in order, and its reservations snapshot is present exactly in dispatcher records.
//! (The lanes snapshot is checked with the record's projects, in [`super`].)

use crate::dispatch::ReservationId;
use crate::label::Quoted;

use super::super::error::RecordError;
use crate::op::{Field, MAX_INPUT_CHARS, Op};

use super::super::format::{Record, Step, StepResult, VERSION};
use super::common::{Issued, check_name, check_text, handle_number, issued_list, result_kind};

/// Checks step `index` of `record`, counting the leases and reservations it issues.
pub(super) fn check(
    record: &Record,
    index: usize,
    step: &Step,
    issued: &mut Issued,
) -> Result<(), RecordError> {
    let step = StepCheck {
        record,
        index,
        step,
    };
    step.operation_belongs_to_the_record()?;
    step.inputs_are_the_operations()?;
    step.time_and_caller_are_version_2()?;
    step.references_were_issued(issued)?;
    step.occupied_project_is_shown()?;
    step.result_fits_the_operation()?;
    step.numbers_what_it_issues(issued)?;
    if let Some(note) = &step.step.note {
        check_text(&step.at("note"), note)?;
    }
    step.reservations_are_snapshotted(issued)
}

/// One step under check, and where it is, for messages.
struct StepCheck<'a> {
    record: &'a Record,
    index: usize,
    step: &'a Step,
}

impl StepCheck<'_> {
    /// `steps[i].what`, the place a message names.
    fn at(&self, what: &str) -> String {
        format!("steps[{}].{what}", self.index)
    }

    fn invalid(&self, what: &str, message: impl Into<String>) -> Result<(), RecordError> {
        Err(RecordError::invalid(self.at(what), message))
    }

    /// Lane operations in lanes records, dispatcher operations in dispatcher records, `view`
    /// in both.
    fn operation_belongs_to_the_record(&self) -> Result<(), RecordError> {
        let dispatcher = self.record.is_dispatcher();
        let op = self.step.op;
        if op.dispatcher_only().is_some_and(|only| only != dispatcher) {
            let kind = if dispatcher {
                "a dispatcher record (it has `queues`)"
            } else {
                "a lanes record"
            };
            return self.invalid("op", format!("`{op}` has no place in {kind}"));
        }
        Ok(())
    }

    /// Exactly the operation's fields, each text at most [`MAX_INPUT_CHARS`] long.
    fn inputs_are_the_operations(&self) -> Result<(), RecordError> {
        let (op, input) = (self.step.op, &self.step.input);
        let fields = op.fields();
        for field in Field::ALL {
            let name = field.as_str();
            match (fields.contains(&field), input.has(field)) {
                (true, false) => return self.invalid("input", format!("`{op}` needs `{name}`")),
                (false, true) => {
                    return self.invalid("input", format!("`{op}` takes no `{name}`"));
                }
                _ => {}
            }
            if input
                .get(field)
                .is_some_and(|v| v.chars().count() > MAX_INPUT_CHARS)
            {
                return self.invalid(
                    &format!("input.{name}"),
                    format!("longer than {MAX_INPUT_CHARS} characters"),
                );
            }
        }
        Ok(())
    }

    /// `at` and `actor` belong to version 2; an actor is a name (one line of plain text).
    fn time_and_caller_are_version_2(&self) -> Result<(), RecordError> {
        if self.record.version == VERSION {
            if self.step.at.is_some() {
                return self.invalid("at", "only version 2 records have it");
            }
            if self.step.actor.is_some() {
                return self.invalid("actor", "only version 2 records have it");
            }
        }
        match &self.step.actor {
            Some(actor) => check_name(&self.at("actor"), actor),
            None => Ok(()),
        }
    }

    /// A lease handle or reservation id names one the starting state or an earlier step issued.
    fn references_were_issued(&self, issued: &Issued) -> Result<(), RecordError> {
        let input = &self.step.input;
        if let Some(handle) = input.lease.as_deref()
            && handle_number(handle).is_none_or(|n| n == 0 || n > issued.leases)
        {
            return self.invalid(
                "input.lease",
                format!(
                    "lease handle {} was never issued by an earlier step (issued so far: {})",
                    Quoted(handle),
                    issued_list('L', issued.leases)
                ),
            );
        }
        if let Some(id) = input.reservation.as_deref()
            && ReservationId::parse(id).is_none_or(|r| r.number() > issued.reservations as u64)
        {
            return self.invalid(
                "input.reservation",
                format!(
                    "reservation {} was never enqueued by an earlier step (enqueued so far: {})",
                    Quoted(id),
                    issued_list('R', issued.reservations)
                ),
            );
        }
        Ok(())
    }

    /// A project a claim or an enqueue can occupy is one of `projects`, and not the untouched
    /// one.
    fn occupied_project_is_shown(&self) -> Result<(), RecordError> {
        let op = self.step.op;
        if !matches!(op, Op::Claim | Op::Enqueue) {
            return Ok(());
        }
        let Some(project) = self.step.input.project.as_deref() else {
            return Ok(());
        };
        if crate::is_valid_label(project) && !self.record.projects.iter().any(|p| p == project) {
            return self.invalid(
                "input.project",
                format!(
                    "{} is not one of `projects`: every project a step can occupy is shown",
                    Quoted(project)
                ),
            );
        }
        if let Some(untouched) = self.record.untouched_project.get()
            && project == untouched.as_str()
        {
            let verb = if op == Op::Claim {
                "claims"
            } else {
                "enqueues"
            };
            return self.invalid(
                "input.project",
                format!(
                    "{verb} {}, the project this record leaves untouched",
                    Quoted(untouched)
                ),
            );
        }
        Ok(())
    }

    /// A refusal, or the one kind of result the operation returns.
    fn result_fits_the_operation(&self) -> Result<(), RecordError> {
        let (op, result) = (self.step.op, &self.step.result);
        let fits = matches!(
            (op, result),
            (_, StepResult::Error(_))
                | (Op::Claim, StepResult::Lease(_))
                | (Op::RequestStop | Op::View, StepResult::View(_))
                | (Op::Release, StepResult::Receipt(_))
                | (
                    Op::Enqueue | Op::Cancel | Op::Resolve,
                    StepResult::Reservation(_)
                )
                | (
                    Op::Dispatch,
                    StepResult::Dispatched(_) | StepResult::Nothing(_)
                )
                | (Op::Finish, StepResult::Persisting(_))
                | (Op::Persist, StepResult::Settled(_))
        );
        if fits {
            return Ok(());
        }
        self.invalid(
            "result",
            format!("`{op}` cannot return a {}", result_kind(result)),
        )
    }

    /// A successful claim issues the next lease handle, a successful enqueue the next
    /// reservation id.
    fn numbers_what_it_issues(&self, issued: &mut Issued) -> Result<(), RecordError> {
        if let StepResult::Lease(lease) = &self.step.result {
            issued.leases += 1;
            let expected = format!("L{}", issued.leases);
            if *lease.handle != *expected {
                return self.invalid(
                    "result.lease.handle",
                    format!(
                        "handles are numbered in order of issue: expected {}, found {}",
                        Quoted(&expected),
                        Quoted(&lease.handle)
                    ),
                );
            }
        }
        if let (Op::Enqueue, StepResult::Reservation(view)) = (self.step.op, &self.step.result) {
            issued.reservations += 1;
            if view.id.number() != issued.reservations as u64 {
                return self.invalid(
                    "result.reservation.id",
                    format!(
                        "reservations are numbered in order of enqueueing: expected R{}, found {}",
                        issued.reservations, view.id
                    ),
                );
            }
        }
        Ok(())
    }

    /// Dispatcher records snapshot every reservation issued so far; lanes records have none.
    fn reservations_are_snapshotted(&self, issued: &Issued) -> Result<(), RecordError> {
        match (&self.step.reservations, self.record.is_dispatcher()) {
            (Some(views), true) if views.len() == issued.reservations => Ok(()),
            (Some(views), true) => self.invalid(
                "reservations",
                format!(
                    "needs every reservation enqueued so far ({}), found {}",
                    issued.reservations,
                    views.len()
                ),
            ),
            (None, true) => self.invalid("reservations", "dispatcher records need it"),
            (Some(_), false) => self.invalid(
                "reservations",
                "only dispatcher records (with `queues`) have it",
            ),
            (None, false) => Ok(()),
        }
    }
}
