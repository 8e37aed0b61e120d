//! # lane-viewer
//!
//! A WebAssembly viewer for saved project-lanes records, in English and Japanese. It fetches a
//! records index and the records it lists (or opens files a person chooses or drops), checks each
//! file's SHA-256 against the index, replays every record shown on the core compiled into the
//! page to prove it, and shows a record selector, each record's steps and the lanes after every
//! step.
//!
//! ```js
//! import init, { mount } from "./pkg/lane_viewer.js";
//! await init();
//! const viewer = await mount(document.querySelector("#lanes"), {
//!   src: "records/index.json", // default
//!   lang: "ja",                // else the deep link, the browser's languages, English
//!   record: "busy-project",    // else the deep link, else the first record
//!   hash: true,                // follow and update #record=<id>&lang=<en|ja>[&step=<n>] (one per page)
//!   open: true,                // the "Open records…" button and dropped files (default)
//!   tabs: true,                // the row of record tabs (default); false: the record alone
//!   compare: ["a", "b"],       // compare record a with record b (also &compare=a,b in the link)
//!   maxBytes: 512 * 2 ** 20,   // the largest version 3 record taken (default 256 MiB)
//!   maxSteps: 4_000_000,       // the most steps held (default 3,024,625: about 1 GiB)
//!   signal,                    // an AbortSignal: aborting it stops the opening, frees the viewer
//! });
//! // or a record the page holds: mount(element, { text: jsonText, tabs: false })
//! viewer.open_text("mine.json", text); // a record or an index held as text
//! viewer.select("stale-release");
//! viewer.set_lang("en");
//! viewer.select_step(4);        // the timeline's current step (from 0; `step=5` in the link);
//!                               // `false` for anything but a whole number of a step
//! const { verdict, step, code } = await viewer.verdict("stale-release"); // "verified", …
//! viewer.destroy();
//! ```
//!
//! Mounting from Rust, in another crate compiled to wasm32 with `wasm-bindgen` (compiled here,
//! not run: `mount` needs a page, and this crate's doctests run natively):
//!
//! ```no_run
//! use wasm_bindgen::JsValue;
//!
//! async fn show(element: web_sys::Element) -> Result<(), JsValue> {
//!     // No options (`undefined`): records/index.json, in the browser's language or English.
//!     let viewer = lane_viewer::mount(element, JsValue::UNDEFINED).await?;
//!     assert!(viewer.set_lang("en"));
//!     viewer.select("stale-release");
//!     Ok(())
//! }
//! ```
//!
//! It executes no work: the replay drives fresh in-memory lanes (or a dispatcher) only, and what
//! is shown is what the record saved. It uses plain `web-sys` (no UI framework), reads files
//! with the core's one reader (`project_lanes::record::json`, serde_json), so it gives the
//! verdict `lane-records replay` gives the same bytes; `mount`'s options are read with
//! `Reflect`, each checked for its type.

#![warn(missing_docs)]

mod app;
mod dom;
pub mod entry;
mod find;
mod link;
pub mod load;
mod overview;
mod pace;
mod panels;
pub mod read;
mod render;
mod steps;
pub mod timeline;
mod tree;
mod verify;
mod zone;

/// The catalog (`project_lanes_view::i18n`): every string the viewer shows.
pub use project_lanes_view::i18n;

use std::rc::Rc;

use js_sys::Reflect;
use project_lanes::record::stream::DEFAULT_MAX_BYTES;
use project_lanes_view::state::Origin;
use wasm_bindgen::prelude::*;
use web_sys::Element;

use app::{Core, Shared};
use i18n::Lang;

/// Options of [`mount`]; every field is optional, and `undefined` or `null` mean absent. Names
/// are checked against [`OPTION_NAMES`] first, then each value's type by [`read_options`];
/// `maxBytes`, `maxSteps` and `signal` are checked by `mount`.
#[derive(Debug, Default)]
struct Options {
    /// URL of the records index (or of a single record), relative to the page.
    src: Option<String>,
    /// `en` or `ja`.
    lang: Option<String>,
    /// The record to select first.
    record: Option<String>,
    /// Follow and update `location.hash` (`#record=<id>&lang=<en|ja>[&step=<n>]`); one viewer per
    /// page.
    hash: Option<bool>,
    /// Show the "Open records…" button and accept dropped files (default `true`).
    open: Option<bool>,
    /// Show the row of record tabs (default `true`); `false` shows the selected record alone.
    tabs: Option<bool>,
    /// A record held as text by the page (`<lane-viewer>`'s inline JSON): shown alone, with no
    /// fetch; read, checked and replayed like any other, with no hash to compare. Not with `src`.
    text: Option<String>,
    /// Two record ids, `["a", "b"]`: the viewer compares record A with record B
    /// (`project_lanes_view::compare`).
    compare: Option<Vec<String>>,
    /// The largest version 3 record the viewer takes, in bytes: a whole number from 1 to 2^53 − 1
    /// (default 256 MiB, `lane-records replay`'s default). A record past it is refused with
    /// `RECORD_TOO_LARGE`, from its length or as soon as more has arrived; versions 1 and 2
    /// and indexes keep the format's 16 MiB.
    max_bytes: JsValue,
    /// The most steps of a version 3 record the viewer holds: a whole number from 1 to 2^53 − 1
    /// (default [`read::DEFAULT_MAX_STEPS`], its memory budget). A record with more is refused
    /// with `RECORD_TOO_LARGE` at the step past it.
    max_steps: JsValue,
    /// An `AbortSignal`: aborted while `mount` is opening, it stops every fetch and read,
    /// destroys the viewer and rejects `mount` with the signal's reason.
    signal: JsValue,
}

/// The fields of [`Options`].
const OPTION_NAMES: [&str; 11] = [
    "src", "lang", "record", "hash", "open", "tabs", "text", "compare", "maxBytes", "maxSteps",
    "signal",
];
/// [`OPTION_NAMES`] as an error names them.
const OPTION_LIST: &str = "`src`, `lang`, `record`, `hash`, `open`, `tabs`, `text`, `compare`, \
                           `maxBytes`, `maxSteps`, `signal`";

/// A mounted viewer. Dropping the handle leaves the viewer on the page (the viewer stays alive
/// until `destroy`); `destroy` removes it.
#[wasm_bindgen]
pub struct Viewer {
    core: Shared,
}

#[wasm_bindgen]
impl Viewer {
    /// Selects the record with this id. Returns `false` (and shows `UNKNOWN_RECORD`) if no
    /// record has this id; the selection is then unchanged. Called while the viewer is changing
    /// the page (from a focus handler, say), it takes effect right after that change.
    pub fn select(&self, id: &str) -> bool {
        if self.core.destroyed() {
            return false;
        }
        let known = self.core.state.borrow().position(id).is_some();
        let id = id.to_string();
        self.core.call(move |core, view| {
            core.change(view, |s| s.select(&id, Origin::User));
        });
        known
    }

    /// Switches to `en` or `ja`, keeping the selected record. Returns `false` for any other tag.
    pub fn set_lang(&self, lang: &str) -> bool {
        match Lang::from_tag(lang) {
            Some(lang) if !self.core.destroyed() => {
                self.core.call(move |core, view| {
                    core.change(view, |s| ((), s.set_lang(lang, Origin::User)));
                });
                true
            }
            _ => false,
        }
    }

    /// Opens a record or an index held as text, as if the person had opened a file `name`:
    /// it becomes a tab (marked with `name`) and is selected. Nothing is fetched or uploaded.
    pub fn open_text(&self, name: &str, text: String) {
        let file = read::Opened {
            name: name.to_string(),
            content: Ok(read::Incoming::whole(
                text.into_bytes(),
                self.core.reading.limits,
            )),
        };
        self.core.open(vec![file]);
    }

    /// A promise that resolves once every step of the selected record is in the page (for a
    /// record of more than 200 steps, which lists a window of its steps, once the window is).
    /// Records of a few hundred steps finish rendering in the background after `mount`,
    /// `select` or `set_lang` return; small records are complete at once.
    pub fn settled(&self) -> js_sys::Promise {
        self.core.settled()
    }

    /// A promise of how reading and replaying record `id` ended (the selected record's when `id`
    /// is left out): it resolves with `{ record, verdict, step, code }`, the detail of the
    /// `lane-viewer-verdict` event (`verdict` is `"verified"`, `"mismatch"` or `"invalid"`;
    /// `step` the step, from 0, where a mismatch is; `code` the error code shown), at once if
    /// the verdict is known. A record never shown is replayed for it. With no record at all (the
    /// index or `src` could not be shown) it resolves with `record: null` and that error's code.
    /// It rejects when no record has the id, and when the viewer is destroyed first.
    pub fn verdict(&self, id: Option<String>) -> js_sys::Promise {
        self.core.verdict(id)
    }

    /// Makes step `n` (from 0, like `data-step`) the current step of the timeline: its card is
    /// highlighted and scrolled into view, its column marked, and the deep link (if followed)
    /// carries it as `step=n+1`. Returns `false`, changing nothing, unless `n` is a whole number
    /// (a JavaScript number, not a string) of a step of the selected record: `undefined`,
    /// `null`, `NaN`, `2.7`, `-1` and numbers past the last step are all refused. Called while
    /// the viewer is changing the page, it takes effect right after that change.
    pub fn select_step(&self, n: JsValue) -> bool {
        let steps = self.core.state.borrow().steps();
        let Some(n) = step_number(&n, steps) else {
            return false;
        };
        if self.core.destroyed() {
            return false;
        }
        self.core.call(move |core, view| {
            core.change(view, |s| {
                ((), s.select_step(n, Origin::User).unwrap_or_default())
            });
        });
        true
    }

    /// The current step of the timeline (from 0), if one is selected.
    #[wasm_bindgen(getter)]
    pub fn current_step(&self) -> Option<u32> {
        if self.core.destroyed() {
            return None;
        }
        self.core.state.borrow().current_step.map(|n| n as u32)
    }

    /// The selected record's id, if any record loaded; nothing once destroyed.
    #[wasm_bindgen(getter)]
    pub fn selected(&self) -> Option<String> {
        if self.core.destroyed() {
            return None;
        }
        self.core.state.borrow().selected_id().map(String::from)
    }

    /// The selected record's file as text, once it is read (the text its raw JSON shows, with
    /// no byte order mark), for a page to hand on (the standalone page gives it to the
    /// playground): whole, or `""` when the viewer did not keep it (a version 3 record past
    /// 16 MiB that arrived in parts); nothing while it loads, when it could not be read, or
    /// once destroyed.
    #[wasm_bindgen(getter)]
    pub fn selected_text(&self) -> Option<js_sys::JsString> {
        if self.core.destroyed() {
            return None;
        }
        let state = self.core.state.borrow();
        let loaded = state.selected_entry()?.content.loaded()?;
        Some(loaded.raw.clone())
    }

    /// Compares record `a` with record `b` (ids): the list of differences appears above the
    /// panel once both are read. Returns `false` (and shows `UNKNOWN_RECORD`) if either id names
    /// no record. `stop_comparing` ends it.
    pub fn compare(&self, a: &str, b: &str) -> bool {
        if self.core.destroyed() {
            return false;
        }
        let known = {
            let state = self.core.state.borrow();
            state.position(a).is_some() && state.position(b).is_some()
        };
        let ids = [a.to_string(), b.to_string()];
        self.core.call(move |core, view| {
            core.change(view, |s| ((), s.set_compare(Some(ids), Origin::User)));
        });
        known
    }

    /// Ends the comparison, if any.
    pub fn stop_comparing(&self) {
        self.core.call(move |core, view| {
            core.change(view, |s| ((), s.set_compare(None, Origin::User)));
        });
    }

    /// The current language tag.
    #[wasm_bindgen(getter)]
    pub fn lang(&self) -> String {
        self.core.state.borrow().lang.tag().to_string()
    }

    /// Removes the viewer's DOM and its listeners.
    pub fn destroy(&self) {
        self.core.destroy();
    }
}

/// Mounts a viewer inside `element` and resolves once the first record is rendered (or the
/// loading error is shown). Rejects for bad options (not an object, an unknown name, a value of
/// the wrong type, a `lang` other than `"en"` and `"ja"`, a `maxBytes` or `maxSteps` that is not
/// a whole number from 1 to 2^53 − 1, a `signal` that is not an `AbortSignal`), and with the signal's
/// reason when `signal` is aborted before it resolves (the viewer is then destroyed).
#[wasm_bindgen]
pub async fn mount(element: Element, options: JsValue) -> Result<Viewer, JsValue> {
    let mut options = read_options(options).map_err(|e| js_sys::TypeError::new(&e))?;
    let lang = match options.lang.as_deref() {
        None => None,
        Some(tag) => Some(Lang::from_tag(tag).ok_or_else(|| {
            js_sys::TypeError::new(&format!(
                "lane-viewer options: lang must be \"en\" or \"ja\", not \"{tag}\""
            ))
        })?),
    };
    let limit = |value: &JsValue, name: &str, unit: &str, default: u64| match value {
        v if v.is_undefined() || v.is_null() => Ok(default),
        v => v.as_f64().and_then(whole).ok_or_else(|| {
            js_sys::TypeError::new(&format!(
                "lane-viewer options: {name} must be a whole number of {unit} from 1 to \
                 9007199254740991, not {}",
                shown(v)
            ))
        }),
    };
    let limits = read::Limits {
        bytes: limit(&options.max_bytes, "maxBytes", "bytes", DEFAULT_MAX_BYTES)?,
        steps: limit(
            &options.max_steps,
            "maxSteps",
            "steps",
            read::DEFAULT_MAX_STEPS,
        )?,
    };
    let signal = match &options.signal {
        v if v.is_undefined() || v.is_null() => None,
        v => Some(v.clone().dyn_into::<web_sys::AbortSignal>().map_err(|_| {
            js_sys::TypeError::new("lane-viewer options: signal must be an AbortSignal")
        })?),
    };
    if let Some(signal) = signal.as_ref().filter(|s| s.aborted()) {
        return Err(signal.reason());
    }
    let hash = options.hash.unwrap_or(false);
    if hash
        && let Some(doc) = element.owner_document()
        && app::hash_taken(&doc)
    {
        return Err(js_sys::TypeError::new(
            "lane-viewer options: another viewer on this page already follows the deep link (hash: true); only one may",
        )
        .into());
    }
    let deep = if hash { link::read().lang } else { None };
    let lang = lang.or(deep).or_else(browser_lang).unwrap_or(Lang::En);
    if options.text.is_some() && options.src.is_some() {
        return Err(js_sys::TypeError::new(
            "lane-viewer options: `text` and `src` exclude each other (a record held by the page is not fetched)",
        )
        .into());
    }
    let compare = match options.compare.take() {
        None => None,
        Some(ids) => Some(<[String; 2]>::try_from(ids).map_err(|ids| {
            js_sys::TypeError::new(&format!(
                "lane-viewer options: compare must name two records, [\"a\", \"b\"], not {}",
                ids.len()
            ))
        })?),
    };
    let tabs = options.tabs.unwrap_or(true);
    let open = options.open.unwrap_or(true);
    let core = Core::create(&element, lang, hash, open, tabs, limits);
    Core::keep(&core);
    Core::listen(&core);
    // The page's signal destroys the viewer while it opens; once `mount` has resolved, only
    // `destroy` does.
    let abort = signal.as_ref().map(|signal| {
        let weak = Rc::downgrade(&core);
        let on_abort = Closure::<dyn FnMut()>::new(move || {
            if let Some(core) = weak.upgrade() {
                core.destroy();
            }
        });
        signal
            .add_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref())
            .ok();
        (signal, on_abort)
    });
    let first = First {
        record: options.record,
        compare,
    };
    open_first(&core, options.src, options.text, first).await;
    if let Some((signal, on_abort)) = abort {
        signal
            .remove_event_listener_with_callback("abort", on_abort.as_ref().unchecked_ref())
            .ok();
        if signal.aborted() {
            return Err(signal.reason());
        }
    }
    Ok(Viewer { core })
}

/// The limit a `maxBytes` or `maxSteps` of `n` stands for: a whole number, at least 1 and
/// exactly representable in JavaScript.
fn whole(n: f64) -> Option<u64> {
    const MAX_SAFE: f64 = 9_007_199_254_740_991.0;
    (n.fract() == 0.0 && (1.0..=MAX_SAFE).contains(&n)).then_some(n as u64)
}

/// Opens what `mount` was given: the page's text, or `src` (a record, or an index whose records
/// are then fetched, the selected one first).
/// What `mount` shows first: the record it names, and the two records it compares.
#[derive(Clone)]
struct First {
    record: Option<String>,
    compare: Option<[String; 2]>,
}

async fn open_first(core: &Shared, src: Option<String>, text: Option<String>, first: First) {
    let reading = core.reading.clone();
    if let Some(text) = text {
        let entry = load::held(text, &reading);
        loaded(core, entry.map(|e| vec![e]), first);
        return;
    }
    let src = src.as_deref().unwrap_or("records/index.json");
    match load::load_listing(src, &reading).await {
        Ok(load::Listing::Index { url, records }) => {
            // Tabs at once, every record still loading; then the selected record first, so it
            // is shown as soon as its own file arrives, and the others one by one.
            let entries = load::pending(&url, &records);
            loaded(core, Ok(entries), first);
            let selected = core.state.borrow().selected_id().map(String::from);
            let first = records
                .iter()
                .position(|e| Some(e.id.as_str()) == selected.as_deref());
            let order: Vec<usize> = first
                .into_iter()
                .chain((0..records.len()).filter(|&i| Some(i) != first))
                .collect();
            load::fetch_records(&url, &records, &order, &reading, |i, content| {
                if core.destroyed() {
                    return false;
                }
                core.call(move |core, view| {
                    core.change(view, |s| ((), s.arrived(i, content)));
                });
                true
            })
            .await;
        }
        Ok(load::Listing::Record(entry)) => loaded(core, Ok(vec![entry]), first),
        Err(error) => loaded(core, Err(error), first),
    }
}

/// The index (or the single record) arrived, or could not be shown: the state takes it, with
/// the deep link as it is now (a link followed while the index loaded wins).
fn loaded(core: &Shared, result: Result<Vec<entry::Entry>, entry::LoadError>, first: First) {
    let First { record, compare } = first;
    core.call(move |core, view| {
        let follows = core.state.borrow().follows_link;
        let mut link = if follows {
            link::read()
        } else {
            project_lanes_view::deep_link::Link::default()
        };
        // `compare` wins over the link's, as `record` does.
        if compare.is_some() {
            link.compare = compare;
        }
        core.change(view, |s| ((), s.loaded(result, record, link)));
    });
}

/// `mount`'s options: absent (`undefined`, `null`) or a plain object of known names.
fn read_options(options: JsValue) -> Result<Options, String> {
    if options.is_undefined() || options.is_null() {
        return Ok(Options::default());
    }
    if !options.is_object() || js_sys::Array::is_array(&options) {
        return Err(
            "lane-viewer options: expected an object such as { src: \"records/index.json\" }, or nothing"
                .into(),
        );
    }
    for key in js_sys::Object::keys(options.unchecked_ref::<js_sys::Object>()).iter() {
        let key = key.as_string().unwrap_or_default();
        if !OPTION_NAMES.contains(&key.as_str()) {
            return Err(format!(
                "lane-viewer options: unknown field `{key}`, expected one of {OPTION_LIST}"
            ));
        }
    }
    let own = |name: &str| {
        let value = Reflect::get(&options, &JsValue::from_str(name)).unwrap_or_default();
        (!value.is_undefined() && !value.is_null()).then_some(value)
    };
    let text = |name: &str| match own(name) {
        None => Ok(None),
        Some(v) => v
            .as_string()
            .map(Some)
            .ok_or_else(|| wrong(name, "a string", &v)),
    };
    let flag = |name: &str| match own(name) {
        None => Ok(None),
        Some(v) => v
            .as_bool()
            .map(Some)
            .ok_or_else(|| wrong(name, "true or false", &v)),
    };
    let compare = match own("compare") {
        None => None,
        Some(v) => {
            Some(record_ids(&v).ok_or_else(|| wrong("compare", "a list of record ids", &v))?)
        }
    };
    Ok(Options {
        src: text("src")?,
        lang: text("lang")?,
        record: text("record")?,
        hash: flag("hash")?,
        open: flag("open")?,
        tabs: flag("tabs")?,
        text: text("text")?,
        compare,
        max_bytes: own("maxBytes").unwrap_or_default(),
        max_steps: own("maxSteps").unwrap_or_default(),
        signal: own("signal").unwrap_or_default(),
    })
}

/// The strings of an array (or of another iterable object), or `None` if it is not one or holds
/// something else.
fn record_ids(value: &JsValue) -> Option<Vec<String>> {
    if !value.is_object() {
        return None;
    }
    js_sys::try_iter(value)
        .ok()??
        .map(|item| item.ok()?.as_string())
        .collect()
}

/// `mount`'s refusal of option `name`, which is not `expected`.
fn wrong(name: &str, expected: &str, value: &JsValue) -> String {
    format!(
        "lane-viewer options: {name} must be {expected}, not {}",
        shown(value)
    )
}

/// A value as an error names it: a number as JavaScript writes it (`String(n)`: no float
/// formatting in the wasm), a string quoted, anything else by its type.
fn shown(value: &JsValue) -> String {
    match (value.as_f64(), value.as_string()) {
        (Some(n), _) => String::from(
            js_sys::Number::from(n)
                .to_string_with_radix(10)
                .unwrap_or_default(),
        ),
        (_, Some(text)) => format!("the string \"{text}\""),
        _ => {
            let kind = value.js_typeof().as_string().unwrap_or_default();
            let article = match kind.as_bytes().first() {
                Some(b'o' | b'u') => "an",
                _ => "a",
            };
            format!("{article} {kind}")
        }
    }
}

/// A step of a record of `steps` steps: a JavaScript number that is a whole number below
/// `steps`, nothing else.
fn step_number(value: &JsValue, steps: usize) -> Option<usize> {
    let n = value.as_f64()?;
    // `n as usize` would turn NaN into 0, 2.7 into 2 and -1 into 0: refuse them first.
    (n >= 0.0 && n.fract() == 0.0 && n < steps as f64).then_some(n as usize)
}

/// The first of the browser's preferred languages that the viewer speaks.
fn browser_lang() -> Option<Lang> {
    let navigator = web_sys::window()?.navigator();
    let languages = navigator.languages();
    (0..languages.length())
        .filter_map(|i| languages.get(i).as_string())
        .chain(navigator.language())
        .find_map(|tag| Lang::from_preference(&tag))
}

// Talc: binned free lists, so an allocation costs the same however many blocks are free. A
// single free list (lol_alloc's) walked every free block at each allocation: a 1,000,000-step
// record opened after a 100,000-step one was destroyed never finished loading.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_error_names_every_option_and_only_those() {
        let names = OPTION_NAMES.map(|n| format!("`{n}`")).join(", ");
        assert_eq!(OPTION_LIST, names);
    }

    #[test]
    fn a_limit_is_a_whole_number_javascript_holds_exactly() {
        assert_eq!(whole(1.0), Some(1));
        assert_eq!(whole(9_007_199_254_740_991.0), Some(9_007_199_254_740_991));
        for bad in [
            0.0,
            -1.0,
            1.5,
            f64::NAN,
            f64::INFINITY,
            9_007_199_254_740_992.0,
        ] {
            assert_eq!(whole(bad), None, "{bad}");
        }
    }
}
