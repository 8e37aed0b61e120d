//! The timeline model of the record shown, kept while it is shown: building it costs the
//! record's steps (a million steps: about 120 ms natively), while drawing a window of it, its
//! rows or another zoom costs only what is drawn. The model borrows the record it was built
//! from, so the two are kept together.

use std::rc::Rc;

use project_lanes_view::timeline::{Timeline, timeline};

use crate::entry::Loaded;

self_cell::self_cell!(
    /// A record and its timeline model.
    pub struct Overview {
        owner: Rc<Loaded>,
        #[covariant]
        dependent: Timeline,
    }
);

impl Overview {
    /// The model of `loaded`: this one if it is that record's, else built.
    pub fn of<'k>(kept: &'k mut Option<Overview>, loaded: &Rc<Loaded>) -> &'k Overview {
        if !kept
            .as_ref()
            .is_some_and(|o| Rc::ptr_eq(o.borrow_owner(), loaded))
        {
            *kept = Some(Overview::new(loaded.clone(), |l| timeline(&l.record)));
        }
        kept.as_ref().unwrap_or_else(|| unreachable!("just kept"))
    }

    /// The model.
    pub fn model(&self) -> &Timeline<'_> {
        self.borrow_dependent()
    }

    /// The steps' places on a time axis, if every step has a time.
    pub fn edges(&self) -> Option<&[u64]> {
        self.model().edges.as_deref()
    }
}
