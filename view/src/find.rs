//! Find and filter: the steps of a record a reader asks for, by project, run label, operation,
//! answer code, caller and time, counted and walked in order.
//!
//! A query is words separated by spaces; a step matches when it matches every word:
//!
//! - `project:docs`, `run:nightly-101`, `op:claim`, `code:PROJECT_BUSY` (`code:ok` for an
//!   accepted step), `actor:worker-3`: the step's project, run, operation, answer or caller is
//!   exactly that value;
//! - `since:2026-05-01T03:00:00.000Z`, `until:…`: it ran at or after that time, or before it
//!   (RFC 3339 in UTC, as records save times; a step without a time matches neither);
//! - `is:refused` (any refusal) and `is:recovery` (a release or finish with the outcome
//!   `needs_review`, or a persist whose save failed: how a journal records what recovery did);
//! - any other word: a part of the step's project, run or caller, ignoring ASCII case.
//!
//! A step's project and run are the ones it concerns: those its inputs name, or, for an
//! operation on a lease or a reservation, those of the claim or enqueue that issued it
//! ([`Concerns`], one pass over the record). A query is parsed once ([`Query::parse`]) and its
//! matches ([`Found`]) are step numbers in order, so the next and previous match are a binary
//! search away at any record size.
//!
//! ```
//! use project_lanes_view::find::{Concerns, Query};
//!
//! # use project_lanes::record::{Recorder, Text};
//! # let text = |s: &str| Text { en: s.into(), ja: s.into() };
//! # let mut rec = Recorder::new("busy-project", text("A busy project"), text("Two claims."), &["docs", "site"], "site").unwrap();
//! # rec.claim("docs", "nightly-101");
//! # rec.claim("docs", "nightly-102");
//! # let record: project_lanes::record::Record = rec.finish().unwrap();
//! // `record`: the second claim of docs is refused (PROJECT_BUSY)
//! let concerns = Concerns::of(&record);
//! let found = Query::parse("project:docs is:refused")?.find(&concerns);
//! assert_eq!(found.steps(), &[1]);
//! assert_eq!(found.next(None), Some(1));
//! assert_eq!(found.next(Some(1)), None);
//! assert_eq!(Query::parse("nightly")?.find(&concerns).count(), 2);
//! # Ok::<(), project_lanes_view::find::QueryError>(())
//! ```

use hashbrown::HashMap;
use std::borrow::Cow;

use project_lanes::Outcome;
use project_lanes::dispatch::ReservationId;
use project_lanes::record::{Op, Record, Step, StepResult, Timestamp, handle_number};

/// Longest query taken, in bytes: a query longer than any real one is refused, never scanned.
pub const MAX_QUERY_BYTES: usize = 1_000;

/// A parsed query: every word a step must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query {
    terms: Vec<Term>,
}

/// One word of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Term {
    Project(String),
    Run(String),
    Op(Op),
    Code(String),
    Actor(String),
    Since(Timestamp),
    Until(Timestamp),
    Refused,
    Recovery,
    /// Lower-cased.
    Word(String),
}

/// Why a query was not taken: its [`code`](Self::code) and the word at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueryError {
    /// `key:value` with a key that is not one of the query's.
    UnknownKey(String),
    /// `key:` with nothing after it.
    EmptyValue(String),
    /// `op:` naming no operation.
    UnknownOp(String),
    /// `since:` or `until:` that is not a time in UTC like `2026-05-01T03:12:45.123Z`.
    BadTime(String),
    /// `is:` naming neither `refused` nor `recovery`.
    UnknownKind(String),
    /// Longer than [`MAX_QUERY_BYTES`] (the length).
    TooLong(usize),
}

impl QueryError {
    /// A stable code: `UNKNOWN_KEY`, `EMPTY_VALUE`, `UNKNOWN_OP`, `BAD_TIME`, `UNKNOWN_KIND`,
    /// `QUERY_TOO_LONG`.
    pub fn code(&self) -> &'static str {
        match self {
            QueryError::UnknownKey(_) => "UNKNOWN_KEY",
            QueryError::EmptyValue(_) => "EMPTY_VALUE",
            QueryError::UnknownOp(_) => "UNKNOWN_OP",
            QueryError::BadTime(_) => "BAD_TIME",
            QueryError::UnknownKind(_) => "UNKNOWN_KIND",
            QueryError::TooLong(_) => "QUERY_TOO_LONG",
        }
    }

    /// The word at fault, as typed (empty for a query too long).
    pub fn word(&self) -> &str {
        match self {
            QueryError::UnknownKey(w)
            | QueryError::EmptyValue(w)
            | QueryError::UnknownOp(w)
            | QueryError::BadTime(w)
            | QueryError::UnknownKind(w) => w,
            QueryError::TooLong(_) => "",
        }
    }
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            QueryError::TooLong(n) => write!(
                f,
                "{}: the query is {n} bytes, more than {MAX_QUERY_BYTES}",
                self.code()
            ),
            _ => write!(f, "{}: {}", self.code(), self.word()),
        }
    }
}

impl std::error::Error for QueryError {}

impl Query {
    /// Parses `text` (see the module's documentation); an empty query matches every step.
    pub fn parse(text: &str) -> Result<Query, QueryError> {
        if text.len() > MAX_QUERY_BYTES {
            return Err(QueryError::TooLong(text.len()));
        }
        let mut terms = Vec::new();
        for word in text.split_whitespace() {
            terms.push(term(word)?);
        }
        Ok(Query { terms })
    }

    /// Whether the query has no words (it matches every step).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Whether step `i` of the record `concerns` was found in matches every word.
    pub fn matches(&self, concerns: &Concerns<'_>, i: usize) -> bool {
        let Some(step) = concerns.record.steps.get(i) else {
            return false;
        };
        // The names are looked up once, and only for a query that asks for them.
        let mut names = None;
        let mut named = || *names.get_or_insert_with(|| concerns.named(i).unwrap_or_default());
        self.terms.iter().all(|t| match t {
            Term::Project(p) => named().0 == Some(p.as_str()),
            Term::Run(r) => named().1 == Some(r.as_str()),
            Term::Op(op) => step.op == *op,
            Term::Code(c) => step.result.code() == c,
            Term::Actor(a) => step.actor.as_deref() == Some(a.as_str()),
            Term::Since(t) => step.at.is_some_and(|at| at >= *t),
            Term::Until(t) => step.at.is_some_and(|at| at < *t),
            Term::Refused => matches!(step.result, StepResult::Error(_)),
            Term::Recovery => is_recovery(step),
            Term::Word(w) => {
                let (project, run) = named();
                [project, run, step.actor.as_deref()]
                    .into_iter()
                    .flatten()
                    .any(|v| contains_ignoring_case(v, w))
            }
        })
    }

    /// Every step of the record `concerns` was found in that matches, in order.
    pub fn find(&self, concerns: &Concerns<'_>) -> Found {
        let steps = (0..concerns.record.steps.len())
            .filter(|&i| self.matches(concerns, i))
            .map(|i| i as u32)
            .collect();
        Found { steps }
    }
}

/// One word as a term.
fn term(word: &str) -> Result<Term, QueryError> {
    let Some((key, value)) = word.split_once(':') else {
        return Ok(Term::Word(word.to_ascii_lowercase()));
    };
    // A time has colons of its own: only the first one ends the key.
    if value.is_empty() {
        return Err(QueryError::EmptyValue(word.into()));
    }
    let time = |value: &str| {
        value
            .parse::<Timestamp>()
            .map_err(|_| QueryError::BadTime(word.into()))
    };
    Ok(match key {
        "project" => Term::Project(value.into()),
        "run" => Term::Run(value.into()),
        "op" => Term::Op(
            Op::ALL
                .into_iter()
                .find(|op| op.as_str() == value)
                .ok_or_else(|| QueryError::UnknownOp(word.into()))?,
        ),
        "code" => Term::Code(value.into()),
        "actor" => Term::Actor(value.into()),
        "since" => Term::Since(time(value)?),
        "until" => Term::Until(time(value)?),
        "is" => match value {
            "refused" => Term::Refused,
            "recovery" => Term::Recovery,
            _ => return Err(QueryError::UnknownKind(word.into())),
        },
        _ => return Err(QueryError::UnknownKey(word.into())),
    })
}

/// Whether `step` is a refusal or a recovery, the steps `]` and `[` go to.
pub fn notable(step: &Step) -> bool {
    matches!(step.result, StepResult::Error(_)) || is_recovery(step)
}

/// The first refusal or recovery after step `after` (from the first step for `None`). It looks
/// only as far as the next one: no index is kept.
pub fn next_notable(record: &Record, after: Option<usize>) -> Option<usize> {
    let from = after.map_or(0, |n| n.saturating_add(1));
    let rest = record.steps.get(from..)?;
    rest.iter().position(notable).map(|i| from + i)
}

/// The last refusal or recovery before step `before` (from the last step for `None`).
pub fn previous_notable(record: &Record, before: Option<usize>) -> Option<usize> {
    let to = before.map_or(record.steps.len(), |n| n.min(record.steps.len()));
    record.steps.get(..to)?.iter().rposition(notable)
}

/// A release or finish saying `needs_review`, or a persist whose save failed.
fn is_recovery(step: &Step) -> bool {
    match step.op {
        Op::Release | Op::Finish => {
            step.input.outcome.as_deref() == Some(Outcome::NeedsReview.as_str())
        }
        Op::Persist => step.input.saved == Some(false),
        _ => false,
    }
}

/// Whether `needle` (lower-cased) is a part of `hay`, ignoring ASCII case.
fn contains_ignoring_case(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    needle.is_empty()
        || hay.windows(needle.len()).any(|w| {
            w.iter()
                .zip(needle)
                .all(|(a, b)| a.to_ascii_lowercase() == *b)
        })
}

/// The steps that matched, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    steps: Vec<u32>,
}

impl Found {
    /// These steps (in order) as matches, for tests.
    #[cfg(test)]
    pub(crate) fn of(steps: Vec<u32>) -> Found {
        Found { steps }
    }

    /// How many steps matched.
    pub fn count(&self) -> usize {
        self.steps.len()
    }

    /// The matching steps (from 0), in order.
    pub fn steps(&self) -> &[u32] {
        &self.steps
    }

    /// The first match after step `after` (the first of all for `None`).
    pub fn next(&self, after: Option<usize>) -> Option<usize> {
        let at = match after {
            None => 0,
            Some(n) => self.steps.partition_point(|&s| s as usize <= n),
        };
        self.steps.get(at).map(|&s| s as usize)
    }

    /// The last match before step `before` (the last of all for `None`).
    pub fn previous(&self, before: Option<usize>) -> Option<usize> {
        let at = match before {
            None => self.steps.len(),
            Some(n) => self.steps.partition_point(|&s| (s as usize) < n),
        };
        at.checked_sub(1)
            .and_then(|at| self.steps.get(at))
            .map(|&s| s as usize)
    }

    /// Which match step `n` is (from 1, as "match 3 of 40" counts), if it is one.
    pub fn ordinal(&self, n: usize) -> Option<usize> {
        let n = u32::try_from(n).ok()?;
        self.steps.binary_search(&n).ok().map(|at| at + 1)
    }
}

/// The project and run each step of a record concerns, found in one pass: named in its inputs,
/// shown in its answer, or those of the claim or enqueue that issued the lease or reservation
/// it names (or of the lease or reservation the record starts with). It keeps one number per
/// step, the step whose own inputs or answer name them, and reads the names from the record
/// when asked.
#[derive(Debug)]
pub struct Concerns<'a> {
    record: &'a Record,
    /// Per step: the step that names its project and run, or, past the steps, the lease or
    /// reservation the record starts with ([`NONE`] for none): [`Concerns::sources`].
    source: Cow<'a, [u32]>,
}

/// No step.
const NONE: u32 = u32::MAX;

impl<'a> Concerns<'a> {
    /// What every step of `record` concerns.
    pub fn of(record: &'a Record) -> Concerns<'a> {
        Concerns {
            record,
            source: Cow::Owned(Concerns::sources(record)),
        }
    }

    /// What every step of `record` concerns, its [`sources`](Concerns::sources) kept by the
    /// caller (reading them costs every step of the record; a viewer keeps them per record).
    pub fn with(record: &'a Record, sources: &'a [u32]) -> Concerns<'a> {
        Concerns {
            record,
            source: Cow::Borrowed(sources),
        }
    }

    /// Per step of `record`: the step whose own inputs or answer name what it concerns, or,
    /// past the steps, the lease or reservation the record starts with (`u32::MAX` for none).
    pub fn sources(record: &Record) -> Vec<u32> {
        let steps = record.steps.len();
        let mut leases = Issued::default();
        let mut reservations = Issued::default();
        // What the record starts from: its holders count as sources after the steps.
        let start = record.start.as_ref();
        let held = start.map_or(&[][..], |s| &s.leases[..]);
        let queued = start.map_or(&[][..], |s| &s.reservations[..]);
        let mut later = steps;
        for lease in held {
            leases.issue(lease_number(&lease.handle), later);
            later += 1;
        }
        for reservation in queued {
            reservations.issue(Some(reservation.id.number()), later);
            later += 1;
        }
        let mut source = Vec::with_capacity(steps);
        for (i, step) in record.steps.iter().enumerate() {
            match &step.result {
                StepResult::Lease(l) => leases.issue(lease_number(&l.handle), i),
                StepResult::Reservation(v) if step.op == Op::Enqueue => {
                    reservations.issue(Some(v.id.number()), i)
                }
                _ => {}
            }
            let (project, run) = own(step);
            let from = if project.is_some() || run.is_some() {
                Some(i)
            } else if let Some(lease) = &step.input.lease {
                leases.find(lease_number(lease))
            } else if let Some(reservation) = &step.input.reservation {
                reservations.find(ReservationId::parse(reservation).map(ReservationId::number))
            } else {
                None
            };
            source.push(from.and_then(|n| u32::try_from(n).ok()).unwrap_or(NONE));
        }
        source
    }

    /// The project step `i` concerns, if any.
    pub fn project(&self, i: usize) -> Option<&'a str> {
        self.named(i)?.0
    }

    /// The run step `i` concerns, if any.
    pub fn run(&self, i: usize) -> Option<&'a str> {
        self.named(i)?.1
    }

    fn named(&self, i: usize) -> Option<(Option<&'a str>, Option<&'a str>)> {
        let source = *self.source.get(i)? as usize;
        let record = self.record;
        if let Some(step) = record.steps.get(source) {
            return Some(own(step));
        }
        let start = record.start.as_ref()?;
        let k = source - record.steps.len();
        if let Some(lease) = start.leases.get(k) {
            return Some((Some(&lease.project), Some(&lease.run)));
        }
        let r = start.reservations.get(k - start.leases.len())?;
        Some((Some(&r.project), Some(&r.run)))
    }
}

/// A lease handle's number, as the record's check reads it.
fn lease_number(handle: &str) -> Option<u64> {
    handle_number(handle).map(|n| n as u64)
}

/// The project and run a step names itself: in its answer, else in its inputs.
fn own(step: &Step) -> (Option<&str>, Option<&str>) {
    match &step.result {
        StepResult::Lease(l) => (Some(&l.project), Some(&l.run)),
        StepResult::View(v) => (Some(&v.project), v.run.as_deref()),
        StepResult::Receipt(r) => (Some(&r.project), Some(&r.run)),
        StepResult::Reservation(v) | StepResult::Dispatched(v) | StepResult::Persisting(v) => {
            (Some(&v.project), Some(&v.run))
        }
        StepResult::Settled(s) => (Some(&s.receipt.project), Some(&s.receipt.run)),
        StepResult::Nothing(_) | StepResult::Error(_) => {
            (step.input.project.as_deref(), step.input.run.as_deref())
        }
    }
}

/// Handles (`L<n>`, `R<n>`) by their numbers, and the step that issued each. Records issue them
/// in order, so each is kept in a list; a number out of order (a record of another writer) is
/// kept apart.
#[derive(Default)]
struct Issued {
    in_order: Vec<usize>,
    apart: HashMap<u64, usize>,
}

impl Issued {
    fn issue(&mut self, n: Option<u64>, source: usize) {
        let Some(n) = n else {
            return;
        };
        if n == self.in_order.len() as u64 + 1 {
            self.in_order.push(source);
        } else {
            self.apart.insert(n, source);
        }
    }

    fn find(&self, n: Option<u64>) -> Option<usize> {
        let n = n?;
        let at = usize::try_from(n.checked_sub(1)?).ok()?;
        self.in_order
            .get(at)
            .or_else(|| self.apart.get(&n))
            .copied()
    }
}

#[cfg(test)]
mod tests;
