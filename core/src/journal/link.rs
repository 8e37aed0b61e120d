//! A journal entry as its link of the hash chain ([`crate::record::chain`]): the fields the
//! chain hashes, read from the entry's call and answer in the system's own names.

use crate::op::MAX_INPUT_CHARS;
use crate::record::chain::Link;
use crate::transition::{Answer, Call, Entry};

/// The link `entry` is: its time, actor, operation and code, its call's inputs, and what its
/// answer adds to them (the generation a claim issued, the reservation an enqueue made or a
/// dispatch handed out, a release's `stop_requested`, a persist's end, a dispatch's count of
/// waiting reservations).
///
/// ```
/// use project_lanes::journal::link;
/// use project_lanes::record::chain::ChainHead;
/// use project_lanes::{Outcome, ProjectLanes};
///
/// let lanes = ProjectLanes::new().with_journal(None);
/// let lease = lanes.claim("docs", "nightly-7")?;
/// lanes.release(&lease, Outcome::Succeeded)?;
/// let mut head = ChainHead::GENESIS;
/// for entry in lanes.take_journal() {
///     head = head.next(&link(&entry));
/// }
/// assert_eq!(head.links, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Inputs as given are hashed as a record keeps them: their first
/// [`MAX_INPUT_CHARS`] characters.
pub fn link(entry: &Entry) -> Link<'_> {
    let code = match &entry.answer {
        Answer::Refused(e) => e.code(),
        _ => "ok",
    };
    let mut link = Link::new(entry.call.op(), code);
    link.at = entry.at.map(|at| at.millis());
    link.actor = entry.actor.as_ref().map(|a| a.as_str());
    match &entry.call {
        Call::Claim { project, run } => {
            link.project = Some(kept(project));
            link.run = Some(kept(run));
        }
        Call::RequestStop { lease } => {
            link.project = Some(&lease.project);
            link.run = Some(&lease.run);
            link.generation = Some(lease.generation);
        }
        Call::Release { lease, outcome } => {
            link.project = Some(&lease.project);
            link.run = Some(&lease.run);
            link.generation = Some(lease.generation);
            link.outcome = Some(outcome.as_str());
        }
        Call::Enqueue {
            queue,
            project,
            run,
        } => {
            link.queue = Some(kept(queue));
            link.project = Some(kept(project));
            link.run = Some(kept(run));
        }
        Call::Dispatch { queue } => link.queue = Some(kept(queue)),
        Call::Finish {
            reservation,
            outcome,
        } => {
            link.reservation = Some(reservation.number());
            link.outcome = Some(outcome.as_str());
        }
        Call::Persist { reservation, saved } => {
            link.reservation = Some(reservation.number());
            link.saved = Some(*saved);
        }
        Call::Cancel { reservation } | Call::Resolve { reservation } => {
            link.reservation = Some(reservation.number());
        }
    }
    match &entry.answer {
        Answer::Claimed(key) => link.generation = Some(key.generation),
        Answer::Receipt(receipt) => link.stop_requested = Some(receipt.stop_requested),
        Answer::Reservation(view) if matches!(entry.call, Call::Enqueue { .. }) => {
            link.reservation = Some(view.id.number());
        }
        Answer::Dispatched(view) => link.reservation = Some(view.id.number()),
        Answer::Settled(settled) => link.settled = Some(settled.state.as_str()),
        Answer::Nothing(nothing) => link.retained = Some(nothing.retained),
        Answer::View(_) | Answer::Reservation(_) | Answer::Persisting(_) | Answer::Refused(_) => {}
    }
    link
}

/// An input as a record keeps it: its first [`MAX_INPUT_CHARS`] characters.
fn kept(text: &str) -> &str {
    match text.char_indices().nth(MAX_INPUT_CHARS) {
        Some((end, _)) => &text[..end],
        None => text,
    }
}
