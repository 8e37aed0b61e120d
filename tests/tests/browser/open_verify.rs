//! Every record shown is replayed on the core in the browser, and people open their
//! own records (open_text, the file picker's path, drops), bad input included.

use lane_viewer_tests::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::Element;

#[wasm_bindgen(module = "/tests/browser/helpers.js")]
extern "C" {
    #[wasm_bindgen(js_name = dropBig)]
    fn drop_big(target: &web_sys::Element, name: &str, bytes: f64);
    #[wasm_bindgen(js_name = logVerdicts)]
    fn log_verdicts(target: &web_sys::Element, log: &js_sys::Array);
    /// `record verdict step code`, with `null` for what is absent.
    #[wasm_bindgen(js_name = verdictLine)]
    fn verdict_line(detail: &JsValue) -> String;
}

fn panel(root: &web_sys::Element) -> web_sys::Element {
    one(root, "[role=tabpanel]")
}

fn verification(root: &web_sys::Element) -> Option<String> {
    attr(&panel(root), "data-verification")
}

#[wasm_bindgen_test]
async fn every_bundled_record_verifies_in_both_languages() {
    let index = index().await;
    for lang in ["en", "ja"] {
        let m = mount(&[("lang", s(lang))]).await;
        for entry in &index.records {
            assert!(m.viewer.select(entry.id.as_str()));
            let record = record(entry.id.as_str()).await;
            assert_eq!(
                verification(&m.root()).as_deref(),
                Some("verified"),
                "{}",
                entry.id
            );
            let line = text(&one(&panel(&m.root()), ".lv-verification"));
            let steps = record.steps.len();
            let expected = if lang == "en" {
                format!("Replayed on the core in this browser: all {steps} steps match")
            } else {
                format!("全 {steps} ステップが一致")
            };
            assert!(line.contains(&expected), "{line}");
            assert!(all(&m.root(), "[data-mismatch]").is_empty());
        }
    }
}

#[wasm_bindgen_test]
async fn a_tampered_record_with_a_recomputed_hash_shows_replay_mismatch_at_its_step() {
    for (lang, head) in [
        ("en", "Step 7 (release) does not match the core:"),
        ("ja", "ステップ 7（解放）がコアと一致しません："),
    ] {
        let m = mount(&[
            ("src", s("fixtures/tampered-replay/index.json")),
            ("lang", s(lang)),
        ])
        .await;
        let root = m.root();
        assert_eq!(verification(&root).as_deref(), Some("mismatch"));
        // Still shown: people need to see what they saved.
        assert_eq!(all(&root, "[data-step]").len(), 7);
        let marked = all(&root, "[data-mismatch]");
        assert_eq!(marked.len(), 1);
        assert_eq!(attr(&marked[0], "data-step").as_deref(), Some("6"));
        let line = one(&root, ".lv-verification");
        assert_eq!(
            attr(&line, "data-viewer-error").as_deref(),
            Some("REPLAY_MISMATCH")
        );
        let words = text(&line);
        assert!(words.contains(head), "{words}");
        assert!(words.contains("LEASE_NOT_CURRENT"), "{words}");
        // The line links to the step.
        click(&one(&line, "[data-goto-step]"));
        assert_eq!(attr(&focused().unwrap(), "data-step").as_deref(), Some("6"));
    }
}

#[wasm_bindgen_test]
async fn open_text_opens_a_record_as_a_selected_tab_and_verifies_it() {
    let m = mount(&[("lang", s("en"))]).await;
    let root = m.root();
    assert!(text(&root).contains("never uploaded"));
    m.viewer.open_text("mine.json", views_record("mine", 12));
    assert_eq!(m.viewer.selected().as_deref(), Some("mine"));
    let selected_text = || m.viewer.selected_text().map(String::from);
    assert_eq!(selected_text(), Some(views_record("mine", 12)));
    let tab = one(&root, "[role=tab][aria-selected=true]");
    assert_eq!(attr(&tab, "data-opened-file").as_deref(), Some("mine.json"));
    assert!(text(&tab).contains("mine.json"));
    assert_eq!(verification(&root).as_deref(), Some("verified"));
    assert!(text(&root).contains("all 12 steps match"));
    // The bundled records keep working.
    assert!(m.viewer.select("busy-project"));
    assert_shows(&root, &record("busy-project").await, "en");
    let file = String::from_utf8(fetch_bytes("records/busy-project.json").await).unwrap();
    assert_eq!(selected_text(), Some(file));
    // A file that could not be read has no text to hand on; nor has a destroyed viewer.
    m.viewer.open_text("hand-written", "not json".into());
    assert_eq!(selected_text(), None);
    assert!(m.viewer.select("busy-project"));
    m.viewer.destroy();
    assert_eq!(selected_text(), None);
}

#[wasm_bindgen_test]
async fn a_dropped_file_opens_like_a_chosen_one() {
    let m = mount(&[("lang", s("ja"))]).await;
    let root = m.root();
    drop_files(
        &root,
        vec!["dropped.json".into()],
        vec![s(&views_record("dropped", 3))],
    );
    assert!(eventually(|| m.viewer.selected().as_deref() == Some("dropped")).await);
    assert_eq!(verification(&root).as_deref(), Some("verified"));
}

#[wasm_bindgen_test]
async fn an_index_opened_with_some_of_its_records_says_which_are_missing() {
    let m = mount(&[
        ("src", s("fixtures/tampered-replay/index.json")),
        ("lang", s("en")),
    ])
    .await;
    let root = m.root();
    let index = fetch_text("records/index.json").await;
    let busy = fetch_text("records/busy-project.json").await;
    let stale = fetch_text("records/stale-release.json").await;
    drop_files(
        &root,
        vec![
            "index.json".into(),
            "busy-project.json".into(),
            "stale-release.json".into(),
        ],
        vec![s(&index), s(&busy), s(&stale)],
    );
    assert!(eventually(|| m.viewer.selected().as_deref() == Some("independent-claims")).await);
    // busy-project came with the index: it opens and verifies.
    assert!(m.viewer.select("busy-project"));
    assert_shows(&root, &record("busy-project").await, "en");
    assert_eq!(verification(&root).as_deref(), Some("verified"));
    // stale-release was already shown (from the page's index): refused as a duplicate.
    let dup = all(&root, "[role=tab][data-tab-error=DUPLICATE_RECORD]");
    assert_eq!(dup.len(), 1);
    // The others were not dropped: each says so.
    click(&one(&root, "[role=tab][data-record-id=independent-claims]"));
    assert_eq!(error_codes(&panel(&root)), ["RECORD_UNAVAILABLE"]);
    assert!(text(&panel(&root)).contains("not opened with it"));
}

#[wasm_bindgen_test]
async fn bad_files_opened_by_a_person_give_their_errors_in_both_languages() {
    let busy = fetch_text("records/busy-project.json").await;
    let index = fetch_text("records/index.json").await;
    let index_len = lane_viewer_tests::index().await.records.len();
    let future = busy.replacen("\"version\": 1", "\"version\": 4", 1);
    let other = busy.replacen("project-lanes/record", "something-else", 1);
    // An index whose one entry is itself an index (hash right): a record was expected.
    let inner = index.clone();
    let outer = format!(
        r#"{{"format":"project-lanes/index","version":1,"records":[{{"id":"inner","file":"inner.json","title":{{"en":"Inner","ja":"内側"}},"sha256":"{}"}}]}}"#,
        lane_viewer::read::hex_sha256(inner.as_bytes())
    );
    let cases: Vec<(&str, JsValue, &str)> = vec![
        ("empty.json", s(""), "INVALID_JSON"),
        ("broken.json", s("{\n  \"format\": }"), "INVALID_JSON"),
        (
            "garbage.json",
            js_sys::Uint8Array::from(&[0xff_u8, 0xfe, 0x00, 0x9c, 0x80][..]).into(),
            "INVALID_JSON",
        ),
        ("other.json", s(&other), "UNKNOWN_FORMAT"),
        ("future.json", s(&future), "UNSUPPORTED_VERSION"),
        ("copy.json", s(&busy), "DUPLICATE_RECORD"),
    ];
    for lang in ["en", "ja"] {
        let m = mount(&[("lang", s(lang))]).await;
        let root = m.root();
        let names: Vec<String> = cases.iter().map(|c| c.0.to_string()).collect();
        let contents: Vec<JsValue> = cases.iter().map(|c| c.1.clone()).collect();
        drop_files(&root, names, contents);
        drop_files(
            &root,
            vec!["outer.json".into(), "inner.json".into()],
            vec![s(&outer), s(&inner)],
        );
        drop_big(&root, "big.json", 17.0 * 1024.0 * 1024.0);
        let expected = cases.len() + 2 + index_len;
        assert!(
            eventually(|| all(&root, "[role=tab]").len() == expected).await,
            "{} tabs",
            all(&root, "[role=tab]").len()
        );
        let mut checks: Vec<(&str, &str)> = cases.iter().map(|c| (c.0, c.2)).collect();
        checks.push(("inner", "UNKNOWN_FORMAT"));
        checks.push(("big.json", "RECORD_TOO_LARGE"));
        for (name, code) in checks {
            let tab = one(&root, &format!("[role=tab][data-record-id=\"{name}\"]"));
            assert_eq!(
                attr(&tab, "data-tab-error").as_deref(),
                Some(code),
                "{name}"
            );
            click(&tab);
            let p = panel(&root);
            assert_eq!(error_codes(&p), [code], "{name}");
            let message = text(&p);
            let localized = if lang == "ja" {
                message
                    .chars()
                    .any(|c| ('\u{3040}'..='\u{30ff}').contains(&c))
            } else {
                message.is_ascii() || message.contains('…')
            };
            assert!(localized, "{name} in {lang}: {message}");
        }
        // Line and column of a JSON syntax error.
        click(&one(&root, "[role=tab][data-record-id=\"broken.json\"]"));
        let detail = text(&one(&panel(&root), ".lv-error-detail"));
        assert!(detail.contains("line 2"), "{detail}");
        // No panic: the viewer still answers and shows a bundled record.
        assert!(m.viewer.select("stale-release"));
        assert_shows(&root, &record("stale-release").await, lang);
    }
}

#[wasm_bindgen_test]
async fn twenty_files_opened_at_once_become_twenty_tabs() {
    let m = mount(&[("lang", s("en"))]).await;
    let names: Vec<String> = (0..20).map(|i| format!("f{i}.json")).collect();
    let contents: Vec<JsValue> = (0..20)
        .map(|i| s(&views_record(&format!("f{i}"), 2)))
        .collect();
    drop_files(&m.root(), names, contents);
    assert!(eventually(|| m.viewer.selected().as_deref() == Some("f0")).await);
    assert_eq!(all(&m.root(), "[data-opened-file]").len(), 20);
    for i in 0..20 {
        assert!(m.viewer.select(&format!("f{i}")));
        assert_eq!(verification(&m.root()).as_deref(), Some("verified"));
    }
}

#[wasm_bindgen_test]
async fn a_100000_step_record_verifies_in_the_background_with_progress() {
    let m = mount(&[("lang", s("en"))]).await;
    let text_of = views_record("huge", 100_000);
    assert!(text_of.len() < 16 * 1024 * 1024);
    m.viewer.open_text("huge.json", text_of);
    let root = m.root();
    assert_eq!(m.viewer.selected().as_deref(), Some("huge"));
    assert_eq!(verification(&root).as_deref(), Some("pending"));
    assert!(maybe(&root, ".lv-verification progress").is_some());
    assert!(
        eventually_within(60_000, || verification(&root).as_deref()
            == Some("verified"))
        .await
    );
    assert!(text(&root).contains("all 100,000 steps match"));
    wasm_bindgen_futures::JsFuture::from(m.viewer.settled())
        .await
        .unwrap();
    // The list holds a window of the steps, not 100,000 cards: the page stays small.
    let list = one(&root, ".lv-steps");
    let window = |list: &Element| {
        let n = |name| attr(list, name).and_then(|v| v.parse::<usize>().ok());
        (n("data-steps-from"), n("data-steps-to"))
    };
    assert_eq!(window(&list), (Some(0), Some(200)));
    assert_eq!(attr(&list, "data-steps-total").as_deref(), Some("100000"));
    assert_eq!(all(&root, "[data-step]").len(), 200);
    assert!(
        text(&one(&root, "[data-steps-shown]")).contains("Steps 1–200 of 100,000 are listed here")
    );
    assert!(one(&root, "[data-steps-earlier]").has_attribute("hidden"));
    let elements = document().query_selector_all("*").unwrap().length();
    wasm_bindgen_test::console_log!("100,000 steps: {elements} elements in the page");
    assert!(elements < 20_000, "{elements} elements in the page");
    // A step far away: the window moves to it, and its card is current.
    assert!(m.viewer.select_step(JsValue::from(99_999_u32)));
    assert_eq!(window(&list), (Some(99_979), Some(100_000)));
    let card = one(&root, "[data-step=\"99999\"]");
    assert!(card.class_list().contains("lv-current"));
    assert!(one(&root, "[data-steps-later]").has_attribute("hidden"));
    // Paging: the window before, with focus on its first card.
    click(&one(&root, "[data-steps-earlier]"));
    assert_eq!(window(&list), (Some(99_779), Some(99_979)));
    assert_eq!(
        attr(&focused().unwrap(), "data-step").as_deref(),
        Some("99779")
    );
    click(&one(&root, "[data-steps-later]"));
    assert_eq!(window(&list), (Some(99_979), Some(100_000)));
    assert!(all(&root, "[data-step]").len() <= 200);
    // In Japanese too.
    assert!(m.viewer.set_lang("ja"));
    assert!(
        eventually(
            || maybe(&root, "[data-steps-shown]").is_some_and(|l| text(&l).contains(
                "全 100,000 ステップのうち、ステップ 99,980〜100,000 をここに表示しています"
            ))
        )
        .await,
        "{}",
        text(&one(&root, "[data-steps-shown]"))
    );
}

#[wasm_bindgen_test]
async fn open_false_hides_the_button_and_ignores_drops() {
    let m = mount(&[("lang", s("en")), ("open", JsValue::FALSE)]).await;
    assert!(maybe(&m.root(), "[data-open-records]").is_none());
    drop_files(
        &m.root(),
        vec!["x.json".into()],
        vec![s(&views_record("x", 1))],
    );
    sleep(50).await;
    assert!(maybe(&m.root(), "[data-opened-file]").is_none());
}

#[wasm_bindgen_test]
async fn src_may_name_a_single_record() {
    let m = mount(&[
        ("src", s("records/persistence-gate.json")),
        ("lang", s("en")),
    ])
    .await;
    assert_shows(&m.root(), &record("persistence-gate").await, "en");
    assert_eq!(verification(&m.root()).as_deref(), Some("verified"));
}

#[wasm_bindgen_test]
async fn a_file_that_could_not_be_read_takes_no_record_id() {
    let m = mount(&[("lang", s("en"))]).await;
    let root = m.root();
    m.viewer.open_text("hand-written", "not json".into());
    let failed = one(&root, "[role=tab][data-opened-file=\"hand-written\"]");
    assert_eq!(
        attr(&failed, "data-tab-error").as_deref(),
        Some("INVALID_JSON")
    );
    m.viewer
        .open_text("hand-written.json", views_record("hand-written", 3));
    assert_eq!(m.viewer.selected().as_deref(), Some("hand-written"));
    let tab = one(&root, "[role=tab][data-opened-file=\"hand-written.json\"]");
    assert_eq!(attr(&tab, "data-tab-error"), None);
    assert_eq!(
        attr(&tab, "data-record-id").as_deref(),
        Some("hand-written")
    );
    assert_eq!(verification(&root).as_deref(), Some("verified"));
    // The id names the record, from a page call too; the failed file keeps its own tab.
    assert!(m.viewer.select("busy-project"));
    assert!(m.viewer.select("hand-written"));
    assert_eq!(verification(&root).as_deref(), Some("verified"));
    click(&failed_tab(&root));
    assert_eq!(error_codes(&panel(&root)), ["INVALID_JSON"]);
}

fn failed_tab(root: &web_sys::Element) -> web_sys::Element {
    one(root, "[role=tab][data-opened-file=\"hand-written\"]")
}

/// The events logged by `log_verdicts`: (the event, its detail as a line).
fn logged(log: &js_sys::Array) -> Vec<(web_sys::Event, String)> {
    log.iter()
        .map(|entry| {
            let entry: js_sys::Array = entry.unchecked_into();
            (
                entry.get(0).unchecked_into(),
                entry.get(1).as_string().unwrap(),
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn each_record_read_has_one_verdict_told_by_an_event_and_a_promise() {
    // Listening before mount: the host hears every verdict, the first ones too.
    let host = host();
    let log = js_sys::Array::new();
    log_verdicts(&host, &log);
    let opts = [("src", s("fixtures/mixed/index.json")), ("lang", s("en"))];
    let viewer = try_mount(&host, &opts).await.expect("mount resolves");
    let root = one(&host, "[data-lane-viewer]");
    let ids: Vec<String> = all(&root, "[role=tab]")
        .iter()
        .map(|tab| attr(tab, "data-record-id").unwrap())
        .collect();
    let mut answers = Vec::new();
    for id in &ids {
        // A record never shown is replayed for its promise.
        let detail = JsFuture::from(viewer.verdict(Some(id.clone())))
            .await
            .unwrap_or_else(|e| panic!("{id}: {e:?}"));
        answers.push(verdict_line(&detail));
    }
    // The page shows the same: the tab's error code, or the panel's verification once shown.
    let mut kinds = std::collections::BTreeSet::new();
    for (id, answer) in ids.iter().zip(&answers) {
        let tab = one(&root, &format!("[role=tab][data-record-id=\"{id}\"]"));
        let expected = match attr(&tab, "data-tab-error") {
            Some(code) => format!("{id} invalid null {code}"),
            None => {
                assert!(viewer.select(id));
                let shown = verification(&root).unwrap();
                format!("{id} {shown} null null")
            }
        };
        assert_eq!(answer, &expected);
        kinds.insert(answer.split(' ').nth(1).unwrap().to_owned());
    }
    assert_eq!(
        kinds.into_iter().collect::<Vec<_>>(),
        ["invalid", "verified"],
        "the fixture holds both: {answers:?}"
    );
    // Selecting every record again tells nothing new: one event per record read, from the
    // viewer's root, bubbling and composed, with the promise's detail.
    for id in &ids {
        assert!(viewer.select(id));
    }
    let events = logged(&log);
    let mut told: Vec<String> = events.iter().map(|(_, line)| line.clone()).collect();
    told.sort();
    let mut expected = answers.clone();
    expected.sort();
    assert_eq!(told, expected);
    for (event, line) in &events {
        assert_eq!(event.target(), Some(root.clone().into()), "{line}");
        assert!(event.bubbles() && event.composed(), "{line}");
    }
    // The selected record's verdict, when no id is given.
    let selected = viewer.selected().unwrap();
    let detail = JsFuture::from(viewer.verdict(None)).await.unwrap();
    assert!(verdict_line(&detail).starts_with(&format!("{selected} ")));

    let error = JsFuture::from(viewer.verdict(Some("no-such-record".into())))
        .await
        .unwrap_err();
    assert!(
        format!("{error:?}").contains("no record \"no-such-record\""),
        "{error:?}"
    );
    viewer.destroy();
    let error = JsFuture::from(viewer.verdict(None)).await.unwrap_err();
    assert!(format!("{error:?}").contains("destroyed"), "{error:?}");
    host.remove();
}

#[wasm_bindgen_test]
async fn an_index_that_cannot_be_shown_is_one_verdict_with_no_record() {
    let host = host();
    let log = js_sys::Array::new();
    log_verdicts(&host, &log);
    let opts = [
        ("src", s("fixtures/broken-index/index.json")),
        ("lang", s("en")),
    ];
    let viewer = try_mount(&host, &opts).await.expect("mount resolves");
    let codes = error_codes(&host);
    assert_eq!(codes.len(), 1, "{codes:?}");
    let detail = JsFuture::from(viewer.verdict(None)).await.unwrap();
    let line = format!("null invalid null {}", codes[0]);
    assert_eq!(verdict_line(&detail), line);
    let told: Vec<String> = logged(&log).into_iter().map(|(_, line)| line).collect();
    assert_eq!(told, [line]);
    let error = JsFuture::from(viewer.verdict(Some("busy-project".into())))
        .await
        .unwrap_err();
    assert!(format!("{error:?}").contains(&codes[0]), "{error:?}");
    viewer.destroy();
    host.remove();
}
