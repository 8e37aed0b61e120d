//! Every SQL statement of the handles, in one place and by name; the tables and functions they
//! use are the schema's (`pg/migrations/`). The prepared ones come as structs with a field per
//! statement, so no two can be swapped by position.

use postgres::Statement;

use crate::PgError;

/// A direct claim (`lanes_claim`): the lane if it is idle and unblocked, with a new generation
/// and token; journaled with its answer (`PROJECT_BUSY` when no row comes back), after a
/// dispatch in progress. `$1` project, `$2` run, `$3` pid, `$4` session start, `$5` session key.
const CLAIM: &str = "SELECT * FROM lanes_claim($1, $2, $3, $4, $5)";

/// A release by the lease's token (`lanes_release`), journaled, after a dispatch in progress;
/// returns the stop request. `$1` project, `$2` token, `$3` run, `$4` generation, `$5` outcome.
const RELEASE: &str = "SELECT * FROM lanes_release($1, $2, $3, $4, $5)";

/// A stop request by the lease's token (`lanes_request_stop`), journaled; the lane stays held.
/// Returns the holder's run. `$1` project, `$2` token, `$3` run, `$4` generation.
const STOP: &str = "SELECT * FROM lanes_request_stop($1, $2, $3, $4)";

/// A lane's holder and stop request (no row: idle).
const VIEW: &str = "SELECT run, stop_requested FROM lanes WHERE project = $1";

/// A reservation at the end of a queue this schema knows (no row if it knows none).
const ENQUEUE: &str = "SELECT o_id FROM lanes_enqueue($1, $2, $3)";

/// One reservation, as `rows::reservation_view` reads it.
const RESERVATION: &str =
    "SELECT id, queue, project, run, state, outcome FROM reservations WHERE id = $1";

/// Every reservation, in id order.
pub(crate) const RESERVATIONS: &str =
    "SELECT id, queue, project, run, state, outcome FROM reservations ORDER BY id";

/// A queued reservation cancelled: the result code, then the reservation as
/// `rows::reservation_view` reads it (from column 1).
const CANCEL: &str = "SELECT * FROM lanes_cancel($1)";

/// How many reservations wait in a queue.
pub(crate) const RETAINED: &str =
    "SELECT count(*) FROM reservations WHERE queue = $1 AND state = 'queued'";

/// The queues a dispatcher declares (`$1`, an array of names).
pub(crate) const DECLARE_QUEUES: &str =
    "INSERT INTO queues (name) SELECT unnest($1::text[]) ON CONFLICT DO NOTHING";

/// Recovery, with the caller's session key.
pub(crate) const RECOVER: &str =
    "SELECT o_project, o_run, o_generation, o_reservation FROM lanes_recover($1)";

/// The lanes flagged orphaned.
pub(crate) const ORPHANS: &str = "
    SELECT project, run, orphaned_generation, owner_started FROM lanes
    WHERE orphaned_generation IS NOT NULL ORDER BY project";

/// An orphaned lane freed (`lanes_resolve_orphan`); returns the dead holder's run and the stop
/// request. Journaled as what it is in the core's terms: a release of the dead holder's lease
/// with `needs_review`.
/// A task waits for the held lane of `$1`: its release notifies (`0002_wake.sql`). No row if the
/// lane is free (or missing) by now.
pub(crate) const MARK_WAITED: &str = "
    UPDATE lanes SET waited = true
    WHERE project = $1 AND (run IS NOT NULL OR blocked_by IS NOT NULL)
    RETURNING 1";

/// A task waits for a job in queue `$1`: the next job queued there notifies, and so does the
/// freeing of any lane a queued job of it waits for.
pub(crate) const MARK_QUEUE_WAITED: &str = "
    WITH queue AS (UPDATE queues SET waited = true WHERE name = $1 AND NOT waited)
    UPDATE lanes SET waited = true
    WHERE NOT waited AND (run IS NOT NULL OR blocked_by IS NOT NULL)
      AND project IN (SELECT project FROM reservations WHERE queue = $1 AND state = 'queued')";

/// The holder of `$1`'s lane if it is flagged orphaned (no row otherwise).
pub(crate) const ORPHAN_HOLDER: &str =
    "SELECT run FROM lanes WHERE project = $1 AND orphaned_generation IS NOT NULL";

pub(crate) const RESOLVE_ORPHAN: &str = "SELECT * FROM lanes_resolve_orphan($1)";

/// A new session pinned to its schema (`$1`), with the server's statement timeout (`$2`, empty
/// for none) and the actor its journal rows name (`$3`).
pub(crate) const SESSION_SETTINGS: &str = "
    SELECT set_config('search_path', $1, false),
           CASE WHEN $2 <> '' THEN set_config('statement_timeout', $2, false) END,
           set_config('project_lanes.actor', $3, false)";

/// The schema's identity, the session's pid and start, and a random key with the session's try
/// at its advisory lock.
pub(crate) const SESSION_IDENTITY: &str = "
    SELECT (SELECT id FROM lanes_identity), a.pid, a.backend_start, s.key,
           pg_try_advisory_lock(s.key)
    FROM pg_stat_activity a,
         (SELECT ('x' || translate(gen_random_uuid()::text, '-', ''))::bit(64)::bigint AS key
          OFFSET 0) s
    WHERE a.pid = pg_backend_pid()";

/// What prepares the statements: a session (`session.rs`), which in turn runs the statements
/// of this file, so this file does not name it.
pub(crate) trait Prepare {
    async fn prepare(&self, sql: &str) -> Result<Statement, PgError>;
}

/// The lanes' prepared statements.
pub(crate) struct LaneStatements {
    pub(crate) claim: Statement,
    pub(crate) release: Statement,
    pub(crate) stop: Statement,
    pub(crate) view: Statement,
}

impl LaneStatements {
    pub(crate) async fn prepare(session: &impl Prepare) -> Result<LaneStatements, PgError> {
        Ok(LaneStatements {
            claim: session.prepare(CLAIM).await?,
            release: session.prepare(RELEASE).await?,
            stop: session.prepare(STOP).await?,
            view: session.prepare(VIEW).await?,
        })
    }
}

/// The dispatcher's prepared statements.
pub(crate) struct QueueStatements {
    pub(crate) enqueue: Statement,
    /// `$1` queue, `$2` pid, `$3` session start, `$4` session key.
    pub(crate) dispatch: Statement,
    pub(crate) finish: Statement,
    pub(crate) persisted: Statement,
    pub(crate) cancel: Statement,
    pub(crate) resolve: Statement,
    pub(crate) reservation: Statement,
    pub(crate) view: Statement,
}

impl QueueStatements {
    pub(crate) async fn prepare(session: &impl Prepare) -> Result<QueueStatements, PgError> {
        Ok(QueueStatements {
            enqueue: session.prepare(ENQUEUE).await?,
            dispatch: session
                .prepare("SELECT * FROM lanes_dispatch($1, $2, $3, $4)")
                .await?,
            finish: session
                .prepare("SELECT * FROM lanes_finish($1, $2)")
                .await?,
            persisted: session
                .prepare("SELECT * FROM lanes_persisted($1, $2)")
                .await?,
            cancel: session.prepare(CANCEL).await?,
            resolve: session.prepare("SELECT lanes_resolve($1)").await?,
            reservation: session.prepare(RESERVATION).await?,
            view: session.prepare(VIEW).await?,
        })
    }
}
