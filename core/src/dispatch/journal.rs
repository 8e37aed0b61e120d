//! The dispatcher's journal: each operation, as it returns, with its answer, the time from the
//! journal's clock and the actor the caller named. The dispatcher is one state machine behind
//! `&mut self`, so the order of its calls is an order that replays.

#[cfg(feature = "journal")]
use std::sync::Arc;

use crate::op::MAX_INPUT_CHARS;
use crate::reservation::DispatchError;
#[cfg(feature = "journal")]
use crate::transition::{Actor, Clock, Entry};
use crate::transition::{Answer, Call};

use super::Dispatcher;

/// A dispatcher's journal (feature `journal`).
#[cfg(feature = "journal")]
pub(super) struct DispatchJournal {
    clock: Option<Arc<dyn Clock>>,
    actor: Option<Actor>,
    entries: Vec<Entry>,
}

/// An input as records hold it: at most 200 characters (a longer label or queue name is
/// refused just the same).
pub(super) fn input(text: &str) -> String {
    text.chars().take(MAX_INPUT_CHARS).collect()
}

/// The journal's answer for `result`: the refusal, or what `ok` makes of the success. `None`
/// for what is not journaled: a call naming a reservation never enqueued (no record can name
/// it), and what `ok` leaves out.
pub(super) fn answer<T>(
    result: &Result<T, DispatchError>,
    ok: impl FnOnce(&T) -> Result<Answer, DispatchError>,
) -> Option<Answer> {
    match result {
        Err(DispatchError::UnknownReservation) => None,
        Err(e) => Some(Answer::Refused(*e)),
        Ok(value) => ok(value).ok(),
    }
}

impl Dispatcher {
    /// Runs `op`; with a journal, journals what `entry` makes of its result.
    #[inline(always)]
    pub(super) fn journaled<T>(
        &mut self,
        op: impl FnOnce(&mut Dispatcher) -> Result<T, DispatchError>,
        entry: impl FnOnce(&Dispatcher, &Result<T, DispatchError>) -> Option<(Call, Answer)>,
    ) -> Result<T, DispatchError> {
        #[cfg(feature = "journal")]
        if let Some(journal) = &self.journal {
            let at = journal.clock.as_ref().map(|c| c.now());
            let result = op(self);
            if let Some((call, answer)) = entry(self, &result)
                && let Some(journal) = &mut self.journal
            {
                let actor = journal.actor.clone();
                journal.entries.push(Entry {
                    at,
                    actor,
                    call,
                    answer,
                });
            }
            return result;
        }
        let _ = entry;
        op(self)
    }

    /// The same dispatcher, keeping a journal of every enqueue, dispatch that hands out a job,
    /// finish, persist, cancel and resolve (refusals included) with its answer, the time `clock`
    /// gives (none without one) and the actor set with [`set_actor`](Self::set_actor). See
    /// [`journal`](crate::journal). Feature `journal`.
    ///
    /// ```
    /// use project_lanes::dispatch::Dispatcher;
    /// use project_lanes::journal::{Actor, Export, Journal};
    ///
    /// let mut d = Dispatcher::new(&["general"])?.with_journal(None);
    /// d.set_actor(Actor::new("scheduler"));
    /// let id = d.enqueue("general", "docs", "nightly-1")?;
    /// d.dispatch("general")?;
    /// d.finish(id, project_lanes::Outcome::Succeeded)?;
    /// d.persisted(id, true)?;
    /// let mut journal = Journal::dispatcher(d.queues());
    /// journal.extend(d.take_journal());
    /// let record = journal.record(&Export::new("nightly", "scheduler")?)?;
    /// assert_eq!(record.steps[0].actor.as_deref(), Some("scheduler"));
    /// assert_eq!(project_lanes::record::replay(&record), Ok(()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[cfg(feature = "journal")]
    pub fn with_journal(mut self, clock: Option<Arc<dyn Clock>>) -> Dispatcher {
        self.journal = Some(Box::new(DispatchJournal {
            clock,
            actor: None,
            entries: Vec::new(),
        }));
        self
    }

    /// Whether this dispatcher keeps a journal. Feature `journal`.
    #[cfg(feature = "journal")]
    pub fn keeps_journal(&self) -> bool {
        self.journal.is_some()
    }

    /// Who calls the next operations, for the journal (a worker, a host and process); `None`
    /// for no one in particular. Feature `journal`.
    #[cfg(feature = "journal")]
    pub fn set_actor(&mut self, actor: Option<Actor>) {
        if let Some(journal) = &mut self.journal {
            journal.actor = actor;
        }
    }

    /// The journal's entries since the last take, in the order the operations ran (empty for a
    /// dispatcher without a journal). Feature `journal`.
    #[cfg(feature = "journal")]
    pub fn take_journal(&mut self) -> Vec<Entry> {
        self.journal
            .as_mut()
            .map(|j| std::mem::take(&mut j.entries))
            .unwrap_or_default()
    }
}
