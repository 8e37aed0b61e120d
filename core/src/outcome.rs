//! Outcomes a run is released with.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::LaneError;

/// How the caller says a run ended when it releases the lane.
///
/// The lanes record the outcome; they do not certify it. `NeedsReview` marks a result nobody can
/// vouch for: an empty lane is not permission to repeat the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The run finished its work.
    Succeeded,
    /// The run failed.
    Failed,
    /// The run was stopped before it finished.
    Cancelled,
    /// Nobody knows for sure how the run ended; a person must look.
    NeedsReview,
}

impl Outcome {
    /// Every outcome, in a fixed order.
    pub const ALL: [Outcome; 4] = [
        Outcome::Succeeded,
        Outcome::Failed,
        Outcome::Cancelled,
        Outcome::NeedsReview,
    ];

    /// The outcome's name as saved in receipts: `"succeeded"`, `"failed"`, `"cancelled"`,
    /// `"needs_review"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Outcome::Succeeded => "succeeded",
            Outcome::Failed => "failed",
            Outcome::Cancelled => "cancelled",
            Outcome::NeedsReview => "needs_review",
        }
    }
}

impl FromStr for Outcome {
    type Err = LaneError;

    /// Parses the exact name; anything else is [`LaneError::InvalidOutcome`].
    ///
    /// ```
    /// use project_lanes::{LaneError, Outcome};
    /// assert_eq!("needs_review".parse(), Ok(Outcome::NeedsReview));
    /// assert_eq!("Succeeded".parse::<Outcome>(), Err(LaneError::InvalidOutcome));
    /// ```
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Outcome::ALL
            .into_iter()
            .find(|o| o.as_str() == s)
            .ok_or(LaneError::InvalidOutcome)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
