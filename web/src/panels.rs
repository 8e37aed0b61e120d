//! One bounded cache of what was built per record and language: the whole panel of a small
//! record (switching back puts its elements back instead of building them again), or the
//! timeline of a larger one (whose steps are built again in the background). At most [`KEEP`]
//! pairs are kept, the least recently shown dropped first, so opening record after record never
//! grows the page's detached DOM without bound. A kept panel's verification line is brought up
//! to date when it comes back.

use std::rc::Rc;

use js_sys::Array;
use web_sys::{Document, Element};

use crate::dom::attr;
use crate::entry::Loaded;
use crate::render;
use project_lanes_view::i18n::Lang;

/// (Record, language) pairs kept at most.
pub const KEEP: usize = 16;
/// Whole panels are kept for records of at most this many steps (larger ones keep their
/// timeline only: their steps are built in the background and would hold thousands of nodes).
const MAX_STEPS: usize = 400;

/// Items in the order they were last used (the most recent last), at most `capacity`.
pub struct Lru<T> {
    items: Vec<T>,
    capacity: usize,
}

impl<T> Lru<T> {
    pub fn new(capacity: usize) -> Lru<T> {
        Lru {
            items: Vec::new(),
            capacity,
        }
    }

    /// Takes out the item `is` picks, if any.
    pub fn take(&mut self, is: impl Fn(&T) -> bool) -> Option<T> {
        let at = self.items.iter().position(is)?;
        Some(self.items.remove(at))
    }

    /// Adds `item` as the most recent, dropping the least recent beyond the capacity.
    pub fn put(&mut self, item: T) {
        self.items.push(item);
        if self.items.len() > self.capacity {
            self.items.remove(0);
        }
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.items.len()
    }
}

/// The cache, and what the panel shows now (kept when it is left).
pub struct Panels {
    kept: Lru<Kept>,
    shown: Option<(Rc<Loaded>, Lang)>,
}

impl Default for Panels {
    fn default() -> Panels {
        Panels {
            kept: Lru::new(KEEP),
            shown: None,
        }
    }
}

struct Kept {
    loaded: Rc<Loaded>,
    lang: Lang,
    built: Built,
}

enum Built {
    /// Every node of a complete panel, and the verification its line showed.
    Panel {
        nodes: Array,
        verification: (&'static str, usize),
    },
    /// The timeline section only.
    Timeline(Element),
}

impl Panels {
    fn is(loaded: &Rc<Loaded>, lang: Lang) -> impl Fn(&Kept) -> bool + '_ {
        move |k| k.lang == lang && Rc::ptr_eq(&k.loaded, loaded)
    }

    /// Keeps what the panel shows (before it is emptied): the whole panel when it is complete
    /// and small, else its timeline.
    pub fn leave(&mut self, panel: &Element) {
        let Some((loaded, lang)) = self.shown.take() else {
            return;
        };
        let busy = panel.query_selector("[aria-busy]").ok().flatten().is_some();
        let built = if !busy && loaded.record.steps.len() <= MAX_STEPS {
            Built::Panel {
                nodes: Array::from(&panel.child_nodes()),
                verification: signature(&loaded),
            }
        } else if let Some(section) = panel.query_selector(".lv-timeline").ok().flatten() {
            Built::Timeline(section)
        } else {
            return;
        };
        self.kept.take(Self::is(&loaded, lang));
        self.kept.put(Kept {
            loaded,
            lang,
            built,
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
        let panel_kept =
            |k: &Kept| Self::is(loaded, lang)(k) && matches!(k.built, Built::Panel { .. });
        let Some(Kept {
            built: Built::Panel {
                nodes,
                verification,
            },
            ..
        }) = self.kept.take(panel_kept)
        else {
            return false;
        };
        panel.replace_children_with_node(&nodes);
        attr(panel, "data-chain", loaded.proof.code());
        if verification == signature(loaded) {
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

    /// The kept timeline of `loaded` in `lang`, if there is one (it is shown again).
    pub fn timeline(&mut self, loaded: &Rc<Loaded>, lang: Lang) -> Option<Element> {
        match self.kept.take(Self::is(loaded, lang))?.built {
            Built::Timeline(section) => Some(section),
            Built::Panel { .. } => None,
        }
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
    loaded.verification.borrow().signature()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_the_most_recently_used_up_to_its_capacity() {
        let mut lru = Lru::new(3);
        for n in 0..10 {
            lru.put(n);
        }
        assert_eq!(lru.len(), 3);
        assert_eq!(lru.take(|&n| n == 6), None, "dropped");
        // Used again: the most recent.
        let seven = lru.take(|&n| n == 7).unwrap();
        lru.put(seven);
        lru.put(10);
        assert_eq!(lru.take(|&n| n == 8), None, "the least recent went first");
        assert_eq!(lru.take(|&n| n == 7), Some(7));
    }
}
