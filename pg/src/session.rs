//! One database session: its connection, driven on a runtime of its own under the handle's time
//! limit, and its identity for recovery.

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use postgres::types::ToSql;
use postgres::{Row, Statement};
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;
use tokio_postgres::{Client, ToStatement};

use crate::config::GRACE;
use crate::schema::{self, Sql};
use crate::statements;
use crate::{PgConfig, PgError};

/// A connected session on one schema.
pub(crate) struct Session {
    conn: Mutex<Conn>,
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

/// The connection: `tokio-postgres` on a current-thread runtime of its own, which runs the
/// connection's task only while an operation waits for it (as the `postgres` crate does), so
/// every wait can be given a deadline.
pub(crate) struct Conn {
    runtime: Runtime,
    /// `None` once given up.
    client: Option<Client>,
    driver: Option<JoinHandle<()>>,
    /// How long to wait for any answer: the time limit plus [`GRACE`].
    patience: Option<Duration>,
}

impl Session {
    /// Connects, applies missing migrations, pins the session to the schema, takes its lock.
    pub(crate) fn connect(config: &PgConfig) -> Result<Session, PgError> {
        let schema = config.schema.as_str();
        schema::check_name(schema)?;
        let limit = config.limit()?;
        let actor = config.actor_name()?;
        let mut conn = Conn::open(config, limit)?;
        schema::migrate_with(&mut conn, schema)?;
        let timeout = limit.map_or_else(String::new, |l| format!("{}ms", l.as_millis()));
        let setup = conn.run(async |c| {
            c.execute(statements::SESSION_SETTINGS, &[&schema, &timeout, &actor])
                .await?;
            // A random key for this session's lock; a live session holding the same key (a
            // chance of one in 2^64 per pair) only means drawing another.
            loop {
                let row = c.query_one(statements::SESSION_IDENTITY, &[]).await?;
                if row.try_get::<_, bool>(4)? {
                    return Ok(row);
                }
            }
        });
        let row = setup?;
        Ok(Session {
            lanes_id: row.try_get(0)?,
            pid: row.try_get(1)?,
            started: row.try_get(2)?,
            key: row.try_get(3)?,
            schema: schema.to_owned(),
            conn: Mutex::new(conn),
        })
    }

    /// The connection, for one operation at a time.
    pub(crate) fn conn(&self) -> MutexGuard<'_, Conn> {
        // No code that can panic runs while the connection is locked.
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn prepare(&self, sql: &str) -> Result<Statement, PgError> {
        self.conn().run(async |c| Ok(c.prepare(sql).await?))
    }

    pub(crate) fn query<T: ?Sized + ToStatement + Sync>(
        &self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, PgError> {
        self.conn()
            .run(async |c| Ok(c.query(statement, params).await?))
    }

    pub(crate) fn query_one<T: ?Sized + ToStatement + Sync>(
        &self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, PgError> {
        self.conn()
            .run(async |c| Ok(c.query_one(statement, params).await?))
    }

    pub(crate) fn query_opt<T: ?Sized + ToStatement + Sync>(
        &self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, PgError> {
        self.conn()
            .run(async |c| Ok(c.query_opt(statement, params).await?))
    }
}

impl Conn {
    fn open(config: &PgConfig, limit: Option<Duration>) -> Result<Conn, PgError> {
        let (config, tls) = config.connector()?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| {
                PgError::Database("08000".into(), format!("cannot start a runtime: {e}"))
            })?;
        let patience = limit.map(|limit| limit + GRACE);
        let connected = runtime.block_on(async {
            match patience {
                Some(patience) => tokio::time::timeout(patience, config.connect(tls))
                    .await
                    .map_err(|_| PgError::no_answer(patience))?,
                None => config.connect(tls).await,
            }
            .map_err(PgError::from)
        });
        let (client, connection) = connected?;
        let driver = runtime.spawn(async move {
            // Its end (an error, or the client gone) is seen by the client's next call.
            let _ = connection.await;
        });
        Ok(Conn {
            runtime,
            client: Some(client),
            driver: Some(driver),
            patience,
        })
    }

    /// Runs `work` on the client, giving the server up (closing the connection) once the
    /// patience is spent.
    pub(crate) fn run<T>(
        &mut self,
        work: impl AsyncFnOnce(&mut Client) -> Result<T, PgError>,
    ) -> Result<T, PgError> {
        let Conn {
            runtime,
            client,
            driver,
            patience,
        } = self;
        let Some(client) = client.as_mut() else {
            return Err(closed());
        };
        let Some(patience) = *patience else {
            return runtime.block_on(work(client));
        };
        let answered =
            runtime.block_on(async { tokio::time::timeout(patience, work(client)).await });
        match answered {
            Ok(result) => result,
            Err(_) => {
                // Dropping the connection's task closes its socket; the client then fails
                // every later call.
                if let Some(driver) = driver.take() {
                    driver.abort();
                    let _ = runtime.block_on(driver);
                }
                self.client = None;
                Err(PgError::no_answer(patience))
            }
        }
    }
}

fn closed() -> PgError {
    PgError::Database("08006".into(), "the connection is closed".into())
}

impl Drop for Conn {
    fn drop(&mut self) {
        // Without its client the connection says goodbye to the server and ends; a server that
        // does not take it is not waited for long.
        self.client = None;
        if let Some(driver) = self.driver.take() {
            let _ = self
                .runtime
                .block_on(async { tokio::time::timeout(Duration::from_secs(1), driver).await });
        }
    }
}

impl Sql for Conn {
    fn query_one(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row, PgError> {
        self.run(async |c| Ok(c.query_one(sql, params).await?))
    }
    fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, PgError> {
        self.run(async |c| Ok(c.execute(sql, params).await?))
    }
    fn batch_execute(&mut self, sql: &str) -> Result<(), PgError> {
        self.run(async |c| Ok(c.batch_execute(sql).await?))
    }
}
