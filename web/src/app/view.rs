//! A viewer's view: the DOM below its root (language switcher, open controls, error boxes,
//! tabs, the panel), the cache of what was built, and its listeners. It shows what the state's
//! transitions changed; it keeps no state of the viewer's own beyond the page.

use std::rc::{Rc, Weak};

use js_sys::Reflect;
use project_lanes::record::Record;
use project_lanes_view::compare;
use project_lanes_view::frame::{self, TabIds};
use project_lanes_view::i18n::{DiffMsg, Lang, Msg, fill, group, text};
use project_lanes_view::state::Write;
use project_lanes_view::timeline::{Axis, Drawing};
use project_lanes_view::tree::{ROOT, Tree};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element, HtmlElement};

use super::tabbox::TabBox;
use super::{Core, hash_owner_key};
use crate::dom::{Listener, attr, clear, css_string};
use crate::entry::{Content, Loaded, State};
use crate::overview::Overview;
use crate::panels::Panels;
use crate::tree::build;
use crate::zone::Browser;
use crate::{find, link, render, steps, timeline, verify};

pub struct View {
    pub(super) doc: Document,
    /// The viewer's own root, inside the embedder's element.
    pub(super) root: Element,
    prefix: String,
    open_controls: bool,
    status: Element,
    langs: Element,
    tools: Element,
    pub(super) tablist: Element,
    /// The comparison of two records, or the "Compare with…" control.
    compare: Element,
    panel: Element,
    pub(super) listeners: Vec<Listener>,
    pub(super) destroyed: bool,
    pub(super) core: Weak<Core>,
    /// The element to focus once the current change is done (see [`Core::call`]).
    pub(super) focus_after: Option<HtmlElement>,
    /// What was built per record and language (panels, timelines), kept for when the record is
    /// shown again: one bounded cache.
    panels: Panels,
    /// The timeline model of the record shown last.
    overview: Option<Overview>,
    /// Shows the selected tab inside the tab list's box (taken on `destroy`).
    tabbox: Option<TabBox>,
    /// The "Compare with…" select shown, and the language of its label.
    chooser: Option<(Lang, Element)>,
    /// The overview of a version 3 record being read (`[data-overview]`), until it is shown,
    /// and how many steps it draws.
    preview: Option<(Element, usize)>,
}

impl View {
    /// The viewer's root inside `host`, with its parts.
    pub(super) fn create(
        host: &Element,
        doc: Document,
        prefix: String,
        open_controls: bool,
    ) -> View {
        let mut t = Tree::new();
        let root = t.el(ROOT, "div", "lane-viewer");
        // A landmark named by its label (`aria-label`, set with the language).
        t.attr(root, "role", "region");
        t.attr(root, "data-lane-viewer", "");
        let langs = t.el(root, "div", "lv-langs");
        t.attr(langs, "role", "group");
        let tools = t.el(root, "div", "lv-tools");
        let status = t.el(root, "div", "lv-status");
        t.attr(status, "role", "status");
        let tablist = t.el(root, "div", "lv-tabs");
        t.attr(tablist, "role", "tablist");
        let compare = t.el(root, "div", "lv-compare-host");
        let panel = t.el(root, "section", "lv-panel");
        t.attr(panel, "role", "tabpanel");
        t.attr(panel, "tabindex", "0");
        t.attr(panel, "id", &format!("{prefix}-panel"));
        let built = build(&t, host);
        let [root, status, langs, tools, tablist, compare, panel] =
            [root, status, langs, tools, tablist, compare, panel].map(|n| built.element(n));
        let tabbox = Some(TabBox::new(&tablist));
        View {
            doc,
            root,
            prefix,
            open_controls,
            status,
            langs,
            tools,
            tablist,
            compare,
            panel,
            listeners: Vec::new(),
            destroyed: false,
            core: Weak::new(),
            focus_after: None,
            panels: Panels::default(),
            overview: None,
            tabbox,
            chooser: None,
            preview: None,
        }
    }

    pub(super) fn with_core(self, core: Weak<Core>) -> View {
        View { core, ..self }
    }

    pub(super) fn open_controls(&self) -> bool {
        self.open_controls
    }

    /// What has focus inside the viewer, to give the same place focus after a rebuild.
    pub(super) fn focus_key(&self) -> Option<String> {
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
        if active.has_attribute("data-find-input") {
            return Some("[data-find-input]".into());
        }
        if self.panel.contains(Some(&active)) {
            return Some("[role=tabpanel]".into());
        }
        None
    }

    pub(super) fn find(&self, selector: &str) -> Option<HtmlElement> {
        Some(self.root.query_selector(selector).ok()??.unchecked_into())
    }
    pub(super) fn tab_id(&self, i: usize) -> String {
        format!("{}-tab-{i}", self.prefix)
    }

    /// Everything again (a new language, new records); keeps focus on the same place. Returns
    /// the panel's promise of its last step.
    pub(super) fn render_all(&mut self, state: &State) -> Option<js_sys::Promise> {
        let focus = self.focus_key();
        let lang = state.lang;
        let busy = state.busy();
        attr(&self.root, "lang", lang.tag());
        if busy {
            attr(&self.root, "aria-busy", "true");
        } else {
            self.root.remove_attribute("aria-busy").ok();
        }
        clear(&self.langs);
        attr(&self.langs, "aria-label", text(lang, Msg::LanguageLabel));
        let mut t = Tree::new();
        frame::languages(&mut t, ROOT, lang);
        build(&t, &self.langs);
        clear(&self.tools);
        if self.open_controls {
            let mut t = Tree::new();
            frame::open_controls(&mut t, ROOT, lang);
            build(&t, &self.tools);
        }
        self.render_status(state);
        clear(&self.tablist);
        attr(&self.tablist, "aria-label", text(lang, Msg::RecordsLabel));
        let mut t = Tree::new();
        let panel_id = self.panel.id();
        for (i, entry) in state.entries.iter().enumerate() {
            let id = self.tab_id(i);
            let ids = TabIds {
                tab: &id,
                panel: &panel_id,
            };
            frame::tab(&mut t, ROOT, lang, entry, &ids);
        }
        build(&t, &self.tablist);
        self.update_tabs(state);
        let settled = self.render_panel(state);
        self.render_compare(state);
        if let Some(selector) = focus {
            self.focus_after = self.find(&selector);
        }
        settled
    }

    /// The comparison (`project_lanes_view::compare`) of the records the state compares, or
    /// the "Compare with…" control when the selected record and another are read. Focus on a
    /// difference stays on the current one.
    pub(super) fn render_compare(&mut self, state: &State) {
        let lang = state.lang;
        let title = |i: usize| state.entries[i].title.get(lang.tag());
        let mut t = Tree::new();
        let mut chooser = None;
        if let Some(comparison) = &state.compare {
            let found = comparison.ids.each_ref().map(|id| state.position(id));
            let sides = [0, 1].map(|s| {
                let id = comparison.ids[s].as_str();
                (id, found[s].map_or(id, title))
            });
            let records = found.map(|i| {
                i.and_then(|i| state.entries[i].content.loaded())
                    .map(|l| &l.record)
            });
            let failed = found.iter().zip(["A", "B"]).find_map(|(i, name)| {
                let read = i.is_some_and(|i| !state.entries[i].content.is_failed());
                (!read).then_some(name)
            });
            let waiting = match failed {
                Some(name) => fill(text(lang, DiffMsg::CompareFailed), &[name]),
                None => text(lang, DiffMsg::ComparePending).to_owned(),
            };
            let read = match (records, comparison.diff.as_deref()) {
                ([Some(a), Some(b)], Some(diff)) => Ok((diff, [a, b])),
                _ => Err(waiting.as_str()),
            };
            compare::section(&mut t, ROOT, lang, sides, read, comparison.at);
        } else if state
            .selected_entry()
            .is_some_and(|e| e.content.loaded().is_some())
        {
            let others: Vec<(&str, &str)> = (state.entries.iter().enumerate())
                .filter(|&(i, e)| i != state.selected && e.content.loaded().is_some())
                .map(|(i, e)| (e.id.as_str(), title(i)))
                .collect();
            if !others.is_empty() {
                // The chooser shown: only its options (and, in another language, its label)
                // change. A new select costs a style and layout of its own at every switch.
                if let Some((shown, select)) =
                    (self.chooser.as_mut()).filter(|(_, s)| self.compare.contains(Some(s)))
                {
                    if *shown != lang
                        && let Some(label) = select.previous_element_sibling()
                    {
                        label.set_text_content(Some(text(lang, DiffMsg::CompareWith)));
                        *shown = lang;
                    }
                    clear(select);
                    compare::options(&mut t, ROOT, lang, &others);
                    build(&t, select);
                    return;
                }
                chooser = Some(compare::chooser(&mut t, ROOT, lang, &others, &self.prefix));
            }
        }
        // Read before the section is emptied (a chooser kept above keeps its focus itself).
        let focused = (self.doc.active_element())
            .filter(|a| self.compare.contains(Some(a)))
            .and_then(|a| {
                ["data-diff-choice", "data-compare-with", "data-compare-show"]
                    .into_iter()
                    .find(|name| a.has_attribute(name))
            });
        clear(&self.compare);
        let built = build(&t, &self.compare);
        self.chooser = chooser.map(|n| (lang, built.element(n)));
        if let Some(name) = focused {
            let selector = match name {
                "data-diff-choice" => "[aria-current=true] [data-diff-choice]".to_owned(),
                other => format!("[{other}]"),
            };
            self.focus_after = self.find(&selector);
        }
    }

    /// The error boxes (the index's, an unknown id's) and, while loading, the loading line.
    pub(super) fn render_status(&self, state: &State) {
        clear(&self.status);
        let mut t = Tree::new();
        for error in [&state.index_error, &state.notice].into_iter().flatten() {
            frame::error_box(&mut t, ROOT, state.lang, error);
        }
        if let Some(pin) = &state.pin {
            frame::pin_warning(&mut t, ROOT, state.lang, pin);
        }
        if state.busy() {
            frame::loading(&mut t, ROOT, state.lang, state.read);
        }
        build(&t, &self.status);
    }

    /// Which tab is selected.
    pub(super) fn update_tabs(&self, state: &State) {
        let tabs = self.tablist.children();
        for i in 0..tabs.length() {
            let Some(tab) = tabs.item(i) else { continue };
            let selected = i as usize == state.selected;
            let value = if selected { "true" } else { "false" };
            attr(&tab, "aria-selected", value);
            attr(&tab, "tabindex", if selected { "0" } else { "-1" });
        }
    }

    /// Shows the selected tab inside the tab list's box, which scrolls for a long index.
    fn reveal_tab(&self, state: &State) {
        if let Some(tabs) = &self.tabbox {
            tabs.reveal(state.selected);
        }
    }

    /// Record `i` arrived: its tab stops saying it is loading, or says it failed.
    pub(super) fn replace_tab(&mut self, state: &State, i: usize) {
        let Some(old) = self.tablist.children().item(i as u32) else {
            return;
        };
        let Some(entry) = state.entries.get(i) else {
            return;
        };
        if entry.content.loaded().is_some() {
            // Nothing else about the tab changes: no new style or layout for the page.
            old.remove_attribute("aria-busy").ok();
            return;
        }
        // A failed record's tab says so (class, code, words): built again.
        let (id, panel_id) = (self.tab_id(i), self.panel.id());
        let ids = TabIds {
            tab: &id,
            panel: &panel_id,
        };
        let tab = render::tab(&self.doc, state.lang, entry, &ids);
        let focused = self.doc.active_element().is_some_and(|a| a == old);
        old.replace_with_with_node_1(&tab).ok();
        self.update_tabs(state);
        if focused {
            self.focus_after = Some(tab.unchecked_into());
        }
    }

    /// Draws the overview of `record`, a version 3 record read so far (each of its steps
    /// replayed as it was read; `mismatch`: the first the core answers otherwise), before the
    /// panel, in place of the one drawn before. It is a picture: inert, its drawing without
    /// `data-timeline` (that is the shown record's).
    pub(super) fn preview(&mut self, lang: Lang, record: &Record, mismatch: Option<usize>) {
        let steps = record.steps.len();
        let mut t = Tree::new();
        let root = t.el(ROOT, "div", "lv-preview");
        let (code, caption) = match mismatch {
            Some(step) => (
                "mismatch",
                fill(
                    text(lang, Msg::OverviewMismatch),
                    &[&group(steps), &group(step + 1)],
                ),
            ),
            None => (
                "verifying",
                fill(text(lang, Msg::OverviewSoFar), &[&group(steps)]),
            ),
        };
        t.attr(root, "data-overview", code);
        t.attr_number(root, "data-steps-read", steps as u64);
        if let Some(step) = mismatch {
            t.attr_number(root, "data-mismatch-step", step as u64);
        }
        t.attr(root, "inert", "");
        t.el_text(root, "p", "lv-preview-note", &caption);
        let prefix = format!("{}-preview", self.prefix);
        let drawing = Drawing::new(Axis::Steps, &Browser);
        project_lanes_view::timeline::section_on(&mut t, root, lang, record, &prefix, drawing);
        let fragment = self.doc.create_document_fragment();
        let element = build(&t, &fragment).element(root);
        if let Ok(Some(svg)) = element.query_selector("[data-timeline]") {
            svg.remove_attribute("data-timeline").ok();
        }
        match self.preview.replace((element.clone(), steps)) {
            Some((old, _)) => old.replace_with_with_node_1(&element).ok(),
            None => self.panel.before_with_node_1(&element).ok(),
        };
    }

    /// How many steps the overview of the record being read draws, if one is drawn.
    pub(super) fn previewed(&self) -> Option<usize> {
        self.preview.as_ref().map(|(_, steps)| *steps)
    }

    /// Takes the overview of a record being read away, unless records are still loading and
    /// nothing else is shown in its place.
    pub(super) fn drop_preview(&mut self, state: &State, always: bool) {
        if (always || !View::previews(state, None))
            && let Some((old, _)) = self.preview.take()
        {
            old.remove();
        }
    }

    /// Whether the overview of a record being read (`id`, if named) may be drawn: records are
    /// loading and nothing else is shown in its place (no record selected, or the selected
    /// one, `id`'s tab if named, still pending).
    pub(super) fn previews(state: &State, id: Option<&str>) -> bool {
        state.busy()
            && state.selected_entry().is_none_or(|e| {
                matches!(e.content, Content::Pending) && id.is_none_or(|id| e.id == id)
            })
    }

    /// No record is loading any more.
    pub(super) fn loaded_all(&self) {
        self.root.remove_attribute("aria-busy").ok();
        if let Ok(Some(line)) = self.status.query_selector(".lv-loading") {
            line.remove();
        }
    }

    /// The selected record's panel (kept from before, or built); starts verifying its record.
    /// Returns the panel's promise of its last step.
    pub(super) fn render_panel(&mut self, state: &State) -> Option<js_sys::Promise> {
        // The region is named by the record it shows.
        let label = frame::region_label(state.lang, state.selected_entry().map(|e| &e.title));
        attr(&self.root, "aria-label", &label);
        self.panels.leave(&self.panel);
        clear(&self.panel);
        for name in [
            "data-selected-record",
            "aria-labelledby",
            "data-verification",
            "data-chain",
        ] {
            self.panel.remove_attribute(name).ok();
        }
        let Some(entry) = state.selected_entry() else {
            self.panel.set_attribute("hidden", "").ok();
            return None;
        };
        if let Some(loaded) = entry.content.loaded() {
            self.verify(loaded);
        }
        self.panel.remove_attribute("hidden").ok();
        attr(&self.panel, "aria-labelledby", &self.tab_id(state.selected));
        let lang = state.lang;
        if let Some(loaded) = entry.content.loaded()
            && self.panels.restore(&self.doc, &self.panel, loaded, lang)
        {
            attr(&self.panel, "data-selected-record", &entry.id);
            self.redraw_timeline(state, false);
            self.reveal_tab(state);
            return None;
        }
        let panels = &mut self.panels;
        let mut kept = |loaded: &Rc<Loaded>| panels.timeline(loaded, lang);
        let model = entry
            .content
            .loaded()
            .map(|l| Overview::of(&mut self.overview, l).model());
        let drawing = Drawing {
            axis: state.axis,
            zone: &Browser,
            window: Some(state.window()),
            rows: state.rows,
            model,
        };
        let settled = render::panel(
            (lang, drawing, state.query.as_str()),
            &self.panel,
            entry,
            &mut kept,
        );
        if let Some(loaded) = entry.content.loaded() {
            self.panels.shown(loaded, lang);
        }
        self.redraw_timeline(state, false);
        self.reveal_tab(state);
        settled
    }

    /// Draws the selected record's timeline again on the state's axis and window (`always`),
    /// or only if the one shown (kept from before) is on another axis or of other steps.
    pub(super) fn redraw_timeline(&mut self, state: &State, always: bool) {
        let Some(old) = self.panel.query_selector(".lv-timeline").ok().flatten() else {
            return;
        };
        let window = state.window();
        let same = || {
            let axis = old.get_attribute("data-axis");
            let svg = old.query_selector("[data-timeline]").ok().flatten();
            axis.is_none_or(|a| a == state.axis.as_str())
                && svg.is_some_and(|svg| timeline::drawn(&svg) == (window, state.rows))
        };
        if !always && same() {
            return;
        }
        let Some(loaded) = state.selected_entry().and_then(|e| e.content.loaded()) else {
            return;
        };
        // A key on the drawing moved it: focus stays on the drawing, drawn again (a click on a
        // button keeps focus on that button: the click's handler says so).
        let had_focus = self
            .doc
            .active_element()
            .is_some_and(|a| a.has_attribute("data-timeline") && old.contains(Some(&a)));
        let drawing = Drawing {
            axis: state.axis,
            zone: &Browser,
            window: Some(window),
            rows: state.rows,
            model: Some(Overview::of(&mut self.overview, loaded).model()),
        };
        let section = timeline::section_on(
            &self.doc,
            state.lang,
            &loaded.record,
            &self.panel.id(),
            drawing,
        );
        old.replace_with_with_node_1(&section).ok();
        if had_focus && let Ok(Some(drawing)) = section.query_selector("[data-timeline]") {
            self.focus_after = Some(drawing.unchecked_into());
        }
    }

    /// Shows the current step (`scroll`: into view); a card not built yet is marked once
    /// `settled` resolves.
    pub(super) fn show_step(
        &mut self,
        state: &State,
        scroll: bool,
        settled: Option<js_sys::Promise>,
    ) {
        let loaded = state.selected_entry().and_then(|e| e.content.loaded());
        if let (Some(loaded), Some(n)) = (loaded, state.current_step) {
            self.list_step(state.lang, loaded, n);
        }
        let current = state
            .current_step
            .and_then(|n| Some((n, loaded?.record.steps.get(n)?)));
        let edges = edges(&mut self.overview, state);
        timeline::show(
            &self.root,
            &self.panel,
            (state.lang, edges),
            current,
            scroll,
            settled,
        );
    }

    /// The steps' places on the time axis of the record shown, if it is drawn on one.
    pub(super) fn edges(&mut self, state: &State) -> Option<&[u64]> {
        edges(&mut self.overview, state)
    }

    /// The shown record's list of step cards, if it has one.
    fn steps_list(&self) -> Option<Element> {
        self.panel.query_selector(".lv-steps").ok().flatten()
    }

    /// Makes step `n`'s card listed (a long record lists a window of its steps).
    pub(super) fn list_step(&self, lang: Lang, loaded: &Loaded, n: usize) {
        if let Some(list) = self.steps_list() {
            steps::follow(&list, lang, loaded, n);
        }
    }

    /// Lists the steps before or after the window a long record lists; returns whether the
    /// window moved.
    pub(super) fn page_steps(&self, state: &State, later: bool) -> bool {
        let Some(loaded) = state.selected_entry().and_then(|e| e.content.loaded()) else {
            return false;
        };
        self.steps_list()
            .is_some_and(|list| steps::page(&list, state.lang, loaded, later))
    }

    /// Shows the find box's query, its matches and (`marks`) their marks on the timeline.
    pub(super) fn show_find(&mut self, state: &State, marks: bool) {
        let edges = if marks {
            edges(&mut self.overview, state)
        } else {
            None
        };
        find::show(&self.panel, state, (marks, edges));
    }

    /// Starts replaying `loaded` if it never was (at once, and the rest in the background); its
    /// progress is shown while it is the record shown, and its verdict told when it ends.
    pub(super) fn verify(&self, loaded: &Rc<Loaded>) {
        let weak = self.core.clone();
        verify::start(loaded, move |loaded| {
            let Some(core) = weak.upgrade() else { return };
            let loaded = loaded.clone();
            core.call(move |core, view| {
                view.refresh_verification(core, &loaded);
                core.tell_verdicts(view);
            });
        });
    }

    /// Shows new verification progress or its result, if that record is the one shown.
    fn refresh_verification(&self, core: &Core, loaded: &Rc<Loaded>) {
        if self.destroyed {
            return;
        }
        let state = core.state.borrow();
        let shown = state
            .selected_entry()
            .and_then(|e| e.content.loaded())
            .is_some_and(|l| Rc::ptr_eq(l, loaded));
        if shown {
            render::update_verification(&self.doc, state.lang, &self.panel, loaded);
        }
    }

    /// Writes the deep link: a new history entry, or a replacement.
    pub(super) fn write_link(&self, state: &State, write: Write) {
        link::write(state, write);
    }

    /// Removes the viewer's DOM and listeners.
    pub(super) fn destroy(&mut self) {
        self.destroyed = true;
        self.listeners.clear();
        self.tabbox = None;
        // Emptying the panel also stops a large record's background rendering; dropping the
        // records (the state's) stops their background verification.
        clear(&self.panel);
        self.panels.clear();
        self.overview = None;
        if Reflect::get(&self.doc, &hash_owner_key())
            .ok()
            .is_some_and(|owner| owner == JsValue::from(&self.root))
        {
            let _ = Reflect::delete_property(&self.doc, &hash_owner_key());
        }
        self.root.remove();
    }
}

/// The steps' places on the time axis of the record `state` shows, if it is drawn on one (the
/// model is not built for that alone on a step axis).
fn edges<'k>(overview: &'k mut Option<Overview>, state: &State) -> Option<&'k [u64]> {
    if state.axis != Axis::Time {
        return None;
    }
    let loaded = state.selected_entry().and_then(|e| e.content.loaded())?;
    Overview::of(overview, loaded).edges()
}
