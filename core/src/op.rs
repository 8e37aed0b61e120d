//! The operations of lanes and the dispatcher, as records and journals name them, and the
//! limits on what they are given.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Longest operation input string, in characters (inputs may break the label rule on purpose).
pub const MAX_INPUT_CHARS: usize = 200;
/// Longest `actor` or `origin.system`, in characters.
pub const MAX_NAME_CHARS: usize = 200;

/// The operations a record can hold: the lanes' own, or the dispatcher's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Op {
    /// [`ProjectLanes::claim`](crate::ProjectLanes::claim): input `project`, `run`.
    Claim,
    /// [`ProjectLanes::request_stop`](crate::ProjectLanes::request_stop): input `lease`.
    RequestStop,
    /// [`ProjectLanes::release`](crate::ProjectLanes::release): input `lease`, `outcome`.
    Release,
    /// [`ProjectLanes::view`](crate::ProjectLanes::view): input `project`.
    View,
    /// [`Dispatcher::enqueue`](crate::dispatch::Dispatcher::enqueue): input `queue`, `project`, `run`.
    Enqueue,
    /// [`Dispatcher::dispatch`](crate::dispatch::Dispatcher::dispatch): input `queue`.
    Dispatch,
    /// [`Dispatcher::finish`](crate::dispatch::Dispatcher::finish): input `reservation`, `outcome`.
    Finish,
    /// [`Dispatcher::persisted`](crate::dispatch::Dispatcher::persisted): input `reservation`, `saved`.
    Persist,
    /// [`Dispatcher::cancel`](crate::dispatch::Dispatcher::cancel): input `reservation`.
    Cancel,
    /// [`Dispatcher::resolve`](crate::dispatch::Dispatcher::resolve): input `reservation`.
    Resolve,
}

impl Op {
    /// Every operation, in a fixed order.
    pub const ALL: [Op; 10] = [
        Op::Claim,
        Op::RequestStop,
        Op::Release,
        Op::View,
        Op::Enqueue,
        Op::Dispatch,
        Op::Finish,
        Op::Persist,
        Op::Cancel,
        Op::Resolve,
    ];

    /// The name saved in `op`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Op::Claim => "claim",
            Op::RequestStop => "request_stop",
            Op::Release => "release",
            Op::View => "view",
            Op::Enqueue => "enqueue",
            Op::Dispatch => "dispatch",
            Op::Finish => "finish",
            Op::Persist => "persist",
            Op::Cancel => "cancel",
            Op::Resolve => "resolve",
        }
    }

    /// The input fields this operation takes, in order.
    pub const fn fields(self) -> &'static [Field] {
        match self {
            Op::Claim => &[Field::Project, Field::Run],
            Op::RequestStop => &[Field::Lease],
            Op::Release => &[Field::Lease, Field::Outcome],
            Op::View => &[Field::Project],
            Op::Enqueue => &[Field::Queue, Field::Project, Field::Run],
            Op::Dispatch => &[Field::Queue],
            Op::Finish => &[Field::Reservation, Field::Outcome],
            Op::Persist => &[Field::Reservation, Field::Saved],
            Op::Cancel | Op::Resolve => &[Field::Reservation],
        }
    }

    /// Which records may hold this operation: `Some(true)` dispatcher records only,
    /// `Some(false)` lane records only, `None` both (`view`).
    pub const fn dispatcher_only(self) -> Option<bool> {
        match self {
            Op::View => None,
            Op::Claim | Op::RequestStop | Op::Release => Some(false),
            _ => Some(true),
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An input field of a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// `project`: a project label (may break the rule, to show `INVALID_LABEL`).
    Project,
    /// `run`: a run label (may break the rule, to show `INVALID_LABEL`).
    Run,
    /// `lease`: the handle of a lease issued by an earlier step, e.g. `L1`.
    Lease,
    /// `outcome`: the text given to release or finish (may be no outcome at all, to show
    /// `INVALID_OUTCOME`).
    Outcome,
    /// `queue`: a dispatcher queue name.
    Queue,
    /// `reservation`: the id of a reservation enqueued by an earlier step, e.g. `R1`.
    Reservation,
    /// `saved`: whether saving the final state succeeded (a boolean).
    Saved,
}

impl Field {
    /// Every field, in a fixed order.
    pub const ALL: [Field; 7] = [
        Field::Project,
        Field::Run,
        Field::Lease,
        Field::Outcome,
        Field::Queue,
        Field::Reservation,
        Field::Saved,
    ];

    /// The field's name in `input`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Field::Project => "project",
            Field::Run => "run",
            Field::Lease => "lease",
            Field::Outcome => "outcome",
            Field::Queue => "queue",
            Field::Reservation => "reservation",
            Field::Saved => "saved",
        }
    }
}

/// What a `dispatch` step returns when every waiting item is retained.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Nothing {
    /// How many reservations wait in that queue, behind busy or blocked projects.
    pub retained: u64,
}
