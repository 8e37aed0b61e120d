//! Where and how to connect: [`PgConfig`].

use std::fmt;
use std::time::Duration;

use crate::PgError;

/// Where and how a handle connects: the database, the schema, a time limit, and the actor its
/// journal rows name.
///
/// ```no_run
/// use std::time::Duration;
/// use project_lanes_pg::{PgConfig, PgDispatcher, PgLanes};
///
/// let config = PgConfig::new("host=/run/postgresql user=app dbname=app", "lanes")
///     .timeout(Duration::from_secs(5));
/// let lanes = PgLanes::connect_with(&config)?;
/// let dispatcher = PgDispatcher::connect_with(&config, &["general"])?;
/// # Ok::<(), project_lanes_pg::PgError>(())
/// ```
///
/// `Debug` shows the schema and the limit, never the connection string (it can hold a password).
#[derive(Clone)]
pub struct PgConfig {
    pub(crate) url: String,
    pub(crate) schema: String,
    pub(crate) timeout: Option<Duration>,
    pub(crate) actor: Option<String>,
}

/// The longest time limit: PostgreSQL's largest `statement_timeout`, 2^31 - 1 ms.
pub(crate) const MAX_TIMEOUT: Duration = Duration::from_millis(i32::MAX as u64);

/// How long a handle waits, beyond its time limit, for a server that does not answer at all
/// before it gives the connection up (the server's own cancellation comes first when it can).
pub(crate) const GRACE: Duration = Duration::from_secs(1);

impl PgConfig {
    /// `url` is a libpq connection string or URL (`host=/run/postgresql user=app dbname=app`,
    /// `postgresql://app@db.example/app`); `schema` holds the lanes. No time limit.
    pub fn new(url: &str, schema: &str) -> PgConfig {
        PgConfig {
            url: url.to_owned(),
            schema: schema.to_owned(),
            timeout: None,
            actor: None,
        }
    }

    /// Who this handle's transitions are by, in the schema's journal (`lanes-pg export` shows it
    /// on every step): a host and process, a worker's name. 1 to 200 characters of one line
    /// without control characters (`CONFIG` at connect otherwise). By default `HOST/PID`, the
    /// host's name and this process's id.
    pub fn actor(mut self, name: &str) -> PgConfig {
        self.actor = Some(name.to_owned());
        self
    }

    /// The actor, checked, or the default.
    pub(crate) fn actor_name(&self) -> Result<String, PgError> {
        match &self.actor {
            Some(name) => project_lanes::journal::Actor::new(name)
                .map(|a| a.as_str().to_owned())
                .ok_or_else(|| {
                    PgError::Config(format!(
                        "an actor is 1 to 200 characters of one line without control \
                         characters, not {name:?}"
                    ))
                }),
            None => Ok(default_actor()),
        }
    }

    /// The longest any operation, connecting included, may take. A statement still running
    /// after `limit` is cancelled by the server (`57014`: nothing changed, the handle stays
    /// usable). A server that does not answer at all (a frozen host or backend, a lost
    /// network) is given up one second later (`08006`): the connection is closed, every later
    /// operation on the handle fails, and whether the last one took effect is unknown — what
    /// its session held is marked by the next [`recover`](crate::PgLanes::recover). Also the
    /// connect timeout, unless the connection string sets `connect_timeout`. From 1 ms to
    /// about 24.8 days, PostgreSQL's largest statement timeout (`CONFIG` otherwise); without it,
    /// operations wait as long as the server takes.
    pub fn timeout(mut self, limit: Duration) -> PgConfig {
        self.timeout = Some(limit);
        self
    }

    /// The time limit, checked: `CONFIG` below 1 ms or above [`MAX_TIMEOUT`].
    pub(crate) fn limit(&self) -> Result<Option<Duration>, PgError> {
        match self.timeout {
            Some(limit) if limit < Duration::from_millis(1) || limit > MAX_TIMEOUT => {
                Err(PgError::Config(format!(
                    "a timeout must be from 1 ms to {} ms (PostgreSQL's largest \
                     statement_timeout, about 24.8 days), not {limit:?}",
                    MAX_TIMEOUT.as_millis()
                )))
            }
            limit => Ok(limit),
        }
    }
}

/// `HOST/PID`: the host's name (`localhost` if it has none that can be read) and this process's id.
fn default_actor() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length, which is passed.
    #[allow(unsafe_code)]
    let ok = unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0;
    let host = if ok {
        let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end])
            .chars()
            .filter(|c| !c.is_control())
            .take(150)
            .collect::<String>()
    } else {
        String::new()
    };
    let host = if host.trim().is_empty() {
        "localhost".to_owned()
    } else {
        host
    };
    format!("{host}/{}", std::process::id())
}

impl fmt::Debug for PgConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("PgConfig");
        d.field("schema", &self.schema)
            .field("timeout", &self.timeout);
        if let Some(actor) = &self.actor {
            d.field("actor", actor);
        }
        d.finish_non_exhaustive()
    }
}
