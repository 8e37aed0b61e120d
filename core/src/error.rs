//! The one error vocabulary shared by the core, the records and the viewer.

use std::fmt;

use serde::{Deserialize, Serialize};

/// Why a lane operation was refused.
///
/// Every variant has a stable code ([`LaneError::code`]) that records and the viewer use verbatim.
/// A refused operation never changes any lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum LaneError {
    /// A project or run label breaks the rule `[A-Za-z0-9][A-Za-z0-9._-]{0,79}`.
    #[serde(rename = "INVALID_LABEL")]
    InvalidLabel,
    /// The project's lane is occupied by another lease; nothing is queued or replayed.
    #[serde(rename = "PROJECT_BUSY")]
    ProjectBusy,
    /// The value presented as a lease was never issued by any lanes manager.
    ///
    /// Safe Rust cannot build such a [`Lease`](crate::Lease) (it has no public constructor), so
    /// the core never returns this code itself; it belongs to the shared vocabulary for records
    /// and for bindings that hand leases across a language boundary.
    #[serde(rename = "INVALID_LEASE")]
    InvalidLease,
    /// The lease is not the one currently holding its project's lane: it was released already,
    /// a newer run claimed the project since, or it comes from another `ProjectLanes`.
    #[serde(rename = "LEASE_NOT_CURRENT")]
    LeaseNotCurrent,
    /// The outcome is not one of `succeeded`, `failed`, `cancelled`, `needs_review`.
    #[serde(rename = "INVALID_OUTCOME")]
    InvalidOutcome,
}

impl LaneError {
    /// Every error, in a fixed order (the order of the variants).
    pub const ALL: [LaneError; 5] = [
        LaneError::InvalidLabel,
        LaneError::ProjectBusy,
        LaneError::InvalidLease,
        LaneError::LeaseNotCurrent,
        LaneError::InvalidOutcome,
    ];

    /// The stable code, e.g. `"PROJECT_BUSY"`.
    ///
    /// ```
    /// assert_eq!(project_lanes::LaneError::LeaseNotCurrent.code(), "LEASE_NOT_CURRENT");
    /// ```
    pub const fn code(self) -> &'static str {
        match self {
            LaneError::InvalidLabel => "INVALID_LABEL",
            LaneError::ProjectBusy => "PROJECT_BUSY",
            LaneError::InvalidLease => "INVALID_LEASE",
            LaneError::LeaseNotCurrent => "LEASE_NOT_CURRENT",
            LaneError::InvalidOutcome => "INVALID_OUTCOME",
        }
    }

    /// The error with this code, if any.
    ///
    /// ```
    /// use project_lanes::LaneError;
    /// assert_eq!(LaneError::from_code("PROJECT_BUSY"), Some(LaneError::ProjectBusy));
    /// assert_eq!(LaneError::from_code("project_busy"), None);
    /// ```
    pub fn from_code(code: &str) -> Option<LaneError> {
        LaneError::ALL.into_iter().find(|e| e.code() == code)
    }

    fn message(self) -> &'static str {
        match self {
            LaneError::InvalidLabel => {
                "labels must match [A-Za-z0-9][A-Za-z0-9._-]{0,79} (ASCII, 1 to 80 characters)"
            }
            LaneError::ProjectBusy => "the project's lane is held by another run",
            LaneError::InvalidLease => "the value is not a lease issued by project lanes",
            LaneError::LeaseNotCurrent => "the lease does not hold its project's lane now",
            LaneError::InvalidOutcome => {
                "the outcome must be succeeded, failed, cancelled or needs_review"
            }
        }
    }
}

impl fmt::Display for LaneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())
    }
}

impl std::error::Error for LaneError {}
