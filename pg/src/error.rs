//! Why an operation on PostgreSQL did not happen: [`PgError`].

use std::fmt;
use std::time::Duration;

use project_lanes::LaneError;
use project_lanes::backend::Refusal;
use project_lanes::dispatch::DispatchError;

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
pub(crate) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        text.push_str(": ");
        match tls_error(e) {
            Some(tls) => text.push_str(&tls),
            None => text.push_str(&e.to_string()),
        }
        cause = e.source();
    }
    text
}

/// A TLS failure (rustls's error inside an I/O error), in words: rustls shows a certificate
/// error of a verifier's own (`tls.rs`) by its `Debug`.
fn tls_error(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    use rustls::{CertificateError, OtherError};
    let tls = error
        .downcast_ref::<std::io::Error>()?
        .get_ref()?
        .downcast_ref::<rustls::Error>()?;
    Some(match tls {
        rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(why))) => {
            format!("invalid peer certificate: {why}")
        }
        other => other.to_string(),
    })
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

impl PgError {
    /// The server did not answer within `patience`: the connection was closed.
    pub(crate) fn no_answer(patience: Duration) -> PgError {
        PgError::Database(
            "08006".into(),
            format!(
                "no answer from the server within {} ms: the connection is closed, and whether \
                 the operation took effect is unknown (recovery marks what its session held)",
                patience.as_millis()
            ),
        )
    }

    /// The server did not answer a connection within `patience`: nothing was done.
    pub(crate) fn no_answer_connecting(patience: Duration) -> PgError {
        PgError::Database(
            "08006".into(),
            format!(
                "no answer from the server within {} ms while connecting: the connection was \
                 given up before any operation",
                patience.as_millis()
            ),
        )
    }
}
