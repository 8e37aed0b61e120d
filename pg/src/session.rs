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
/// server's primary message only, never details or parameters, so tokens never reach a log.
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
            // Client-side errors (I/O, protocol, type conversion) name types, never values.
            None => PgError::Database("08000".into(), e.to_string()),
        }
    }
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
    pub(crate) schema: String,
}

impl Session {
    /// Connects, applies missing migrations, and pins the session to `schema`.
    pub(crate) fn connect(url: &str, schema: &str) -> Result<Session, PgError> {
        let mut client = Client::connect(url, NoTls)?;
        schema::migrate(&mut client, schema)?;
        client.execute("SELECT set_config('search_path', $1, false)", &[&schema])?;
        let row = client.query_one(
            "SELECT (SELECT id FROM lanes_identity), pid, backend_start
             FROM pg_stat_activity WHERE pid = pg_backend_pid()",
            &[],
        )?;
        Ok(Session {
            lanes_id: row.get(0),
            pid: row.get(1),
            started: row.get(2),
            schema: schema.to_owned(),
            client: Mutex::new(client),
        })
    }

    pub(crate) fn client(&self) -> MutexGuard<'_, Client> {
        // No code that can panic runs while the client is locked, except the client itself.
        self.client.lock().unwrap_or_else(PoisonError::into_inner)
    }
}
