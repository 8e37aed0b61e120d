//! What a viewer does with events on its own root (clicks, keys, file choices, drops) and on the
//! window (`hashchange` when it follows the deep link), and the deep link it writes.

use std::rc::{Rc, Weak};

use wasm_bindgen::prelude::*;
use web_sys::{Element, Event, HtmlElement, HtmlInputElement, KeyboardEvent};

use super::App;
use super::core::{Core, Origin, Shared, with};
use crate::deep_link;
use crate::dom::{Listener, as_element, attr, event_as};
use crate::entry::{LoadError, Opened};
use crate::i18n::{Lang, ViewerError};
use crate::read;
use crate::timeline;

impl App {
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
        if self.panel.contains(Some(&active)) {
            return Some("[role=tabpanel]".into());
        }
        None
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
            // A column, or the previous/next buttons.
            if let Some(n) = action.target(self.current_step, self.step_count()) {
                self.select_step(n, Origin::User);
            }
        }
    }

    /// The file picker's choice.
    fn on_change(&mut self, event: Event) {
        let Some(input) = event_element(&event).filter(|e| e.has_attribute("data-open-input"))
        else {
            return;
        };
        let input: HtmlInputElement = input.unchecked_into();
        let files = input.files();
        read_files(self.core.clone(), files);
        input.set_value("");
    }

    /// Files dropped on the viewer.
    fn on_drop(&mut self, event: Event) {
        let Some(drag) = event_as::<web_sys::DragEvent>(&event, "drop") else {
            return;
        };
        event.prevent_default();
        let files = drag.data_transfer().and_then(|d| d.files());
        read_files(self.core.clone(), files);
    }

    /// WAI-ARIA tabs with automatic activation: arrows move from the focused tab and select,
    /// Home/End jump. Keys with a modifier (Alt+Arrow is the browser's Back) are left alone.
    fn on_keydown(&mut self, event: Event) {
        let Some(keys) = event_as::<KeyboardEvent>(&event, "keydown") else {
            return;
        };
        if keys.alt_key() || keys.ctrl_key() || keys.meta_key() || keys.shift_key() {
            return;
        }
        // Arrows, Home and End move the current step.
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

    pub(super) fn find(&self, selector: &str) -> Option<HtmlElement> {
        Some(self.root.query_selector(selector).ok()??.unchecked_into())
    }

    pub(super) fn apply_hash(&mut self) {
        let link = deep_link::read();
        if let Some(lang) = link.lang {
            self.set_lang(lang, Origin::Hash);
        }
        // While the index loads, `loaded` reads the hash itself: no record can be selected yet.
        if self.mirror.loading.get() {
            return;
        }
        if let Some(id) = link.record
            && self.selected_id().as_deref() != Some(id.as_str())
        {
            self.select(&id, Origin::Hash);
        }
        // The deep link's step, or none.
        match link.step {
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
    pub(super) fn write_hash(&self, replace: bool) {
        let Some(id) = self.selected_id() else { return };
        let Some(window) = web_sys::window() else {
            return;
        };
        let location = window.location();
        let current = location.hash().unwrap_or_default();
        let hash = deep_link::write(&current, &id, self.lang, self.current_step);
        if current == hash {
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
                Err(read::too_large(ViewerError::RecordTooLarge, size as u64))
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

fn event_element(event: &Event) -> Option<Element> {
    as_element(event.target()?.into())
}

fn closest(element: &Element, selector: &str) -> Option<Element> {
    element.closest(selector).ok().flatten()
}

/// Escapes `"` and `\` for a CSS string.
pub(super) fn css_string(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}
