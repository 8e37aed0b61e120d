//! The schema's journal: every transition, written by the transition's own statement (so it can
//! never disagree with the state), read back as the core's [`Entry`] values, exported as
//! version 2 records, audited by replaying it on the in-memory core, and pruned.
//!
//! ```no_run
//! use project_lanes_pg::PgConfig;
//! use project_lanes_pg::journal;
//!
//! let config = PgConfig::new("host=/run/postgresql user=app dbname=app", "lanes");
//! let stored = journal::read(&config)?;
//! let audit = stored.audit(None)?;
//! println!("{} transitions, first mismatch: {:?}", audit.transitions, audit.mismatch);
//! let (_kind, record) = stored.export(&journal::Cut::new("tonight", "build farm"))?;
//! println!("{} steps", record.steps.len());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! **The order that replays** is the rows' `seq`. Lane operations draw it while they hold their
//! lane row (refused claims too), and operations on different projects commute. A dispatch (and
//! recovery) takes one lock per schema first, alone, and persist and resolve take it shared, so
//! no lane is freed or unblocked while a dispatch chooses: the timing the core does not model is
//! removed, not recorded. An enqueue is ordered by its queue's row, a finish or cancel by its
//! reservation's row.
//!
//! **What is not a core operation** is journaled as the core operations with the same effect,
//! with `via` saying what really happened: `resolve_orphan` as a release of the dead holder's
//! lease with `needs_review`; recovery of a reservation as a finish with `needs_review` (if it
//! was dispatched) and a persist that was not saved. An orphan flag changes nothing the core
//! shows (the lane stays held by the same lease) and is not journaled. Calls refused before they
//! reach the database (a label that breaks the rule, a lease of another schema, a queue the
//! handle does not know) are not transitions of the database and are not journaled either.
//!
//! **A record shows lanes or a dispatcher**, not both: the journal's lane operations and its
//! dispatcher operations export as two records ([`Kind`]). A project used both directly and by
//! the dispatcher cannot be shown by either alone (a claim refused because a reservation holds
//! the lane does not replay on lanes alone): keep such projects apart, or read their audit's
//! mismatch in that light.

mod prune;
mod read;
mod start;

use std::fmt;

use project_lanes::Label;
use project_lanes::journal::{Answer, Call, Entry, Export, ExportError, Journal, State};
use project_lanes::record::{MAX_PROJECTS, Record, ReplayMismatch, Timestamp, replay};

use crate::{PgConfig, PgError};

pub use prune::Pruned;

/// Why the journal could not be read, exported or audited.
#[derive(Debug)]
pub enum JournalError {
    /// Connecting or reading failed.
    Pg(PgError),
    /// The schema is missing, keeps no journal yet, or is newer than this crate.
    Schema(String),
    /// A row is not one this crate could have written (edited by hand, restored from elsewhere).
    Corrupt {
        /// The row's `seq`.
        seq: i64,
        /// What is wrong with it.
        message: String,
    },
    /// The rows asked for hold both direct lane operations and dispatcher operations; a record
    /// shows one or the other.
    MixedKinds {
        /// Lane operations among them.
        lanes: usize,
        /// Dispatcher operations among them.
        dispatcher: usize,
    },
    /// The dispatcher's operations hold more projects at once than a replay shows (64): they
    /// replay together (a dispatch looks at every project of its queue), so they cannot be
    /// audited.
    DispatcherTooWide(usize),
    /// A project asked for appears only among the other kind's operations.
    OtherKind {
        /// The project.
        project: Label,
        /// The kind whose operations name it.
        kind: Kind,
    },
    /// The window starts before rows the journal no longer holds: they were pruned.
    Pruned {
        /// The window's start.
        since: Timestamp,
        /// Every pruned row is before this time.
        before: Timestamp,
    },
    /// The core's export refused (an empty window, an unknown project, …).
    Export(ExportError),
}

impl fmt::Display for JournalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JournalError::Pg(e) => write!(f, "{e}"),
            JournalError::Schema(message) => f.write_str(message),
            JournalError::Corrupt { seq, message } => write!(f, "journal row {seq}: {message}"),
            JournalError::MixedKinds { lanes, dispatcher } => write!(
                f,
                "these transitions hold {lanes} direct lane operations and {dispatcher} \
                 dispatcher operations; a record shows one or the other: export each in a \
                 record of its own, with --kind lanes and --kind dispatcher"
            ),
            JournalError::DispatcherTooWide(n) => write!(
                f,
                "the dispatcher's operations hold {n} projects at once (live reservations and \
                 the projects their transitions name); they replay together, and a replay shows \
                 at most {MAX_PROJECTS} projects: the dispatcher's part of this journal cannot be \
                 audited (its direct lane operations can, in groups)"
            ),
            JournalError::OtherKind { project, kind } => write!(
                f,
                "the project {project} appears only among the journal's {}: export it in a \
                 record of its own, with --kind {}",
                match kind {
                    Kind::Lanes => "direct lane operations",
                    Kind::Dispatcher => "dispatcher operations",
                },
                kind.as_str()
            ),
            JournalError::Pruned { since, before } => write!(
                f,
                "the journal was pruned: its rows before {before} are gone, so a window from \
                 {since} would miss some; start at {before} or later, or leave --since out"
            ),
            JournalError::Export(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for JournalError {}

impl From<PgError> for JournalError {
    fn from(e: PgError) -> Self {
        JournalError::Pg(e)
    }
}

/// Which of the journal's operations a record shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Direct lane operations: claim, request_stop, release (and resolve_orphan).
    Lanes,
    /// Dispatcher operations: enqueue, dispatch, finish, persist, cancel, resolve (and recovery).
    Dispatcher,
}

impl Kind {
    /// `lanes` or `dispatcher`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Lanes => "lanes",
            Kind::Dispatcher => "dispatcher",
        }
    }
}

/// The journal as read: where it starts and its rows.
#[derive(Debug, Clone)]
pub struct Stored {
    /// What the system held before the first row (after the pruned ones).
    pub start: State,
    /// The last pruned row's `seq` (0 if never pruned).
    pub start_seq: i64,
    /// Every pruned row is before this time (`None` if never pruned): a window from an earlier
    /// time would miss rows.
    pub pruned_before: Option<Timestamp>,
    /// The dispatcher's queues in this schema, by name.
    pub queues: Vec<project_lanes::Label>,
    /// The rows, in `seq` order.
    pub entries: Vec<StoredEntry>,
}

/// One row of the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEntry {
    /// Its place in the order that replays.
    pub seq: i64,
    /// A direct lane operation (else a dispatcher operation).
    pub lanes: bool,
    /// What the library really did, when it is not the entry's operation: `resolve_orphan`,
    /// `recover`.
    pub via: Option<String>,
    /// The transition, as the core's journals say it.
    pub entry: Entry,
}

impl StoredEntry {
    fn kind(&self) -> Kind {
        if self.lanes {
            Kind::Lanes
        } else {
            Kind::Dispatcher
        }
    }

    /// The project this row names, if it names one.
    fn project(&self) -> Option<&str> {
        match (&self.entry.call, &self.entry.answer) {
            (Call::Claim { project, .. } | Call::Enqueue { project, .. }, _) => Some(project),
            (Call::RequestStop { lease } | Call::Release { lease, .. }, _) => Some(&lease.project),
            (_, Answer::Reservation(v) | Answer::Dispatched(v) | Answer::Persisting(v)) => {
                Some(&v.project)
            }
            (_, Answer::Settled(s)) => Some(&s.receipt.project),
            _ => None,
        }
    }
}

/// Whether `config`'s schema holds lanes, on a plain connection (no migration, nothing
/// written): the operator's commands ask before connecting a handle, which would create a
/// misspelled schema.
pub fn check_schema(config: &PgConfig) -> Result<(), JournalError> {
    let mut client = read::connect_plain(config)?;
    read::check_exists(&mut client, &config.schema)
}

/// The queues `config`'s schema knows, by name, on a plain connection after [`check_schema`]:
/// the operator's `resolve` declares one of them, never a new one.
pub fn known_queues(config: &PgConfig) -> Result<Vec<String>, JournalError> {
    let mut client = read::connect_plain(config)?;
    read::check_exists(&mut client, &config.schema)?;
    let rows = client
        .query(
            &format!("SELECT name FROM {}.queues ORDER BY name", config.schema),
            &[],
        )
        .map_err(PgError::from)?;
    rows.iter()
        .map(|row| row.try_get(0).map_err(|e| PgError::from(e).into()))
        .collect()
}

/// Reads the journal of `config`'s schema: a plain connection (no migration, nothing written),
/// one consistent snapshot.
pub fn read(config: &PgConfig) -> Result<Stored, JournalError> {
    let mut client = read::connect(config)?;
    read::read(&mut client, &config.schema)
}

/// Removes the journal's rows before `before`, keeping the state after them as its start, so a
/// later export or audit starts from it. Needs `DELETE` on the journal: the schema's owner.
pub fn prune(config: &PgConfig, before: Timestamp) -> Result<Pruned, JournalError> {
    let mut client = read::connect(config)?;
    prune::prune(&mut client, &config.schema, before)
}

/// What to export: the record's id and the system's name, and which rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The record's id (the label rule).
    pub id: String,
    /// The system's name, as its operators say it (the record's origin).
    pub system: String,
    /// Only these projects (all if empty).
    pub projects: Vec<String>,
    /// Only the rows from this time on (inclusive); the record starts from the state then.
    pub since: Option<Timestamp>,
    /// Only the rows before this time.
    pub until: Option<Timestamp>,
    /// Lanes or dispatcher (by default the only kind among the rows).
    pub kind: Option<Kind>,
}

impl Cut {
    /// Every row, as the record `id` of the system `system`.
    pub fn new(id: &str, system: &str) -> Cut {
        Cut {
            id: id.to_owned(),
            system: system.to_owned(),
            projects: Vec::new(),
            since: None,
            until: None,
            kind: None,
        }
    }
}

/// What an audit found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Audit {
    /// Transitions replayed.
    pub transitions: usize,
    /// The first transition whose answer (or state after it) the core does not reproduce.
    pub mismatch: Option<Mismatch>,
}

/// A transition the core does not reproduce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The row's `seq`.
    pub seq: i64,
    /// The operation, as records name it.
    pub op: String,
    /// Who called.
    pub actor: String,
    /// When.
    pub at: Option<Timestamp>,
    /// What differs.
    pub message: String,
}

impl Stored {
    /// A window from `since` misses no row: none was pruned at or after it.
    fn check_since(&self, since: Option<Timestamp>) -> Result<(), JournalError> {
        match (since, self.pruned_before) {
            (Some(since), Some(before)) if since < before => {
                Err(JournalError::Pruned { since, before })
            }
            _ => Ok(()),
        }
    }

    /// The entries of `kind`.
    fn of(&self, kind: Kind) -> Vec<&StoredEntry> {
        self.entries.iter().filter(|e| e.kind() == kind).collect()
    }

    /// The core's journal of `kind`: its part of the start and its entries.
    fn journal(&self, kind: Kind) -> Journal {
        let mut start = State::new();
        let mut journal = match kind {
            Kind::Lanes => {
                for (key, stop) in self.start.leases() {
                    start.hold(key.clone(), stop);
                }
                Journal::lanes()
            }
            Kind::Dispatcher => {
                for view in self.start.reservations() {
                    start.add_reservation(view.clone());
                }
                Journal::dispatcher(&self.queues)
            }
        }
        .starting_from(start);
        journal.extend(self.of(kind).into_iter().map(|e| e.entry.clone()));
        journal
    }

    /// The kind `cut` shows: the one asked for, or the only one among the rows it covers.
    fn kind_for(&self, cut: &Cut) -> Result<Kind, JournalError> {
        if let Some(kind) = cut.kind {
            return Ok(kind);
        }
        let covered = |e: &&StoredEntry| {
            let at = e.entry.at;
            cut.since.is_none_or(|s| at.is_some_and(|t| t >= s))
                && cut.until.is_none_or(|u| at.is_some_and(|t| t < u))
                && (cut.projects.is_empty()
                    || e.project()
                        .is_some_and(|p| cut.projects.iter().any(|q| q == p)))
        };
        let lanes = self
            .entries
            .iter()
            .filter(covered)
            .filter(|e| e.lanes)
            .count();
        let dispatcher = self
            .entries
            .iter()
            .filter(covered)
            .filter(|e| !e.lanes)
            .count();
        match (lanes, dispatcher) {
            (0, 0)
                if self.start.leases().next().is_none()
                    && self.start.reservations().next().is_some() =>
            {
                Ok(Kind::Dispatcher)
            }
            (_, 0) => Ok(Kind::Lanes),
            (0, _) => Ok(Kind::Dispatcher),
            (lanes, dispatcher) => Err(JournalError::MixedKinds { lanes, dispatcher }),
        }
    }

    /// The rows `cut` asks for, as a version 2 record of its kind (by default the only kind
    /// among them), whose origin is this journal.
    pub fn export(&self, cut: &Cut) -> Result<(Kind, Record), JournalError> {
        self.check_since(cut.since)?;
        let mut export = Export::new(&cut.id, &cut.system)
            .and_then(|e| e.projects(&cut.projects))
            .map_err(JournalError::Export)?;
        if let Some(since) = cut.since {
            export = export.since(since);
        }
        if let Some(until) = cut.until {
            export = export.until(until);
        }
        let kind = self.kind_for(cut)?;
        let of = self.of(kind);
        let record = self.journal(kind).record(&export).map_err(|e| match e {
            ExportError::Inconsistent { entry, message } => JournalError::Corrupt {
                seq: of.get(entry).map_or(0, |e| e.seq),
                message,
            },
            ExportError::UnknownProject(project) => {
                let other = match kind {
                    Kind::Lanes => Kind::Dispatcher,
                    Kind::Dispatcher => Kind::Lanes,
                };
                let named = match other {
                    Kind::Lanes => self.start.leases().any(|(k, _)| k.project == project),
                    Kind::Dispatcher => self.start.reservations().any(|v| v.project == project),
                } || self
                    .of(other)
                    .iter()
                    .any(|e| e.project() == Some(project.as_str()));
                if named {
                    JournalError::OtherKind {
                        project,
                        kind: other,
                    }
                } else {
                    JournalError::Export(ExportError::UnknownProject(project))
                }
            }
            e => JournalError::Export(e),
        })?;
        Ok((kind, record))
    }

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

    /// Says so in `found`'s message when its row's project is used both directly and through
    /// the dispatcher: each kind replays on its own, so such a project may not replay.
    fn note_both_kinds(&self, found: &mut Mismatch) {
        let Ok(i) = self.entries.binary_search_by_key(&found.seq, |e| e.seq) else {
            return;
        };
        let Some(project) = self.entries[i].project() else {
            return;
        };
        let names = |lanes: bool| {
            self.entries
                .iter()
                .any(|e| e.lanes == lanes && e.project() == Some(project))
        };
        let held = self
            .start
            .leases()
            .any(|(k, _)| k.project.as_str() == project);
        let reserved = self
            .start
            .reservations()
            .any(|v| v.project.as_str() == project);
        if (held || names(true)) && (reserved || names(false)) {
            found.message.push_str(&format!(
                " (the project {project} is used both directly and through the dispatcher; \
                 each replays on its own, so a claim refused because a reservation held the \
                 lane, or the like, does not replay: keep such projects apart)"
            ));
        }
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

fn step_of(m: &ReplayMismatch) -> Option<usize> {
    match m {
        ReplayMismatch::Invalid(_) => None,
        ReplayMismatch::Result { step, .. } | ReplayMismatch::Reservations { step, .. } => {
            Some(*step)
        }
        ReplayMismatch::Lanes { step, .. } => *step,
    }
}

fn mismatch(row: Option<&StoredEntry>, m: &ReplayMismatch) -> Mismatch {
    let json = |v: &dyn erased::Json| v.json();
    let message = match m {
        ReplayMismatch::Invalid(e) => format!("the journal makes an invalid record: {e}"),
        ReplayMismatch::Result { saved, actual, .. } => format!(
            "the system answered {}, the core answers {}",
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
        ReplayMismatch::Lanes { saved, actual, .. } => format!(
            "the lane after it: the system shows {}, the core {}",
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
        ReplayMismatch::Reservations { saved, actual, .. } => format!(
            "the reservations after it: the system shows {}, the core {}",
            json(saved.as_ref()),
            json(actual.as_ref())
        ),
    };
    mismatch_at(row, message)
}

fn mismatch_at(row: Option<&StoredEntry>, message: String) -> Mismatch {
    match row {
        Some(row) => Mismatch {
            seq: row.seq,
            op: row.entry.call.op().as_str().to_owned(),
            actor: row
                .entry
                .actor
                .as_ref()
                .map_or_else(String::new, |a| a.as_str().to_owned()),
            at: row.entry.at,
            message,
        },
        None => Mismatch {
            seq: 0,
            op: String::new(),
            actor: String::new(),
            at: None,
            message,
        },
    }
}

/// Compact JSON of record values, for messages.
mod erased {
    pub(super) trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_else(|e| format!("<{e}>"))
        }
    }
}

#[cfg(test)]
mod tests {
    use project_lanes::journal::LeaseKey;
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
