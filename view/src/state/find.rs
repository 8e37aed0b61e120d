//! The find box's transitions: a new query, its matches in the selected record found again
//! when that record changes, and the next or previous match made current.

use super::{Changes, Origin, State, Write};
use crate::find::Query;

impl<T> State<T> {
    /// The find box's text is now `query`: its matches are found in the selected record. A
    /// query the person typed is written to the deep link in place (not one history entry per
    /// key).
    pub fn set_query(&mut self, query: &str, origin: Origin) -> Changes {
        if query == self.query {
            return Changes::default();
        }
        self.query = query.to_string();
        self.refind();
        Changes {
            find: true,
            link: (origin == Origin::User && self.follows_link).then_some(Write::Replace),
            ..Changes::default()
        }
    }

    /// Finds the query's matches in the selected record again; `true` (the find box changes)
    /// unless the query is empty and nothing was found before either.
    pub(super) fn refind(&mut self) -> bool {
        let before = self.found.is_some();
        self.found = match Query::parse(&self.query) {
            Ok(query) if query.is_empty() => None,
            Ok(query) => self
                .selected_entry()
                .and_then(|e| e.content.loaded())
                .map(|loaded| Ok(loaded.found(&self.query, || query.find(&loaded.concerns())))),
            Err(error) => Some(Err(error)),
        };
        before || self.found.is_some()
    }

    /// Makes the next match after the current step current (`forward`), or the previous one
    /// before it, going round past the last or the first; nothing when nothing matches.
    pub fn find_step(&mut self, forward: bool) -> Changes {
        let Some(Ok(found)) = &self.found else {
            return Changes::default();
        };
        let current = self.current_step;
        let target = if forward {
            found.next(current).or_else(|| found.next(None))
        } else {
            found.previous(current).or_else(|| found.previous(None))
        };
        let Some(n) = target else {
            return Changes::default();
        };
        let mut changes = self.select_step(n, Origin::User).unwrap_or_default();
        changes.find = true;
        changes
    }
}
