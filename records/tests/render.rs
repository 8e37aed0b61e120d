//! `lane-records render`: each record's static picture (an HTML fragment, the timeline as a
//! standalone SVG file), drawn by the viewer's code; bad records refused with nothing written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use lane_records::{read_record, records_dir};
use project_lanes_view::timeline::timeline;
use quick_xml::events::Event;
use tempfile::TempDir;

fn lane_records() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lane-records"))
}

/// The bundled records' files (not the index or the schemas).
fn bundled() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(records_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            p.extension().is_some_and(|e| e == "json")
                && name != "index.json"
                && !name.ends_with("schema.json")
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 8, "{files:?}");
    files
}

fn files_in(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A segment as the drawing's DOM contract states it: (row, state, from, to).
type Seg = (String, String, usize, usize);

/// Every `[data-segment]` of an SVG document, with its row, read by an XML parser (which also
/// proves the file is well-formed XML).
fn svg_segments(svg: &str) -> Vec<Seg> {
    let mut reader = quick_xml::Reader::from_str(svg);
    let mut rows: Vec<Option<String>> = Vec::new();
    let mut found = Vec::new();
    let mut root = None;
    loop {
        let event = reader.read_event().expect("well-formed XML");
        let (start, empty) = match &event {
            Event::Start(e) => (Some(e.clone()), false),
            Event::Empty(e) => (Some(e.clone()), true),
            Event::End(_) => {
                rows.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let e = start.unwrap();
        let attrs: BTreeMap<String, String> = e
            .attributes()
            .map(|a| {
                let a = a.unwrap();
                (
                    String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                    String::from_utf8(a.value.to_vec()).unwrap(),
                )
            })
            .collect();
        if root.is_none() {
            root = Some(attrs.get("xmlns").cloned());
        }
        let row = attrs
            .get("data-timeline-row")
            .cloned()
            .or_else(|| rows.last().cloned().flatten());
        if attrs.contains_key("data-segment") {
            found.push((
                row.clone().expect("a segment inside a row"),
                attrs["data-state"].clone(),
                attrs["data-from"].parse().unwrap(),
                attrs["data-to"].parse().unwrap(),
            ));
        }
        if !empty {
            rows.push(row);
        }
    }
    assert_eq!(
        root,
        Some(Some("http://www.w3.org/2000/svg".to_string())),
        "the root is an SVG element"
    );
    found
}

#[test]
fn every_bundled_record_renders_as_html_and_svg_with_the_viewers_segments() {
    let out = TempDir::new().unwrap();
    let (html, svg) = (out.path().join("html"), out.path().join("svg"));
    for lang in ["en", "ja"] {
        let run = lane_records()
            .arg("render")
            .args(bundled())
            .arg("--html")
            .arg(&html)
            .arg("--svg")
            .arg(&svg)
            .args(["--lang", lang])
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        for path in bundled() {
            let record = read_record(&path).unwrap();
            let id = record.id.to_string();
            let fragment = std::fs::read_to_string(html.join(format!("{id}.html"))).unwrap();
            assert!(fragment.starts_with(&format!(
                "<div class=\"lane-viewer lv-static\" data-lane-viewer-static=\"\" data-record-id=\"{id}\" lang=\"{lang}\""
            )));
            assert!(
                fragment.contains("data-static-note"),
                "it says it is not yet verified"
            );
            assert!(!fragment.contains("<script"), "no script");
            for (i, step) in record.steps.iter().enumerate() {
                let card = format!("data-step=\"{i}\" data-op=\"{}\"", step.op.as_str());
                assert!(fragment.contains(&card), "{id}: step {i}");
            }
            let drawn =
                svg_segments(&std::fs::read_to_string(svg.join(format!("{id}.svg"))).unwrap());
            let model: Vec<Seg> = timeline(&record)
                .rows()
                .flat_map(|row| {
                    row.segments
                        .iter()
                        .map(|s| (row.id.clone(), s.state.as_str().to_string(), s.from, s.to))
                })
                .collect();
            assert!(!model.is_empty(), "{id}");
            assert_eq!(drawn, model, "{id} ({lang})");
        }
    }
    let mut expected: Vec<String> = bundled()
        .iter()
        .map(|p| {
            p.file_stem()
                .unwrap()
                .to_string_lossy()
                .replace(".json", "")
        })
        .collect();
    expected.sort();
    let stems = |dir: &Path, ext: &str| -> Vec<String> {
        files_in(dir)
            .into_iter()
            .map(|n| n.strip_suffix(ext).unwrap().to_string())
            .collect()
    };
    assert_eq!(stems(&html, ".html"), expected);
    assert_eq!(stems(&svg, ".svg"), expected);
}

#[test]
fn a_record_that_breaks_the_format_or_does_not_replay_is_refused_and_nothing_is_written() {
    let dir = TempDir::new().unwrap();
    let good = std::fs::read_to_string(records_dir().join("stale-release.json")).unwrap();
    let broken = dir.path().join("broken.json");
    std::fs::write(&broken, &good[..good.len() / 2]).unwrap();
    let tampered = dir.path().join("tampered.json");
    std::fs::write(
        &tampered,
        good.replacen("\"LEASE_NOT_CURRENT\"", "\"PROJECT_BUSY\"", 1),
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = lane_records()
        .arg("render")
        .arg(records_dir().join("busy-project.json"))
        .arg(&broken)
        .arg(&tampered)
        .arg("--html")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    let stderr = String::from_utf8(run.stderr).unwrap();
    assert!(
        stderr.contains("broken.json: ") && stderr.contains("(INVALID_JSON)"),
        "{stderr}"
    );
    assert!(stderr.contains("line "), "located: {stderr}");
    assert!(
        stderr.contains("tampered.json: does not replay on the core (REPLAY_MISMATCH) at step 4"),
        "{stderr}"
    );
    assert!(
        stderr.contains("2 of 3 record files failed; nothing was written"),
        "{stderr}"
    );
    assert_eq!(files_in(&out), Vec::<String>::new());
}

#[test]
fn render_needs_a_folder_to_write_into_and_two_records_may_not_share_an_id() {
    let run = lane_records()
        .arg("render")
        .arg(records_dir().join("busy-project.json"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&run.stderr)
            .contains("--html DIR, --svg DIR, --element [DIR], or several")
    );

    let dir = TempDir::new().unwrap();
    let copy = dir.path().join("copy.json");
    std::fs::copy(records_dir().join("busy-project.json"), &copy).unwrap();
    let out = dir.path().join("out");
    let run = lane_records()
        .arg("render")
        .arg(records_dir().join("busy-project.json"))
        .arg(&copy)
        .arg("--svg")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("its id \"busy-project\" is the id of"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert_eq!(files_in(&out), Vec::<String>::new());
}

#[test]
fn record_text_never_becomes_markup_in_the_static_picture() {
    let good = std::fs::read_to_string(records_dir().join("busy-project.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&good).unwrap();
    doc["title"]["en"] = "<script>alert(1)</script> & \u{a0}<img src=x onerror=alert(2)>".into();
    doc["summary"]["en"] = "\"quoted\" <b>bold</b>".into();
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("hostile.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let out = dir.path().join("out");
    let run = lane_records()
        .arg("render")
        .arg(&path)
        .arg("--html")
        .arg(&out)
        .arg("--svg")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let html = std::fs::read_to_string(out.join("busy-project.html")).unwrap();
    assert!(!html.contains("<script") && !html.contains("<img") && !html.contains("<b>"));
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &nbsp;&lt;img"));
    let svg = std::fs::read_to_string(out.join("busy-project.svg")).unwrap();
    assert!(svg.contains("<title>&lt;script&gt;alert(1)&lt;/script&gt; &amp; \u{a0}&lt;img"));
    svg_segments(&svg);
}

#[test]
fn a_stylesheet_with_markup_characters_still_gives_well_formed_svg() {
    let record = read_record(&records_dir().join("busy-project.json")).unwrap();
    let css = "/* <lane-viewer> & ]]> */ .lane-viewer { color: red; }";
    let svg =
        project_lanes_view::still::timeline_svg(&record, project_lanes_view::i18n::Lang::En, css);
    assert!(!svg_segments(&svg).is_empty());
}

/// What an HTML tokenizer (html5ever's, the specification's states) reads in `html` when it
/// stands in a page's body: every start tag with its attributes, every end tag, every comment,
/// and the text of each script element.
#[derive(Debug, Default)]
struct Tokens {
    start: Vec<(String, Vec<(String, String)>)>,
    end: Vec<String>,
    comments: Vec<String>,
    scripts: Vec<String>,
}

fn tokens(html: &str) -> Tokens {
    use html5ever::tendril::StrTendril;
    use html5ever::tokenizer::states::RawKind;
    use html5ever::tokenizer::{
        BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer,
    };
    use std::cell::RefCell;

    #[derive(Default)]
    struct Sink {
        tokens: RefCell<Tokens>,
        in_script: RefCell<Option<String>>,
    }
    impl TokenSink for Sink {
        type Handle = ();
        fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
            let mut tokens = self.tokens.borrow_mut();
            let mut script = self.in_script.borrow_mut();
            match token {
                Token::TagToken(tag) => {
                    let name = tag.name.to_string();
                    match tag.kind {
                        TagKind::StartTag => {
                            let attrs = tag
                                .attrs
                                .iter()
                                .map(|a| (a.name.local.to_string(), a.value.to_string()))
                                .collect();
                            tokens.start.push((name.clone(), attrs));
                            // What a page's tree builder tells the tokenizer, for these elements.
                            return match name.as_str() {
                                "script" => {
                                    *script = Some(String::new());
                                    TokenSinkResult::RawData(RawKind::ScriptData)
                                }
                                "style" | "xmp" | "iframe" | "noembed" | "noframes" => {
                                    TokenSinkResult::RawData(RawKind::Rawtext)
                                }
                                "title" | "textarea" => TokenSinkResult::RawData(RawKind::Rcdata),
                                "plaintext" => TokenSinkResult::Plaintext,
                                _ => TokenSinkResult::Continue,
                            };
                        }
                        TagKind::EndTag => {
                            if name == "script"
                                && let Some(text) = script.take()
                            {
                                tokens.scripts.push(text);
                            }
                            tokens.end.push(name);
                        }
                    }
                }
                Token::CharacterTokens(text) => {
                    if let Some(inside) = script.as_mut() {
                        inside.push_str(&text);
                    }
                }
                Token::CommentToken(text) => tokens.comments.push(text.to_string()),
                _ => {}
            }
            TokenSinkResult::Continue
        }
    }
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let tokenizer = Tokenizer::new(Sink::default(), Default::default());
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let sink = tokenizer.sink;
    let mut tokens = sink.tokens.take();
    // A script left open swallows the rest of the page.
    if let Some(open) = sink.in_script.take() {
        tokens.scripts.push(open);
    }
    tokens
}

/// Notes that end or bend a script element when a record's JSON is pasted inside one as it is.
const HOSTILE: [&str; 4] = [
    "</script><img src=x onerror=alert(1)>",
    "</script><!--",
    "<!--<script>",
    "</SCRIPT ><svg onload=alert(2)>",
];

/// A record whose notes are [`HOSTILE`], made and verified by `lane-records run`.
fn hostile_record(dir: &Path) -> PathBuf {
    let mut scenario = String::from(
        "format = \"project-lanes/scenario\"\nversion = 1\nid = \"hostile\"\n\
         projects = [\"docs\", \"site\"]\nuntouched_project = \"site\"\n\
         title.en = \"Hostile notes\"\ntitle.ja = \"敵対的な注記\"\n\
         summary.en = \"Each note tries to end the script element.\"\n\
         summary.ja = \"どの注記もスクリプト要素を終わらせようとします。\"\n",
    );
    let steps = [
        "op = \"claim\"\nproject = \"docs\"\nrun = \"nightly-1\"",
        "op = \"claim\"\nproject = \"docs\"\nrun = \"deploy-2\"",
        "op = \"release\"\nlease = \"L1\"\noutcome = \"succeeded\"",
        "op = \"view\"\nproject = \"docs\"",
    ];
    for (step, note) in steps.iter().zip(HOSTILE) {
        scenario.push_str(&format!(
            "\n[[steps]]\n{step}\nnote.en = {note:?}\nnote.ja = {note:?}\n"
        ));
    }
    let file = dir.join("hostile.toml");
    std::fs::write(&file, scenario).unwrap();
    let out = dir.join("records");
    let run = lane_records()
        .arg("run")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let record = out.join("hostile.json");
    let replay = lane_records().arg("replay").arg(&record).output().unwrap();
    assert!(replay.status.success(), "the command line verifies it");
    record
}

#[test]
fn a_hostile_record_inside_the_element_render_writes_stays_data_and_runs_nothing() {
    let dir = TempDir::new().unwrap();
    let record = hostile_record(dir.path());
    let json = std::fs::read_to_string(&record).unwrap();
    for note in HOSTILE {
        assert!(json.contains(note), "{note} in the record");
    }

    // Pasted as it is, the record's text ends the script and becomes markup: what the
    // tokenizer sees then is what this test refuses below.
    let naive = tokens(&format!(
        "<lane-viewer><script type=\"application/json\">{json}</script></lane-viewer>"
    ));
    assert!(
        naive.start.iter().any(|(name, _)| name == "img"),
        "{naive:?}"
    );

    for lang in ["en", "ja"] {
        let printed = lane_records()
            .arg("render")
            .arg(&record)
            .args(["--lang", lang, "--element"])
            .output()
            .unwrap();
        assert!(
            printed.status.success(),
            "{}",
            String::from_utf8_lossy(&printed.stderr)
        );
        let element = String::from_utf8(printed.stdout).unwrap();
        let out = dir.path().join(format!("elements-{lang}"));
        let written = lane_records()
            .arg("render")
            .arg(&record)
            .args(["--lang", lang, "--element"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(written.status.success());
        assert_eq!(
            std::fs::read_to_string(out.join("hostile.lane-viewer.html")).unwrap(),
            element,
            "the file holds what is printed"
        );

        let seen = tokens(&element);
        assert_eq!(seen.start[0].0, "lane-viewer");
        assert!(seen.start[0].1.contains(&("lang".into(), lang.into())));
        assert_eq!(seen.end.last().map(String::as_str), Some("lane-viewer"));
        for (name, attrs) in &seen.start {
            assert!(
                !["img", "iframe", "object", "embed"].contains(&name.as_str()),
                "<{name}>"
            );
            for (attr, value) in attrs {
                assert!(!attr.starts_with("on"), "<{name} {attr}={value:?}>");
            }
        }
        let scripts: Vec<_> = seen.start.iter().filter(|(n, _)| n == "script").collect();
        assert_eq!(scripts.len(), 1, "{seen:?}");
        assert_eq!(
            scripts[0].1,
            [("type".to_string(), "application/json".to_string())]
        );
        assert_eq!(seen.comments, Vec::<String>::new());
        // The script's text is the record, every character of it.
        assert_eq!(seen.scripts.len(), 1);
        let inline: serde_json::Value = serde_json::from_str(&seen.scripts[0]).unwrap();
        let file: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(inline, file);
        // And the static picture shows the notes as text.
        assert!(element.contains("&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"));
    }
}

/// One element of an SVG file as read by an XML parser: its name, attributes, text, and the
/// stack of its ancestors' names.
#[derive(Debug, Clone)]
struct Node {
    name: String,
    attrs: BTreeMap<String, String>,
    text: String,
    ancestors: Vec<String>,
    /// The offset its ancestors' `x`/`y` (nested `<svg>`) and `translate(…)` give it, and the
    /// viewport that clips it (the nearest nested `<svg>`'s), in the root's coordinates.
    offset: (f64, f64),
    clip: Option<(f64, f64, f64, f64)>,
}

fn nodes(svg: &str) -> Vec<Node> {
    let mut reader = quick_xml::Reader::from_str(svg);
    let mut out: Vec<Node> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    loop {
        let event = reader.read_event().expect("well-formed XML");
        let (e, empty) = match &event {
            Event::Start(e) => (e.clone(), false),
            Event::Empty(e) => (e.clone(), true),
            Event::Text(t) => {
                if let Some(&i) = open.last() {
                    out[i].text.push_str(&t.decode().unwrap());
                }
                continue;
            }
            Event::CData(t) => {
                if let Some(&i) = open.last() {
                    out[i].text.push_str(&String::from_utf8_lossy(t));
                }
                continue;
            }
            Event::GeneralRef(r) => {
                if let Some(&i) = open.last() {
                    out[i].text.push('&');
                    out[i].text.push_str(&String::from_utf8_lossy(r));
                }
                continue;
            }
            Event::End(_) => {
                open.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = String::from_utf8(e.name().as_ref().to_vec()).unwrap();
        let attrs: BTreeMap<String, String> = e
            .attributes()
            .map(|a| {
                let a = a.unwrap();
                (
                    String::from_utf8(a.key.as_ref().to_vec()).unwrap(),
                    a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                        .unwrap()
                        .into_owned(),
                )
            })
            .collect();
        let parent = open.last().map(|&i| out[i].clone());
        let ancestors = parent
            .as_ref()
            .map(|p| {
                let mut a = p.ancestors.clone();
                a.push(p.name.clone());
                a
            })
            .unwrap_or_default();
        let (mut offset, mut clip) = parent
            .as_ref()
            .map(|p| {
                let (dx, dy) = translate(&p.attrs);
                ((p.offset.0 + dx, p.offset.1 + dy), p.clip)
            })
            .unwrap_or(((0.0, 0.0), None));
        if name == "svg" && parent.is_some() {
            let number = |n: &str| attrs.get(n).and_then(|v| v.parse::<f64>().ok());
            offset.0 += number("x").unwrap_or(0.0);
            offset.1 += number("y").unwrap_or(0.0);
            let (w, h) = (number("width").unwrap(), number("height").unwrap());
            // Drawn at the scale 1 its viewBox gives it.
            if let Some(view_box) = attrs.get("viewBox") {
                let v: Vec<f64> = view_box.split(' ').map(|n| n.parse().unwrap()).collect();
                assert_eq!((v[2], v[3]), (w, h), "a nested viewBox at scale 1");
            }
            clip = Some((offset.0, offset.1, offset.0 + w, offset.1 + h));
        }
        out.push(Node {
            name,
            attrs,
            text: String::new(),
            ancestors,
            offset,
            clip,
        });
        if !empty {
            open.push(out.len() - 1);
        }
    }
    out
}

/// The `translate(x,y)` of a `transform` attribute (the only transform the pictures use).
fn translate(attrs: &BTreeMap<String, String>) -> (f64, f64) {
    let Some(t) = attrs.get("transform") else {
        return (0.0, 0.0);
    };
    let inner = t
        .strip_prefix("translate(")
        .and_then(|t| t.strip_suffix(')'))
        .unwrap_or_else(|| panic!("only translate(…) is read: {t}"));
    let v: Vec<f64> = inner
        .split([',', ' '])
        .filter(|s| !s.is_empty())
        .map(|n| n.parse().unwrap())
        .collect();
    (v[0], v.get(1).copied().unwrap_or(0.0))
}

/// The points a path's `d` visits (M, L, H, V, Z in both cases; the drawing uses no curves).
fn path_points(d: &str) -> Vec<(f64, f64)> {
    let mut points = Vec::new();
    let (mut x, mut y) = (0.0, 0.0);
    let mut command = 'M';
    let mut numbers: Vec<f64> = Vec::new();
    let mut flush = |command: char, numbers: &mut Vec<f64>, x: &mut f64, y: &mut f64| {
        let mut i = 0;
        while i < numbers.len() {
            match command {
                'M' | 'L' => {
                    (*x, *y) = (numbers[i], numbers[i + 1]);
                    i += 2;
                }
                'm' | 'l' => {
                    (*x, *y) = (*x + numbers[i], *y + numbers[i + 1]);
                    i += 2;
                }
                'H' => {
                    *x = numbers[i];
                    i += 1;
                }
                'h' => {
                    *x += numbers[i];
                    i += 1;
                }
                'V' => {
                    *y = numbers[i];
                    i += 1;
                }
                'v' => {
                    *y += numbers[i];
                    i += 1;
                }
                other => panic!("path command {other} in {d}"),
            }
            points.push((*x, *y));
        }
        numbers.clear();
    };
    let mut number = String::new();
    for c in d.chars().chain(std::iter::once(' ')) {
        let starts_number = c == '-' && !number.is_empty() && !number.ends_with('e');
        if c.is_ascii_digit() || c == '.' || (c == '-' && !starts_number) {
            number.push(c);
            continue;
        }
        if !number.is_empty() {
            numbers.push(number.parse().unwrap());
            number.clear();
        }
        if starts_number {
            number.push(c);
        } else if c.is_ascii_alphabetic() {
            flush(command, &mut numbers, &mut x, &mut y);
            command = c;
        }
    }
    flush(command, &mut numbers, &mut x, &mut y);
    points
}

/// The box (left, top, right, bottom) an element draws, in the root's coordinates, before
/// clipping; text measured generously (0.62 em a character, 1.05 em a wide one).
fn drawn_box(node: &Node) -> Option<(f64, f64, f64, f64)> {
    let number = |n: &str| node.attrs.get(n).map(|v| v.parse::<f64>().unwrap());
    let (ox, oy) = node.offset;
    let (dx, dy) = translate(&node.attrs);
    let (ox, oy) = (ox + dx, oy + dy);
    match node.name.as_str() {
        "rect" => {
            let (x, y) = (number("x").unwrap_or(0.0), number("y").unwrap_or(0.0));
            let (w, h) = (number("width")?, number("height")?);
            Some((ox + x, oy + y, ox + x + w, oy + y + h))
        }
        "path" => {
            let points = path_points(node.attrs.get("d")?);
            let xs = points.iter().map(|p| p.0);
            let ys = points.iter().map(|p| p.1);
            Some((
                ox + xs.clone().fold(f64::MAX, f64::min),
                oy + ys.clone().fold(f64::MAX, f64::min),
                ox + xs.fold(f64::MIN, f64::max),
                oy + ys.fold(f64::MIN, f64::max),
            ))
        }
        "text" => {
            let class = node.attrs.get("class").cloned().unwrap_or_default();
            let size = if ["lv-tl-tick", "lv-tl-code", "lv-tl-count", "lv-tl-runlabel"]
                .iter()
                .any(|c| class.split(' ').any(|k| k == *c))
            {
                11.0
            } else {
                12.0
            };
            let width: f64 = node
                .text
                .chars()
                .map(|c| if c.is_ascii() { 0.62 } else { 1.05 } * size)
                .sum();
            let (x, y) = (number("x")?, number("y")?);
            let left = match node.attrs.get("text-anchor").map(String::as_str) {
                Some("end") => x - width,
                Some("middle") => x - width / 2.0,
                _ => x,
            };
            Some((
                ox + left,
                oy + y - size,
                ox + left + width,
                oy + y + size * 0.3,
            ))
        }
        _ => None,
    }
}

/// Renders each bundled record's `--svg` picture in both languages and hands each file over.
fn each_svg(check: impl Fn(&str, &str)) {
    let out = TempDir::new().unwrap();
    for lang in ["en", "ja"] {
        let dir = out.path().join(lang);
        let run = lane_records()
            .arg("render")
            .args(bundled())
            .arg("--svg")
            .arg(&dir)
            .args(["--lang", lang])
            .output()
            .unwrap();
        assert!(run.status.success());
        for name in files_in(&dir) {
            let svg = std::fs::read_to_string(dir.join(&name)).unwrap();
            check(&format!("{lang}/{name}"), &svg);
        }
    }
}

#[test]
fn a_standalone_svg_declares_a_size_and_viewbox_that_hold_everything_it_draws() {
    each_svg(|name, svg| {
        let all = nodes(svg);
        let root = &all[0];
        let size = |n: &str| root.attrs[n].parse::<f64>().unwrap();
        let (w, h) = (size("width"), size("height"));
        assert_eq!(root.attrs["viewBox"], format!("0 0 {w} {h}"), "{name}");
        let mut drawn = 0;
        for node in all
            .iter()
            .filter(|n| !n.ancestors.iter().any(|a| a == "defs"))
        {
            let Some((mut l, mut t, mut r, mut b)) = drawn_box(node) else {
                continue;
            };
            if let Some((cl, ct, cr, cb)) = node.clip {
                (l, t, r, b) = (l.max(cl), t.max(ct), r.min(cr), b.min(cb));
                if l >= r || t >= b {
                    continue;
                }
            }
            drawn += 1;
            assert!(
                l >= -0.5 && t >= -0.5 && r <= w + 0.5 && b <= h + 0.5,
                "{name}: <{} {:?}> {:?} draws {l:.1},{t:.1} to {r:.1},{b:.1}, outside 0 0 {w} {h}",
                node.name,
                node.attrs.get("class"),
                node.text
            );
        }
        assert!(drawn > 10, "{name}: {drawn} elements drawn");
        // The stylesheet sets no box (padding, border, margin) on any `<svg>` of the file: in a
        // browser it would move the drawing out of the viewBox, as `.lane-viewer`'s did.
        let style = all.iter().find(|n| n.name == "style").unwrap().text.clone();
        let classes: Vec<String> = all
            .iter()
            .filter(|n| n.name == "svg")
            .flat_map(|n| {
                n.attrs
                    .get("class")
                    .cloned()
                    .unwrap_or_default()
                    .split(' ')
                    .map(String::from)
                    .collect::<Vec<_>>()
            })
            .filter(|c| !c.is_empty())
            .collect();
        for rule in style.split('}') {
            let Some((selectors, body)) = rule.rsplit_once('{') else {
                continue;
            };
            for selector in selectors.split(',') {
                let last = selector.split_whitespace().last().unwrap_or_default();
                let names_an_svg = last.starts_with("svg")
                    || classes
                        .iter()
                        .any(|c| last.split(['.', ':', '>']).any(|part| part == c));
                let boxed = body.split(';').any(|d| {
                    let property = d.split(':').next().unwrap_or_default().trim();
                    ["padding", "border", "margin"]
                        .iter()
                        .any(|p| property.starts_with(p))
                });
                assert!(
                    !(names_an_svg && boxed),
                    "{name}: `{}` gives an <svg> of the picture a box: {body}",
                    selector.trim()
                );
            }
        }
    });
}

#[test]
fn a_standalone_svg_has_a_legend_of_every_state_it_can_show_and_its_marks() {
    for path in bundled() {
        let record = read_record(&path).unwrap();
        let model = timeline(&record);
        for lang in [
            project_lanes_view::i18n::Lang::En,
            project_lanes_view::i18n::Lang::Ja,
        ] {
            let svg = project_lanes_view::still::timeline_svg(
                &record,
                lang,
                lane_records::render::VIEWER_CSS,
            );
            let all = nodes(&svg);
            let keys: Vec<&str> = all
                .iter()
                .filter_map(|n| n.attrs.get("data-legend").map(String::as_str))
                .collect();
            let mut expected = vec!["idle", "running", "stop_requested"];
            if model.groups.len() > 1 {
                expected.extend([
                    "queued",
                    "dispatched",
                    "persisting",
                    "done",
                    "cancelled",
                    "unresolved",
                    "resolved",
                ]);
            }
            assert_eq!(keys, expected, "{}", record.id);
            // Each key's swatch is drawn as the drawing draws that state, with its name beside it.
            for node in all.iter().filter(|n| n.attrs.contains_key("data-legend")) {
                let state = &node.attrs["data-legend"];
                assert!(
                    all.iter().any(|n| n.name == "rect"
                        && n.attrs
                            .get("class")
                            .is_some_and(|c| c.contains(&format!("lv-tl-s-{state} "))
                                || c.ends_with(&format!("lv-tl-s-{state}")))
                        && n.ancestors.len() > node.ancestors.len()),
                    "{}: a swatch for {state}",
                    record.id
                );
            }
            let words = |msg: &str| all.iter().any(|n| n.name == "text" && n.text == msg);
            let refused =
                project_lanes_view::i18n::text(lang, project_lanes_view::i18n::TlMsg::RefusedMark);
            assert_eq!(words(refused), !model.refused.is_empty(), "{}", record.id);
        }
    }
}

#[test]
fn a_standalone_svg_gives_every_colour_without_custom_properties_first() {
    each_svg(|name, svg| {
        let all = nodes(svg);
        let style = &all.iter().find(|n| n.name == "style").unwrap().text;
        let mut checked = 0;
        for rule in style.split('}') {
            let Some((selectors, body)) = rule.rsplit_once('{') else {
                continue;
            };
            let declarations: Vec<(&str, &str)> = body
                .split(';')
                .filter_map(|d| d.split_once(':'))
                .map(|(p, v)| (p.trim(), v.trim()))
                .collect();
            for (i, (property, value)) in declarations.iter().enumerate() {
                if property.starts_with("--") || !value.contains("var(") {
                    continue;
                }
                checked += 1;
                let fallback = declarations[..i]
                    .iter()
                    .rev()
                    .find(|(p, _)| p == property)
                    .map(|(_, v)| *v);
                assert!(
                    fallback.is_some_and(|v| !v.contains("var(")),
                    "{name}: `{}` takes {property} only from a custom property: {value}",
                    selectors.trim()
                );
            }
        }
        assert!(checked > 30, "{name}: {checked} declarations");
    });
}

/// The pixels (RGBA, 8 bits each, row by row) and width of a PNG file as `rsvg-convert` writes
/// it (8-bit RGBA, not interlaced).
fn png_pixels(png: &[u8]) -> (Vec<[u8; 4]>, usize) {
    use std::io::Read as _;
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let (mut at, mut width, mut height, mut data) = (8, 0, 0, Vec::new());
    while at + 8 <= png.len() {
        let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
        let kind = &png[at + 4..at + 8];
        let body = &png[at + 8..at + 8 + len];
        match kind {
            b"IHDR" => {
                width = u32::from_be_bytes(body[0..4].try_into().unwrap()) as usize;
                height = u32::from_be_bytes(body[4..8].try_into().unwrap()) as usize;
                assert_eq!(
                    (body[8], body[9], body[12]),
                    (8, 6, 0),
                    "8-bit RGBA, not interlaced"
                );
            }
            b"IDAT" => data.extend_from_slice(body),
            _ => {}
        }
        at += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(data.as_slice())
        .read_to_end(&mut raw)
        .unwrap();
    let stride = width * 4;
    let mut pixels: Vec<u8> = vec![0; stride * height];
    for row in 0..height {
        let line = &raw[row * (stride + 1)..(row + 1) * (stride + 1)];
        let (filter, line) = (line[0], &line[1..]);
        for i in 0..stride {
            let a = if i >= 4 {
                pixels[row * stride + i - 4]
            } else {
                0
            };
            let b = if row > 0 {
                pixels[(row - 1) * stride + i]
            } else {
                0
            };
            let c = if row > 0 && i >= 4 {
                pixels[(row - 1) * stride + i - 4]
            } else {
                0
            };
            let predicted = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((u16::from(a) + u16::from(b)) / 2) as u8,
                4 => {
                    let p = i16::from(a) + i16::from(b) - i16::from(c);
                    let (pa, pb, pc) = (
                        (p - i16::from(a)).abs(),
                        (p - i16::from(b)).abs(),
                        (p - i16::from(c)).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                other => panic!("PNG filter {other}"),
            };
            pixels[row * stride + i] = line[i].wrapping_add(predicted);
        }
    }
    (
        pixels.chunks(4).map(|p| p.try_into().unwrap()).collect(),
        width,
    )
}

/// With `rsvg-convert` installed (Debian's librsvg2-bin; `cargo xtask test` does not need it), a
/// renderer that knows no custom properties draws each picture in its real colours, with no
/// black box, and nothing outside its viewBox (the picture is drawn with a margin around it).
#[test]
fn rsvg_convert_draws_each_picture_in_its_colours_and_inside_its_box() {
    let found = Command::new("rsvg-convert").arg("--version").output();
    if !found.is_ok_and(|o| o.status.success()) {
        eprintln!("rsvg-convert is not installed: nothing to check (apt-get install librsvg2-bin)");
        return;
    }
    let dir = TempDir::new().unwrap();
    each_svg(|name, svg| {
        let root = nodes(svg).remove(0);
        let (w, h): (usize, usize) = (
            root.attrs["width"].parse().unwrap(),
            root.attrs["height"].parse().unwrap(),
        );
        const M: usize = 20;
        // The picture as a nested viewport that lets overflow show, on a larger page.
        let inner = svg.replacen(
            "<svg xmlns=\"http://www.w3.org/2000/svg\"",
            &format!("<svg x=\"{M}\" y=\"{M}\" overflow=\"visible\""),
            1,
        );
        let framed = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\">{inner}</svg>",
            w + 2 * M,
            h + 2 * M
        );
        let file = dir.path().join("framed.svg");
        std::fs::write(&file, framed).unwrap();
        let png = Command::new("rsvg-convert").arg(&file).output().unwrap();
        assert!(
            png.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&png.stderr)
        );
        let (pixels, width) = png_pixels(&png.stdout);
        assert_eq!(width, w + 2 * M);
        let mut black = 0;
        for (i, [r, g, b, a]) in pixels.iter().copied().enumerate() {
            let (x, y) = (i % width, i / width);
            let inside = (M..M + w).contains(&x) && (M..M + h).contains(&y);
            if !inside {
                assert_eq!(
                    a,
                    0,
                    "{name}: drawn at {},{} outside the viewBox",
                    x as i64 - M as i64,
                    y as i64 - M as i64
                );
            } else if a == 255 && r < 8 && g < 8 && b < 8 {
                black += 1;
            }
        }
        assert_eq!(
            black, 0,
            "{name}: {black} black pixels (a colour left to a custom property)"
        );
        // The card is the viewer's light background.
        assert_eq!(
            pixels[(M + 4) * width + M + w / 2],
            [255, 255, 255, 255],
            "{name}"
        );
    });
}
