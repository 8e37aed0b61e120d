//! The reader's time zone, as the browser knows it: JavaScript's `Date` gives each moment's
//! offset from UTC (daylight saving time included), so a step's time reads as the reader's
//! clock read it.

use project_lanes_view::time::Zone;

/// The browser's time zone.
pub struct Browser;

impl Zone for Browser {
    fn offset_minutes(&self, utc_millis: u64) -> i32 {
        let date = js_sys::Date::new(&(utc_millis as f64).into());
        // `getTimezoneOffset` is UTC minus local time, in minutes (Tokyo: −540).
        let offset = -date.get_timezone_offset();
        if offset.is_finite() { offset as i32 } else { 0 }
    }
}
