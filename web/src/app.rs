//! One mounted viewer: its state (records, selection, language), its DOM, its listeners.
//!
//! Each viewer owns everything it touches below its own root element; several viewers on one
//! page share nothing (element ids come from one counter per document, listeners are per root).
//!
//! Every change goes through [`Core::call`]: it runs at once, or — when a page's handler calls
//! the viewer while the viewer itself is changing the page (focus and blur events fire
//! synchronously) — right after the current change. Getters read a [`Mirror`] of the state that
//! is never held across DOM work, so they answer at any moment.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use js_sys::{Reflect, Symbol};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, Event, HtmlElement, HtmlInputElement, KeyboardEvent};

use crate::dom::{Listener, append, attr, clear, el};
use crate::i18n::{Lang, Msg, ViewerError, text};
use crate::load::{self, Entry, LoadError, Opened};
use crate::panels::Panels;
use crate::render;
use crate::timeline;
use crate::verify;

thread_local! {
    /// Every mounted viewer until `destroy`: the page's element keeps its viewer alive even when
    /// the page drops the handle `mount` returned.
    static LIVE: RefCell<Vec<Rc<Core>>> = const { RefCell::new(Vec::new()) };
}

/// Where a selection or language change came from: hash changes must not write the hash back.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    User,
    Hash,
}

/// What the handle's getters read, kept outside the app's `RefCell`.
pub struct Mirror {
    pub selected: RefCell<Option<String>>,
    pub lang: Cell<Lang>,
    pub ids: RefCell<Vec<String>>,
    pub loading: Cell<bool>,
    pub destroyed: Cell<bool>,
    pub settled: RefCell<Option<js_sys::Promise>>,
    /// Timeline (issue 10): the current step (from 0) and the selected record's step count.
    pub current_step: Cell<Option<usize>>,
    pub steps: Cell<usize>,
}

type Call = Box<dyn FnOnce(&mut App)>;

/// A viewer: the app and the calls waiting for it.
pub struct Core {
    app: RefCell<App>,
    pub mirror: Rc<Mirror>,
    queue: RefCell<VecDeque<Call>>,
}

pub type Shared = Rc<Core>;

impl Core {
    /// Runs `f` on the app now, or queues it until the app's current change is done. Focus moves
    /// only once the app is released: `focus()` fires events whose handlers may call the viewer.
    pub fn call(&self, f: impl FnOnce(&mut App) + 'static) {
        let Ok(mut app) = self.app.try_borrow_mut() else {
            self.queue.borrow_mut().push_back(Box::new(f));
            return;
        };
        f(&mut app);
        let mut focus = app.focus_after.take();
        drop(app);
        loop {
            if let Some(element) = focus.take() {
                element.focus().ok();
            }
            let Some(next) = self.queue.borrow_mut().pop_front() else {
                break;
            };
            let Ok(mut app) = self.app.try_borrow_mut() else {
                break;
            };
            next(&mut app);
            focus = app.focus_after.take();
        }
    }

    /// Registers the viewer as live (kept until `destroy`).
    pub fn keep(core: &Shared) {
        LIVE.with(|live| live.borrow_mut().push(core.clone()));
    }

    fn forget(core: *const Core) {
        LIVE.with(|live| {
            if let Ok(mut live) = live.try_borrow_mut() {
                live.retain(|c| !std::ptr::eq(Rc::as_ptr(c), core));
            }
        });
    }
}

pub struct App {
    doc: Document,
    /// The viewer's own root, inside the embedder's element.
    root: Element,
    prefix: String,
    lang: Lang,
    hash_sync: bool,
    open_controls: bool,
    entries: Vec<Entry>,
    selected: usize,
    index_error: Option<LoadError>,
    notice: Option<LoadError>,
    status: Element,
    langs: Element,
    tools: Element,
    tablist: Element,
    panel: Element,
    listeners: Vec<Listener>,
    destroyed: bool,
    mirror: Rc<Mirror>,
    core: Weak<Core>,
    /// The element to focus once the current change is done (see [`Core::call`]).
    focus_after: Option<HtmlElement>,
    /// Timeline (issue 10): the current step of the selected record (from 0), if any.
    current_step: Option<usize>,
    /// Timeline (issue 10): the timelines built so far, per record and language, so switching
    /// back to a record reuses its drawing.
    timelines: Vec<(Rc<load::Loaded>, Lang, Element)>,
    /// Panels built so far, put back when their record is shown again.
    panels: Panels,
    /// The deep link's step for a selected record that is still loading.
    wanted_step: Option<usize>,
}

/// The document-wide counter of viewer ids: shared by every copy of this module on the page.
fn next_prefix(doc: &Document) -> String {
    let key = Symbol::for_("lane-viewer.ids");
    let mut n = Reflect::get(doc, &key)
        .ok()
        .and_then(|v| v.as_f64())
        .unwrap_or(0.0) as u64;
    loop {
        n += 1;
        let prefix = format!("lv{n}");
        // Also skip ids something else on the page already uses.
        if doc.get_element_by_id(&format!("{prefix}-panel")).is_none()
            && doc.get_element_by_id(&format!("{prefix}-tab-0")).is_none()
        {
            let _ = Reflect::set(doc, &key, &JsValue::from_f64(n as f64));
            return prefix;
        }
    }
}

/// The viewer that follows the page's hash, if any: one per document.
fn hash_owner_key() -> Symbol {
    Symbol::for_("lane-viewer.hash")
}

/// Whether another live viewer on this page already follows the hash.
pub fn hash_taken(doc: &Document) -> bool {
    Reflect::get(doc, &hash_owner_key())
        .ok()
        .and_then(|v| v.dyn_into::<Element>().ok())
        .is_some_and(|root| root.is_connected())
}

impl App {
    /// Creates the viewer's root inside `host` with a loading message.
    pub fn create(host: &Element, lang: Lang, hash_sync: bool, open_controls: bool) -> Shared {
        let doc = host
            .owner_document()
            .expect_throw("element is not in a document");
        let prefix = next_prefix(&doc);
        let root = el(&doc, "div", "lane-viewer", None);
        attr(&root, "data-lane-viewer", "");
        let status = el(&doc, "div", "lv-status", None);
        attr(&status, "role", "status");
        let langs = el(&doc, "div", "lv-langs", None);
        attr(&langs, "role", "group");
        let tools = el(&doc, "div", "lv-tools", None);
        let tablist = el(&doc, "div", "lv-tabs", None);
        attr(&tablist, "role", "tablist");
        let panel = el(&doc, "section", "lv-panel", None);
        attr(&panel, "role", "tabpanel");
        attr(&panel, "tabindex", "0");
        attr(&panel, "id", &format!("{prefix}-panel"));
        for part in [&langs, &tools, &status, &tablist, &panel] {
            append(&root, part);
        }
        host.append_child(&root).unwrap_throw();
        if hash_sync {
            let _ = Reflect::set(&doc, &hash_owner_key(), &root);
        }
        let mirror = Rc::new(Mirror {
            selected: RefCell::new(None),
            lang: Cell::new(lang),
            ids: RefCell::new(Vec::new()),
            loading: Cell::new(true),
            destroyed: Cell::new(false),
            settled: RefCell::new(None),
            current_step: Cell::new(None),
            steps: Cell::new(0),
        });
        let core = Rc::new_cyclic(|weak| Core {
            app: RefCell::new(App {
                doc,
                root,
                prefix,
                lang,
                hash_sync,
                open_controls,
                entries: Vec::new(),
                selected: 0,
                index_error: None,
                notice: None,
                status,
                langs,
                tools,
                tablist,
                panel,
                listeners: Vec::new(),
                destroyed: false,
                mirror: mirror.clone(),
                core: weak.clone(),
                focus_after: None,
                current_step: None,
                timelines: Vec::new(),
                panels: Panels::default(),
                wanted_step: None,
            }),
            mirror,
            queue: RefCell::new(VecDeque::new()),
        });
        core.call(|app| app.render_all());
        core
    }

    /// Registers the viewer's listeners, once: clicks, keys, file choices and drops on its root,
    /// and `hashchange` on the window when it follows the deep link.
    pub fn listen(core: &Shared) {
        let weak = Rc::downgrade(core);
        core.call(move |app| {
            let root = app.root.clone();
            let mut listeners = vec![
                Listener::new(&root, "click", with(&weak, App::on_click)),
                Listener::new(&root, "keydown", with(&weak, App::on_keydown)),
            ];
            if app.open_controls {
                listeners.push(Listener::new(&root, "change", with(&weak, App::on_change)));
                listeners.push(Listener::new(&root, "dragover", |event: Event| {
                    // Accepting the drag is what makes the drop event fire.
                    event.prevent_default();
                }));
                listeners.push(Listener::new(&root, "drop", with(&weak, App::on_drop)));
            }
            if app.hash_sync
                && let Some(window) = web_sys::window()
            {
                listeners.push(Listener::new(
                    &window,
                    "hashchange",
                    with(&weak, |app, _| app.apply_hash()),
                ));
            }
            app.listeners = listeners;
        });
    }

    /// Takes the loaded records (or the index error), applies the initial selection and renders.
    pub fn loaded(&mut self, result: Result<Vec<Entry>, LoadError>, initial: Option<String>) {
        if self.destroyed {
            return;
        }
        self.mirror.loading.set(false);
        match result {
            Ok(entries) => {
                // Records opened while the index loaded stay, after the index's.
                let opened = std::mem::take(&mut self.entries);
                self.entries = entries;
                self.panels.clear();
                self.add_entries(opened);
            }
            Err(error) => self.index_error = Some(error),
        }
        // The hash is read now, not at mount: a deep link followed while loading wins.
        let deep = if self.hash_sync { read_hash().0 } else { None };
        if let Some(id) = initial.or(deep) {
            match self.position(&id) {
                Some(i) => self.selected = i,
                None if !self.entries.is_empty() => self.notice = Some(unknown(&id)),
                None => {}
            }
        }
        // Timeline (issue 10): the deep link's `step`, if it names a step of the selected record
        // (kept until that record arrives, if it is still loading).
        if self.hash_sync
            && let Some(n) = timeline::read_step()
        {
            if self.entries.get(self.selected).is_some_and(|e| e.pending) {
                self.wanted_step = Some(n);
            } else if n < self.step_count() {
                self.current_step = Some(n);
            }
        }
        self.sync_mirror();
        self.render_all();
        if self.current_step.is_some() {
            self.show_step(true);
        }
        if self.hash_sync && !self.entries.is_empty() {
            self.write_hash(true);
        }
    }

    /// Record `i` of the index arrived (or failed): its tab and, if it is selected, the panel show
    /// it. Records arrive one by one after [`loaded`](Self::loaded), the selected one first.
    pub fn arrived(&mut self, i: usize, content: Result<Rc<load::Loaded>, LoadError>) {
        if self.destroyed {
            return;
        }
        let Some(entry) = self.entries.get_mut(i).filter(|e| e.pending) else {
            return;
        };
        entry.pending = false;
        entry.content = content;
        let old = self.tablist.children().item(i as u32);
        if let Some(old) = old.as_ref().filter(|_| self.entries[i].content.is_ok()) {
            // Nothing else about the tab changes: no new style or layout for the page.
            old.remove_attribute("aria-busy").ok();
        } else if let Some(old) = old {
            // A failed record's tab says so (class, code, words): built again.
            let id = format!("{}-tab-{i}", self.prefix);
            let tab = render::tab(
                &self.doc,
                self.lang,
                &self.entries[i],
                &id,
                &self.panel.id(),
            );
            let focused = self.doc.active_element().is_some_and(|a| a == old);
            old.replace_with_with_node_1(&tab).ok();
            self.update_tabs();
            if focused && let Ok(tab) = tab.dyn_into::<HtmlElement>() {
                tab.focus().ok();
            }
        }
        if !self.entries.iter().any(|e| e.pending) {
            self.root.remove_attribute("aria-busy").ok();
            if let Ok(Some(line)) = self.status.query_selector(".lv-loading") {
                line.remove();
            }
        }
        if i == self.selected {
            self.mirror.steps.set(self.step_count());
            self.render_panel();
            if let Some(n) = self.wanted_step.take().filter(|&n| n < self.step_count()) {
                self.set_current_step(Some(n));
                self.show_step(true);
                if self.hash_sync {
                    self.write_hash(true);
                }
            }
        }
    }

    /// Timeline (issue 10): makes step `n` (from 0) current; `false` if there is no such step.
    pub fn select_step(&mut self, n: usize, origin: Origin) -> bool {
        if self.destroyed || n >= self.step_count() {
            return false;
        }
        if self.current_step != Some(n) {
            self.set_current_step(Some(n));
            self.show_step(origin == Origin::User);
        }
        if origin == Origin::User && self.hash_sync {
            self.write_hash(false);
        }
        true
    }

    /// Timeline (issue 10): the current step, here and in the mirror.
    fn set_current_step(&mut self, step: Option<usize>) {
        self.current_step = step;
        self.mirror.current_step.set(step);
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
        let settled = self.mirror.settled.borrow().clone();
        let (root, panel) = (&self.root, &self.panel);
        timeline::show(root, panel, self.lang, self.current_step, scroll, settled);
    }

    fn sync_mirror(&self) {
        *self.mirror.selected.borrow_mut() = self.selected_id();
        self.mirror.lang.set(self.lang);
        *self.mirror.ids.borrow_mut() = self.entries.iter().map(|e| e.id.clone()).collect();
        self.mirror.current_step.set(self.current_step);
        self.mirror.steps.set(self.step_count());
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
            self.mirror.lang.set(lang);
            self.render_all();
        }
        if origin == Origin::User && self.hash_sync {
            self.write_hash(false);
        }
        true
    }

    /// Opens files a person chose, dropped or handed over with `open_text`: they become tabs
    /// after the others, and the first is selected. Nothing leaves the browser.
    pub fn open(&mut self, files: Vec<Opened>) {
        if self.destroyed || files.is_empty() {
            return;
        }
        let entries = load::read_opened(files);
        let first = self.entries.len();
        self.add_entries(entries);
        if first < self.entries.len() && !self.mirror.loading.get() {
            self.selected = first;
            self.notice = None;
            self.current_step = None; // Timeline (issue 10): a new record starts with no step.
            self.sync_mirror();
            self.render_all();
            if self.hash_sync {
                self.write_hash(false);
            }
        } else {
            self.sync_mirror();
        }
    }

    /// Appends entries; an opened record whose id is already shown becomes an error tab, named by
    /// its file name.
    fn add_entries(&mut self, entries: Vec<Entry>) {
        for mut entry in entries {
            if entry.content.is_ok() && self.position(&entry.id).is_some() {
                let error = LoadError::new(
                    ViewerError::DuplicateRecord,
                    format!("a record with the id \"{}\" is already shown", entry.id),
                );
                entry = load::failed(&entry.file, error);
            }
            if entry.id.is_empty() || self.position(&entry.id).is_some() {
                // An opened file that could not be read is named by its file name.
                let base = entry.file.clone();
                let mut id = base.clone();
                let mut n = 1;
                while self.position(&id).is_some() {
                    n += 1;
                    id = format!("{base} ({n})");
                }
                entry.id = id;
            }
            self.entries.push(entry);
        }
    }

    /// Removes the viewer's DOM and listeners; afterwards `select` and `set_lang` do nothing.
    pub fn destroy(&mut self) {
        self.destroyed = true;
        self.mirror.destroyed.set(true);
        self.listeners.clear();
        // Emptying the panel also stops a large record's background rendering; dropping the
        // entries stops their background verification.
        clear(&self.panel);
        self.entries.clear();
        self.timelines.clear();
        self.panels.clear();
        if self.hash_sync
            && Reflect::get(&self.doc, &hash_owner_key())
                .ok()
                .is_some_and(|owner| owner == JsValue::from(&self.root))
        {
            let _ = Reflect::delete_property(&self.doc, &hash_owner_key());
        }
        self.root.remove();
        if let Some(core) = self.core.upgrade() {
            Core::forget(Rc::as_ptr(&core));
        }
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.entries.iter().position(|e| e.id == id)
    }

    fn select_index(&mut self, i: usize, origin: Origin) {
        let changed = i != self.selected;
        self.selected = i;
        *self.mirror.selected.borrow_mut() = self.selected_id();
        if self.notice.take().is_some() {
            self.render_status();
        }
        if changed {
            self.wanted_step = None;
            // Timeline (issue 10): a new record starts with no step.
            self.set_current_step(None);
            self.mirror.steps.set(self.step_count());
            self.update_tabs();
            self.render_panel();
        }
        if origin == Origin::User && self.hash_sync {
            self.write_hash(false);
        }
    }

    /// What has focus inside the viewer, to give the same place focus after a rebuild.
    fn focus_key(&self) -> Option<String> {
        let active = self.doc.active_element()?;
        if !self.root.contains(Some(&active)) {
            return None;
        }
        if let Some(id) = active
            .get_attribute("role")
            .filter(|r| r == "tab")
            .and(active.get_attribute("data-record-id"))
        {
            return Some(format!(
                "[role=tab][data-record-id=\"{}\"]",
                css_string(&id)
            ));
        }
        if let Some(tag) = active.get_attribute("data-lang-choice") {
            return Some(format!("[data-lang-choice={tag}]"));
        }
        if active.has_attribute("data-open-records") {
            return Some("[data-open-records]".into());
        }
        if self.panel.contains(Some(&active)) {
            return Some("[role=tabpanel]".into());
        }
        None
    }

    fn render_all(&mut self) {
        let focus = self.focus_key();
        let lang = self.lang;
        let loading = self.mirror.loading.get() || self.entries.iter().any(|e| e.pending);
        attr(&self.root, "lang", lang.tag());
        attr(&self.root, "aria-label", text(lang, Msg::ViewerLabel));
        if loading {
            attr(&self.root, "aria-busy", "true");
        } else {
            self.root.remove_attribute("aria-busy").ok();
        }
        self.render_langs();
        self.render_tools();
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
        if let Some(selector) = focus {
            self.focus_after = self.find(&selector);
        }
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

    fn render_tools(&self) {
        clear(&self.tools);
        if self.open_controls {
            render::open_controls(&self.doc, self.lang, &self.tools);
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
        *self.mirror.settled.borrow_mut() = None;
        self.panels.leave(&self.panel);
        clear(&self.panel);
        for name in [
            "data-selected-record",
            "aria-labelledby",
            "data-verification",
        ] {
            self.panel.remove_attribute(name).ok();
        }
        let Some(entry) = self.entries.get(self.selected) else {
            self.panel.set_attribute("hidden", "").ok();
            return;
        };
        if let Ok(loaded) = &entry.content {
            let weak = self.core.clone();
            verify::start(loaded, move |loaded| {
                let Some(core) = weak.upgrade() else { return };
                let loaded = loaded.clone();
                core.call(move |app| app.refresh_verification(&loaded));
            });
        }
        self.panel.remove_attribute("hidden").ok();
        attr(
            &self.panel,
            "aria-labelledby",
            &format!("{}-tab-{}", self.prefix, self.selected),
        );
        if let Ok(loaded) = &entry.content
            && self
                .panels
                .restore(&self.doc, &self.panel, loaded, self.lang)
        {
            attr(&self.panel, "data-selected-record", &entry.id);
            self.show_step(false);
            return;
        }
        let (doc, lang, prefix, timelines) =
            (&self.doc, self.lang, self.panel.id(), &mut self.timelines);
        let mut timeline = |loaded: &Rc<load::Loaded>| {
            let cached = timelines
                .iter()
                .find(|(l, g, _)| *g == lang && Rc::ptr_eq(l, loaded));
            if let Some((_, _, section)) = cached {
                return section.clone();
            }
            let section = timeline::section(doc, lang, &loaded.record, &prefix);
            timelines.push((loaded.clone(), lang, section.clone()));
            section
        };
        let settled = render::panel(&self.doc, self.lang, &self.panel, entry, &mut timeline);
        *self.mirror.settled.borrow_mut() = settled;
        if let Ok(loaded) = &entry.content {
            self.panels.shown(loaded, self.lang);
        }
        self.show_step(false); // Timeline (issue 10): keep the current step across redraws.
    }

    /// Shows new verification progress or its result, if that record is the one shown.
    fn refresh_verification(&mut self, loaded: &Rc<load::Loaded>) {
        if self.destroyed {
            return;
        }
        let shown = self
            .entries
            .get(self.selected)
            .and_then(|e| e.content.as_ref().ok())
            .is_some_and(|l| Rc::ptr_eq(l, loaded));
        if shown {
            render::update_verification(&self.doc, self.lang, &self.panel, loaded);
        }
    }

    /// A promise that resolves once every step of the selected record is in the page.
    pub fn settled(mirror: &Mirror) -> js_sys::Promise {
        mirror
            .settled
            .borrow()
            .clone()
            .unwrap_or_else(|| js_sys::Promise::resolve(&JsValue::UNDEFINED))
    }

    /// Handles a click.
    fn on_click(&mut self, event: Event) {
        let Some(target) = event_element(&event) else {
            return;
        };
        if let Some(tab) = closest(&target, "[role=tab][data-record-id]")
            && let Some(id) = tab.get_attribute("data-record-id")
        {
            self.select(&id, Origin::User);
        } else if let Some(button) = closest(&target, "[data-lang-choice]")
            && let Some(lang) = button
                .get_attribute("data-lang-choice")
                .and_then(|t| Lang::from_tag(&t))
        {
            self.set_lang(lang, Origin::User);
            // The switcher was rebuilt: keep focus on the same choice.
            self.focus_after = self.find(&format!("[data-lang-choice={}]", lang.tag()));
        } else if closest(&target, "[data-open-records]").is_some() {
            if let Some(input) = self.find("input[data-open-input]") {
                input.click();
            }
        } else if let Some(link) = closest(&target, "[data-goto-step]") {
            event.prevent_default();
            let step = link.get_attribute("data-goto-step").unwrap_or_default();
            if let Some(step) = self.find(&format!("[data-step=\"{}\"]", css_string(&step))) {
                attr(&step, "tabindex", "-1");
                step.scroll_into_view();
                self.focus_after = Some(step);
            }
        } else if let Some(action) = timeline::click(&target, &event) {
            // Timeline (issue 10): a column, or the previous/next buttons.
            if let Some(n) = action.target(self.current_step, self.step_count()) {
                self.select_step(n, Origin::User);
            }
        }
    }

    /// The file picker's choice.
    fn on_change(&mut self, event: Event) {
        let Some(input) = event
            .target()
            .and_then(|t| t.dyn_into::<HtmlInputElement>().ok())
        else {
            return;
        };
        if !input.has_attribute("data-open-input") {
            return;
        }
        let files = input.files();
        read_files(self.core.clone(), files);
        input.set_value("");
    }

    /// Files dropped on the viewer.
    fn on_drop(&mut self, event: Event) {
        let Some(drag) = event.dyn_ref::<web_sys::DragEvent>() else {
            return;
        };
        event.prevent_default();
        let files = drag.data_transfer().and_then(|d| d.files());
        read_files(self.core.clone(), files);
    }

    /// WAI-ARIA tabs with automatic activation: arrows move from the focused tab and select,
    /// Home/End jump. Keys with a modifier (Alt+Arrow is the browser's Back) are left alone.
    fn on_keydown(&mut self, event: Event) {
        let Some(keys) = event.dyn_ref::<KeyboardEvent>() else {
            return;
        };
        if keys.alt_key() || keys.ctrl_key() || keys.meta_key() || keys.shift_key() {
            return;
        }
        // Timeline (issue 10): arrows, Home and End move the current step.
        if let Some(target) = event_element(&event)
            && let Some(action) = timeline::key(&target, &event)
        {
            event.prevent_default();
            if let Some(n) = action.target(self.current_step, self.step_count()) {
                self.select_step(n, Origin::User);
            }
            return;
        }
        let key = keys.key();
        let Some(tab) =
            event_element(&event).filter(|t| t.get_attribute("role").as_deref() == Some("tab"))
        else {
            return;
        };
        let count = self.entries.len();
        let Some(from) = tab
            .get_attribute("data-record-id")
            .and_then(|id| self.position(&id))
        else {
            return;
        };
        let next = match key.as_str() {
            "ArrowRight" | "ArrowDown" => (from + 1) % count,
            "ArrowLeft" | "ArrowUp" => (from + count - 1) % count,
            "Home" => 0,
            "End" => count - 1,
            _ => return,
        };
        event.prevent_default();
        self.select_index(next, Origin::User);
        self.focus_after = self.find(&format!("#{}-tab-{next}", self.prefix));
    }

    fn find(&self, selector: &str) -> Option<HtmlElement> {
        self.root.query_selector(selector).ok()??.dyn_into().ok()
    }

    fn apply_hash(&mut self) {
        let (record, lang) = read_hash();
        if let Some(lang) = lang {
            self.set_lang(lang, Origin::Hash);
        }
        // While the index loads, `loaded` reads the hash itself: no record can be selected yet.
        if self.mirror.loading.get() {
            return;
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
                self.set_current_step(None);
                self.show_step(false);
            }
            None => {}
        }
    }

    /// Writes `#record=<id>&lang=<tag>[&step=<n>]`: a new history entry, or a replacement at mount.
    fn write_hash(&self, replace: bool) {
        let Some(id) = self.selected_id() else { return };
        let Some(window) = web_sys::window() else {
            return;
        };
        let location = window.location();
        // Other keys of the page's (such as the standalone page's `src=`) are kept, first.
        let mut hash = String::from("#");
        for pair in location
            .hash()
            .unwrap_or_default()
            .trim_start_matches('#')
            .split('&')
        {
            let key = pair.split('=').next().unwrap_or_default();
            if !pair.is_empty() && key != "record" && key != "lang" && key != "step" {
                hash.push_str(pair);
                hash.push('&');
            }
        }
        hash.push_str(&format!("record={id}&lang={}", self.lang.tag()));
        if let Some(n) = self.current_step {
            hash.push_str(&format!("&step={}", n + 1)); // Timeline (issue 10), from 1.
        }
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

/// Reads the files of a picker or a drop (each refused from its size before it is read), then
/// opens them together.
fn read_files(core: Weak<Core>, files: Option<web_sys::FileList>) {
    let Some(files) = files else { return };
    let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
    if files.is_empty() {
        return;
    }
    wasm_bindgen_futures::spawn_local(async move {
        let mut opened = Vec::with_capacity(files.len());
        for file in files {
            let size = file.size();
            let bytes = if size > project_lanes::record::MAX_RECORD_BYTES as f64 {
                Err(load::too_large(ViewerError::RecordTooLarge, size as u64))
            } else {
                wasm_bindgen_futures::JsFuture::from(file.array_buffer())
                    .await
                    .map(|buffer| js_sys::Uint8Array::new(&buffer).to_vec())
                    .map_err(|_| {
                        LoadError::new(ViewerError::RecordUnavailable, "the file could not be read")
                    })
            };
            opened.push(Opened {
                name: file.name(),
                bytes,
            });
        }
        if let Some(core) = core.upgrade() {
            core.call(move |app| app.open(opened));
        }
    });
}

/// Wraps a method so a listener can call it through a weak reference (no cycle: the app owns
/// its listeners, the listeners do not own the app). An event that arrives while the viewer is
/// changing the page (it caused it) is dropped, except that its default action stays.
fn with<F: Fn(&mut App, Event) + 'static>(weak: &Weak<Core>, f: F) -> impl FnMut(Event) + use<F> {
    let weak = weak.clone();
    let f = Rc::new(f);
    move |event| {
        let Some(core) = weak.upgrade() else { return };
        if core.app.try_borrow_mut().is_err() {
            return;
        }
        // The app is free: `call` runs this at once, while the event is being dispatched.
        let f = f.clone();
        core.call(move |app| f(app, event));
    }
}

fn event_element(event: &Event) -> Option<Element> {
    event.target()?.dyn_into::<Element>().ok()
}

fn closest(element: &Element, selector: &str) -> Option<Element> {
    element.closest(selector).ok().flatten()
}

/// Escapes `"` and `\` for a CSS string.
fn css_string(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
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
