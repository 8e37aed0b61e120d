//! Keys and focus: the record tabs' keys (modified keys left to the browser), focus kept across
//! rebuilds, and calls a page makes from focus handlers while the viewer rebuilds.

use std::cell::RefCell;
use std::rc::Rc;

use lane_viewer_tests::*;
use wasm_bindgen::JsCast;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

#[wasm_bindgen(module = "/tests/browser/helpers.js")]
extern "C" {
    #[wasm_bindgen(js_name = keyWith)]
    fn key_with(el: &web_sys::Element, key: &str, alt: bool, ctrl: bool) -> bool;
}

fn tab(root: &web_sys::Element, id: &str) -> web_sys::Element {
    one(root, &format!("[role=tab][data-record-id=\"{id}\"]"))
}

fn selected_tab(root: &web_sys::Element) -> Option<String> {
    maybe(root, "[role=tab][aria-selected=true]").and_then(|t| attr(&t, "data-record-id"))
}

/// What the page's handler saw: `selected`, and whether `select` was accepted.
type Seen = Rc<RefCell<Vec<(Option<String>, bool)>>>;

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
    let ids = record_ids().await;
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
