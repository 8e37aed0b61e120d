//! A dispatcher in a given state: the reservations a version 2 record starts from.

use crate::{Label, LaneError, Lease};

use super::{Dispatcher, Reservation};
use crate::reservation::{DispatchError, ReservationState, ReservationView};

impl Dispatcher {
    /// A dispatcher with these queues whose reservations are `views`, ids `R1`, `R2`, … in
    /// order: queued ones wait in their queues in that order, a dispatched or persisting one holds
    /// its project's lane (with a lease of its own, claimed here), an unresolved one blocks its
    /// project, and the others are history. The next enqueue gets the next id.
    ///
    /// A state the dispatcher could not have reached is refused: an id out of order
    /// (`UNKNOWN_RESERVATION`), an unknown queue (`UNKNOWN_QUEUE`), a project held or blocked
    /// twice (`PROJECT_BUSY`). `Record::check` refuses all of these with a located message first.
    pub(crate) fn restored(
        queues: &[Label],
        views: &[ReservationView],
    ) -> Result<Dispatcher, DispatchError> {
        let mut d = Dispatcher::with_queues(queues)?;
        for view in views {
            d.restore_reservation(view)?;
        }
        d.finish_restore();
        Ok(d)
    }

    /// Adds the reservation `view`, which must be the next id, as [`restored`](Self::restored)
    /// says; queued ones are offered by [`finish_restore`](Self::finish_restore).
    pub(crate) fn restore_reservation(
        &mut self,
        view: &ReservationView,
    ) -> Result<(), DispatchError> {
        let id = view.id;
        if id.number() != self.count() + 1 {
            return Err(DispatchError::UnknownReservation);
        }
        let q = self.queue_index(&view.queue)?;
        let p = self.intern(view.project.clone());
        match view.state {
            ReservationState::Dispatched
            | ReservationState::Persisting
            | ReservationState::Unresolved
                if !self.projects[p as usize].available() =>
            {
                return Err(LaneError::ProjectBusy.into());
            }
            ReservationState::Dispatched | ReservationState::Persisting => {
                let project = &mut self.projects[p as usize];
                let lease = self.lanes.claim(&project.name, &view.run)?;
                project.lease = Some((id, lease));
            }
            ReservationState::Unresolved => self.projects[p as usize].unresolved = Some(id),
            ReservationState::Queued
            | ReservationState::Done
            | ReservationState::Cancelled
            | ReservationState::Resolved => {}
        }
        self.reservations.push(Reservation {
            queue: q as u32,
            project: p,
            run: view.run.clone(),
            state: view.state,
            outcome: view.outcome,
            next: None,
        });
        if view.state == ReservationState::Queued {
            self.append(q, p, id);
        }
        Ok(())
    }

    /// Claims `project`'s lane directly for `run` (and asks it to stop if `stop`), as held
    /// before a record's first step; `PROJECT_BUSY` if something holds or blocks it already.
    #[cfg_attr(not(feature = "json"), allow(dead_code))]
    pub(crate) fn restore_claim(
        &mut self,
        project: &Label,
        run: &Label,
        stop: bool,
    ) -> Result<Lease, DispatchError> {
        let p = self.intern(project.clone());
        if !self.projects[p as usize].available() {
            return Err(LaneError::ProjectBusy.into());
        }
        let lease = self.lanes.claim(project, run)?;
        if stop {
            self.lanes.request_stop(&lease)?;
        }
        self.projects[p as usize].direct = true;
        Ok(lease)
    }

    /// After the restored reservations and claims: every available project's waiting heads
    /// offered.
    pub(crate) fn finish_restore(&mut self) {
        for p in 0..self.projects.len() {
            self.offer(p as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Outcome;
    use crate::dispatch::ReservationId;

    fn view(n: u64, queue: &str, project: &str, state: ReservationState) -> ReservationView {
        let outcome = match state {
            ReservationState::Persisting | ReservationState::Done => Some(Outcome::Succeeded),
            ReservationState::Unresolved | ReservationState::Resolved => Some(Outcome::NeedsReview),
            _ => None,
        };
        ReservationView {
            id: ReservationId(n),
            queue: Label::new(queue).unwrap(),
            project: Label::new(project).unwrap(),
            run: Label::new(&format!("run-{n}")).unwrap(),
            state,
            outcome,
        }
    }

    fn labels(names: &[&str]) -> Vec<Label> {
        names.iter().map(|n| Label::new(n).unwrap()).collect()
    }

    #[test]
    fn a_restored_dispatcher_goes_on_as_the_one_it_was_cut_from_would() {
        use ReservationState::*;
        let views = [
            view(1, "general", "docs", Done),
            view(2, "general", "docs", Dispatched),
            view(3, "general", "docs", Queued),
            view(4, "delivery", "site", Unresolved),
            view(5, "delivery", "site", Queued),
            view(6, "delivery", "wiki", Queued),
            view(7, "general", "wiki", Cancelled),
        ];
        let mut d = Dispatcher::restored(&labels(&["general", "delivery"]), &views).unwrap();
        assert_eq!(d.reservations(), views);
        assert!(d.view("docs").unwrap().busy, "R2 holds docs");
        assert_eq!(d.retained("general"), Ok(1));
        assert_eq!(d.retained("delivery"), Ok(2));
        // docs is held and site blocked: only wiki's R6 can go.
        assert_eq!(d.dispatch("general"), Ok(None));
        assert_eq!(
            d.dispatch("delivery").unwrap().unwrap().reservation,
            ReservationId(6)
        );
        d.finish(ReservationId(2), Outcome::Succeeded).unwrap();
        d.persisted(ReservationId(2), true).unwrap();
        assert_eq!(
            d.dispatch("general").unwrap().unwrap().reservation,
            ReservationId(3)
        );
        d.resolve(ReservationId(4)).unwrap();
        assert_eq!(
            d.dispatch("delivery").unwrap().unwrap().reservation,
            ReservationId(5)
        );
        assert_eq!(
            d.enqueue("general", "docs", "next").unwrap(),
            ReservationId(8)
        );
    }

    #[test]
    fn a_state_the_dispatcher_cannot_reach_is_refused() {
        use ReservationState::*;
        let queues = labels(&["general"]);
        let twice = [
            view(1, "general", "docs", Dispatched),
            view(2, "general", "docs", Persisting),
        ];
        assert_eq!(
            Dispatcher::restored(&queues, &twice).unwrap_err(),
            LaneError::ProjectBusy.into()
        );
        let blocked = [
            view(1, "general", "docs", Unresolved),
            view(2, "general", "docs", Dispatched),
        ];
        assert!(Dispatcher::restored(&queues, &blocked).is_err());
        let gap = [view(2, "general", "docs", Queued)];
        assert_eq!(
            Dispatcher::restored(&queues, &gap).unwrap_err(),
            DispatchError::UnknownReservation
        );
        let elsewhere = [view(1, "nowhere", "docs", Queued)];
        assert_eq!(
            Dispatcher::restored(&queues, &elsewhere).unwrap_err(),
            DispatchError::UnknownQueue
        );
    }
}
