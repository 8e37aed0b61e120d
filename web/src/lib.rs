//! # lane-viewer
//!
//! A WebAssembly viewer for saved project-lanes records, in English and Japanese. It fetches a
//! records index and the records it lists, checks each file's SHA-256 against the index, and shows
//! a record selector, each record's steps and the lanes after every step.
//!
//! It is not a simulator: it executes no work and never drives the lanes; it only displays what
//! the generator saved. It uses plain `web-sys` (no UI framework) and the browser's JSON parser
//! (no `serde_json` in the wasm).
//!
//! ```js
//! import init, { mount } from "./pkg/lane_viewer.js";
//! await init();
//! const viewer = await mount(document.querySelector("#lanes"), {
//!   src: "records/index.json", // default
//!   lang: "ja",                // else the deep link, the browser's languages, English
//!   record: "busy-project",    // else the deep link, else the first record
//!   hash: true,                // follow and update #record=<id>&lang=<en|ja>
//! });
//! viewer.select("stale-release");
//! viewer.set_lang("en");
//! viewer.destroy();
//! ```

mod app;
mod dom;
pub mod i18n;
mod js_de;
pub mod load;
mod render;
pub mod timeline;

use std::cell::RefCell;
use std::rc::Rc;

use serde::Deserialize;
use wasm_bindgen::prelude::*;
use web_sys::Element;

use app::{App, Origin};
use i18n::Lang;

/// Options of [`mount`]; every field is optional.
#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
struct Options {
    /// URL of the records index, relative to the page.
    src: Option<String>,
    /// `en` or `ja`.
    lang: Option<String>,
    /// The record to select first.
    record: Option<String>,
    /// Follow and update `location.hash` (`#record=<id>&lang=<en|ja>`).
    hash: bool,
}

/// A mounted viewer. Dropping the handle leaves the viewer on the page; `destroy` removes it.
#[wasm_bindgen]
pub struct Viewer {
    app: Rc<RefCell<App>>,
}

#[wasm_bindgen]
impl Viewer {
    /// Selects the record with this id. Returns `false` (and shows `UNKNOWN_RECORD`) if the
    /// index has no such record; the selection is then unchanged.
    pub fn select(&self, id: &str) -> bool {
        // `try_`: a page may call the viewer from inside an event the viewer itself caused.
        self.app
            .try_borrow_mut()
            .is_ok_and(|mut app| app.select(id, Origin::User))
    }

    /// Switches to `en` or `ja`, keeping the selected record. Returns `false` for any other tag.
    pub fn set_lang(&self, lang: &str) -> bool {
        match Lang::from_tag(lang) {
            Some(lang) => self
                .app
                .try_borrow_mut()
                .is_ok_and(|mut app| app.set_lang(lang, Origin::User)),
            None => false,
        }
    }

    /// A promise that resolves once every step of the selected record is in the page. Records of
    /// more than a few hundred steps finish rendering in the background after `mount`, `select`
    /// or `set_lang` return; small records are complete at once.
    pub fn settled(&self) -> js_sys::Promise {
        match self.app.try_borrow() {
            Ok(app) => app.settled(),
            Err(_) => js_sys::Promise::resolve(&JsValue::UNDEFINED),
        }
    }

    /// Timeline (issue 10): makes step `n` (from 0, like `data-step`) the current step: its card
    /// is highlighted and scrolled into view, its column marked, and the deep link (if followed)
    /// carries it as `step=n+1`. Returns `false` if the selected record has no such step.
    pub fn select_step(&self, n: u32) -> bool {
        self.app
            .try_borrow_mut()
            .is_ok_and(|mut app| app.select_step(n as usize, app::Origin::User))
    }

    /// Timeline (issue 10): the current step (from 0), if one is selected.
    #[wasm_bindgen(getter)]
    pub fn current_step(&self) -> Option<u32> {
        self.app.try_borrow().ok()?.current_step().map(|n| n as u32)
    }

    /// The selected record's id, if any record loaded.
    #[wasm_bindgen(getter)]
    pub fn selected(&self) -> Option<String> {
        self.app.try_borrow().ok()?.selected_id()
    }

    /// The current language tag.
    #[wasm_bindgen(getter)]
    pub fn lang(&self) -> String {
        self.app
            .try_borrow()
            .map_or(String::new(), |app| app.lang().tag().to_string())
    }

    /// Removes the viewer's DOM and its listeners.
    pub fn destroy(&self) {
        if let Ok(mut app) = self.app.try_borrow_mut() {
            app.destroy();
        }
    }
}

/// Mounts a viewer inside `element` and resolves once the first record is rendered (or the
/// loading error is shown). Rejects only for bad options.
#[wasm_bindgen]
pub async fn mount(element: Element, options: JsValue) -> Result<Viewer, JsValue> {
    let options: Options = if options.is_undefined() || options.is_null() {
        Options::default()
    } else {
        js_de::from_value(options)
            .map_err(|e| js_sys::TypeError::new(&format!("lane-viewer options: {e}")))?
    };
    let deep = if options.hash {
        app::read_hash()
    } else {
        (None, None)
    };
    let lang = options
        .lang
        .as_deref()
        .and_then(Lang::from_tag)
        .or(deep.1)
        .or_else(browser_lang)
        .unwrap_or(Lang::En);
    let app = App::new(&element, lang, options.hash);
    App::listen(&app);
    let src = options.src.as_deref().unwrap_or("records/index.json");
    let result = load::load(src).await;
    app.borrow_mut().loaded(result, options.record);
    Ok(Viewer { app })
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

// A small free-list allocator: dlmalloc costs several kilobytes of the wasm size budget.
#[cfg(target_arch = "wasm32")]
#[global_allocator]
static ALLOCATOR: lol_alloc::AssumeSingleThreaded<lol_alloc::FreeListAllocator> =
    // SAFETY: this wasm module is single-threaded (no atomics, no shared memory).
    unsafe { lol_alloc::AssumeSingleThreaded::new(lol_alloc::FreeListAllocator::new()) };
