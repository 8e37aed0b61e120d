//! One drawing, two backends: the markup `project-lanes-view` writes as a string
//! (`project_lanes_view::tree::html::write`) is the markup the viewer builds in the page from the same
//! operations, for every bundled record's timeline and step cards in both languages.

use lane_viewer_tests::*;
use project_lanes_view::i18n::Lang;
use project_lanes_view::tree::{ROOT, Tree, html};
use wasm_bindgen_test::*;

#[wasm_bindgen_test]
async fn the_timeline_written_as_a_string_is_the_one_built_in_the_page() {
    for entry in index().await.records {
        let record = record(&entry.id).await;
        for lang in Lang::ALL {
            let built = lane_viewer::timeline::section(&document(), lang, &record, "lv9");
            let mut t = Tree::new();
            project_lanes_view::timeline::section(&mut t, ROOT, lang, &record, "lv9");
            assert_eq!(
                built.outer_html(),
                html::write(&t),
                "{} in {}",
                entry.id,
                lang.tag()
            );
        }
    }
}

#[wasm_bindgen_test]
async fn the_step_cards_written_as_a_string_are_the_ones_built_in_the_page() {
    let index = index().await;
    for lang in Lang::ALL {
        let m = mount(&[("lang", s(lang.tag()))]).await;
        for entry in &index.records {
            assert!(m.viewer.select(&entry.id));
            wasm_bindgen_futures::JsFuture::from(m.viewer.settled())
                .await
                .unwrap();
            let record = record(&entry.id).await;
            let mut t = Tree::new();
            let all = (0, usize::MAX);
            project_lanes_view::steps::cards(&mut t, ROOT, lang, &record, all, None);
            let list = one(&m.root(), ".lv-steps");
            assert_eq!(
                list.inner_html(),
                html::write(&t),
                "{} in {}",
                entry.id,
                lang.tag()
            );
        }
    }
}

#[wasm_bindgen_test]
async fn record_text_that_looks_like_markup_is_written_as_text() {
    let json = one_claim_record("markup").replace(
        "One claim.",
        "<img src=x onerror=alert(1)> & \\\"quoted\\\"",
    );
    let m = mount(&[("lang", s("en"))]).await;
    m.viewer.open_text("markup.json", json.clone());
    let record: project_lanes::record::Record = serde_json::from_str(&json).unwrap();
    let mut t = Tree::new();
    let loaded = project_lanes_view::entry::Loaded::new(record, ());
    project_lanes_view::panel::head(&mut t, ROOT, Lang::En, &loaded);
    let written = html::write(&t);
    assert!(
        written.contains("&lt;img src=x onerror=alert(1)&gt; &amp; \"quoted\""),
        "{written}"
    );
    let summary = one(&m.root(), ".lv-summary");
    assert!(written.contains(&summary.outer_html()), "{written}");
}
