//! One chapter's markdown, with its ```` ```lanes ```` blocks and `{{#lanes PATH}}` directives
//! replaced by `<lane-viewer>` elements. A block holds a scenario (the TOML `lane-records run`
//! reads) and is run on the core here, at build time; a directive names a record file, relative
//! to the chapter (`{{#lanes-diff A B}}` two, compared). Each element holds the record's static
//! picture (`project_lanes_view::still::fragment`, or the comparison's,
//! `project_lanes_view::compare::still`; readable before and without the wasm) and the record
//! itself (both records) as inline JSON.
//!
//! Directives inside code (fenced, indented or inline) are left as written, so a chapter can show
//! the syntax; outside code, `\{{#lanes …}}` is written without its backslash and not embedded.
//! Every mistake names the markdown file, line and column.

use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use lane_records::scenario::Scenario;
use project_lanes::record::Record;
use project_lanes_view::i18n::Lang;
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag};

/// The fence info word of a scenario block.
pub const FENCE: &str = "lanes";
/// The directive that embeds a record file (`{{#lanes PATH}}`) or compares two
/// (`{{#lanes-diff A B}}`).
const DIRECTIVE: &str = "{{#lanes";
/// What follows [`DIRECTIVE`] in the directive that compares two records.
const DIFF: &str = "-diff";

/// A mistake in a chapter: where it is and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedError {
    /// The markdown file, as the book names it (e.g. `src/records.md`).
    pub file: PathBuf,
    /// 1-based line in the markdown file.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong, for a person.
    pub message: String,
    /// The markdown line with a caret under the column.
    excerpt: String,
}

impl fmt::Display for EmbedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: {}\n{}",
            self.file.display(),
            self.line,
            self.column,
            self.message,
            self.excerpt
        )
    }
}

impl std::error::Error for EmbedError {}

/// What a chapter is embedded with.
pub struct Chapter<'a> {
    /// The markdown file as errors name it.
    pub file: &'a Path,
    /// The folder `{{#lanes PATH}}` paths are relative to (the chapter's folder).
    pub dir: &'a Path,
    /// The language of the elements unless a block says otherwise.
    pub lang: Lang,
}

/// Replaces every scenario block and directive of `markdown`; `counter` numbers the elements
/// across the whole book (ids must stay unique on mdBook's print page, which holds every chapter).
pub fn chapter(
    markdown: &str,
    at: &Chapter<'_>,
    counter: &mut usize,
) -> Result<String, EmbedError> {
    let locate = |offset: usize, message: String| located(at.file, markdown, offset, 0, message);
    let mut code: Vec<Range<usize>> = Vec::new();
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut events = Parser::new_ext(markdown, Options::all()).into_offset_iter();
    while let Some((event, range)) = events.next() {
        match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                code.push(range.clone());
                let CodeBlockKind::Fenced(info) = kind else {
                    continue;
                };
                let mut words = info.split_whitespace();
                if words.next() != Some(FENCE) {
                    continue;
                }
                let options: Vec<&str> = words.collect();
                let lang = options_lang(&options, at.lang).map_err(|m| locate(range.start, m))?;
                // The block's text, and where its first line starts in the markdown.
                let mut text = String::new();
                let mut first: Option<usize> = None;
                for (event, inner) in events.by_ref() {
                    match event {
                        Event::Text(t) => {
                            first.get_or_insert(inner.start);
                            text.push_str(&t);
                        }
                        Event::End(_) => break,
                        _ => {}
                    }
                }
                let Some(first) = first else {
                    return Err(locate(
                        range.start,
                        "this ```lanes block is empty: write a scenario in it (the TOML `lane-records run` reads)".into(),
                    ));
                };
                let record = run_block(at.file, markdown, range.start, first, &text)?;
                let json = lane_records::to_json(&record);
                *counter += 1;
                edits.push((range, element(&record, &json, lang, *counter)));
            }
            Event::Code(_) => code.push(range),
            _ => {}
        }
    }
    let mut from = 0;
    while let Some(found) = markdown[from..].find(DIRECTIVE) {
        let start = from + found;
        from = start + DIRECTIVE.len();
        if code.iter().any(|c| c.contains(&start)) {
            continue;
        }
        if markdown[..start].ends_with('\\') {
            edits.push((start - 1..start, String::new()));
            continue;
        }
        let Some(len) = markdown[start..].find("}}") else {
            return Err(locate(start, "this {{#lanes …}} has no closing }}".into()));
        };
        let end = start + len + 2;
        let mut inside = &markdown[start + DIRECTIVE.len()..end - 2];
        let diff = inside.starts_with(DIFF);
        if diff {
            inside = &inside[DIFF.len()..];
        } else if !inside.starts_with(char::is_whitespace) && !inside.is_empty() {
            return Err(locate(
                start,
                "unknown directive: {{#lanes path/to/record.json}} or {{#lanes-diff a.json b.json}}".into(),
            ));
        }
        let words: Vec<&str> = inside.split_whitespace().collect();
        let paths = words.iter().take_while(|w| !w.contains('=')).count();
        let (paths, options) = words.split_at(paths);
        let lang = options_lang(options, at.lang).map_err(|m| locate(start, m))?;
        let wanted = if diff { 2 } else { 1 };
        if paths.len() != wanted {
            let usage = if diff {
                "{{#lanes-diff}} compares two record files: {{#lanes-diff a.json b.json}}"
            } else {
                "{{#lanes}} needs a record file: {{#lanes path/to/record.json}}"
            };
            return Err(locate(start, usage.into()));
        }
        let mut read = Vec::with_capacity(2);
        for path in paths {
            read.push(embedded(at.dir, path).map_err(|m| locate(start, m))?);
        }
        *counter += 1;
        let html = match &read[..] {
            [(record, bytes)] => element(record, bytes, lang, *counter),
            [(a, a_bytes), (b, b_bytes)] => {
                if a.id == b.id {
                    return Err(locate(
                        start,
                        format!(
                            "{} and {} are both the record \"{}\": the viewer tells two records apart by their ids, so give one of them another id (its scenario's `id`, or the journal export's)",
                            paths[0], paths[1], a.id
                        ),
                    ));
                }
                comparison([(a, a_bytes), (b, b_bytes)], lang)
            }
            _ => unreachable!("one or two paths"),
        };
        edits.push((start..end, html));
        from = end;
    }
    edits.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(markdown.len());
    let mut at_byte = 0;
    for (range, with) in edits {
        out.push_str(&markdown[at_byte..range.start]);
        out.push_str(&with);
        at_byte = range.end;
    }
    out.push_str(&markdown[at_byte..]);
    Ok(out)
}

/// The record file `path` (relative to `dir`) and its bytes, if it replays on the core; else
/// why not.
fn embedded(dir: &Path, path: &str) -> Result<(Record, Vec<u8>), String> {
    let file = dir.join(path);
    let (record, bytes, mismatch) = lane_records::open_record(&file).map_err(|e| {
        let why = match &e {
            lane_records::ReadError::Io(_) => format!("cannot embed {path} ({})", file.display()),
            lane_records::ReadError::Parse(_) => format!(
                "{path} is not a record this build reads ({}, {})",
                file.display(),
                e.code()
            ),
        };
        format!("{why}: {e}")
    })?;
    if let Some(mismatch) = mismatch {
        return Err(format!(
            "{path} does not replay on the core (REPLAY_MISMATCH) at {mismatch}"
        ));
    }
    Ok((record, bytes))
}

/// The language an element is shown in: `lang=en` or `lang=ja` among the options, else `default`.
fn options_lang(options: &[&str], default: Lang) -> Result<Lang, String> {
    let mut lang = default;
    for option in options {
        match option.split_once('=') {
            Some(("lang", tag)) => {
                lang = Lang::from_tag(tag)
                    .ok_or_else(|| format!("unknown language \"{tag}\": lang=en or lang=ja"))?;
            }
            _ => {
                return Err(format!(
                    "unknown option \"{option}\": the only option is lang=en or lang=ja"
                ));
            }
        }
    }
    Ok(lang)
}

/// Runs a block's scenario on the core; errors point into the markdown (`fence` is where the
/// block starts, `first` where its text starts).
fn run_block(
    file: &Path,
    markdown: &str,
    fence: usize,
    first: usize,
    text: &str,
) -> Result<Record, EmbedError> {
    let result = Scenario::parse(file, text).and_then(|s| s.record());
    result.map_err(|e| match e.at {
        Some(place) => {
            // The text's lines are the markdown's lines from `first` on, each shifted by the
            // block's indentation.
            let line_start = markdown[..first].rfind('\n').map_or(0, |i| i + 1);
            let indent = markdown[line_start..first].chars().count();
            let mut offset = line_start;
            for _ in 1..place.line {
                offset = markdown[offset..]
                    .find('\n')
                    .map_or(markdown.len(), |i| offset + i + 1);
            }
            located(
                file,
                markdown,
                offset,
                indent + place.column - 1,
                format!("in this ```lanes block: {}", e.message),
            )
        }
        None => located(
            file,
            markdown,
            fence,
            0,
            format!("in this ```lanes block: {}", e.message),
        ),
    })
}

/// An error at `offset` plus `columns` characters in `markdown`.
fn located(
    file: &Path,
    markdown: &str,
    offset: usize,
    columns: usize,
    message: String,
) -> EmbedError {
    let offset = offset.min(markdown.len());
    let line_start = markdown[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = markdown[offset..]
        .find('\n')
        .map_or(markdown.len(), |i| offset + i);
    let line = markdown[..offset].matches('\n').count() + 1;
    let column = markdown[line_start..offset].chars().count() + columns + 1;
    let shown = markdown[line_start..line_end].trim_end_matches('\r');
    let gutter = line.to_string();
    let excerpt = format!(
        "{gutter} | {shown}\n{} | {}^",
        " ".repeat(gutter.len()),
        " ".repeat(column - 1)
    );
    EmbedError {
        file: file.to_path_buf(),
        line,
        column,
        message,
        excerpt,
    }
}

/// The `<lane-viewer>` that compares records A and B (each with its file's bytes): their
/// comparison as a static picture ([`project_lanes_view::compare::still`]), then both records
/// inline, made safe as [`lane_records::render::element`] makes one; the element opens the
/// second after the first and compares them (`compare`).
fn comparison([(a, a_bytes), (b, b_bytes)]: [(&Record, &Vec<u8>); 2], lang: Lang) -> String {
    let picture = project_lanes_view::compare::still(a, b, lang);
    let picture: Vec<&str> = picture.lines().filter(|l| !l.trim().is_empty()).collect();
    format!(
        "\n<lane-viewer lang=\"{}\" compare=\"{} {}\" record=\"{}\">\n{}\n<script type=\"application/json\">{}</script>\n<script type=\"application/json\">{}</script>\n</lane-viewer>\n\n",
        lang.tag(),
        a.id,
        b.id,
        a.id,
        picture.join("\n"),
        lane_records::render::inline_json(a_bytes),
        lane_records::render::inline_json(b_bytes)
    )
}

/// The `<lane-viewer>` for `record` (whose JSON is `json`), the `n`th of the book: the one
/// element `lane-records render --element` writes ([`lane_records::render::element`]: the static
/// picture, then the record inline with every `<` written `\u003c`), between blank lines so that
/// markdown keeps it as one HTML block.
fn element(record: &Record, json: &[u8], lang: Lang, n: usize) -> String {
    let element = lane_records::render::element(record, json, lang, &format!("lanes-{n}"));
    format!("\n{element}\n\n")
}
