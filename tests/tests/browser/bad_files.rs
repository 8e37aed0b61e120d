//! Files the viewer cannot show, and how it says so: empty and broken indexes (one bad entry
//! spares the others), fields the format does not have, a failed record's tab, English details
//! inside Japanese.

use lane_viewer_tests::*;
use wasm_bindgen_test::*;

fn tab(root: &web_sys::Element, id: &str) -> web_sys::Element {
    one(root, &format!("[role=tab][data-record-id=\"{id}\"]"))
}

#[wasm_bindgen_test]
async fn an_empty_index_says_it_lists_no_records() {
    for (lang, words) in [
        ("en", "The index lists no records."),
        ("ja", "記録の一覧に記録がありません。"),
    ] {
        let m = mount(&[
            ("src", s("fixtures/empty-index/index.json")),
            ("lang", s(lang)),
        ])
        .await;
        assert_eq!(error_codes(&m.root()), ["EMPTY_INDEX"]);
        assert!(text(&m.root()).contains(words), "{}", text(&m.root()));
    }
}

// another copy of the module on the page numbers its viewers from 1 too; its ids are
// already in the document.

#[wasm_bindgen_test]
async fn errors_in_the_index_are_index_errors_and_one_bad_entry_spares_the_others() {
    let m = mount(&[("src", s("fixtures/duplicate-ids/index.json"))]).await;
    assert_eq!(error_codes(&m.root()), ["INVALID_INDEX"]);
    assert!(text(&m.root()).contains("index"));
    let m = mount(&[
        ("src", s("fixtures/bad-file/index.json")),
        ("lang", s("en")),
    ])
    .await;
    assert_shows(&m.root(), &record("busy-project").await, "en");
    let outside = tab(&m.root(), "outside");
    assert_eq!(
        attr(&outside, "data-tab-error").as_deref(),
        Some("INVALID_INDEX")
    );
}

#[wasm_bindgen_test]
async fn an_index_with_fields_the_format_does_not_have_is_refused() {
    let index = fetch_text("records/index.json").await;
    let cases = [
        (
            "top.json",
            index.replacen("\"version\": 1,", "\"version\": 1,\n  \"extra\": true,", 1),
        ),
        (
            "entry.json",
            index.replacen("\"id\": ", "\"token\": \"t\",\n      \"id\": ", 1),
        ),
        (
            "proto.json",
            index.replacen(
                "\"version\": 1,",
                "\"version\": 1,\n  \"__proto__\": {},",
                1,
            ),
        ),
        (
            "twice.json",
            index.replacen("\"version\": 1,", "\"version\": 1,\n  \"records\": [],", 1),
        ),
    ];
    for (name, text) in cases {
        assert_ne!(text, index, "{name} was edited");
        let m = mount(&[("lang", s("en"))]).await;
        m.viewer.open_text(name, text);
        let tab = one(
            &m.root(),
            &format!("[role=tab][data-opened-file=\"{name}\"]"),
        );
        assert_eq!(
            attr(&tab, "data-tab-error").as_deref(),
            Some("INVALID_INDEX"),
            "{name}"
        );
    }
}

#[wasm_bindgen_test]
async fn a_tab_whose_record_failed_says_so_in_text() {
    for (lang, words) in [("en", "could not be shown"), ("ja", "表示できません")] {
        let m = mount(&[("src", s("fixtures/mixed/index.json")), ("lang", s(lang))]).await;
        let failed = tab(&m.root(), "not-json");
        assert!(text(&failed).contains(words), "{}", text(&failed));
        let good = tab(&m.root(), "busy-project");
        assert!(!text(&good).contains(words));
    }
}

#[wasm_bindgen_test]
async fn english_error_details_inside_japanese_are_marked_english() {
    let m = mount(&[
        ("src", s("fixtures/mixed/index.json")),
        ("lang", s("ja")),
        ("record", s("not-json")),
    ])
    .await;
    let detail = one(&m.root(), "[role=tabpanel] .lv-error-detail");
    let lang_of = detail.closest("[lang]").unwrap().unwrap();
    assert_eq!(attr(&lang_of, "lang").as_deref(), Some("en"));
}
