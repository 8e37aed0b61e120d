//! One corpus, one verdict: the viewer opens every record file of `records/tests/corpus/` (served
//! by the fixture site under `corpus/`) and must give the verdict written in its
//! `expected.txt` — the verdict `lane-records replay` gives the same bytes
//! (`records/tests/corpus.rs`) — whether `src` names the file (as `index.html#src=` does), a
//! person drops it, or a page hands it over with `open_text`. Files of unclosed nesting must
//! leave every viewer on the page working.

use lane_viewer_tests::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;
use web_sys::Element;

/// `(file, verdict)` for every line of the corpus's `expected.txt`.
async fn expected() -> Vec<(String, String)> {
    fetch_text("corpus/expected.txt")
        .await
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace();
            let file = words.next().unwrap().to_string();
            (file, words.next().unwrap().to_string())
        })
        .collect()
}

/// What the viewer says about the record it shows: `verified`, or its error code.
fn verdict_shown(root: &Element) -> String {
    let panel = one(root, "[role=tabpanel]");
    let codes = error_codes(root);
    match attr(&panel, "data-verification").as_deref() {
        Some("verified") if codes.is_empty() => "verified".into(),
        Some("mismatch") if codes == ["REPLAY_MISMATCH"] => "REPLAY_MISMATCH".into(),
        verification => match codes.as_slice() {
            [code] => code.clone(),
            _ => format!("{verification:?} with codes {codes:?}"),
        },
    }
}

#[wasm_bindgen_test]
async fn src_naming_a_corpus_file_gives_the_verdict_of_lane_records() {
    let mut wrong = Vec::new();
    for (file, expected) in expected().await {
        let m = mount(&[("src", s(&format!("corpus/{file}"))), ("lang", s("en"))]).await;
        let root = m.root();
        let shown = verdict_shown(&root);
        if shown != expected {
            wrong.push(format!("{file}: expected {expected}, shown {shown}"));
        }
        // Never left saying it is loading.
        assert!(maybe(&root, ".lv-loading").is_none(), "{file}");
        assert_eq!(attr(&root, "aria-busy"), None, "{file}");
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A viewer showing one bundled record whose id no corpus file has, to open files in.
async fn viewer_to_open_in() -> Mounted {
    mount(&[
        ("src", s("records/independent-claims.json")),
        ("lang", s("en")),
    ])
    .await
}

/// The verdict on the tab of the opened file `file`, which the viewer selected.
fn opened_verdict(root: &Element, file: &str) -> String {
    let tab = one(root, &format!("[role=tab][data-opened-file=\"{file}\"]"));
    if attr(&tab, "aria-selected").as_deref() != Some("true") {
        return "not selected".into();
    }
    let shown = verdict_shown(root);
    match attr(&tab, "data-tab-error") {
        Some(code) if code != shown => format!("tab {code}, panel {shown}"),
        _ => shown,
    }
}

#[wasm_bindgen_test]
async fn a_corpus_file_a_person_opens_gets_the_verdict_of_lane_records() {
    let mut wrong = Vec::new();
    for (file, expected) in expected().await {
        let bytes = fetch_bytes(&format!("corpus/{file}")).await;
        let m = viewer_to_open_in().await;
        let root = m.root();
        let contents = js_sys::Uint8Array::from(bytes.as_slice());
        drop_files(&root, vec![file.clone()], vec![contents.into()]);
        let selector = format!("[role=tab][data-opened-file=\"{file}\"]");
        assert!(
            eventually_within(10_000, || maybe(&root, &selector).is_some()).await,
            "{file} opened"
        );
        let shown = opened_verdict(&root, &file);
        if shown != expected {
            wrong.push(format!("{file}: expected {expected}, shown {shown}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[wasm_bindgen_test]
async fn a_corpus_file_handed_to_open_text_gets_the_verdict_of_lane_records() {
    let mut wrong = Vec::new();
    let mut opened = 0;
    for (file, expected) in expected().await {
        // open_text takes text: files that are not UTF-8 cannot be handed over this way.
        let Ok(text) = String::from_utf8(fetch_bytes(&format!("corpus/{file}")).await) else {
            continue;
        };
        let m = viewer_to_open_in().await;
        m.viewer.open_text(&file, text);
        opened += 1;
        let shown = opened_verdict(&m.root(), &file);
        if shown != expected {
            wrong.push(format!("{file}: expected {expected}, shown {shown}"));
        }
    }
    assert!(opened > 50, "{opened} files");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[wasm_bindgen_test]
async fn after_files_of_unclosed_nesting_every_viewer_on_the_page_keeps_working() {
    let a = mount(&[("lang", s("en"))]).await;
    let root = a.root();
    for (name, opening) in [("brackets", "["), ("objects", "{\"a\":")] {
        for depth in [10_000, 100_000] {
            let file = format!("{name}-{depth}.json");
            a.viewer.open_text(&file, opening.repeat(depth));
            let tab = one(&root, &format!("[role=tab][data-opened-file=\"{file}\"]"));
            assert_eq!(
                attr(&tab, "data-tab-error").as_deref(),
                Some("INVALID_JSON"),
                "{file}"
            );
            // Located, at any depth.
            let detail = text(&one(&root, "[role=tabpanel] .lv-error-detail"));
            let column = depth * opening.len();
            assert!(
                detail.contains(&format!("line 1, column {column}")),
                "{file}: {detail}"
            );
        }
    }
    // The same viewer answers clicks, keys and calls.
    click(&one(&root, "[role=tab][data-record-id=busy-project]"));
    assert_shows(&root, &record("busy-project").await, "en");
    click(&one(&root, "[data-lang-choice=ja]"));
    assert_eq!(a.viewer.lang(), "ja");
    assert!(a.viewer.select_step(JsValue::from(1_u32)));
    // Another viewer mounts and works; the first one is destroyed cleanly.
    let b = mount(&[("lang", s("en")), ("record", s("stale-release"))]).await;
    b.viewer.open_text("again.json", "{\"a\":".repeat(100_000));
    assert_eq!(
        error_codes(&one(&b.root(), "[role=tabpanel]")),
        ["INVALID_JSON"]
    );
    assert!(b.viewer.select("stale-release"));
    assert_shows(&b.root(), &record("stale-release").await, "en");
    a.viewer.destroy();
    assert!(maybe(&a.host, "[data-lane-viewer]").is_none());
    click(&one(&b.root(), "[role=tab][data-record-id=busy-project]"));
    assert_shows(&b.root(), &record("busy-project").await, "en");
    let c = mount(&[("lang", s("ja"))]).await;
    assert!(c.viewer.selected().is_some());
}

#[wasm_bindgen_test]
async fn an_export_of_a_postgresql_journal_with_a_changed_row_is_refused_at_that_step() {
    // The row of the fourth transition (step 3 from 0, a claim of `site`) was set to
    // PROJECT_BUSY by SQL; `lane-records replay` names the same step.
    let m = mount(&[
        ("src", s("corpus/pg-journal-changed-row.json")),
        ("lang", s("en")),
    ])
    .await;
    let root = m.root();
    assert_eq!(verdict_shown(&root), "REPLAY_MISMATCH");
    let flagged = all(&root, "[data-step][data-mismatch]");
    assert_eq!(flagged.len(), 1);
    assert_eq!(attr(&flagged[0], "data-step").as_deref(), Some("3"));
    assert_eq!(attr(&flagged[0], "data-op").as_deref(), Some("claim"));
    assert_eq!(
        attr(&flagged[0], "data-result").as_deref(),
        Some("PROJECT_BUSY")
    );
}
