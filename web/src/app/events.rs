//! What a viewer does with events on its own root (clicks, keys, file choices, drops) and on the
//! window (`hashchange` when it follows the deep link): each becomes a transition of the state
//! (`Core::change`), and focus is kept where the person was.

use std::rc::{Rc, Weak};

use project_lanes_view::i18n::{Lang, Msg, text};
use project_lanes_view::state::Origin;
use wasm_bindgen::prelude::*;
use web_sys::{Element, Event, HtmlInputElement, KeyboardEvent};

use super::{Core, Shared, View};
use crate::dom::{Listener, as_element, attr, css_string, event_as};
use crate::read::Opened;
use crate::{link, read, timeline};

/// Wraps a handler so a listener can call it through a weak reference (no cycle: the view owns
/// its listeners, the listeners do not own the viewer). An event that arrives while the view is
/// changing the page (it caused it) is dropped, except that its default action stays.
fn with<F: Fn(&Core, &mut View, Event) + 'static>(
    weak: &Weak<Core>,
    f: F,
) -> impl FnMut(Event) + use<F> {
    let weak = weak.clone();
    let f = Rc::new(f);
    move |event| {
        let Some(core) = weak.upgrade() else { return };
        if core.view.try_borrow_mut().is_err() {
            return;
        }
        // The view is free: `call` runs this at once, while the event is being dispatched.
        let f = f.clone();
        core.call(move |core, view| f(core, view, event));
    }
}

impl Core {
    /// Registers the viewer's listeners, once: clicks, keys, file choices and drops on its root,
    /// and `hashchange` on the window when it follows the deep link.
    pub fn listen(core: &Shared) {
        let weak = Rc::downgrade(core);
        core.call(move |core, view| {
            let root = view.root.clone();
            let mut listeners = vec![
                Listener::new(&root, "click", with(&weak, on_click)),
                Listener::new(&root, "keydown", with(&weak, on_keydown)),
                Listener::new(&root, "input", with(&weak, on_input)),
                Listener::new(&root, "change", with(&weak, on_change)),
            ];
            if view.open_controls() {
                listeners.push(Listener::new(&root, "dragover", |event: Event| {
                    // Accepting the drag is what makes the drop event fire.
                    event.prevent_default();
                }));
                listeners.push(Listener::new(&root, "drop", with(&weak, on_drop)));
            }
            if core.state.borrow().follows_link
                && let Some(window) = web_sys::window()
            {
                let follow = with(&weak, |core, view, _| {
                    let link = link::read();
                    core.change(view, |s| ((), s.follow(link)));
                });
                listeners.push(Listener::new(&window, "hashchange", follow));
            }
            view.listeners = listeners;
        });
    }
}

/// A click: a tab, a language, "Open records…", a link to a step, a column or a step button.
fn on_click(core: &Core, view: &mut View, event: Event) {
    let Some(target) = event_element(&event) else {
        return;
    };
    if let Some(k) = closest(&target, "[data-diff-choice]")
        .and_then(|b| b.get_attribute("data-diff-choice")?.parse::<usize>().ok())
    {
        core.change(view, |s| ((), s.select_diff(k, Origin::User)));
        view.focus_after = view.find("[aria-current=true] [data-diff-choice]");
    } else if closest(&target, "[data-compare-close]").is_some() {
        core.change(view, |s| ((), s.set_compare(None, Origin::User)));
        view.focus_after = view
            .find("[data-compare-with]")
            .or_else(|| view.find("[role=tabpanel]"));
    } else if let Some(side) = closest(&target, "[data-compare-show]") {
        let side = usize::from(side.get_attribute("data-compare-show").as_deref() == Some("b"));
        core.change(view, |s| ((), s.show_side(side)));
    } else if let Some(tab) = closest(&target, "[role=tab][data-record-id]")
        && let Some(id) = tab.get_attribute("data-record-id")
    {
        core.change(view, |s| s.select(&id, Origin::User));
    } else if let Some(button) = closest(&target, "[data-lang-choice]")
        && let Some(lang) = button
            .get_attribute("data-lang-choice")
            .and_then(|t| Lang::from_tag(&t))
    {
        core.change(view, |s| ((), s.set_lang(lang, Origin::User)));
        // The switcher was rebuilt: keep focus on the same choice.
        view.focus_after = view.find(&format!("[data-lang-choice={}]", lang.tag()));
    } else if closest(&target, "[data-open-records]").is_some() {
        if let Some(input) = view.find("input[data-open-input]") {
            input.click();
        }
    } else if let Some(button) = closest(&target, "[data-copy-root]") {
        copy_root(&button, core.state.borrow().lang);
    } else if let Some(link) = closest(&target, "[data-goto-step]") {
        event.prevent_default();
        let step = link.get_attribute("data-goto-step").unwrap_or_default();
        if let Ok(n) = step.parse::<usize>() {
            let state = core.state.borrow();
            if let Some(loaded) = state.selected_entry().and_then(|e| e.content.loaded()) {
                view.list_step(state.lang, loaded, n);
            }
        }
        if let Some(step) = view.find(&format!("[data-step=\"{}\"]", css_string(&step))) {
            attr(&step, "tabindex", "-1");
            step.scroll_into_view();
            view.focus_after = Some(step);
        }
    } else if let Some(button) = closest(&target, "[data-steps-earlier], [data-steps-later]") {
        let later = button.has_attribute("data-steps-later");
        if view.page_steps(&core.state.borrow(), later)
            && let Some(first) = view.find(".lv-steps [data-step]")
        {
            // Focus moves to the first card listed now, as a link to a step moves it.
            attr(&first, "tabindex", "-1");
            first.scroll_into_view();
            view.focus_after = Some(first);
        }
    } else if let Some(forward) = find_button(&target) {
        core.change(view, |s| ((), s.find_step(forward)));
    } else if let Some(axis) = timeline::axis_click(&target) {
        core.change(view, |s| ((), s.set_axis(axis)));
        // The control was drawn again: focus stays on it.
        view.focus_after = view.find(&format!("[data-axis-choice={}]", axis.as_str()));
    } else if let Some(zoom) = timeline::zoom_click(&target) {
        core.change(view, |s| ((), s.set_zoom(zoom)));
        view.focus_after = view.find(&format!("[data-zoom={}]", zoom.as_str()));
    } else if let Some(rows) = timeline::rows_click(&target) {
        core.change(view, |s| ((), s.page_rows(rows)));
        view.focus_after = view.find(&format!("[data-rows={}]", rows.as_str()));
    } else if let Some(action) = {
        let state = core.state.borrow();
        timeline::click(&target, &event, view.edges(&state))
    } {
        // A column, or the previous/next buttons.
        select_step(core, view, action);
    }
}

/// `true` for the next-match button, `false` for the previous-match one.
fn find_button(target: &Element) -> Option<bool> {
    let button = closest(target, "[data-find-next], [data-find-prev]")?;
    Some(button.has_attribute("data-find-next"))
}

/// Text typed in the find box.
fn on_input(core: &Core, view: &mut View, event: Event) {
    let Some(input) = event_element(&event).filter(|e| e.has_attribute("data-find-input")) else {
        return;
    };
    let query = input.unchecked_into::<HtmlInputElement>().value();
    core.change(view, |s| ((), s.set_query(&query, Origin::User)));
}

/// Moves the current step as `action` asks.
fn select_step(core: &Core, view: &mut View, action: project_lanes_view::timeline::Action) {
    let target = {
        let state = core.state.borrow();
        match state.selected_entry().and_then(|e| e.content.loaded()) {
            Some(loaded) => action.target_in(state.current_step, &loaded.record),
            None => action.target(state.current_step, state.steps()),
        }
    };
    if let Some(n) = target {
        core.change(view, |s| {
            ((), s.select_step(n, Origin::User).unwrap_or_default())
        });
    }
}

/// The file picker's choice, or the record chosen to compare with ("Compare with…").
fn on_change(core: &Core, view: &mut View, event: Event) {
    let Some(target) = event_element(&event) else {
        return;
    };
    if target.has_attribute("data-compare-with") {
        let other = js_sys::Reflect::get(&target, &"value".into())
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default();
        let Some(selected) = core.state.borrow().selected_id().map(String::from) else {
            return;
        };
        if !other.is_empty() {
            core.change(view, |s| {
                ((), s.set_compare(Some([selected, other]), Origin::User))
            });
            view.focus_after = view
                .find("[aria-current=true] [data-diff-choice]")
                .or_else(|| view.find("[data-compare-close]"));
        }
        return;
    }
    let Some(input) = Some(target).filter(|e| e.has_attribute("data-open-input")) else {
        return;
    };
    let input: HtmlInputElement = input.unchecked_into();
    read_files(view.core.clone(), input.files());
    input.set_value("");
}

/// Files dropped on the viewer.
fn on_drop(_: &Core, view: &mut View, event: Event) {
    let Some(drag) = event_as::<web_sys::DragEvent>(&event, "drop") else {
        return;
    };
    event.prevent_default();
    read_files(
        view.core.clone(),
        drag.data_transfer().and_then(|d| d.files()),
    );
}

/// WAI-ARIA tabs with automatic activation: arrows move from the focused tab and select,
/// Home/End jump. Keys with a modifier (Alt+Arrow is the browser's Back) are left alone. On the
/// timeline, arrows, Home and End move the current step; in the find box, Enter goes to the
/// next match and Shift+Enter to the previous.
fn on_keydown(core: &Core, view: &mut View, event: Event) {
    let Some(keys) = event_as::<KeyboardEvent>(&event, "keydown") else {
        return;
    };
    if keys.key() == "Enter"
        && !(keys.alt_key() || keys.ctrl_key() || keys.meta_key() || keys.is_composing())
        && event_element(&event).is_some_and(|e| e.has_attribute("data-find-input"))
    {
        event.prevent_default();
        let forward = !keys.shift_key();
        core.change(view, |s| ((), s.find_step(forward)));
        return;
    }
    if keys.alt_key() || keys.ctrl_key() || keys.meta_key() {
        return;
    }
    // `+` takes Shift on many keyboards.
    if let Some(target) = event_element(&event)
        && let Some(zoom) = timeline::zoom_key(&target, &event)
    {
        event.prevent_default();
        core.change(view, |s| ((), s.set_zoom(zoom)));
        return;
    }
    if keys.shift_key() {
        return;
    }
    // In the list of differences: arrows, `]` and `[` walk it round, Home and End go to its
    // ends; focus stays on the current difference.
    let listed = core.state.borrow().compare.as_ref().map(|c| c.listed());
    if event_element(&event).is_some_and(|e| e.has_attribute("data-diff-choice"))
        && let Some(listed) = listed
    {
        // `Ok(k)`: difference k; `Err(forward)`: the next or the previous one.
        let to = match keys.key().as_str() {
            "ArrowDown" | "ArrowRight" | "]" => Err(true),
            "ArrowUp" | "ArrowLeft" | "[" => Err(false),
            "Home" => Ok(0),
            "End" => Ok(listed.saturating_sub(1)),
            _ => return,
        };
        event.prevent_default();
        core.change(view, |s| match to {
            Ok(k) => ((), s.select_diff(k, Origin::User)),
            Err(forward) => ((), s.step_diff(forward)),
        });
        view.focus_after = view.find("[aria-current=true] [data-diff-choice]");
        return;
    }
    if let Some(target) = event_element(&event)
        && let Some(action) = timeline::key(&target, &event)
    {
        event.prevent_default();
        select_step(core, view, action);
        return;
    }
    let Some(tab) =
        event_element(&event).filter(|t| t.get_attribute("role").as_deref() == Some("tab"))
    else {
        return;
    };
    let (count, from) = {
        let state = core.state.borrow();
        let from = tab
            .get_attribute("data-record-id")
            .and_then(|id| state.position(&id));
        (state.entries.len(), from)
    };
    let Some(from) = from else { return };
    let next = match keys.key().as_str() {
        "ArrowRight" | "ArrowDown" => (from + 1) % count,
        "ArrowLeft" | "ArrowUp" => (from + count - 1) % count,
        "Home" => 0,
        "End" => count - 1,
        _ => return,
    };
    event.prevent_default();
    core.change(view, |s| ((), s.select_index(next, Origin::User)));
    let id = format!("#{}", view.tab_id(next));
    view.focus_after = view.find(&id);
}

/// Reads the files of a picker or a drop, a chunk at a time (each refused from its size before
/// it is read, within the limits of fetched files), then opens them together.
fn read_files(core: Weak<Core>, files: Option<web_sys::FileList>) {
    let Some(files) = files else { return };
    let files: Vec<web_sys::File> = (0..files.length()).filter_map(|i| files.get(i)).collect();
    if files.is_empty() {
        return;
    }
    let Some(reading) = core.upgrade().map(|c| c.reading.clone()) else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let mut opened = Vec::with_capacity(files.len());
        for file in files {
            if reading.signal.aborted() {
                return;
            }
            opened.push(Opened {
                name: file.name(),
                content: crate::load::read_file(&file, &reading).await,
            });
        }
        if let Some(core) = core.upgrade() {
            core.open(opened);
        }
    });
}

impl Core {
    /// Opens files a person chose, dropped or handed over with `open_text`: they become tabs
    /// after the others, and the first is selected. Nothing leaves the browser.
    pub fn open(self: &Rc<Self>, files: Vec<Opened>) {
        if files.is_empty() {
            return;
        }
        self.call(move |core, view| {
            if view.destroyed {
                return;
            }
            let entries = read::read_opened(files);
            core.change(view, |s| ((), s.open(entries)));
        });
    }
}

fn event_element(event: &Event) -> Option<Element> {
    as_element(event.target()?.into())
}

fn closest(element: &Element, selector: &str) -> Option<Element> {
    element.closest(selector).ok().flatten()
}

/// Copies the whole root hash a `[data-copy-root]` button carries to the clipboard, and says
/// so on the button once it is copied (`data-copied`); a page that refuses the clipboard
/// leaves it as it was.
fn copy_root(button: &Element, lang: Lang) {
    let Some(hex) = button.get_attribute("data-copy-root") else {
        return;
    };
    let Some(window) = web_sys::window() else {
        return;
    };
    // `navigator.clipboard` is missing outside secure contexts: looked up, never assumed.
    let clipboard = js_sys::Reflect::get(&window.navigator(), &"clipboard".into())
        .ok()
        .filter(|c| c.is_object());
    let Some(clipboard) = clipboard else {
        return;
    };
    let write = js_sys::Reflect::get(&clipboard, &"writeText".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    let Some(promise) = write
        .and_then(|f| f.call1(&clipboard, &hex.into()).ok())
        .and_then(|p| p.dyn_into::<js_sys::Promise>().ok())
    else {
        return;
    };
    let button = button.clone();
    wasm_bindgen_futures::spawn_local(async move {
        if wasm_bindgen_futures::JsFuture::from(promise).await.is_ok() {
            attr(&button, "data-copied", "");
            button.set_text_content(Some(text(lang, Msg::CopiedRoot)));
        }
    });
}
