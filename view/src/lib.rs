//! # project-lanes-view
//!
//! What the record viewer shows, apart from any browser: it compiles natively and to wasm, and
//! depends on the core alone (no `web-sys`, no `wasm-bindgen`). The viewer (`lane-viewer`, in
//! `web/`) carries it out in a page; native tests drive it directly.
//!
//! A record's timeline as HTML markup (the guide's viewer chapter shows it too):
//!
//! ```
//! use project_lanes_view::i18n::Lang;
//! use project_lanes_view::tree::{ROOT, Tree, html};
//!
//! # use project_lanes::record::{Recorder, Text};
//! # let text = |s: &str| Text { en: s.into(), ja: s.into() };
//! # let mut rec = Recorder::new("busy-project", text("A busy project"), text("Two claims."), &["docs", "site"], "site").unwrap();
//! # rec.claim("docs", "nightly-101");
//! # rec.claim("docs", "nightly-102");
//! # let record: project_lanes::record::Record = rec.finish().unwrap();
//! // `record` was read from a file (such as records/busy-project.json) or made by a `Recorder`
//! let mut tree = Tree::new();
//! project_lanes_view::timeline::section(&mut tree, ROOT, Lang::Ja, &record, "doc");
//! let svg_section = html::write(&tree);
//! assert!(svg_section.starts_with("<section class=\"lv-timeline\">"));
//! assert!(svg_section.contains("<svg class=\"lv-tl-svg\""));
//! let page = project_lanes_view::still::fragment(&record, Lang::En, "doc"); // what `render --html` writes
//! assert!(page.contains("data-step=\"0\""));
//! ```
//!
//! Its modules:
//!
//! - [`i18n`]: every string in English and Japanese, with the glossary's terms.
//! - [`tree`]: a piece of DOM as fixed-width operations ([`tree::Tree`]), built by the viewer in
//!   one crossing and written as markup by [`tree::html::write`].
//! - [`timeline`], [`steps`], [`panel`], [`frame`]: what the viewer draws, written once as
//!   operations: the timeline, the step cards, a record's panel, and the frame around it (tabs,
//!   language switcher, error boxes). [`describe`] gives them the words for a record's values.
//! - [`state`]: one viewer's state (records, selection, language, current step, the deep
//!   link's wishes) and its transitions, each returning what to show again.
//! - [`entry`], [`error`]: the records a viewer holds and why one failed; [`deep_link`]: the
//!   `#record=…&lang=…&step=…&find=…` address.
//! - [`find`]: the steps a query asks for (project, run, operation, answer, caller, time), and
//!   the refusals and recoveries the timeline's `]` and `[` go to; [`find_box`]: the box that
//!   takes the query and counts its matches.
//! - [`time`]: a step's time in the reader's time zone (the zone is given: the page asks the
//!   browser); [`recorded`]: what replay checks and what it shows only as recorded (times,
//!   callers, the window), with the times that stand out, as `lane-records replay` says too.
//! - [`diff`]: a comparison of two records (the core's `record::diff`) in words, what
//!   `lane-records diff` prints.
//!
//! It fetches nothing, reads no files and replays nothing: the viewer does.
//!
//! The frame around a record, for instance the language switcher:
//!
//! ```
//! use project_lanes_view::i18n::Lang;
//! use project_lanes_view::tree::{ROOT, Tree, html};
//!
//! let mut t = Tree::new();
//! project_lanes_view::frame::languages(&mut t, ROOT, Lang::Ja);
//! assert!(html::write(&t).starts_with(
//!     "<button class=\"lv-lang\" type=\"button\" lang=\"en\" data-lang-choice=\"en\" aria-pressed=\"false\">English</button>"
//! ));
//! ```

#![warn(missing_docs)]

pub mod compare;
pub mod deep_link;
pub mod describe;
pub mod diff;
pub mod entry;
pub mod error;
pub mod find;
pub mod find_box;
pub mod frame;
pub mod i18n;
pub mod panel;
pub mod recorded;
pub mod state;
pub mod step_window;
pub mod steps;
pub mod still;
pub mod time;
pub mod timeline;
pub mod tree;

/// The viewer's stylesheet (`view/viewer.css`, light and dark): the one file the pages, the
/// element and the standalone SVG pictures share.
pub const STYLESHEET: &str = include_str!("../viewer.css");

/// The crate's README (its page on crates.io), run as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
