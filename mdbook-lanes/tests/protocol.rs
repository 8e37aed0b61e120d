//! The binary as mdBook runs it: `[context, book]` JSON on stdin, the book (or an error naming
//! the markdown file, line and column) out; and `install` on a book folder.

use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

const SCENARIO: &str = r#"format = "project-lanes/scenario"
version = 1
id = "guide-claim"
projects = ["docs", "site"]
untouched_project = "site"
title.en = "A claim"
title.ja = "取得"
summary.en = "One run claims the docs lane and releases it."
summary.ja = "実行が docs のレーンを取得して解放します。"

[[steps]]
op = "claim"
project = "docs"
run = "nightly-1"

[[steps]]
op = "release"
lease = "L1"
outcome = "succeeded"
"#;

/// mdBook's input for a book at `root` whose one chapter `chapter.md` holds `content`.
fn input(root: &Path, content: &str) -> String {
    let chapter = json!({"Chapter": {
        "name": "Chapter", "content": content, "number": null, "sub_items": [],
        "path": "chapter.md", "source_path": "chapter.md", "parent_names": []
    }});
    let context = json!({
        "root": root, "renderer": "html", "mdbook_version": mdbook_preprocessor::MDBOOK_VERSION,
        "config": {"book": {"title": "Test", "src": "src"}, "preprocessor": {"lanes": {}}}
    });
    json!([context, {"items": [chapter]}]).to_string()
}

/// Runs the preprocessor on one chapter: the new content, or the error text.
fn preprocess(root: &Path, content: &str) -> Result<String, String> {
    let out = Command::cargo_bin("mdbook-lanes")
        .unwrap()
        .write_stdin(input(root, content))
        .output()
        .unwrap();
    if out.status.success() {
        let book: Value = serde_json::from_slice(&out.stdout).unwrap();
        Ok(book["items"][0]["Chapter"]["content"]
            .as_str()
            .unwrap()
            .to_string())
    } else {
        assert!(out.stdout.is_empty(), "no book is written on failure");
        Err(String::from_utf8(out.stderr).unwrap())
    }
}

fn book() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    dir
}

/// The inline JSON of the first element in `html`.
fn inline_record(html: &str) -> Value {
    let start = html.find("<script type=\"application/json\">").unwrap() + 32;
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[test]
fn supports_the_html_renderer_only() {
    let bin = || Command::cargo_bin("mdbook-lanes").unwrap();
    bin().args(["supports", "html"]).assert().success();
    bin().args(["supports", "latex"]).assert().failure();
}

#[test]
fn a_lanes_block_becomes_a_viewer_holding_the_record_the_core_made() {
    let dir = book();
    let md = format!("# Title\n\nBefore.\n\n```lanes\n{SCENARIO}```\n\nAfter.\n");
    let out = preprocess(dir.path(), &md).unwrap();
    assert!(out.starts_with("# Title\n\nBefore.\n"));
    assert!(out.trim_end().ends_with("After."));
    assert!(!out.contains("```lanes"));
    assert!(out.contains("<lane-viewer lang=\"en\">"));
    assert!(
        out.contains("data-lane-viewer-static"),
        "the static picture is inside"
    );
    let record = inline_record(&out);
    assert_eq!(record["id"], "guide-claim");
    // The result comes from the core: the claim's lease and the release's outcome are there.
    let text = record.to_string();
    assert!(text.contains("L1") && text.contains("succeeded"), "{text}");
    let element = &out[out.find("<lane-viewer").unwrap()..out.find("</lane-viewer>").unwrap()];
    assert!(
        !element.contains("\n\n"),
        "one markdown HTML block: no blank line inside"
    );
}

#[test]
fn a_block_may_choose_japanese() {
    let dir = book();
    let out = preprocess(dir.path(), &format!("```lanes lang=ja\n{SCENARIO}```\n")).unwrap();
    assert!(out.contains("<lane-viewer lang=\"ja\">"));
    assert!(out.contains("取得"));
}

#[test]
fn an_include_embeds_a_record_file_relative_to_the_chapter() {
    let dir = book();
    let record =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../records/busy-project.json"))
            .unwrap();
    std::fs::create_dir(dir.path().join("src/records")).unwrap();
    std::fs::write(dir.path().join("src/records/busy.json"), &record).unwrap();
    let out = preprocess(dir.path(), "Here:\n\n{{#lanes records/busy.json}}\n").unwrap();
    assert_eq!(
        inline_record(&out),
        serde_json::from_slice::<Value>(&record).unwrap()
    );
    assert!(!out.contains("{{#lanes"));
}

#[test]
fn a_version_3_record_is_embedded_as_its_lines_and_one_that_does_not_replay_is_refused() {
    let dir = book();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../records/tests/corpus");
    let lines = std::fs::read_to_string(corpus.join("v3-valid.jsonl")).unwrap();
    std::fs::write(dir.path().join("src/run.jsonl"), &lines).unwrap();
    let out = preprocess(dir.path(), "{{#lanes run.jsonl}}\n").unwrap();
    let open = "<script type=\"application/json\">";
    let start = out.find(open).unwrap() + open.len();
    let inline = &out[start..start + out[start..].find("</script>").unwrap()];
    assert_eq!(inline.replace("\\u003c", "<"), lines.trim_end());
    let bad = std::fs::read(corpus.join("v3-mismatch.jsonl")).unwrap();
    std::fs::write(dir.path().join("src/bad.jsonl"), bad).unwrap();
    let err = preprocess(dir.path(), "{{#lanes bad.jsonl}}\n").unwrap_err();
    assert!(
        err.contains(
            "src/chapter.md:1:1: bad.jsonl does not replay on the core (REPLAY_MISMATCH) at step 5"
        ),
        "{err}"
    );
}

#[test]
fn directives_inside_code_and_escaped_ones_are_left_as_text() {
    let dir = book();
    let md = "`{{#lanes nothing.json}}` and\n\n```markdown\n{{#lanes nothing.json}}\n```\n\n\\{{#lanes nothing.json}}\n\n````markdown\n```lanes\nnot = \"run\"\n```\n````\n";
    let out = preprocess(dir.path(), md).unwrap();
    assert_eq!(out.matches("{{#lanes nothing.json}}").count(), 3);
    assert!(!out.contains("\\{{#lanes"));
    assert!(!out.contains("<lane-viewer"));
}

#[test]
fn a_bad_toml_line_in_a_block_fails_the_build_at_its_markdown_line_and_column() {
    let dir = book();
    let bad = SCENARIO.replace("run = \"nightly-1\"", "run = nightly-1");
    let md = format!("# Title\n\n```lanes\n{bad}```\n");
    let err = preprocess(dir.path(), &md).unwrap_err();
    let line = md.lines().position(|l| l == "run = nightly-1").unwrap() + 1;
    assert!(err.contains(&format!("src/chapter.md:{line}:7: ")), "{err}");
    assert!(
        err.contains("run = nightly-1\n"),
        "the line is shown: {err}"
    );
}

#[test]
fn a_scenario_the_core_refuses_is_located_in_the_markdown() {
    let dir = book();
    let bad = SCENARIO.replace("lease = \"L1\"", "lease = \"L9\"");
    let md = format!(
        "Intro.\n\n  ```lanes\n{}  ```\n",
        bad.lines().map(|l| format!("  {l}\n")).collect::<String>()
    );
    let err = preprocess(dir.path(), &md).unwrap_err();
    let line = md.lines().position(|l| l.contains("L9")).unwrap() + 1;
    assert!(err.contains(&format!("src/chapter.md:{line}:")), "{err}");
    assert!(err.contains("L9"), "{err}");
}

#[test]
fn a_missing_record_file_is_located_at_its_directive() {
    let dir = book();
    let err = preprocess(dir.path(), "# T\n\nSee  {{#lanes gone.json}}\n").unwrap_err();
    assert!(
        err.contains("src/chapter.md:3:6: cannot embed gone.json"),
        "{err}"
    );
}

#[test]
fn a_file_that_is_not_a_record_is_refused_with_its_code() {
    let dir = book();
    std::fs::write(dir.path().join("src/bad.json"), "{\"format\": 1}").unwrap();
    let err = preprocess(dir.path(), "{{#lanes bad.json}}\n").unwrap_err();
    assert!(
        err.contains("src/chapter.md:1:1: bad.json is not a record"),
        "{err}"
    );
}

#[test]
fn an_unknown_block_option_and_an_empty_block_are_located() {
    let dir = book();
    let err = preprocess(dir.path(), &format!("\n```lanes lang=fr\n{SCENARIO}```\n")).unwrap_err();
    assert!(
        err.contains("src/chapter.md:2:1: unknown language \"fr\""),
        "{err}"
    );
    let err = preprocess(dir.path(), "```lanes\n```\n").unwrap_err();
    assert!(
        err.contains("src/chapter.md:1:1: this ```lanes block is empty"),
        "{err}"
    );
}

#[test]
fn script_end_tags_in_a_record_cannot_end_the_inline_script() {
    let dir = book();
    let evil = SCENARIO.replace(
        "One run claims",
        "</script><script>alert(1)</script><!-- One run claims",
    );
    let out = preprocess(dir.path(), &format!("```lanes\n{evil}```\n")).unwrap();
    let script = &out[out.find("<script type=\"application/json\">").unwrap()..];
    let body = &script[..script.find("</script>").unwrap()];
    assert!(body.contains("\\u003c/script>"), "{body}");
    assert!(!body[1..].contains('<'), "no `<` inside the script element");
    assert!(
        inline_record(&out)
            .to_string()
            .contains("</script><script>alert(1)"),
        "the same text, escaped"
    );
    assert_eq!(out.matches("</script>").count(), 1);
}

#[test]
fn a_bad_record_stops_at_the_first_mistake_and_writes_no_book() {
    let dir = book();
    let err = preprocess(dir.path(), "```lanes\nformat = \"other\"\n```\n").unwrap_err();
    assert!(
        err.starts_with("mdbook-lanes: src/chapter.md:2:10: "),
        "{err}"
    );
}

#[test]
fn install_sets_a_book_up_once_and_keeps_the_authors_formatting() {
    let dir = book();
    let assets = tempfile::tempdir().unwrap();
    std::fs::write(assets.path().join("lane-viewer.standalone.js"), "// js").unwrap();
    std::fs::write(assets.path().join("viewer.css"), "/* css */").unwrap();
    let toml = "# My book\n[book]\ntitle = \"Mine\"  # keep me\n\n[output.html]\nadditional-css = [\"custom.css\"]\n";
    std::fs::write(dir.path().join("book.toml"), toml).unwrap();
    let install = || {
        Command::cargo_bin("mdbook-lanes")
            .unwrap()
            .arg("install")
            .arg(dir.path())
            .arg("--assets")
            .arg(assets.path())
            .assert()
            .success()
    };
    install();
    let once = std::fs::read_to_string(dir.path().join("book.toml")).unwrap();
    assert!(
        once.starts_with("# My book\n[book]\ntitle = \"Mine\"  # keep me\n"),
        "{once}"
    );
    let parsed: toml_edit::DocumentMut = once.parse().unwrap();
    assert_eq!(
        parsed["preprocessor"]["lanes"]["command"].as_str(),
        Some("mdbook-lanes")
    );
    let css: Vec<_> = parsed["output"]["html"]["additional-css"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(css, ["custom.css", "lanes/viewer.css"]);
    let js: Vec<_> = parsed["output"]["html"]["additional-js"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(js, ["lanes/lane-viewer.standalone.js"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("lanes/viewer.css")).unwrap(),
        "/* css */"
    );
    let again = install();
    assert!(String::from_utf8_lossy(&again.get_output().stdout).contains("already set up"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("book.toml")).unwrap(),
        once
    );
}

#[test]
fn install_without_assets_says_where_they_come_from_and_changes_nothing() {
    let dir = book();
    std::fs::write(dir.path().join("book.toml"), "[book]\n").unwrap();
    let empty = tempfile::tempdir().unwrap();
    let out = Command::cargo_bin("mdbook-lanes")
        .unwrap()
        .arg("install")
        .arg(dir.path())
        .arg("--assets")
        .arg(empty.path())
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&out.get_output().stderr).to_string();
    assert!(err.contains("cargo xtask dist"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("book.toml")).unwrap(),
        "[book]\n"
    );
}

#[test]
fn install_help_is_help_and_not_a_book_folder() {
    for args in [
        &["install", "--help"][..],
        &["install", "-h"],
        &["help", "install"],
    ] {
        let out = Command::cargo_bin("mdbook-lanes")
            .unwrap()
            .args(args)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            stdout.contains("BOOK_DIR")
                && stdout.contains("--assets")
                && stdout.contains("book.toml"),
            "{args:?}: {stdout}"
        );
        assert!(!stdout.contains("cannot read"), "{stdout}");
    }
    // An option it does not know is a mistake in the command line, named as such.
    let out = Command::cargo_bin("mdbook-lanes")
        .unwrap()
        .args(["install", "--asset", "x", "book"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--asset"), "{stderr}");
    assert!(
        !stderr.contains("book.toml"),
        "no book was looked for: {stderr}"
    );
}

#[test]
fn the_tools_help_says_which_mdbook_versions_it_supports() {
    let out = Command::cargo_bin("mdbook-lanes")
        .unwrap()
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("mdBook 0.5"), "{stdout}");
    assert!(
        stdout.contains("install") && stdout.contains("supports"),
        "{stdout}"
    );
}

/// mdBook 0.4's input for a book at `root`: the book's chapters are `sections`, not `items`.
fn input_of_mdbook_0_4(root: &Path, version: &str) -> String {
    let context = json!({
        "root": root, "renderer": "html", "mdbook_version": version,
        "config": {"book": {"authors": [], "language": "en", "multilingual": false,
                            "src": "src", "title": "Test"},
                   "preprocessor": {"lanes": {}}}
    });
    json!([context, {"sections": [], "__non_exhaustive": null}]).to_string()
}

#[test]
fn an_mdbook_other_than_0_5_is_refused_with_the_versions_mdbook_lanes_supports() {
    let dir = book();
    for (version, input) in [
        ("0.4.40", input_of_mdbook_0_4(dir.path(), "0.4.40")),
        (
            "0.6.0",
            input(dir.path(), "text").replace(mdbook_preprocessor::MDBOOK_VERSION, "0.6.0"),
        ),
    ] {
        let out = Command::cargo_bin("mdbook-lanes")
            .unwrap()
            .write_stdin(input)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{version}");
        assert!(out.stdout.is_empty(), "{version}: no book written");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.starts_with(&format!(
                "mdbook-lanes: this book is built by mdBook {version}"
            )) && stderr.contains("mdBook 0.5"),
            "{version}: {stderr}"
        );
    }
    // Every 0.5 release is taken, without a warning.
    let earlier = input(dir.path(), "text").replace(mdbook_preprocessor::MDBOOK_VERSION, "0.5.0");
    let out = Command::cargo_bin("mdbook-lanes")
        .unwrap()
        .write_stdin(earlier)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn install_without_assets_copies_the_viewer_this_build_carries_or_says_how_to_get_one() {
    let dir = book();
    std::fs::write(dir.path().join("book.toml"), "[book]\n").unwrap();
    let out = Command::cargo_bin("mdbook-lanes")
        .unwrap()
        .arg("install")
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    match mdbook_lanes::install::Viewer::carried() {
        Some(viewer) => {
            assert!(out.status.success(), "{err}");
            let lanes = dir.path().join("lanes");
            let script = std::fs::read(lanes.join("lane-viewer.standalone.js")).unwrap();
            let stylesheet = std::fs::read(lanes.join("viewer.css")).unwrap();
            assert_eq!(script, viewer.script.as_ref());
            assert_eq!(stylesheet, viewer.stylesheet.as_ref());
            assert!(String::from_utf8_lossy(&script).contains("customElements.define"));
        }
        None => {
            assert_eq!(out.status.code(), Some(1), "{err}");
            assert!(
                err.contains("carries no viewer") && err.contains("cargo xtask dist"),
                "{err}"
            );
            assert_eq!(
                std::fs::read_to_string(dir.path().join("book.toml")).unwrap(),
                "[book]\n"
            );
        }
    }
}

#[test]
fn lanes_diff_compares_two_record_files_in_one_viewer() {
    let dir = book();
    let records = dir.path().join("src/records");
    std::fs::create_dir(&records).unwrap();
    let busy = std::fs::read(lane_records::records_dir().join("busy-project.json")).unwrap();
    let stale = std::fs::read(lane_records::records_dir().join("stale-release.json")).unwrap();
    std::fs::write(records.join("busy.json"), &busy).unwrap();
    std::fs::write(records.join("stale.json"), &stale).unwrap();
    let out = preprocess(
        dir.path(),
        "Before.\n\n{{#lanes-diff records/busy.json records/stale.json lang=ja}}\n\nAfter.\n",
    )
    .unwrap();
    assert!(
        out.contains("<lane-viewer lang=\"ja\" compare=\"busy-project stale-release\" record=\"busy-project\">"),
        "{out}"
    );
    // Both records inline, in order, and the comparison's static picture before them.
    assert_eq!(out.matches("<script type=\"application/json\">").count(), 2);
    assert_eq!(inline_record(&out)["id"], "busy-project");
    let second = &out[out.find("</script>").unwrap() + 9..];
    assert_eq!(inline_record(second)["id"], "stale-release");
    let picture = &out[out.find("<lane-viewer").unwrap()..out.find("<script").unwrap()];
    assert!(picture.contains("data-lane-viewer-static"), "{picture}");
    assert!(
        picture.contains("data-compare-a=\"busy-project\""),
        "{picture}"
    );
    assert!(picture.contains("data-diff-kind="), "{picture}");
    assert!(picture.contains("違いが "), "in Japanese: {picture}");
    assert!(!picture.contains("\n\n"), "one HTML block for markdown");
    assert!(out.starts_with("Before.") && out.trim_end().ends_with("After."));

    // The same id twice, one path, three paths, an unknown directive: located errors.
    for (directive, says) in [
        (
            "{{#lanes-diff records/busy.json records/busy.json}}",
            "both the record \"busy-project\"",
        ),
        (
            "{{#lanes-diff records/busy.json}}",
            "compares two record files",
        ),
        (
            "{{#lanes-diff a.json b.json c.json}}",
            "compares two record files",
        ),
        ("{{#lanes-dif a.json b.json}}", "unknown directive"),
        (
            "{{#lanes-diff records/busy.json gone.json}}",
            "cannot embed gone.json",
        ),
    ] {
        let err = preprocess(dir.path(), &format!("# T\n\n{directive}\n")).unwrap_err();
        assert!(
            err.contains("chapter.md:3:1: ") && err.contains(says),
            "{directive}: {err}"
        );
    }
}
