//! One mounted viewer: its state (`project_lanes_view::state`, pure transitions), its [`View`] (the
//! DOM and its listeners), and the calls waiting for the view.
//!
//! Each viewer owns everything it touches below its own root element; several viewers on one
//! page share nothing (element ids come from one counter per document, listeners are per root).
//!
//! Every change goes through [`Core::call`]: it runs at once, or — when a page's handler calls
//! the viewer while the view is changing the page (focus and blur events fire synchronously) —
//! right after the current change. A change runs a transition on the state (borrowed mutably
//! only while the transition runs, which never touches the page), then the view shows what it
//! changed, reading the state through a shared borrow. So the handle's getters read the state
//! itself at any moment.

mod events;
mod tabbox;
mod verdicts;
mod view;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use js_sys::{Reflect, Symbol};
use project_lanes_view::i18n::Lang;
use project_lanes_view::state::Changes;
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

pub use self::view::View;
use crate::dom::as_element;
use crate::entry::State;
use crate::load::Reading;
use crate::read::Incoming;

thread_local! {
    /// Every mounted viewer until `destroy`: the page's element keeps its viewer alive even when
    /// the page drops the handle `mount` returned.
    static LIVE: RefCell<Vec<Rc<Core>>> = const { RefCell::new(Vec::new()) };
}

type Call = Box<dyn FnOnce(&Core, &mut View)>;

/// How many times the steps of the overview drawn a record being read has before its overview
/// is drawn again.
const PREVIEW_GROWTH: usize = 4;

/// A viewer: its state, its view and the calls waiting for the view.
pub struct Core {
    /// Borrowed mutably only inside a transition.
    pub state: RefCell<State>,
    view: RefCell<View>,
    queue: RefCell<VecDeque<Call>>,
    /// What the handle's `settled()` returns: the panel's promise of its last step.
    settled: RefCell<Option<js_sys::Promise>>,
    /// The verdicts told and the promises waiting for them (`verdicts.rs`).
    verdicts: verdicts::LaneViewerVerdicts,
    /// The page was told that the index (or `src`, or the inline record) could not be shown.
    index_told: Cell<bool>,
    /// Records a promise of a verdict waits for, to be replayed once read.
    replay_wanted: RefCell<Vec<String>>,
    /// `destroy` was called (it takes effect on the page once the view is free).
    destroyed: Cell<bool>,
    /// Aborted by `destroy`: every fetch and read of the viewer stops.
    aborts: web_sys::AbortController,
    /// How the viewer reads what it opens (its signal is `aborts`').
    pub reading: Reading,
}

pub type Shared = Rc<Core>;

impl Core {
    /// Creates a viewer inside `host` with a loading message; `tabs`: the row of record tabs is
    /// shown (else the selected record alone); `limits`: how much of a version 3 record it
    /// takes.
    pub fn create(
        host: &Element,
        lang: Lang,
        follows_link: bool,
        open_controls: bool,
        tabs: bool,
        limits: crate::read::Limits,
    ) -> Shared {
        let doc = host
            .owner_document()
            .expect_throw("element is not in a document");
        let prefix = next_prefix(&doc);
        let view = View::create(host, doc, prefix, open_controls);
        if !tabs {
            // Kept in the page (the panel is labelled by its tab), not shown.
            view.tablist.set_attribute("hidden", "").ok();
        }
        if follows_link {
            let _ = Reflect::set(&view.doc, &hash_owner_key(), &view.root);
        }
        let verdicts = verdicts::LaneViewerVerdicts::new(&view.root);
        let aborts = web_sys::AbortController::new().expect_throw("no AbortController");
        let core = Rc::new_cyclic(|weak: &std::rc::Weak<Core>| Core {
            state: RefCell::new(State::new(lang, follows_link)),
            view: RefCell::new(view.with_core(weak.clone())),
            queue: RefCell::new(VecDeque::new()),
            settled: RefCell::new(None),
            verdicts,
            index_told: Cell::new(false),
            replay_wanted: RefCell::default(),
            destroyed: Cell::new(false),
            reading: Reading {
                limits,
                signal: aborts.signal(),
                progress: {
                    let weak = weak.clone();
                    Rc::new(move |incoming: &Incoming, size| {
                        if let Some(core) = weak.upgrade() {
                            let bytes = incoming.bytes();
                            core.call(move |core, view| {
                                core.change(view, |s| ((), s.reading(bytes, size)));
                            });
                            core.preview(incoming, size);
                        }
                    })
                },
            },
            aborts,
        });
        core.call(|core, view| {
            core.apply(
                view,
                Changes {
                    all: true,
                    ..Changes::default()
                },
            )
        });
        core
    }

    /// Runs `f` with the view now, or queues it until the view's current change is done. Focus
    /// moves only once the view is released: `focus()` fires events whose handlers may call the
    /// viewer.
    pub fn call(&self, f: impl FnOnce(&Core, &mut View) + 'static) {
        // Boxed at once: one copy of what follows, not one per caller.
        self.call_boxed(Box::new(f));
    }

    fn call_boxed(&self, f: Call) {
        let Ok(mut view) = self.view.try_borrow_mut() else {
            self.queue.borrow_mut().push_back(f);
            return;
        };
        f(self, &mut view);
        let mut focus = view.focus_after.take();
        drop(view);
        loop {
            if let Some(element) = focus.take() {
                element.focus().ok();
            }
            let Some(next) = self.queue.borrow_mut().pop_front() else {
                break;
            };
            let Ok(mut view) = self.view.try_borrow_mut() else {
                break;
            };
            next(self, &mut view);
            focus = view.focus_after.take();
        }
    }

    /// Runs a transition on the state (unless the viewer was destroyed) and shows what it
    /// changed; returns the transition's answer.
    pub fn change<R: Default>(
        &self,
        view: &mut View,
        transition: impl FnOnce(&mut State) -> (R, Changes),
    ) -> R {
        if view.destroyed {
            return R::default();
        }
        let (answer, changes) = transition(&mut self.state.borrow_mut());
        self.apply(view, changes);
        self.tell_verdicts(view);
        answer
    }

    /// Draws the overview of the version 3 record `incoming` holds so far (of `size` bytes, if
    /// known), if nothing else is shown in its place and the view is free: at once, then again
    /// when it has [`PREVIEW_GROWTH`] times the steps drawn, while less than half its bytes are
    /// read (past that, the record itself is near). Each drawing reads every step read so far:
    /// together they read at most two thirds of the record's steps.
    fn preview(&self, incoming: &Incoming, size: Option<u64>) {
        if self.destroyed() {
            return;
        }
        let Some((record, mismatch)) = incoming.so_far().filter(|(r, _)| !r.steps.is_empty())
        else {
            return;
        };
        let (Ok(mut view), Ok(state)) = (self.view.try_borrow_mut(), self.state.try_borrow())
        else {
            return;
        };
        if view.destroyed || !View::previews(&state, Some(&record.id)) {
            return;
        }
        let half_read = size.is_some_and(|size| incoming.bytes().saturating_mul(2) >= size);
        let grown = view
            .previewed()
            .is_none_or(|drawn| record.steps.len() >= drawn.saturating_mul(PREVIEW_GROWTH));
        if grown && !half_read {
            view.preview(state.lang, record, mismatch);
        }
    }

    /// Shows what a transition changed.
    fn apply(&self, view: &mut View, changes: Changes) {
        let state = self.state.borrow();
        view.drop_preview(&state, changes.all);
        if changes.all {
            *self.settled.borrow_mut() = view.render_all(&state);
        }
        if changes.status && !changes.all {
            view.render_status(&state);
        }
        if let Some(i) = changes.tab.filter(|_| !changes.all) {
            view.replace_tab(&state, i);
        }
        if changes.tabs && !changes.all {
            view.update_tabs(&state);
        }
        if changes.loaded && !changes.all {
            view.loaded_all();
        }
        if changes.panel && !changes.all {
            *self.settled.borrow_mut() = view.render_panel(&state);
        }
        if changes.timeline && !changes.panel && !changes.all {
            view.redraw_timeline(&state, true);
        }
        // A panel drawn again shows the current step too (it stays across redraws).
        if changes.step.is_some() || changes.panel || changes.all {
            let settled = self.settled.borrow().clone();
            view.show_step(&state, changes.step.unwrap_or(false), settled);
        }
        // The "Compare with…" control lists the records other than the selected one.
        let chooser = changes.tabs || changes.panel || changes.tab.is_some();
        if (changes.compare || chooser) && !changes.all {
            view.render_compare(&state);
        }
        let redrawn = changes.find || changes.panel || changes.all || changes.timeline;
        if redrawn || changes.step.is_some() {
            view.show_find(&state, redrawn);
        }
        if let Some(write) = changes.link {
            view.write_link(&state, write);
        }
    }

    /// What the handle's `settled()` returns.
    pub fn settled(&self) -> js_sys::Promise {
        self.settled
            .borrow()
            .clone()
            .unwrap_or_else(|| js_sys::Promise::resolve(&JsValue::UNDEFINED))
    }

    /// Whether `destroy` was called.
    pub fn destroyed(&self) -> bool {
        self.destroyed.get()
    }

    /// Removes the viewer's DOM and listeners, now or once the view is free; afterwards the
    /// handle changes nothing.
    pub fn destroy(self: &Rc<Self>) {
        self.destroyed.set(true);
        self.aborts.abort();
        self.call(|core, view| {
            view.destroy();
            core.verdicts.fail(verdicts::DESTROYED);
            core.state.borrow_mut().clear();
            *core.settled.borrow_mut() = None;
            forget(core);
        });
    }

    /// Registers the viewer as live (kept until `destroy`).
    pub fn keep(core: &Shared) {
        LIVE.with(|live| live.borrow_mut().push(core.clone()));
    }
}

fn forget(core: *const Core) {
    LIVE.with(|live| {
        if let Ok(mut live) = live.try_borrow_mut() {
            live.retain(|c| !std::ptr::eq(Rc::as_ptr(c), core));
        }
    });
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
        .and_then(as_element)
        .is_some_and(|root| root.is_connected())
}
