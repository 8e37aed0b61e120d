//! The standalone page (`www/index.html`) in a frame, as a reader opens it with `#src=`: it says
//! whose records it shows (its own header only for records from its own site), and a `#src=`
//! changed after it loaded is followed.
//!
//! The frame is a `srcdoc` copy of the page with a `<base>` at the test site, so its scripts,
//! styles and records come from there as they would from the page's own site.

#![cfg(target_arch = "wasm32")]

use js_sys::Reflect;
use lane_viewer_tests::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Document, Element, HtmlElement, HtmlIFrameElement};

wasm_bindgen_test_configure!(run_in_browser);

/// The page in a frame, opened at `#src=<src>`; removed on drop.
struct Page {
    frame: HtmlIFrameElement,
}

impl Page {
    async fn open(src: &str) -> Page {
        let frame = site_page_frame("index.html", &format!("src={src}"), "", 1280).await;
        let page = Page { frame };
        assert!(
            eventually_within(30_000, || page.selected().is_some()).await,
            "the page shows a record: {:?}",
            page.doc().and_then(|d| d.body()).map(|b| text(&b))
        );
        page
    }

    fn doc(&self) -> Option<Document> {
        Reflect::get(&self.frame, &"contentDocument".into())
            .ok()
            .filter(|d| d.is_object())
            .map(|d| d.unchecked_into())
    }

    fn body(&self) -> Element {
        self.doc().unwrap().body().unwrap().unchecked_into()
    }

    /// The record the page's viewer shows.
    fn selected(&self) -> Option<String> {
        let doc = self.doc()?;
        let panel = doc
            .query_selector("[data-lane-viewer] [role=tabpanel][data-selected-record]")
            .ok()??;
        attr(&panel, "data-selected-record")
    }

    /// What a reader sees of the page (hidden parts left out).
    fn visible_text(&self) -> String {
        self.body().unchecked_into::<HtmlElement>().inner_text()
    }

    fn set_hash(&self, hash: &str) {
        let window = self.frame.content_window().unwrap();
        window.location().set_hash(hash).unwrap();
    }
}

impl Drop for Page {
    fn drop(&mut self) {
        self.frame.remove();
    }
}

const OURS: [&str; 2] = [
    "These records were produced by running the real core",
    "以下の記録は実際のコアを動かして作ったもので",
];

/// `path` on the test site under another origin: the same server, called `localhost`.
fn elsewhere(path: &str) -> String {
    site(path).replacen("127.0.0.1", "localhost", 1)
}

#[wasm_bindgen_test]
async fn records_from_another_origin_are_named_as_theirs_and_never_shown_under_our_header() {
    let page = Page::open("records/index.json").await;
    let seen = page.visible_text();
    for ours in OURS {
        assert!(seen.contains(ours), "our own records, our header: {seen}");
    }
    drop(page);

    let src = elsewhere("records/index.json");
    let origin = src.trim_end_matches("/records/index.json").to_string();
    let page = Page::open(&src).await;
    let seen = page.visible_text();
    for ours in OURS {
        assert!(
            !seen.contains(ours),
            "{ours} over another origin's records: {seen}"
        );
    }
    assert!(
        seen.contains(&format!(
            "These records come from {origin}, not from this site."
        )),
        "{seen}"
    );
    assert!(
        seen.contains(&format!("以下の記録は {origin} から読み込んだもので")),
        "{seen}"
    );
    assert!(page.doc().unwrap().title().contains(&origin));
    drop(page);

    // A record carried in the link itself: the link is named.
    let record = fetch_text("records/busy-project.json").await;
    let data = format!(
        "data:application/json,{}",
        String::from(js_sys::encode_uri_component(&record))
    );
    let page = Page::open(&data).await;
    let seen = page.visible_text();
    assert!(!seen.contains(OURS[0]), "{seen}");
    assert!(
        seen.contains("These records come from data:application/json,"),
        "{seen}"
    );
}

#[wasm_bindgen_test]
async fn a_src_changed_after_load_is_followed() {
    let page = Page::open("records/index.json").await;
    let first = index().await.records[0].id.clone();
    assert_eq!(page.selected().as_deref(), Some(first.as_str()));
    // The address names other records: the page shows them.
    page.set_hash("src=fixtures/journal/index.json");
    assert!(
        eventually_within(10_000, || page.selected().as_deref()
            == Some("shop-journal"))
        .await,
        "{:?}",
        page.selected()
    );
    assert_eq!(
        all(&page.body(), "[data-lane-viewer]").len(),
        1,
        "one viewer, started again"
    );
    // Then the same records from another origin, which the header names: a new viewer (the
    // one before has the record too, and follows the hash until it is gone).
    let before = one(&page.body(), "[data-lane-viewer]");
    page.set_hash(&format!(
        "src={}&record=farm-window",
        elsewhere("fixtures/journal/index.json")
    ));
    assert!(
        eventually_within(10_000, || !before.is_connected()
            && page.selected().as_deref() == Some("farm-window"))
        .await,
        "{:?}",
        page.selected()
    );
    assert!(!page.visible_text().contains(OURS[0]));
    assert!(
        page.visible_text()
            .contains("These records come from http://localhost:")
    );
    // A hash that changes only the record keeps the viewer and follows the record.
    let root = one(&page.body(), "[data-lane-viewer]");
    page.set_hash(&format!(
        "src={}&record=shop-journal",
        elsewhere("fixtures/journal/index.json")
    ));
    assert!(
        eventually_within(10_000, || page.selected().as_deref()
            == Some("shop-journal"))
        .await
    );
    assert!(root.is_connected(), "the same viewer");
}
