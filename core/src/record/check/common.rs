//! Small rules the record checks share: text for readers, and the numbering of handles and ids.

use super::super::error::RecordError;
use crate::op::MAX_NAME_CHARS;

use super::super::format::{MAX_TEXT_CHARS, StepResult, Text};

pub(crate) fn check_text(at: &str, text: &Text) -> Result<(), RecordError> {
    for (lang, value) in [("en", &text.en), ("ja", &text.ja)] {
        let chars = value.chars().count();
        if value.trim().is_empty() || chars > MAX_TEXT_CHARS {
            return Err(RecordError::invalid(
                format!("{at}.{lang}"),
                format!("needs 1 to {MAX_TEXT_CHARS} characters, found {chars}"),
            ));
        }
    }
    Ok(())
}

/// A lease handle's number (1 for `L1`): `L` and 1 to 9 digits without a leading zero.
///
/// ```
/// use project_lanes::record::handle_number;
///
/// assert_eq!(handle_number("L12"), Some(12));
/// assert_eq!(handle_number("L012"), None);
/// assert_eq!(handle_number("R1"), None);
/// ```
pub fn handle_number(handle: &str) -> Option<usize> {
    let digits = handle.strip_prefix('L')?;
    let plain = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    if !plain || digits.starts_with('0') || digits.len() > 9 {
        return None;
    }
    digits.parse().ok()
}

/// How many leases and reservations the starting state and the steps so far have issued.
#[derive(Default)]
pub(super) struct Issued {
    pub(super) leases: usize,
    pub(super) reservations: usize,
}

pub(crate) fn issued_list(prefix: char, issued: usize) -> String {
    match issued {
        0 => "none".into(),
        1 => format!("{prefix}1"),
        n => format!("{prefix}1 to {prefix}{n}"),
    }
}

pub(super) fn result_kind(result: &StepResult) -> &'static str {
    match result {
        StepResult::Lease(_) => "lease",
        StepResult::View(_) => "view",
        StepResult::Receipt(_) => "receipt",
        StepResult::Reservation(_) => "reservation",
        StepResult::Dispatched(_) => "dispatched",
        StepResult::Nothing(_) => "nothing",
        StepResult::Persisting(_) => "persisting",
        StepResult::Settled(_) => "settled",
        StepResult::Error(_) => "error",
    }
}

/// An `actor` or a system's name: 1 to [`MAX_NAME_CHARS`] characters, not only spaces, and no
/// control characters (a name is one line of plain text).
pub(crate) fn check_name(at: &str, name: &str) -> Result<(), RecordError> {
    let chars = name.chars().count();
    if name.trim().is_empty() || chars > MAX_NAME_CHARS {
        return Err(RecordError::invalid(
            at,
            format!("needs 1 to {MAX_NAME_CHARS} characters, found {chars}"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(RecordError::invalid(
            at,
            "holds a control character (a name is one line of plain text)",
        ));
    }
    Ok(())
}
