//! `lane-records render`: each record's static picture, drawn by the viewer's own code
//! (`lane_view::still`): an HTML fragment (`<id>.html`) and the timeline alone as a standalone
//! SVG file (`<id>.svg`). Every record is read, checked and replayed on the core first; a record
//! that fails any of it is reported with its file (and line and column), and nothing is written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use lane_view::i18n::Lang;
use lane_view::still;
use project_lanes::record::replay;

use crate::{OutputFile, Problems, describe_mismatch, read_record};

/// The viewer's stylesheet, inside each standalone SVG (so it follows light and dark).
pub const VIEWER_CSS: &str = include_str!("../../www/viewer.css");

/// What to write, and where.
pub struct Outputs<'a> {
    /// The folder of HTML fragments, if any.
    pub html: Option<&'a Path>,
    /// The folder of SVG files, if any.
    pub svg: Option<&'a Path>,
    pub lang: Lang,
}

/// The files to write (folder, file) for `files`, or every problem found (nothing to write).
pub fn render(
    files: &[PathBuf],
    outputs: &Outputs,
) -> Result<Vec<(PathBuf, OutputFile)>, Problems> {
    let mut problems = Vec::new();
    let mut out = Vec::new();
    let mut ids: BTreeMap<String, &Path> = BTreeMap::new();
    for path in files {
        let file = path.display();
        let record = match read_record(path) {
            Ok(record) => record,
            Err(e) => {
                problems.push(format!("{file}: {} ({})", e, e.code()));
                continue;
            }
        };
        if let Err(mismatch) = replay(&record) {
            problems.push(format!(
                "{file}: does not replay on the core (REPLAY_MISMATCH) at {}",
                describe_mismatch(&mismatch)
            ));
            continue;
        }
        let id = record.id.to_string();
        if let Some(other) = ids.insert(id.clone(), path) {
            problems.push(format!(
                "{file}: its id {id:?} is the id of {} too; each record is written as <id>.html",
                other.display()
            ));
            continue;
        }
        if let Some(dir) = outputs.html {
            let mut bytes = still::fragment(&record, outputs.lang, &format!("lvs-{id}"));
            bytes.push('\n');
            out.push((
                dir.to_path_buf(),
                OutputFile {
                    name: format!("{id}.html"),
                    bytes: bytes.into_bytes(),
                },
            ));
        }
        if let Some(dir) = outputs.svg {
            let svg = still::timeline_svg(&record, outputs.lang, VIEWER_CSS);
            out.push((
                dir.to_path_buf(),
                OutputFile {
                    name: format!("{id}.svg"),
                    bytes: svg.into_bytes(),
                },
            ));
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(Problems(problems))
    }
}
