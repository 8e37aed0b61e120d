//! The standalone page (`www/index.html`) in a frame, as a reader opens it with `#src=`: it says
//! whose records it shows (its own header only for records from its own site), and a `#src=`
//! changed after it loaded is followed; a version 3 record over its limit is offered again with
//! `#max-bytes=` raised to its size (or `#max-steps=` to twice the steps), and a `#max-bytes=`
//! or `#max-steps=` it cannot use is named.
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

    /// The page in a frame at `#<hash>`, without waiting for a record.
    async fn at(hash: &str) -> Page {
        Page {
            frame: site_page_frame("index.html", hash, "", 1280).await,
        }
    }

    /// The page's hash, as its address has it now.
    fn hash(&self) -> String {
        self.frame
            .content_window()
            .and_then(|w| w.location().hash().ok())
            .unwrap_or_default()
    }

    /// The page's word on its limit (`[data-page-limit]`), once shown, with its kind.
    fn limit_note(&self) -> Option<(String, String)> {
        let note = self.doc()?.query_selector("[data-page-limit]").ok()??;
        if note.has_attribute("hidden") {
            return None;
        }
        Some((attr(&note, "data-page-limit")?, text(&note)))
    }

    /// The button that opens a record over the limit anyway, once offered.
    fn open_anyway(&self) -> Option<HtmlElement> {
        let button = self.doc()?.query_selector("[data-open-anyway]").ok()??;
        Some(button.unchecked_into())
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

/// What the page's offer names for `bytes`: rounded up to a whole kB (below 1 MB), as the page
/// rounds its new limit.
fn rounded_kb(bytes: usize) -> usize {
    bytes.div_ceil(1000)
}

#[wasm_bindgen_test]
async fn a_record_over_max_bytes_is_offered_with_its_size_and_opens_when_asked() {
    let bytes = fetch_bytes("records/chaos-run.jsonl").await.len();
    assert!(bytes > 10_000, "{bytes}");
    let page = Page::at("src=records/chaos-run.jsonl&max-bytes=10000&lang=en").await;
    assert!(
        eventually_within(30_000, || page.open_anyway().is_some()).await,
        "{:?}",
        page.limit_note()
    );
    let body = page.body();
    assert_eq!(error_codes(&body), ["RECORD_TOO_LARGE"]);
    let kb = rounded_kb(bytes);
    let (kind, said) = page.limit_note().unwrap();
    assert_eq!(kind, "offer");
    assert!(
        said.contains(&format!(
            "This record is {kb} kB, over this page's limit of 10 kB"
        )),
        "{said}"
    );
    let button = page.open_anyway().unwrap();
    assert_eq!(text(&button), format!("Open it anyway ({kb} kB)"));
    // In the viewer's language when it changes.
    let ja: HtmlElement = one(&body, "[data-lang-choice=ja]").unchecked_into();
    ja.click();
    let button = page.open_anyway().unwrap();
    assert_eq!(text(&button), format!("それでも開く（{kb} kB）"));
    assert!(page.limit_note().unwrap().1.contains("上限"));
    // Pressed: the record opens, and the link carries the new limit.
    button.click();
    assert!(
        eventually_within(30_000, || page.selected().is_some()).await,
        "{}",
        text(&page.body())
    );
    assert!(
        page.hash().contains(&format!("max-bytes={}", kb * 1000)),
        "{}",
        page.hash()
    );
    assert!(
        page.hash().contains("src=records/chaos-run.jsonl"),
        "{}",
        page.hash()
    );
    assert!(
        error_codes(&page.body()).is_empty(),
        "{:?}",
        error_codes(&page.body())
    );
    assert!(page.limit_note().is_none());
}

#[wasm_bindgen_test]
async fn an_opened_file_over_max_bytes_is_read_again_when_asked() {
    let record = fetch_bytes("records/chaos-run.jsonl").await;
    let kb = rounded_kb(record.len());
    let page = Page::open("records/busy-project.json&max-bytes=10000&lang=en").await;
    let root = one(&page.body(), "[data-lane-viewer]");
    drop_files(
        &root,
        vec!["chaos.jsonl".into()],
        vec![js_sys::Uint8Array::from(record.as_slice()).into()],
    );
    assert!(
        eventually_within(30_000, || page.open_anyway().is_some()).await,
        "{}",
        text(&page.body())
    );
    let button = page.open_anyway().unwrap();
    assert_eq!(text(&button), format!("Open it anyway ({kb} kB)"));
    button.click();
    assert!(
        eventually_within(30_000, || page
            .body()
            .query_selector("[role=tab][data-opened-file][aria-selected=true]")
            .ok()
            .flatten()
            .is_some()
            && error_codes(&page.body()).is_empty())
        .await,
        "{}",
        text(&page.body())
    );
    assert!(page.hash().contains(&format!("max-bytes={}", kb * 1000)));
}

#[wasm_bindgen_test]
async fn a_record_over_max_bytes_of_unknown_size_is_offered_four_times_the_limit() {
    let page = Page::at("src=__lines/page-limit.jsonl&max-bytes=100000&lang=en").await;
    assert!(
        eventually_within(30_000, || page.open_anyway().is_some()).await,
        "{}",
        text(&page.body())
    );
    let (_, said) = page.limit_note().unwrap();
    assert!(said.contains("its size is not known"), "{said}");
    assert_eq!(
        text(&page.open_anyway().unwrap()),
        "Open it anyway (up to 400 kB)"
    );
}

#[wasm_bindgen_test]
async fn a_record_over_max_steps_is_offered_twice_the_steps_and_opens_when_asked() {
    // 200 steps, over a limit of 150: refused, and offered 300.
    let page = Page::at("src=records/chaos-run.jsonl&max-steps=150&lang=en").await;
    assert!(
        eventually_within(30_000, || page.open_anyway().is_some()).await,
        "{:?}",
        page.limit_note()
    );
    let body = page.body();
    assert_eq!(error_codes(&body), ["RECORD_TOO_LARGE"]);
    assert!(
        text(&body).contains("at most 150 steps, about 52 KiB of memory"),
        "{}",
        text(&body)
    );
    let (kind, said) = page.limit_note().unwrap();
    assert_eq!(kind, "offer");
    assert!(
        said.contains("This record has more steps than this page holds (150)"),
        "{said}"
    );
    let button = page.open_anyway().unwrap();
    assert_eq!(text(&button), "Open it anyway (up to 300 steps)");
    let ja: HtmlElement = one(&body, "[data-lang-choice=ja]").unchecked_into();
    ja.click();
    let button = page.open_anyway().unwrap();
    assert_eq!(text(&button), "それでも開く（300 ステップまで）");
    assert!(
        page.limit_note()
            .unwrap()
            .1
            .contains("保持できるステップ数"),
        "{:?}",
        page.limit_note()
    );
    // Pressed: the record opens and is verified, and the link carries the new limit.
    button.click();
    assert!(
        eventually_within(30_000, || page.selected().is_some()
            && page
                .body()
                .query_selector("[role=tabpanel][data-verification=verified]")
                .ok()
                .flatten()
                .is_some())
        .await,
        "{}",
        text(&page.body())
    );
    assert!(page.hash().contains("max-steps=300"), "{}", page.hash());
    assert!(error_codes(&page.body()).is_empty());
    assert!(page.limit_note().is_none());
}

#[wasm_bindgen_test]
async fn the_default_limits_open_what_the_old_byte_limit_refused() {
    // The page's own defaults: no #max-bytes, no #max-steps. A record over the former 64 MiB
    // is not sent here (the farm's, 77 MB, is `cargo xtask bench`'s); its length is announced
    // instead, and the page refuses only what is over 256 MiB.
    let page = Page::at("src=__length/100000000/farm.jsonl&lang=en").await;
    let shown = |page: &Page| {
        page.doc()
            .and_then(|d| d.body())
            .map(|b| b.unchecked_into())
    };
    assert!(
        eventually_within(30_000, || shown(&page)
            .is_some_and(|b: Element| !error_codes(&b).is_empty()))
        .await,
        "{}",
        text(&page.body())
    );
    // Read (its spaces break the record's second line), not refused for its size.
    let codes = error_codes(&page.body());
    assert!(
        codes.len() == 1 && codes[0] != "RECORD_TOO_LARGE",
        "{codes:?}: {}",
        text(&page.body())
    );
    assert!(page.open_anyway().is_none());
    let page = Page::at("src=__length/300000000/farm.jsonl&lang=en").await;
    assert!(
        eventually_within(30_000, || page.open_anyway().is_some()).await,
        "{}",
        text(&page.body())
    );
    assert!(
        text(&page.body()).contains("at most 268435456 bytes (256 MiB;"),
        "{}",
        text(&page.body())
    );
    assert_eq!(
        text(&page.open_anyway().unwrap()),
        "Open it anyway (300 MB)"
    );
}

#[wasm_bindgen_test]
async fn a_max_bytes_that_is_not_a_whole_number_says_why_and_the_default_applies() {
    for (bad, lang, says) in [
        (
            "abc",
            "en",
            "#max-bytes=abc is not used: expected a whole number of bytes",
        ),
        ("0", "en", "#max-bytes=0 is not used"),
        ("1.5", "ja", "#max-bytes=1.5 は使えません。"),
        (
            "abc",
            "en",
            "#max-steps=abc is not used: expected a whole number of steps",
        ),
        ("0", "ja", "#max-steps=0 は使えません。"),
    ] {
        let name = if says.contains("max-steps") {
            "max-steps"
        } else {
            "max-bytes"
        };
        let page = Page::open(&format!("records/index.json&{name}={bad}&lang={lang}")).await;
        let (kind, said) = page.limit_note().expect("the page names the value");
        assert_eq!(kind, "bad");
        assert!(said.contains(says), "{said}");
        assert!(error_codes(&page.body()).is_empty());
    }
}
