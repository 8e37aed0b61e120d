//! One mounted viewer: its state (records, selection, language), its DOM, its listeners.
//!
//! Each viewer owns everything it touches below its own root element; several viewers on one
//! page share nothing (ids are prefixed per instance, listeners are per root).

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, Event, HtmlElement, KeyboardEvent};

use crate::dom::{Listener, append, attr, clear, el};
use crate::i18n::{Lang, Msg, ViewerError, text};
use crate::load::{Entry, LoadError};
use crate::render;
use crate::timeline;

thread_local! {
    static INSTANCES: Cell<u32> = const { Cell::new(0) };
}

/// Where a selection or language change came from: hash changes must not write the hash back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    User,
    Hash,
}

pub struct App {
    doc: Document,
    /// The viewer's own root, inside the embedder's element.
    root: Element,
    prefix: String,
    lang: Lang,
    hash_sync: bool,
    entries: Vec<Entry>,
    selected: usize,
    index_error: Option<LoadError>,
    notice: Option<LoadError>,
    status: Element,
    langs: Element,
    tablist: Element,
    panel: Element,
    /// Resolves when the selected record's steps are all in the page.
    settled: Option<js_sys::Promise>,
    listeners: Vec<Listener>,
    destroyed: bool,
    /// Timeline (issue 10): the current step of the selected record (from 0), if any.
    current_step: Option<usize>,
}

pub type Shared = Rc<RefCell<App>>;

impl App {
    /// Creates the viewer's root inside `host` with a loading message.
    pub fn new(host: &Element, lang: Lang, hash_sync: bool) -> Shared {
        let doc = host
            .owner_document()
            .expect_throw("element is not in a document");
        let n = INSTANCES.with(|c| {
            c.set(c.get() + 1);
            c.get()
        });
        let root = el(&doc, "div", "lane-viewer", None);
        attr(&root, "data-lane-viewer", "");
        let status = el(&doc, "div", "lv-status", None);
        attr(&status, "role", "status");
        let langs = el(&doc, "div", "lv-langs", None);
        attr(&langs, "role", "group");
        let tablist = el(&doc, "div", "lv-tabs", None);
        attr(&tablist, "role", "tablist");
        let panel = el(&doc, "section", "lv-panel", None);
        attr(&panel, "role", "tabpanel");
        attr(&panel, "tabindex", "0");
        let prefix = format!("lv{n}");
        attr(&panel, "id", &format!("{prefix}-panel"));
        for part in [&langs, &status, &tablist, &panel] {
            append(&root, part);
        }
        host.append_child(&root).unwrap_throw();
        let app = Rc::new(RefCell::new(App {
            doc,
            root,
            prefix,
            lang,
            hash_sync,
            entries: Vec::new(),
            selected: 0,
            index_error: None,
            notice: None,
            status,
            langs,
            tablist,
            panel,
            settled: None,
            listeners: Vec::new(),
            destroyed: false,
            current_step: None,
        }));
        app.borrow_mut().render_all(true);
        app
    }

    /// Registers the viewer's listeners, once: clicks and keys on its root, and `hashchange`
    /// on the window when it follows the deep link.
    pub fn listen(app: &Shared) {
        let weak = Rc::downgrade(app);
        let root = app.borrow().root.clone();
        let mut listeners = vec![
            Listener::new(&root, "click", with(&weak, App::on_click)),
            Listener::new(&root, "keydown", with(&weak, App::on_keydown)),
        ];
        if app.borrow().hash_sync
            && let Some(window) = web_sys::window()
        {
            listeners.push(Listener::new(
                &window,
                "hashchange",
                with(&weak, |app, _| app.apply_hash()),
            ));
        }
        app.borrow_mut().listeners = listeners;
    }

    /// Takes the loaded records (or the index error), applies the initial selection and renders.
    pub fn loaded(&mut self, result: Result<Vec<Entry>, LoadError>, initial: Option<String>) {
        match result {
            Ok(entries) => self.entries = entries,
            Err(error) => self.index_error = Some(error),
        }
        let deep = if self.hash_sync { read_hash().0 } else { None };
        if let Some(id) = initial.or(deep) {
            match self.position(&id) {
                Some(i) => self.selected = i,
                None if !self.entries.is_empty() => self.notice = Some(unknown(&id)),
                None => {}
            }
        }
        // Timeline (issue 10): the deep link's `step`, if it names a step of the selected record.
        if self.hash_sync
            && let Some(n) = timeline::read_step()
            && n < self.step_count()
        {
            self.current_step = Some(n);
        }
        self.render_all(false);
        if self.current_step.is_some() {
            self.show_step(true);
        }
        if self.hash_sync && !self.entries.is_empty() {
            self.write_hash(true);
        }
    }

    /// Timeline (issue 10): makes step `n` (from 0) current; `false` if there is no such step.
    pub fn select_step(&mut self, n: usize, origin: Origin) -> bool {
        if self.destroyed || n >= self.step_count() {
            return false;
        }
        if self.current_step != Some(n) {
            self.current_step = Some(n);
            self.show_step(origin == Origin::User);
        }
        if origin == Origin::User && self.hash_sync {
            self.write_hash(false);
        }
        true
    }

    pub fn current_step(&self) -> Option<usize> {
        self.current_step
    }

    /// Steps of the selected record (0 if it did not load).
    fn step_count(&self) -> usize {
        self.entries
            .get(self.selected)
            .and_then(|e| e.content.as_ref().ok())
            .map_or(0, |l| l.record.steps.len())
    }

    /// Timeline (issue 10): draws the current step into the panel.
    fn show_step(&self, scroll: bool) {
        let settled = self.settled.clone();
        let (root, panel) = (&self.root, &self.panel);
        timeline::show(root, panel, self.lang, self.current_step, scroll, settled);
    }

    pub fn lang(&self) -> Lang {
        self.lang
    }

    pub fn selected_id(&self) -> Option<String> {
        self.entries.get(self.selected).map(|e| e.id.clone())
    }

    /// Selects the record `id`; an unknown id shows `UNKNOWN_RECORD` and keeps the selection.
    pub fn select(&mut self, id: &str, origin: Origin) -> bool {
        if self.destroyed {
            return false;
        }
        match self.position(id) {
            Some(i) => {
                self.select_index(i, origin);
                true
            }
            None => {
                self.notice = Some(unknown(id));
                self.render_status();
                false
            }
        }
    }

    /// Switches language, keeping the selected record.
    pub fn set_lang(&mut self, lang: Lang, origin: Origin) -> bool {
        if self.destroyed {
            return false;
        }
        if lang != self.lang {
            self.lang = lang;
            self.render_all(false);
        }
        if origin == Origin::User && self.hash_sync {
            self.write_hash(false);
        }
        true
    }

    /// Removes the viewer's DOM and listeners; afterwards `select` and `set_lang` do nothing.
    pub fn destroy(&mut self) {
        self.destroyed = true;
        self.listeners.clear();
        // Emptying the panel also stops a large record's background rendering.
        clear(&self.panel);
        self.root.remove();
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }

    fn select_index(&mut self, i: usize, origin: Origin) {
        let changed = i != self.selected;
        self.selected = i;
        if self.notice.take().is_some() {
            self.render_status();
        }
        if changed {
            self.current_step = None; // Timeline (issue 10): a new record starts with no step.
            self.update_tabs();
            self.render_panel();
        }
        if origin == Origin::User && self.hash_sync {
            self.write_hash(false);
        }
    }

    fn render_all(&mut self, loading: bool) {
        let lang = self.lang;
        attr(&self.root, "lang", lang.tag());
        attr(&self.root, "aria-label", text(lang, Msg::ViewerLabel));
        if loading {
            attr(&self.root, "aria-busy", "true");
        } else {
            self.root.remove_attribute("aria-busy").ok();
        }
        self.render_langs();
        self.render_status();
        if loading {
            append(
                &self.status,
                &el(&self.doc, "p", "lv-loading", Some(text(lang, Msg::Loading))),
            );
        }
        clear(&self.tablist);
        attr(&self.tablist, "aria-label", text(lang, Msg::RecordsLabel));
        for (i, entry) in self.entries.iter().enumerate() {
            let id = format!("{}-tab-{i}", self.prefix);
            let tab = render::tab(&self.doc, lang, entry, &id, &self.panel.id());
            append(&self.tablist, &tab);
        }
        self.update_tabs();
        self.render_panel();
    }

    fn render_langs(&self) {
        clear(&self.langs);
        attr(
            &self.langs,
            "aria-label",
            text(self.lang, Msg::LanguageLabel),
        );
        for lang in Lang::ALL {
            let button = el(&self.doc, "button", "lv-lang", Some(lang.name()));
            attr(&button, "type", "button");
            attr(&button, "lang", lang.tag());
            attr(&button, "data-lang-choice", lang.tag());
            attr(
                &button,
                "aria-pressed",
                if lang == self.lang { "true" } else { "false" },
            );
            append(&self.langs, &button);
        }
    }

    fn render_status(&self) {
        clear(&self.status);
        for error in [&self.index_error, &self.notice].into_iter().flatten() {
            append(
                &self.status,
                &render::error_box(&self.doc, self.lang, error),
            );
        }
    }

    fn update_tabs(&self) {
        let tabs = self.tablist.children();
        for i in 0..tabs.length() {
            let Some(tab) = tabs.item(i) else { continue };
            let selected = i as usize == self.selected;
            attr(
                &tab,
                "aria-selected",
                if selected { "true" } else { "false" },
            );
            attr(&tab, "tabindex", if selected { "0" } else { "-1" });
        }
    }

    fn render_panel(&mut self) {
        self.settled = None;
        clear(&self.panel);
        for name in ["data-selected-record", "aria-labelledby"] {
            self.panel.remove_attribute(name).ok();
        }
        let Some(entry) = self.entries.get(self.selected) else {
            self.panel.set_attribute("hidden", "").ok();
            return;
        };
        self.panel.remove_attribute("hidden").ok();
        attr(
            &self.panel,
            "aria-labelledby",
            &format!("{}-tab-{}", self.prefix, self.selected),
        );
        self.settled = render::panel(&self.doc, self.lang, &self.panel, entry);
        self.show_step(false); // Timeline (issue 10): keep the current step across redraws.
    }

    /// A promise that resolves once every step of the selected record is in the page.
    pub fn settled(&self) -> js_sys::Promise {
        self.settled
            .clone()
            .unwrap_or_else(|| js_sys::Promise::resolve(&JsValue::UNDEFINED))
    }

    /// Handles a click; returns the element to focus afterwards (see [`with`]).
    fn on_click(&mut self, event: Event) -> Option<HtmlElement> {
        let target = event_element(&event)?;
        if let Some(tab) = closest(&target, "[role=tab][data-record-id]")
            && let Some(id) = tab.get_attribute("data-record-id")
        {
            self.select(&id, Origin::User);
            None
        } else if let Some(button) = closest(&target, "[data-lang-choice]")
            && let Some(lang) = button
                .get_attribute("data-lang-choice")
                .and_then(|t| Lang::from_tag(&t))
        {
            self.set_lang(lang, Origin::User);
            // The switcher was rebuilt: keep focus on the same choice.
            self.find(&format!("[data-lang-choice={}]", lang.tag()))
        } else if let Some(action) = timeline::click(&target, &event) {
            // Timeline (issue 10): a column, or the previous/next buttons.
            if let Some(n) = action.target(self.current_step, self.step_count()) {
                self.select_step(n, Origin::User);
            }
            None
        } else {
            None
        }
    }

    /// WAI-ARIA tabs with automatic activation: arrows move and select, Home/End jump.
    /// Returns the tab to focus afterwards.
    fn on_keydown(&mut self, event: Event) -> Option<HtmlElement> {
        // Timeline (issue 10): arrows, Home and End move the current step.
        if let Some(target) = event_element(&event)
            && let Some(action) = timeline::key(&target, &event)
        {
            event.prevent_default();
            if let Some(n) = action.target(self.current_step, self.step_count()) {
                self.select_step(n, Origin::User);
            }
            return None;
        }
        let key = event.dyn_ref::<KeyboardEvent>()?.key();
        let on_tab = event_element(&event)
            .is_some_and(|t| t.get_attribute("role").as_deref() == Some("tab"));
        let count = self.entries.len();
        if !on_tab || count == 0 {
            return None;
        }
        let next = match key.as_str() {
            "ArrowRight" | "ArrowDown" => (self.selected + 1) % count,
            "ArrowLeft" | "ArrowUp" => (self.selected + count - 1) % count,
            "Home" => 0,
            "End" => count - 1,
            _ => return None,
        };
        event.prevent_default();
        self.select_index(next, Origin::User);
        self.find(&format!("#{}-tab-{next}", self.prefix))
    }

    fn find(&self, selector: &str) -> Option<HtmlElement> {
        self.root.query_selector(selector).ok()??.dyn_into().ok()
    }

    fn apply_hash(&mut self) -> Option<HtmlElement> {
        let (record, lang) = read_hash();
        if let Some(lang) = lang {
            self.set_lang(lang, Origin::Hash);
        }
        if let Some(id) = record
            && self.selected_id().as_deref() != Some(id.as_str())
        {
            self.select(&id, Origin::Hash);
        }
        // Timeline (issue 10): the deep link's step, or none.
        match timeline::read_step() {
            Some(n) => {
                self.select_step(n, Origin::Hash);
            }
            None if self.current_step.is_some() => {
                self.current_step = None;
                self.show_step(false);
            }
            None => {}
        }
        None
    }

    /// Writes `#record=<id>&lang=<tag>`: a new history entry, or a replacement at mount.
    fn write_hash(&self, replace: bool) {
        let Some(id) = self.selected_id() else { return };
        let mut hash = format!("#record={id}&lang={}", self.lang.tag());
        if let Some(n) = self.current_step {
            hash.push_str(&format!("&step={}", n + 1)); // Timeline (issue 10), from 1.
        }
        let Some(window) = web_sys::window() else {
            return;
        };
        let location = window.location();
        if location.hash().ok().as_deref() == Some(hash.as_str()) {
            return;
        }
        if replace {
            if let Ok(history) = window.history() {
                history
                    .replace_state_with_url(&JsValue::NULL, "", Some(&hash))
                    .ok();
            }
        } else {
            location.set_hash(&hash).ok();
        }
    }
}

/// Wraps a method so a listener can call it through a weak reference (no cycle: the app owns
/// its listeners, the listeners do not own the app). Focus moves only after the app is released:
/// `focus()` fires focus and blur events at once, and a page's handler for them may call the
/// viewer again.
fn with<F: Fn(&mut App, Event) -> Option<HtmlElement> + 'static>(
    weak: &Weak<RefCell<App>>,
    f: F,
) -> impl FnMut(Event) + use<F> {
    let weak = weak.clone();
    move |event| {
        let Some(app) = weak.upgrade() else { return };
        let focus = match app.try_borrow_mut() {
            Ok(mut app) => f(&mut app, event),
            Err(_) => return,
        };
        if let Some(element) = focus {
            element.focus().ok();
        }
    }
}

fn event_element(event: &Event) -> Option<Element> {
    event.target()?.dyn_into::<Element>().ok()
}

fn closest(element: &Element, selector: &str) -> Option<Element> {
    element.closest(selector).ok().flatten()
}

fn unknown(id: &str) -> LoadError {
    LoadError::new(ViewerError::UnknownRecord, format!("record \"{id}\""))
}

/// Reads `#record=<id>&lang=<en|ja>` from the page's location.
pub fn read_hash() -> (Option<String>, Option<Lang>) {
    let hash = web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default();
    parse_hash(&hash)
}

/// Parses a deep link; unknown keys and languages are ignored.
pub fn parse_hash(hash: &str) -> (Option<String>, Option<Lang>) {
    let mut record = None;
    let mut lang = None;
    for pair in hash.trim_start_matches('#').split('&') {
        match pair.split_once('=') {
            Some(("record", id)) if !id.is_empty() => record = Some(id.to_string()),
            Some(("lang", tag)) => lang = Lang::from_tag(tag).or(lang),
            _ => {}
        }
    }
    (record, lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deep_links_name_a_record_and_a_language() {
        assert_eq!(
            parse_hash("#record=busy-project&lang=ja"),
            (Some("busy-project".into()), Some(Lang::Ja))
        );
        assert_eq!(parse_hash("#lang=fr&record="), (None, None));
        assert_eq!(parse_hash(""), (None, None));
        assert_eq!(parse_hash("#x=1&record=a"), (Some("a".into()), None));
    }
}
