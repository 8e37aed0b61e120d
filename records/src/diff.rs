//! `lane-records diff`: two record files of any version read as every reader reads them
//! ([`open_record_within`]) and compared by the core's model
//! ([`project_lanes::record::diff`]), for people ([`project_lanes_view::diff::lines`], in
//! English or Japanese) or tools ([`json`]), and as a picture ([`write_svg`]).

use std::path::{Path, PathBuf};

use project_lanes::record::Record;
use project_lanes::record::diff::Diff;
use project_lanes_view::i18n::Lang;
use serde::Serialize;

use crate::open_record_within;

/// A record file read for a comparison.
pub struct Side {
    /// The file, as named.
    pub file: String,
    /// The record.
    pub record: Record,
    /// The first step that does not replay on the core, in words; `None` if all do.
    pub mismatch: Option<String>,
}

/// Reads the record file `path` (a version 3 record up to `limit` bytes); the error names the
/// file and says why it cannot be read, with its code.
pub fn read(path: &Path, limit: u64) -> Result<Side, String> {
    let file = path.display().to_string();
    match open_record_within(path, limit) {
        Ok((record, _, mismatch)) => Ok(Side {
            file,
            record,
            mismatch,
        }),
        Err(e) => Err(format!("{file}: unreadable: {e} ({})", e.code())),
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
            steps: side.record.steps.len(),
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
        [&a.record, &b.record],
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
