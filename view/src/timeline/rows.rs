//! The rows the timeline draws: all of them up to [`MAX_ROWS`], else [`MAX_ROWS`] at a time
//! from a first row that the reader pages ([`Rows`]) and that moves to show the row of the
//! current step's lane. A record over a thousand projects stays a drawing of a few thousand
//! elements.

use project_lanes::record::{Record, VERSION_3};

use super::model::MAX_RESERVATION_ROWS;

/// The most rows drawn at once.
pub const MAX_ROWS: usize = 30;

/// A request to show other rows: from the buttons `[data-rows=earlier|later]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rows {
    /// The rows above those drawn.
    Earlier,
    /// The rows below those drawn.
    Later,
}

impl Rows {
    /// `earlier` or `later`, as in `data-rows`.
    pub fn as_str(self) -> &'static str {
        match self {
            Rows::Earlier => "earlier",
            Rows::Later => "later",
        }
    }

    /// The request a `data-rows` value names.
    pub fn from_name(name: &str) -> Option<Rows> {
        [Rows::Earlier, Rows::Later]
            .into_iter()
            .find(|r| r.as_str() == name)
    }

    /// The first row drawn after this request, from `first`, of `rows` rows.
    pub fn first(self, first: usize, rows: usize) -> usize {
        let last_first = rows.saturating_sub(MAX_ROWS);
        match self {
            Rows::Earlier => first.saturating_sub(MAX_ROWS),
            Rows::Later => (first + MAX_ROWS).min(last_first),
        }
    }
}

/// The rows drawn from `first`, of `rows` rows: `first..end`.
pub fn drawn(first: usize, rows: usize) -> (usize, usize) {
    let first = first.min(rows.saturating_sub(MAX_ROWS));
    (first, (first + MAX_ROWS).min(rows))
}

/// The first row to draw so that `row` is drawn: `first` if it is, else the page around it.
pub fn following(first: usize, row: usize, rows: usize) -> usize {
    let (from, to) = drawn(first, rows);
    if (from..to).contains(&row) {
        return from;
    }
    drawn(row.saturating_sub(MAX_ROWS / 2), rows).0
}

/// How many rows the timeline of `record` has: its lanes, and in a dispatcher record its
/// reservations (as [`timeline`](super::timeline) makes them), without making them for a
/// version 3 record.
pub fn count(record: &Record) -> usize {
    if record.version != VERSION_3 {
        return super::timeline(record).rows().count();
    }
    let reservations = super::model::sparse_reservations(record);
    record.projects.len()
        + if reservations <= MAX_RESERVATION_ROWS {
            reservations
        } else {
            0
        }
}

/// The row of the lane that step `n` of `record` concerns, if the record says which: its lane
/// in a version 3 record, the project it names in others. Lanes are the first rows, in the
/// record's order of projects.
pub fn row_of(record: &Record, n: usize) -> Option<usize> {
    let step = record.steps.get(n)?;
    let project = if record.version == VERSION_3 {
        step.lanes.first().map(|lane| &*lane.project)
    } else {
        step.input.project.as_deref()
    }?;
    record.projects.iter().position(|p| p == project)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_drawn_thirty_at_a_time_and_follow_a_row() {
        assert_eq!(drawn(0, 10), (0, 10));
        assert_eq!(drawn(5, 10), (0, 10), "every row fits");
        assert_eq!(drawn(0, 1_000), (0, 30));
        assert_eq!(drawn(990, 1_000), (970, 1_000));
        assert_eq!(Rows::Later.first(0, 1_000), 30);
        assert_eq!(Rows::Later.first(960, 1_000), 970);
        assert_eq!(Rows::Earlier.first(20, 1_000), 0);
        assert_eq!(following(0, 29, 1_000), 0);
        assert_eq!(following(0, 500, 1_000), 485);
        assert_eq!(following(485, 999, 1_000), 970);
        assert_eq!(following(485, 3, 1_000), 0);
        for r in [Rows::Earlier, Rows::Later] {
            assert_eq!(Rows::from_name(r.as_str()), Some(r));
        }
    }
}
