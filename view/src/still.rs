//! A record's static picture, readable where no script runs: an HTML fragment (title, summary,
//! that nothing was executed and that it is not yet checked or replayed, the timeline, every
//! step, the final lanes) and the timeline alone as a standalone SVG file (`svg.rs`, native
//! builds only). Both are drawn by the
//! viewer's own code (`timeline::section`, `steps::cards`, `panel`) and written by
//! [`html::write`], so the static picture and the live viewer draw the same thing, and carry
//! the same DOM contract attributes (`[data-step]`, `[data-timeline-row]`, `[data-segment]`…).
//!
//! The fragment's root is `[data-lane-viewer-static]` (with the record's id in `data-record-id`),
//! styled by the viewer's stylesheet (`.lane-viewer`); the live viewer takes its place in
//! `<lane-viewer>` once its replay has started.

use project_lanes::record::Record;

use crate::i18n::{Lang, Msg, text};
use crate::panel;
use crate::steps;
use crate::tree::{ROOT, Tree, html};

/// The static HTML fragment of `record` in `lang`; `prefix` makes its ids unique on a page.
pub fn fragment(record: &Record, lang: Lang, prefix: &str) -> String {
    let l = lang.tag();
    let mut t = Tree::new();
    let root = t.el(ROOT, "div", "lane-viewer lv-static");
    t.attr(root, "data-lane-viewer-static", "");
    t.attr(root, "data-record-id", &record.id);
    t.attr(root, "lang", l);
    t.attr(root, "role", "region");
    let label = crate::frame::region_label(lang, Some(&record.title));
    t.attr(root, "aria-label", &label);
    t.el_text(root, "h2", "lv-title", record.title.get(l));
    t.el_text(root, "p", "lv-summary", record.summary.get(l));
    let no_work = t.el_text(root, "p", "lv-no-work", text(lang, Msg::NothingExecuted));
    t.attr(no_work, "data-nothing-executed", "");
    let note = t.el_text(root, "p", "lv-static-note", text(lang, Msg::NotYetVerified));
    t.attr(note, "data-static-note", "");
    panel::queues(&mut t, root, lang, record);
    crate::timeline::section(&mut t, root, lang, record, prefix);
    t.el_text(root, "h3", "lv-h", text(lang, Msg::StepsHeading));
    let list = t.el(root, "div", "lv-steps");
    steps::cards(&mut t, list, lang, record, (0, usize::MAX), None);
    let end = t.el(root, "div", "lv-end");
    t.el_text(end, "h3", "lv-h", text(lang, Msg::FinalLanesHeading));
    panel::final_lanes(&mut t, end, lang, record);
    panel::untouched_note(&mut t, end, lang, record);
    html::write(&t)
}

// The standalone SVG file is written by the command line (`lane-records render --svg`), never
// by the viewer in a page: the wasm build leaves it out, so that it changes nothing there.
#[cfg(not(target_arch = "wasm32"))]
mod diff_svg;
#[cfg(not(target_arch = "wasm32"))]
mod svg;
#[cfg(not(target_arch = "wasm32"))]
pub use diff_svg::comparison_svg;
#[cfg(not(target_arch = "wasm32"))]
pub use svg::{timeline_svg, with_fallbacks};
