//! The viewer against hostile servers, files and pages: oversized and endless bodies, huge
//! indexes, many records, hostile options and handlers, one test per behaviour.

#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use lane_viewer_tests::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen(inline_js = r#"
export function prepareTimings() {
  performance.setResourceTimingBufferSize(100000);
  performance.clearResourceTimings();
}
// [fetches whose URL contains `part`, the most of them in flight at once].
export function fetchOverlap(part) {
  const es = performance.getEntriesByType("resource").filter((e) => e.name.includes(part));
  const ev = [];
  for (const e of es) { ev.push([e.startTime, 1]); ev.push([e.responseEnd, -1]); }
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let c = 0, m = 0;
  for (const [, d] of ev) { c += d; m = Math.max(m, c); }
  return [es.length, m];
}
export function keyWith(el, key, alt, ctrl) {
  const e = new KeyboardEvent("keydown", { key, altKey: alt, ctrlKey: ctrl, bubbles: true, cancelable: true });
  return el.dispatchEvent(e);
}
// The viewer stylesheet's colours for `scheme` ("light" or "dark"): the custom properties of
// `.lane-viewer` (top level, or inside the dark media rule), and the variable that the buttons'
// border colour uses.
export function schemeColours(scheme, cssText) {
  const vars = {};
  let border = null;
  const visit = (rules, dark) => {
    for (const r of rules) {
      if (r.media && r.cssRules) { if (r.conditionText.includes("dark")) visit(r.cssRules, true); continue; }
      if (!r.style) continue;
      if (r.selectorText === ".lane-viewer" && dark === (scheme === "dark")) {
        for (const name of r.style) if (name.startsWith("--")) vars[name] = r.style.getPropertyValue(name).trim();
      }
      if (r.selectorText === ".lane-viewer button" && !dark) {
        const decl = r.style.getPropertyValue("border-color") || r.style.getPropertyValue("border");
        const m = /var\((--[\w-]+)\)/.exec(decl);
        if (m) border = m[1];
      }
    }
  };
  // The stylesheet's text, parsed here (the page's own link is cross-origin, its rules unreadable).
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(cssText);
  visit(sheet.cssRules, false);
  return [border, vars["--lv-bg"], vars["--lv-panel"], border && vars[border]];
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = prepareTimings)]
    fn prepare_timings();
    #[wasm_bindgen(js_name = fetchOverlap)]
    fn fetch_overlap(part: &str) -> js_sys::Array;
    #[wasm_bindgen(js_name = keyWith)]
    fn key_with(el: &web_sys::Element, key: &str, alt: bool, ctrl: bool) -> bool;
    #[wasm_bindgen(js_name = schemeColours)]
    fn scheme_colours(scheme: &str, css_text: &str) -> js_sys::Array;
}

fn tab(root: &web_sys::Element, id: &str) -> web_sys::Element {
    one(root, &format!("[role=tab][data-record-id=\"{id}\"]"))
}

fn selected_tab(root: &web_sys::Element) -> Option<String> {
    maybe(root, "[role=tab][aria-selected=true]").and_then(|t| attr(&t, "data-record-id"))
}

#[wasm_bindgen_test]
async fn a_viewer_keeps_working_after_the_page_drops_its_handle() {
    let host = host();
    let viewer = try_mount(&host, &[("lang", s("en"))]).await.unwrap();
    // What wasm-bindgen's finalizer does when the page drops the handle and garbage collects.
    drop(viewer);
    let root = one(&host, "[data-lane-viewer]");
    click(&tab(&root, "stale-release"));
    assert_eq!(selected_tab(&root).as_deref(), Some("stale-release"));
    assert_eq!(
        attr(&one(&root, "[role=tabpanel]"), "data-selected-record").as_deref(),
        Some("stale-release")
    );
    click(&one(&root, "[data-lang-choice=ja]"));
    assert_eq!(attr(&root, "lang").as_deref(), Some("ja"));
    key(&tab(&root, "stale-release"), "End");
    let last = index().await.records.last().unwrap().id.to_string();
    assert_eq!(selected_tab(&root), Some(last));
    host.remove();
}

// the test server claims a 2 GB body (nothing of it is sent unless read).
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
async fn a_deep_link_followed_while_the_index_loads_leaves_no_false_error() {
    clear_hash();
    let host = host();
    let slot: Rc<RefCell<Option<lane_viewer::Viewer>>> = Rc::default();
    {
        let (host, slot) = (host.clone(), slot.clone());
        wasm_bindgen_futures::spawn_local(async move {
            let viewer = try_mount(
                &host,
                &[
                    ("hash", JsValue::TRUE),
                    ("src", s("__slow/400/records/index.json")),
                ],
            )
            .await
            .unwrap();
            *slot.borrow_mut() = Some(viewer);
        });
    }
    sleep(50).await;
    window()
        .location()
        .set_hash("#record=busy-project&lang=en")
        .unwrap();
    assert!(eventually_within(20_000, || slot.borrow().is_some()).await);
    let root = one(&host, "[data-lane-viewer]");
    let viewer = slot.borrow_mut().take().unwrap();
    assert_eq!(viewer.selected().as_deref(), Some("busy-project"));
    assert_eq!(error_codes(&root), Vec::<String>::new());
    viewer.destroy();
    host.remove();
    clear_hash();
}

#[wasm_bindgen_test]
async fn tab_keys_with_a_modifier_are_left_to_the_browser() {
    let m = mount(&[("lang", s("en")), ("record", s("busy-project"))]).await;
    let root = m.root();
    let selected = tab(&root, "busy-project");
    // Alt+ArrowLeft is the browser's Back: not cancelled, nothing selected.
    assert!(key_with(&selected, "ArrowLeft", true, false));
    assert!(key_with(&selected, "End", false, true));
    assert_eq!(selected_tab(&root).as_deref(), Some("busy-project"));
}

#[wasm_bindgen_test]
async fn arrow_keys_move_from_the_focused_tab() {
    let index = index().await;
    let ids: Vec<String> = index.records.iter().map(|e| e.id.to_string()).collect();
    let m = mount(&[("lang", s("en")), ("record", s(&ids[3]))]).await;
    let root = m.root();
    let first = tab(&root, &ids[0]);
    first
        .unchecked_ref::<web_sys::HtmlElement>()
        .focus()
        .unwrap();
    key(&first, "ArrowRight");
    assert_eq!(selected_tab(&root).as_deref(), Some(ids[1].as_str()));
}

#[wasm_bindgen_test]
async fn a_language_change_from_the_hash_keeps_focus_on_the_tab() {
    clear_hash();
    let m = mount(&[("hash", JsValue::TRUE), ("lang", s("en"))]).await;
    let root = m.root();
    let id = m.viewer.selected().unwrap();
    tab(&root, &id)
        .unchecked_ref::<web_sys::HtmlElement>()
        .focus()
        .unwrap();
    window()
        .location()
        .set_hash(&format!("#record={id}&lang=ja"))
        .unwrap();
    assert!(eventually(|| m.viewer.lang() == "ja").await);
    let focus = focused().unwrap();
    assert_eq!(attr(&focus, "data-record-id"), Some(id));
    drop(m);
    clear_hash();
}

/// What the page's handler saw: `selected`, and whether `select` was accepted.
type Seen = Rc<RefCell<Vec<(Option<String>, bool)>>>;

#[wasm_bindgen_test]
async fn page_calls_made_while_the_viewer_rebuilds_take_effect() {
    let host = host();
    let viewer = Rc::new(
        try_mount(&host, &[("lang", s("en")), ("record", s("busy-project"))])
            .await
            .unwrap(),
    );
    let root = one(&host, "[data-lane-viewer]");
    let seen: Seen = Rc::default();
    let on_focusout = {
        let (viewer, seen) = (viewer.clone(), seen.clone());
        Closure::<dyn FnMut()>::new(move || {
            let selected = viewer.selected();
            let accepted = viewer.select("stale-release");
            seen.borrow_mut().push((selected, accepted));
        })
    };
    host.add_event_listener_with_callback("focusout", on_focusout.as_ref().unchecked_ref())
        .unwrap();
    // Focus inside the raw JSON, then a re-render takes that element away.
    let raw = one(&root, ".lv-json");
    one(&root, "details.lv-raw")
        .set_attribute("open", "")
        .unwrap();
    raw.unchecked_ref::<web_sys::HtmlElement>().focus().unwrap();
    assert!(viewer.set_lang("ja"));
    host.remove_event_listener_with_callback("focusout", on_focusout.as_ref().unchecked_ref())
        .unwrap();
    let seen = seen.borrow().clone();
    assert!(!seen.is_empty(), "focusout fired during the re-render");
    assert_eq!(seen[0], (Some("busy-project".to_string()), true));
    assert_eq!(viewer.selected().as_deref(), Some("stale-release"));
    assert_eq!(selected_tab(&root).as_deref(), Some("stale-release"));
    assert_eq!(attr(&root, "lang").as_deref(), Some("ja"));

    // destroy() from such a handler takes effect too.
    one(&root, "details.lv-raw")
        .set_attribute("open", "")
        .unwrap();
    one(&root, ".lv-json")
        .unchecked_ref::<web_sys::HtmlElement>()
        .focus()
        .unwrap();
    let on_focusout = {
        let viewer = viewer.clone();
        Closure::<dyn FnMut()>::new(move || viewer.destroy())
    };
    host.add_event_listener_with_callback("focusout", on_focusout.as_ref().unchecked_ref())
        .unwrap();
    assert!(viewer.set_lang("en"));
    assert!(
        maybe(&host, "[data-lane-viewer]").is_none(),
        "destroy() called during the re-render removed the viewer"
    );
    host.remove();
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
async fn element_ids_stay_unique_when_another_copy_of_the_viewer_is_on_the_page() {
    let other = host();
    // (Skipping numbers a viewer of this page already uses, such as one a failed test left.)
    for n in (1..=300).filter(|n| {
        document()
            .get_element_by_id(&format!("lv{n}-panel"))
            .is_none()
    }) {
        for suffix in ["panel", "tab-0", "tab-1"] {
            let element = document().create_element("div").unwrap();
            element.set_id(&format!("lv{n}-{suffix}"));
            other.append_child(&element).unwrap();
        }
    }
    let m = mount(&[("lang", s("en"))]).await;
    assert_ids_unique();
    let panel = one(&m.root(), "[role=tabpanel]");
    let label = attr(&panel, "aria-labelledby").unwrap();
    let labelled_by = document().get_element_by_id(&label).unwrap();
    assert!(m.root().contains(Some(&labelled_by)));
    other.remove();
}

#[wasm_bindgen_test]
async fn undefined_and_null_options_count_as_absent() {
    let host = host();
    let viewer = try_mount(
        &host,
        &[
            ("hash", JsValue::UNDEFINED),
            ("lang", JsValue::NULL),
            ("record", JsValue::UNDEFINED),
            ("open", JsValue::NULL),
        ],
    )
    .await
    .expect("mount accepts absent-like values");
    assert!(viewer.selected().is_some());
    viewer.destroy();
    host.remove();
}

#[wasm_bindgen_test]
async fn only_one_viewer_on_a_page_follows_the_hash() {
    clear_hash();
    let a = mount(&[("hash", JsValue::TRUE), ("lang", s("en"))]).await;
    let second = host();
    let refused = try_mount(&second, &[("hash", JsValue::TRUE)]).await;
    let message = js_sys::Error::from(refused.err().expect("a second follower is refused"))
        .message()
        .as_string()
        .unwrap();
    assert!(message.contains("already follows"), "{message}");
    assert!(a.viewer.select("busy-project"));
    assert_eq!(
        window().location().hash().unwrap(),
        "#record=busy-project&lang=en"
    );
    assert!(error_codes(&a.root()).is_empty());
    // Once the first is destroyed, another may follow the hash.
    drop(a);
    let b = try_mount(&second, &[("hash", JsValue::TRUE)])
        .await
        .unwrap();
    assert_eq!(b.selected().as_deref(), Some("busy-project"));
    b.destroy();
    second.remove();
    clear_hash();
}

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

fn luminance(hex: &str) -> f64 {
    let hex = hex.trim_start_matches('#');
    let channel = |i: usize| {
        let c = f64::from(u8::from_str_radix(&hex[i..i + 2], 16).unwrap()) / 255.0;
        if c <= 0.04045 {
            c / 12.92
        } else {
            ((c + 0.055) / 1.055).powf(2.4)
        }
    };
    0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
}

fn contrast(a: &str, b: &str) -> f64 {
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

#[wasm_bindgen_test]
async fn button_and_tab_borders_have_3_to_1_contrast_in_light_and_dark() {
    let css = fetch_text("viewer.css").await;
    for scheme in ["light", "dark"] {
        let colours = scheme_colours(scheme, &css);
        let get = |i: u32| colours.get(i).as_string().unwrap_or_default();
        let (var, bg, panel, border) = (get(0), get(1), get(2), get(3));
        assert!(border.starts_with('#'), "{scheme}: border {var} = {border}");
        for against in [bg, panel] {
            let ratio = contrast(&border, &against);
            assert!(
                ratio >= 3.0,
                "{scheme}: {border} on {against} is {ratio:.2}:1"
            );
        }
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
