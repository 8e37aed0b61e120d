//! The timeline's words for its rows and groups, and for where we are when no step is current.

use super::model::{Group, Row, RowKind};
use crate::i18n::{Lang, TlMsg, fill, group, text};

/// A row's label: the project (marked when untouched), or the reservation and its project.
pub(super) fn row_label(lang: Lang, row: &Row) -> String {
    match row.kind {
        RowKind::Lane if row.untouched => fill(text(lang, TlMsg::AltUntouched), &[&row.id]),
        RowKind::Lane => row.id.clone(),
        RowKind::Reservation => format!("{} · {}", row.id, row.project),
    }
}

pub(super) fn group_label(lang: Lang, group: &Group) -> String {
    match group.queue {
        None => text(lang, TlMsg::LanesGroup).to_string(),
        Some(queue) => fill(text(lang, TlMsg::QueueGroup), &[queue]),
    }
}

/// The position text of no step: "12 steps · select a step in the timeline".
pub fn no_position(lang: Lang, steps: usize) -> String {
    let msg = if steps == 1 {
        TlMsg::NoPositionOne
    } else {
        TlMsg::NoPosition
    };
    fill(text(lang, msg), &[&group(steps)])
}
