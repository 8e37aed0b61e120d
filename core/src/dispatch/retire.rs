//! Forgetting the reservations settled for good at the front, for a replay that must not grow
//! with its record: an audit of a journal of any length keeps what is live, and the
//! reservations enqueued since the oldest live one.
//!
//! A retired reservation answers every transition as it would have: each of `finish`,
//! `persisted`, `cancel` and `resolve` refuses a reservation that is done, cancelled or
//! resolved with its own code, whichever of the three it is. Only a prefix is retired: the
//! head of every waiting line is queued (a cancelled head is popped), so no line, lane or
//! offer names an id before the first live reservation, and the ids after it keep their slots.

use super::Dispatcher;
use crate::reservation::ReservationState;

/// Settled reservations at the front are retired once there are this many, and at least as
/// many as the reservations after them (so each is moved at most once on average).
const RETIRE_AT: usize = 4_096;

impl Dispatcher {
    /// Forgets the reservations settled for good at the front, when enough of them are. A
    /// retired one is refused as it was; [`reservation`](Dispatcher::reservation) no longer
    /// knows it (`UNKNOWN_RESERVATION`), and [`reservations`](Dispatcher::reservations) leaves
    /// it out.
    pub(crate) fn retire_settled(&mut self) {
        while let Some(r) = self.reservations.get(self.settled_front)
            && matches!(
                r.state,
                ReservationState::Done | ReservationState::Cancelled | ReservationState::Resolved
            )
        {
            self.settled_front += 1;
        }
        let front = self.settled_front;
        if front >= RETIRE_AT && front * 2 >= self.reservations.len() {
            self.reservations.drain(..front);
            self.retired += front as u64;
            self.settled_front = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Outcome;
    use crate::dispatch::{DispatchError, ReservationId};

    #[test]
    fn retired_reservations_are_refused_as_before_and_live_ones_are_untouched() {
        let mut d = Dispatcher::new(&["general", "delivery"]).unwrap();
        let mut done = Vec::new();
        // A reservation left waiting behind the ones that settle: it stops the retiring.
        for n in 0..RETIRE_AT * 2 {
            let id = d.enqueue("general", &format!("p{}", n % 7), "run").unwrap();
            let job = d.dispatch("general").unwrap().unwrap();
            assert_eq!(job.reservation, id);
            d.finish(id, Outcome::Succeeded).unwrap();
            d.persisted(id, true).unwrap();
            done.push(id);
        }
        let cancelled = d.enqueue("delivery", "p0", "run").unwrap();
        d.cancel(cancelled).unwrap();
        let waiting = d.enqueue("delivery", "p1", "run").unwrap();
        let behind = d.enqueue("delivery", "p1", "later").unwrap();
        let by_hand = d.claim("p1", "by-hand").unwrap();
        assert!(d.dispatch("delivery").unwrap().is_none());
        let before: Vec<_> = [done[0], done[RETIRE_AT], cancelled]
            .iter()
            .map(|&id| {
                (
                    d.finish(id, Outcome::Failed),
                    d.persisted(id, true),
                    d.cancel(id),
                    d.resolve(id),
                )
            })
            .collect();
        d.retire_settled();
        assert_eq!(d.retired, RETIRE_AT as u64 * 2 + 1);
        assert_eq!(d.reservation_count(), RETIRE_AT as u64 * 2 + 3);
        let after: Vec<_> = [done[0], done[RETIRE_AT], cancelled]
            .iter()
            .map(|&id| {
                (
                    d.finish(id, Outcome::Failed),
                    d.persisted(id, true),
                    d.cancel(id),
                    d.resolve(id),
                )
            })
            .collect();
        assert_eq!(before, after);
        assert_eq!(
            d.reservation(done[0]),
            Err(DispatchError::UnknownReservation)
        );
        assert_eq!(
            d.reservation(ReservationId::from_number(u64::MAX).unwrap()),
            Err(DispatchError::UnknownReservation)
        );
        // The live ones keep their places: the line still hands them out in order.
        assert_eq!(d.reservations().len(), 2);
        let next = d.enqueue("general", "p2", "run").unwrap();
        assert_eq!(next.number(), RETIRE_AT as u64 * 2 + 4);
        assert_eq!(d.dispatch("general").unwrap().unwrap().reservation, next);
        // A live reservation at the front stops the retiring.
        d.retire_settled();
        assert_eq!(d.reservation(behind).unwrap().run.as_str(), "later");
        d.release(&by_hand, Outcome::Succeeded).unwrap();
        assert_eq!(
            d.dispatch("delivery").unwrap().unwrap().reservation,
            waiting
        );
        d.finish(waiting, Outcome::Succeeded).unwrap();
        d.persisted(waiting, true).unwrap();
        assert_eq!(d.dispatch("delivery").unwrap().unwrap().reservation, behind);
    }
}
