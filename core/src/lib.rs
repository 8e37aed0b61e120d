//! # project-lanes
//!
//! One occupied place per project. A run [claims](ProjectLanes::claim) its project's lane and
//! receives a [`Lease`] carrying a private ownership token; while the lease holds the lane, every
//! other claim of that project is refused with [`LaneError::ProjectBusy`], and other projects go on
//! independently. A [stop request](ProjectLanes::request_stop) is recorded but keeps the lane
//! occupied. Only the current lease [releases](ProjectLanes::release) the lane, with an explicit
//! [`Outcome`], and gets a [`Receipt`]; a late cleanup from an older run is refused with
//! [`LaneError::LeaseNotCurrent`] and can never erase a newer owner.
//!
//! ```
//! use project_lanes::{LaneError, LaneState, Outcome, ProjectLanes};
//!
//! let lanes = ProjectLanes::new();
//! let lease = lanes.claim("docs", "nightly-7")?;
//! lanes.request_stop(&lease)?;
//! assert_eq!(lanes.view("docs")?.state, Some(LaneState::StopRequested));
//!
//! // The run finished before it saw the stop request: success is still allowed.
//! let receipt = lanes.release(&lease, Outcome::Succeeded)?;
//! assert!(receipt.stop_requested);
//! assert!(!receipt.work_executed_here);
//! # Ok::<(), LaneError>(())
//! ```
//!
//! Around the lanes:
//!
//! - [`dispatch`]: a sans-IO dispatcher that lets several named queues share the lanes, keeps
//!   per-project order within each queue, and holds a project until its final state is saved;
//! - [`backend`]: the contract as traits ([`backend::Lanes`], [`backend::Queues`]), so one test
//!   suite runs against this crate and against `project-lanes-pg`, the PostgreSQL backend;
//! - [`record`]: the versioned record format of saved examples, its checks, and [`record::replay`];
//! - [`journal`]: what a running system did (feature `journal` keeps one on the lanes and the
//!   dispatcher), exported as records that replay.
//!
//! ## What this crate is not
//!
//! - **Not an executor.** The lanes hold metadata; they run nothing, and a receipt does not certify
//!   that work succeeded. Worker threads that call your functions are another crate's
//!   (`project-lanes-runner`): this one has no threads, no clocks and no I/O, so it runs step by
//!   step in tests and compiles to WebAssembly.
//! - **Not a queue by itself.** A busy project is refused by the lanes, not queued; queues are the
//!   dispatcher's, and nothing is ever replayed automatically.
//! - **Not durable or cross-process.** Occupancy lives in memory and ends with the process.
//!   `project-lanes-pg` keeps the same contract in PostgreSQL for many processes and hosts.
//! - **Not a security boundary.** The token prevents accidental cross-run calls inside one process;
//!   untrusted callers need authentication and a process boundary.

#![deny(unsafe_code)]
#![warn(missing_docs)]

// The ground: labels, outcomes, errors, views, times, operations, reservations, transitions.
mod error;
mod label;
mod op;
mod outcome;
mod reservation;
mod time;
mod transition;
mod view;

// On the ground, each floor uses only those below it: the lanes, the dispatcher over them,
// records replayed on either, journals exported as records.
pub mod backend;
pub mod dispatch;
pub mod journal;
mod lanes;
pub mod record;

pub use error::LaneError;
pub use label::{Label, MAX_LABEL_LEN, is_valid_label, validate_label};
pub use lanes::{Lease, ProjectLanes};
pub use outcome::Outcome;
pub use view::{LaneState, LaneView, Receipt};

/// The crate's own README (its page on crates.io), run as a doctest so it stays true. (The
/// workspace README's examples are whole programs, built and run by `records/tests/examples.rs`.)
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
