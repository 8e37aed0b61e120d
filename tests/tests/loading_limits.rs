//! The viewer against hostile servers and huge files: bodies announced over the limit, endless
//! bodies, huge indexes, many records fetched a few at a time, a record too large to build, a
//! page's own limits (`maxBytes`, `maxSteps`), and an opening stopped halfway (`signal`).

#![cfg(target_arch = "wasm32")]

use js_sys::Reflect;
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

#[wasm_bindgen_test]
async fn a_version_3_record_past_max_bytes_is_refused_and_the_viewer_goes_on() {
    // Announced over the limit: refused from its length and first line.
    let m = mount(&[
        ("src", s("__length/5000/announced.jsonl")),
        ("lang", s("en")),
        ("maxBytes", JsValue::from(1000)),
    ])
    .await;
    let root = m.root();
    assert_eq!(error_codes(&root), ["RECORD_TOO_LARGE"]);
    assert!(
        text(&root).contains(
            "5000 bytes or more; this viewer takes version 3 records of at most 1000 bytes"
        ),
        "{}",
        text(&root)
    );
    assert!(text(&root).contains("maxBytes"), "{}", text(&root));
    // Without a length: refused once more than the limit has arrived, and no more is read.
    let m = mount(&[
        ("src", s("__lines/past-max-bytes.jsonl")),
        ("lang", s("en")),
        ("maxBytes", JsValue::from(100_000)),
    ])
    .await;
    assert_eq!(error_codes(&m.root()), ["RECORD_TOO_LARGE"]);
    assert!(
        text(&m.root()).contains("at most 100000 bytes (97.7 KiB;"),
        "{}",
        text(&m.root())
    );
    let sent = lines_sent_when_stopped("past-max-bytes.jsonl").await;
    assert!(sent < 64 << 20, "{sent} bytes sent past a limit of 100,000");
    // The same limit holds for text the page hands over, and the viewer goes on: a record
    // within it opens, is verified and can be shown in the other language.
    assert!(runs_record("small", 1).len() < 1000 && runs_record("big", 50).len() > 1000);
    let m2 = mount(&[("lang", s("en")), ("maxBytes", JsValue::from(1000))]).await;
    m2.viewer.open_text("big.jsonl", runs_record("big", 50));
    assert!(eventually(|| error_codes(&m2.root()).contains(&"RECORD_TOO_LARGE".to_string())).await);
    m2.viewer.open_text("small.jsonl", runs_record("small", 1));
    assert!(eventually(|| m2.viewer.selected().as_deref() == Some("small")).await);
    let panel = one(&m2.root(), "[role=tabpanel]");
    assert!(eventually(|| attr(&panel, "data-verification").as_deref() == Some("verified")).await);
    assert!(m2.viewer.set_lang("ja"));
    assert_eq!(attr(&m2.root(), "lang").as_deref(), Some("ja"));
}

#[wasm_bindgen_test]
async fn a_version_3_record_with_more_steps_than_max_steps_is_refused_alike_on_every_path() {
    // 200 steps, chained and signed: refused at its 151st step, however it arrives.
    let record = String::from_utf8(fetch_bytes("records/chaos-run.jsonl").await).unwrap();
    let said = "This record has more steps than this viewer holds: at most 150 steps, about 52 KiB of memory.";
    let refused = |root: &web_sys::Element| {
        assert_eq!(error_codes(root), ["RECORD_TOO_LARGE"], "{}", text(root));
        let held = one(
            root,
            "[data-viewer-error=RECORD_TOO_LARGE] [data-max-steps]",
        );
        assert_eq!(attr(&held, "data-max-steps").as_deref(), Some("150"));
        assert!(text(root).contains(said), "{}", text(root));
        assert!(
            text(root).contains("at most 150 steps (about 52 KiB of memory; the page sets another limit with maxSteps)"),
            "{}",
            text(root)
        );
        // Nothing of it is shown as verified.
        assert!(all(root, "[data-verification=verified]").is_empty());
    };
    for src in [
        "records/chaos-run.jsonl",
        "__chunked/records/chaos-run.jsonl",
    ] {
        let m = mount(&[
            ("src", s(src)),
            ("lang", s("en")),
            ("maxSteps", JsValue::from(150)),
        ])
        .await;
        refused(&m.root());
    }
    // Held as text, and opened as a file: the same verdict.
    let m = mount(&[
        ("src", s("records/index.json")),
        ("lang", s("en")),
        ("maxSteps", JsValue::from(150)),
    ])
    .await;
    m.viewer.open_text("chaos.jsonl", record.clone());
    assert!(eventually(|| m.viewer.selected().as_deref() == Some("chaos.jsonl")).await);
    let panel = one(&m.root(), "[role=tabpanel]");
    refused(&panel);
    // In Japanese, with the glossary's words.
    assert!(m.viewer.set_lang("ja"));
    assert!(
        text(&m.root()).contains("この記録は、このビューアが保持できるステップ数を超えています。保持できるのは 150 ステップまで（メモリで約 52 KiB）です。"),
        "{}",
        text(&m.root())
    );
    // Exactly the limit: held and verified; one step fewer held is refused.
    let runs = runs_record("runs", 50);
    for (max, verified) in [(100, true), (99, false)] {
        let m = mount(&[("lang", s("en")), ("maxSteps", JsValue::from(max))]).await;
        m.viewer.open_text("runs.jsonl", runs.clone());
        let shown = if verified { "runs" } else { "runs.jsonl" };
        assert!(eventually(|| m.viewer.selected().as_deref() == Some(shown)).await);
        let verdict = wasm_bindgen_futures::JsFuture::from(m.viewer.verdict(None))
            .await
            .unwrap();
        let code = Reflect::get(&verdict, &"code".into()).unwrap().as_string();
        if verified {
            assert_eq!(code, None, "{}", text(&m.root()));
            let panel = one(&m.root(), "[role=tabpanel]");
            assert_eq!(
                attr(&panel, "data-verification").as_deref(),
                Some("verified")
            );
        } else {
            assert_eq!(code.as_deref(), Some("RECORD_TOO_LARGE"));
        }
    }
    // A record that never ends stops being read at its step limit, far below its byte limit.
    let m = mount(&[
        ("src", s("__lines/past-max-steps.jsonl")),
        ("lang", s("en")),
        ("maxSteps", JsValue::from(1000)),
    ])
    .await;
    assert_eq!(error_codes(&m.root()), ["RECORD_TOO_LARGE"]);
    assert!(
        text(&m.root()).contains("at most 1,000 steps"),
        "{}",
        text(&m.root())
    );
    let sent = lines_sent_when_stopped("past-max-steps.jsonl").await;
    assert!(
        sent < 64 << 20,
        "{sent} bytes sent past a limit of 1,000 steps"
    );
}

#[wasm_bindgen_test]
async fn max_bytes_and_max_steps_must_be_whole_numbers() {
    for bad in [
        JsValue::from(0),
        JsValue::from(-1),
        JsValue::from(1.5),
        JsValue::from(f64::NAN),
        JsValue::from(9_007_199_254_740_992.0),
        s("64MiB"),
        JsValue::TRUE,
        JsValue::from(1000_u64), // a BigInt
    ] {
        let host = host();
        let error = try_mount(&host, &[("maxBytes", bad.clone())])
            .await
            .err()
            .unwrap_or_else(|| panic!("maxBytes {bad:?} was taken"));
        let message = js_sys::Error::from(error).message().as_string().unwrap();
        assert!(message.contains("maxBytes"), "{bad:?}: {message}");
        assert_eq!(host.child_element_count(), 0, "{bad:?}: nothing mounted");
        host.remove();
        // maxSteps alike.
        let other = lane_viewer_tests::host();
        let error = try_mount(&other, &[("maxSteps", bad.clone())])
            .await
            .err()
            .unwrap_or_else(|| panic!("maxSteps {bad:?} was taken"));
        let message = js_sys::Error::from(error).message().as_string().unwrap();
        assert!(
            message.contains("maxSteps must be a whole number of steps"),
            "{bad:?}: {message}"
        );
        other.remove();
    }
    let host = host();
    let error = try_mount(&host, &[("signal", s("stop"))])
        .await
        .err()
        .unwrap();
    let message = js_sys::Error::from(error).message().as_string().unwrap();
    assert!(message.contains("AbortSignal"), "{message}");
    host.remove();
}

/// The `name` of a rejection (`AbortError`, `TypeError`, …).
fn error_name(error: &JsValue) -> Option<String> {
    Reflect::get(error, &s("name")).ok()?.as_string()
}

#[wasm_bindgen_test]
async fn aborting_a_streaming_open_stops_the_download_and_frees_the_viewer() {
    let host = host();
    let aborts = web_sys::AbortController::new().unwrap();
    let opening = wasm_bindgen_futures::JsFuture::from(wasm_bindgen_futures::future_to_promise({
        let host = host.clone();
        let signal = aborts.signal();
        async move {
            try_mount(
                &host,
                &[
                    ("src", s("__lines/aborted.jsonl")),
                    ("maxBytes", JsValue::from(4_294_967_296.0)),
                    ("signal", signal.into()),
                ],
            )
            .await
            .map(JsValue::from)
        }
    }));
    // A few MiB in, read and replayed as they arrive, the page gives up.
    lines_sent_past("aborted.jsonl", 4 << 20).await;
    assert!(
        host.child_element_count() > 0,
        "the viewer shows while it opens"
    );
    // It says how much has arrived (no length: no bar).
    assert!(
        eventually(|| maybe(&host, "[data-load-progress]")
            .is_some_and(|line| text(&line).contains("MiB read")))
        .await,
        "{}",
        text(&host)
    );
    aborts.abort();
    let error = opening.await.expect_err("mount rejects once aborted");
    assert_eq!(error_name(&error).as_deref(), Some("AbortError"));
    assert_eq!(host.child_element_count(), 0, "the viewer is gone");
    let sent = lines_sent_when_stopped("aborted.jsonl").await;
    wasm_bindgen_test::console_log!("aborted.jsonl: {sent} bytes sent");
    assert!(sent < 1 << 30, "{sent} bytes sent: the download went on");
    // Aborted before it starts: nothing is mounted or fetched.
    let error = try_mount(&host, &[("signal", aborts.signal().into())])
        .await
        .err()
        .unwrap();
    assert_eq!(error_name(&error).as_deref(), Some("AbortError"));
    assert_eq!(host.child_element_count(), 0);
    host.remove();
}
