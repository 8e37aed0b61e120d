//! One mounted viewer: its state (records, selection, language), its DOM, its listeners.
//!
//! Each viewer owns everything it touches below its own root element; several viewers on one
//! page share nothing (element ids come from one counter per document, listeners are per root).
//!
//! Every change goes through [`Core::call`]: it runs at once, or — when a page's handler calls
//! the viewer while the viewer itself is changing the page (focus and blur events fire
//! synchronously) — right after the current change. Getters read a [`Mirror`] of the state that
//! is never held across DOM work, so they answer at any moment.

mod core;
mod events;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use js_sys::Reflect;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement};

pub use self::core::{Core, Mirror, Origin, Shared, hash_taken};
use self::core::{hash_owner_key, next_prefix};
use crate::deep_link;
use crate::dom::{Listener, append, attr, clear, el};
use crate::entry::{Entry, LoadError, Loaded, Opened, failed};
use crate::i18n::{Lang, Msg, ViewerError, text};
use crate::panels::Panels;
use crate::read;
use crate::render;
use crate::timeline;
use crate::verify;

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
    /// The current step of the selected record (from 0), if any.
    current_step: Option<usize>,
    /// What was built per record and language (panels, timelines), kept for when the record is
    /// shown again: one bounded cache.
    panels: Panels,
    /// The deep link's step for a selected record that is still loading.
    wanted_step: Option<usize>,
}

impl App {
    /// Creates the viewer's root inside `host` with a loading message.
    pub fn create(host: &Element, lang: Lang, hash_sync: bool, open_controls: bool) -> Shared {
        let doc = host
            .owner_document()
            .expect_throw("element is not in a document");
        let prefix = next_prefix(&doc);
        let root = el(&doc, "div", "lane-viewer", None);
        // A landmark named by its label (`aria-label`, set with the language).
        attr(&root, "role", "region");
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
                panels: Panels::default(),
                wanted_step: None,
            }),
            mirror,
            queue: RefCell::new(VecDeque::new()),
        });
        core.call(|app| app.render_all());
        core
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
        let link = if self.hash_sync {
            deep_link::read()
        } else {
            deep_link::Link::default()
        };
        let deep = link.record;
        if let Some(id) = initial.or(deep) {
            match self.position(&id) {
                Some(i) => self.selected = i,
                None if !self.entries.is_empty() => self.notice = Some(unknown(&id)),
                None => {}
            }
        }
        // The deep link's `step`, if it names a step of the selected record
        // (kept until that record arrives, if it is still loading).
        if let Some(n) = link.step {
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
    pub fn arrived(&mut self, i: usize, content: Result<Rc<Loaded>, LoadError>) {
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
            if focused {
                tab.unchecked_ref::<HtmlElement>().focus().ok();
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

    /// Makes step `n` (from 0) current; `false` if there is no such step.
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

    /// The current step, here and in the mirror.
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

    /// Draws the current step into the panel.
    fn show_step(&self, scroll: bool) {
        let settled = self.mirror.settled.borrow().clone();
        let (root, panel) = (&self.root, &self.panel);
        let record = self
            .entries
            .get(self.selected)
            .and_then(|e| e.content.as_ref().ok())
            .map(|l| &l.record);
        let current = self
            .current_step
            .and_then(|n| Some((n, record?.steps.get(n)?)));
        timeline::show(root, panel, self.lang, current, scroll, settled);
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
        let entries = read::read_opened(files);
        let first = self.entries.len();
        self.add_entries(entries);
        if first < self.entries.len() && !self.mirror.loading.get() {
            self.selected = first;
            self.notice = None;
            self.current_step = None; // A new record starts with no step.
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
    /// its file name. An opened file that could not be read is named by its file name too, and
    /// gives that name up to a record whose id it is.
    fn add_entries(&mut self, entries: Vec<Entry>) {
        for mut entry in entries {
            if entry.content.is_ok()
                && let Some(i) = self.position(&entry.id)
            {
                if self.entries[i].named_by_file {
                    let name = self.free_name(&self.entries[i].file, Some(&entry.id));
                    self.entries[i].id = name;
                } else {
                    let error = LoadError::new(
                        ViewerError::DuplicateRecord,
                        format!("a record with the id \"{}\" is already shown", entry.id),
                    );
                    entry = failed(&entry.file, error);
                }
            }
            if entry.named_by_file || self.position(&entry.id).is_some() {
                entry.id = self.free_name(&entry.file, None);
            }
            self.entries.push(entry);
        }
    }

    /// `name`, or `name (2)`, `name (3)`, … : the first that no entry has, other than `taken`.
    fn free_name(&self, name: &str, taken: Option<&str>) -> String {
        let mut id = name.to_string();
        let mut n = 1;
        while self.position(&id).is_some() || taken == Some(id.as_str()) {
            n += 1;
            id = format!("{name} ({n})");
        }
        id
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
            // A new record starts with no step.
            self.set_current_step(None);
            self.mirror.steps.set(self.step_count());
            self.update_tabs();
            self.render_panel();
        }
        if origin == Origin::User && self.hash_sync {
            self.write_hash(false);
        }
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
        let (doc, lang, prefix, panels) = (&self.doc, self.lang, self.panel.id(), &mut self.panels);
        let mut timeline = |loaded: &Rc<Loaded>| {
            panels
                .timeline(loaded, lang)
                .unwrap_or_else(|| timeline::section(doc, lang, &loaded.record, &prefix))
        };
        let settled = render::panel(&self.doc, self.lang, &self.panel, entry, &mut timeline);
        *self.mirror.settled.borrow_mut() = settled;
        if let Ok(loaded) = &entry.content {
            self.panels.shown(loaded, self.lang);
        }
        self.show_step(false); // The current step stays across redraws.
    }

    /// Shows new verification progress or its result, if that record is the one shown.
    fn refresh_verification(&mut self, loaded: &Rc<Loaded>) {
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
}

fn unknown(id: &str) -> LoadError {
    LoadError::new(ViewerError::UnknownRecord, format!("record \"{id}\""))
}
