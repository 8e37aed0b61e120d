//! `lane-records render`: each record's static picture (an HTML fragment, the timeline as a
//! standalone SVG file), drawn by the viewer's code; bad records refused with nothing written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use lane_records::{read_record, records_dir};
use lane_view::timeline::timeline;
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
        stderr.contains("tampered.json: does not replay on the core (REPLAY_MISMATCH) at step 3"),
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
    let svg = lane_view::still::timeline_svg(&record, lane_view::i18n::Lang::En, css);
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
