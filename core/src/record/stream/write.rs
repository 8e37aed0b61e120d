//! Writing a version 3 record a line at a time, to any `io::Write`: a writer appends, and never
//! goes back.

use std::io::{self, Write};

use serde::Serialize;

use crate::Label;
use crate::dispatch::ReservationView;
use crate::record::StartLease;
use crate::time::Timestamp;

use crate::record::chain::{ChainHead, Hash};

use super::line::{ChainLine, End, Head, Line, Step};

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
/// writer.step(&Step { op: Op::Claim, at: None, by: None, input, answer: Answer::Ok, note: None, proof: None })?;
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
    /// A chained record's last link, for the end line.
    root: Option<ChainHead>,
}

impl<W: Write> Writer<W> {
    /// A writer that has written `head` to `out`.
    pub fn new(out: W, head: &Head) -> io::Result<Writer<W>> {
        let mut writer = Writer {
            out,
            previous: None,
            steps: 0,
            actors: 0,
            root: None,
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

    /// A lease held before the first step, or one released before it that a later step names
    /// (in a chained record, with its `generation` in the system).
    pub fn lease(&mut self, lease: &StartLease, generation: Option<u64>) -> io::Result<()> {
        self.write(&Line {
            lease: Some(lease.handle.clone()),
            project: Some(lease.project.to_string()),
            run: Some(lease.run.to_string()),
            state: Some(lease.state.as_str().to_owned()),
            g: generation,
            ..Line::default()
        })
    }

    /// A reservation present before the first step, or settled before a step that names it
    /// (in a chained record, with the system's id `sid`).
    pub fn reservation(&mut self, view: &ReservationView, sid: Option<u64>) -> io::Result<()> {
        self.write(&Line {
            reservation: Some(view.id.to_string()),
            queue: Some(view.queue.to_string()),
            project: Some(view.project.to_string()),
            run: Some(view.run.to_string()),
            state: Some(view.state.as_str().to_owned()),
            outcome: view.outcome.map(|o| o.as_str().to_owned()),
            sid,
            ..Line::default()
        })
    }

    /// The chain line: the chain before the first step (a chained record's, before any lease,
    /// reservation or step).
    pub fn chain(&mut self, head: ChainHead) -> io::Result<()> {
        self.root = Some(head);
        self.write(&Line {
            chain: Some(ChainLine {
                links: head.links,
                hash: head.hash.to_hex(),
            }),
            ..Line::default()
        })
    }

    /// A link line: the link of a journal entry the record leaves out.
    pub fn link(&mut self, hash: Hash) -> io::Result<()> {
        self.write(&Line {
            link: Some(hash.to_hex()),
            ..Line::default()
        })
    }

    /// The checkpoint line (after the last step): a checkpoint of the journal at the record's
    /// root, and the verifier key of its signer.
    pub fn checkpoint(&mut self, note: &str, key: Option<&str>) -> io::Result<()> {
        self.write(&Line {
            checkpoint: Some(note.to_owned()),
            key: key.map(str::to_owned),
            ..Line::default()
        })
    }

    /// The chained record's root, for the end line.
    pub fn root(&mut self, head: ChainHead) {
        self.root = Some(head);
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
        let root = self.root;
        self.write(&Line {
            end: Some(End {
                steps,
                links: root.map(|r| r.links),
                root: root.map(|r| r.hash.to_hex()),
            }),
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
