//! What a schema holds now, for an operator: [`read`].
//!
//! Which lanes are held, by which run and generation, since when and by which caller (the
//! journal's row of the claim or dispatch), directly or for which reservation, with a stop
//! request or an orphan flag, and whether the holder's session is alive; and, per queue, the
//! reservations not settled yet (queued, dispatched, persisting, unresolved).
//!
//! ```no_run
//! use project_lanes_pg::{PgConfig, status};
//!
//! let config = PgConfig::new("host=/run/postgresql user=app dbname=app", "lanes");
//! for lane in status::read(&config)?.lanes {
//!     if !lane.holder_alive && !lane.orphaned {
//!         println!("{}: its holder is gone; recovery will mark it", lane.project);
//!     }
//! }
//! # Ok::<(), project_lanes_pg::PgError>(())
//! ```
//!
//! The reading changes nothing and creates nothing: a plain read-only connection (no migration,
//! no session lock), one snapshot. A holder is alive while its session holds its advisory lock
//! (see [`recover`](mod@crate::recover)): that is read from `pg_locks`, which every role may read,
//! rather than by taking the lock as recovery does, so that a reading never makes a recovery
//! running at that moment take a dead holder for alive. Liveness is asked after the snapshot;
//! a holder seen as gone is confirmed by a second look at its lane (still held by that
//! generation), so a lane released just before its holder's process ended is not reported as
//! a dead holder's.

use std::time::SystemTime;

use postgres::{Client, IsolationLevel, Row, Transaction};
use project_lanes::Label;
use project_lanes::dispatch::{ReservationId, ReservationView};
use project_lanes::journal::Actor;
use project_lanes::record::Timestamp;

use crate::journal::{self, JournalError};
use crate::recover;
use crate::rows::{self, column, label_at};
use crate::{PgConfig, PgError};

/// What a schema holds now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    /// The server's time of the reading.
    pub at: Timestamp,
    /// The lanes held now, by project.
    pub lanes: Vec<HeldLane>,
    /// Every queue of the schema, by name, with its reservations not settled yet.
    pub queues: Vec<QueueStatus>,
}

/// A lane held now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldLane {
    /// The project.
    pub project: Label,
    /// The holder's run label.
    pub run: Label,
    /// The holder's fencing generation.
    pub generation: u64,
    /// When it was claimed (or dispatched), by the server's clock; `None` once a prune removed
    /// that row of the journal.
    pub since: Option<Timestamp>,
    /// Who claimed it (the journal's actor), when the journal still holds that row.
    pub actor: Option<String>,
    /// The reservation it is held for (dispatched or persisting); `None`: held directly.
    pub reservation: Option<ReservationId>,
    /// That reservation's queue.
    pub queue: Option<Label>,
    /// Whether a stop was requested.
    pub stop_requested: bool,
    /// Whether recovery marked it orphaned (held directly, its holder gone).
    pub orphaned: bool,
    /// Whether the holder's session is alive. A lane whose holder is not alive and that is not
    /// [`orphaned`](Self::orphaned) waits for a recovery to mark it (a reservation's lane is
    /// marked by making the reservation unresolved).
    pub holder_alive: bool,
    /// The holder's backend pid, for `pg_stat_activity`.
    pub holder_pid: Option<i32>,
    /// When the holder's session started.
    pub holder_session_started: Option<Timestamp>,
}

/// A queue and its reservations not settled yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueueStatus {
    /// The queue.
    pub queue: Label,
    /// Its reservations queued, dispatched, persisting or unresolved, by id.
    pub reservations: Vec<Pending>,
}

/// A reservation not settled yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The reservation as the core shows it.
    pub view: ReservationView,
    /// When it was enqueued, by the server's clock.
    pub enqueued: Timestamp,
}

/// How many times a reading is taken again when a holder seen as gone had left its lane
/// meanwhile.
const ATTEMPTS: usize = 5;

/// What `config`'s schema holds now. A schema that holds no lanes (a misspelled name) is an
/// error, never created; so is one newer than this crate, or a pre-release one it does not
/// upgrade.
pub fn read(config: &PgConfig) -> Result<Status, PgError> {
    crate::blocking::outside_runtime(|| read_here(config))
}

fn read_here(config: &PgConfig) -> Result<Status, PgError> {
    let mut client = journal::read::connect(config).map_err(pg_error)?;
    let schema = config.schema.as_str();
    let mut status = read_once(&mut client, schema)?;
    for _ in 1..ATTEMPTS {
        if gone_still_held(&mut client, schema, &status)? {
            break;
        }
        status = read_once(&mut client, schema)?;
    }
    Ok(status)
}

/// One snapshot of the lanes, the journal's rows that gave them to their holders, and the
/// reservations.
fn read_once(client: &mut Client, schema: &str) -> Result<Status, PgError> {
    let mut tx = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?;
    let at: SystemTime = column(&tx.query_one("SELECT now()", &[])?, 0, "time")?;
    let mut lanes = tx
        .query(&lanes_sql(schema), &[])?
        .iter()
        .map(held_lane)
        .collect::<Result<Vec<_>, _>>()?;
    add_claims(&mut tx, schema, &mut lanes)?;
    let mut queues: Vec<QueueStatus> = tx
        .query(
            &format!("SELECT name FROM {schema}.queues ORDER BY name"),
            &[],
        )?
        .iter()
        .map(|row| {
            Ok(QueueStatus {
                queue: label_at(row, 0, "queue")?,
                reservations: Vec::new(),
            })
        })
        .collect::<Result<_, PgError>>()?;
    let pending = tx.query(
        &format!(
            "SELECT id, queue, project, run, state, outcome, enqueued_at \
             FROM {schema}.reservations \
             WHERE state IN ('queued', 'dispatched', 'persisting', 'unresolved') ORDER BY id"
        ),
        &[],
    )?;
    for row in &pending {
        let view = rows::reservation_view(row)?;
        let enqueued = time(column(row, 6, "enqueue time")?)?;
        match queues.iter_mut().find(|q| q.queue == view.queue) {
            Some(queue) => queue.reservations.push(Pending { view, enqueued }),
            None => {
                return Err(PgError::Config(format!(
                    "the database holds reservation {} of queue {:?}, which it does not list",
                    view.id,
                    view.queue.as_str()
                )));
            }
        }
    }
    for lane in &mut lanes {
        lane.queue = lane.reservation.and_then(|id| {
            queues
                .iter()
                .find(|q| q.reservations.iter().any(|p| p.view.id == id))
                .map(|q| q.queue.clone())
        });
    }
    tx.commit()?;
    Ok(Status {
        at: time(at)?,
        lanes,
        queues,
    })
}

/// The held lanes with the reservation each is held for and whether its holder is alive: a
/// holder with a session key while some session holds that advisory lock (as recovery asks,
/// but read from `pg_locks` instead of taking it); one of an older crate, without a key, while
/// its session is in `pg_stat_activity` (a session whose start the caller cannot see counts as
/// alive, as in recovery).
fn lanes_sql(schema: &str) -> String {
    format!(
        "SELECT l.project, l.run, l.generation, l.stop_requested,
                l.orphaned_generation IS NOT NULL, r.id,
                CASE WHEN l.owner_key IS NOT NULL THEN EXISTS (
                         SELECT 1 FROM pg_locks k
                         WHERE k.locktype = 'advisory' AND k.granted AND k.objsubid = 1
                           AND k.database = (SELECT oid FROM pg_database
                                             WHERE datname = current_database())
                           AND k.classid = ((l.owner_key >> 32) & 4294967295)::oid
                           AND k.objid = (l.owner_key & 4294967295)::oid)
                     ELSE EXISTS (
                         SELECT 1 FROM pg_stat_activity a
                         WHERE a.pid = l.owner_pid
                           AND (a.backend_start = l.owner_started OR a.backend_start IS NULL))
                END,
                l.owner_pid, l.owner_started
         FROM {schema}.lanes l
         LEFT JOIN {schema}.reservations r
             ON r.token = l.token AND r.state IN ('dispatched', 'persisting')
         WHERE l.run IS NOT NULL OR l.orphaned_generation IS NOT NULL
         ORDER BY l.project"
    )
}

fn held_lane(row: &Row) -> Result<HeldLane, PgError> {
    let project = label_at(row, 0, "project")?;
    // A flag on a lane without a holder (a constraint forbids it) is named, not left out.
    let run = column::<Option<&str>>(row, 1, "run")?.ok_or_else(|| recover::no_holder(&project))?;
    Ok(HeldLane {
        run: rows::label(run)?,
        generation: rows::generation(row, 2)?,
        since: None,
        actor: None,
        reservation: column::<Option<i64>>(row, 5, "reservation id")?
            .map(rows::reservation_id)
            .transpose()?,
        queue: None,
        stop_requested: column(row, 3, "stop request")?,
        orphaned: column(row, 4, "orphan flag")?,
        holder_alive: column(row, 6, "holder's liveness")?,
        holder_pid: column(row, 7, "holder's pid")?,
        holder_session_started: column::<Option<SystemTime>>(row, 8, "holder's session start")?
            .map(time)
            .transpose()?,
        project,
    })
}

/// Each lane's claim (or dispatch) from the journal: its time and actor. A generation is
/// claimed once, so one row at most answers each lane.
fn add_claims(
    tx: &mut Transaction<'_>,
    schema: &str,
    lanes: &mut [HeldLane],
) -> Result<(), PgError> {
    if lanes.is_empty() {
        return Ok(());
    }
    let projects: Vec<&str> = lanes.iter().map(|l| l.project.as_str()).collect();
    let generations: Vec<i64> = lanes.iter().map(|l| signed(l.generation)).collect();
    let claims = tx.query(
        &format!(
            "SELECT j.project, j.generation, j.at, j.actor FROM {schema}.lanes_journal j
             JOIN unnest($1::text[], $2::bigint[]) AS h (project, generation)
                 ON j.project = h.project AND j.generation = h.generation
             WHERE j.code = 'OK' AND j.op IN ('claim', 'dispatch')"
        ),
        &[&projects, &generations],
    )?;
    for row in &claims {
        let project: &str = column(row, 0, "project")?;
        let generation = rows::generation(row, 1)?;
        let actor: &str = column(row, 3, "actor")?;
        let actor = Actor::new(actor).ok_or_else(|| {
            PgError::Config(format!(
                "the journal holds the actor {actor:?}, which is not one line of 1 to 200 \
                 characters without control characters"
            ))
        })?;
        if let Some(lane) = lanes
            .iter_mut()
            .find(|l| l.project.as_str() == project && l.generation == generation)
        {
            lane.since = Some(time(column(row, 2, "time")?)?);
            lane.actor = Some(actor.as_str().to_owned());
        }
    }
    Ok(())
}

/// Whether every lane `status` saw held by a holder gone (and not marked) is still held by that
/// generation, unmarked: then the holder was gone while it held the lane.
fn gone_still_held(client: &mut Client, schema: &str, status: &Status) -> Result<bool, PgError> {
    let gone: Vec<&HeldLane> = status
        .lanes
        .iter()
        .filter(|l| !l.holder_alive && !l.orphaned)
        .collect();
    if gone.is_empty() {
        return Ok(true);
    }
    let projects: Vec<&str> = gone.iter().map(|l| l.project.as_str()).collect();
    let generations: Vec<i64> = gone.iter().map(|l| signed(l.generation)).collect();
    let still: i64 = column(
        &client.query_one(
            &format!(
                "SELECT count(*) FROM {schema}.lanes l
                 JOIN unnest($1::text[], $2::bigint[]) AS h (project, generation)
                     ON l.project = h.project AND l.generation = h.generation
                 WHERE l.run IS NOT NULL AND l.orphaned_generation IS NULL"
            ),
            &[&projects, &generations],
        )?,
        0,
        "count",
    )?;
    Ok(usize::try_from(still).is_ok_and(|n| n == gone.len()))
}

/// A generation as the database stores it (it came from there, so it fits).
fn signed(generation: u64) -> i64 {
    i64::try_from(generation).unwrap_or(i64::MAX)
}

/// A database time as a record's timestamp.
fn time(at: SystemTime) -> Result<Timestamp, PgError> {
    journal::read::timestamp(at)
        .ok_or_else(|| PgError::Config("the database holds a time before 1970 or past 9999".into()))
}

/// The journal's connection errors as the crate's: a schema that holds no lanes is a `CONFIG`
/// error, as a handle says it.
fn pg_error(e: JournalError) -> PgError {
    match e {
        JournalError::Pg(e) => e,
        e => PgError::Config(e.to_string()),
    }
}
