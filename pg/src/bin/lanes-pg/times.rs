//! Times on the command line: RFC 3339 (`2026-11-30T10:00:00Z`, `2026-11-30T11:00:00+01:00`) or
//! a span before now (`90s`, `15m`, `1h`, `2d`, `1h30m`).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use project_lanes::record::Timestamp;

/// `text` as a time, spans counted back from `now`.
pub fn parse_at(text: &str, now: SystemTime) -> Result<Timestamp, String> {
    let explain = || {
        format!(
            "{text:?} is neither a time in RFC 3339 (2026-11-30T10:00:00Z, \
             2026-11-30T11:00:00.250+01:00) nor a span before now (90s, 15m, 1h, 2d, 1h30m)"
        )
    };
    let at = if let Ok(at) = text.parse::<jiff::Timestamp>() {
        u64::try_from(at.as_millisecond()).map_err(|_| format!("{text:?} is before 1970"))?
    } else {
        let span = text
            .parse::<jiff::SignedDuration>()
            .map_err(|_| explain())?;
        if span.is_negative() || span.is_zero() && !text.starts_with('0') {
            return Err(explain());
        }
        let span = Duration::try_from(span).map_err(|_| explain())?;
        let now = now
            .duration_since(UNIX_EPOCH)
            .map_err(|_| "the system clock is before 1970".to_owned())?;
        let at = now
            .checked_sub(span)
            .ok_or_else(|| format!("{text:?} before now is before 1970"))?;
        u64::try_from(at.as_millis()).map_err(|_| explain())?
    };
    Timestamp::from_millis(at).map_err(|e| e.to_string())
}

/// [`parse_at`] from the system clock, for clap.
pub fn parse(text: &str) -> Result<Timestamp, String> {
    parse_at(text, SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(1_796_032_800_000) // 2026-12-01T10:00:00Z
    }

    #[test]
    fn rfc_3339_times_are_read_with_or_without_milliseconds_and_offsets() {
        let at = |t: &str| parse_at(t, now()).map(|t| t.to_string());
        assert_eq!(
            at("2026-11-30T10:00:00Z").unwrap(),
            "2026-11-30T10:00:00.000Z"
        );
        assert_eq!(
            at("2026-11-30T11:00:00.250+01:00").unwrap(),
            "2026-11-30T10:00:00.250Z"
        );
    }

    #[test]
    fn spans_count_back_from_now() {
        let at = |t: &str| parse_at(t, now()).map(|t| t.to_string());
        assert_eq!(at("1h").unwrap(), "2026-12-01T09:00:00.000Z");
        assert_eq!(at("90s").unwrap(), "2026-12-01T09:58:30.000Z");
        assert_eq!(at("2d").unwrap(), "2026-11-29T10:00:00.000Z");
        assert_eq!(at("1h30m").unwrap(), "2026-12-01T08:30:00.000Z");
    }

    #[test]
    fn anything_else_is_refused_with_both_forms_named() {
        for bad in ["", "yesterday", "-1h", "2026-11-30", "1x", "1000000000d"] {
            let e = parse_at(bad, now()).unwrap_err();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
        }
    }
}
