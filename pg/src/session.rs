//! One database session: the connection, its identity for recovery, and the errors.

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use postgres::{Client, NoTls};
use project_lanes::LaneError;
use project_lanes::backend::Refusal;
use project_lanes::dispatch::DispatchError;

use crate::schema;

/// Why an operation on PostgreSQL did not happen.
///
/// A refusal carries the core's stable code ([`Refusal::refusal`]); a database failure (a lost
/// connection, a server error) carries none. `Display` and `Debug` show the SQLSTATE and the
/// server's primary message only, never details or parameters, so tokens never reach a log; a
/// failure on the client's side (`08000`) shows its chain of causes, as in
/// `08000: error connecting to server: Connection refused (os error 111)`.
pub enum PgError {
    /// The contract refused the operation, with the same code as the in-memory core.
    Refused(DispatchError),
    /// The database failed: `(SQLSTATE, message)`; the connection may be unusable.
    Database(String, String),
    /// Bad configuration (a schema name, a schema newer than this crate).
    Config(String),
}

impl PgError {
    /// The stable code of a refusal, `DATABASE` or `CONFIG` otherwise.
    pub fn code(&self) -> &'static str {
        match self {
            PgError::Refused(e) => e.code(),
            PgError::Database(..) => "DATABASE",
            PgError::Config(_) => "CONFIG",
        }
    }
}

impl From<postgres::Error> for PgError {
    fn from(e: postgres::Error) -> Self {
        match e.as_db_error() {
            // Only the SQLSTATE and the primary message: details can quote row values.
            Some(db) => PgError::Database(db.code().code().to_owned(), db.message().to_owned()),
            None if e.is_closed() => {
                PgError::Database("08006".into(), "the connection is closed".into())
            }
            // Client-side errors (I/O, protocol, type conversion, the connection string) name
            // types, options and system errors, never values: the whole chain of causes is kept.
            None => PgError::Database("08000".into(), with_causes(&e)),
        }
    }
}

/// `error: cause: cause of the cause…`, as far as the chain goes.
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

impl From<LaneError> for PgError {
    fn from(e: LaneError) -> Self {
        PgError::Refused(DispatchError::Lane(e))
    }
}

impl From<DispatchError> for PgError {
    fn from(e: DispatchError) -> Self {
        PgError::Refused(e)
    }
}

impl Refusal for PgError {
    fn refusal(&self) -> Option<DispatchError> {
        match self {
            PgError::Refused(e) => Some(*e),
            _ => None,
        }
    }
}

impl fmt::Display for PgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgError::Refused(e) => fmt::Display::fmt(e, f),
            PgError::Database(code, message) => write!(f, "DATABASE: {code}: {message}"),
            PgError::Config(message) => write!(f, "CONFIG: {message}"),
        }
    }
}

impl fmt::Debug for PgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgError::Refused(e) => write!(f, "Refused({})", e.code()),
            PgError::Database(code, message) => write!(f, "Database({code}, {message:?})"),
            PgError::Config(message) => write!(f, "Config({message:?})"),
        }
    }
}

impl std::error::Error for PgError {}

/// A connected session on one schema.
pub(crate) struct Session {
    client: Mutex<Client>,
    /// The schema's identity (`lanes_identity`): leases of other schemas are not current here.
    pub(crate) lanes_id: String,
    /// This session's backend pid and start time, recorded on every lane it takes.
    pub(crate) pid: i32,
    pub(crate) started: SystemTime,
    /// The key of the session-level advisory lock this session holds while it lasts, recorded
    /// on every lane it takes: recovery takes a holder for dead once nobody holds its key.
    pub(crate) key: i64,
    pub(crate) schema: String,
}

impl Session {
    /// Connects, applies missing migrations, and pins the session to `schema`.
    pub(crate) fn connect(url: &str, schema: &str) -> Result<Session, PgError> {
        let mut client = Client::connect(url, NoTls)?;
        schema::migrate(&mut client, schema)?;
        client.execute("SELECT set_config('search_path', $1, false)", &[&schema])?;
        // A random key for this session's lock; another live session holding the same key (a
        // chance of one in 2^64 per pair) only means trying another.
        let row = loop {
            let row = client.query_one(
                "SELECT (SELECT id FROM lanes_identity), a.pid, a.backend_start, s.key,
                        pg_try_advisory_lock(s.key)
                 FROM pg_stat_activity a,
                      (SELECT ('x' || translate(gen_random_uuid()::text, '-', ''))::bit(64)::bigint
                       AS key OFFSET 0) s
                 WHERE a.pid = pg_backend_pid()",
                &[],
            )?;
            if row.try_get::<_, bool>(4)? {
                break row;
            }
        };
        Ok(Session {
            lanes_id: row.try_get(0)?,
            pid: row.try_get(1)?,
            started: row.try_get(2)?,
            key: row.try_get(3)?,
            schema: schema.to_owned(),
            client: Mutex::new(client),
        })
    }

    pub(crate) fn client(&self) -> MutexGuard<'_, Client> {
        // No code that can panic runs while the client is locked, except the client itself.
        self.client.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
