//! The dispatcher's data: reservation ids and states, its error codes, and the owned values its
//! operations hand out (jobs, final states, settlements, views).

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::{Label, LaneError, Outcome, Receipt};

/// Identifies a reservation: `R1`, `R2`, … in the order they were enqueued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ReservationId(pub(crate) u64);

impl ReservationId {
    /// The id numbered `number` (`R1` for 1); `None` for 0.
    pub fn from_number(number: u64) -> Option<ReservationId> {
        (number > 0).then_some(ReservationId(number))
    }

    /// The id's number (1 for `R1`).
    pub fn number(self) -> u64 {
        self.0
    }

    /// Parses `R<n>`, n ≥ 1 without leading zeros.
    pub fn parse(text: &str) -> Option<ReservationId> {
        let digits = text.strip_prefix('R')?;
        let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
        if !plain || digits.starts_with('0') || digits.len() > 18 {
            return None;
        }
        digits.parse().ok().map(ReservationId)
    }
}

impl fmt::Display for ReservationId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "R{}", self.0)
    }
}

impl Serialize for ReservationId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ReservationId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        ReservationId::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format_args!(
                "reservation ids look like R1, R2, …; found \"{text}\""
            ))
        })
    }
}

/// Where a reservation is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReservationState {
    /// Waiting in its queue.
    Queued,
    /// Holds its project's lane; the work is running.
    Dispatched,
    /// The work returned; its final state is being saved and the lane is still held.
    Persisting,
    /// Saved and released with its outcome.
    Done,
    /// Cancelled before it was dispatched.
    Cancelled,
    /// Released with `needs_review`: its project takes no automatic dispatch until resolved.
    Unresolved,
    /// A person resolved the `needs_review` result; the project is available again.
    Resolved,
}

impl ReservationState {
    /// `"queued"`, `"dispatched"`, …, as saved in records.
    pub const fn as_str(self) -> &'static str {
        match self {
            ReservationState::Queued => "queued",
            ReservationState::Dispatched => "dispatched",
            ReservationState::Persisting => "persisting",
            ReservationState::Done => "done",
            ReservationState::Cancelled => "cancelled",
            ReservationState::Unresolved => "unresolved",
            ReservationState::Resolved => "resolved",
        }
    }

    /// Whether a reservation in this state holds its project's lane (dispatched or persisting).
    pub const fn holds_lane(self) -> bool {
        matches!(
            self,
            ReservationState::Dispatched | ReservationState::Persisting
        )
    }

    /// Every state, in life order.
    pub const ALL: [ReservationState; 7] = [
        ReservationState::Queued,
        ReservationState::Dispatched,
        ReservationState::Persisting,
        ReservationState::Done,
        ReservationState::Cancelled,
        ReservationState::Unresolved,
        ReservationState::Resolved,
    ];
}

/// Why a dispatcher operation was refused. Lane refusals keep their lane codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DispatchError {
    /// A lane refusal (`INVALID_LABEL`, `INVALID_OUTCOME`, …).
    Lane(LaneError),
    /// `UNKNOWN_QUEUE`: no queue has this name.
    UnknownQueue,
    /// `UNKNOWN_RESERVATION`: no reservation has this id.
    UnknownReservation,
    /// `NOT_QUEUED`: only a queued reservation can be cancelled (a cancel that lost the race
    /// against its dispatch gets this).
    NotQueued,
    /// `NOT_DISPATCHED`: only a dispatched reservation can finish.
    NotDispatched,
    /// `NOT_PERSISTING`: only a reservation whose final state is being saved can complete it;
    /// a second or late completion gets this and changes nothing.
    NotPersisting,
    /// `NOT_UNRESOLVED`: only an unresolved reservation can be resolved.
    NotUnresolved,
}

impl DispatchError {
    /// The dispatcher's own codes (lane codes come from [`LaneError::ALL`]).
    pub const OWN: [DispatchError; 6] = [
        DispatchError::UnknownQueue,
        DispatchError::UnknownReservation,
        DispatchError::NotQueued,
        DispatchError::NotDispatched,
        DispatchError::NotPersisting,
        DispatchError::NotUnresolved,
    ];

    /// The stable code, e.g. `"NOT_QUEUED"` or a lane code.
    pub const fn code(self) -> &'static str {
        match self {
            DispatchError::Lane(e) => e.code(),
            DispatchError::UnknownQueue => "UNKNOWN_QUEUE",
            DispatchError::UnknownReservation => "UNKNOWN_RESERVATION",
            DispatchError::NotQueued => "NOT_QUEUED",
            DispatchError::NotDispatched => "NOT_DISPATCHED",
            DispatchError::NotPersisting => "NOT_PERSISTING",
            DispatchError::NotUnresolved => "NOT_UNRESOLVED",
        }
    }

    /// The error with this code (lane codes included).
    pub fn from_code(code: &str) -> Option<DispatchError> {
        LaneError::from_code(code)
            .map(DispatchError::Lane)
            .or_else(|| DispatchError::OWN.into_iter().find(|e| e.code() == code))
    }

    fn message(self) -> &'static str {
        match self {
            DispatchError::Lane(_) => "",
            DispatchError::UnknownQueue => "no queue has this name",
            DispatchError::UnknownReservation => "no reservation has this id",
            DispatchError::NotQueued => "only a queued reservation can be cancelled",
            DispatchError::NotDispatched => "only a dispatched reservation can finish",
            DispatchError::NotPersisting => {
                "only a reservation whose final state is being saved can complete"
            }
            DispatchError::NotUnresolved => "only an unresolved reservation can be resolved",
        }
    }
}

impl From<LaneError> for DispatchError {
    fn from(e: LaneError) -> Self {
        DispatchError::Lane(e)
    }
}

impl fmt::Display for DispatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DispatchError::Lane(e) => fmt::Display::fmt(e, f),
            other => write!(f, "{}: {}", other.code(), other.message()),
        }
    }
}

impl std::error::Error for DispatchError {}

impl Serialize for DispatchError {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.code())
    }
}

impl<'de> Deserialize<'de> for DispatchError {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let code = String::deserialize(deserializer)?;
        DispatchError::from_code(&code)
            .ok_or_else(|| serde::de::Error::custom(format_args!("unknown error code \"{code}\"")))
    }
}

/// What [`Dispatcher::dispatch`](crate::dispatch::Dispatcher::dispatch) hands to a worker: run `run` in `project`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Job {
    /// The reservation now holding the lane.
    pub reservation: ReservationId,
    /// Its project.
    pub project: Label,
    /// Its run label.
    pub run: Label,
}

/// The final state to save after [`Dispatcher::finish`](crate::dispatch::Dispatcher::finish): who ran what, and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FinalState {
    /// The reservation.
    pub reservation: ReservationId,
    /// Its project (still held while this is saved).
    pub project: Label,
    /// Its run label.
    pub run: Label,
    /// The outcome the work reported.
    pub outcome: Outcome,
}

/// What [`Dispatcher::persisted`](crate::dispatch::Dispatcher::persisted) returns: the reservation's end state and the lane's receipt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settled {
    /// The reservation.
    pub reservation: ReservationId,
    /// `done` or `unresolved`.
    pub state: ReservationState,
    /// The lane's receipt (its outcome is `needs_review` if the save failed).
    pub receipt: Receipt,
}

/// An owned snapshot of one reservation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReservationView {
    /// Its id.
    pub id: ReservationId,
    /// Its queue.
    pub queue: Label,
    /// Its project.
    pub project: Label,
    /// Its run label.
    pub run: Label,
    /// Where it is.
    pub state: ReservationState,
    /// The outcome, once the work has returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}
