//! The machinery around one viewer's [`App`]: the list of live viewers, the [`Mirror`] the
//! handle's getters read, [`Core::call`] (every change runs at once, or right after the change
//! in progress), element id prefixes and the one deep-link follower per document.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::{Rc, Weak};

use js_sys::{Reflect, Symbol};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Event};

use super::App;
use crate::dom::as_element;
use crate::i18n::Lang;

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
    /// The timeline's current step (from 0) and the selected record's step count.
    pub current_step: Cell<Option<usize>>,
    pub steps: Cell<usize>,
}

type Call = Box<dyn FnOnce(&mut App)>;

/// A viewer: the app and the calls waiting for it.
pub struct Core {
    pub(super) app: RefCell<App>,
    pub mirror: Rc<Mirror>,
    pub(super) queue: RefCell<VecDeque<Call>>,
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

    pub(super) fn forget(core: *const Core) {
        LIVE.with(|live| {
            if let Ok(mut live) = live.try_borrow_mut() {
                live.retain(|c| !std::ptr::eq(Rc::as_ptr(c), core));
            }
        });
    }
}

/// The document-wide counter of viewer ids: shared by every copy of this module on the page.
pub(super) fn next_prefix(doc: &Document) -> String {
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
pub(super) fn hash_owner_key() -> Symbol {
    Symbol::for_("lane-viewer.hash")
}

/// Whether another live viewer on this page already follows the hash.
pub fn hash_taken(doc: &Document) -> bool {
    Reflect::get(doc, &hash_owner_key())
        .ok()
        .and_then(as_element)
        .is_some_and(|root| root.is_connected())
}

/// Wraps a method so a listener can call it through a weak reference (no cycle: the app owns
/// its listeners, the listeners do not own the app). An event that arrives while the viewer is
/// changing the page (it caused it) is dropped, except that its default action stays.
pub(super) fn with<F: Fn(&mut App, Event) + 'static>(
    weak: &Weak<Core>,
    f: F,
) -> impl FnMut(Event) + use<F> {
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
