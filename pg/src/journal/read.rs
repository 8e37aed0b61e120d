//! Reading the journal back: a read-only connection, the schema's version checked, and every row
//! turned into the core's [`Entry`], or an error naming the row. The database is not trusted to
//! hold only what this crate wrote.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use postgres::{Client, IsolationLevel, Row};
use project_lanes::dispatch::{
    DispatchError, ReservationId, ReservationState, ReservationView, Settled,
};
use project_lanes::journal::{Actor, Answer, Call, Entry, LeaseKey, State};
use project_lanes::record::Timestamp;
use project_lanes::record::chain::{ChainHead, Hash};
use project_lanes::{Label, LaneState, LaneView, Outcome, Receipt};

use super::start;
use super::{JournalError, Stored, StoredEntry};

use crate::config::GRACE;
use crate::schema::{self, Found, SCHEMA_VERSION};
use crate::{PgConfig, PgError};

/// A plain connection for reading (and pruning) the journal: no migration, no session lock, the
/// handle's time limit as the server's statement timeout.
pub(crate) fn connect(config: &PgConfig) -> Result<Client, JournalError> {
    let mut client = connect_plain(config)?;
    check_version(&mut client, &config.schema)?;
    Ok(client)
}

/// [`connect`] without the check of the schema's version.
pub(crate) fn connect_plain(config: &PgConfig) -> Result<Client, JournalError> {
    schema::check_name(&config.schema)?;
    let limit = config.limit()?;
    let (pg, tls) = config.connector()?;
    let mut pg = postgres::Config::from(pg);
    if let Some(limit) = limit {
        pg.options(&format!("-c statement_timeout={}", limit.as_millis()));
    }
    let Some(limit) = limit else {
        return Ok(pg.connect(tls).map_err(PgError::from)?);
    };
    // The driver's connect_timeout covers the socket's connection, not the server's answer: a
    // server that accepts and stays silent is given up after the limit, as a handle gives it
    // up. (The thread is left waiting on that server; it holds nothing else.)
    let patience = limit + GRACE;
    let (sender, answer) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(pg.connect(tls));
    });
    match answer.recv_timeout(patience) {
        Ok(connected) => Ok(connected.map_err(PgError::from)?),
        Err(_) => Err(PgError::no_answer(patience).into()),
    }
}

/// The schema holds lanes (it has their version table): a misspelled name is an error, not a
/// schema to create.
pub(crate) fn check_exists(client: &mut Client, schema: &str) -> Result<(), JournalError> {
    let table = format!("{schema}.lanes_schema_version");
    let exists: bool = client
        .query_one("SELECT to_regclass($1) IS NOT NULL", &[&table])
        .map_err(PgError::from)?
        .try_get(0)
        .map_err(PgError::from)?;
    if !exists {
        return Err(JournalError::Schema(format!(
            "schema {schema} holds no lanes (it has no lanes_schema_version table): check the \
             URL and the schema's name"
        )));
    }
    Ok(())
}

/// The schema exists, keeps a journal, and is not newer than this crate.
fn check_version(client: &mut Client, schema: &str) -> Result<(), JournalError> {
    check_exists(client, schema)?;
    let found = schema::read_version_now(client, schema)?;
    if let Found::At(version) = found {
        if version > SCHEMA_VERSION {
            return Err(JournalError::Schema(format!(
                "schema {schema} is at version {version}, newer than this lanes-pg's \
                 {SCHEMA_VERSION}: its journal may hold what this version cannot read; upgrade \
                 lanes-pg"
            )));
        }
        if version == 0 {
            return Err(JournalError::Schema(format!(
                "schema {schema} records no version yet: connect a handle once, as the \
                 schema's owner, to create its tables"
            )));
        }
    }
    match found.usable(schema) {
        Err(PgError::Config(why)) => Err(JournalError::Schema(why)),
        other => Ok(other?),
    }
}

/// The journal's columns, in the order [`entry`] reads them.
pub(crate) const COLUMNS: &str = "seq, at, actor, op, via, code, project, run, generation, outcome, \
                       stop_requested, queue, reservation, saved, state, link, hash";

/// [`COLUMNS`] for a schema made before the chain (version 2 or older, not yet upgraded by a
/// handle): every row unsealed.
const COLUMNS_UNCHAINED: &str = "seq, at, actor, op, via, code, project, run, generation, \
                                 outcome, stop_requested, queue, reservation, saved, state, \
                                 NULL::bigint, NULL::bytea";

/// The journal as it stands: its start and every row, in one snapshot.
pub(crate) fn read(client: &mut Client, schema: &str) -> Result<Stored, JournalError> {
    in_snapshot(client, |tx| {
        let head = head_in(tx, schema)?;
        let mut all = All {
            start: head.start.clone(),
            enqueued: std::collections::HashSet::new(),
            entries: Vec::new(),
        };
        rows_in(tx, schema, &head, &mut all)?;
        Ok(Stored {
            start: all.start,
            start_seq: head.start_seq,
            pruned_before: head.pruned_before,
            queues: head.queues,
            entries: all.entries,
        })
    })
}

/// Runs `read` in one read-only snapshot of the database.
pub(crate) fn in_snapshot<T>(
    client: &mut Client,
    read: impl FnOnce(&mut postgres::Transaction<'_>) -> Result<T, JournalError>,
) -> Result<T, JournalError> {
    let mut tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()
        .map_err(PgError::from)?;
    let value = read(&mut tx)?;
    tx.commit().map_err(PgError::from)?;
    Ok(value)
}

/// Where the journal starts: what was held after its pruned rows, the schema's queues, and a
/// time every pruned row is before.
#[derive(Debug, Clone)]
pub struct Head {
    /// What the system held before the first row (after the pruned ones).
    pub start: State,
    /// The last pruned row's `seq` (0 if never pruned).
    pub start_seq: i64,
    /// Every pruned row is before this time (`None` if never pruned).
    pub pruned_before: Option<Timestamp>,
    /// The dispatcher's queues in this schema, by name.
    pub queues: Vec<Label>,
    /// The hash chain before the first row: link 0, or the last pruned row's link. `None` if
    /// the schema predates the chain (version 2 or older, not yet upgraded by a handle).
    pub chain: Option<ChainHead>,
}

/// The journal's [`Head`], inside a transaction the caller holds.
pub(crate) fn head_in(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
) -> Result<Head, JournalError> {
    let chained = chained(tx, schema)?;
    let chain_columns = if chained {
        "link, hash"
    } else {
        "0::bigint, NULL::bytea"
    };
    let start = tx
        .query_opt(
            &format!(
                "SELECT seq, state, before, {chain_columns} FROM {schema}.lanes_journal_start \
                 ORDER BY seq DESC LIMIT 1"
            ),
            &[],
        )
        .map_err(PgError::from)?;
    let mut chain = chained.then_some(ChainHead::GENESIS);
    let (start_seq, start, pruned_before) = match start {
        Some(row) => {
            let seq: i64 = row.try_get(0).map_err(PgError::from)?;
            let text: String = row.try_get(1).map_err(PgError::from)?;
            let before: SystemTime = row.try_get(2).map_err(PgError::from)?;
            let before = timestamp(before).ok_or_else(|| JournalError::Corrupt {
                seq,
                message: "the saved start of the journal says it was pruned before 1970 or \
                          past 9999"
                    .into(),
            })?;
            let link: i64 = row.try_get(3).map_err(PgError::from)?;
            let hash: Option<Vec<u8>> = row.try_get(4).map_err(PgError::from)?;
            if chained {
                chain = Some(chain_head(seq, link, hash.as_deref())?);
            }
            (seq, start::decode(&text, seq)?, Some(before))
        }
        None => (0, State::new(), None),
    };
    let queues: Vec<Label> = tx
        .query(
            &format!("SELECT name FROM {schema}.queues ORDER BY name"),
            &[],
        )
        .map_err(PgError::from)?
        .iter()
        .map(|row| {
            let name: &str = row.try_get(0).map_err(PgError::from)?;
            Label::new(name).map_err(|_| {
                JournalError::Schema(format!(
                    "the queue name {} breaks the label rule",
                    shown(name)
                ))
            })
        })
        .collect::<Result<_, _>>()?;
    // A prune by an earlier lanes-pg kept its `--before`, which may lie past rows written after
    // it: the first row kept bounds the pruned ones too (they drew earlier numbers).
    let first: Option<SystemTime> = tx
        .query_opt(
            &format!("SELECT at FROM {schema}.lanes_journal WHERE seq > $1 ORDER BY seq LIMIT 1"),
            &[&start_seq],
        )
        .map_err(PgError::from)?
        .map(|row| row.try_get(0))
        .transpose()
        .map_err(PgError::from)?;
    let first = first.and_then(timestamp);
    let pruned_before = match (pruned_before, first) {
        (Some(before), Some(first)) if before.millis() > first.millis() + 1 => Some(first),
        (before, _) => before,
    };
    Ok(Head {
        start,
        start_seq,
        pruned_before,
        queues,
        chain,
    })
}

/// Whether the schema has the chain's columns (version 3 on): one made before has none until a
/// handle upgrades it.
pub(crate) fn chained(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
) -> Result<bool, JournalError> {
    Ok(tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_attribute
                            WHERE attrelid = to_regclass($1) AND attname = 'hash'
                              AND NOT attisdropped)",
            &[&format!("{schema}.lanes_journal_start")],
        )
        .and_then(|row| row.try_get(0))
        .map_err(PgError::from)?)
}

/// What takes the journal's rows as they are read, in `seq` order.
pub(crate) trait Rows {
    /// Whether reservation `id` is known: held by the start, or enqueued by an earlier row.
    fn knows(&self, id: ReservationId) -> bool;
    /// Whether a row naming reservation `id` needs it from the `reservations` table: a
    /// settled one it forgot (it keeps only what is live).
    fn wants(&self, _id: ReservationId) -> bool {
        false
    }
    /// A settled reservation that a row names, from the `reservations` table: one settled
    /// before the journal's first row (a pruned journal's start keeps only what is live), or
    /// one it [wants](Rows::wants).
    fn settled(&mut self, view: ReservationView);
    /// The next row; `Ok(false)` stops the reading.
    fn row(&mut self, row: StoredEntry) -> Result<bool, JournalError>;
}

/// Every row into a list, for a version 2 export.
struct All {
    start: State,
    enqueued: std::collections::HashSet<ReservationId>,
    entries: Vec<StoredEntry>,
}

impl Rows for All {
    fn knows(&self, id: ReservationId) -> bool {
        self.enqueued.contains(&id) || self.start.reservation(id).is_some()
    }
    fn settled(&mut self, view: ReservationView) {
        self.start.add_reservation(view);
    }
    fn row(&mut self, row: StoredEntry) -> Result<bool, JournalError> {
        if let (Call::Enqueue { .. }, Answer::Reservation(view)) =
            (&row.entry.call, &row.entry.answer)
        {
            self.enqueued.insert(view.id);
        }
        self.entries.push(row);
        Ok(true)
    }
}

/// Rows read from the database at a time: what a reading holds of the journal at once.
const BATCH: i32 = 10_000;

/// Every row after `head`'s start, in `seq` order, a batch at a time, into `rows`. A row that
/// names a reservation no earlier row enqueued (and that the start or, for a pruned journal,
/// the `reservations` table does not hold as settled) was not written by this crate, which
/// journals no call on a reservation that does not exist: it is refused. A settled reservation
/// that `rows` forgot and a row names is read back from the `reservations` table (a settled
/// one never changes again), so `rows` holds only what is live.
pub(crate) fn rows_in(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
    head: &Head,
    rows: &mut dyn Rows,
) -> Result<(), JournalError> {
    let columns = if head.chain.is_some() {
        COLUMNS
    } else {
        COLUMNS_UNCHAINED
    };
    let statement = tx
        .prepare(&format!(
            "SELECT {columns} FROM {schema}.lanes_journal WHERE seq > $1 ORDER BY seq"
        ))
        .map_err(PgError::from)?;
    let portal = tx
        .bind(&statement, &[&head.start_seq])
        .map_err(PgError::from)?;
    loop {
        let batch = tx.query_portal(&portal, BATCH).map_err(PgError::from)?;
        if batch.is_empty() {
            return Ok(());
        }
        let entries = batch.iter().map(entry).collect::<Result<Vec<_>, _>>()?;
        drop(batch);
        add_settled(tx, schema, rows, &entries, head.start_seq > 0)?;
        for row in entries {
            if let Some(id) = named_reservation(&row.entry) {
                if !rows.knows(id) {
                    return Err(JournalError::Corrupt {
                        seq: row.seq,
                        message: format!(
                            "names reservation {id}, which no earlier row enqueued (the \
                             library journals no call on a reservation that does not exist)"
                        ),
                    });
                }
                // Forgotten by an earlier row of this batch.
                if rows.wants(id) {
                    settle(tx, schema, rows, &[id], row.seq)?;
                }
            }
            if !rows.row(row)? {
                return Ok(());
            }
        }
    }
}

/// Gives `rows` the settled reservations these rows name that it forgot or (`pruned`: the
/// journal's start keeps only what is live) does not know and no row of theirs enqueues, as
/// the `reservations` table holds them: a settled one never changes again.
fn add_settled(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
    rows: &mut dyn Rows,
    entries: &[StoredEntry],
    pruned: bool,
) -> Result<(), JournalError> {
    let enqueued: std::collections::HashSet<ReservationId> = entries
        .iter()
        .filter_map(|e| match (&e.entry.call, &e.entry.answer) {
            (Call::Enqueue { .. }, Answer::Reservation(view)) => Some(view.id),
            _ => None,
        })
        .collect();
    let mut wanted: Vec<ReservationId> = entries
        .iter()
        .filter_map(|e| named_reservation(&e.entry))
        .filter(|&id| rows.wants(id) || (pruned && !enqueued.contains(&id) && !rows.knows(id)))
        .collect();
    wanted.sort_unstable();
    wanted.dedup();
    if wanted.is_empty() {
        return Ok(());
    }
    let found = settled_in(tx, schema, &wanted)?;
    for view in found {
        rows.settled(view);
    }
    Ok(())
}

/// Gives `rows` the settled reservations `ids` it wants back, from the `reservations` table;
/// one the table does not hold as settled (the journal says it is) is a corrupt row `seq`.
fn settle(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
    rows: &mut dyn Rows,
    ids: &[ReservationId],
    seq: i64,
) -> Result<(), JournalError> {
    let found = settled_in(tx, schema, ids)?;
    if let Some(missing) = ids.iter().find(|id| !found.iter().any(|v| v.id == **id)) {
        return Err(JournalError::Corrupt {
            seq,
            message: format!(
                "names reservation {missing}, which earlier rows settled but the reservations \
                 table does not hold as settled"
            ),
        });
    }
    for view in found {
        rows.settled(view);
    }
    Ok(())
}

/// The reservations among `ids` that the `reservations` table holds as settled.
fn settled_in(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
    ids: &[ReservationId],
) -> Result<Vec<ReservationView>, JournalError> {
    let ids: Vec<i64> = ids
        .iter()
        .filter_map(|id| i64::try_from(id.number()).ok())
        .collect();
    let found = tx
        .query(
            &format!(
                "SELECT id, queue, project, run, state, outcome FROM {schema}.reservations \
                 WHERE id = ANY($1) AND state IN ('done', 'cancelled', 'resolved')"
            ),
            &[&ids],
        )
        .map_err(PgError::from)?;
    found
        .iter()
        .map(|row| crate::rows::reservation_view(row).map_err(JournalError::Pg))
        .collect()
}

/// The reservation a call names by id (a dispatch's is in its answer).
fn named_reservation(entry: &Entry) -> Option<ReservationId> {
    match (&entry.call, &entry.answer) {
        (
            Call::Finish { reservation, .. }
            | Call::Persist { reservation, .. }
            | Call::Cancel { reservation }
            | Call::Resolve { reservation },
            _,
        ) => Some(*reservation),
        (_, Answer::Dispatched(view)) => Some(view.id),
        _ => None,
    }
}

/// One row as an entry, or why it cannot be one.
pub(crate) fn entry(row: &Row) -> Result<StoredEntry, JournalError> {
    let seq: i64 = row.try_get(0).map_err(|e| JournalError::Corrupt {
        seq: 0,
        message: format!("a row without a number: {e}"),
    })?;
    let corrupt = |message: String| JournalError::Corrupt { seq, message };
    let get = |i: usize, what: &str| -> Result<Option<String>, JournalError> {
        row.try_get::<_, Option<String>>(i)
            .map_err(|e| corrupt(format!("unreadable {what}: {e}")))
    };
    let need = |i: usize, what: &str| -> Result<String, JournalError> {
        get(i, what)?.ok_or_else(|| corrupt(format!("no {what}")))
    };
    let label = |i: usize, what: &str| -> Result<Label, JournalError> {
        let text = need(i, what)?;
        Label::new(&text)
            .map_err(|_| corrupt(format!("the {what} {} breaks the label rule", shown(&text))))
    };
    let at: SystemTime = row
        .try_get(1)
        .map_err(|e| corrupt(format!("unreadable time: {e}")))?;
    let at = timestamp(at).ok_or_else(|| corrupt("a time before 1970 or past 9999".into()))?;
    let actor_text = need(2, "actor")?;
    let actor = Actor::new(&actor_text).ok_or_else(|| {
        corrupt(format!(
            "the actor {} is not one line of 1 to 200 characters without control characters",
            shown(&actor_text)
        ))
    })?;
    let op = need(3, "operation")?;
    let code = need(5, "result code")?;
    let refusal = if code == "OK" {
        None
    } else {
        Some(
            DispatchError::from_code(&code)
                .ok_or_else(|| corrupt(format!("unknown result code {}", shown(&code))))?,
        )
    };
    let generation = || -> Result<u64, JournalError> {
        let n: Option<i64> = row
            .try_get(8)
            .map_err(|e| corrupt(format!("unreadable generation: {e}")))?;
        n.and_then(|n| u64::try_from(n).ok().filter(|&n| n > 0))
            .ok_or_else(|| corrupt(format!("no generation, or one below 1 ({})", number(n))))
    };
    let outcome = || -> Result<Outcome, JournalError> {
        let text = need(9, "outcome")?;
        text.parse()
            .map_err(|_| corrupt(format!("unknown outcome {}", shown(&text))))
    };
    let flag = |i: usize, what: &str| -> Result<bool, JournalError> {
        row.try_get::<_, Option<bool>>(i)
            .map_err(|e| corrupt(format!("unreadable {what}: {e}")))?
            .ok_or_else(|| corrupt(format!("no {what}")))
    };
    let reservation = || -> Result<ReservationId, JournalError> {
        let n: Option<i64> = row
            .try_get(12)
            .map_err(|e| corrupt(format!("unreadable reservation: {e}")))?;
        n.and_then(|n| u64::try_from(n).ok())
            .and_then(ReservationId::from_number)
            .ok_or_else(|| {
                corrupt(format!(
                    "no reservation, or an impossible one ({})",
                    number(n)
                ))
            })
    };
    let lease = || -> Result<LeaseKey, JournalError> {
        Ok(LeaseKey {
            project: label(6, "project")?,
            run: label(7, "run")?,
            generation: generation()?,
        })
    };
    // The reservation after the transition, for answers that show it.
    let view = |expected: ReservationState| -> Result<ReservationView, JournalError> {
        let state_text = need(14, "reservation state")?;
        let state = ReservationState::ALL
            .into_iter()
            .find(|s| s.as_str() == state_text)
            .ok_or_else(|| corrupt(format!("unknown reservation state {}", shown(&state_text))))?;
        if state != expected {
            return Err(corrupt(format!(
                "a successful {op} leaves its reservation {}, not {state_text}",
                expected.as_str()
            )));
        }
        let outcome = get(9, "outcome")?
            .map(|t| {
                t.parse::<Outcome>()
                    .map_err(|_| corrupt(format!("unknown outcome {}", shown(&t))))
            })
            .transpose()?;
        Ok(ReservationView {
            id: reservation()?,
            queue: label(11, "queue")?,
            project: label(6, "project")?,
            run: label(7, "run")?,
            state,
            outcome,
        })
    };
    let answer = |ok: &dyn Fn() -> Result<Answer, JournalError>| match refusal {
        Some(e) => Ok(Answer::Refused(e)),
        None => ok(),
    };
    let (call, answer) = match op.as_str() {
        "claim" => (
            Call::Claim {
                project: need(6, "project")?,
                run: need(7, "run")?,
            },
            answer(&|| Ok(Answer::Claimed(lease()?)))?,
        ),
        "request_stop" => {
            let lease = lease()?;
            let held = LaneView::held(&lease.project, &lease.run, LaneState::StopRequested);
            (
                Call::RequestStop { lease },
                answer(&|| Ok(Answer::View(held.clone())))?,
            )
        }
        "release" => {
            let lease = lease()?;
            let outcome = outcome()?;
            let answer = answer(&|| {
                Ok(Answer::Receipt(Receipt {
                    project: lease.project.clone(),
                    run: lease.run.clone(),
                    outcome,
                    stop_requested: flag(10, "stop request")?,
                    work_executed_here: false,
                }))
            })?;
            (Call::Release { lease, outcome }, answer)
        }
        "enqueue" => (
            Call::Enqueue {
                queue: need(11, "queue")?,
                project: need(6, "project")?,
                run: need(7, "run")?,
            },
            answer(&|| Ok(Answer::Reservation(view(ReservationState::Queued)?)))?,
        ),
        "dispatch" => (
            Call::Dispatch {
                queue: need(11, "queue")?,
            },
            answer(&|| Ok(Answer::Dispatched(view(ReservationState::Dispatched)?)))?,
        ),
        "finish" => (
            Call::Finish {
                reservation: reservation()?,
                outcome: outcome()?,
            },
            answer(&|| Ok(Answer::Persisting(view(ReservationState::Persisting)?)))?,
        ),
        "persist" => {
            let reservation = reservation()?;
            let saved = flag(13, "saved")?;
            let answer = answer(&|| {
                let state_text = need(14, "reservation state")?;
                let state = match state_text.as_str() {
                    "done" => ReservationState::Done,
                    "unresolved" => ReservationState::Unresolved,
                    _ => {
                        return Err(corrupt(format!(
                            "a persist leaves its reservation done or unresolved, not {}",
                            shown(&state_text)
                        )));
                    }
                };
                Ok(Answer::Settled(Settled {
                    reservation,
                    state,
                    receipt: Receipt {
                        project: label(6, "project")?,
                        run: label(7, "run")?,
                        outcome: outcome()?,
                        stop_requested: flag(10, "stop request")?,
                        work_executed_here: false,
                    },
                }))
            })?;
            (Call::Persist { reservation, saved }, answer)
        }
        "cancel" => (
            Call::Cancel {
                reservation: reservation()?,
            },
            answer(&|| Ok(Answer::Reservation(view(ReservationState::Cancelled)?)))?,
        ),
        "resolve" => (
            Call::Resolve {
                reservation: reservation()?,
            },
            answer(&|| Ok(Answer::Reservation(view(ReservationState::Resolved)?)))?,
        ),
        other => return Err(corrupt(format!("unknown operation {}", shown(other)))),
    };
    let lanes = matches!(
        call,
        Call::Claim { .. } | Call::RequestStop { .. } | Call::Release { .. }
    );
    let link: Option<i64> = row
        .try_get(15)
        .map_err(|e| corrupt(format!("unreadable link: {e}")))?;
    let hash: Option<Vec<u8>> = row
        .try_get(16)
        .map_err(|e| corrupt(format!("unreadable hash: {e}")))?;
    let chain = match (link, hash) {
        (None, None) => None,
        (Some(link), hash) if link > 0 => Some(chain_head(seq, link, hash.as_deref())?),
        (link, hash) => {
            return Err(corrupt(format!(
                "an impossible seal: link {} and {}",
                number(link),
                if hash.is_some() { "a hash" } else { "no hash" }
            )));
        }
    };
    Ok(StoredEntry {
        seq,
        lanes,
        via: get(4, "via")?,
        chain,
        entry: Entry {
            at: Some(at),
            actor: Some(actor),
            call,
            answer,
        },
    })
}

/// A database time as a record's timestamp (milliseconds, UTC).
pub(crate) fn timestamp(at: SystemTime) -> Option<Timestamp> {
    let millis = at.duration_since(UNIX_EPOCH).ok()?.as_millis();
    Timestamp::from_millis(u64::try_from(millis).ok()?).ok()
}

/// A record's timestamp as a time the database takes.
pub(crate) fn system_time(at: Timestamp) -> SystemTime {
    UNIX_EPOCH + Duration::from_millis(at.millis())
}

/// A value read from a row, for a message: quoted with its control characters escaped, and cut
/// after 100 characters (a corrupt row may hold a very long one).
fn shown(text: &str) -> String {
    let mut chars = text.chars();
    let head: String = chars.by_ref().take(100).collect();
    let more = if chars.next().is_some() { "…" } else { "" };
    format!("{head:?}{more}")
}

/// A number read from a row, or NULL.
fn number(n: Option<i64>) -> String {
    n.map_or_else(|| "NULL".into(), |n| n.to_string())
}

/// A link number and hash read back (hash `None`: link 0), or why they are not one.
pub(crate) fn chain_head(
    seq: i64,
    link: i64,
    hash: Option<&[u8]>,
) -> Result<ChainHead, JournalError> {
    let corrupt = |message: String| JournalError::Corrupt { seq, message };
    let links = u64::try_from(link).map_err(|_| corrupt(format!("a negative link ({link})")))?;
    let hash = match hash {
        None if links == 0 => Hash::ZERO,
        None => return Err(corrupt(format!("link {link} without a hash"))),
        Some(bytes) => Hash(bytes.try_into().map_err(|_| {
            corrupt(format!(
                "a hash of {} bytes, not 32 (link {link})",
                bytes.len()
            ))
        })?),
    };
    Ok(ChainHead { links, hash })
}
