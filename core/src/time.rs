//! Times in records: UTC, RFC 3339 with milliseconds, one spelling only.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::label::Quoted;

/// A moment in UTC, to the millisecond, from 1970-01-01T00:00:00.000Z to
/// 9999-12-31T23:59:59.999Z.
///
/// Records write it in one spelling of RFC 3339: `YYYY-MM-DDTHH:MM:SS.mmmZ` (capital `T` and
/// `Z`, exactly three digits of milliseconds), so that equal times are equal text and a reader in
/// any language parses it with its standard date functions. Reading refuses every other
/// spelling, and dates that do not exist.
///
/// ```
/// use project_lanes::record::Timestamp;
///
/// let t: Timestamp = "2026-05-01T03:12:45.123Z".parse()?;
/// assert_eq!(t.millis(), 1_777_605_165_123);
/// assert_eq!(t.to_string(), "2026-05-01T03:12:45.123Z");
/// assert_eq!(Timestamp::from_millis(0)?.to_string(), "1970-01-01T00:00:00.000Z");
/// assert!("2026-05-01T03:12:45Z".parse::<Timestamp>().is_err()); // no milliseconds
/// assert!("2026-02-29T00:00:00.000Z".parse::<Timestamp>().is_err()); // not a leap year
/// # Ok::<(), project_lanes::record::TimestampError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(Millis);

/// Milliseconds since 1970 plus one: never zero, so an `Option<Timestamp>` (a step's time) is
/// eight bytes, not sixteen. The order is the times'.
type Millis = std::num::NonZeroU64;

impl Timestamp {
    /// The moment `millis` milliseconds after 1970 (checked to be before [`END`]).
    fn at(millis: u64) -> Timestamp {
        Timestamp(Millis::MIN.saturating_add(millis))
    }
}

/// Milliseconds from 1970-01-01T00:00:00.000Z to 10000-01-01T00:00:00.000Z.
const END: u64 = 253_402_300_800_000;
const MILLIS_PER_DAY: u64 = 86_400_000;

/// Why a text or a number is not a [`Timestamp`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimestampError(String);

impl fmt::Display for TimestampError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for TimestampError {}

impl Timestamp {
    /// The moment `millis` milliseconds after 1970-01-01T00:00:00.000Z; refused beyond the year
    /// 9999.
    pub fn from_millis(millis: u64) -> Result<Timestamp, TimestampError> {
        if millis < END {
            Ok(Timestamp::at(millis))
        } else {
            Err(TimestampError(format!(
                "{millis} milliseconds after 1970 is beyond the year 9999"
            )))
        }
    }

    /// Milliseconds since 1970-01-01T00:00:00.000Z (what JavaScript's `Date` takes).
    pub fn millis(self) -> u64 {
        self.0.get() - 1
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let millis = self.millis();
        let (days, ms) = (millis / MILLIS_PER_DAY, millis % MILLIS_PER_DAY);
        let (year, month, day) = civil_from_days(days);
        let (h, m, s, milli) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000);
        write!(
            f,
            "{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z"
        )
    }
}

impl std::str::FromStr for Timestamp {
    type Err = TimestampError;

    fn from_str(text: &str) -> Result<Timestamp, TimestampError> {
        let refuse = || {
            TimestampError(format!(
                "{} is not a time in UTC like 2026-05-01T03:12:45.123Z \
                 (RFC 3339, milliseconds, Z)",
                Quoted(text)
            ))
        };
        let b = text.as_bytes();
        let shape = b"dddd-dd-ddTdd:dd:dd.dddZ";
        if b.len() != shape.len()
            || !b.iter().zip(shape).all(|(c, s)| match s {
                b'd' => c.is_ascii_digit(),
                s => c == s,
            })
        {
            return Err(refuse());
        }
        let num = |range: std::ops::Range<usize>| {
            b[range]
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'))
        };
        let (year, month, day) = (num(0..4), num(5..7), num(8..10));
        let (h, m, s, milli) = (num(11..13), num(14..16), num(17..19), num(20..23));
        if year < 1970
            || !(1..=12).contains(&month)
            || day == 0
            || day > days_in_month(year, month)
            || h > 23
            || m > 59
            || s > 59
        {
            return Err(refuse());
        }
        let days = days_from_civil(year, month, day);
        Ok(Timestamp::at(
            days * MILLIS_PER_DAY + h * 3_600_000 + m * 60_000 + s * 1000 + milli,
        ))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

fn is_leap(year: u64) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

fn days_in_month(year: u64, month: u64) -> u64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a date from 1970 on (H. Hinnant's `days_from_civil`, for
/// non-negative results only).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month, day) `days` after 1970-01-01 (H. Hinnant's `civil_from_days`), for
/// whoever writes a timestamp's date in another zone.
///
/// ```
/// assert_eq!(project_lanes::record::civil_from_days(20_422), (2025, 11, 30));
/// ```
pub fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_day_from_1970_to_9999_reads_back_as_written() {
        let mut days = 0;
        for year in 1970..=9999 {
            for month in 1..=12 {
                for day in 1..=days_in_month(year, month) {
                    assert_eq!(days_from_civil(year, month, day), days);
                    assert_eq!(civil_from_days(days), (year, month, day));
                    days += 1;
                }
            }
        }
        assert_eq!(days * MILLIS_PER_DAY, END);
    }

    #[test]
    fn the_last_millisecond_of_9999_is_the_last_timestamp() {
        let last = Timestamp::from_millis(END - 1).unwrap();
        assert_eq!(last.to_string(), "9999-12-31T23:59:59.999Z");
        assert_eq!("9999-12-31T23:59:59.999Z".parse(), Ok(last));
        assert!(Timestamp::from_millis(END).is_err());
    }

    #[test]
    fn other_spellings_and_impossible_dates_are_refused() {
        for text in [
            "2026-05-01T03:12:45.123+00:00",
            "2026-05-01t03:12:45.123Z",
            "2026-05-01T03:12:45.123z",
            "2026-05-01 03:12:45.123Z",
            "2026-05-01T03:12:45.12Z",
            "2026-05-01T03:12:45.1234Z",
            "2026-5-01T03:12:45.123Z",
            "1969-12-31T23:59:59.999Z",
            "2026-13-01T00:00:00.000Z",
            "2026-00-01T00:00:00.000Z",
            "2026-04-31T00:00:00.000Z",
            "2100-02-29T00:00:00.000Z",
            "2026-05-01T24:00:00.000Z",
            "2026-05-01T23:60:00.000Z",
            "2026-05-01T23:59:60.000Z",
            "２０２６-05-01T03:12:45.123Z",
            "",
        ] {
            assert!(text.parse::<Timestamp>().is_err(), "{text}");
        }
        assert!("2000-02-29T12:00:00.000Z".parse::<Timestamp>().is_ok());
    }
}
