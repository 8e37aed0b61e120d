//! The audit: the journal replayed on the in-memory core, each kind on its own, the lanes in
//! groups of at most 64 projects, each journal in pieces of at most 2,000 transitions.

use project_lanes::Label;
use project_lanes::journal::{Export, ExportError, Journal, State};
use project_lanes::record::{MAX_PROJECTS, Timestamp, replay};

use super::mismatch::{mismatch, mismatch_at, step_of};
use super::{JournalError, Kind, Mismatch, Stored, StoredEntry, start};

/// What an audit found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    /// Transitions replayed.
    pub transitions: usize,
    /// The first transition whose answer (or state after it) the core does not reproduce.
    pub mismatch: Option<Mismatch>,
}

impl Stored {
    /// Replays the journal (from `since` on, starting from the state then) on the in-memory
    /// core, each kind on its own: the number of transitions, and the first one (by `seq`) whose
    /// answer or following state the core does not reproduce.
    pub fn audit(&self, since: Option<Timestamp>) -> Result<Audit, JournalError> {
        self.check_since(since)?;
        let mut transitions = 0;
        let mut first: Option<Mismatch> = None;
        for kind in [Kind::Lanes, Kind::Dispatcher] {
            for (of, rest) in self.audited(kind) {
                if let Some(found) =
                    audit_rows(kind, &self.queues, &of, rest, since, &mut transitions)?
                    && first.as_ref().is_none_or(|f| found.seq < f.seq)
                {
                    first = Some(found);
                }
            }
        }
        if let Some(found) = &mut first {
            self.note_both_kinds(found);
        }
        Ok(Audit {
            transitions,
            mismatch: first,
        })
    }

    /// The journals an audit of `kind` replays, each with its rows. Lane operations on
    /// different projects commute, so the lanes replay in groups of at most 64 projects (a
    /// record's limit), each from its part of the start; the dispatcher's replay whole, since a
    /// dispatch looks at every project of its queue.
    fn audited(&self, kind: Kind) -> Vec<(Vec<&StoredEntry>, Journal)> {
        let of = self.of(kind);
        if kind == Kind::Dispatcher {
            return vec![(of, self.journal(kind))];
        }
        let mut projects: Vec<&str> = Vec::new();
        let named = self.start.leases().map(|(key, _)| key.project.as_str());
        for project in named.chain(of.iter().filter_map(|e| e.project())) {
            if !projects.contains(&project) {
                projects.push(project);
            }
        }
        if projects.len() <= MAX_PROJECTS {
            return vec![(of, self.journal(kind))];
        }
        projects
            .chunks(MAX_PROJECTS)
            .map(|group| {
                let mut start = State::new();
                for (key, stop) in self.start.leases() {
                    if group.contains(&key.project.as_str()) {
                        start.hold(key.clone(), stop);
                    }
                }
                let rows: Vec<&StoredEntry> = of
                    .iter()
                    .filter(|e| e.project().is_some_and(|p| group.contains(&p)))
                    .copied()
                    .collect();
                let mut journal = Journal::lanes().starting_from(start);
                journal.extend(rows.iter().map(|e| e.entry.clone()));
                (rows, journal)
            })
            .collect()
    }
}

/// Replays `of` (the entries of `rest`) from `since` on, in pieces; counts the transitions
/// replayed and returns the first mismatch.
fn audit_rows(
    kind: Kind,
    queues: &[Label],
    of: &[&StoredEntry],
    mut rest: Journal,
    since: Option<Timestamp>,
    transitions: &mut usize,
) -> Result<Option<Mismatch>, JournalError> {
    // From `since` on, as an export cuts it: in journal order.
    let lo = since.map_or(0, |since| {
        of.iter()
            .position(|e| e.entry.at.is_some_and(|t| t >= since))
            .unwrap_or(of.len())
    });
    rest.forget_first(lo);
    let mut done = lo;
    // In pieces, each starting from the state after the last, so that a long journal replays
    // in bounded memory and past a record's step limit. A dispatcher's snapshots list every
    // reservation it holds after every step, so its pieces are shorter while many are live.
    // A piece is replayed, never written: readers' size limit does not apply.
    let export = Export::new("audit", "audit")
        .map_err(JournalError::Export)?
        .without_size_limit();
    while done < of.len() {
        let n = piece_len(kind, rest.start()).min(of.len() - done);
        let rows = &of[done..done + n];
        let mut piece = if kind == Kind::Lanes {
            Journal::lanes()
        } else {
            Journal::dispatcher(queues)
        }
        .starting_from(rest.start().clone());
        piece.extend(rest.entries()[..n].iter().cloned());
        let found = match piece.record(&export) {
            Ok(record) => {
                *transitions += record.steps.len();
                // Every row is a step (reading refused a row the core would leave out).
                replay(&record).err().map(|m| {
                    let row = step_of(&m).and_then(|s| rows.get(s)).copied();
                    mismatch(row, &m)
                })
            }
            Err(ExportError::Nothing) => None,
            Err(ExportError::Inconsistent { entry, message }) => {
                Some(mismatch_at(rows.get(entry).copied(), message))
            }
            Err(ExportError::TooManyProjects(n)) => {
                return Err(JournalError::DispatcherTooWide(n));
            }
            Err(e) => return Err(JournalError::Export(e)),
        };
        if found.is_some() {
            return Ok(found);
        }
        rest.forget_first(n);
        done += n;
    }
    Ok(None)
}

/// How many transitions an audit replays at a time, from `start`: [`AUDIT_PIECE`], or for a
/// dispatcher fewer while many reservations are live, so that its snapshots (each step's lists
/// every reservation the piece holds: the live ones and at most one more per step) stay within
/// [`AUDIT_VIEWS`], whatever their labels' length.
fn piece_len(kind: Kind, start: &State) -> usize {
    if kind == Kind::Lanes {
        return AUDIT_PIECE;
    }
    let live = start
        .reservations()
        .filter(|v| !start::settled(v.state))
        .count();
    let mut n = AUDIT_PIECE;
    while n > 1 && n * (live + n) > AUDIT_VIEWS {
        n /= 2;
    }
    n
}

/// Reservations a piece's snapshots may list in all: about 110 MB in memory.
const AUDIT_VIEWS: usize = 1_000_000;

/// How many transitions an audit replays at a time.
const AUDIT_PIECE: usize = 2_000;

#[cfg(test)]
mod tests {
    use project_lanes::journal::{Answer, Call, Entry, LeaseKey, State};
    use project_lanes::{Label, Outcome, Receipt};

    use super::*;

    /// The row `seq`: an enqueue that answered `view`.
    fn enqueued(seq: i64, view: project_lanes::dispatch::ReservationView) -> StoredEntry {
        let call = Call::Enqueue {
            queue: view.queue.to_string(),
            project: view.project.to_string(),
            run: view.run.to_string(),
        };
        StoredEntry {
            seq,
            lanes: false,
            via: None,
            entry: Entry {
                at: None,
                actor: None,
                call,
                answer: Answer::Reservation(view),
            },
        }
    }

    /// `pairs` claims and releases of one project, as rows numbered from 1.
    fn pairs(pairs: u64) -> Stored {
        let project = Label::new("docs").unwrap();
        let mut entries = Vec::new();
        for g in 1..=pairs {
            let lease = LeaseKey {
                project: project.clone(),
                run: Label::new(&format!("run-{g}")).unwrap(),
                generation: g,
            };
            let receipt = Receipt {
                project: project.clone(),
                run: lease.run.clone(),
                outcome: Outcome::Succeeded,
                stop_requested: false,
                work_executed_here: false,
            };
            let calls = [
                (
                    Call::Claim {
                        project: "docs".into(),
                        run: lease.run.to_string(),
                    },
                    Answer::Claimed(lease.clone()),
                ),
                (
                    Call::Release {
                        lease,
                        outcome: Outcome::Succeeded,
                    },
                    Answer::Receipt(receipt),
                ),
            ];
            for (call, answer) in calls {
                entries.push(StoredEntry {
                    seq: entries.len() as i64 + 1,
                    lanes: true,
                    via: None,
                    entry: Entry {
                        at: None,
                        actor: None,
                        call,
                        answer,
                    },
                });
            }
        }
        Stored {
            start: State::new(),
            start_seq: 0,
            pruned_before: None,
            queues: Vec::new(),
            entries,
        }
    }

    #[test]
    fn an_audit_of_a_long_queue_replays_in_pieces_a_record_can_hold() {
        // Each step's snapshot lists every reservation: 2,000 steps of a growing queue would
        // make a record of about 100 MiB, so the pieces are halved until one fits.
        let general = Label::new("general").unwrap();
        let entries = (1..=3_000).map(|n| {
            let view = project_lanes::dispatch::ReservationView {
                id: project_lanes::dispatch::ReservationId::from_number(n).unwrap(),
                queue: general.clone(),
                project: Label::new(&format!("p{}", n % 64)).unwrap(),
                run: Label::new(&format!("run-{n}")).unwrap(),
                state: project_lanes::dispatch::ReservationState::Queued,
                outcome: None,
            };
            enqueued(n as i64, view)
        });
        let queues = vec![general.clone()];
        let stored = Stored {
            start: State::new(),
            start_seq: 0,
            pruned_before: None,
            queues,
            entries: entries.collect(),
        };
        let audit = stored.audit(None).unwrap();
        assert_eq!((audit.transitions, audit.mismatch), (3_000, None));
    }

    #[test]
    fn an_audit_replays_a_step_whose_snapshot_alone_is_larger_than_a_record() {
        // 80,000 queued reservations with the longest labels: one step's snapshot is over
        // 16 MiB written compactly.
        let general = Label::new("general").unwrap();
        let long = |prefix: &str, n: u64| {
            Label::new(&format!("{prefix}{n:0>width$}", width = 80 - prefix.len())).unwrap()
        };
        let view = |n: u64| project_lanes::dispatch::ReservationView {
            id: project_lanes::dispatch::ReservationId::from_number(n).unwrap(),
            queue: general.clone(),
            project: long("p", n % 64),
            run: long("run-", n),
            state: project_lanes::dispatch::ReservationState::Queued,
            outcome: None,
        };
        let mut start = State::new();
        for n in 1..=80_000 {
            start.add_reservation(view(n));
        }
        let stored = Stored {
            start,
            start_seq: 7,
            pruned_before: None,
            queues: vec![general.clone()],
            entries: vec![enqueued(8, view(80_001))],
        };
        let audit = stored.audit(None).unwrap();
        assert_eq!((audit.transitions, audit.mismatch), (1, None));
    }

    #[test]
    fn an_audit_longer_than_a_piece_replays_every_transition() {
        let audit = pairs(2_600).audit(None).unwrap();
        assert_eq!((audit.transitions, audit.mismatch), (5_200, None));
    }

    #[test]
    fn a_mismatch_past_the_first_piece_is_named_by_its_row() {
        let mut stored = pairs(2_600);
        // Row 4,322 is a release; say it found a stop request the core never saw.
        let Answer::Receipt(receipt) = &mut stored.entries[4_321].entry.answer else {
            panic!("row 4,322 is a release");
        };
        receipt.stop_requested = true;
        let mismatch = stored.audit(None).unwrap().mismatch.unwrap();
        assert_eq!((mismatch.seq, mismatch.op.as_str()), (4_322, "release"));
        assert!(
            mismatch.message.contains("stop_requested"),
            "{}",
            mismatch.message
        );
    }
}
