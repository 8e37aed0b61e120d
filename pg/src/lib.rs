//! # project-lanes-pg
//!
//! The lanes and queues of [`project_lanes`] kept in PostgreSQL, so many processes on many
//! hosts share them and a crash loses nothing. They keep the core's contract exactly, with the
//! same error codes, in two shapes:
//!
//! - **async, for tokio services**: [`AsyncPgLanes`] (claim, claim_within, request_stop,
//!   release, view) and [`AsyncPgDispatcher`] (queues of durable reservations, dispatch_within).
//!   One handle is one session that any number of tasks share; waiting is woken by
//!   `LISTEN`/`NOTIFY`; every method is cancel safe (each type's docs say how).
//! - **blocking, for threads**: [`PgLanes`] and [`PgDispatcher`], the async handles on a runtime
//!   of their own. They work from plain threads and from inside a tokio runtime alike (there they
//!   hold the calling thread for a round trip), and implement the core's
//!   [`backend`](project_lanes::backend) traits, so one test suite runs against both backends.
//!
//! ```no_run
//! use project_lanes::Outcome;
//! use project_lanes_pg::AsyncPgLanes;
//!
//! # async fn service() -> Result<(), project_lanes_pg::PgError> {
//! let lanes = AsyncPgLanes::connect("host=/run/postgresql user=app dbname=app", "lanes").await?;
//! let lease = lanes.claim("docs", "nightly-7").await?;
//! // Every other task and process on this database now gets PROJECT_BUSY for docs.
//! let receipt = lanes.release(&lease, Outcome::Succeeded).await?;
//! assert!(!receipt.work_executed_here);
//! # Ok(()) }
//! ```
//!
//! ```no_run
//! use project_lanes::Outcome;
//! use project_lanes_pg::PgLanes;
//!
//! let lanes = PgLanes::connect("host=/run/postgresql user=app dbname=app", "lanes")?;
//! let lease = lanes.claim("docs", "nightly-7")?;
//! let receipt = lanes.release(&lease, Outcome::Succeeded)?;
//! assert!(!receipt.work_executed_here);
//! # Ok::<(), project_lanes_pg::PgError>(())
//! ```
//!
//! Each claim gets a fencing [generation](PgLease::generation) that only grows per project.
//! When a process dies holding a lane, [`PgLanes::recover`] (also run by
//! [`PgDispatcher::connect`]) marks it for a person to look at; nothing is released as if
//! finished and nothing is replayed ([`recover`]).
//!
//! With the dispatcher (the example of the guide's PostgreSQL chapter):
//!
//! ```no_run
//! use project_lanes::Outcome;
//! use project_lanes_pg::{PgDispatcher, PgLanes};
//!
//! fn main() -> Result<(), project_lanes_pg::PgError> {
//!     // A libpq connection string or URL; the second argument is the schema holding the lanes.
//!     let url = "host=/run/postgresql user=app dbname=app"; // or postgresql://app@db.example/app
//!     let lanes = PgLanes::connect(url, "lanes")?;
//!     let lease = lanes.claim("docs", "nightly-7")?; // PROJECT_BUSY in every other process now
//!     println!("generation {}", lease.generation());
//!     lanes.release(&lease, Outcome::Succeeded)?;
//!
//!     let mut d = PgDispatcher::connect(url, "lanes", &["general", "delivery"])?; // runs recover
//!     let id = d.enqueue("general", "docs", "gen-1")?;
//!     if let Some(job) = d.dispatch("general")? {
//!         d.finish(job.reservation, Outcome::Succeeded)?; // then save the final state…
//!         d.persisted(id, true)?; // …and only then is the lane released
//!     }
//!     Ok(())
//! }
//! ```
//!
//! TLS, as libpq's `sslmode` (`prefer` by default, `verify-full` across a network) with
//! `sslrootcert`, `sslcert` and `sslkey`, in the connection string or on [`PgConfig`]
//! ([`SslMode`], [`RootCerts`]); rustls, so no OpenSSL:
//! `postgresql://app@db.example.com/app?sslmode=verify-full&sslrootcert=/etc/ssl/ca.pem`.
//!
//! Time limits, for a server that may freeze or vanish: [`PgConfig::timeout`]. What a schema
//! holds now, for an operator (which lanes, by whom, since when, which holders are gone, what
//! waits in each queue): [`status::read`].
//!
//! ## What this crate is not
//!
//! - **Not an executor**, like the core: it records who holds what; it runs nothing.
//! - **Not a pool, and no need for one.** A handle is one connection, one session, which its
//!   clones and every task (or thread) using it share: their statements are pipelined on the one
//!   connection, so hundreds of concurrent runs need one handle, not hundreds of connections.
//!   Every lane a handle takes is recorded as held by its session (its backend and the key of
//!   an advisory lock the session holds while it lives); recovery takes a holder for dead once
//!   its session has ended, which is why a handle never moves its leases to another
//!   connection. Open more handles only to spread load over more server backends, or to keep
//!   one process's failure domain apart from another's.
//! - **Not a security boundary.** Anyone who can write to the schema can change the lanes; the
//!   tokens protect against mistakes, not against a hostile database user.

#![deny(unsafe_code)]
#![warn(missing_docs)]

mod blocking;
mod config;
mod conninfo;
mod detach;
mod error;
pub mod journal;
mod lanes;
mod queues;
pub mod recover;
mod rows;
pub mod schema;
mod session;
mod statements;
pub mod status;
mod tls;
mod wake;

pub use blocking::lanes::PgLanes;
pub use blocking::queues::PgDispatcher;
pub use config::PgConfig;
pub use error::PgError;
pub use lanes::{AsyncPgLanes, PgLease};
pub use queues::{AsyncPgDispatcher, Dispatched};
pub use recover::{Marked, Orphan, Recovery};
pub use tls::{RootCerts, SslMode};

/// The crate's README (its page on crates.io), compiled as a doctest so it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
