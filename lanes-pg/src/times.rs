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
    if text.starts_with("--") {
        return Err(format!(
            "{text:?} is an option, not a time: give the time right after the option asking \
             for it"
        ));
    }
    if let Some(unsigned) = text.strip_prefix('-')
        && span(unsigned).is_some()
    {
        return Err(format!(
            "{text:?}: a span already counts back from now; write it without the minus (1h, 2d)"
        ));
    }
    let at = if let Some(millis) = rfc3339_millis(text) {
        u64::try_from(millis).map_err(|_| format!("{text:?} is before 1970"))?
    } else {
        let span = span(text).ok_or_else(explain)?;
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

/// `text` in RFC 3339 as milliseconds since 1970 (negative before), read by its pieces: a
/// `jiff::Timestamp` stops a day short of the record format's last millisecond
/// (9999-12-31T23:59:59.999Z).
fn rfc3339_millis(text: &str) -> Option<i128> {
    use jiff::fmt::temporal::{Pieces, PiecesOffset};
    let pieces = Pieces::parse(text).ok()?;
    let offset = match pieces.offset()? {
        PiecesOffset::Zulu => 0,
        PiecesOffset::Numeric(numeric) => numeric.offset().seconds(),
        _ => return None,
    };
    let local = pieces.date().to_datetime(pieces.time()?);
    let epoch = jiff::civil::date(1970, 1, 1).to_datetime(jiff::civil::Time::midnight());
    Some(local.duration_since(epoch).as_millis() - i128::from(offset) * 1000)
}

/// A span such as `90s`, `15m`, `1h30m`, `2d`, `1w`: numbers each with a unit (`ms`, `s`, `m`,
/// `h`, `d` of 24 hours, `w` of 7 days). Months and years are not spans: their length depends
/// on where they fall.
fn span(text: &str) -> Option<Duration> {
    let mut total: u64 = 0;
    let mut rest = text;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let number: u64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit = rest
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(rest.len());
        let millis: u64 = match &rest[..unit] {
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            "d" => 86_400_000,
            "w" => 604_800_000,
            _ => return None,
        };
        total = total.checked_add(number.checked_mul(millis)?)?;
        rest = &rest[unit..];
    }
    Some(Duration::from_millis(total))
}

/// [`parse_at`] from the system clock, for clap.
pub fn parse(text: &str) -> Result<Timestamp, String> {
    parse_at(text, SystemTime::now())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> SystemTime {
        UNIX_EPOCH + Duration::from_millis(1_796_032_800_000) // 2026-11-30T10:00:00Z
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
    fn the_record_formats_last_day_is_read_in_every_spelling() {
        for (text, read) in [
            ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
            ("9999-12-31T23:59:59.999000Z", "9999-12-31T23:59:59.999Z"),
            ("9999-12-31T23:59:59.999+00:00", "9999-12-31T23:59:59.999Z"),
            ("9999-12-31T23:59:59Z", "9999-12-31T23:59:59.000Z"),
            ("9999-12-30T22:00:01Z", "9999-12-30T22:00:01.000Z"),
            ("1970-01-01T01:00:00+01:00", "1970-01-01T00:00:00.000Z"),
        ] {
            assert_eq!(parse_at(text, now()).unwrap().to_string(), read, "{text}");
        }
        let e = parse_at("1969-12-31T23:59:59Z", now()).unwrap_err();
        assert!(e.contains("is before 1970"), "{e}");
        let e = parse_at("-2026-01-01T00:00:00Z", now()).unwrap_err();
        assert!(e.contains("is neither a time in RFC 3339"), "{e}");
    }

    #[test]
    fn a_span_with_a_minus_is_refused_with_the_way_to_write_it() {
        let e = parse_at("-1h", now()).unwrap_err();
        assert!(e.contains("write it without the minus"), "{e}");
        let e = parse_at("--json", now()).unwrap_err();
        assert!(e.contains("\"--json\" is an option, not a time"), "{e}");
    }

    #[test]
    fn spans_count_back_from_now() {
        let at = |t: &str| parse_at(t, now()).map(|t| t.to_string());
        assert_eq!(at("1h").unwrap(), "2026-11-30T09:00:00.000Z");
        assert_eq!(at("90s").unwrap(), "2026-11-30T09:58:30.000Z");
        assert_eq!(at("2d").unwrap(), "2026-11-28T10:00:00.000Z");
        assert_eq!(at("1h30m").unwrap(), "2026-11-30T08:30:00.000Z");
    }

    #[test]
    fn anything_else_is_refused_with_both_forms_named() {
        for bad in [
            "",
            "yesterday",
            "-1h",
            "2026-11-30",
            "1x",
            "1000000000d",
            "1mo",
        ] {
            let e = parse_at(bad, now()).unwrap_err();
            assert!(e.contains(&format!("{bad:?}")), "{e}");
        }
    }
}
