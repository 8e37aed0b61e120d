//! Verification: every record shown is checked (`Record::check`) and replayed on the real core
//! (`project_lanes::record::Replay`) in this page. Replay drives fresh in-memory lanes or a fresh
//! dispatcher: it executes no work.
//!
//! Small records verify at once; larger ones [`CHUNK`] steps at a time between the browser's
//! tasks, so a 100,000-step record never blocks the page, with progress shown meanwhile.

use std::rc::{Rc, Weak};

use project_lanes::record::{Replay, ReplayMismatch};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::load::Loaded;

/// Steps replayed per task.
pub const CHUNK: usize = 2_000;

/// What replaying a record on the core found.
#[derive(Default)]
pub enum Verification {
    /// Not started yet (the record was never shown).
    #[default]
    NotStarted,
    /// Replaying: this many steps matched so far.
    Running(usize),
    /// Every step and the final lanes match the core.
    Verified,
    /// The record parsed but breaks the format, or the core returns something else.
    Failed(ReplayMismatch),
}

impl Verification {
    /// `data-verification` on the panel.
    pub fn code(&self) -> &'static str {
        match self {
            Verification::NotStarted | Verification::Running(_) => "pending",
            Verification::Verified => "verified",
            Verification::Failed(ReplayMismatch::Invalid(_)) => "invalid",
            Verification::Failed(_) => "mismatch",
        }
    }

    /// The step that does not match, if any.
    pub fn mismatch_step(&self) -> Option<usize> {
        match self {
            Verification::Failed(ReplayMismatch::Result { step, .. })
            | Verification::Failed(ReplayMismatch::Reservations { step, .. }) => Some(*step),
            Verification::Failed(ReplayMismatch::Lanes { step, .. }) => *step,
            _ => None,
        }
    }
}

/// Starts verifying `loaded` if it never was: the first [`CHUNK`] steps at once; if more remain,
/// the rest run in the background and `progress` is called after each chunk (with the record, so
/// the caller can tell whether it is still shown). Returns whether anything changed.
pub fn start(loaded: &Rc<Loaded>, progress: impl Fn(&Rc<Loaded>) + 'static) -> bool {
    if !matches!(*loaded.verification.borrow(), Verification::NotStarted) {
        return false;
    }
    let mut replay = match Replay::new(&loaded.record) {
        Ok(replay) => replay,
        Err(error) => {
            *loaded.verification.borrow_mut() = Verification::Failed(error);
            return true;
        }
    };
    if advance(loaded, &mut replay) {
        let weak = Rc::downgrade(loaded);
        wasm_bindgen_futures::spawn_local(background(weak, replay, progress));
    }
    true
}

/// Replays one chunk; returns whether more remain.
fn advance(loaded: &Loaded, replay: &mut Replay) -> bool {
    let state = match replay.run(&loaded.record, CHUNK) {
        Ok(true) => Verification::Verified,
        Ok(false) => Verification::Running(replay.position()),
        Err(mismatch) => Verification::Failed(mismatch),
    };
    let more = matches!(state, Verification::Running(_));
    *loaded.verification.borrow_mut() = state;
    more
}

async fn background(weak: Weak<Loaded>, mut replay: Replay, progress: impl Fn(&Rc<Loaded>)) {
    loop {
        yield_to_browser().await;
        // A record no viewer holds any more (destroyed) stops replaying.
        let Some(loaded) = weak.upgrade() else { return };
        let more = advance(&loaded, &mut replay);
        progress(&loaded);
        if !more {
            return;
        }
    }
}

/// Lets the browser run its other tasks (input, rendering) before the next chunk.
async fn yield_to_browser() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
        } else {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    });
    let _ = JsFuture::from(promise).await;
}
