//! `<lane-viewer>`: one script and the element. Its attributes reach the viewer and changing them
//! updates it; one named record is shown alone; a record inside the element is checked and
//! replayed with no fetch and says it has no hash; the static picture shows until the live viewer
//! takes its place, with the same segments; removing the element destroys its viewer; events
//! bubble with the record and the step; bad attribute values are coded errors in the element's
//! language; several elements stay independent; the standalone build works without modules and
//! brings its own styles; an element whose script never ran (from `file://`) says what to do.

#![cfg(target_arch = "wasm32")]

use js_sys::{Array, Reflect};
use lane_viewer_tests::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::Element;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function loadElement(src) {
  if (!window.__laneViewerElement) {
    window.__laneViewerElement = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.type = "module";
      s.src = src;
      s.onerror = () => reject(new Error("cannot load " + src));
      document.head.append(s);
      customElements.whenDefined("lane-viewer").then(resolve);
    });
  }
  return window.__laneViewerElement;
}
export function scriptUrl(text) { return URL.createObjectURL(new Blob([text], { type: "text/javascript" })); }
export function before(el) {
  const style = el.ownerDocument.defaultView.getComputedStyle(el, "::before");
  return [style.content, style.visibility, style.maxHeight];
}
export function ready(el) { return el.ready; }
export function handle(el) { return el.viewer; }
export function call(viewer, name, arg) { return viewer[name](arg); }
export function get(viewer, name) { return viewer[name]; }
export function verdict(el, record) { return el.verdict(record); }
export function listenVerdicts(target, log) {
  target.addEventListener("lane-viewer-verdict", (e) => {
    const d = e.detail;
    log.push(`${e.target.id} ${e.bubbles} ${e.composed} ${d.record} ${d.verdict} ${d.step} ${d.code}`);
  });
}
export function verdictLine(d) { return `${d.record} ${d.verdict} ${d.step} ${d.code}`; }
export function listen(target, log) {
  for (const name of ["lane-viewer-select", "lane-viewer-step"]) {
    target.addEventListener(name, (e) => log.push([name, e.target.id, e.detail.record, e.detail.step, e.bubbles]));
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = loadElement)]
    fn load_element(src: &str) -> js_sys::Promise;
    /// A `blob:` address for a script's text: nothing sits next to it.
    #[wasm_bindgen(js_name = scriptUrl)]
    fn script_url(text: &str) -> String;
    /// The `::before` of `el`: its content, visibility and max-height.
    fn before(el: &Element) -> Array;
    fn ready(el: &Element) -> js_sys::Promise;
    fn handle(el: &Element) -> JsValue;
    fn call(viewer: &JsValue, name: &str, arg: &JsValue) -> JsValue;
    fn get(viewer: &JsValue, name: &str) -> JsValue;
    fn listen(target: &JsValue, log: &Array);
    fn verdict(el: &Element, record: &JsValue) -> js_sys::Promise;
    /// Logs each `lane-viewer-verdict` as `target-id bubbles composed record verdict step code`.
    #[wasm_bindgen(js_name = listenVerdicts)]
    fn listen_verdicts(target: &JsValue, log: &Array);
    #[wasm_bindgen(js_name = verdictLine)]
    fn verdict_line(detail: &JsValue) -> String;
}

/// A `<lane-viewer>` with these attributes and inner HTML, in a fresh host on the page.
async fn element(attrs: &[(&str, &str)], inner: &str) -> (Element, Element) {
    JsFuture::from(load_element(&site("lane-viewer.js")))
        .await
        .expect("lane-viewer.js defines <lane-viewer>");
    let host = host();
    let el = document().create_element("lane-viewer").unwrap();
    for (name, value) in attrs {
        let value = if *name == "src" {
            site(value)
        } else {
            value.to_string()
        };
        el.set_attribute(name, &value).unwrap();
    }
    if !attrs.iter().any(|(n, _)| *n == "src") && !inner.contains("application/json") {
        // The page's own folder is the test runner's: the records are on the test site.
        el.set_attribute("src", &site("records/index.json"))
            .unwrap();
    }
    el.set_inner_html(inner);
    host.append_child(&el).unwrap();
    (host, el)
}

/// Waits for the element's live viewer; panics with the element's text if it cannot start.
async fn live(el: &Element) -> JsValue {
    match JsFuture::from(ready(el)).await {
        Ok(viewer) => viewer,
        Err(e) => panic!("the viewer did not start: {e:?}: {}", text(el)),
    }
}

fn selected(viewer: &JsValue) -> Option<String> {
    get(viewer, "selected").as_string()
}

fn inline(json: &str) -> String {
    format!("<script type=\"application/json\">{json}</script>")
}

async fn verified(el: &Element) -> bool {
    eventually_within(20_000, || {
        maybe(el, "[role=tabpanel][data-verification=verified]").is_some()
    })
    .await
}

/// The `[data-segment]`s under `root`: (row, state, from, to).
fn segments(root: &Element) -> Vec<[String; 4]> {
    all(root, "[data-timeline-row] [data-segment]")
        .iter()
        .map(|s| {
            let row = s.closest("[data-timeline-row]").unwrap().unwrap();
            [
                attr(&row, "data-timeline-row").unwrap(),
                attr(s, "data-state").unwrap(),
                attr(s, "data-from").unwrap(),
                attr(s, "data-to").unwrap(),
            ]
        })
        .collect()
}

#[wasm_bindgen_test]
async fn an_element_naming_one_record_shows_it_alone_and_changed_attributes_update_the_viewer() {
    let log = Array::new();
    listen(&document().into(), &log);
    let hash = window().location().hash().unwrap();
    let (host, el) = element(
        &[
            ("id", "one"),
            ("src", "records/index.json"),
            ("record", "busy-project"),
            ("lang", "en"),
        ],
        "",
    )
    .await;
    let viewer = live(&el).await;
    let root = one(&el, "[data-lane-viewer]");
    assert_eq!(selected(&viewer).as_deref(), Some("busy-project"));
    assert_eq!(attr(&root, "lang").as_deref(), Some("en"));
    // One record alone: the tabs stay in the page (they label the panel) but are not shown.
    assert!(one(&root, "[role=tablist]").has_attribute("hidden"));
    assert_eq!(
        one(&root, "[role=tab][aria-selected=true]").get_attribute("data-record-id"),
        Some("busy-project".into())
    );
    // Documentation defaults: no "Open records…" button, no deep link written.
    assert!(maybe(&root, "[data-open-records]").is_none());
    assert!(verified(&el).await);
    assert_eq!(
        window().location().hash().unwrap(),
        hash,
        "the deep link is left alone"
    );
    // An index's record: its hash was compared, so no note says otherwise.
    assert!(maybe(&root, "[data-no-hash]").is_none());

    let ours = || {
        log.iter()
            .filter(|e| Array::from(e).get(1).as_string().as_deref() == Some("one"))
            .count()
    };
    assert!(eventually(|| ours() == 1).await);
    el.set_attribute("record", "stale-release").unwrap();
    assert!(eventually(|| selected(&viewer).as_deref() == Some("stale-release")).await);
    // Events come after the change (a microtask later), one per change.
    assert!(eventually(|| ours() == 2).await);
    el.set_attribute("lang", "ja").unwrap();
    assert!(eventually(|| attr(&root, "lang").as_deref() == Some("ja")).await);
    assert_eq!(get(&viewer, "lang").as_string().as_deref(), Some("ja"));
    el.set_attribute("step", "3").unwrap();
    assert!(eventually(|| attr(&root, "data-current-step").as_deref() == Some("2")).await);
    // The DOM contract's selectors work inside the element.
    let card = one(&el, "[data-step=\"2\"]");
    assert_eq!(attr(&card, "aria-current").as_deref(), Some("step"));
    assert!(eventually(|| ours() == 3).await);
    let events: Vec<String> = log
        .iter()
        .filter(|e| Array::from(e).get(1).as_string().as_deref() == Some("one"))
        .map(|e| {
            let e: Array = e.unchecked_into();
            format!(
                "{} {} {} {:?} {:?}",
                e.get(0).as_string().unwrap(),
                e.get(1).as_string().unwrap(),
                e.get(2).as_string().unwrap_or_default(),
                e.get(3).as_f64(),
                e.get(4).as_bool()
            )
        })
        .collect();
    assert_eq!(
        events,
        [
            "lane-viewer-select one busy-project None Some(true)",
            "lane-viewer-select one stale-release None Some(true)",
            "lane-viewer-step one stale-release Some(2.0) Some(true)",
        ],
        "events bubble to the document with the record and the step (from 0)"
    );

    // Removing the element destroys its viewer.
    host.remove();
    assert!(eventually(|| selected(&viewer).is_none()).await);
    assert!(!root.is_connected());
    assert_eq!(
        call(&viewer, "select", &"busy-project".into()).as_bool(),
        Some(false)
    );
}

#[wasm_bindgen_test]
async fn a_record_inside_the_element_is_checked_and_replayed_with_no_hash_to_compare() {
    let json = fetch_text(&site("records/stale-release.json")).await;
    let (host, el) = element(&[("lang", "en")], &inline(&json)).await;
    let viewer = live(&el).await;
    assert_eq!(selected(&viewer).as_deref(), Some("stale-release"));
    assert!(verified(&el).await);
    let note = one(&el, "[data-no-hash]");
    assert!(
        text(&note).contains("no SHA-256 to compare"),
        "{}",
        text(&note)
    );
    assert!(one(&el, "[role=tablist]").has_attribute("hidden"));
    host.remove();

    // The same verdicts as `lane-records replay`: a changed result is a mismatch at its step.
    let tampered = json.replacen("\"LEASE_NOT_CURRENT\"", "\"PROJECT_BUSY\"", 1);
    let (host, el) = element(&[("lang", "ja")], &inline(&tampered)).await;
    live(&el).await;
    assert!(
        eventually_within(20_000, || {
            maybe(&el, "[role=tabpanel][data-verification=mismatch]").is_some()
        })
        .await
    );
    assert_eq!(error_codes(&el), ["REPLAY_MISMATCH"]);
    assert!(text(&one(&el, "[data-no-hash]")).contains("照合する SHA-256 はありません"));
    host.remove();

    // Broken JSON: located and coded, in the viewer.
    let broken = &json[..json.len() / 2];
    let (host, el) = element(&[("lang", "en")], &inline(broken)).await;
    live(&el).await;
    assert_eq!(error_codes(&el), ["INVALID_JSON"]);
    assert!(text(&el).contains("line "), "{}", text(&el));
    host.remove();
}

#[wasm_bindgen_test]
async fn a_test_awaits_the_elements_verdict_and_hears_it_from_the_element_once() {
    let json = fetch_text(&site("records/stale-release.json")).await;
    let log = Array::new();
    listen_verdicts(&document().into(), &log);
    let tampered = json.replacen("\"LEASE_NOT_CURRENT\"", "\"PROJECT_BUSY\"", 1);
    let (host, el) = element(&[("id", "judged"), ("lang", "en")], &inline(&tampered)).await;
    // No wait for `ready` first: `verdict()` waits for it.
    let detail = JsFuture::from(verdict(&el, &JsValue::UNDEFINED))
        .await
        .expect("a verdict");
    let step = attr(&one(&el, "[data-step][data-mismatch]"), "data-step").unwrap();
    let line = format!("stale-release mismatch {step} REPLAY_MISMATCH");
    assert_eq!(verdict_line(&detail), line);
    let by_id = JsFuture::from(verdict(&el, &"stale-release".into()))
        .await
        .unwrap();
    assert_eq!(verdict_line(&by_id), line);
    let ours = |id: &str| -> Vec<String> {
        log.iter()
            .filter_map(|e| e.as_string())
            .filter(|e| e.starts_with(&format!("{id} ")))
            .collect()
    };
    assert_eq!(
        ours("judged"),
        [format!("judged true true {line}")],
        "once, from the element, bubbling to the document"
    );
    host.remove();

    // A record that cannot be read is a verdict too.
    let (host, el) = element(&[("id", "unread"), ("lang", "en")], &inline(&json[..9])).await;
    let detail = JsFuture::from(verdict(&el, &JsValue::UNDEFINED))
        .await
        .unwrap();
    let code = error_codes(&el).pop().unwrap();
    assert!(verdict_line(&detail).ends_with(&format!(" invalid null {code}")));
    assert_eq!(ours("unread").len(), 1);
    host.remove();

    // An element that cannot start has no verdict: its promise rejects.
    let (host, el) = element(&[("id", "unstarted"), ("lang", "fr")], "").await;
    let error = JsFuture::from(verdict(&el, &JsValue::UNDEFINED))
        .await
        .unwrap_err();
    assert!(format!("{error:?}").contains("lang=\"fr\""), "{error:?}");
    assert!(ours("unstarted").is_empty());
    host.remove();
}

#[wasm_bindgen_test]
async fn the_static_picture_shows_until_the_element_comes_near_and_the_live_viewer_draws_the_same()
{
    let fragment = fetch_text(&site("static/en/same-queue-retention.html")).await;
    // Far below the viewport: the wasm is not started.
    let spacer = document().create_element("div").unwrap();
    spacer.set_attribute("style", "height: 6000px").unwrap();
    document().body().unwrap().append_child(&spacer).unwrap();
    let (host, el) = element(
        &[("src", "records/same-queue-retention.json"), ("lang", "en")],
        &fragment,
    )
    .await;
    sleep(300).await;
    let still = one(&el, "[data-lane-viewer-static]");
    assert!(
        maybe(&el, "[data-lane-viewer]").is_none(),
        "not started far from the viewport"
    );
    assert!(text(&one(&still, "[data-static-note]")).contains("not yet checked or replayed"));
    let drawn = segments(&still);
    assert!(!drawn.is_empty());
    el.scroll_into_view();
    let viewer = live(&el).await;
    assert_eq!(selected(&viewer).as_deref(), Some("same-queue-retention"));
    assert!(
        maybe(&el, "[data-lane-viewer-static]").is_none(),
        "the live viewer took its place"
    );
    assert_eq!(segments(&one(&el, "[data-lane-viewer]")), drawn);
    // A single record from `src` has no index, so no hash either: the viewer says so.
    assert!(maybe(&el, "[data-no-hash]").is_some());
    host.remove();
    spacer.remove();
}

#[wasm_bindgen_test]
async fn bad_attribute_values_are_coded_errors_in_the_elements_language() {
    let (host, el) = element(&[("lang", "xx"), ("record", "busy-project")], "").await;
    host.set_attribute("lang", "ja").unwrap();
    assert!(JsFuture::from(ready(&el)).await.is_err());
    let error = one(&el, "[data-viewer-error=BAD_ATTRIBUTE]");
    assert!(
        text(&error).contains("この属性の値は使えません"),
        "{}",
        text(&error)
    );
    assert!(text(&error).contains("lang=\"xx\""), "{}", text(&error));
    // Fixed, the element starts.
    el.set_attribute("lang", "en").unwrap();
    let viewer = live(&el).await;
    assert!(maybe(&el, "[data-viewer-error=BAD_ATTRIBUTE]").is_none());
    el.set_attribute("step", "0").unwrap();
    assert!(eventually(|| maybe(&el, "[data-viewer-error=BAD_ATTRIBUTE]").is_some()).await);
    assert!(text(&el).contains("This attribute value is not valid"));
    el.set_attribute("step", "999").unwrap();
    assert!(eventually(|| text(&el).contains("step=\"999\": no such step")).await);
    el.remove_attribute("step").unwrap();
    // An unknown record: the viewer's own error, and the selection stays.
    el.set_attribute("record", "no-such-record").unwrap();
    assert!(eventually(|| error_codes(&el).contains(&"UNKNOWN_RECORD".to_string())).await);
    assert_eq!(selected(&viewer).as_deref(), Some("busy-project"));
    host.remove();

    let (host, el) = element(&[("open", "yes")], "").await;
    assert!(JsFuture::from(ready(&el)).await.is_err());
    assert!(text(&el).contains("open=\"yes\""));
    host.remove();

    for bad in ["64MiB", "0", "-1", "1e6", "9007199254740992"] {
        for name in ["max-bytes", "max-steps"] {
            let (host, el) = element(&[(name, bad)], "").await;
            assert!(JsFuture::from(ready(&el)).await.is_err(), "{bad}");
            one(&el, "[data-viewer-error=BAD_ATTRIBUTE]");
            assert!(
                text(&el).contains(&format!("{name}=\"{bad}\"")),
                "{}",
                text(&el)
            );
            host.remove();
        }
    }
}

#[wasm_bindgen_test]
async fn max_bytes_and_max_steps_limit_the_record_and_removing_the_element_stops_its_reading() {
    let (host, el) = element(
        &[
            ("src", "__length/5000/announced.jsonl"),
            ("max-bytes", "1000"),
            ("lang", "en"),
        ],
        "",
    )
    .await;
    assert!(eventually(|| error_codes(&el).contains(&"RECORD_TOO_LARGE".to_string())).await);
    assert!(text(&el).contains("at most 1000 bytes"), "{}", text(&el));
    host.remove();
    // max-steps: the most steps held (chaos-run has 200).
    let (host, el) = element(
        &[
            ("src", "records/chaos-run.jsonl"),
            ("max-steps", "150"),
            ("lang", "en"),
        ],
        "",
    )
    .await;
    assert!(eventually(|| error_codes(&el).contains(&"RECORD_TOO_LARGE".to_string())).await);
    assert!(text(&el).contains("at most 150 steps"), "{}", text(&el));
    host.remove();
    // Removed while its record still streams in: the reading stops there.
    let (host, _el) = element(
        &[
            ("src", "__lines/removed.jsonl"),
            ("max-bytes", "4294967296"),
        ],
        "",
    )
    .await;
    lines_sent_past("removed.jsonl", 4 << 20).await;
    host.remove();
    let sent = lines_sent_when_stopped("removed.jsonl").await;
    wasm_bindgen_test::console_log!("removed.jsonl: {sent} bytes sent");
    assert!(sent < 1 << 30, "{sent} bytes sent: the download went on");
}

#[wasm_bindgen_test]
async fn several_elements_on_a_page_stay_independent() {
    let (host_a, a) = element(&[("record", "busy-project"), ("lang", "en")], "").await;
    let (host_b, b) = element(&[("record", "stale-release"), ("lang", "ja")], "").await;
    let (va, vb) = (live(&a).await, live(&b).await);
    b.set_attribute("lang", "en").unwrap();
    a.set_attribute("record", "explicit-outcome").unwrap();
    assert!(eventually(|| selected(&va).as_deref() == Some("explicit-outcome")).await);
    assert!(eventually(|| get(&vb, "lang").as_string().as_deref() == Some("en")).await);
    assert_eq!(get(&va, "lang").as_string().as_deref(), Some("en"));
    assert_eq!(selected(&vb).as_deref(), Some("stale-release"));
    assert_ids_unique();
    host_a.remove();
    assert!(eventually(|| selected(&va).is_none()).await);
    assert_eq!(
        call(&vb, "select", &"busy-project".into()).as_bool(),
        Some(true)
    );
    assert!(eventually(|| selected(&vb).as_deref() == Some("busy-project")).await);
    assert!(handle(&b).is_object());
    host_b.remove();
}

#[wasm_bindgen_test]
async fn the_standalone_script_defines_the_element_and_shows_an_inline_record_without_modules() {
    let json = fetch_text(&site("records/busy-project.json")).await;
    let frame = document().create_element("iframe").unwrap();
    let page = format!(
        "<!doctype html><html lang=\"en\"><body><lane-viewer>{}</lane-viewer><script src=\"{}\"></script></body></html>",
        inline(&json),
        site("lane-viewer.standalone.js")
    );
    Reflect::set(&frame, &"srcdoc".into(), &page.into()).unwrap();
    let host = host();
    host.append_child(&frame).unwrap();
    let doc = || {
        Reflect::get(&frame, &"contentDocument".into())
            .ok()
            .filter(|d| d.is_object())
            .map(|d| d.unchecked_into::<web_sys::Document>())
    };
    assert!(
        eventually_within(30_000, || doc()
            .and_then(|d| d
                .query_selector("[role=tabpanel][data-verification=verified]")
                .ok()
                .flatten())
            .is_some())
        .await,
        "{:?}",
        doc().map(|d| d.body().map(|b| b.text_content()))
    );
    let doc = doc().unwrap();
    assert!(doc.query_selector("[data-no-hash]").unwrap().is_some());
    host.remove();
}

/// An iframe on the page whose document is `page`, and a way to read its document.
fn frame_of(page: &str) -> (Element, impl Fn() -> Option<web_sys::Document>) {
    let frame = document().create_element("iframe").unwrap();
    Reflect::set(&frame, &"srcdoc".into(), &page.into()).unwrap();
    let host = host();
    host.append_child(&frame).unwrap();
    let doc = move || {
        Reflect::get(&frame, &"contentDocument".into())
            .ok()
            .filter(|d| d.is_object())
            .map(|d| d.unchecked_into::<web_sys::Document>())
    };
    (host, doc)
}

#[wasm_bindgen_test]
async fn the_standalone_script_brings_its_own_styles_with_nothing_next_to_it() {
    let json = fetch_text(&site("records/busy-project.json")).await;
    // The script from a blob: address, so no viewer.css sits next to it, in a page that links
    // no stylesheet.
    let script = script_url(&fetch_text(&site("lane-viewer.standalone.js")).await);
    let page = format!(
        "<!doctype html><html lang=\"en\"><body><lane-viewer>{}</lane-viewer><script src=\"{script}\"></script></body></html>",
        inline(&json)
    );
    let (host, doc) = frame_of(&page);
    assert!(
        eventually_within(30_000, || doc()
            .and_then(|d| d
                .query_selector("[role=tabpanel][data-verification=verified]")
                .ok()
                .flatten())
            .is_some())
        .await,
        "{:?}",
        doc().map(|d| d.body().map(|b| b.text_content()))
    );
    let doc = doc().unwrap();
    assert!(
        doc.query_selector("link[rel=stylesheet]")
            .unwrap()
            .is_none()
    );
    let style = |selector: &str, property: &str| {
        let element = doc.query_selector(selector).unwrap().unwrap();
        doc.default_view()
            .unwrap()
            .get_computed_style(&element)
            .unwrap()
            .unwrap()
            .get_property_value(property)
            .unwrap()
    };
    assert_eq!(style("[data-lane-viewer]", "border-top-left-radius"), "8px");
    assert_eq!(style(".lv-title", "font-weight"), "700");
    // The running bar in the viewer's colour, not SVG's default black.
    let fill = style("[data-timeline] .lv-tl-f-run", "fill");
    assert!(fill.starts_with("rgb(") && fill != "rgb(0, 0, 0)", "{fill}");
    host.remove();
}

#[wasm_bindgen_test]
async fn a_lane_viewer_whose_script_never_ran_says_what_to_do_in_its_language() {
    // A page that links the stylesheet but whose script cannot run (as from file://).
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><link rel=\"stylesheet\" href=\"{}\"></head>\
         <body><lane-viewer src=\"records/index.json\"></lane-viewer>\
         <lane-viewer lang=\"ja\" record=\"busy-project\"></lane-viewer></body></html>",
        site("viewer.css")
    );
    let start = js_sys::Date::now();
    let (host, doc) = frame_of(&page);
    let said = |n: u32| -> Option<(String, String, String)> {
        let element = doc()?.query_selector_all("lane-viewer").ok()?.item(n)?;
        let b = before(element.unchecked_ref());
        Some((
            b.get(0).as_string()?,
            b.get(1).as_string()?,
            b.get(2).as_string()?,
        ))
    };
    // Styled: the note is there, held at no size while the script may still come.
    assert!(
        eventually_within(10_000, || said(0)
            .is_some_and(|(c, ..)| c.contains("file://")))
        .await,
        "{:?}",
        said(0)
    );
    let (_, visibility, height) = said(0).unwrap();
    // Read less than 2.5 s after the page began, so less than 3 s after the note was styled.
    if js_sys::Date::now() - start < 2_500.0 {
        assert_eq!((visibility.as_str(), height.as_str()), ("hidden", "0px"));
    }
    // After three seconds it shows, in each element's language.
    assert!(
        eventually_within(6_000, || said(0).is_some_and(|(_, v, _)| v == "visible")).await,
        "{:?}",
        said(0)
    );
    let (english, _, height) = said(0).unwrap();
    assert_eq!(height, "none");
    for words in [
        "has not started",
        "JavaScript",
        "file://",
        "python3 -m http.server",
        "lane-viewer.standalone.js",
    ] {
        assert!(english.contains(words), "{english}");
    }
    let (japanese, visibility, _) = said(1).unwrap();
    assert_eq!(visibility, "visible");
    for words in ["起動していません", "file://", "lane-viewer.standalone.js"] {
        assert!(japanese.contains(words), "{japanese}");
    }
    host.remove();
    // An element whose script ran says nothing of the kind.
    let (el_host, el) = element(&[("record", "busy-project")], "").await;
    let b = before(&el);
    assert_eq!(b.get(0).as_string().as_deref(), Some("none"));
    el_host.remove();
}

#[wasm_bindgen_test]
async fn compare_names_the_two_records_the_viewer_compares() {
    let (host, el) = element(
        &[
            ("compare", " busy-project  explicit-outcome "),
            ("lang", "en"),
        ],
        "",
    )
    .await;
    live(&el).await;
    let selector = "section.lv-compare[data-compare-a=busy-project][data-compare-b=explicit-outcome] [data-diff]";
    assert!(
        eventually(|| maybe(&el, selector).is_some()).await,
        "{}",
        text(&el)
    );
    host.remove();
    for bad in ["busy-project", "a b c", ""] {
        let (host, el) = element(&[("compare", bad)], "").await;
        assert!(JsFuture::from(ready(&el)).await.is_err(), "{bad:?}");
        one(&el, "[data-viewer-error=BAD_ATTRIBUTE]");
        host.remove();
    }
}
