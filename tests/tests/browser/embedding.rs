//! A viewer in someone else's page: it outlives a dropped handle, shares no ids with another copy
//! of itself, takes absent options, lets one viewer follow the deep link, and keeps its borders
//! readable in light and dark.

use std::cell::RefCell;
use std::rc::Rc;

use lane_viewer_tests::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

#[wasm_bindgen(module = "/tests/browser/helpers.js")]
extern "C" {
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
