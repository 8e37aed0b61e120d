//! The verdicts a viewer tells its page: once per record read, when its replay ends or its file
//! could not be shown (`Entry::verdict_told`), and once for an index, `src` or inline record that
//! could not be shown at all (`record: null`). `web/js/verdicts.js` sends each as
//! `lane-viewer-verdict` from the viewer's root and keeps the promises of the handle's
//! `verdict(id)`, for which a record never shown is replayed.

use js_sys::Promise;
use project_lanes_view::entry::{Content, Verdict};
use wasm_bindgen::prelude::*;
use web_sys::Element;

use super::{Core, View};

#[wasm_bindgen(module = "/js/verdicts.js")]
extern "C" {
    /// One viewer's verdicts, on the JavaScript side.
    pub type LaneViewerVerdicts;
    #[wasm_bindgen(constructor)]
    pub fn new(root: &Element) -> LaneViewerVerdicts;
    #[wasm_bindgen(method)]
    fn tell(
        this: &LaneViewerVerdicts,
        record: Option<&str>,
        verdict: &str,
        step: Option<u32>,
        code: Option<&str>,
        chain: &str,
        root: Option<&str>,
    );
    #[wasm_bindgen(method)]
    fn wait(this: &LaneViewerVerdicts, record: Option<&str>) -> Promise;
    #[wasm_bindgen(method)]
    fn refuse(this: &LaneViewerVerdicts, message: &str) -> Promise;
    #[wasm_bindgen(method)]
    pub fn fail(this: &LaneViewerVerdicts, message: &str);
}

/// Why a promise is refused once the viewer is gone.
pub const DESTROYED: &str = "lane-viewer: the viewer was destroyed";

impl Core {
    /// A promise of record `record`'s verdict (the selected record's when `None`).
    pub fn verdict(&self, record: Option<String>) -> Promise {
        if self.destroyed() {
            return self.verdicts.refuse(DESTROYED);
        }
        let state = self.state.borrow();
        let record = record.or_else(|| state.selected_id().map(String::from));
        let Some(id) = record else {
            return match &state.index_error {
                // Told with `record: null`.
                Some(_) => self.verdicts.wait(None),
                None => self.verdicts.refuse("lane-viewer: no record is shown"),
            };
        };
        let Some(entry) = state.position(&id).map(|i| &state.entries[i]) else {
            let mut message = format!("lane-viewer: no record \"{id}\"");
            if let Some(error) = &state.index_error {
                message.push_str(" (the records could not be shown: ");
                message.push_str(error.kind.code());
                message.push(')');
            }
            return self.verdicts.refuse(&message);
        };
        let promise = self.verdicts.wait(Some(&id));
        let pending = entry.content.is_pending();
        drop(state);
        if pending {
            // Replayed once it arrives.
            self.replay_wanted.borrow_mut().push(id);
        } else {
            // Replayed for the promise if it never was.
            self.call(move |core, view| {
                core.replay_wanted.borrow_mut().push(id);
                core.tell_verdicts(view);
            });
        }
        promise
    }

    /// Tells the page every verdict reached since it was last told.
    pub(super) fn tell_verdicts(&self, view: &View) {
        if view.destroyed {
            return;
        }
        let mut told = Vec::new();
        let state = self.state.borrow();
        // The records a promise waits for are replayed, once read, even if never shown.
        self.replay_wanted.borrow_mut().retain(|id| {
            let entry = state.position(id).map(|i| &state.entries[i]);
            match entry.map(|e| &e.content) {
                Some(Content::Pending) => true,
                Some(Content::Loaded(loaded)) => {
                    view.verify(loaded);
                    false
                }
                _ => false,
            }
        });
        for entry in &state.entries {
            if !entry.verdict_told.get()
                && let Some(verdict) = entry.verdict()
            {
                entry.verdict_told.set(true);
                told.push((Some(entry.id.clone()), verdict));
            }
        }
        if let Some(error) = &state.index_error
            && !self.index_told.replace(true)
        {
            told.push((None, Verdict::invalid(error.kind)));
        }
        // The page's handlers run with nothing borrowed: they may call the viewer.
        drop(state);
        for (record, verdict) in told {
            self.verdicts.tell(
                record.as_deref(),
                verdict.verdict,
                verdict.step.map(|n| n as u32),
                verdict.code,
                verdict.chain,
                verdict.root.as_deref(),
            );
        }
    }
}
