//! What the PostgreSQL tests share: the database to use and fresh schemas in it.
#![allow(dead_code)] // each test file uses part of it

pub mod pre_release;
pub mod roles;

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use project_lanes_pg::{PgDispatcher, PgError, PgLanes};

/// The connection string from `LANES_PG_URL`, which `cargo xtask test` sets for a throwaway
/// cluster. Without it the tests fail: they need a real database.
pub fn url() -> String {
    std::env::var("LANES_PG_URL").unwrap_or_else(|_| {
        panic!(
            "LANES_PG_URL is not set: the PostgreSQL tests need a database. Run `cargo xtask \
             test`, which starts a throwaway cluster, or set LANES_PG_URL to a connection string \
             of a database where the tests may create schemas"
        )
    })
}

/// `url()` with one more connection parameter (a later one wins over an earlier one).
pub fn url_with(key: &str, value: &str) -> String {
    let base = url();
    if base.starts_with("postgres://") || base.starts_with("postgresql://") {
        let separator = if base.contains('?') { '&' } else { '?' };
        format!("{base}{separator}{key}={value}")
    } else {
        format!("{base} {key}={value}")
    }
}

/// A schema name no other test (in this process or another) uses.
pub fn fresh_schema() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() % 1_000_000_000_000);
    format!(
        "t{}_{}_{}",
        std::process::id(),
        nanos,
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// New, empty lanes in a schema of their own.
pub fn fresh_lanes() -> PgLanes {
    PgLanes::connect(&url(), &fresh_schema()).expect("connect to the test database")
}

/// A new, empty dispatcher with these queues, in a schema of its own.
pub fn fresh_dispatcher(queues: &[&str]) -> Result<PgDispatcher, PgError> {
    PgDispatcher::connect(&url(), &fresh_schema(), queues)
}

/// A process of `lanes-pg-test-process`, spoken to line by line; killed when dropped.
pub struct TestProcess {
    child: std::process::Child,
    out: std::io::BufReader<std::process::ChildStdout>,
}

impl TestProcess {
    /// Starts `lanes-pg-test-process args…` with piped stdin and stdout.
    pub fn start(args: &[&str]) -> TestProcess {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_lanes-pg-test-process"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("start lanes-pg-test-process");
        let out = std::io::BufReader::new(child.stdout.take().expect("piped stdout"));
        TestProcess { child, out }
    }

    /// The next line it prints (without the newline); panics if it ends first.
    pub fn line(&mut self) -> String {
        let mut line = String::new();
        std::io::BufRead::read_line(&mut self.out, &mut line).expect("read from the process");
        assert!(!line.is_empty(), "the process ended without a word");
        line.trim_end().to_owned()
    }

    /// Sends one line to its stdin.
    pub fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().expect("piped stdin");
        std::io::Write::write_all(stdin, format!("{line}\n").as_bytes())
            .expect("write to the process");
    }

    /// Waits for it to exit and checks that it succeeded.
    pub fn succeeds(mut self) {
        let status = self.child.wait().expect("wait for the process");
        assert!(status.success(), "the process failed: {status}");
    }

    /// SIGKILL, and wait for it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for TestProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Runs `recover` (through `recover`) until it marks something (the server drops a dead session
/// a moment after its client is gone), for at most ten seconds.
pub fn recover_until_marked(
    mut recover: impl FnMut() -> project_lanes_pg::Recovery,
) -> project_lanes_pg::Recovery {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let recovery = recover();
        if !recovery.is_empty() || std::time::Instant::now() > deadline {
            return recovery;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Runs the operator's `lanes-pg args…`: its exit code, stdout and stderr.
pub fn lanes_pg(args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_lanes-pg-tool"))
        .args(args)
        .output()
        .expect("run lanes-pg");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// How many rows `schema`'s journal holds.
pub fn journal_rows(schema: &str) -> i64 {
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .query_one(&format!("SELECT count(*) FROM {schema}.lanes_journal"), &[])
        .unwrap()
        .get(0)
}
