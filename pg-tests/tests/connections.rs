//! Connecting: errors that keep their cause, and time limits for a server that does not answer.

mod common;

use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use project_lanes::Outcome;
use project_lanes_pg::{PgConfig, PgLanes};

use common::{fresh_schema, url, url_with};

/// A local TCP port where nothing listens.
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn connection_errors_keep_their_cause() {
    let missing_folder = PgLanes::connect("host=/nonexistent-folder user=nobody", "lanes")
        .unwrap_err()
        .to_string();
    assert!(
        missing_folder.starts_with("DATABASE: 08000: error connecting to server: ")
            && missing_folder.contains("No such file or directory"),
        "{missing_folder}"
    );
    let refused = PgLanes::connect(
        &format!("host=127.0.0.1 port={} user=nobody", closed_port()),
        "lanes",
    )
    .unwrap_err()
    .to_string();
    assert!(refused.contains("Connection refused"), "{refused}");
    let bad_port = PgLanes::connect("host=127.0.0.1 port=seventy user=nobody", "lanes")
        .unwrap_err()
        .to_string();
    assert!(
        bad_port.contains("invalid connection string") && bad_port.contains("port"),
        "{bad_port}"
    );
}

#[test]
fn connection_errors_never_show_the_password() {
    for url in [
        "host=/nonexistent-folder user=nobody password=hunter2-secret",
        "postgresql://nobody:hunter2-secret@127.0.0.1:1/db",
        "host=127.0.0.1 port=x password=hunter2-secret",
    ] {
        let error = PgLanes::connect(url, "lanes").unwrap_err();
        let text = format!("{error} {error:?}");
        assert!(!text.contains("hunter2"), "{text}");
    }
}

/// A process stopped with SIGSTOP, continued with SIGCONT when this is dropped — also when a
/// test fails while it is stopped.
struct Stopped(i32);

impl Stopped {
    fn new(pid: i32) -> Stopped {
        // SAFETY: kill(2) takes plain integers.
        let sent = unsafe { libc::kill(pid, libc::SIGSTOP) };
        assert_eq!(
            sent,
            0,
            "cannot stop backend {pid} (the test must run as root or as the server's user): {}",
            std::io::Error::last_os_error()
        );
        Stopped(pid)
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        // SAFETY: kill(2) takes plain integers.
        unsafe { libc::kill(self.0, libc::SIGCONT) };
    }
}

/// The pid of the one backend whose `application_name` is `name`.
fn backend_pid(name: &str) -> i32 {
    let mut admin = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    admin
        .query_one(
            "SELECT pid FROM pg_stat_activity WHERE application_name = $1",
            &[&name],
        )
        .unwrap()
        .get(0)
}

/// Runs `f` on a thread of its own; its result, or `None` if it takes longer than `limit`
/// (the thread is left behind).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (sent, received) = mpsc::channel();
    thread::spawn(move || sent.send(f()));
    received.recv_timeout(limit).ok()
}

/// Far beyond any time limit below: reaching it means there was none.
const FOREVER: Duration = Duration::from_secs(30);

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_frozen_backend_fails_the_operation_after_the_time_limit() {
    let schema = fresh_schema();
    // The schema is made without a limit: only the claim is timed.
    let observer = PgLanes::connect(&url(), &schema).unwrap();
    let name = format!("frozen_{schema}");
    let config = PgConfig::new(&url_with("application_name", &name), &schema)
        .timeout(Duration::from_millis(300));
    let lanes = Arc::new(PgLanes::connect_with(&config).unwrap());
    let frozen = Stopped::new(backend_pid(&name));
    let claiming = Arc::clone(&lanes);
    let claimed = within(FOREVER, move || claiming.claim("docs", "job-1").map(drop));
    drop(frozen); // SIGCONT, before any assertion can fail
    let error = claimed
        .expect("the claim waited for the frozen backend beyond its time limit")
        .unwrap_err();
    let text = error.to_string();
    assert!(
        text.starts_with("DATABASE: 08006: no answer from the server within 1300 ms"),
        "{text}"
    );
    // The handle gave its connection up.
    assert_eq!(
        lanes.view("docs").unwrap_err().to_string(),
        "DATABASE: 08006: the connection is closed"
    );
    // Resumed, the backend finds its client gone; whether it ran the claim first is unknown, so
    // the lane is either idle or held by a dead session, which recovery marks.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let recovery = observer.recover().unwrap();
        if !recovery.is_empty() {
            assert_eq!(recovery.orphans[0].run.as_str(), "job-1");
            break;
        }
        let gone: i64 = postgres::Client::connect(&url(), postgres::NoTls)
            .unwrap()
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
                &[&name],
            )
            .unwrap()
            .get(0);
        if gone == 0 && !observer.view("docs").unwrap().busy {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the frozen session never ended"
        );
        thread::sleep(Duration::from_millis(20));
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_statement_that_waits_past_the_limit_is_cancelled_by_the_server_and_the_handle_goes_on() {
    let schema = fresh_schema();
    PgLanes::connect(&url(), &schema).unwrap(); // the schema, made without a limit
    // Long enough for any statement that does not wait, however busy the machine.
    let config = PgConfig::new(&url(), &schema).timeout(Duration::from_secs(2));
    let lanes = PgLanes::connect_with(&config).unwrap();
    let first = lanes.claim("docs", "job-1").unwrap();
    lanes.release(&first, Outcome::Succeeded).unwrap();
    // Another session holds the lane's row and does not let go.
    let mut blocker = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let mut tx = blocker.transaction().unwrap();
    tx.execute(
        &format!("SELECT 1 FROM {schema}.lanes WHERE project = 'docs' FOR UPDATE"),
        &[],
    )
    .unwrap();
    let error = lanes.claim("docs", "job-2").unwrap_err();
    assert!(
        error.to_string().starts_with("DATABASE: 57014: "),
        "{error}"
    );
    // Nothing changed and the handle is fine.
    lanes.claim("site", "job-3").unwrap();
    tx.rollback().unwrap();
    assert_eq!(lanes.claim("docs", "job-2").unwrap().generation(), 2);
}

#[test]
fn a_server_that_never_answers_fails_the_connect_after_the_time_limit() {
    // Connections complete in the kernel's backlog; nobody ever reads from them.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!(
        "host=127.0.0.1 port={} user=nobody",
        silent.local_addr().unwrap().port()
    );
    let config = PgConfig::new(&url, "lanes").timeout(Duration::from_millis(200));
    let connected = within(FOREVER, move || PgLanes::connect_with(&config).map(drop));
    let error = connected
        .expect("the connect waited beyond its time limit")
        .unwrap_err();
    assert!(
        error.to_string().starts_with("DATABASE: 08006: no answer"),
        "{error}"
    );
    // lanes-pg takes the same limit from --timeout, for the handle's commands and for those
    // that read the journal on a plain connection.
    for command in ["orphans", "export", "audit"] {
        let url = url.clone();
        let (code, _, err) = within(FOREVER, move || {
            common::lanes_pg(&["--timeout", "0.2", command, &url, "lanes"])
        })
        .unwrap_or_else(|| panic!("lanes-pg {command} waited beyond its time limit"));
        assert_eq!(code, Some(1), "{command}: {err}");
        assert!(
            err.starts_with("lanes-pg: DATABASE: 08006: no answer"),
            "{command}: {err}"
        );
    }
    drop(silent);
}

#[test]
fn a_time_limit_below_a_millisecond_or_beyond_postgresqls_is_a_config_error() {
    let days_25 = Duration::from_secs(25 * 24 * 3600);
    for limit in [
        Duration::ZERO,
        Duration::from_micros(999),
        days_25,
        Duration::MAX,
    ] {
        let error =
            PgLanes::connect_with(&PgConfig::new("host=/nonexistent", "lanes").timeout(limit))
                .unwrap_err();
        assert_eq!(error.code(), "CONFIG", "{error}");
    }
    let config =
        PgConfig::new("postgresql://app:hunter2@db/app", "lanes").timeout(Duration::from_secs(5));
    assert_eq!(
        format!("{config:?}"),
        "PgConfig { schema: \"lanes\", timeout: Some(5s), ssl_mode: Prefer, .. }"
    );
    for bad in ["", "0", "-1", "soon", "NaN", "inf", "1e300", "3000000"] {
        let (code, _, err) =
            common::lanes_pg(&["--timeout", bad, "orphans", "host=/nonexistent", "lanes"]);
        assert_eq!(code, Some(2), "--timeout {bad:?}: {err}");
        assert!(err.contains("--timeout"), "{err}");
    }
}
