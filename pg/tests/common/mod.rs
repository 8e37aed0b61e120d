//! What the PostgreSQL tests share: the database to use and fresh schemas in it.
#![allow(dead_code)] // each test file uses part of it

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
