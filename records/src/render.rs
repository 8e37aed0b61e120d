//! `lane-records render`: each record's static picture, drawn by the viewer's own code
//! (`project_lanes_view::still`): an HTML fragment (`<id>.html`), the timeline alone as a standalone SVG
//! file (`<id>.svg`), and the whole `<lane-viewer>` element, the picture with the record inside
//! ([`element`], which `mdbook-lanes` writes too). Every record is read, checked and replayed on
//! the core first; a record that fails any of it is reported with its file (and line and
//! column), and nothing is written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use project_lanes::record::Record;
use project_lanes_view::i18n::Lang;
use project_lanes_view::still;

use crate::{OutputFile, Problems, open_record};

/// The viewer's stylesheet, inside each standalone SVG (so it follows light and dark).
pub const VIEWER_CSS: &str = project_lanes_view::STYLESHEET;

/// What to write, and where.
pub struct Outputs<'a> {
    /// The folder of HTML fragments, if any.
    pub html: Option<&'a Path>,
    /// The folder of SVG files, if any.
    pub svg: Option<&'a Path>,
    /// The language both are written in.
    pub lang: Lang,
}

/// A record that was read, checked and replayed, with its file's bytes.
struct Good {
    record: Record,
    bytes: Vec<u8>,
}

/// Reads, checks and replays every file: the records, or every problem found.
fn good(files: &[PathBuf]) -> Result<Vec<Good>, Problems> {
    let mut problems = Vec::new();
    let mut good = Vec::new();
    let mut ids: BTreeMap<String, &Path> = BTreeMap::new();
    for path in files {
        let file = path.display();
        let (record, bytes, mismatch) = match open_record(path) {
            Ok(read) => read,
            Err(e) => {
                problems.push(format!("{file}: {} ({})", e, e.code()));
                continue;
            }
        };
        if let Some(mismatch) = mismatch {
            problems.push(format!(
                "{file}: does not replay on the core (REPLAY_MISMATCH) at {mismatch}"
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
        good.push(Good { record, bytes });
    }
    if problems.is_empty() {
        Ok(good)
    } else {
        Err(Problems(problems))
    }
}

/// The files to write (folder, file) for `files`, or every problem found (nothing to write).
pub fn render(
    files: &[PathBuf],
    outputs: &Outputs,
) -> Result<Vec<(PathBuf, OutputFile)>, Problems> {
    let mut out = Vec::new();
    for Good { record, .. } in good(files)? {
        let id = record.id.to_string();
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
    Ok(out)
}

/// The `<lane-viewer>` element of each of `files` in `lang` ([`element`]), as
/// `<id>.lane-viewer.html`, or every problem found.
pub fn elements(files: &[PathBuf], lang: Lang) -> Result<Vec<OutputFile>, Problems> {
    Ok(good(files)?
        .into_iter()
        .map(|Good { record, bytes }| {
            let id = record.id.to_string();
            let mut text = element(&record, &bytes, lang, &format!("lvs-{id}"));
            text.push('\n');
            OutputFile {
                name: format!("{id}.lane-viewer.html"),
                bytes: text.into_bytes(),
            }
        })
        .collect())
}

/// The `<lane-viewer>` element for `record`, whose file's bytes are `json`: its static picture
/// (`project_lanes_view::still::fragment`, ids prefixed with `prefix`), then the record inline, made safe
/// by [`inline_json`]. No blank line inside, so markdown keeps it as one HTML block. The one way
/// a record is put inside a page: `lane-records render --element` and `mdbook-lanes` write it.
pub fn element(record: &Record, json: &[u8], lang: Lang, prefix: &str) -> String {
    let picture = still::fragment(record, lang, prefix);
    let picture: Vec<&str> = picture.lines().filter(|l| !l.trim().is_empty()).collect();
    format!(
        "<lane-viewer lang=\"{}\">\n{}\n<script type=\"application/json\">{}</script>\n</lane-viewer>",
        lang.tag(),
        picture.join("\n"),
        inline_json(json)
    )
}

/// A record's JSON made safe inside `<script type="application/json">` and inside a markdown HTML
/// block: `<` only occurs inside JSON strings, where `\u003c` is the same character, so no
/// `</script>` or `<!--` can end or bend the script element; blank lines (whitespace between
/// tokens, never inside a string) would end the HTML block, so they go.
pub fn inline_json(json: &[u8]) -> String {
    String::from_utf8_lossy(json)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
        .replace('<', "\\u003c")
}
