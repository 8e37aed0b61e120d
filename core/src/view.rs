//! Owned snapshots handed out by the lanes: views and receipts.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::label::Quoted;
use crate::{Label, Outcome, is_valid_label};

/// What an occupied lane is doing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LaneState {
    /// The lease holder is running and nobody asked it to stop.
    Running,
    /// Someone asked the run to stop; the lane stays occupied until the lease is released.
    StopRequested,
}

impl LaneState {
    /// `"running"` or `"stop_requested"`, as saved in records.
    pub const fn as_str(self) -> &'static str {
        match self {
            LaneState::Running => "running",
            LaneState::StopRequested => "stop_requested",
        }
    }
}

/// An owned copy of one project's lane. Changing it changes nothing inside the lanes.
///
/// Serialized as `{"project","busy"}` when the lane is idle and `{"project","busy","run","state"}`
/// when it is occupied. Reading back checks that the fields agree with `busy`.
///
/// ```
/// use project_lanes::LaneView;
/// let idle = LaneView::idle("docs");
/// assert_eq!(serde_json::to_string(&idle).unwrap(), r#"{"project":"docs","busy":false}"#);
/// let bad = serde_json::from_str::<LaneView>(r#"{"project":"docs","busy":true}"#);
/// assert!(bad.is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawLaneView")]
pub struct LaneView {
    /// The project this lane belongs to.
    pub project: Arc<str>,
    /// Whether a lease holds the lane.
    pub busy: bool,
    /// The run label of the lease holder (never its token); `None` when idle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<Arc<str>>,
    /// What the holder is doing; `None` when idle.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<LaneState>,
}

impl LaneView {
    /// The view of an idle lane.
    pub fn idle(project: &str) -> LaneView {
        LaneView {
            project: project.into(),
            busy: false,
            run: None,
            state: None,
        }
    }

    /// The view of a lane held by `run`.
    pub fn held(project: &str, run: &str, state: LaneState) -> LaneView {
        LaneView {
            project: project.into(),
            busy: true,
            run: Some(run.into()),
            state: Some(state),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLaneView {
    project: String,
    busy: bool,
    #[serde(default)]
    run: Option<String>,
    #[serde(default)]
    state: Option<LaneState>,
}

impl TryFrom<RawLaneView> for LaneView {
    type Error = String;

    fn try_from(raw: RawLaneView) -> Result<Self, Self::Error> {
        if !is_valid_label(&raw.project) {
            return Err(format!(
                "view project {} breaks the label rule",
                Quoted(&raw.project)
            ));
        }
        if let Some(run) = &raw.run
            && !is_valid_label(run)
        {
            return Err(format!("view run {} breaks the label rule", Quoted(run)));
        }
        match (raw.busy, &raw.run, &raw.state) {
            (true, Some(_), Some(_)) | (false, None, None) => Ok(LaneView {
                project: raw.project.into(),
                busy: raw.busy,
                run: raw.run.map(Arc::from),
                state: raw.state,
            }),
            (true, _, _) => Err(format!(
                "busy view of {} needs both `run` and `state`",
                Quoted(&raw.project)
            )),
            (false, _, _) => Err(format!(
                "idle view of {} must not have `run` or `state`",
                Quoted(&raw.project)
            )),
        }
    }
}

/// What a release hands back: the lease's metadata and the outcome the caller supplied.
///
/// A receipt records that a lane was freed; it does not certify the outcome, and
/// `work_executed_here` is always `false` because the lanes execute nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    /// The project whose lane was released.
    pub project: Label,
    /// The run label of the released lease.
    pub run: Label,
    /// The outcome the caller supplied.
    pub outcome: Outcome,
    /// Whether a stop had been requested before the release (even if the run then succeeded).
    pub stop_requested: bool,
    /// Always `false`: the lanes hold metadata, they run no work.
    pub work_executed_here: bool,
}
