//! "Edit as scenario": a record's operations, inputs and notes written back as a scenario file,
//! which `lane-records run` (or the playground) turns into the record again.
//!
//! A scenario says what to do, never what happened, so the answers and lanes a record saved are
//! left out: running the scenario asks the core again. A record made from a scenario comes back
//! byte for byte. A record of a running system's journal (version 2 or 3) keeps its operations,
//! but times, callers and its origin are not part of a scenario; one that names no untouched
//! project gets one added (a scenario needs it); one that starts with lanes already held, or
//! holds more than [`MAX_SCENARIO_STEPS`] steps, cannot be a scenario and is refused.
//!
//! ```
//! use lane_records::{edit, scenario::Scenario};
//!
//! let bytes = std::fs::read(lane_records::records_dir().join("busy-project.json"))?;
//! let record = lane_records::parse_record(&bytes)?;
//! let text = edit::scenario_text(&record)?;
//! let again = Scenario::parse("busy-project.toml".as_ref(), &text)?.output()?.1;
//! assert_eq!(again.bytes, bytes);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::fmt::{self, Write as _};

use project_lanes::record::{Field, Input, Record, Text, json, stream};

use crate::scenario::{MAX_SCENARIO_BYTES, MAX_SCENARIO_STEPS, SCENARIO_FORMAT, SCENARIO_VERSION};

/// Why a record cannot be written as a scenario.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError {
    /// A stable code: the reader's (`INVALID_JSON`, `INVALID_RECORD`, …) for bytes that are
    /// not a record, `RECORD_HAS_START`, `SCENARIO_TOO_MANY_STEPS`, `RECORD_MIXES_OPERATIONS`
    /// or `SCENARIO_TOO_LARGE`.
    pub code: &'static str,
    /// What is wrong, for a person.
    pub message: String,
}

impl fmt::Display for EditError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for EditError {}

/// Reads a record file's bytes (a JSON document, versions 1 and 2, or JSON lines, version 3,
/// at most `limit` bytes) with the core's readers and writes it as a scenario. A version 3
/// record is read only as far as its first [`MAX_SCENARIO_STEPS`] + 1 steps.
pub fn scenario_of_bytes(bytes: &[u8], limit: u64) -> Result<String, EditError> {
    scenario_text(&record_of_bytes(bytes, limit)?)
}

/// The record [`scenario_of_bytes`] writes as a scenario, read as it reads it.
pub fn record_of_bytes(bytes: &[u8], limit: u64) -> Result<Record, EditError> {
    let read = |e: json::ReadError| EditError {
        code: e.code(),
        message: e.to_string(),
    };
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    if first.len() < bytes.len() && json::is_lines(first) {
        let mut reader = stream::Reader::new().limit(limit);
        let mut gather = stream::Gather::new();
        let mut steps = 0usize;
        for chunk in bytes.chunks(1 << 16) {
            reader
                .feed(chunk, &mut |seen| {
                    if matches!(
                        seen,
                        stream::Seen::Item {
                            item: stream::Item::Step(..),
                            ..
                        }
                    ) {
                        steps += 1;
                    }
                    gather.seen(seen)
                })
                .map_err(read)?;
            if steps > MAX_SCENARIO_STEPS {
                return Err(too_many(steps, "at least "));
            }
        }
        reader.finish(&mut |seen| gather.seen(seen)).map_err(read)?;
        return Ok(gather.record());
    }
    json::parse_record(bytes).map_err(read)
}

fn too_many(steps: usize, at_least: &str) -> EditError {
    EditError {
        code: "SCENARIO_TOO_MANY_STEPS",
        message: format!(
            "the record holds {at_least}{steps} steps; a scenario holds at most {MAX_SCENARIO_STEPS} operations"
        ),
    }
}

/// The scenario that asks the core what `record` asked it, with the record's titles and notes.
pub fn scenario_text(record: &Record) -> Result<String, EditError> {
    if record.start.is_some() {
        return Err(EditError {
            code: "RECORD_HAS_START",
            message: "the record starts with lanes or reservations already held; a scenario \
                      starts from idle lanes, so it cannot ask for this record"
                .into(),
        });
    }
    if record.steps.len() > MAX_SCENARIO_STEPS {
        return Err(too_many(record.steps.len(), ""));
    }
    let dispatcher = !record.queues.is_empty();
    if let Some((n, step)) = record.steps.iter().enumerate().find(|(_, s)| {
        s.op.dispatcher_only()
            .is_some_and(|only| only != dispatcher)
    }) {
        let (kind, other) = if dispatcher {
            ("queues", "a lane operation")
        } else {
            ("no queues", "a dispatcher operation")
        };
        return Err(EditError {
            code: "RECORD_MIXES_OPERATIONS",
            message: format!(
                "step {} is `{}`, {other}, in a record with {kind}: a scenario holds the \
                 operations of the lanes or of a dispatcher, never both",
                n + 1,
                step.op
            ),
        });
    }
    let mut out = String::new();
    let mut projects: Vec<&str> = record.projects.iter().map(|p| p.as_str()).collect();
    let added;
    let untouched = match record.untouched_project.get() {
        Some(project) => project.as_str(),
        None => {
            added = free_name(&projects);
            projects.push(&added);
            &added
        }
    };
    let journal = record.origin.is_some()
        || record
            .steps
            .iter()
            .any(|s| s.at.is_some() || s.actor.is_some());
    if journal {
        out.push_str(
            "# Times, callers and where the record came from are not part of a scenario: they \
             are left out.\n",
        );
    }
    if record.untouched_project.is_none() {
        let _ = writeln!(
            out,
            "# \"{untouched}\" is added: a scenario names a project that no step touches."
        );
    }
    let _ = writeln!(out, "format = {}", quoted(SCENARIO_FORMAT));
    let _ = writeln!(out, "version = {SCENARIO_VERSION}");
    let _ = writeln!(out, "id = {}", quoted(&record.id));
    let _ = writeln!(out, "projects = {}", list(&projects));
    let _ = writeln!(out, "untouched_project = {}", quoted(untouched));
    if !record.queues.is_empty() {
        let queues: Vec<&str> = record.queues.iter().map(|q| q.as_str()).collect();
        let _ = writeln!(out, "queues = {}", list(&queues));
    }
    for (name, text) in [("title", &record.title), ("summary", &record.summary)] {
        let _ = write!(out, "\n[{name}]\n");
        texts(&mut out, "", text);
    }
    for step in &record.steps {
        let _ = write!(out, "\n[[steps]]\nop = {}\n", quoted(step.op.as_str()));
        for &field in step.op.fields() {
            if let Some(value) = value(&step.input, field) {
                let _ = writeln!(out, "{} = {value}", field.as_str());
            }
        }
        if let Some(note) = &step.note {
            texts(&mut out, "note.", note);
        }
    }
    if out.len() as u64 > MAX_SCENARIO_BYTES {
        return Err(EditError {
            code: "SCENARIO_TOO_LARGE",
            message: format!(
                "as a scenario the record would be {} bytes; a scenario may be at most \
                 {MAX_SCENARIO_BYTES} bytes (4 MiB)",
                out.len()
            ),
        });
    }
    Ok(out)
}

/// `en = "…"` and `ja = "…"`, each key after `prefix`.
fn texts(out: &mut String, prefix: &str, text: &Text) {
    let _ = writeln!(out, "{prefix}en = {}", quoted(&text.en));
    let _ = writeln!(out, "{prefix}ja = {}", quoted(&text.ja));
}

/// An input field as a TOML value, if the step has it.
fn value(input: &Input, field: Field) -> Option<String> {
    let text = match field {
        Field::Queue => &input.queue,
        Field::Reservation => &input.reservation,
        Field::Project => &input.project,
        Field::Run => &input.run,
        Field::Lease => &input.lease,
        Field::Outcome => &input.outcome,
        Field::Saved => return input.saved.map(|b| b.to_string()),
    };
    text.as_deref().map(quoted)
}

/// A TOML string holding exactly `text` (escaped as the `toml` crate writes it).
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn list(items: &[&str]) -> String {
    let items: Vec<String> = items.iter().map(|s| quoted(s)).collect();
    format!("[{}]", items.join(", "))
}

/// A project name the record does not use: `untouched`, else `untouched-2`, `untouched-3`, …
fn free_name(projects: &[&str]) -> String {
    (1..)
        .map(|n| match n {
            1 => "untouched".to_string(),
            n => format!("untouched-{n}"),
        })
        .find(|name| !projects.contains(&name.as_str()))
        .unwrap_or_default()
}
