//! The timeline above a record's steps: one row per project (and, in dispatcher records, one per
//! reservation, grouped by queue), one column per step or, for a record whose steps have times,
//! on a time axis if the reader chooses ([`Axis`]), drawn as SVG.
//!
//! - `model.rs`: [`timeline`], a pure function of a record that merges the snapshots it saved
//!   into segments of one state.
//! - `draw.rs`: the section and its SVG ([`section`], [`section_on`]: the axis switch, step
//!   numbers or times of day), with `geometry.rs` (sizes, the axis, the step ↔ x mapping on
//!   either, text widths), `look.rs` (each state's bar and fill), `refused.rs` (refused steps,
//!   alone or counted), `legend.rs` and `alt.rs` (the text alternative).
//! - `zoom.rs`: the steps drawn ([`Window`]) and the requests that change them ([`Zoom`]);
//!   `rows.rs`: the rows drawn of a record of more than [`MAX_ROWS`] ([`Rows`]).
//! - `labels.rs`: the words of rows, groups and of no current step.
//! - `found.rs`: the find box's matches over the rows ([`found_marks`]), drawn by the page
//!   into the drawing's `[data-find-marks]` group.
//! - `bar.rs`: the step bar ([`bar`]), its words, and the requests that move the current step
//!   ([`Action`]).
//!
//! DOM contract (docs/src/dom-contract.md): `[data-timeline]` (the SVG, `role="slider"` over the steps, its text
//! alternative named by `aria-describedby`), `[data-timeline-row=<project or reservation id>]`
//! with `data-row-kind` (`lane` or `reservation`), segments
//! `[data-segment][data-state][data-from][data-to]` (0-based steps, `data-to` inclusive), refused
//! steps `[data-refused-step=<n>][data-code=<CODE>]` and, where they are close together,
//! `[data-refused-bucket][data-from][data-to][data-count]`, and `[data-current-step=<n>]` on the
//! viewer's root; the find box's matches `[data-find-mark][data-from][data-to][data-count]`
//! inside `[data-find-marks]`; spans counted together `[data-dense][data-from][data-to]
//! [data-count][data-busy]`; the steps and rows drawn (`data-window-from`, `data-window-to`,
//! `data-rows-from`, `data-rows-to` on the drawing), the buttons `[data-zoom]` and
//! `[data-rows]`, and the lines `[data-zoom-window]` and `[data-rows-window]`. Records whose steps all have times: `data-axis` (`steps` or `time`) on the
//! section, the buttons `[data-axis-choice=steps|time]` (`aria-pressed`), and on a time axis
//! `data-axis="time"` on the drawing and `[data-time-tick]` labels. Record text reaches the
//! SVG only as text content or attribute values.

mod alt;
mod bar;
mod draw;
mod found;
mod geometry;
mod labels;
mod legend;
mod look;
mod model;
mod refused;
pub mod rows;
mod zoom;

pub use alt::alt_text;
pub use bar::{Action, bar, detail, position};
pub use draw::{Drawing, section, section_on};
pub use found::found_marks;
pub use geometry::{Axis, Geometry, WIDTH, time_edges};
pub use labels::no_position;
#[cfg(not(target_arch = "wasm32"))]
pub use legend::svg_legend;
pub use model::{Group, Row, RowKind, Segment, State, Timeline, timeline};
pub use rows::{MAX_ROWS, Rows};
pub use zoom::{MIN_STEPS, Window, Zoom};
