//! `lane-records diff`: two record files of any version read as every reader reads them, front
//! to back, and compared by the core's model ([`project_lanes::record::diff`]): each record is
//! read once into a [`Sketch`] (a version 3 record a chunk at a time, no step kept), and again
//! as far as the [`Plan`](project_lanes::record::diff::Plan) asks for the few steps its words need ([`Side::fetch`]). The
//! comparison is then said for people ([`project_lanes_view::diff::lines`], in English or
//! Japanese) or tools ([`json`]), and drawn as a picture ([`write_svg`]).

use std::io::Read;
use std::path::{Path, PathBuf};

use project_lanes::record::diff::{Diff, Sketch};
use project_lanes::record::{Record, Step, Text, replay, stream};
use project_lanes_view::diff::Compared;
use project_lanes_view::i18n::Lang;
use serde::Serialize;

use crate::{Opened, ReadError, describe_mismatch, describe_step_mismatch, open, read_lines};

/// A record file read for a comparison: its head, and the steps the comparison names.
pub struct Side {
    /// The file, as named.
    pub file: String,
    /// The record without its steps (a version 1 or 2 record, read whole, keeps them).
    pub record: Record,
    /// How many steps it has.
    pub steps: usize,
    /// The first step that does not replay on the core, in words; `None` if all do.
    pub mismatch: Option<String>,
    path: PathBuf,
    /// The steps read again for the comparison ([`Side::fetch`]), in order.
    kept: Vec<(usize, Step)>,
}

/// Reads the record file `path` (a version 3 record up to `limit` bytes) into `sketch`; the
/// error names the file and says why it cannot be read, with its code.
pub fn read(path: &Path, limit: u64, sketch: &mut Sketch) -> Result<Side, String> {
    let file = path.display().to_string();
    let unreadable = |e: ReadError| format!("{file}: unreadable: {e} ({})", e.code());
    let (record, steps, mismatch) = sketch_file(path, limit, sketch).map_err(unreadable)?;
    Ok(Side {
        file,
        record,
        steps,
        mismatch,
        path: path.to_path_buf(),
        kept: Vec::new(),
    })
}

/// The record at `path` read into `sketch`: its head (a document whole), how many steps it
/// has, and its first step that does not replay, in words.
fn sketch_file(
    path: &Path,
    limit: u64,
    sketch: &mut Sketch,
) -> Result<(Record, usize, Option<String>), ReadError> {
    match open(path, limit)? {
        Opened::Document(bytes) => {
            let record =
                project_lanes::record::json::parse_record(&bytes).map_err(ReadError::Parse)?;
            let mismatch = replay(&record).err().map(|m| describe_mismatch(&m));
            sketch.record(&record);
            Ok((record, sketch.steps(), mismatch))
        }
        Opened::Lines(first, mut rest) => {
            let mut gather = stream::Gather::new();
            let mut begun = false;
            let verdict = read_lines(&first, &mut rest, limit, &mut |seen| {
                gather.seen(seen);
                if let Some(step) = gather.take_step() {
                    if !begun {
                        begun = true;
                        if let Some(start) = gather.start() {
                            sketch.start(start);
                        }
                    }
                    sketch.step(&step);
                }
            })?;
            let mismatch = verdict.mismatch.as_ref().map(describe_step_mismatch);
            let record = gather.record();
            if !begun && let Some(start) = &record.start {
                sketch.start(start);
            }
            sketch.finish(&record.projects, &record.final_lanes);
            Ok((record, sketch.steps(), mismatch))
        }
    }
}

impl Side {
    /// Reads the file again as far as step `wanted`'s last (a version 3 record; a document
    /// kept its steps), keeping those steps; the error names the file.
    pub fn fetch(&mut self, wanted: &[usize], limit: u64) -> Result<(), String> {
        let Some(&last) = wanted.last() else {
            return Ok(());
        };
        if !self.record.steps.is_empty() {
            return Ok(());
        }
        let unreadable = |e: ReadError| format!("{}: unreadable: {e} ({})", self.file, e.code());
        let Opened::Lines(first, mut rest) = open(&self.path, limit).map_err(unreadable)? else {
            return Err(format!("{}: changed while it was compared", self.file));
        };
        let mut keep = Keep {
            gather: stream::Gather::new(),
            wanted,
            n: 0,
            kept: Vec::with_capacity(wanted.len()),
        };
        let mut lines = stream::Reader::new().limit(limit);
        lines
            .feed(&first, &mut |seen| keep.seen(seen))
            .map_err(|e| unreadable(ReadError::Parse(e)))?;
        let mut chunk = vec![0; 1 << 16];
        while keep.n <= last {
            let n = rest
                .read(&mut chunk)
                .map_err(|e| unreadable(ReadError::Io(e)))?;
            if n == 0 {
                break;
            }
            lines
                .feed(&chunk[..n], &mut |seen| keep.seen(seen))
                .map_err(|e| unreadable(ReadError::Parse(e)))?;
        }
        if keep.kept.len() < wanted.len() {
            return Err(format!("{}: changed while it was compared", self.file));
        }
        self.kept = keep.kept;
        Ok(())
    }
}

/// The steps kept as a version 3 record is read again.
struct Keep<'w> {
    gather: stream::Gather,
    /// The steps to keep, in order.
    wanted: &'w [usize],
    /// Steps seen.
    n: usize,
    kept: Vec<(usize, Step)>,
}

impl Keep<'_> {
    fn seen(&mut self, seen: stream::Seen<'_>) {
        self.gather.seen(seen);
        if let Some(step) = self.gather.take_step() {
            if self.wanted.get(self.kept.len()) == Some(&self.n) {
                self.kept.push((self.n, step));
            }
            self.n += 1;
        }
    }
}

impl Compared for Side {
    fn id(&self) -> &str {
        self.record.id.as_str()
    }
    fn title(&self) -> &Text {
        &self.record.title
    }
    fn steps(&self) -> usize {
        self.steps
    }
    fn step(&self, n: usize) -> Option<&Step> {
        if !self.record.steps.is_empty() {
            return self.record.steps.get(n);
        }
        let i = self.kept.binary_search_by_key(&n, |(k, _)| *k).ok()?;
        self.kept.get(i).map(|(_, s)| s)
    }
}

/// What `--json` writes: both records named, whether they differ, and the whole model.
#[derive(Serialize)]
struct Report<'a> {
    a: About<'a>,
    b: About<'a>,
    same: bool,
    differences: usize,
    diff: &'a Diff,
}

#[derive(Serialize)]
struct About<'a> {
    file: &'a str,
    id: &'a str,
    version: u32,
    steps: usize,
    replays: bool,
}

impl<'a> About<'a> {
    fn of(side: &'a Side) -> About<'a> {
        About {
            file: &side.file,
            id: side.record.id.as_str(),
            version: side.record.version,
            steps: side.steps,
            replays: side.mismatch.is_none(),
        }
    }
}

/// The comparison as one JSON document (`--json`), ending with a newline.
pub fn json(a: &Side, b: &Side, diff: &Diff) -> Vec<u8> {
    let report = Report {
        a: About::of(a),
        b: About::of(b),
        same: diff.is_empty(),
        differences: project_lanes_view::diff::count(diff),
        diff,
    };
    let mut bytes = serde_json::to_vec_pretty(&report).unwrap_or_default();
    bytes.push(b'\n');
    bytes
}

/// Writes the comparison as a standalone SVG picture to `path`
/// ([`project_lanes_view::still::comparison_svg`]), as every file is written
/// ([`write_files`](crate::write_files)); the error says why not.
pub fn write_svg(path: &Path, [a, b]: [&Side; 2], diff: &Diff, lang: Lang) -> Result<(), String> {
    let Some(name) = path.file_name() else {
        return Err(format!("--svg {}: not a file name", path.display()));
    };
    let svg = project_lanes_view::still::comparison_svg(
        [&a.file, &b.file],
        [a as &dyn Compared, b],
        diff,
        lang,
        crate::render::VIEWER_CSS,
    );
    let file = crate::OutputFile {
        name: name.to_string_lossy().into_owned(),
        bytes: svg.into_bytes(),
    };
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    };
    crate::write_files(&[(dir, &file)])
}
