//! Comparing two records: the list of differences (`[data-diff][data-diff-kind][data-step-a]
//! [data-step-b]`), keys that walk it, "Show … of B" selecting that record's step, "Compare
//! with…", `mount`'s `compare`, and the deep link that restores a comparison. The expected
//! differences are worked out here from how the records were made, not read from the viewer.

use lane_viewer_tests::*;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;
use web_sys::Element;

/// The bundled busy project, made again with its release's outcome `failed`, as `busy-failed`.
fn busy_failed() -> String {
    let text = |s: &str| project_lanes::record::Text {
        en: s.into(),
        ja: s.into(),
    };
    let mut rec = project_lanes::record::Recorder::new(
        "busy-failed",
        text("A busy project, failed"),
        text("The release fails."),
        &["docs", "site"],
        "site",
    )
    .unwrap();
    rec.claim("docs", "nightly-101");
    rec.claim("docs", "nightly-102");
    rec.claim("docs", "nightly-101");
    rec.view("docs");
    rec.release("L1", "failed");
    serde_json::to_string(&rec.finish().unwrap()).unwrap()
}

/// Each listed difference: (kind, step in A, step in B).
fn differences(root: &Element) -> Vec<(String, Option<usize>, Option<usize>)> {
    let step = |d: &Element, name| attr(d, name).map(|n| n.parse::<usize>().unwrap());
    all(root, ".lv-compare [data-diff]")
        .iter()
        .map(|d| {
            (
                attr(d, "data-diff-kind").unwrap(),
                step(d, "data-step-a"),
                step(d, "data-step-b"),
            )
        })
        .collect()
}

/// The ids of the records compared: A's and B's.
fn compared(root: &Element) -> [String; 2] {
    let section = one(root, "section.lv-compare");
    ["data-compare-a", "data-compare-b"].map(|name| attr(&section, name).unwrap_or_default())
}

/// The current difference, from 0.
fn current(root: &Element) -> Option<usize> {
    maybe(root, ".lv-compare [data-diff][aria-current=true]")
        .and_then(|d| attr(&d, "data-diff")?.parse().ok())
}

fn current_button(root: &Element) -> Element {
    one(root, ".lv-compare [aria-current=true] [data-diff-choice]")
}

#[wasm_bindgen_test]
async fn a_comparison_lists_its_differences_and_keys_walk_them() {
    for (lang, two, side_b) in [
        ("en", "2 differences:", "Show step 5 of B"),
        ("ja", "違いが 2 件あります。", "B のステップ 5 を表示"),
    ] {
        let m = mount(&[("record", s("busy-project")), ("lang", s(lang))]).await;
        let root = m.root();
        m.viewer.open_text("busy-failed.json", busy_failed());
        assert!(eventually(|| m.viewer.selected().as_deref() == Some("busy-failed")).await);
        assert!(m.viewer.compare("busy-project", "busy-failed"));
        assert!(eventually(|| maybe(&root, ".lv-compare [data-diff]").is_some()).await);
        let section = one(&root, "section.lv-compare");
        assert_eq!(compared(&root), ["busy-project", "busy-failed"]);
        assert_eq!(text(&one(&section, ".lv-cmp-summary")), two);
        // Step 5's release was given another outcome; docs' first holder ended otherwise.
        assert_eq!(
            differences(&root),
            [
                ("asked".to_string(), Some(4), Some(4)),
                ("holders".to_string(), Some(0), Some(0)),
            ]
        );
        assert_eq!(all(&root, ".lv-cmp-strip [data-diff-mark]").len(), 2);
        assert_eq!(current(&root), Some(0), "the first difference is current");
        let sides = all(&root, "[data-compare-side]");
        assert_eq!(sides.len(), 2);
        assert!(text(&sides[0]).contains("succeeded"), "{}", text(&sides[0]));
        assert!(text(&sides[1]).contains("failed"), "{}", text(&sides[1]));

        // Keys on the list: down, `]` round past the last, up, Home, End.
        for (pressed, then) in [
            ("ArrowDown", 1),
            ("]", 0),
            ("[", 1),
            ("ArrowUp", 0),
            ("End", 1),
            ("Home", 0),
        ] {
            key(&current_button(&root), pressed);
            assert_eq!(current(&root), Some(then), "after {pressed}");
            assert_eq!(
                focused(),
                Some(current_button(&root)),
                "focus after {pressed}"
            );
        }
        click(&one(&root, "[data-diff-choice=\"1\"]"));
        assert_eq!(current(&root), Some(1));
        click(&one(&root, "[data-diff-choice=\"0\"]"));

        // Showing B's step selects that record at that step; the comparison stays.
        let show = one(&root, "[data-compare-show=b]");
        assert_eq!(text(&show), side_b);
        click(&show);
        assert_eq!(m.viewer.selected().as_deref(), Some("busy-failed"));
        assert_eq!(m.viewer.current_step(), Some(4));
        assert!(maybe(&root, "section.lv-compare").is_some());

        click(&one(&root, "[data-compare-close]"));
        assert!(maybe(&root, "section.lv-compare").is_none());
        assert!(!m.viewer.compare("busy-project", "no-such-record"));
        assert!(maybe(&root, "section.lv-compare").is_none());
    }
}

#[wasm_bindgen_test]
async fn compare_with_chooses_the_other_record_and_a_record_against_itself_differs_in_nothing() {
    let m = mount(&[("record", s("busy-project")), ("lang", s("en"))]).await;
    let root = m.root();
    assert!(
        eventually(|| {
            maybe(
                &root,
                "select[data-compare-with] option[value=\"explicit-outcome\"]",
            )
            .is_some()
        })
        .await
    );
    let select = one(&root, "select[data-compare-with]");
    let values: Vec<String> = all(&select, "option")
        .iter()
        .filter_map(|o| attr(o, "value"))
        .collect();
    assert!(!values.contains(&"busy-project".to_string()), "{values:?}");
    js_sys::Reflect::set(&select, &"value".into(), &"explicit-outcome".into()).unwrap();
    let change = web_sys::Event::new_with_event_init_dict("change", &{
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        init
    })
    .unwrap();
    select.dispatch_event(&change).unwrap();
    assert_eq!(compared(&root), ["busy-project", "explicit-outcome"]);
    assert!(!differences(&root).is_empty());
    drop(m);

    let m = mount(&[
        ("record", s("busy-project")),
        ("lang", s("en")),
        (
            "compare",
            js_sys::Array::of2(&s("busy-project"), &s("busy-project")).into(),
        ),
    ])
    .await;
    let root = m.root();
    let summary = one(&root, ".lv-compare [data-differences]");
    assert_eq!(attr(&summary, "data-differences").as_deref(), Some("0"));
    assert!(
        text(&summary).starts_with("No differences"),
        "{}",
        text(&summary)
    );
    assert!(differences(&root).is_empty());
    drop(m);

    let host = host();
    let bad = options(&[("compare", js_sys::Array::of1(&s("busy-project")).into())]);
    let error = lane_viewer::mount(host.clone(), bad).await.err().unwrap();
    let message = js_sys::Error::from(error).message().as_string().unwrap();
    assert!(
        message.contains("compare must name two records"),
        "{message}"
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn the_deep_link_restores_a_comparison_and_its_current_difference() {
    clear_hash();
    window()
        .location()
        .set_hash("record=busy-project&lang=en&compare=busy-project,busy-project-nope")
        .unwrap();
    // An unknown record in the link: a notice, no comparison.
    let m = mount(&[("hash", JsValue::TRUE)]).await;
    let root = m.root();
    assert!(error_codes(&root).contains(&"UNKNOWN_RECORD".to_string()));
    assert!(maybe(&root, "section.lv-compare").is_none());
    drop(m);

    clear_hash();
    window()
        .location()
        .set_hash("record=busy-project&lang=ja&compare=busy-project,explicit-outcome&diff=2")
        .unwrap();
    let m = mount(&[("hash", JsValue::TRUE)]).await;
    let root = m.root();
    assert!(eventually(|| current(&root).is_some()).await);
    let listed = differences(&root).len();
    assert!(listed >= 2, "{listed}");
    assert_eq!(current(&root), Some(1), "diff=2 counts from 1");
    key(&current_button(&root), "ArrowDown");
    let next = 2 % listed;
    assert_eq!(current(&root), Some(next));
    let hash = window().location().hash().unwrap();
    assert!(
        hash.ends_with(&format!(
            "&compare=busy-project,explicit-outcome&diff={}",
            next + 1
        )),
        "{hash}"
    );
    // Back: the link's difference again.
    window().history().unwrap().back().unwrap();
    assert!(eventually(|| current(&root) == Some(1)).await);
    drop(m);
    clear_hash();
}

/// "Compare with…" follows the selected record and the language: it lists the records other
/// than the selected one, in the words of the language shown.
#[wasm_bindgen_test]
async fn the_chooser_lists_the_other_records_after_a_switch_of_record_or_language() {
    let m = mount(&[("record", s("busy-project")), ("lang", s("en"))]).await;
    let root = m.root();
    let ids = record_ids().await;
    let listed = || {
        let select = one(&root, "select[data-compare-with]");
        let label = one(&root, ".lv-cmp-with label");
        let options = all(&select, "option");
        (
            text(&label),
            text(&options[0]),
            options[1..]
                .iter()
                .filter_map(|o| attr(o, "value"))
                .collect::<Vec<_>>(),
        )
    };
    let others = |id: &str| ids.iter().filter(|i| *i != id).cloned().collect::<Vec<_>>();
    assert!(eventually(|| listed().2 == others("busy-project")).await);
    for (id, lang, words) in [
        (
            "explicit-outcome",
            "en",
            ("Compare with…", "(no comparison)"),
        ),
        (
            "explicit-outcome",
            "ja",
            ("比較する記録…", "（比較しない）"),
        ),
        ("busy-project", "ja", ("比較する記録…", "（比較しない）")),
        ("busy-project", "en", ("Compare with…", "(no comparison)")),
    ] {
        assert!(m.viewer.select(id));
        assert!(m.viewer.set_lang(lang));
        let (label, none, values) = listed();
        assert_eq!((label.as_str(), none.as_str()), words, "{id} in {lang}");
        assert_eq!(values, others(id), "{id} in {lang}");
    }
}
