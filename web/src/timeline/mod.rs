//! The timeline above a record's steps: one row per project (and, in dispatcher records, one per
//! reservation, grouped by queue), one column per step, drawn as SVG.
//!
//! - [`model`]: [`timeline`], a pure function of a record that merges the snapshots it saved
//!   into segments of one state.
//! - [`draw`]: the SVG, its sticky row labels, its legend and its text alternative
//!   ([`section`]).
//! - [`current`]: the current step — the sticky step bar ([`bar`]), the requests that move it
//!   ([`click`], [`key`]) and showing it everywhere ([`show`]). The app keeps the current step;
//!   everything else is read back from the drawn DOM, so a redraw needs no extra state.
//!
//! DOM contract (README): `[data-timeline]` (the SVG, `role="slider"` over the steps, its text
//! alternative named by `aria-describedby`), `[data-timeline-row=<project or reservation id>]`
//! with `data-row-kind` (`lane` or `reservation`), segments
//! `[data-segment][data-state][data-from][data-to]` (0-based steps, `data-to` inclusive), refused
//! steps `[data-refused-step=<n>][data-code=<CODE>]` and, where they are close together,
//! `[data-refused-bucket][data-from][data-to][data-count]`, and `[data-current-step=<n>]` on the
//! viewer's root. Record text reaches the SVG only as text content or attribute values.

mod current;
mod draw;
mod model;

pub use current::{Action, bar, click, key, show};
pub use draw::{alt_text, section};
pub use model::{Group, Row, RowKind, Segment, State, Timeline, timeline};
