//! A record's panel, as [`Tree`] operations: its head (title, summary, that nothing was
//! executed, the verification line, the queues), its tail (the steps' heading and list, the
//! lanes after the last step, the raw JSON), and what is shown instead while it loads or when
//! it failed. The timeline (`timeline::section`, `timeline::bar`) and the step cards
//! (`steps::cards`) go between head and tail; the caller puts them together, and fills in what
//! only the page holds (the file's text).
//!
//! DOM contract (docs/src/dom-contract.md): `[data-verification-line]`, `[data-nothing-executed]`,
//! `[data-goto-step]`, `[data-lane][data-busy][data-run][data-state]` rows of the final lanes
//! and `[data-untouched-project]` (only for a record that names an untouched project).

use project_lanes::LaneView;
use project_lanes::record::{Record, ReplayMismatch};

use crate::describe;
use crate::entry::{Entry, Loaded, Proof, ROOT_SHOWN, Verification};
use crate::error::{LoadError, ViewerError};
use crate::frame::{code, error_box};
use crate::i18n::{Lang, Msg, Term, fill, group, text};
use crate::recorded::{self, Notes};
use crate::step_window;
use crate::time::{Local, Zone};
use crate::tree::{N, Tree, isolated};

/// The panel of a record still loading: its title and a loading line.
pub fn pending<T>(t: &mut Tree, parent: N, lang: Lang, entry: &Entry<T>) {
    t.el_text(parent, "h2", "lv-title", entry.title.get(lang.tag()));
    let line = t.el_text(parent, "p", "lv-loading", text(lang, Msg::Loading));
    t.attr(line, "role", "status");
}

/// The panel of a record that could not be shown: its title and the error, and, for JSON that
/// is not a readable record, its raw JSON. Returns the element the file's text goes into.
pub fn failed<T>(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    entry: &Entry<T>,
    error: &LoadError<T>,
) -> Option<N> {
    t.el_text(parent, "h2", "lv-title", entry.title.get(lang.tag()));
    error_box(t, parent, lang, error);
    error.raw.as_ref().map(|_| raw_json(t, parent, lang, entry))
}

/// The head of a loaded record's panel (title, summary, nothing executed, the verification
/// line); returns its `data-verification` code.
pub fn head<T>(t: &mut Tree, parent: N, lang: Lang, loaded: &Loaded<T>) -> &'static str {
    let record = &loaded.record;
    let l = lang.tag();
    t.el_text(parent, "h2", "lv-title", record.title.get(l));
    t.el_text(parent, "p", "lv-summary", record.summary.get(l));
    let no_work = t.el_text(parent, "p", "lv-no-work", text(lang, Msg::NothingExecuted));
    t.attr(no_work, "data-nothing-executed", "");
    let code = verification(t, parent, lang, loaded);
    chain(t, parent, lang, &loaded.proof);
    code
}

/// The record's hash chain under the verification line (`[data-chain]`, `[data-signer]`), and
/// its root hash, its identity, in short form with a button that copies it whole
/// (`[data-copy-root]`). Nothing for a record without a chain.
pub fn chain(t: &mut Tree, parent: N, lang: Lang, proof: &Proof) {
    let Proof::Chained {
        root,
        signer,
        others,
    } = proof
    else {
        return;
    };
    let line = t.el(parent, "p", "lv-chain");
    t.attr(line, "data-chain", proof.code());
    let said = t.el(line, "span", "");
    match signer {
        Some(key) => {
            t.attr(line, "data-signer", key);
            isolated(t, said, text(lang, Msg::ChainSigned), &[key]);
        }
        None if !others.is_empty() => {
            isolated(
                t,
                said,
                text(lang, Msg::ChainUnsignedOther),
                &[&others.join(", ")],
            );
        }
        None => t.text(said, text(lang, Msg::ChainUnsigned)),
    }
    t.text(line, " ");
    let hex = root.to_hex();
    let short = hex.get(..ROOT_SHOWN).unwrap_or_default();
    let shown = t.el(line, "span", "lv-root");
    let template = text(lang, Msg::RootShort);
    let (before, after) = template.split_once("{0}").unwrap_or((template, ""));
    t.text(shown, before);
    let code = t.el_text(shown, "code", "", short);
    t.attr(code, "title", &hex);
    t.attr(code, "data-root", &hex);
    t.text(shown, after);
    t.text(line, " ");
    let copy = t.el_text(line, "button", "lv-copy", text(lang, Msg::CopyRoot));
    t.attr(copy, "type", "button");
    t.attr(copy, "aria-label", text(lang, Msg::CopyRootLabel));
    t.attr(copy, "data-copy-root", &hex);
}

/// Where a version 2 record came from and when, under its head: for a system's journal, that
/// it was recorded from a running system, its name and the window it was cut from; for a record
/// whose steps have times, the zone they are shown in (`zone`, the reader's); then what replay
/// checks and what is shown unchecked, and the steps whose times stand out (its `notes`).
/// Nothing for records without an origin, times or callers.
pub fn origin(
    t: &mut Tree,
    parent: N,
    lang: Lang,
    record: &Record,
    notes: &Notes,
    zone: &dyn Zone,
) {
    use project_lanes::record::OriginKind;
    if let Some(origin) = &record.origin
        && origin.kind == OriginKind::Journal
    {
        let system = origin.system.as_deref().unwrap_or_default();
        let p = t.el(parent, "p", "lv-origin");
        isolated(t, p, text(lang, Msg::FromSystem), &[system]);
        t.attr(p, "data-origin", "journal");
        let local = |at: project_lanes::record::Timestamp| Local::at(at.millis(), zone).full(lang);
        let window = match (origin.since, origin.until) {
            (Some(a), Some(b)) => Some(fill(text(lang, Msg::WindowBoth), &[&local(a), &local(b)])),
            (Some(a), None) => Some(fill(text(lang, Msg::WindowSince), &[&local(a)])),
            (None, Some(b)) => Some(fill(text(lang, Msg::WindowUntil), &[&local(b)])),
            (None, None) => None,
        };
        if let Some(window) = window {
            let w = t.el_text(parent, "p", "lv-window", &window);
            t.attr(w, "data-origin-window", "");
        }
    }
    if let Some(at) = notes.first_time {
        let zone = Local::at(at.millis(), zone).zone();
        let p = t.el_text(
            parent,
            "p",
            "lv-zone",
            &fill(text(lang, Msg::TimesInZone), &[&zone]),
        );
        t.attr(p, "data-time-zone", &zone);
    }
    unchecked(t, parent, lang, notes);
}

/// What replay checks and what the panel shows unchecked (`[data-unchecked]`), then the steps
/// whose times stand out (`[data-time-marks=<count>]`): [`recorded::sentences`], the words
/// `lane-records replay` prints. Nothing for records without times, callers or a window.
fn unchecked(t: &mut Tree, parent: N, lang: Lang, notes: &Notes) {
    let mut sentences = recorded::sentences(lang, notes).into_iter();
    if let Some(first) = sentences.next() {
        let p = t.el_text(parent, "p", "lv-unchecked", &first);
        t.attr(p, "data-unchecked", "");
    }
    if let Some(marks) = sentences.next() {
        let p = t.el_text(parent, "p", "lv-time-marks", &marks);
        t.attr_number(p, "data-time-marks", notes.marked as u64);
    }
}

/// The note that a record came without an index: no SHA-256 to compare (`[data-no-hash]`).
pub fn no_hash(t: &mut Tree, parent: N, lang: Lang) {
    let note = t.el_text(parent, "p", "lv-no-hash", text(lang, Msg::NoHash));
    t.attr(note, "data-no-hash", "");
}

/// The queues of a dispatcher record ("Queues: general, delivery"); nothing for other records.
pub fn queues(t: &mut Tree, parent: N, lang: Lang, record: &Record) {
    if !record.is_dispatcher() {
        return;
    }
    let mut names = String::new();
    for queue in &record.queues {
        if !names.is_empty() {
            names.push_str(", ");
        }
        names.push_str(queue);
    }
    let label = fill(text(lang, Msg::QueuesLabel), &[&names]);
    t.el_text(parent, "p", "lv-queues", &label);
}

/// Where the caller puts the steps and the file's text.
pub struct Tail {
    /// The list the step cards go into.
    pub list: N,
    /// The raw JSON's element.
    pub raw: N,
}

/// The tail of a loaded record's panel: the steps' heading and their (empty) list, then the
/// lanes after the last step and the raw JSON.
pub fn tail<T>(t: &mut Tree, parent: N, lang: Lang, entry: &Entry<T>, loaded: &Loaded<T>) -> Tail {
    let record = &loaded.record;
    t.el_text(parent, "h3", "lv-h", text(lang, Msg::StepsHeading));
    let windowed = step_window::windowed(record.steps.len());
    if windowed {
        step_window::before(t, parent, lang);
    }
    let list = t.el(parent, "div", "lv-steps");
    if let Some(step) = loaded.verification.borrow().mismatch_step() {
        t.attr_number(list, "data-mismatch-at", step as u64);
    }
    if windowed {
        t.attr_number(list, "data-steps-total", record.steps.len() as u64);
        step_window::after(t, parent, lang);
    }
    // After the steps, so usually below the fold: laid out when it comes near the viewport.
    let end = t.el(parent, "div", "lv-end");
    t.el_text(end, "h3", "lv-h", text(lang, Msg::FinalLanesHeading));
    final_lanes(t, end, lang, record);
    untouched_note(t, end, lang, record);
    let raw = raw_json(t, end, lang, entry);
    Tail { list, raw }
}

/// The note under the final lanes that the record's untouched project stays idle throughout;
/// nothing for a record that names none (version 2 records may, as every journal's export).
pub fn untouched_note(t: &mut Tree, parent: N, lang: Lang, record: &Record) {
    if let Some(project) = record.untouched_project.get() {
        let note = fill(text(lang, Msg::UntouchedExplained), &[project]);
        t.el_text(parent, "p", "lv-untouched-note", &note);
    }
}

/// The verification line above the steps; returns its `data-verification` code.
pub fn verification<T>(t: &mut Tree, parent: N, lang: Lang, loaded: &Loaded<T>) -> &'static str {
    let state = loaded.verification.borrow();
    let line = t.el(parent, "p", "lv-verification");
    let count = loaded.record.steps.len();
    let steps = group(count);
    match &*state {
        Verification::NotStarted | Verification::Running(_) => {
            let (_, done) = state.signature();
            t.attr(line, "role", "status");
            let shown = fill(text(lang, Msg::Verifying), &[&group(done), &steps]);
            t.text(line, &shown);
            t.text(line, " ");
            let progress = t.el(line, "progress", "");
            t.attr_number(progress, "max", count as u64);
            t.attr_number(progress, "value", done as u64);
        }
        Verification::Verified => {
            let msg = if count == 1 {
                Msg::VerifiedOne
            } else {
                Msg::Verified
            };
            t.text(line, &fill(text(lang, msg), &[&steps]));
        }
        Verification::Failed(ReplayMismatch::Invalid(error)) => {
            t.attr(line, "role", "alert");
            let invalid = ViewerError::InvalidRecord.code();
            t.attr(line, "data-viewer-error", invalid);
            t.text(line, text(lang, Msg::InvalidLine));
            t.text(line, " ");
            code(t, line, invalid);
            // `Record::check` locates the problem (step, field), in English.
            let detail = t.el_text(line, "span", "lv-error-detail", &error.to_string());
            t.attr(detail, "lang", "en");
        }
        Verification::Failed(mismatch) => {
            t.attr(line, "role", "alert");
            let code_text = ViewerError::ReplayMismatch.code();
            t.attr(line, "data-viewer-error", code_text);
            let (head, body) = describe::mismatch(lang, mismatch, &loaded.record.steps);
            match state.mismatch_step() {
                Some(step) => {
                    // The line links to the step (built now or later in the background).
                    let link = t.el_text(line, "a", "lv-goto", &head);
                    t.attr(link, "href", "#");
                    t.attr_number(link, "data-goto-step", step as u64);
                }
                None => t.text(line, &head),
            }
            t.text(line, " ");
            t.text(line, &body);
            t.text(line, " ");
            code(t, line, code_text);
        }
    }
    let code = state.code();
    t.attr(line, "data-verification-line", code);
    code
}

/// The record's JSON as saved (its text left for the caller: returned is the element it goes
/// into), and a download link for files from the page's index.
pub fn raw_json<T>(t: &mut Tree, parent: N, lang: Lang, entry: &Entry<T>) -> N {
    let raw = t.el(parent, "details", "lv-raw");
    t.el_text(raw, "summary", "", text(lang, Msg::RawJson));
    let pre = t.el(raw, "pre", "lv-json");
    t.attr(pre, "tabindex", "0");
    let code = t.el(pre, "code", "");
    if let Some(url) = &entry.url {
        let label = fill(text(lang, Msg::Download), &[&entry.file]);
        let link = t.el_text(raw, "a", "lv-download", &label);
        t.attr(link, "href", url);
        t.attr(link, "download", &entry.file);
    }
    code
}

fn lane_attrs(t: &mut Tree, node: N, view: &LaneView) {
    t.attr(node, "data-lane", &view.project);
    t.attr(node, "data-busy", if view.busy { "true" } else { "false" });
    if let (Some(run), Some(state)) = (&view.run, view.state) {
        t.attr(node, "data-run", run);
        t.attr(node, "data-state", state.as_str());
    }
}

/// The lanes after the last step, as a table.
pub fn final_lanes(t: &mut Tree, parent: N, lang: Lang, record: &Record) {
    let table = t.el(parent, "table", "lv-final");
    let thead = t.el(table, "thead", "");
    let head = t.el(thead, "tr", "");
    for msg in [Msg::ProjectColumn, Msg::StateColumn, Msg::RunColumn] {
        let th = t.el_text(head, "th", "", text(lang, msg));
        t.attr(th, "scope", "col");
    }
    let body = t.el(table, "tbody", "");
    for view in &record.final_lanes {
        let untouched = record.untouched_project == *view.project;
        let class = match (view.busy, untouched) {
            (true, true) => "lv-busy lv-untouched",
            (true, false) => "lv-busy",
            (false, true) => "lv-untouched",
            (false, false) => "",
        };
        let row = t.el(body, "tr", class);
        lane_attrs(t, row, view);
        if untouched {
            t.attr(row, "data-untouched-project", &view.project);
        }
        let name = t.el_text(row, "th", "", &view.project);
        t.attr(name, "scope", "row");
        if untouched {
            t.text(name, " ");
            t.el_text(name, "span", "lv-badge", text(lang, Msg::Untouched));
        }
        let state = match view.state {
            Some(state) => text(lang, Term::State(state)),
            None => text(lang, Msg::Idle),
        };
        t.el_text(row, "td", "", state);
        t.el_text(row, "td", "", view.run.as_deref().unwrap_or("—"));
    }
}
