//! One database session: its connection, shared by every task of a handle (tokio-postgres
//! pipelines their statements), each wait bounded by the handle's time limit, and its identity
//! for recovery.

use std::future::{Future, poll_fn};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use postgres::types::ToSql;
use postgres::{Row, Statement};
use tokio::sync::{OnceCell, broadcast};
use tokio::task::JoinHandle;
use tokio_postgres::{AsyncMessage, Client, ToStatement};

use crate::config::GRACE;
use crate::schema::{self, Sql};
use crate::statements::{self, Prepare};
use crate::{PgConfig, PgError};

/// A connected session on one schema.
pub(crate) struct Session {
    client: Client,
    /// The task that drives the connection: aborted when the session is given up.
    driver: Mutex<Option<JoinHandle<()>>>,
    /// Set once the session was given up: every later call fails at once.
    gone: AtomicBool,
    /// How long to wait for any answer: the time limit plus [`GRACE`].
    patience: Option<Duration>,
    /// The schema's identity (`lanes_identity`): leases of other schemas are not current here.
    pub(crate) lanes_id: Arc<str>,
    /// This session's backend pid and start time, recorded on every lane it takes.
    pub(crate) pid: i32,
    pub(crate) started: SystemTime,
    /// The key of the session-level advisory lock this session holds while it lasts, recorded
    /// on every lane it takes: recovery takes a holder for dead once nobody holds its key.
    pub(crate) key: i64,
    pub(crate) schema: String,
    /// The payloads of the notifications the session receives (`free:PROJECT`,
    /// `queued:QUEUE`), for the tasks that wait on them.
    wake: broadcast::Sender<Arc<str>>,
    /// Whether `LISTEN` was sent (once, by the first task that waits).
    listening: OnceCell<()>,
}

impl Session {
    /// Connects, applies missing migrations, pins the session to the schema, takes its lock.
    /// The connection is driven by a task on the current tokio runtime.
    pub(crate) async fn connect(config: &PgConfig) -> Result<Session, PgError> {
        let schema = config.schema.as_str();
        schema::check_name(schema)?;
        let limit = config.limit()?;
        let actor = config.actor_name()?;
        let runtime = tokio::runtime::Handle::try_current().map_err(|_| {
            PgError::Config(
                "the async handles (AsyncPgLanes, AsyncPgDispatcher) run on a tokio runtime: \
                 connect them from a task of one, or use PgLanes / PgDispatcher, which bring \
                 their own"
                    .into(),
            )
        })?;
        let (pg, tls) = config.connector()?;
        let patience = limit.map(|limit| limit + GRACE);
        let (client, mut connection) = match patience {
            Some(patience) => tokio::time::timeout(patience, pg.connect(tls))
                .await
                .map_err(|_| PgError::no_answer_connecting(patience))??,
            None => pg.connect(tls).await?,
        };
        let (wake, _) = broadcast::channel(1024);
        let notify = wake.clone();
        let driver = runtime.spawn(async move {
            // Its end (an error, or the client gone) is seen by the client's next call.
            while let Some(Ok(message)) = poll_fn(|cx| connection.poll_message(cx)).await {
                if let AsyncMessage::Notification(n) = message {
                    // No task waiting is no one to wake.
                    let _ = notify.send(Arc::from(n.payload()));
                }
            }
        });
        let mut session = Session {
            client,
            driver: Mutex::new(Some(driver)),
            gone: AtomicBool::new(false),
            patience,
            lanes_id: Arc::from(""),
            pid: 0,
            started: SystemTime::UNIX_EPOCH,
            key: 0,
            schema: schema.to_owned(),
            wake,
            listening: OnceCell::new(),
        };
        schema::migrate_with(&mut &session, schema).await?;
        let timeout = limit.map_or_else(String::new, |l| format!("{}ms", l.as_millis()));
        session
            .run(
                session
                    .client
                    .execute(statements::SESSION_SETTINGS, &[&schema, &timeout, &actor]),
            )
            .await?;
        // A random key for this session's lock; a live session holding the same key (a chance
        // of one in 2^64 per pair) only means drawing another.
        let row = loop {
            let row = session
                .run(session.client.query_one(statements::SESSION_IDENTITY, &[]))
                .await?;
            if row.try_get::<_, bool>(4)? {
                break row;
            }
        };
        session.lanes_id = Arc::from(row.try_get::<_, &str>(0)?);
        session.pid = row.try_get(1)?;
        session.started = row.try_get(2)?;
        session.key = row.try_get(3)?;
        Ok(session)
    }

    /// Awaits `work`, giving the server up (closing the connection) once the patience is spent.
    async fn run<T>(
        &self,
        work: impl Future<Output = Result<T, tokio_postgres::Error>>,
    ) -> Result<T, PgError> {
        if self.gone.load(Ordering::Acquire) {
            return Err(closed());
        }
        let Some(patience) = self.patience else {
            return Ok(work.await?);
        };
        match tokio::time::timeout(patience, work).await {
            Ok(answered) => Ok(answered?),
            Err(_) => {
                self.give_up();
                Err(PgError::no_answer(patience))
            }
        }
    }

    /// Closes the connection: every call fails from now on, and the server ends the session,
    /// which frees its lock, so recovery may take its lanes for dead.
    pub(crate) fn give_up(&self) {
        self.gone.store(true, Ordering::Release);
        if let Some(driver) = self
            .driver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            driver.abort();
        }
    }

    /// The task driving the connection, to wait for its goodbye once the client is dropped.
    pub(crate) fn take_driver(&self) -> Option<JoinHandle<()>> {
        self.driver
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }

    pub(crate) async fn query<T: ?Sized + ToStatement + Sync>(
        &self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, PgError> {
        self.run(self.client.query(statement, params)).await
    }

    pub(crate) async fn query_one<T: ?Sized + ToStatement + Sync>(
        &self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, PgError> {
        self.run(self.client.query_one(statement, params)).await
    }

    pub(crate) async fn query_opt<T: ?Sized + ToStatement + Sync>(
        &self,
        statement: &T,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, PgError> {
        self.run(self.client.query_opt(statement, params)).await
    }

    /// The notifications of this schema from now on; the first call sends `LISTEN`.
    pub(crate) async fn listen(&self) -> Result<broadcast::Receiver<Arc<str>>, PgError> {
        let receiver = self.wake.subscribe();
        self.listening
            .get_or_try_init(|| async {
                let listen = format!("LISTEN {}", self.schema);
                self.run(self.client.batch_execute(&listen)).await
            })
            .await?;
        Ok(receiver)
    }
}

fn closed() -> PgError {
    PgError::Database("08006".into(), "the connection is closed".into())
}

impl Sql for &Session {
    async fn query_one(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, PgError> {
        self.run(self.client.query_one(sql, params)).await
    }
    async fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, PgError> {
        self.run(self.client.execute(sql, params)).await
    }
    async fn batch_execute(&mut self, sql: &str) -> Result<(), PgError> {
        self.run(self.client.batch_execute(sql)).await
    }
}

impl Prepare for Session {
    async fn prepare(&self, sql: &str) -> Result<Statement, PgError> {
        self.run(self.client.prepare(sql)).await
    }
}
