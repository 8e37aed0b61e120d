//! Reading a version 3 record front to back, a chunk at a time: every line parsed, checked and
//! replayed on the core as it arrives, so no reader holds the file, and the verdict is the same
//! for the same bytes however they are cut into chunks.
//!
//! The verdict: the first line that breaks the format (located by line and column) makes the
//! record invalid, wherever it is; otherwise the first step whose answer the core does not give
//! is the mismatch (replay stops there, the rest is still checked); otherwise every step
//! matches. With a size limit, the byte past it is a fault like a broken line, and the first
//! fault in the bytes wins ([`Reader::limit`]).

use crate::op::Op;
use crate::record::json::{JsonKind, ReadError, without_bom};
use crate::record::{FORMAT, Header, RecordError};

use super::check::Checker;
use super::engine::Engine;
use super::line::{Answer, Broken, Head, Item, Line};
use super::proof::{Chain, Prover};
use crate::record::VERSION_3;

/// The longest line a record can hold, in bytes: more than any line of the format's bounded
/// fields can take (texts, inputs and names all have a length limit), so a longer one is
/// refused before it is parsed, and no reader holds more than this of a line.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The size limit readers take by default (256 MiB, about 3,500,000 steps of short labels):
/// `lane-records replay` and the viewer alike, so that the same file gets the same bytes'
/// verdict from both. Each takes another as an option; the format itself has none. It is a
/// safety against a file without end, well above the records people export (a million steps
/// of a build farm are 77 MB): the viewer, which holds what it reads, refuses a record by its
/// steps first (its memory budget, `lane-viewer`'s `DEFAULT_MAX_STEPS`).
pub const DEFAULT_MAX_BYTES: u64 = 256 * 1024 * 1024;

/// What the reader hands out as it goes.
pub enum Seen<'a> {
    /// The head (line 1).
    Head(&'a Head),
    /// A line after the head, with the core as it stands after it (after a mismatch, the core
    /// stands where the mismatch left it).
    #[non_exhaustive]
    Item {
        /// The line's number, from 1.
        line: u64,
        /// What it is.
        item: &'a Item,
        /// The core it replays on.
        engine: &'a Engine,
        /// The mismatch this line's step is, if it is the first whose answer the core does not
        /// give.
        mismatch: Option<&'a Mismatch>,
    },
}

/// A step whose answer the core does not give.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The step's number among the steps, from 0.
    pub step: u64,
    /// Its line, from 1.
    pub line: u64,
    /// Its operation.
    pub op: Op,
    /// What the record says it answered.
    pub recorded: Answer,
    /// What the core answers.
    pub replayed: Answer,
}

/// How a whole record read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// The head.
    pub head: Head,
    /// The number of steps.
    pub steps: u64,
    /// The first step whose answer the core does not give, if any.
    pub mismatch: Option<Mismatch>,
    /// The record's hash chain, recomputed: none, or one that holds (one that breaks makes
    /// the record invalid at the step where it breaks).
    pub chain: Chain,
}

/// A version 3 record read a chunk at a time: [`feed`](Reader::feed) what arrives,
/// [`finish`](Reader::finish) at the end.
///
/// ```
/// use project_lanes::record::stream::Reader;
///
/// let text = concat!(
///     r#"{"format":"project-lanes/record","version":3,"id":"tiny","#,
///     r#""title":{"en":"Tiny","ja":"小さな記録"},"summary":{"en":"One claim.","ja":"取得が一つ。"},"#,
///     r#""work_executed_here":false}"#, "\n",
///     r#"{"op":"claim","project":"docs","run":"nightly-7","result":"ok"}"#, "\n",
///     r#"{"end":{"steps":1}}"#, "\n",
/// );
/// let mut reader = Reader::new();
/// for chunk in text.as_bytes().chunks(7) {
///     reader.feed(chunk, &mut |_| {})?;
/// }
/// let verdict = reader.finish(&mut |_| {})?;
/// assert_eq!((verdict.steps, verdict.mismatch), (1, None));
/// # Ok::<(), project_lanes::record::json::ReadError>(())
/// ```
pub struct Reader {
    /// The line being read, until its end arrives.
    pending: Vec<u8>,
    /// Lines read so far.
    line: u64,
    bytes: u64,
    limit: Option<u64>,
    head: Option<Head>,
    check: Checker,
    prover: Prover,
    chain: Option<Chain>,
    engine: Engine,
    steps: u64,
    mismatch: Option<Mismatch>,
    /// The first error: every later call gives it again.
    failed: Option<ReadError>,
}

impl Default for Reader {
    fn default() -> Self {
        Reader::new()
    }
}

impl Reader {
    /// A reader with no limit on the record's size (it holds one line at a time, and the core's
    /// live state).
    pub fn new() -> Reader {
        Reader {
            pending: Vec::new(),
            line: 0,
            bytes: 0,
            limit: None,
            head: None,
            check: Checker::default(),
            prover: Prover::default(),
            chain: None,
            engine: Engine::new(),
            steps: 0,
            mismatch: None,
            failed: None,
        }
    }

    /// The same, refusing a record larger than `bytes` (`RECORD_TOO_LARGE`) as soon as more
    /// has arrived.
    ///
    /// Which fault wins is decided by where it is in the bytes, never by how they are cut into
    /// chunks: the verdict is the one a reader fed a byte at a time gives. The bytes up to the
    /// limit are read first, so a line that breaks the format and ends within them (or, for a
    /// line longer than [`MAX_LINE_BYTES`], whose byte past that length is within them) makes
    /// the record invalid; the byte after the limit makes it too large, so a line that ends or
    /// grows too long only past the limit is never judged. A reader told the size beforehand
    /// (`lane-records replay` from the file's size, the viewer from a `Content-Length`) refuses
    /// a record over the limit before reading its lines.
    ///
    /// ```
    /// use project_lanes::record::json::ReadError;
    /// use project_lanes::record::stream::Reader;
    ///
    /// let head = concat!(
    ///     r#"{"format":"project-lanes/record","version":3,"id":"tiny","#,
    ///     r#""title":{"en":"Tiny","ja":"小さな記録"},"summary":{"en":"One claim.","ja":"取得が一つ。"},"#,
    ///     r#""work_executed_here":false}"#, "\n",
    /// );
    /// // A broken line within a limit of 200 bytes, and more bytes past it: invalid, in one
    /// // chunk or in two cut anywhere.
    /// let bytes = [head.as_bytes(), b"{]\n", &[b' '; 100][..]].concat();
    /// for cut in 0..=bytes.len() {
    ///     let mut reader = Reader::new().limit(200);
    ///     let (a, b) = bytes.split_at(cut);
    ///     let error = reader.feed(a, &mut |_| {}).and_then(|()| reader.feed(b, &mut |_| {}));
    ///     assert!(matches!(error, Err(ReadError::Json { line: 2, .. })), "cut at {cut}");
    /// }
    /// ```
    pub fn limit(mut self, bytes: u64) -> Reader {
        self.limit = Some(bytes);
        self
    }

    /// Bytes read so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Reads the next bytes of the record: every line they complete is parsed, checked and
    /// replayed, and handed to `seen`.
    pub fn feed(&mut self, chunk: &[u8], seen: &mut dyn FnMut(Seen<'_>)) -> Result<(), ReadError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        let result = self.read(chunk, seen);
        if let Err(e) = &result {
            self.failed = Some(e.clone());
        }
        result
    }

    fn read(&mut self, chunk: &[u8], seen: &mut dyn FnMut(Seen<'_>)) -> Result<(), ReadError> {
        // The bytes within the limit are read first, as if they had come alone; the first byte
        // past it refuses the record (see `limit`). Judging the limit on the whole chunk first
        // would let the cut decide between a line within the limit that breaks the format and
        // the limit.
        let room = match self.limit {
            Some(limit) => limit.saturating_sub(self.bytes).min(chunk.len() as u64) as usize,
            None => chunk.len(),
        };
        let (within, past) = chunk.split_at(room);
        self.bytes += within.len() as u64;
        self.lines(within, seen)?;
        if let (Some(limit), false) = (self.limit, past.is_empty()) {
            self.bytes += past.len() as u64;
            return Err(ReadError::OverLimit { limit });
        }
        Ok(())
    }

    /// Reads `chunk` as the next bytes of the lines: every line it completes is judged.
    fn lines(&mut self, chunk: &[u8], seen: &mut dyn FnMut(Seen<'_>)) -> Result<(), ReadError> {
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            let (line, after) = rest.split_at(end);
            self.take(line)?;
            let line = std::mem::take(&mut self.pending);
            self.line += 1;
            let outcome = self.one(&line, seen);
            self.pending = line;
            self.pending.clear();
            outcome?;
            rest = &after[1..];
        }
        self.take(rest)
    }

    /// Adds `bytes` to the line being read, refusing one longer than any line can be.
    fn take(&mut self, bytes: &[u8]) -> Result<(), ReadError> {
        if self.pending.len() + bytes.len() > MAX_LINE_BYTES {
            return Err(located(
                self.line + 1,
                1,
                RecordError::invalid(
                    "line",
                    format!(
                        "longer than {MAX_LINE_BYTES} bytes: no line of a record can be (its \
                         texts, inputs and names all have a length limit)"
                    ),
                ),
            ));
        }
        self.pending.extend_from_slice(bytes);
        Ok(())
    }

    /// The end of the record: its last line (if it did not end with a line break), then the
    /// verdict; a record that stops before its end line was cut short.
    pub fn finish(&mut self, seen: &mut dyn FnMut(Seen<'_>)) -> Result<Verdict, ReadError> {
        if let Some(e) = &self.failed {
            return Err(e.clone());
        }
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.line += 1;
            if let Err(e) = self.one(&line, seen) {
                self.failed = Some(e.clone());
                return Err(e);
            }
        }
        let (Some(head), true) = (&self.head, self.check.ended()) else {
            let e = located(
                self.line + 1,
                1,
                RecordError::invalid(
                    "end",
                    "the record stops before its end line (`{\"end\":{\"steps\":N}}`): it was \
                     cut short, or is still being written",
                ),
            );
            self.failed = Some(e.clone());
            return Err(e);
        };
        Ok(Verdict {
            head: head.clone(),
            steps: self.steps,
            mismatch: self.mismatch.clone(),
            chain: self.chain.clone().unwrap_or(Chain::Unchained),
        })
    }

    /// One whole line: the head, or an item.
    fn one(&mut self, bytes: &[u8], seen: &mut dyn FnMut(Seen<'_>)) -> Result<(), ReadError> {
        let line = self.line;
        if line == 1 {
            let bytes = without_bom(bytes);
            let header: Header = parse(bytes, line)?;
            if header.format != FORMAT {
                let error = RecordError::UnknownFormat {
                    found: header.format,
                    expected: FORMAT,
                };
                return Err(at_field(bytes, line, "format", error));
            }
            if header.version != VERSION_3 {
                let error = RecordError::UnsupportedVersion(header.version);
                return Err(at_field(bytes, line, "version", error));
            }
            let head: Head = parse(bytes, line)?;
            self.check
                .head(&head)
                .map_err(|(error, field)| at_field(bytes, line, field, error))?;
            seen(Seen::Head(&head));
            self.head = Some(head);
            return Ok(());
        }
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(located(
                line,
                1,
                RecordError::invalid("line", "a blank line: every line holds one JSON object"),
            ));
        }
        let parsed: Line = parse(bytes, line)?;
        let mut item = parsed.item().map_err(|b| broken_at(bytes, line, b))?;
        self.check
            .item(&mut item)
            .map_err(|b| broken_at(bytes, line, b))?;
        self.prover
            .item(&item)
            .map_err(|b| broken_at(bytes, line, b))?;
        if let Item::End(end) = &item {
            self.chain = Some(
                self.prover
                    .end(end)
                    .map_err(|b| broken_at(bytes, line, b))?,
            );
        }
        let before = self.mismatch.is_some();
        if !before {
            self.replay(bytes, line, &item)?;
        }
        if let Item::Step(..) = item {
            self.steps += 1;
        }
        seen(Seen::Item {
            line,
            item: &item,
            engine: &self.engine,
            mismatch: self.mismatch.as_ref().filter(|_| !before),
        });
        Ok(())
    }

    fn replay(&mut self, bytes: &[u8], line: u64, item: &Item) -> Result<(), ReadError> {
        // The checker has refused a start the core cannot be in; one it let through and the
        // core refuses is named all the same.
        let refused = |field, e: crate::dispatch::DispatchError| {
            at_field(
                bytes,
                line,
                field,
                RecordError::invalid(field, format!("the core cannot start so: {e}")),
            )
        };
        match item {
            Item::Queue(queue) => self.engine.queue(queue),
            Item::Lease(lease, _) => self.engine.lease(lease).map_err(|e| refused("lease", e))?,
            Item::Reservation(view, _) => self
                .engine
                .reservation(view)
                .map_err(|e| refused("reservation", e))?,
            Item::Step(step, _) => {
                let replayed = self.engine.run(step);
                if replayed != step.answer {
                    self.mismatch = Some(Mismatch {
                        step: self.steps,
                        line,
                        op: step.op,
                        recorded: step.answer.clone(),
                        replayed,
                    });
                }
            }
            Item::Actor { .. }
            | Item::End(_)
            | Item::Chain(_)
            | Item::Link(_)
            | Item::Checkpoint { .. } => {}
        }
        Ok(())
    }
}

/// Parses one line as `T`: syntax and shape errors at the line's number and serde's column.
fn parse<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], line: u64) -> Result<T, ReadError> {
    serde_json::from_slice(bytes).map_err(|e| {
        let kind = if e.is_data() {
            JsonKind::Shape
        } else {
            JsonKind::Syntax
        };
        match ReadError::from(e) {
            ReadError::Json {
                column, message, ..
            } => ReadError::Json {
                kind,
                line: line as usize,
                column,
                message,
            },
            other => other,
        }
    })
}

fn located(line: u64, column: u64, error: RecordError) -> ReadError {
    ReadError::Line {
        line,
        column,
        error,
    }
}

/// `error`, at the column of `field`'s key in the line (its start if the field is not there).
fn at_field(bytes: &[u8], line: u64, field: &str, error: RecordError) -> ReadError {
    located(line, key_column(bytes, field).unwrap_or(1), error)
}

fn broken_at(bytes: &[u8], line: u64, broken: Broken) -> ReadError {
    let error = RecordError::invalid(broken.field, broken.message);
    at_field(bytes, line, broken.field, error)
}

/// The column (from 1, in bytes) where `key` starts among the keys of the object `bytes`
/// holds, if it is one of them. The line has been parsed already, so it is JSON.
fn key_column(bytes: &[u8], key: &str) -> Option<u64> {
    let mut i = bytes.iter().position(|&b| b == b'{')? + 1;
    loop {
        i += bytes[i..].iter().position(|&b| !b.is_ascii_whitespace())?;
        if bytes[i] != b'"' {
            return None;
        }
        let start = i;
        let end = string_end(bytes, i)?;
        let name = &bytes[start + 1..end];
        if name == key.as_bytes() {
            return Some(start as u64 + 1);
        }
        i = end + 1;
        i += bytes[i..].iter().position(|&b| b == b':')? + 1;
        i = value_end(bytes, i)?;
        i += bytes[i..].iter().position(|&b| !b.is_ascii_whitespace())?;
        if bytes[i] != b',' {
            return None;
        }
        i += 1;
    }
}

/// Where the string opened at `open` closes.
fn string_end(bytes: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// Where the value starting at or after `from` ends (just past it).
fn value_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from
        + bytes[from..]
            .iter()
            .position(|&b| !b.is_ascii_whitespace())?;
    let mut depth = 0usize;
    loop {
        match *bytes.get(i)? {
            b'"' => {
                i = string_end(bytes, i)? + 1;
                if depth == 0 {
                    return Some(i);
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                if depth == 0 {
                    return Some(i);
                }
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b',' if depth == 0 => return Some(i),
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_found_by_its_place_among_the_keys_not_inside_a_value() {
        let line = br#"{"note":{"en":"\"lease\": x","ja":"y"}, "lease" :"L9"}"#;
        let column = key_column(line, "lease").unwrap() as usize;
        assert_eq!(&line[column - 1..column + 6], br#""lease""#);
        assert_eq!(key_column(line, "run"), None);
        assert_eq!(
            key_column(br#"{"op":"claim","project":"p"}"#, "project"),
            Some(15)
        );
    }
}
