//! Verification: every record shown is checked (`Record::check`) and replayed on the real core
//! (`project_lanes::record::Replay`) in this page. Replay drives fresh in-memory lanes or a fresh
//! dispatcher: it executes no work.
//!
//! Small records verify at once; larger ones at least [`CHUNK`] steps at a time between the
//! browser's tasks (paced: `pace.rs`), so a 100,000-step record never blocks the page, with
//! progress shown meanwhile.

use std::rc::{Rc, Weak};

use project_lanes::record::Replay;

use project_lanes_view::entry::Verification;

use crate::entry::Loaded;
use crate::pace::Pace;

/// Steps replayed per task, at least (more when the page's updates take longer: [`Pace`]).
pub const CHUNK: usize = 2_000;

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
    if advance(loaded, &mut replay, CHUNK) {
        let weak = Rc::downgrade(loaded);
        wasm_bindgen_futures::spawn_local(background(weak, replay, progress));
    }
    true
}

/// Replays `steps` more steps; returns whether more remain.
fn advance(loaded: &Loaded, replay: &mut Replay, steps: usize) -> bool {
    let state = match replay.run(&loaded.record, steps) {
        Ok(true) => Verification::Verified,
        Ok(false) => Verification::Running(replay.position()),
        Err(mismatch) => Verification::Failed(mismatch),
    };
    let more = matches!(state, Verification::Running(_));
    *loaded.verification.borrow_mut() = state;
    more
}

async fn background(weak: Weak<Loaded>, mut replay: Replay, progress: impl Fn(&Rc<Loaded>)) {
    let mut pace = Pace::new(CHUNK);
    loop {
        crate::dom::next_task().await;
        // A record no viewer holds any more (destroyed) stops replaying.
        let Some(loaded) = weak.upgrade() else { return };
        let more = pace.task(|budget| advance(&loaded, &mut replay, budget));
        progress(&loaded);
        if !more {
            return;
        }
    }
}
