//! The viewer as laid out at a desktop (1280×900) and a phone (390×844) viewport and in a book's
//! column: the focused control stays in view while the current step moves, the timeline fits
//! the width it is given down to a readable size and below it scrolls, with its row labels in
//! view and a visible sign that it scrolls, headings are sized by the text around the viewer,
//! and a timeline with thousands of refused steps stays small, its marks counted per bucket.
//!
//! Each viewport is an `<iframe>` of that size fixed over the test page, holding the viewer's
//! stylesheet: the viewer lays itself out, scrolls and matches media queries inside it.

use lane_viewer_tests::*;
use serde_json::Value;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlIFrameElement};

/// A viewport of `width`×`height` CSS pixels: an iframe fixed at the top left of the test page,
/// with the viewer's stylesheet. Removed on drop.
struct Frame {
    iframe: HtmlIFrameElement,
}

impl Frame {
    async fn new(width: u32, height: u32) -> Frame {
        let iframe: HtmlIFrameElement = document()
            .create_element("iframe")
            .unwrap()
            .unchecked_into();
        iframe
            .set_attribute(
                "style",
                &format!(
                    "position: fixed; left: 0; top: 0; width: {width}px; height: {height}px; \
                     border: 0; z-index: 1000; background: #fff"
                ),
            )
            .unwrap();
        document().body().unwrap().append_child(&iframe).unwrap();
        let doc = iframe.content_document().expect("a same-origin frame");
        let link = doc.create_element("link").unwrap();
        link.set_attribute("rel", "stylesheet").unwrap();
        link.set_attribute("href", &site("viewer.css")).unwrap();
        doc.head().unwrap().append_child(&link).unwrap();
        let probe = doc.create_element("div").unwrap();
        probe.set_class_name("lane-viewer");
        doc.body().unwrap().append_child(&probe).unwrap();
        let frame = Frame { iframe };
        let styled = || {
            frame
                .window()
                .get_computed_style(&probe)
                .unwrap()
                .unwrap()
                .get_property_value("border-top-left-radius")
                .unwrap()
                == "8px"
        };
        assert!(
            eventually_within(10_000, styled).await,
            "the stylesheet loads"
        );
        probe.remove();
        frame
    }

    fn window(&self) -> web_sys::Window {
        self.iframe.content_window().unwrap()
    }

    fn height(&self) -> f64 {
        self.window().inner_height().unwrap().as_f64().unwrap()
    }

    /// Mounts a viewer in the frame.
    async fn mount(&self, opts: &[(&str, JsValue)]) -> (lane_viewer::Viewer, Element) {
        let doc = self.iframe.content_document().unwrap();
        let host = doc.create_element("div").unwrap();
        doc.body().unwrap().append_child(&host).unwrap();
        let viewer = lane_viewer::mount(host.clone(), options(opts))
            .await
            .expect("mount resolves");
        let root = one(&host, "[data-lane-viewer]");
        (viewer, root)
    }

    fn focused(&self) -> Option<Element> {
        self.iframe.content_document().unwrap().active_element()
    }
}

impl Drop for Frame {
    fn drop(&mut self) {
        self.iframe.remove();
    }
}

/// How many pixels of `element` show in the frame's viewport, below the viewer's sticky step
/// bar when `element` is not in it (what the bar covers is hidden).
fn visible_height(frame: &Frame, root: &Element, element: &Element) -> f64 {
    let rect = element.get_bounding_client_rect();
    let mut top = 0.0;
    if let Some(bar) = maybe(root, ".lv-tl-nav")
        && !bar.contains(Some(element))
    {
        let bar = bar.get_bounding_client_rect();
        if bar.top() <= 1.0 {
            top = bar.bottom();
        }
    }
    (rect.bottom().min(frame.height()) - rect.top().max(top)).max(0.0)
}

fn focus(element: &Element) {
    element.unchecked_ref::<HtmlElement>().focus().unwrap();
}

#[wasm_bindgen_test]
async fn the_focused_control_stays_in_view_while_the_current_step_moves() {
    for (width, height) in [(1280, 900), (390, 844)] {
        let frame = Frame::new(width, height).await;
        let (viewer, root) = frame
            .mount(&[("record", s("persistence-gate")), ("lang", s("en"))])
            .await;
        let next = one(&root, "[data-step-next]");
        focus(&next);
        for n in 0..13 {
            click(&next);
            assert_eq!(viewer.current_step(), Some(n));
            assert_eq!(frame.focused(), Some(next.clone()));
            let seen = visible_height(&frame, &root, &next);
            assert!(
                seen >= next.get_bounding_client_rect().height() - 1.0,
                "{width}×{height}: Next is hidden after step {} ({seen} px seen)",
                n + 1
            );
            // The step's card is brought into view too.
            let card = one(&root, &format!("[data-step=\"{n}\"]"));
            assert!(
                visible_height(&frame, &root, &card) >= 40.0,
                "{width}×{height}: card {} out of view",
                n + 1
            );
        }
        let timeline = one(&root, "[data-timeline]");
        focus(&timeline);
        key(&timeline, "Home");
        for n in 1..13 {
            key(&timeline, "ArrowRight");
            assert_eq!(viewer.current_step(), Some(n));
            assert_eq!(frame.focused(), Some(timeline.clone()));
            let seen = visible_height(&frame, &root, &timeline);
            assert!(
                seen >= 40.0,
                "{width}×{height}: the timeline is hidden at step {} ({seen} px seen)",
                n + 1
            );
        }
        viewer.destroy();
    }
}

/// The row labels, the scroller and the drawing of the timeline in `root`.
fn timeline_parts(root: &Element) -> (Vec<Element>, Element, Element) {
    (
        all(root, ".lv-tl-labels text"),
        one(root, ".lv-tl-scroll"),
        one(root, "[data-timeline]"),
    )
}

/// The smallest scale the timeline is drawn at before it scrolls: its 12 px text at 9.6 px
/// (`.lv-tl-scroll`'s column in viewer.css, 704 of 880 px).
const READABLE_SCALE: f64 = 0.8;

/// How much of its natural size (880 px) the drawing and its row labels are drawn at; they
/// are drawn alike.
fn timeline_scale(root: &Element) -> f64 {
    let (_, _, svg) = timeline_parts(root);
    let labels = one(root, ".lv-tl-labels");
    let scale = svg.get_bounding_client_rect().width() / 880.0;
    let label_w: f64 = attr(&labels, "viewBox")
        .unwrap()
        .split(' ')
        .nth(2)
        .unwrap()
        .parse()
        .unwrap();
    let labels_scale = labels.get_bounding_client_rect().width() / label_w;
    assert!(
        (labels_scale - scale).abs() < 0.01,
        "the labels at {labels_scale}, the drawing at {scale}"
    );
    let heights = (
        svg.get_bounding_client_rect().height(),
        labels.get_bounding_client_rect().height(),
    );
    assert!((heights.0 - heights.1).abs() < 1.0, "heights {heights:?}");
    scale
}

#[wasm_bindgen_test]
async fn at_390_px_the_timeline_keeps_readable_text_sticky_labels_and_says_it_scrolls() {
    let frame = Frame::new(390, 844).await;
    for lang in ["en", "ja"] {
        let (viewer, root) = frame
            .mount(&[("record", s("persistence-gate")), ("lang", s(lang))])
            .await;
        let (labels, scroller, _) = timeline_parts(&root);
        // Drawn at its smallest readable size, and no smaller: 12 px text at 9.6 px.
        let scale = timeline_scale(&root);
        assert!(
            (scale - READABLE_SCALE).abs() < 0.01,
            "{lang}: drawn at {scale}"
        );
        assert!(scroller.scroll_width() > scroller.client_width());
        let hint = one(&root, "[data-timeline-hint]");
        assert!(
            hint.unchecked_ref::<HtmlElement>().offset_height() > 0,
            "{lang}: the hint shows"
        );
        assert!(!labels.is_empty());
        // Scrolled to the last step, every row label is still in the box, whole.
        assert!(viewer.select_step(JsValue::from(12_u32)));
        assert!(scroller.scroll_left() > 0);
        let bounds = scroller.get_bounding_client_rect();
        for label in &labels {
            let rect = label.get_bounding_client_rect();
            assert!(
                rect.left() >= bounds.left() - 0.5 && rect.right() <= bounds.right() + 0.5,
                "{lang}: {:?} at {}..{} outside {}..{}",
                text(label),
                rect.left(),
                rect.right(),
                bounds.left(),
                bounds.right()
            );
        }
        viewer.destroy();
    }
    // At 1280 px the drawing fits at its natural size, no larger: no hint.
    drop(frame);
    let frame = Frame::new(1280, 900).await;
    let (viewer, root) = frame
        .mount(&[("record", s("persistence-gate")), ("lang", s("en"))])
        .await;
    let hint = one(&root, "[data-timeline-hint]");
    assert_eq!(hint.unchecked_ref::<HtmlElement>().offset_height(), 0);
    let scale = timeline_scale(&root);
    assert!((scale - 1.0).abs() < 0.01, "drawn at {scale}");
    viewer.destroy();
}

/// The frame's page laid out as mdBook lays out a chapter: the root's font at 62.5% (10 px),
/// the text at 1.6rem, in a column at most 750 px wide.
fn as_a_book(frame: &Frame) {
    let doc = frame.iframe.content_document().unwrap();
    let html: HtmlElement = doc.document_element().unwrap().unchecked_into();
    html.style().set_property("font-size", "62.5%").unwrap();
    let body = doc.body().unwrap();
    for (name, value) in [
        ("font-size", "1.6rem"),
        ("max-width", "750px"),
        ("margin", "0 auto"),
    ] {
        body.style().set_property(name, value).unwrap();
    }
}

fn font_px(frame: &Frame, element: &Element) -> f64 {
    let size = frame
        .window()
        .get_computed_style(element)
        .unwrap()
        .unwrap()
        .get_property_value("font-size")
        .unwrap();
    size.trim_end_matches("px").parse().unwrap()
}

#[wasm_bindgen_test]
async fn in_a_book_the_title_is_larger_than_the_summary_and_the_timeline_fits_its_column() {
    let frame = Frame::new(1280, 900).await;
    as_a_book(&frame);
    for lang in ["en", "ja"] {
        let (viewer, root) = frame
            .mount(&[("record", s("persistence-gate")), ("lang", s(lang))])
            .await;
        // Sized by the text around the viewer (16 px), not by the page's root (10 px).
        let summary = font_px(&frame, &one(&root, ".lv-summary"));
        assert_eq!(summary, 16.0, "{lang}");
        let title = font_px(&frame, &one(&root, ".lv-title"));
        assert!(
            title >= summary * 1.2,
            "{lang}: title {title} px, summary {summary} px"
        );
        let heading = font_px(&frame, &one(&root, ".lv-h"));
        assert!(heading > summary, "{lang}: heading {heading} px");
        // The timeline fits the column, drawn smaller but readable: no scrolling, no hint.
        let (_, scroller, _) = timeline_parts(&root);
        assert!(
            scroller.scroll_width() <= scroller.client_width(),
            "{lang}: scrolls {} in {}",
            scroller.scroll_width(),
            scroller.client_width()
        );
        let hint = one(&root, "[data-timeline-hint]");
        assert_eq!(
            hint.unchecked_ref::<HtmlElement>().offset_height(),
            0,
            "{lang}"
        );
        let scale = timeline_scale(&root);
        assert!(
            (READABLE_SCALE..1.0).contains(&scale),
            "{lang}: drawn at {scale}"
        );
        viewer.destroy();
    }
}

#[wasm_bindgen_test]
async fn error_codes_and_step_numbers_on_the_timeline_are_never_cut_off() {
    for (width, height, src, id) in [
        (390, 844, "records/index.json", "stale-release"),
        (1280, 900, "records/index.json", "stale-release"),
        (1280, 900, "bench/10000/index.json", "large-10000"),
    ] {
        let frame = Frame::new(width, height).await;
        let (viewer, root) = frame
            .mount(&[("src", s(src)), ("record", s(id)), ("lang", s("en"))])
            .await;
        let svg = one(&root, "[data-timeline]").get_bounding_client_rect();
        for text_element in all(&root, "[data-timeline] text") {
            let rect = text_element.get_bounding_client_rect();
            assert!(
                rect.right() <= svg.right() + 0.5 && rect.left() >= svg.left() - 0.5,
                "{id} at {width}: {:?} ends at {} in {}..{}",
                text(&text_element),
                rect.right(),
                svg.left(),
                svg.right()
            );
        }
        viewer.destroy();
    }
}

#[wasm_bindgen_test]
async fn thousands_of_refused_steps_are_counted_per_bucket_not_stacked() {
    let record: Value =
        serde_json::from_str(&fetch_text("fixtures/dense-refusals/dense-refusals.json").await)
            .unwrap();
    let refused: Vec<usize> = record["steps"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter(|(_, step)| step["result"].get("error").is_some())
        .map(|(i, _)| i)
        .collect();
    assert!(refused.len() > 1_000, "{} refused", refused.len());
    let m = mount(&[
        ("src", s("fixtures/dense-refusals/index.json")),
        ("lang", s("en")),
    ])
    .await;
    let root = m.root();
    let svg = one(&root, "[data-timeline]");
    let height: u32 = attr(&svg, "height").unwrap().parse().unwrap();
    assert!(height < 300, "{height} px tall");
    assert!(all(&svg, ".lv-tl-code").len() <= 60);
    assert!(all(&svg, ".lv-tl-guide").len() <= 100);
    // Every refused step is counted exactly once: alone, or in its bucket.
    let mut counted = vec![0; record["steps"].as_array().unwrap().len()];
    for mark in all(&svg, "[data-refused-step]") {
        let n: usize = attr(&mark, "data-refused-step").unwrap().parse().unwrap();
        counted[n] += 1;
    }
    let mut total = 0;
    for bucket in all(&svg, "[data-refused-bucket]") {
        let get = |name: &str| -> usize { attr(&bucket, name).unwrap().parse().unwrap() };
        let (from, to, count) = (get("data-from"), get("data-to"), get("data-count"));
        let inside = refused
            .iter()
            .filter(|&&n| (from..=to).contains(&n))
            .count();
        assert_eq!(inside, count, "bucket {from}..={to}");
        for &n in refused.iter().filter(|&&n| (from..=to).contains(&n)) {
            counted[n] += 1;
        }
        total += count;
        assert!(text(&bucket).replace(',', "").contains(&count.to_string()));
    }
    assert!(total > 0, "dense marks are aggregated");
    for &n in &refused {
        assert_eq!(counted[n], 1, "refused step {n}");
    }
    // The selected step's details name its code.
    let first = refused[0];
    assert!(m.viewer.select_step(JsValue::from(first as u32)));
    let code = record["steps"][first]["result"]["error"].as_str().unwrap();
    let detail = text(&one(&root, "[data-step-detail]"));
    assert!(detail.contains(code), "{detail}");
}

#[wasm_bindgen_test]
async fn a_long_list_of_records_keeps_its_tabs_in_a_box_and_the_selected_record_on_the_first_screen()
 {
    for (width, height) in [(1280, 900), (390, 844)] {
        let frame = Frame::new(width, height).await;
        // 200 records, the 151st selected.
        let (viewer, root) = frame
            .mount(&[
                ("src", s("fixtures/many/index.json")),
                ("record", s("many-150")),
                ("lang", s("en")),
            ])
            .await;
        let list = one(&root, "[role=tablist]");
        let boxed = list.get_bounding_client_rect();
        assert!(
            boxed.height() <= 0.25 * frame.height(),
            "{width}×{height}: the tabs take {} px",
            boxed.height()
        );
        assert!(
            list.scroll_height() > list.client_height(),
            "it scrolls inside"
        );
        let inside = |tab: &Element| {
            let r = tab.get_bounding_client_rect();
            let b = list.get_bounding_client_rect();
            r.top() >= b.top() - 0.5 && r.bottom() <= b.bottom() + 0.5
        };
        let selected = one(&root, "[role=tab][aria-selected=true]");
        assert_eq!(
            attr(&selected, "data-record-id").as_deref(),
            Some("many-150")
        );
        let (r, b) = (
            selected.get_bounding_client_rect(),
            list.get_bounding_client_rect(),
        );
        assert!(
            inside(&selected),
            "{width}×{height}: the selected tab at {}..{}, its box {}..{} scrolled by {}",
            r.top(),
            r.bottom(),
            b.top(),
            b.bottom(),
            list.scroll_top()
        );
        let title = one(&root, "[role=tabpanel] .lv-title");
        assert!(
            title.get_bounding_client_rect().bottom() <= frame.height(),
            "{width}×{height}: the record's title at {} px",
            title.get_bounding_client_rect().top()
        );
        // The keys move through the tabs as before, and the focused tab is shown.
        focus(&selected);
        for (key_name, id) in [
            ("ArrowRight", "many-151"),
            ("End", "many-199"),
            ("Home", "many-000"),
        ] {
            key(&frame.focused().unwrap(), key_name);
            let focused = frame.focused().unwrap();
            assert_eq!(attr(&focused, "data-record-id").as_deref(), Some(id));
            assert_eq!(attr(&focused, "aria-selected").as_deref(), Some("true"));
            assert!(inside(&focused), "{width}×{height}: {key_name}");
        }
        // Selected from the page, the tab is brought into its box.
        assert!(viewer.select("many-120"));
        assert!(inside(&one(&root, "[role=tab][data-record-id=many-120]")));
        viewer.destroy();
    }
}

/// A short index shows every tab, so selecting in it reads no layout; when records opened one
/// by one make the box reach its height and scroll, each new record's tab is still shown.
#[wasm_bindgen_test]
async fn a_tab_list_that_grows_into_a_scrolling_box_shows_each_new_selected_tab() {
    let frame = Frame::new(390, 844).await;
    let (viewer, root) = frame
        .mount(&[("src", s("records/busy-project.json")), ("lang", s("en"))])
        .await;
    let list = one(&root, "[role=tablist]");
    let mut scrolled = false;
    for n in 0..40 {
        let id = format!("opened-{n:02}");
        viewer.open_text(&format!("{id}.json"), views_record(&id, 2));
        assert_eq!(viewer.selected(), Some(id.clone()));
        let tab = one(&root, &format!("[role=tab][data-record-id={id}]"));
        let inside = || {
            let (r, b) = (
                tab.get_bounding_client_rect(),
                list.get_bounding_client_rect(),
            );
            r.top() >= b.top() - 0.5 && r.bottom() <= b.bottom() + 0.5
        };
        assert!(
            eventually(inside).await,
            "{id}: its tab at {}, the box {}..{} scrolled by {}",
            tab.get_bounding_client_rect().top(),
            list.get_bounding_client_rect().top(),
            list.get_bounding_client_rect().bottom(),
            list.scroll_top()
        );
        scrolled |= list.scroll_top() > 0;
    }
    assert!(scrolled, "40 tabs at 390 px scroll inside their box");
    viewer.destroy();
}
