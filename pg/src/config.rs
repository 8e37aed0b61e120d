//! Where and how to connect: [`PgConfig`].

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use tokio_postgres_rustls::MakeRustlsConnect;

use crate::tls::{Overrides, RootCerts, Settings, SslMode};
use crate::{PgError, conninfo};

/// Where and how a handle connects: the database, the schema, a time limit, the actor its
/// journal rows name, and TLS.
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
/// TLS follows libpq's options, in the connection string (`sslmode`, `sslrootcert`, `sslcert`,
/// `sslkey`, in a URL's query or as keywords) or set here, which wins:
///
/// ```no_run
/// use project_lanes_pg::{PgConfig, PgLanes, RootCerts, SslMode};
///
/// // A managed database: its provider's CA bundle, and the host's name checked.
/// let url = "postgresql://app@db.example.com/app?sslmode=verify-full&sslrootcert=/etc/ssl/rds.pem";
/// let lanes = PgLanes::connect_with(&PgConfig::new(url, "lanes"))?;
/// // The same, set in code.
/// let config = PgConfig::new("postgresql://app@db.example.com/app", "lanes")
///     .ssl_mode(SslMode::VerifyFull)
///     .ssl_root_cert(RootCerts::File("/etc/ssl/rds.pem".into()));
/// # Ok::<(), project_lanes_pg::PgError>(())
/// ```
///
/// `Debug` shows the schema, the limit and the TLS mode, never the connection string (it can
/// hold a password).
#[derive(Clone)]
pub struct PgConfig {
    pub(crate) url: String,
    pub(crate) schema: String,
    pub(crate) timeout: Option<Duration>,
    pub(crate) actor: Option<String>,
    tls: Overrides,
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
            tls: Overrides::default(),
        }
    }

    /// Whether and how connections are encrypted, over the connection string's `sslmode`. The
    /// default is [`SslMode::Prefer`], libpq's (see there why); [`SslMode::VerifyFull`] with
    /// [`RootCerts::System`]. A connection to Unix sockets only is never encrypted.
    pub fn ssl_mode(mut self, mode: SslMode) -> PgConfig {
        self.tls.mode = Some(mode);
        self
    }

    /// The authorities the server's certificate must be signed by, over the connection
    /// string's `sslrootcert`. Without either, `~/.postgresql/root.crt` if it exists, as in
    /// libpq; `verify-ca` and `verify-full` need one of them (`CONFIG` at connect otherwise).
    pub fn ssl_root_cert(mut self, roots: RootCerts) -> PgConfig {
        self.tls.root = Some(roots);
        self
    }

    /// A client certificate (PEM, with its chain if any) and its key (unencrypted PEM), for a
    /// server that authenticates by certificate (`cert` in `pg_hba.conf`), over the connection
    /// string's `sslcert` and `sslkey`. Without either, `~/.postgresql/postgresql.crt` and
    /// `.key` if the certificate exists, as in libpq.
    pub fn ssl_client_cert(
        mut self,
        cert: impl Into<PathBuf>,
        key: impl Into<PathBuf>,
    ) -> PgConfig {
        self.tls.client = Some((cert.into(), key.into()));
        self
    }

    /// The driver's configuration and TLS connector, from the connection string and the
    /// setters; the connect timeout is the time limit unless the string sets one. Reads the
    /// certificate files. `CONFIG` for a malformed string or bad TLS options.
    pub(crate) fn connector(&self) -> Result<(tokio_postgres::Config, MakeRustlsConnect), PgError> {
        let split = conninfo::split(&self.url)?;
        let mut config: tokio_postgres::Config = split
            .rest
            .parse()
            .map_err(|e| PgError::Config(crate::error::with_causes(&e)))?;
        let settings = Settings::new(&split.tls, &self.tls)?;
        let (mode, connect) =
            settings.connector(config.get_hosts(), !config.get_hostaddrs().is_empty())?;
        config.ssl_mode(mode);
        if let Some(limit) = self.limit()?
            && config.get_connect_timeout().is_none()
        {
            config.connect_timeout(limit);
        }
        Ok((config, connect))
    }

    /// The TLS mode the connection string and the setters ask for, if they can be read.
    fn ssl_mode_asked(&self) -> Option<SslMode> {
        let split = conninfo::split(&self.url).ok()?;
        Some(Settings::new(&split.tls, &self.tls).ok()?.mode)
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
        if let Some(mode) = self.ssl_mode_asked() {
            d.field("ssl_mode", &mode);
        }
        if let Some(actor) = &self.actor {
            d.field("actor", actor);
        }
        d.finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_shows_the_tls_mode_and_never_the_password() {
        let config = PgConfig::new(
            "postgresql://app:hunter2@db.example/app?sslmode=verify-full&sslrootcert=system",
            "lanes",
        );
        let shown = format!("{config:?}");
        assert!(shown.contains("ssl_mode: VerifyFull"), "{shown}");
        assert!(!shown.contains("hunter2"), "{shown}");
        let set = PgConfig::new("host=db password=hunter2", "lanes").ssl_mode(SslMode::Require);
        let shown = format!("{set:?}");
        assert!(
            shown.contains("ssl_mode: Require") && !shown.contains("hunter2"),
            "{shown}"
        );
    }

    #[test]
    fn the_driver_reads_the_string_without_its_tls_options() {
        let config = PgConfig::new(
            "host=db.example user=app sslmode=require connect_timeout=3",
            "lanes",
        )
        .timeout(Duration::from_secs(9));
        let (driver, _) = config.connector().unwrap();
        assert_eq!(driver.get_user(), Some("app"));
        assert_eq!(
            driver.get_ssl_mode(),
            tokio_postgres::config::SslMode::Require
        );
        assert_eq!(driver.get_connect_timeout(), Some(&Duration::from_secs(3)));
        let socket = PgConfig::new("postgresql:///app?host=%2Frun%2Fpostgresql", "lanes")
            .ssl_mode(SslMode::Require)
            .timeout(Duration::from_secs(9));
        let (driver, _) = socket.connector().unwrap();
        assert_eq!(
            driver.get_ssl_mode(),
            tokio_postgres::config::SslMode::Disable
        );
        assert_eq!(driver.get_connect_timeout(), Some(&Duration::from_secs(9)));
    }

    #[test]
    fn a_string_the_driver_cannot_read_is_a_config_error() {
        let error = PgConfig::new("host=db port=seventy password=hunter2", "lanes")
            .connector()
            .map(|_| ())
            .unwrap_err();
        assert_eq!(
            error.to_string(),
            "CONFIG: invalid connection string: invalid value for option `port`"
        );
    }
}
