//! Values between the database and the crate: every column read back through `try_get`, every
//! text through the rule it was written by. The database is not trusted to hold only what this
//! crate wrote (a hand edit, a restore, another program): anything else is an error naming the
//! value, never a panic.

use postgres::Row;
use postgres::types::FromSql;
use project_lanes::dispatch::{DispatchError, ReservationId, ReservationState, ReservationView};
use project_lanes::{Label, LaneError, LaneState, LaneView, Outcome};

use crate::PgError;

/// Column `i` of `row` (`what` names it in the error).
pub(crate) fn column<'a, T: FromSql<'a>>(row: &'a Row, i: usize, what: &str) -> Result<T, PgError> {
    row.try_get(i).map_err(|e| {
        let cause = std::error::Error::source(&e).map_or_else(String::new, |c| format!(": {c}"));
        PgError::Config(format!("the database holds an unexpected {what}{cause}"))
    })
}

/// A label read back from the database (written only after the same check).
pub(crate) fn label(text: &str) -> Result<Label, PgError> {
    Label::new(text).map_err(|_| {
        PgError::Config(format!(
            "the database holds {text:?}, which breaks the label rule"
        ))
    })
}

/// The label in column `i`.
pub(crate) fn label_at(row: &Row, i: usize, what: &str) -> Result<Label, PgError> {
    label(column(row, i, what)?)
}

/// A fencing generation (never negative).
pub(crate) fn generation(row: &Row, i: usize) -> Result<u64, PgError> {
    let n: i64 = column(row, i, "generation")?;
    u64::try_from(n).map_err(|_| PgError::Config(format!("the database holds generation {n}")))
}

/// The id `R<n>` of the database's reservation `n`.
pub(crate) fn reservation_id(n: i64) -> Result<ReservationId, PgError> {
    u64::try_from(n)
        .ok()
        .and_then(|n| ReservationId::parse(&format!("R{n}")))
        .ok_or_else(|| PgError::Config(format!("reservation id {n} is out of range")))
}

/// The reservation id in column `i`.
pub(crate) fn reservation_id_at(row: &Row, i: usize) -> Result<ReservationId, PgError> {
    reservation_id(column(row, i, "reservation id")?)
}

/// An id as the database stores it; ids beyond `i64` match nothing.
pub(crate) fn number(id: ReservationId) -> i64 {
    i64::try_from(id.number()).unwrap_or(-1)
}

/// The result code of a database function: `OK`, or a refusal with the core's code.
pub(crate) fn refusal(row: &Row, i: usize) -> Result<(), PgError> {
    match column::<&str>(row, i, "result code")? {
        "OK" => Ok(()),
        code => Err(DispatchError::from_code(code)
            .map(PgError::Refused)
            .unwrap_or_else(|| PgError::Config(format!("unknown result code {code:?}")))),
    }
}

/// The reservation state in column `i`.
pub(crate) fn state(row: &Row, i: usize) -> Result<ReservationState, PgError> {
    let text: &str = column(row, i, "reservation state")?;
    ReservationState::ALL
        .into_iter()
        .find(|s| s.as_str() == text)
        .ok_or_else(|| PgError::Config(format!("unknown reservation state {text:?}")))
}

/// An outcome's text.
pub(crate) fn outcome(text: &str) -> Result<Outcome, PgError> {
    text.parse()
        .map_err(|_: LaneError| PgError::Config(format!("unknown outcome {text:?}")))
}

/// A reservation from `id, queue, project, run, state, outcome`.
pub(crate) fn reservation_view(row: &Row) -> Result<ReservationView, PgError> {
    reservation_view_from(row, 0)
}

/// A reservation from `id, queue, project, run, state, outcome` starting at column `at`.
pub(crate) fn reservation_view_from(row: &Row, at: usize) -> Result<ReservationView, PgError> {
    Ok(ReservationView {
        id: reservation_id_at(row, at)?,
        queue: label_at(row, at + 1, "queue")?,
        project: label_at(row, at + 2, "project")?,
        run: label_at(row, at + 3, "run")?,
        state: state(row, at + 4)?,
        outcome: column::<Option<&str>>(row, at + 5, "outcome")?
            .map(outcome)
            .transpose()?,
    })
}

/// The view of a lane from its row (`run, stop_requested`), or of an idle one without a row.
pub(crate) fn lane_view(project: &str, row: Option<Row>) -> Result<LaneView, PgError> {
    let Some(row) = row else {
        return Ok(LaneView::idle(project));
    };
    let run: Option<Label> = column::<Option<&str>>(&row, 0, "run")?
        .map(label)
        .transpose()?;
    let stop: bool = column(&row, 1, "stop request")?;
    Ok(match run {
        Some(run) if stop => LaneView::held(project, &run, LaneState::StopRequested),
        Some(run) => LaneView::held(project, &run, LaneState::Running),
        None => LaneView::idle(project),
    })
}
