//! Helpers for the browser tests: mounting viewers, reading the DOM contract, fetching the
//! record files the rendering is compared with, and driving clicks, keys and time.
//!
//! The tests run in headless Chromium through `cargo xtask test` (or `cargo xtask browser`). The
//! test page comes from wasm-bindgen-test-runner; the records and fixtures come from the project's
//! own static server over `target/browser-site/` (see `xtask/src/fixtures.rs`), whose address
//! xtask fixes at build time in `LANE_TEST_SITE`. Write fixture paths relative to that site
//! (`records/…`, `fixtures/…`): `site`, `mount` and `fetch_text` resolve them.

#![cfg(target_arch = "wasm32")]

pub mod playground;

use js_sys::{Object, Promise, Reflect};
use lane_viewer::Viewer;
use project_lanes::record::{Index, Record};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Document, Element, HtmlElement, KeyboardEvent, KeyboardEventInit, Response};

/// The test site's address (`http://127.0.0.1:PORT/`), fixed at build time by xtask.
const SITE: Option<&str> = option_env!("LANE_TEST_SITE");

/// Seconds after which a test that is still running logs what its viewers show (xtask stops a
/// test at 120 s and prints this line with the test's name).
const SNAPSHOT_AFTER_SECONDS: i32 = 100;

/// The absolute URL of `path` on the test site (absolute URLs are returned as they are).
pub fn site(path: &str) -> String {
    if path.contains("://") {
        return path.to_owned();
    }
    let base = SITE.expect(
        "LANE_TEST_SITE is not set: run the browser tests with `cargo xtask browser` or `cargo xtask test`",
    );
    format!("{base}{}", path.trim_start_matches('/'))
}

pub fn window() -> web_sys::Window {
    web_sys::window().expect("a window")
}

pub fn document() -> Document {
    window().document().expect("a document")
}

/// A viewer mounted in a fresh host element; destroyed and removed on drop.
pub struct Mounted {
    pub host: Element,
    pub viewer: Viewer,
    snapshot: PageSnapshot,
}

impl Mounted {
    /// The viewer's own root (`[data-lane-viewer]`).
    pub fn root(&self) -> Element {
        one(&self.host, "[data-lane-viewer]")
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        self.snapshot.cancel();
        self.viewer.destroy();
        self.host.remove();
    }
}

/// A timer that logs what the page's viewers show if the test is still running after
/// `SNAPSHOT_AFTER_SECONDS`: a hung test then says where it stood.
struct PageSnapshot {
    handle: i32,
    _callback: Closure<dyn FnMut()>,
}

impl PageSnapshot {
    fn start() -> PageSnapshot {
        let callback = Closure::<dyn FnMut()>::new(|| {
            web_sys::console::log_1(&JsValue::from_str(&page_snapshot()));
        });
        let handle = window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(
                callback.as_ref().unchecked_ref(),
                SNAPSHOT_AFTER_SECONDS * 1000,
            )
            .unwrap();
        PageSnapshot {
            handle,
            _callback: callback,
        }
    }

    fn cancel(&self) {
        window().clear_timeout_with_handle(self.handle);
    }
}

/// One line describing every viewer on the page: its state attributes and the start of its text.
pub fn page_snapshot() -> String {
    let mut line = format!("page-snapshot after {SNAPSHOT_AFTER_SECONDS} s:");
    let viewers = all(
        &document().document_element().unwrap(),
        "[data-lane-viewer]",
    );
    if viewers.is_empty() {
        line.push_str(" no viewer on the page");
    }
    for (i, viewer) in viewers.iter().enumerate() {
        line.push_str(&format!(" | viewer {}", i + 1));
        let names = viewer.get_attribute_names();
        for name in names.iter().filter_map(|n| n.as_string()) {
            if name.starts_with("data-") || name == "lang" || name == "aria-busy" {
                let value = viewer.get_attribute(&name).unwrap_or_default();
                line.push_str(&format!(" [{name}={value}]"));
            }
        }
        let shown: String = text(viewer)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .chars()
            .take(240)
            .collect();
        line.push_str(&format!(" shows: {shown:?}"));
    }
    line
}

/// Adds the viewer's stylesheet (from the test site) to the test page once, as a real page would.
fn stylesheet() {
    let doc = document();
    if doc
        .query_selector("link[data-viewer-css]")
        .unwrap()
        .is_none()
    {
        let link = doc.create_element("link").unwrap();
        link.set_attribute("rel", "stylesheet").unwrap();
        link.set_attribute("href", &site("viewer.css")).unwrap();
        link.set_attribute("data-viewer-css", "").unwrap();
        doc.head().unwrap().append_child(&link).unwrap();
    }
}

/// Mounts a viewer with these options (`src`, `lang`, `record` as strings, `hash` as bool).
/// A relative `src` is a path on the test site; without one, the committed records' index.
pub async fn mount(opts: &[(&str, JsValue)]) -> Mounted {
    let snapshot = PageSnapshot::start();
    let host = host();
    let viewer = lane_viewer::mount(host.clone(), options(opts))
        .await
        .expect("mount resolves");
    Mounted {
        host,
        viewer,
        snapshot,
    }
}

pub fn s(value: &str) -> JsValue {
    JsValue::from_str(value)
}

/// `n` with its digits grouped by three (`10,000`), as the viewer writes counts.
pub fn grouped(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
}

/// The one element matching `selector` under `root`; panics with the selector otherwise.
pub fn one(root: &Element, selector: &str) -> Element {
    root.query_selector(selector)
        .unwrap()
        .unwrap_or_else(|| panic!("no element matches {selector}"))
}

pub fn maybe(root: &Element, selector: &str) -> Option<Element> {
    root.query_selector(selector).unwrap()
}

pub fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length())
        .filter_map(|i| list.item(i))
        .map(|n| n.unchecked_into())
        .collect()
}

pub fn attr(element: &Element, name: &str) -> Option<String> {
    element.get_attribute(name)
}

pub fn text(element: &Element) -> String {
    element.text_content().unwrap_or_default()
}

pub fn click(element: &Element) {
    element.unchecked_ref::<HtmlElement>().click();
}

/// Dispatches a bubbling `keydown` with this `key` on `element`.
pub fn key(element: &Element, key: &str) {
    let init = KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    element.dispatch_event(&event).unwrap();
}

/// The element that has focus.
pub fn focused() -> Option<Element> {
    document().active_element()
}

/// Waits for the browser to run its queued tasks (events such as `hashchange`).
pub async fn tick() {
    let promise = Promise::new(&mut |resolve, _| {
        window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 10)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// Polls `done` for up to two seconds.
pub async fn eventually(done: impl FnMut() -> bool) -> bool {
    eventually_within(2_000, done).await
}

/// Polls `done` for up to `ms` milliseconds.
pub async fn eventually_within(ms: u32, mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..ms / 10 {
        if done() {
            return true;
        }
        tick().await;
    }
    done()
}

/// Fails if any element id appears twice on the page.
pub fn assert_ids_unique() {
    let ids: Vec<String> = all(&document().document_element().unwrap(), "[id]")
        .iter()
        .filter_map(|e| attr(e, "id"))
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(ids.len(), unique.len(), "an id appears twice: {ids:?}");
}

/// The text of `url`, a path on the test site or an absolute URL.
pub async fn fetch_text(url: &str) -> String {
    let url = &site(url);
    let response: Response = JsFuture::from(window().fetch_with_str(url))
        .await
        .unwrap()
        .unchecked_into();
    assert!(response.ok(), "fetching {url}: HTTP {}", response.status());
    JsFuture::from(response.text().unwrap())
        .await
        .unwrap()
        .as_string()
        .unwrap()
}

/// The bytes of `url`, a path on the test site or an absolute URL.
pub async fn fetch_bytes(url: &str) -> Vec<u8> {
    let url = &site(url);
    let response: Response = JsFuture::from(window().fetch_with_str(url))
        .await
        .unwrap()
        .unchecked_into();
    assert!(response.ok(), "fetching {url}: HTTP {}", response.status());
    let buffer = JsFuture::from(response.array_buffer().unwrap())
        .await
        .unwrap();
    js_sys::Uint8Array::new(&buffer).to_vec()
}

#[wasm_bindgen(inline_js = r#"
// Drops files on `target` as a person would: a DataTransfer holding Files (strings or bytes).
export function dropFiles(target, names, contents) {
  const data = new DataTransfer();
  names.forEach((name, i) => data.items.add(new File([contents[i]], name, { type: "application/json" })));
  target.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
}
"#)]
extern "C" {
    /// Drops files named `names` holding `contents` (strings or `Uint8Array`s) on `target`.
    #[wasm_bindgen(js_name = dropFiles)]
    pub fn drop_files(target: &Element, names: Vec<String>, contents: Vec<JsValue>);
}

/// A record of `steps` view steps, written compactly (100,000 steps stay under 16 MiB).
pub fn views_record(id: &str, steps: usize) -> String {
    let lanes = r#"[{"project":"a","busy":false},{"project":"b","busy":false}]"#;
    let step = format!(
        r#"{{"op":"view","input":{{"project":"b"}},"result":{{"view":{{"project":"b","busy":false}}}},"lanes":{lanes}}}"#
    );
    let mut out = format!(
        r#"{{"format":"project-lanes/record","version":1,"id":"{id}","title":{{"en":"{steps} views","ja":"{steps} 回の状態確認"}},"summary":{{"en":"Views.","ja":"状態確認です。"}},"work_executed_here":false,"projects":["a","b"],"untouched_project":"b","steps":["#
    );
    for i in 0..steps {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&step);
    }
    out.push_str(&format!(r#"],"final_lanes":{lanes}}}"#));
    out
}

/// A version 3 record's head line, with this id and English and Japanese title.
fn lines_head(id: &str, en: &str, ja: &str) -> String {
    format!(
        concat!(
            r#"{{"format":"project-lanes/record","version":3,"id":"{id}","#,
            r#""title":{{"en":"{en}","ja":"{ja}"}},"#,
            r#""summary":{{"en":"{en}.","ja":"{ja}。"}},"work_executed_here":false}}"#,
            "\n"
        ),
        id = id,
        en = en,
        ja = ja
    )
}

/// A version 3 record of `runs` runs of project `a`, each claimed and released (`run-0` is
/// steps 0 and 1, `run-N` steps 2N and 2N+1), written as the core's `Writer` writes it.
pub fn runs_record(id: &str, runs: usize) -> String {
    let mut out = lines_head(id, &format!("{runs} runs"), &format!("{runs} 回の実行"));
    for n in 0..runs {
        out.push_str(&format!(
            "{{\"op\":\"claim\",\"project\":\"a\",\"run\":\"run-{n}\",\"result\":\"ok\"}}\n\
             {{\"op\":\"release\",\"lease\":\"L{}\",\"outcome\":\"succeeded\",\"result\":\"ok\"}}\n",
            n + 1
        ));
    }
    out.push_str(&format!("{{\"end\":{{\"steps\":{}}}}}\n", 2 * runs));
    out
}

/// A version 3 record over `projects` projects (`p0`, `p1`, …): each claimed in turn (`p{N}`
/// by `run-{N}` at step N), then each released in the same order (at step `projects + N`).
pub fn projects_record(id: &str, projects: usize) -> String {
    let en = format!("{projects} projects");
    let mut out = lines_head(id, &en, &format!("{projects} 個のプロジェクト"));
    for n in 0..projects {
        out.push_str(&format!(
            "{{\"op\":\"claim\",\"project\":\"p{n}\",\"run\":\"run-{n}\",\"result\":\"ok\"}}\n"
        ));
    }
    for n in 0..projects {
        out.push_str(&format!(
            "{{\"op\":\"release\",\"lease\":\"L{}\",\"outcome\":\"succeeded\",\"result\":\"ok\"}}\n",
            n + 1
        ));
    }
    out.push_str(&format!("{{\"end\":{{\"steps\":{}}}}}\n", 2 * projects));
    out
}

/// Types `query` into the find box under `root` as a person would: the value, then an `input`
/// event.
pub fn type_query(root: &Element, query: &str) {
    let input = one(root, "[data-find-input]");
    js_sys::Reflect::set(&input, &"value".into(), &query.into()).unwrap();
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    let event = web_sys::Event::new_with_event_init_dict("input", &init).unwrap();
    input.dispatch_event(&event).unwrap();
}

/// A lanes record of one claim, with this id (made by the core's `Recorder`).
pub fn one_claim_record(id: &str) -> String {
    let text = |s: &str| project_lanes::record::Text {
        en: s.into(),
        ja: s.into(),
    };
    let mut rec = project_lanes::record::Recorder::new(
        id,
        text(id),
        text("One claim."),
        &["docs", "site"],
        "site",
    )
    .unwrap();
    rec.claim("docs", "run-1");
    serde_json::to_string(&rec.finish().unwrap()).unwrap()
}

/// The committed index, parsed independently of the viewer (with serde_json).
pub async fn index() -> Index {
    serde_json::from_str(&fetch_text("records/index.json").await).unwrap()
}

/// The ids of the committed records, in the index's order.
pub async fn record_ids() -> Vec<String> {
    index()
        .await
        .records
        .iter()
        .map(|e| e.id.to_string())
        .collect()
}

/// A committed record, parsed independently of the viewer.
pub async fn record(id: &str) -> Record {
    serde_json::from_str(&fetch_text(&format!("records/{id}.json")).await).unwrap()
}

/// Asserts that the selected panel shows `record` in `lang`: title, summary, every step's
/// operation and result, the lanes after every step, the final lanes and the untouched project.
pub fn assert_shows(root: &Element, record: &Record, lang: &str) {
    assert_eq!(attr(root, "lang").as_deref(), Some(lang));
    let panel = one(root, "[role=tabpanel]");
    assert_eq!(
        attr(&panel, "data-selected-record").as_deref(),
        Some(record.id.as_str())
    );
    let tab = one(root, &format!("[role=tab][data-record-id={}]", record.id));
    assert_eq!(attr(&tab, "aria-selected").as_deref(), Some("true"));
    let tab_title = maybe(&tab, ".lv-tab-title").unwrap_or_else(|| tab.clone());
    assert_eq!(text(&tab_title), record.title.get(lang));
    assert_eq!(text(&one(&panel, ".lv-title")), record.title.get(lang));
    assert_eq!(text(&one(&panel, ".lv-summary")), record.summary.get(lang));
    assert!(maybe(&panel, "[data-nothing-executed]").is_some());
    let steps = all(&panel, "[data-step]");
    assert_eq!(steps.len(), record.steps.len(), "{}: step count", record.id);
    for (i, (element, step)) in steps.iter().zip(&record.steps).enumerate() {
        assert_eq!(attr(element, "data-step"), Some(i.to_string()));
        assert_eq!(
            attr(element, "data-op").as_deref(),
            Some(step.op.as_str()),
            "{} step {i}",
            record.id
        );
        assert_eq!(
            attr(element, "data-result").as_deref(),
            Some(step.result.code()),
            "{} step {i}",
            record.id
        );
        if let Some(note) = &step.note {
            assert_eq!(text(&one(element, ".lv-note")), note.get(lang));
        }
        assert_lanes(
            &all(element, "[data-lane]"),
            &step.lanes,
            &format!("{} step {i}", record.id),
        );
    }
    for (i, (element, step)) in steps.iter().zip(&record.steps).enumerate() {
        let shown = all(element, "[data-reservation]");
        let saved = step.reservations.as_deref().unwrap_or_default();
        assert_eq!(
            shown.len(),
            saved.len(),
            "{} step {i}: reservations",
            record.id
        );
        for (element, view) in shown.iter().zip(saved) {
            assert_eq!(attr(element, "data-reservation"), Some(view.id.to_string()));
            assert_eq!(
                attr(element, "data-queue").as_deref(),
                Some(view.queue.as_str())
            );
            assert_eq!(
                attr(element, "data-project").as_deref(),
                Some(view.project.as_str())
            );
            assert_eq!(
                attr(element, "data-state").as_deref(),
                Some(view.state.as_str()),
                "{} step {i} {}",
                record.id,
                view.id
            );
        }
    }
    let final_rows = all(&one(&panel, ".lv-final"), "[data-lane]");
    assert_lanes(
        &final_rows,
        &record.final_lanes,
        &format!("{} final", record.id),
    );
    let untouched: Vec<Option<String>> = all(&panel, "[data-untouched-project]")
        .iter()
        .map(|e| attr(e, "data-untouched-project"))
        .collect();
    let named: Vec<Option<String>> = record
        .untouched_project
        .get()
        .map(|p| Some(p.to_string()))
        .into_iter()
        .collect();
    assert_eq!(untouched, named, "{}: the untouched project", record.id);
}

fn assert_lanes(elements: &[Element], views: &[project_lanes::LaneView], at: &str) {
    assert_eq!(elements.len(), views.len(), "{at}: lane count");
    for (element, view) in elements.iter().zip(views) {
        assert_eq!(
            attr(element, "data-lane").as_deref(),
            Some(&*view.project),
            "{at}"
        );
        let busy = if view.busy { "true" } else { "false" };
        assert_eq!(
            attr(element, "data-busy").as_deref(),
            Some(busy),
            "{at} {}",
            view.project
        );
        assert_eq!(
            attr(element, "data-run").as_deref(),
            view.run.as_deref(),
            "{at} {}",
            view.project
        );
        assert_eq!(
            attr(element, "data-state").as_deref(),
            view.state.map(|s| s.as_str()),
            "{at} {}",
            view.project
        );
    }
}

/// The shape of a subtree: tag names and `data-*`/ARIA attributes, without any text.
pub fn structure(element: &Element) -> String {
    let mut out = String::new();
    shape(element, &mut out);
    out
}

fn shape(element: &Element, out: &mut String) {
    out.push('<');
    out.push_str(&element.tag_name());
    let names = element.get_attribute_names();
    let mut names: Vec<String> = names.iter().filter_map(|n| n.as_string()).collect();
    names.sort();
    for name in names {
        if name.starts_with("data-") || name == "role" || name == "aria-selected" {
            out.push(' ');
            out.push_str(&name);
            out.push('=');
            out.push_str(&element.get_attribute(&name).unwrap_or_default());
        }
    }
    out.push('>');
    let children = element.children();
    for i in 0..children.length() {
        if let Some(child) = children.item(i) {
            shape(&child, out);
        }
    }
    out.push_str("</>");
}

/// `window[name]`, to see whether hostile strings ran any script.
pub fn global(name: &str) -> JsValue {
    Reflect::get(&window(), &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
}

/// Milliseconds from the page's high-resolution clock.
pub fn now() -> f64 {
    window().performance().unwrap().now()
}

/// A fresh host element in the page.
pub fn host() -> Element {
    stylesheet();
    let host = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&host).unwrap();
    host
}

/// Options as a JS object, as `mount` makes them: a relative `src` is a path on the test site,
/// and without one, the committed records' index.
pub fn options(options: &[(&str, JsValue)]) -> JsValue {
    let object = Object::new();
    Reflect::set(&object, &s("src"), &s(&site("records/index.json"))).unwrap();
    for (key, value) in options {
        let value = match (*key, value.as_string()) {
            ("src", Some(path)) => s(&site(&path)),
            _ => value.clone(),
        };
        Reflect::set(&object, &JsValue::from_str(key), &value).unwrap();
    }
    object.into()
}

/// Calls `changed` right after every change to the elements under `target` (a
/// `MutationObserver`), until the returned guard is dropped: a test sees the page at the very
/// moment something appears, not at its next poll.
pub fn watch(target: &Element, changed: impl FnMut() + 'static) -> Watch {
    let callback = Closure::<dyn FnMut()>::new(changed);
    let observer = web_sys::MutationObserver::new(callback.as_ref().unchecked_ref()).unwrap();
    let init = web_sys::MutationObserverInit::new();
    init.set_child_list(true);
    init.set_subtree(true);
    observer.observe_with_options(target, &init).unwrap();
    Watch {
        observer,
        _callback: callback,
    }
}

/// A [`watch`] in progress; dropping it stops it.
pub struct Watch {
    observer: web_sys::MutationObserver,
    _callback: Closure<dyn FnMut()>,
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

/// `mount` as the page calls it, rejections included. A mount still pending after
/// `SNAPSHOT_AFTER_SECONDS` logs what the page shows.
pub async fn try_mount(host: &Element, opts: &[(&str, JsValue)]) -> Result<Viewer, JsValue> {
    let snapshot = PageSnapshot::start();
    let result = lane_viewer::mount(host.clone(), options(opts)).await;
    snapshot.cancel();
    result
}

/// The `data-viewer-error` codes under `root`, in page order.
pub fn error_codes(root: &Element) -> Vec<String> {
    all(root, "[data-viewer-error]")
        .iter()
        .filter_map(|e| attr(e, "data-viewer-error"))
        .collect()
}

/// How many bytes the test server has handed over of `/__lines/<name>`, once that count has
/// stopped growing (the reader stopped reading); panics if it still grows after 10 s.
pub async fn lines_sent_when_stopped(name: &str) -> u64 {
    let path = format!("__sent/{name}");
    let sent = || async {
        fetch_text(&path)
            .await
            .trim()
            .parse::<u64>()
            .expect("the server's count")
    };
    let mut last = sent().await;
    for _ in 0..50 {
        sleep(200).await;
        let now = sent().await;
        if now == last {
            return now;
        }
        last = now;
    }
    panic!("/__lines/{name}: still sending after 10 s: {last} bytes");
}

/// Waits until the test server has handed over more than `bytes` of `/__lines/<name>`. The
/// bound is generous: WebKit once read 3.8 MB in 15 s of a stream it reads in 4 s alone, on a
/// machine whose disk was filling up.
pub async fn lines_sent_past(name: &str, bytes: u64) {
    let path = format!("__sent/{name}");
    let mut now = 0;
    for _ in 0..1200 {
        now = fetch_text(&path)
            .await
            .trim()
            .parse()
            .expect("the server's count");
        if now > bytes {
            return;
        }
        sleep(50).await;
    }
    panic!("/__lines/{name}: {bytes} bytes not sent in 60 s, only {now}");
}

/// Waits `ms` milliseconds.
pub async fn sleep(ms: i32) {
    let promise = Promise::new(&mut |resolve, _| {
        window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
}

/// Resets the page's hash without a history entry or a `hashchange`.
pub fn clear_hash() {
    window()
        .history()
        .unwrap()
        .replace_state_with_url(&JsValue::NULL, "", Some("#"))
        .unwrap();
}

/// Where WebAssembly's stack pointer (`__stack_pointer`, the top of the shadow stack Rust keeps
/// in linear memory) stands when the browser enters this module from a fresh task: the address
/// of a local in a function called from a timer. Code that returns normally puts the pointer
/// back; a JavaScript exception that leaves the module from a task skips that code and lowers it
/// for good.
pub async fn entry_stack_pointer() -> usize {
    use std::cell::Cell;
    use std::rc::Rc;
    #[inline(never)]
    fn local_address() -> usize {
        let local = 0_u64;
        std::hint::black_box(&local) as *const u64 as usize
    }
    let seen = Rc::new(Cell::new(0));
    let promise = Promise::new(&mut |resolve, _| {
        let seen = seen.clone();
        let callback = Closure::once_into_js(move || {
            seen.set(local_address());
            resolve.call0(&JsValue::UNDEFINED).unwrap();
        });
        window()
            .set_timeout_with_callback_and_timeout_and_arguments_0(callback.unchecked_ref(), 0)
            .unwrap();
    });
    JsFuture::from(promise).await.unwrap();
    seen.get()
}

/// A page of the test site in a frame `width` pixels wide: a `srcdoc` copy of it with a `<base>`
/// at the site (so its scripts, styles and records come from there, as from its own site), opened
/// at `#<hash>`, with `script` (whole `<script>` elements) run before the page's own.
pub async fn site_page_frame(
    page: &str,
    hash: &str,
    script: &str,
    width: u32,
) -> web_sys::HtmlIFrameElement {
    let html = fetch_text(page).await;
    let hash = serde_json::to_string(hash).unwrap();
    let head = format!(
        "<head><base href=\"{}\"><script>location.hash = {hash};</script>{script}",
        site("")
    );
    let frame: web_sys::HtmlIFrameElement = document()
        .create_element("iframe")
        .unwrap()
        .unchecked_into();
    frame
        .set_attribute(
            "style",
            &format!("width: {width}px; height: 900px; border: 0"),
        )
        .unwrap();
    Reflect::set(
        &frame,
        &"srcdoc".into(),
        &html.replacen("<head>", &head, 1).into(),
    )
    .unwrap();
    document().body().unwrap().append_child(&frame).unwrap();
    frame
}
