//! What readers read: step responses and snapshots with labelled parts, true text for a failed
//! save, grouped numbers, one step in the singular, steps counted from 1, and Japanese written
//! for Japanese readers (the glossary's terms, full-width punctuation, upright notes).

use lane_viewer_tests::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;
use web_sys::Element;

fn card(root: &Element, n: usize) -> Element {
    one(root, &format!("[data-step=\"{n}\"]"))
}

fn response(root: &Element, n: usize) -> String {
    text(&one(&card(root, n), ".lv-response"))
}

fn verification_line(root: &Element) -> String {
    text(&one(root, ".lv-verification"))
}

#[wasm_bindgen_test]
async fn a_failed_save_is_not_described_as_saved() {
    for (lang, failed, saved, not) in [
        (
            "en",
            "saving R1 failed, lane released",
            "R3 saved, lane released",
            "R1 saved",
        ),
        (
            "ja",
            "R1 の保存に失敗、レーンを解放",
            "R3 を保存、レーンを解放",
            "R1 を保存",
        ),
    ] {
        let m = mount(&[("record", s("unresolved-blocks")), ("lang", s(lang))]).await;
        let root = m.root();
        // Step 6: `persist` with `saved: false`.
        assert_eq!(attr(&card(&root, 5), "data-op").as_deref(), Some("persist"));
        let words = response(&root, 5);
        assert!(words.contains(failed), "{words}");
        assert!(!words.contains(not), "{words}");
        // Step 10: `persist` with `saved: true`.
        let words = response(&root, 9);
        assert!(words.contains(saved), "{words}");
    }
}

#[wasm_bindgen_test]
async fn step_responses_and_snapshots_label_their_parts() {
    let cases = [
        (
            "en",
            "reservation R1 · queue: general · project: docs · run: gen-1 · state: waiting",
            "R1 · queue: general · project: docs · run: gen-1 · state: waiting",
            "lease L1 issued · project: docs · run: nightly-101",
            "docs: running · run: nightly-101",
            "site: idle",
        ),
        (
            "ja",
            "予約 R1 · キュー：general · プロジェクト：docs · 実行：gen-1 · 状態：待機中",
            "R1 · キュー：general · プロジェクト：docs · 実行：gen-1 · 状態：待機中",
            "リース L1 を発行 · プロジェクト：docs · 実行：nightly-101",
            "docs：実行中 · 実行：nightly-101",
            "site：空き",
        ),
    ];
    for (lang, enqueued, chip, lease, busy, idle) in cases {
        let m = mount(&[("record", s("persistence-gate")), ("lang", s(lang))]).await;
        let root = m.root();
        let words = response(&root, 0);
        assert!(words.contains(enqueued), "{words}");
        assert_eq!(text(&one(&card(&root, 0), "[data-reservation=R1]")), chip);
        assert!(m.viewer.select("busy-project"));
        let words = response(&root, 0);
        assert!(words.contains(lease), "{words}");
        assert_eq!(text(&one(&card(&root, 0), "[data-lane=docs]")), busy);
        assert_eq!(text(&one(&card(&root, 0), "[data-lane=site]")), idle);
    }
}

#[wasm_bindgen_test]
async fn a_step_head_names_its_operation_once() {
    let m = mount(&[("record", s("persistence-gate")), ("lang", s("en"))]).await;
    let root = m.root();
    let head = text(&one(&card(&root, 0), ".lv-step-head"));
    assert_eq!(head.matches("enqueue").count(), 1, "{head}");
    assert!(head.starts_with("Step 1"), "{head}");
    // Where the reader's name and the operation's differ, both are shown.
    let head = text(&one(&card(&root, 8), ".lv-step-head"));
    assert!(
        head.contains("save reported") && head.contains("persist"),
        "{head}"
    );
}

#[wasm_bindgen_test]
async fn counts_are_grouped_in_both_languages() {
    for (lang, verified, position) in [
        ("en", "all 10,000 steps match", "10,000 steps"),
        ("ja", "全 10,000 ステップが一致", "全 10,000 ステップ"),
    ] {
        let m = mount(&[("src", s("bench/10000/index.json")), ("lang", s(lang))]).await;
        let root = m.root();
        assert!(
            eventually_within(30_000, || verification_line(&root).contains(verified)).await,
            "{}",
            verification_line(&root)
        );
        let shown = text(&one(&root, "[data-step-position]"));
        assert!(shown.contains(position), "{shown}");
        let ticks: Vec<String> = all(&root, ".lv-tl-tick").iter().map(text).collect();
        assert!(ticks.contains(&"10,000".to_string()), "{ticks:?}");
        assert!(m.viewer.select_step(JsValue::from(9_998_u32)));
        assert!(
            text(&one(&root, "[data-step-position]")).contains("9,999"),
            "{}",
            text(&one(&root, "[data-step-position]"))
        );
    }
}

#[wasm_bindgen_test]
async fn one_step_is_one_step_not_all_1_steps() {
    for (lang, one_step, position) in [
        ("en", "its 1 step matches", "1 step ·"),
        ("ja", "1 ステップが一致します", "全 1 ステップ"),
    ] {
        let m = mount(&[("lang", s(lang))]).await;
        m.viewer.open_text("one.json", one_claim_record("one"));
        let root = m.root();
        let line = verification_line(&root);
        assert!(line.contains(one_step), "{line}");
        assert!(
            !line.contains("all 1 steps") && !line.contains("全 1 "),
            "{line}"
        );
        let shown = text(&one(&root, "[data-step-position]"));
        assert!(shown.contains(position), "{shown}");
        let alt = text(&one(&root, "[data-timeline-alt]"));
        assert!(!alt.contains("1 steps"), "{alt}");
    }
}

#[wasm_bindgen_test]
async fn steps_are_counted_from_1_wherever_a_reader_sees_them() {
    let m = mount(&[("lang", s("en"))]).await;
    let bad = fetch_text("corpus/lease-never-issued.json").await;
    m.viewer.open_text("bad.json", bad);
    let detail = text(&one(&m.root(), "[role=tabpanel] .lv-error-detail"));
    assert!(
        detail.starts_with("step 4 (steps[3].input.lease)"),
        "{detail}"
    );
    // A lane that differs from the core: the project is named once.
    let lanes = fetch_text("corpus/replay-mismatch-lanes.json").await;
    m.viewer
        .open_text("lanes.json", lanes.replace("busy-project", "lanes-differ"));
    let line = verification_line(&m.root());
    assert!(
        line.contains("lane docs: saved running · run: nightly-101, the core shows idle"),
        "{line}"
    );
}

#[wasm_bindgen_test]
async fn japanese_follows_the_glossary_and_japanese_punctuation() {
    let m = mount(&[("record", s("busy-project")), ("lang", s("ja"))]).await;
    let root = m.root();
    let line = verification_line(&root);
    assert!(
        line.contains("このブラウザ上のコアで再生しました"),
        "{line}"
    );
    // PROJECT_BUSY's explanation: キュー, as the glossary says.
    let words = response(&root, 1);
    assert!(
        words.contains("キュー") && !words.contains("待ち行列"),
        "{words}"
    );
    let untouched = text(&one(&root, ".lv-untouched-note"));
    assert_eq!(
        untouched,
        "site はどのステップでも取得されず、最初から最後まで空きのままです。"
    );
    // Labels take a full-width colon, and notes stay upright.
    assert_eq!(
        label_colon_and_note_style(&root),
        ("\"：\"".into(), "normal".into())
    );
    // Outcomes: the exact name in full-width parentheses.
    assert!(m.viewer.select("stale-release"));
    let all_text = text(&one(&root, "[role=tabpanel]"));
    assert!(all_text.contains("成功（succeeded）"), "{all_text}");
    assert!(!all_text.contains("取得し直されています"), "{all_text}");
    assert!(m.viewer.select("unresolved-blocks"));
    let words = response(&root, 7);
    assert!(words.contains("このキューで待機中の予約：1 件"), "{words}");
    // English keeps its own colon and italics.
    assert!(m.viewer.set_lang("en"));
    assert!(m.viewer.select("busy-project"));
    assert_eq!(
        label_colon_and_note_style(&root),
        ("\":\"".into(), "italic".into())
    );
}

/// The colon after the first step's labels, and the font style of its second step's note.
fn label_colon_and_note_style(root: &Element) -> (String, String) {
    let label = one(&card(root, 0), ".lv-k");
    let colon = window()
        .get_computed_style_with_pseudo_elt(&label, "::after")
        .unwrap()
        .unwrap()
        .get_property_value("content")
        .unwrap();
    let note = one(&card(root, 1), ".lv-note");
    let style = window().get_computed_style(&note).unwrap().unwrap();
    (colon, style.get_property_value("font-style").unwrap())
}

#[wasm_bindgen(module = "/tests/browser/helpers.js")]
extern "C" {
    /// `[left, right]` of `text` in `element`, then `[left, right]` of the element's last
    /// character; `null` if the text is not there.
    #[wasm_bindgen(js_name = textExtent)]
    fn text_extent(element: &Element, text: &str) -> JsValue;
}

/// Whether the characters after `value` in `element` (its last one) are drawn after it, to
/// its right: true when a right-to-left override inside `value` stays inside it.
fn ends_after(element: &Element, value: &str) -> bool {
    let extent = text_extent(element, value);
    let n: Vec<f64> = js_sys::Array::from(&extent)
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(n.len(), 4, "{value:?} in {:?}", text(element));
    n[2] >= n[1] - 0.5
}

/// The computed `unicode-bidi` of `element`.
fn unicode_bidi(element: &Element) -> String {
    window()
        .get_computed_style(element)
        .unwrap()
        .unwrap()
        .get_property_value("unicode-bidi")
        .unwrap()
}

#[wasm_bindgen_test]
async fn record_text_with_a_right_to_left_override_stays_inside_its_own_place() {
    use project_lanes::record::{Origin, OriginKind, Recorder, Text, Timestamp};
    let evil = "1-evil\u{202E}drawn";
    let text_of = |s: &str| Text {
        en: s.into(),
        ja: s.into(),
    };
    let mut rec = Recorder::new(
        "bidi",
        text_of(&format!("title {evil}")),
        text_of("t"),
        &["docs", "site"],
        "site",
    )
    .unwrap();
    rec.origin(Origin {
        kind: OriginKind::Journal,
        system: Some(format!("farm {evil}")),
        since: None,
        until: None,
    });
    let at = Timestamp::from_millis(1_777_604_400_000).unwrap();
    rec.claim("docs", &format!("run {evil}"))
        .at(at)
        .actor(&format!("worker{evil}"));
    let record = serde_json::to_string(&rec.finish().unwrap()).unwrap();
    for lang in ["en", "ja"] {
        let m = mount(&[("lang", s(lang)), ("open", JsValue::TRUE)]).await;
        let root = m.root();
        m.viewer
            .open_text(&format!("file {evil}.json"), record.clone());
        assert!(
            eventually(
                || attr(&one(&root, "[role=tabpanel]"), "data-selected-record").as_deref()
                    == Some("bidi")
            )
            .await
        );
        // In a sentence: the system's name, then the sentence's end.
        let origin = one(&root, "[data-origin=journal]");
        assert!(
            ends_after(&origin, &format!("farm {evil}")),
            "{lang}: {}",
            text(&origin)
        );
        // In a tab: the title, then the file's name.
        let tab = one(&root, "[role=tab][data-record-id=bidi]");
        let title = one(&tab, ".lv-tab-title");
        let file = one(&tab, ".lv-tab-file");
        let (t, f) = (
            title.get_bounding_client_rect(),
            file.get_bounding_client_rect(),
        );
        assert!(
            f.left() >= t.right() - 0.5,
            "{lang}: the file name starts inside the title ({} < {})",
            f.left(),
            t.right()
        );
        // Fields: the caller, the inputs, the titles and file names are isolated.
        for selector in [
            ".lv-actor",
            ".lv-inputs code",
            ".lv-tab-title",
            ".lv-tab-file",
        ] {
            let element = one(&root, selector);
            assert_eq!(unicode_bidi(&element), "isolate", "{lang}: {selector}");
        }
    }
}
