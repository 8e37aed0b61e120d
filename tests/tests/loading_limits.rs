//! The viewer against hostile servers and huge files: bodies announced over the limit, endless
//! bodies, huge indexes, many records fetched a few at a time, a record too large to build.

#![cfg(target_arch = "wasm32")]

use lane_viewer_tests::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function prepareTimings() {
  performance.setResourceTimingBufferSize(100000);
  performance.clearResourceTimings();
}
export function fetchOverlap(part) {
  const es = performance.getEntriesByType("resource").filter((e) => e.name.includes(part));
  const ev = [];
  for (const e of es) { ev.push([e.startTime, 1]); ev.push([e.responseEnd, -1]); }
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let c = 0, m = 0;
  for (const [, d] of ev) { c += d; m = Math.max(m, c); }
  return [es.length, m];
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = prepareTimings)]
    fn prepare_timings();
    #[wasm_bindgen(js_name = fetchOverlap)]
    fn fetch_overlap(part: &str) -> js_sys::Array;
}

#[wasm_bindgen_test]
async fn an_index_announced_over_the_limit_is_refused_from_its_length_and_first_chunk() {
    let m = mount(&[("src", s("__length/2000000000/index.json"))]).await;
    assert_eq!(error_codes(&m.root()), ["INDEX_TOO_LARGE"]);
    assert!(text(&m.root()).contains("2000000000 bytes"));
}

// a body without Content-Length that never ends.

#[wasm_bindgen_test]
async fn an_endless_index_stops_being_read_at_the_limit() {
    let start = now();
    let m = mount(&[("src", s("__endless/index.json"))]).await;
    assert_eq!(error_codes(&m.root()), ["INDEX_TOO_LARGE"]);
    // Stopped near 16 MiB, not after gigabytes.
    assert!(now() - start < 30_000.0);
}

#[wasm_bindgen_test]
async fn an_index_of_80000_entries_is_refused_without_reading_them() {
    let m = mount(&[("src", s("fixtures/wide-index/index.json"))]).await;
    assert_eq!(error_codes(&m.root()), ["INVALID_INDEX"]);
    assert!(text(&m.root()).contains("at most 1024"));
    assert!(all(&m.root(), "[role=tab]").is_empty());
}

#[wasm_bindgen_test]
async fn record_files_are_fetched_at_most_six_at_a_time() {
    prepare_timings();
    let m = mount(&[("src", s("fixtures/many/index.json"))]).await;
    let tabs = all(&m.root(), "[role=tab]");
    assert_eq!(tabs.len(), 200);
    assert!(all(&m.root(), "[data-tab-error]").is_empty());
    // The browser adds resource timing entries in a later task: wait for the last ones.
    let fetched = || {
        fetch_overlap("/fixtures/many/many-")
            .get(0)
            .as_f64()
            .unwrap()
    };
    assert!(
        eventually(|| fetched() == 200.0).await,
        "{} timings",
        fetched()
    );
    let most = fetch_overlap("/fixtures/many/many-")
        .get(1)
        .as_f64()
        .unwrap();
    assert!(most <= 6.0, "{most} record fetches in flight at once");
}

#[wasm_bindgen_test]
async fn a_record_with_270000_final_lanes_is_refused_not_built() {
    let m = mount(&[("src", s("fixtures/wide/index.json")), ("lang", s("en"))]).await;
    let panel = one(&m.root(), "[role=tabpanel]");
    assert_eq!(
        attr(&panel, "data-verification").as_deref(),
        Some("invalid")
    );
    assert_eq!(error_codes(&panel), ["INVALID_RECORD"]);
    assert!(text(&panel).contains("final_lanes"), "{}", text(&panel));
    assert!(all(&panel, "[data-lane]").len() < 100);
    // The viewer still answers.
    assert!(m.viewer.set_lang("ja"));
    assert_eq!(attr(&m.root(), "lang").as_deref(), Some("ja"));
}
