//! The lines of a version 3 record as JSON holds them, and what each line is.
//!
//! The first line is the [`Head`]. Every other line is one JSON object of one kind, told apart
//! by the key it holds: `op` a step, `actor` an actor's name, `lease`, `reservation` or `queue`
//! (without `op`) something held, issued or declared before the first step, `end` the end. They all parse into the
//! one flat [`Line`] (unknown fields refused), and [`Line::item`] says which kind it is and
//! refuses fields of another kind.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};

use crate::dispatch::{DispatchError, ReservationId, ReservationState, ReservationView};
use crate::label::Quoted;
use crate::op::{Field, Op};
use crate::record::chain::{ChainHead, Hash, TAG_DIGITS};
use crate::record::{Input, Origin, StartLease, StartLeaseState, Text};
use crate::time::Timestamp;
use crate::{Label, LaneView};

/// The first line: what the record is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Head {
    /// Always [`FORMAT`](crate::record::FORMAT).
    pub format: String,
    /// Always [`VERSION_3`](crate::record::VERSION_3).
    pub version: u32,
    /// A stable id that follows the label rule.
    pub id: Label,
    /// A short title.
    pub title: Text,
    /// What the record shows, in a sentence or two.
    pub summary: Text,
    /// Always `false`: records show lane metadata; no work ran.
    pub work_executed_here: bool,
    /// Where the record came from (a scenario, or a running system's journal).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub origin: Option<Origin>,
}

/// The end: how many steps the record holds, so that a record cut short is told from a whole
/// one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct End {
    /// The number of step lines.
    pub steps: u64,
    /// A chained record: the number of the chain's last link.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub links: Option<u64>,
    /// A chained record: its root, the chain's last link (64 hex digits).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub root: Option<String>,
}

/// Any line after the head, as JSON holds it: the fields of every kind of line, each optional.
/// Written in this order (which is also the order of the documentation).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    /// A step: its operation.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub op: Option<Op>,
    /// A step: when, in RFC 3339 (UTC, milliseconds).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub at: Option<Timestamp>,
    /// A step: when, in milliseconds after the step before (which has a time); may be negative.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub dt: Option<i64>,
    /// A step: who called, by the number of its `actor` line.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub by: Option<u64>,
    /// A step's lease handle, or a lease held or issued before the first step.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub lease: Option<String>,
    /// A step's reservation id, or a reservation enqueued before the first step.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub reservation: Option<String>,
    /// A step's queue, a reservation's, or a queue of the dispatcher.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub queue: Option<String>,
    /// A step's project, or a lease's or reservation's.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub project: Option<String>,
    /// A step's run, or a lease's or reservation's.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub run: Option<String>,
    /// A lease's or a reservation's state before the first step (or when it was issued).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub state: Option<String>,
    /// A step's outcome, or a reservation's.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub outcome: Option<String>,
    /// A `persist` step's `saved`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub saved: Option<bool>,
    /// A step's answer: `ok`, or the refusal's code.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub result: Option<String>,
    /// A `release` that succeeded: whether a stop had been requested (absent: `false`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub stop_requested: Option<bool>,
    /// A `view` that succeeded: the lane.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub lane: Option<LaneView>,
    /// A `dispatch` that handed out a job: the reservation.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub dispatched: Option<String>,
    /// A `dispatch` that found nothing available: how many reservations wait in the queue.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub retained: Option<u64>,
    /// A `persist` that succeeded: `done` or `unresolved`.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub settled: Option<ReservationState>,
    /// A chained step: the first 16 hex digits of its link.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub h: Option<String>,
    /// A chained claim that succeeded, or a lease line: the lease's generation in the system.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub g: Option<u64>,
    /// A chained enqueue that succeeded, or a reservation line: the system's id of the
    /// reservation.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub sid: Option<u64>,
    /// A step's remark for readers.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub note: Option<Text>,
    /// An actor: its number (1, 2, … in order).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub actor: Option<u64>,
    /// An actor: its name, in the system's words.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub name: Option<String>,
    /// The chain line: the chain before the first step.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub chain: Option<ChainLine>,
    /// A link line: the link of a journal entry the record leaves out (64 hex digits).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub link: Option<String>,
    /// The checkpoint line: a checkpoint of the journal at the record's last link.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub checkpoint: Option<String>,
    /// The checkpoint line: the key that signed it, as a verifier key.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub key: Option<String>,
    /// The end.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub end: Option<End>,
}

/// The chain line's value: how many links come before the record's first step, and the last
/// of them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChainLine {
    /// The number of links before the first step.
    pub links: u64,
    /// The last of them (64 hex digits; link 0 is zeros).
    pub hash: String,
}

/// What a step answered, as version 3 keeps it: its code, and the part of its answer that the
/// step's inputs and the record before it do not already fix (replay computes the rest).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// `ok`, with nothing more to say: a claim (the next lease handle), a stop request, an
    /// enqueue (the next reservation id), a finish, a cancel, a resolve.
    Ok,
    /// A release that succeeded, and whether a stop had been requested.
    Released {
        /// The receipt's `stop_requested`.
        stop_requested: bool,
    },
    /// A view: the lane.
    Viewed(LaneView),
    /// A dispatch that handed out this reservation.
    Dispatched(ReservationId),
    /// A dispatch that found nothing available, and how many reservations wait in the queue.
    Nothing {
        /// Reservations waiting behind busy or blocked projects.
        retained: u64,
    },
    /// A persist that succeeded: the reservation is `done` or `unresolved`.
    Settled(ReservationState),
    /// A refusal, by its code.
    Refused(DispatchError),
}

impl Answer {
    /// `"ok"` for a success, else the refusal's code (as `result` holds it).
    pub fn code(&self) -> &'static str {
        match self {
            Answer::Refused(e) => e.code(),
            _ => "ok",
        }
    }
}

impl std::fmt::Display for Answer {
    /// `ok`, with what the answer says beyond it, or the refusal's code.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Answer::Ok => f.write_str("ok"),
            Answer::Released { stop_requested } => {
                write!(f, "ok, stop_requested {stop_requested}")
            }
            Answer::Viewed(lane) => match (&lane.run, lane.state) {
                (Some(run), Some(state)) => {
                    write!(f, "ok: the lane is held by {run}, {}", state.as_str())
                }
                _ => f.write_str("ok: the lane is idle"),
            },
            Answer::Dispatched(id) => write!(f, "ok: dispatched {id}"),
            Answer::Nothing { retained } => {
                write!(f, "ok: nothing dispatched, {retained} waiting")
            }
            Answer::Settled(state) => write!(f, "ok: settled {}", state.as_str()),
            Answer::Refused(e) => f.write_str(e.code()),
        }
    }
}

/// One step: an operation, its inputs, when and by whom, and what it answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Which operation ran.
    pub op: Op,
    /// When it ran (`dt` resolved against the step before).
    pub at: Option<Timestamp>,
    /// Who called: an actor's number.
    pub by: Option<u64>,
    /// Its inputs; which fields are present depends on `op`.
    pub input: Input,
    /// What it answered.
    pub answer: Answer,
    /// A remark for readers.
    pub note: Option<Text>,
    /// A chained step: its link's tag, and the system's name for what it issued.
    pub proof: Option<Proof>,
}

/// What a chained step carries to prove it: the start of its link, and for a claim or an
/// enqueue that succeeded the system's generation or reservation id it issued (the record's
/// handles are its own; the chain hashes the system's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Proof {
    /// The first 8 bytes of the step's link (`h`).
    pub tag: u64,
    /// A claim's `g` or an enqueue's `sid`.
    pub issued: Option<u64>,
}

/// What one line after the head is (handed out one at a time, so a step's size is no cost).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// The dispatcher has this queue (declared before any lease, reservation or step).
    Queue(Label),
    /// Actor number `id` is called `name`.
    Actor {
        /// Its number.
        id: u64,
        /// Its name.
        name: String,
    },
    /// A lease held before the first step, or issued and released before a step that names it;
    /// in a chained record, with its generation in the system.
    Lease(StartLease, Option<u64>),
    /// A reservation present before the first step, or settled before a step that names it; in
    /// a chained record, with the system's id.
    Reservation(ReservationView, Option<u64>),
    /// The chain before the first step.
    Chain(ChainHead),
    /// The link of a journal entry the record leaves out.
    Link(Hash),
    /// A checkpoint of the journal at the record's last link (a note's text), and the key that
    /// signed it.
    Checkpoint {
        /// The checkpoint, as `lanes-pg checkpoint` writes it.
        note: String,
        /// The signer's verifier key, if it is signed.
        key: Option<String>,
    },
    /// A step, and its `dt` as given (the reader resolves it into the step's time).
    Step(Step, Option<i64>),
    /// The end.
    End(End),
}

/// A rule a line breaks, and the field it is about (for its column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Broken {
    pub(crate) field: &'static str,
    pub(crate) message: String,
}

pub(crate) fn broken(field: &'static str, message: impl Into<String>) -> Broken {
    Broken {
        field,
        message: message.into(),
    }
}

impl Line {
    /// The fields present, by name.
    fn present(&self) -> [(&'static str, bool); 29] {
        [
            ("op", self.op.is_some()),
            ("at", self.at.is_some()),
            ("dt", self.dt.is_some()),
            ("by", self.by.is_some()),
            ("lease", self.lease.is_some()),
            ("reservation", self.reservation.is_some()),
            ("queue", self.queue.is_some()),
            ("project", self.project.is_some()),
            ("run", self.run.is_some()),
            ("state", self.state.is_some()),
            ("outcome", self.outcome.is_some()),
            ("saved", self.saved.is_some()),
            ("result", self.result.is_some()),
            ("stop_requested", self.stop_requested.is_some()),
            ("lane", self.lane.is_some()),
            ("dispatched", self.dispatched.is_some()),
            ("retained", self.retained.is_some()),
            ("settled", self.settled.is_some()),
            ("h", self.h.is_some()),
            ("g", self.g.is_some()),
            ("sid", self.sid.is_some()),
            ("note", self.note.is_some()),
            ("actor", self.actor.is_some()),
            ("name", self.name.is_some()),
            ("chain", self.chain.is_some()),
            ("link", self.link.is_some()),
            ("checkpoint", self.checkpoint.is_some()),
            ("key", self.key.is_some()),
            ("end", self.end.is_some()),
        ]
    }

    /// Only `allowed` fields are present (`kind` names the line's kind in the message).
    fn only(&self, kind: &str, allowed: &[&str]) -> Result<(), Broken> {
        match self
            .present()
            .into_iter()
            .find(|(name, there)| *there && !allowed.contains(name))
        {
            Some((name, _)) => Err(broken(name, format!("{kind} has no `{name}`"))),
            None => Ok(()),
        }
    }

    /// What this line is, with the rules that need nothing but the line itself: its kind's
    /// fields and no others, a step's inputs exactly its operation's, an answer that fits.
    pub(crate) fn item(self) -> Result<Item, Broken> {
        if self.op.is_some() {
            return self.step();
        }
        if let Some(id) = self.actor {
            self.only("an actor line", &["actor", "name"])?;
            let name = self
                .name
                .ok_or_else(|| broken("actor", "an actor line needs `name`"))?;
            return Ok(Item::Actor { id, name });
        }
        if self.end.is_some() {
            self.only("the end line", &["end"])?;
            let end = self.end.unwrap_or_default();
            if end.links.is_some() != end.root.is_some() {
                return Err(broken("end", "a chained end has `links` and `root`, both"));
            }
            if let Some(root) = &end.root
                && Hash::from_hex(root).is_none()
            {
                return Err(broken("end", "`root` is 64 lowercase hex digits"));
            }
            return Ok(Item::End(end));
        }
        if self.chain.is_some() {
            self.only("the chain line", &["chain"])?;
            let chain = self.chain.unwrap_or_default();
            let hash = Hash::from_hex(&chain.hash)
                .ok_or_else(|| broken("chain", "`hash` is 64 lowercase hex digits"))?;
            return Ok(Item::Chain(ChainHead {
                links: chain.links,
                hash,
            }));
        }
        if self.link.is_some() {
            self.only("a link line", &["link"])?;
            let link = self.link.unwrap_or_default();
            let hash = Hash::from_hex(&link)
                .ok_or_else(|| broken("link", "a link is 64 lowercase hex digits"))?;
            return Ok(Item::Link(hash));
        }
        if self.checkpoint.is_some() {
            self.only("the checkpoint line", &["checkpoint", "key"])?;
            let note = self.checkpoint.unwrap_or_default();
            return Ok(Item::Checkpoint {
                note,
                key: self.key,
            });
        }
        if self.lease.is_some() {
            self.only("a lease line", &["lease", "project", "run", "state", "g"])?;
            return self.lease_line();
        }
        if self.reservation.is_some() {
            self.only(
                "a reservation line",
                &[
                    "reservation",
                    "queue",
                    "project",
                    "run",
                    "state",
                    "outcome",
                    "sid",
                ],
            )?;
            return self.reservation_line();
        }
        if self.queue.is_some() {
            self.only("a queue line", &["queue"])?;
            let queue = self.queue.unwrap_or_default();
            return match Label::new(&queue) {
                Ok(label) => Ok(Item::Queue(label)),
                Err(_) => Err(broken(
                    "queue",
                    format!("{} breaks the label rule", Quoted(&queue)),
                )),
            };
        }
        let first = self.present().into_iter().find(|(_, there)| *there);
        Err(broken(
            first.map_or("op", |(name, _)| name),
            "a line is a step (`op`), an actor (`actor`), a lease (`lease`), a reservation \
             (`reservation`), a queue (`queue`), the chain (`chain`), a link (`link`), a \
             checkpoint (`checkpoint`) or the end (`end`)",
        ))
    }

    fn lease_line(self) -> Result<Item, Broken> {
        let label = |field: &'static str, value: Option<String>| -> Result<Label, Broken> {
            let value =
                value.ok_or_else(|| broken("lease", format!("a lease line needs `{field}`")))?;
            Label::new(&value)
                .map_err(|_| broken(field, format!("{} breaks the label rule", Quoted(&value))))
        };
        let project = label("project", self.project)?;
        let run = label("run", self.run)?;
        let state = match self.state.as_deref() {
            Some("running") => StartLeaseState::Running,
            Some("stop_requested") => StartLeaseState::StopRequested,
            Some("released") => StartLeaseState::Released,
            Some(other) => {
                return Err(broken(
                    "state",
                    format!(
                        "{} is not a lease's state (running, stop_requested or released)",
                        Quoted(other)
                    ),
                ));
            }
            None => return Err(broken("lease", "a lease line needs `state`")),
        };
        Ok(Item::Lease(
            StartLease {
                handle: self.lease.unwrap_or_default(),
                project,
                run,
                state,
            },
            self.g,
        ))
    }

    fn reservation_line(self) -> Result<Item, Broken> {
        let text = self.reservation.unwrap_or_default();
        let id = ReservationId::parse(&text).ok_or_else(|| {
            broken(
                "reservation",
                format!("{} is not a reservation id like R1", Quoted(&text)),
            )
        })?;
        let label = |field: &'static str, value: Option<String>| -> Result<Label, Broken> {
            let value = value.ok_or_else(|| {
                broken("reservation", format!("a reservation line needs `{field}`"))
            })?;
            Label::new(&value)
                .map_err(|_| broken(field, format!("{} breaks the label rule", Quoted(&value))))
        };
        let queue = label("queue", self.queue)?;
        let project = label("project", self.project)?;
        let run = label("run", self.run)?;
        let state = match self.state.as_deref() {
            Some(name) => ReservationState::ALL
                .into_iter()
                .find(|s| s.as_str() == name)
                .ok_or_else(|| {
                    broken(
                        "state",
                        format!("{} is not a reservation's state", Quoted(name)),
                    )
                })?,
            None => return Err(broken("reservation", "a reservation line needs `state`")),
        };
        let outcome =
            match self.outcome.as_deref() {
                Some(name) => Some(name.parse().map_err(|_| {
                    broken("outcome", format!("{} is not an outcome", Quoted(name)))
                })?),
                None => None,
            };
        Ok(Item::Reservation(
            ReservationView {
                id,
                queue,
                project,
                run,
                state,
                outcome,
            },
            self.sid,
        ))
    }

    fn step(self) -> Result<Item, Broken> {
        let Some(op) = self.op else {
            unreachable!("a step has `op`")
        };
        if self.at.is_some() && self.dt.is_some() {
            return Err(broken("dt", "a step has `at` or `dt`, not both"));
        }
        const NOT_STEP: [&str; 8] = [
            "state",
            "actor",
            "name",
            "chain",
            "link",
            "checkpoint",
            "key",
            "end",
        ];
        if let Some((name, _)) = self
            .present()
            .into_iter()
            .find(|(name, there)| *there && NOT_STEP.contains(name))
        {
            return Err(broken(name, format!("a step has no `{name}`")));
        }
        let input = Input {
            queue: self.queue.map(Arc::from),
            reservation: self.reservation.map(Arc::from),
            project: self.project.map(Arc::from),
            run: self.run.map(Arc::from),
            lease: self.lease.map(Arc::from),
            outcome: self.outcome.map(Arc::from),
            saved: self.saved,
        };
        for field in Field::ALL {
            let name = field.as_str();
            match (op.fields().contains(&field), input.has(field)) {
                (true, false) => return Err(broken("op", format!("`{op}` needs `{name}`"))),
                (false, true) => {
                    return Err(broken(
                        field_name(field),
                        format!("`{op}` takes no `{name}`"),
                    ));
                }
                _ => {}
            }
        }
        let code = self
            .result
            .ok_or_else(|| broken("op", "a step needs `result`: ok, or the refusal's code"))?;
        let details = [
            ("stop_requested", self.stop_requested.is_some()),
            ("lane", self.lane.is_some()),
            ("dispatched", self.dispatched.is_some()),
            ("retained", self.retained.is_some()),
            ("settled", self.settled.is_some()),
        ];
        let allowed: &[&str] = match (op, code.as_str()) {
            (Op::Release, "ok") => &["stop_requested"],
            (Op::View, "ok") => &["lane"],
            (Op::Dispatch, "ok") => &["dispatched", "retained"],
            (Op::Persist, "ok") => &["settled"],
            _ => &[],
        };
        if let Some((name, _)) = details
            .iter()
            .find(|(name, there)| *there && !allowed.contains(name))
        {
            let what = if code == "ok" {
                format!("a `{op}` that succeeded has no `{name}`")
            } else {
                format!("a refused step has no `{name}`")
            };
            return Err(broken(name, what));
        }
        let answer = match (op, code.as_str()) {
            (_, "ok") => match op {
                Op::Release => Answer::Released {
                    stop_requested: self.stop_requested.unwrap_or(false),
                },
                Op::View => {
                    let lane = self
                        .lane
                        .ok_or_else(|| broken("result", "a `view` that succeeded needs `lane`"))?;
                    if input.project.as_deref() != Some(&*lane.project) {
                        return Err(broken(
                            "lane",
                            "the lane of another project than the view's",
                        ));
                    }
                    Answer::Viewed(lane)
                }
                Op::Dispatch => match (self.dispatched, self.retained) {
                    (Some(id), None) => {
                        Answer::Dispatched(ReservationId::parse(&id).ok_or_else(|| {
                            broken(
                                "dispatched",
                                format!("{} is not a reservation id like R1", Quoted(&id)),
                            )
                        })?)
                    }
                    (None, Some(retained)) => Answer::Nothing { retained },
                    _ => {
                        return Err(broken(
                            "result",
                            "a `dispatch` that succeeded has `dispatched` (the reservation it \
                             handed out) or `retained` (none was available), one of the two",
                        ));
                    }
                },
                Op::Persist => match self.settled {
                    Some(s @ (ReservationState::Done | ReservationState::Unresolved)) => {
                        Answer::Settled(s)
                    }
                    Some(other) => {
                        return Err(broken(
                            "settled",
                            format!(
                                "a persist settles a reservation done or unresolved, not {}",
                                other.as_str()
                            ),
                        ));
                    }
                    None => {
                        return Err(broken(
                            "result",
                            "a `persist` that succeeded needs `settled`: done or unresolved",
                        ));
                    }
                },
                _ => Answer::Ok,
            },
            (_, code) => Answer::Refused(DispatchError::from_code(code).ok_or_else(|| {
                broken(
                    "result",
                    format!("{} is neither ok nor an error code", Quoted(code)),
                )
            })?),
        };
        let issued_field = match (op, &answer) {
            (Op::Claim, Answer::Ok) => Some("g"),
            (Op::Enqueue, Answer::Ok) => Some("sid"),
            _ => None,
        };
        for (name, value) in [("g", self.g), ("sid", self.sid)] {
            if value.is_some() && (issued_field != Some(name) || self.h.is_none()) {
                return Err(broken(
                    name,
                    format!(
                        "only a chained {} that succeeded has `{name}`",
                        if name == "g" { "claim" } else { "enqueue" }
                    ),
                ));
            }
        }
        let proof = match self.h {
            None => None,
            Some(h) => {
                let tag = (h.len() == TAG_DIGITS
                    && h.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f')))
                .then(|| u64::from_str_radix(&h, 16).ok())
                .flatten()
                .ok_or_else(|| broken("h", format!("`h` is {TAG_DIGITS} lowercase hex digits")))?;
                let issued = match issued_field {
                    Some("g") => Some(self.g.ok_or_else(|| {
                        broken(
                            "h",
                            "a chained claim that succeeded needs `g`, the lease's generation",
                        )
                    })?),
                    Some(_) => Some(self.sid.ok_or_else(|| {
                        broken(
                            "h",
                            "a chained enqueue that succeeded needs `sid`, the system's id",
                        )
                    })?),
                    None => None,
                };
                Some(Proof { tag, issued })
            }
        };
        Ok(Item::Step(
            Step {
                op,
                at: self.at,
                by: self.by,
                input,
                answer,
                note: self.note,
                proof,
            },
            self.dt,
        ))
    }
}

fn field_name(field: Field) -> &'static str {
    field.as_str()
}

impl From<&Step> for Line {
    /// The line of a step, its time as `at` (the writer turns it into `dt` where it can).
    fn from(step: &Step) -> Line {
        let mut line = Line {
            op: Some(step.op),
            at: step.at,
            by: step.by,
            lease: step.input.lease.as_deref().map(str::to_owned),
            reservation: step.input.reservation.as_deref().map(str::to_owned),
            queue: step.input.queue.as_deref().map(str::to_owned),
            project: step.input.project.as_deref().map(str::to_owned),
            run: step.input.run.as_deref().map(str::to_owned),
            outcome: step.input.outcome.as_deref().map(str::to_owned),
            saved: step.input.saved,
            result: Some(step.answer.code().to_owned()),
            note: step.note.clone(),
            ..Line::default()
        };
        if let Some(proof) = step.proof {
            line.h = Some(format!("{:016x}", proof.tag));
            match step.op {
                Op::Claim => line.g = proof.issued,
                Op::Enqueue => line.sid = proof.issued,
                _ => {}
            }
        }
        match &step.answer {
            Answer::Released {
                stop_requested: true,
            } => line.stop_requested = Some(true),
            Answer::Viewed(lane) => line.lane = Some(lane.clone()),
            Answer::Dispatched(id) => line.dispatched = Some(id.to_string()),
            Answer::Nothing { retained } => line.retained = Some(*retained),
            Answer::Settled(state) => line.settled = Some(*state),
            _ => {}
        }
        line
    }
}

/// An optional field that is there holds a value: `null` is refused, as in versions 1 and 2.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}
