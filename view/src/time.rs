//! Times in the reader's time zone: a step's `at` (UTC milliseconds) written as local date and
//! time to the millisecond, with the zone's offset, in either language.
//!
//! The zone is a [`Zone`] the caller gives: the page asks the browser (JavaScript's `Date`
//! knows the reader's zone and its daylight saving time); native tests and pages written ahead
//! of time use [`Utc`] or a [`Fixed`] offset. Nothing here reads a clock.

use project_lanes::record::civil_from_days;

use crate::i18n::Lang;

/// A time zone: its offset from UTC at a moment.
pub trait Zone {
    /// Minutes east of UTC at `utc_millis` (Tokyo: 540; New York in winter: −300).
    fn offset_minutes(&self, utc_millis: u64) -> i32;
}

/// UTC itself.
pub struct Utc;

impl Zone for Utc {
    fn offset_minutes(&self, _: u64) -> i32 {
        0
    }
}

/// A fixed offset, in minutes east of UTC.
pub struct Fixed(pub i32);

impl Zone for Fixed {
    fn offset_minutes(&self, _: u64) -> i32 {
        self.0
    }
}

/// A moment as a clock in some zone reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Local {
    /// The year, such as `2026`.
    pub year: u64,
    /// The month, from 1.
    pub month: u64,
    /// The day of the month, from 1.
    pub day: u64,
    /// The hour, 0 to 23.
    pub hour: u64,
    /// The minute, 0 to 59.
    pub minute: u64,
    /// The second, 0 to 59.
    pub second: u64,
    /// The millisecond, 0 to 999.
    pub milli: u64,
    /// Minutes east of UTC.
    pub offset: i32,
}

impl Local {
    /// `utc_millis` in `zone`. A moment before 1970 in local time (only possible within a day
    /// of the epoch) reads as midnight of 1 January 1970.
    pub fn at(utc_millis: u64, zone: &dyn Zone) -> Local {
        let offset = zone.offset_minutes(utc_millis);
        let local = (utc_millis as i64).saturating_add(i64::from(offset) * 60_000);
        let local = local.max(0) as u64;
        let (days, ms) = (local / 86_400_000, local % 86_400_000);
        let (year, month, day) = civil_from_days(days);
        Local {
            year,
            month,
            day,
            hour: ms / 3_600_000,
            minute: ms / 60_000 % 60,
            second: ms / 1000 % 60,
            milli: ms % 1000,
            offset,
        }
    }

    /// The date: `2026-05-01` in English, `2026年5月1日` in Japanese.
    pub fn date(&self, lang: Lang) -> String {
        let mut out = String::with_capacity(16);
        match lang {
            Lang::En => {
                pad(&mut out, self.year, 4);
                out.push('-');
                pad(&mut out, self.month, 2);
                out.push('-');
                pad(&mut out, self.day, 2);
            }
            Lang::Ja => {
                for (n, unit) in [(self.year, '年'), (self.month, '月'), (self.day, '日')] {
                    pad(&mut out, n, 1);
                    out.push(unit);
                }
            }
        }
        out
    }

    /// The time of day, `12:04:05.123` (to the millisecond) or shorter: `digits` 3 for
    /// `12:04:05.123`, 2 for `12:04:05`, 1 for `12:04`.
    pub fn clock(&self, digits: u8) -> String {
        let mut out = String::with_capacity(12);
        pad(&mut out, self.hour, 2);
        out.push(':');
        pad(&mut out, self.minute, 2);
        if digits >= 2 {
            out.push(':');
            pad(&mut out, self.second, 2);
        }
        if digits >= 3 {
            out.push('.');
            pad(&mut out, self.milli, 3);
        }
        out
    }

    /// The zone as an offset: `UTC+09:00`, `UTC-05:00`, `UTC`.
    pub fn zone(&self) -> String {
        if self.offset == 0 {
            return "UTC".into();
        }
        let mut out = String::from(if self.offset > 0 { "UTC+" } else { "UTC-" });
        let minutes = u64::from(self.offset.unsigned_abs());
        pad(&mut out, minutes / 60, 2);
        out.push(':');
        pad(&mut out, minutes % 60, 2);
        out
    }

    /// Date, time to the millisecond and zone: `2026-05-01 12:04:05.123 (UTC+09:00)`,
    /// `2026年5月1日 12:04:05.123（UTC+09:00）`.
    pub fn full(&self, lang: Lang) -> String {
        let (open, close) = match lang {
            Lang::En => (" (", ")"),
            Lang::Ja => ("（", "）"),
        };
        format!(
            "{} {}{open}{}{close}",
            self.date(lang),
            self.clock(3),
            self.zone()
        )
    }
}

/// `n` in decimal with at least `width` digits.
fn pad(out: &mut String, n: u64, width: usize) {
    let digits = n.to_string();
    for _ in digits.len()..width {
        out.push('0');
    }
    out.push_str(&digits);
}

#[cfg(test)]
mod tests {
    use super::*;
    use project_lanes::record::Timestamp;

    fn ms(text: &str) -> u64 {
        text.parse::<Timestamp>().unwrap().millis()
    }

    #[test]
    fn a_moment_reads_in_the_readers_zone_to_the_millisecond() {
        let at = ms("2026-05-01T03:12:45.007Z");
        let tokyo = Local::at(at, &Fixed(540));
        assert_eq!(tokyo.full(Lang::En), "2026-05-01 12:12:45.007 (UTC+09:00)");
        assert_eq!(
            tokyo.full(Lang::Ja),
            "2026年5月1日 12:12:45.007（UTC+09:00）"
        );
        let new_york = Local::at(at, &Fixed(-240));
        assert_eq!(
            new_york.full(Lang::En),
            "2026-04-30 23:12:45.007 (UTC-04:00)"
        );
        assert_eq!(
            Local::at(at, &Utc).full(Lang::En),
            "2026-05-01 03:12:45.007 (UTC)"
        );
        let kolkata = Local::at(at, &Fixed(330));
        assert_eq!(kolkata.zone(), "UTC+05:30");
        assert_eq!(kolkata.clock(2), "08:42:45");
        assert_eq!(kolkata.clock(1), "08:42");
    }

    #[test]
    fn dates_agree_with_the_records_own_spelling_across_years_and_leap_days() {
        for text in [
            "1970-01-01T00:00:00.000Z",
            "2000-02-29T23:59:59.999Z",
            "2024-12-31T12:00:00.500Z",
            "9999-12-31T23:59:59.999Z",
        ] {
            let l = Local::at(ms(text), &Utc);
            let written = format!("{}T{}Z", l.date(Lang::En), l.clock(3));
            assert_eq!(written, text);
        }
    }

    #[test]
    fn a_moment_before_1970_in_local_time_reads_as_the_epoch() {
        let l = Local::at(1_000, &Fixed(-60));
        assert_eq!(l.date(Lang::En), "1970-01-01");
        assert_eq!(l.clock(3), "00:00:00.000");
        assert_eq!(l.zone(), "UTC-01:00");
    }
}
