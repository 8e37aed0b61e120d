//! The rules of a version 3 record that need more than one line: the head first and the end
//! last, with the number of steps; actors, leases and reservations numbered in order and
//! declared before a step names them; what the start holds (one holder per project, nothing
//! live declared once the steps have begun); every step's time and caller.

use hashbrown::HashMap;

use crate::dispatch::{ReservationState, ReservationView};
use crate::label::Quoted;
use crate::op::{Field, MAX_INPUT_CHARS, Op};
use crate::record::check::{check_name, check_origin, check_text, handle_number, issued_list};
use crate::record::{FORMAT, RecordError, StartLease, StartLeaseState};
use crate::time::Timestamp;
use crate::{Label, Outcome};

use super::line::{Answer, Broken, Head, Item, Step, broken};
use crate::record::VERSION_3;

/// What the lines so far have issued and declared.
#[derive(Default)]
pub(crate) struct Checker {
    /// The dispatcher's queues, as declared.
    queues: Vec<Label>,
    /// A lease, a reservation or a step has been seen: no queue may be declared any more.
    queues_closed: bool,
    actors: u64,
    leases: u64,
    reservations: u64,
    steps: u64,
    /// A step has been seen (the start is over).
    started: bool,
    /// The time of the step before, if it had one.
    previous: Option<Timestamp>,
    ended: bool,
    /// While the start lasts: each project held or blocked, and by what.
    holders: HashMap<Label, String>,
}

impl Checker {
    /// The head: a record of this format and version, with its texts, origin and queues.
    pub(crate) fn head(&mut self, head: &Head) -> Result<(), (RecordError, &'static str)> {
        if head.format != FORMAT {
            let error = RecordError::UnknownFormat {
                found: head.format.clone(),
                expected: FORMAT,
            };
            return Err((error, "format"));
        }
        if head.version != VERSION_3 {
            return Err((RecordError::UnsupportedVersion(head.version), "version"));
        }
        for (field, text) in [("title", &head.title), ("summary", &head.summary)] {
            check_text(field, text).map_err(|e| (e, field))?;
        }
        if head.work_executed_here {
            let e = RecordError::invalid(
                "work_executed_here",
                "must be false: records show lane metadata, no work runs",
            );
            return Err((e, "work_executed_here"));
        }
        if let Some(origin) = &head.origin {
            check_origin(origin).map_err(|e| (e, "origin"))?;
        }
        Ok(())
    }

    /// One line after the head, with its `dt` resolved into the step's time.
    pub(crate) fn item(&mut self, item: &mut Item) -> Result<(), Broken> {
        if self.ended {
            return Err(broken("end", "nothing follows the end line"));
        }
        if matches!(
            item,
            Item::Lease(..) | Item::Reservation(..) | Item::Step(..) | Item::Chain(_)
        ) {
            self.queues_closed = true;
        }
        match item {
            Item::Queue(queue) => {
                if self.queues_closed {
                    return Err(broken(
                        "queue",
                        "queue lines come before every lease, reservation and step",
                    ));
                }
                if self.queues.contains(queue) {
                    return Err(broken(
                        "queue",
                        format!("{} is declared twice", Quoted(queue)),
                    ));
                }
                self.queues.push(queue.clone());
                Ok(())
            }
            Item::Actor { id, name } => {
                if *id != self.actors + 1 {
                    return Err(broken(
                        "actor",
                        format!(
                            "actors are numbered in order: expected {}, found {id}",
                            self.actors + 1
                        ),
                    ));
                }
                check_name("name", name).map_err(|e| from_record("name", e))?;
                self.actors += 1;
                Ok(())
            }
            Item::Lease(lease, _) => self.lease(lease),
            Item::Reservation(view, _) => self.reservation(view),
            // Their order among the steps is the prover's (`proof.rs`).
            Item::Chain(_) | Item::Link(_) | Item::Checkpoint { .. } => Ok(()),
            Item::Step(step, dt) => self.step(step, *dt),
            Item::End(end) => {
                if end.steps != self.steps {
                    return Err(broken(
                        "end",
                        format!(
                            "the end line counts {} steps; the record holds {}",
                            end.steps, self.steps
                        ),
                    ));
                }
                if self.steps == 0 {
                    return Err(broken("end", "a record holds at least one step"));
                }
                self.ended = true;
                Ok(())
            }
        }
    }

    /// Whether the end line has been read.
    pub(crate) fn ended(&self) -> bool {
        self.ended
    }

    fn lease(&mut self, lease: &StartLease) -> Result<(), Broken> {
        let expected = format!("L{}", self.leases + 1);
        if lease.handle != expected {
            return Err(broken(
                "lease",
                format!(
                    "leases are numbered in order: expected {}, found {}",
                    Quoted(&expected),
                    Quoted(&lease.handle)
                ),
            ));
        }
        if lease.state != StartLeaseState::Released {
            if self.started {
                return Err(broken(
                    "state",
                    "once the steps have begun, a lease line names a lease released before \
                     the record starts (state released): what holds a lane is in the start",
                ));
            }
            self.hold(&lease.project, format!("lease {}", lease.handle))?;
        }
        self.leases += 1;
        Ok(())
    }

    fn reservation(&mut self, view: &ReservationView) -> Result<(), Broken> {
        if view.id.number() != self.reservations + 1 {
            return Err(broken(
                "reservation",
                format!(
                    "reservations are numbered in order: expected R{}, found {}",
                    self.reservations + 1,
                    view.id
                ),
            ));
        }
        if !self.queues.contains(&view.queue) {
            return Err(broken(
                "queue",
                format!(
                    "{} is not a queue declared by a queue line",
                    Quoted(&view.queue)
                ),
            ));
        }
        use ReservationState::*;
        let fits = match view.state {
            Queued | Dispatched | Cancelled => view.outcome.is_none(),
            Persisting => view.outcome.is_some(),
            Done => view.outcome.is_some_and(|o| o != Outcome::NeedsReview),
            Unresolved | Resolved => view.outcome == Some(Outcome::NeedsReview),
        };
        if !fits {
            let wanted = match view.state {
                Queued | Dispatched | Cancelled => "has no outcome",
                Persisting => "has an outcome",
                Done => "has an outcome other than needs_review",
                Unresolved | Resolved => "has the outcome needs_review",
            };
            return Err(broken(
                "outcome",
                format!("a reservation that is {} {wanted}", view.state.as_str()),
            ));
        }
        let live = matches!(view.state, Queued | Dispatched | Persisting | Unresolved);
        if live && self.started {
            return Err(broken(
                "state",
                "once the steps have begun, a reservation line names one settled before the \
                 record starts (done, cancelled or resolved): what is live is in the start",
            ));
        }
        if matches!(view.state, Dispatched | Persisting | Unresolved) {
            self.hold(&view.project, format!("reservation {}", view.id))?;
        }
        self.reservations += 1;
        Ok(())
    }

    /// `project` is held (or blocked) by `by` in the start: nothing else may be.
    fn hold(&mut self, project: &Label, by: String) -> Result<(), Broken> {
        if let Some(other) = self.holders.get(project) {
            return Err(broken(
                "project",
                format!(
                    "{} is already held or blocked by {other}: a project has one holder",
                    Quoted(project)
                ),
            ));
        }
        self.holders.insert(project.clone(), by);
        Ok(())
    }

    fn step(&mut self, step: &mut Step, dt: Option<i64>) -> Result<(), Broken> {
        if !self.started {
            self.started = true;
            self.holders = HashMap::new();
        }
        if let Some(dt) = dt {
            let Some(previous) = self.previous else {
                return Err(broken(
                    "dt",
                    "`dt` counts from the step before, which has no time: use `at`",
                ));
            };
            let at = i128::from(previous.millis()) + i128::from(dt);
            step.at = u64::try_from(at)
                .ok()
                .and_then(|ms| Timestamp::from_millis(ms).ok());
            if step.at.is_none() {
                return Err(broken(
                    "dt",
                    "takes the time out of the years 1970 to 9999 that records hold",
                ));
            }
        }
        self.previous = step.at;
        if let Some(by) = step.by
            && (by == 0 || by > self.actors)
        {
            return Err(broken(
                "by",
                format!(
                    "actor {by} was never named by an actor line before (named so far: {})",
                    match self.actors {
                        0 => "none".to_owned(),
                        1 => "1".to_owned(),
                        n => format!("1 to {n}"),
                    }
                ),
            ));
        }
        for field in Field::ALL {
            if step
                .input
                .get(field)
                .is_some_and(|v| v.chars().count() > MAX_INPUT_CHARS)
            {
                return Err(broken(
                    field.as_str(),
                    format!("longer than {MAX_INPUT_CHARS} characters"),
                ));
            }
        }
        if let Some(handle) = step.input.lease.as_deref()
            && handle_number(handle).is_none_or(|n| n == 0 || n as u64 > self.leases)
        {
            return Err(broken(
                "lease",
                format!(
                    "lease handle {} was never issued by a lease line or an earlier claim \
                     (issued so far: {})",
                    Quoted(handle),
                    issued_list('L', self.leases as usize)
                ),
            ));
        }
        let named = [
            ("reservation", step.input.reservation.clone()),
            (
                "dispatched",
                match &step.answer {
                    Answer::Dispatched(id) => Some(id.to_string().into()),
                    _ => None,
                },
            ),
        ];
        for (field, id) in named {
            if let Some(id) = id
                && crate::dispatch::ReservationId::parse(&id)
                    .is_none_or(|r| r.number() > self.reservations)
            {
                return Err(broken(
                    field,
                    format!(
                        "reservation {} was never enqueued by a reservation line or an earlier \
                         step (enqueued so far: {})",
                        Quoted(&id),
                        issued_list('R', self.reservations as usize)
                    ),
                ));
            }
        }
        if let Some(note) = &step.note {
            check_text("note", note).map_err(|e| from_record("note", e))?;
        }
        if !matches!(step.answer, Answer::Refused(_)) {
            succeeded_as_given(step)?;
        }
        match (step.op, &step.answer) {
            (Op::Claim, Answer::Ok) => self.leases += 1,
            (Op::Enqueue, Answer::Ok) => self.reservations += 1,
            _ => {}
        }
        self.steps += 1;
        Ok(())
    }
}

/// A step that succeeded was given what its operation takes: labels that follow the rule (a
/// claim's, an enqueue's), an outcome that is one (a release's, a finish's). Otherwise it was
/// refused, whatever the record says.
fn succeeded_as_given(step: &Step) -> Result<(), Broken> {
    let labels: &[Field] = match step.op {
        Op::Claim => &[Field::Project, Field::Run],
        Op::Enqueue => &[Field::Queue, Field::Project, Field::Run],
        Op::View => &[Field::Project],
        _ => &[],
    };
    for &field in labels {
        if let Some(text) = step.input.get(field)
            && !crate::is_valid_label(text)
        {
            return Err(broken(
                field.as_str(),
                format!(
                    "a `{}` given {} cannot succeed: it breaks the label rule",
                    step.op,
                    Quoted(text)
                ),
            ));
        }
    }
    if matches!(step.op, Op::Release | Op::Finish)
        && let Some(text) = step.input.outcome.as_deref()
        && text.parse::<Outcome>().is_err()
    {
        return Err(broken(
            "outcome",
            format!(
                "a `{}` given the outcome {} cannot succeed: it is no outcome",
                step.op,
                Quoted(text)
            ),
        ));
    }
    Ok(())
}

/// A rule of the shared checks, about `field`.
fn from_record(field: &'static str, error: RecordError) -> Broken {
    let message = match error {
        RecordError::Invalid { message, .. } => message,
        other => other.to_string(),
    };
    broken(field, message)
}
