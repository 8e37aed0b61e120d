//! Version 3 of the record format: lines, read and written one at a time.
//!
//! A version 3 record is UTF-8 text, one JSON object per line: the [`Head`] first, then the
//! start (the dispatcher's queues, and what was held before the first step: leases and
//! reservations, each on its own line), then the steps, each with its time, caller, operation,
//! inputs and answer, and an [end line](End) that counts them. Actors are named once, on lines
//! of their own, and steps call them by number; a lease or a settled reservation from before
//! the record's start that a later step names is declared on a line of its own where it is
//! first needed. There are no snapshots: the state after any step is what replay computes, so
//! a record grows with its steps alone. Direct lane operations and the dispatcher's live in one
//! record and replay on one core ([`Engine`]), as they share lanes on PostgreSQL. Nothing in the
//! format caps projects, queues, steps or bytes; a reader may ([`Reader::limit`]).
//!
//! `records/README.md` documents the lines field by field, `records/lines.schema.json` is their
//! JSON Schema.

mod check;
mod engine;
mod gather;
mod line;
mod proof;
mod read;
mod write;

pub use crate::record::VERSION_3;
pub use engine::Engine;
pub use gather::Gather;
pub use line::{Answer, ChainLine, End, Head, Item, Line, Proof, Step};
pub use proof::{Chain, Chained, Checkpointed};
pub use read::{DEFAULT_MAX_BYTES, MAX_LINE_BYTES, Mismatch, Reader, Seen, Verdict};
pub use write::Writer;
