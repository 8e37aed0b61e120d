//! Panels already built, kept per record and language: switching back to a record puts its
//! elements back instead of building them again (the switch budget of issue 10).
//!
//! Only complete panels are kept (every step built, so no background work is cut short), of
//! records up to [`MAX_STEPS`] steps, at most [`KEEP`] of them, the least recently shown
//! dropped first. A kept panel's verification line is brought up to date when it comes back.

use std::rc::Rc;

use js_sys::Array;
use web_sys::{Document, Element};

use crate::dom::attr;
use crate::i18n::Lang;
use crate::load::Loaded;
use crate::render;

/// Panels kept at most.
const KEEP: usize = 16;
/// Records of more steps are rebuilt each time (their steps are built in the background).
const MAX_STEPS: usize = 400;

/// The kept panels, and what the panel shows now.
#[derive(Default)]
pub struct Panels {
    kept: Vec<Kept>,
    shown: Option<(Rc<Loaded>, Lang)>,
}

struct Kept {
    loaded: Rc<Loaded>,
    lang: Lang,
    nodes: Array,
    /// The verification its line shows.
    verification: (&'static str, usize),
}

impl Panels {
    /// Takes the panel's current content into the cache, if it is worth keeping, and forgets
    /// what was shown. Call before the panel is emptied.
    pub fn leave(&mut self, panel: &Element) {
        let Some((loaded, lang)) = self.shown.take() else {
            return;
        };
        let busy = panel.query_selector("[aria-busy]").ok().flatten().is_some();
        if busy || loaded.record.steps.len() > MAX_STEPS {
            return;
        }
        let verification = signature(&loaded);
        let nodes = Array::from(&panel.child_nodes());
        if self.kept.len() == KEEP {
            self.kept.remove(0);
        }
        self.kept.push(Kept {
            loaded,
            lang,
            nodes,
            verification,
        });
    }

    /// Puts back the kept panel of `loaded` in `lang`, if there is one: `true` if it did.
    pub fn restore(
        &mut self,
        doc: &Document,
        panel: &Element,
        loaded: &Rc<Loaded>,
        lang: Lang,
    ) -> bool {
        let Some(at) = self
            .kept
            .iter()
            .position(|k| k.lang == lang && Rc::ptr_eq(&k.loaded, loaded))
        else {
            return false;
        };
        let kept = self.kept.remove(at);
        panel.replace_children_with_node(&kept.nodes);
        if kept.verification == signature(loaded) {
            attr(
                panel,
                "data-verification",
                loaded.verification.borrow().code(),
            );
        } else {
            render::update_verification(doc, lang, panel, loaded);
        }
        self.shown(loaded, lang);
        true
    }

    /// Notes that the panel now shows `loaded` in `lang`.
    pub fn shown(&mut self, loaded: &Rc<Loaded>, lang: Lang) {
        self.shown = Some((loaded.clone(), lang));
    }

    /// Forgets everything (the records were replaced, or the viewer destroyed).
    pub fn clear(&mut self) {
        self.kept.clear();
        self.shown = None;
    }
}

/// What a verification line shows: its state and, while running, its progress.
fn signature(loaded: &Loaded) -> (&'static str, usize) {
    let verification = loaded.verification.borrow();
    let progress = match &*verification {
        crate::verify::Verification::Running(n) => *n,
        _ => 0,
    };
    (verification.code(), progress)
}
