//! Writing a version 3 record a line at a time, to any `io::Write`: a writer appends, and never
//! goes back.

use std::io::{self, Write};

use serde::Serialize;

use crate::Label;
use crate::dispatch::ReservationView;
use crate::record::StartLease;
use crate::time::Timestamp;

use super::line::{End, Head, Line, Step};

/// Writes a version 3 record: the head when made, then declarations and steps in order, then
/// [`end`](Writer::end). A step's time is written as `dt` after a step that has one, else as
/// `at`. The lines are compact JSON in a fixed key order, each ended by `\n`.
///
/// ```
/// use project_lanes::record::stream::{Answer, Head, Step, Writer, VERSION_3};
/// use project_lanes::Label;
/// use project_lanes::record::{FORMAT, Input, Op, Text};
///
/// let head = Head {
///     format: FORMAT.into(),
///     version: VERSION_3,
///     id: Label::new("tiny")?,
///     title: Text { en: "Tiny".into(), ja: "小さな記録".into() },
///     summary: Text { en: "One claim.".into(), ja: "取得が一つ。".into() },
///     work_executed_here: false,
///     origin: None,
/// };
/// let mut writer = Writer::new(Vec::new(), &head)?;
/// let input = Input { project: Some("docs".into()), run: Some("nightly-7".into()), ..Input::default() };
/// writer.step(&Step { op: Op::Claim, at: None, by: None, input, answer: Answer::Ok, note: None })?;
/// let bytes = writer.end()?;
/// assert!(bytes.ends_with(b"{\"op\":\"claim\",\"project\":\"docs\",\"run\":\"nightly-7\",\"result\":\"ok\"}\n{\"end\":{\"steps\":1}}\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Writer<W: Write> {
    out: W,
    /// The time of the step before, if it had one.
    previous: Option<Timestamp>,
    steps: u64,
    actors: u64,
}

impl<W: Write> Writer<W> {
    /// A writer that has written `head` to `out`.
    pub fn new(out: W, head: &Head) -> io::Result<Writer<W>> {
        let mut writer = Writer {
            out,
            previous: None,
            steps: 0,
            actors: 0,
        };
        writer.write(head)?;
        Ok(writer)
    }

    /// Declares a queue of the dispatcher (before any lease, reservation or step).
    pub fn queue(&mut self, queue: &Label) -> io::Result<()> {
        self.write(&Line {
            queue: Some(queue.to_string()),
            ..Line::default()
        })
    }

    /// Names the next actor; returns its number, for the steps it calls.
    pub fn actor(&mut self, name: &str) -> io::Result<u64> {
        self.actors += 1;
        let id = self.actors;
        self.write(&Line {
            actor: Some(id),
            name: Some(name.to_owned()),
            ..Line::default()
        })?;
        Ok(id)
    }

    /// A lease held before the first step, or one released before it that a later step names.
    pub fn lease(&mut self, lease: &StartLease) -> io::Result<()> {
        self.write(&Line {
            lease: Some(lease.handle.clone()),
            project: Some(lease.project.to_string()),
            run: Some(lease.run.to_string()),
            state: Some(lease.state.as_str().to_owned()),
            ..Line::default()
        })
    }

    /// A reservation present before the first step, or settled before a step that names it.
    pub fn reservation(&mut self, view: &ReservationView) -> io::Result<()> {
        self.write(&Line {
            reservation: Some(view.id.to_string()),
            queue: Some(view.queue.to_string()),
            project: Some(view.project.to_string()),
            run: Some(view.run.to_string()),
            state: Some(view.state.as_str().to_owned()),
            outcome: view.outcome.map(|o| o.as_str().to_owned()),
            ..Line::default()
        })
    }

    /// A step.
    pub fn step(&mut self, step: &Step) -> io::Result<()> {
        let mut line = Line::from(step);
        if let (Some(at), Some(previous)) = (step.at, self.previous) {
            line.at = None;
            line.dt = Some(at.millis() as i64 - previous.millis() as i64);
        }
        self.previous = step.at;
        self.steps += 1;
        self.write(&line)
    }

    /// The steps written so far.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// Writes the end line, flushes, and hands `out` back.
    pub fn end(mut self) -> io::Result<W> {
        let steps = self.steps;
        self.write(&Line {
            end: Some(End { steps }),
            ..Line::default()
        })?;
        self.out.flush()?;
        Ok(self.out)
    }

    fn write(&mut self, value: &impl Serialize) -> io::Result<()> {
        let mut line = serde_json::to_vec(value).map_err(io::Error::other)?;
        line.push(b'\n');
        self.out.write_all(&line)
    }
}
