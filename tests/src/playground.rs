//! The playground page (`www/playground.html`) in a frame, for its tests and its benchmark.
//!
//! The frame is a `srcdoc` copy of the page with a `<base>` at the test site (as `page.rs` opens
//! the standalone page). A script put before the page's own records each run's
//! `playground-ran` event in `__runs` and, instead of saving a download, the offered file's URL
//! and name in `__offered`.

use js_sys::Reflect;
use wasm_bindgen::{JsCast, JsValue};
use web_sys::{Document, Element, HtmlIFrameElement};

use crate::*;

/// What the frame runs before the page.
const SPY: &str = "window.__runs = []; \
    document.addEventListener('playground-ran', (e) => __runs.push(e.detail)); \
    HTMLAnchorElement.prototype.click = function () { \
      window.__offered = { href: this.href, name: this.download }; };";

/// The playground in a frame, `width` pixels wide, opened at `#<hash>`; removed on drop.
pub struct Playground {
    frame: HtmlIFrameElement,
}

impl Playground {
    pub async fn open(hash: &str, width: u32) -> Playground {
        let frame = site_page_frame(
            "playground.html",
            hash,
            &format!("<script>{SPY}</script>"),
            width,
        )
        .await;
        let page = Playground { frame };
        assert!(
            eventually_within(30_000, || page.runs() > 0 || page.error_shown()).await,
            "the playground ran its first scenario: {}",
            page.body_text()
        );
        page
    }

    /// The playground in `frame`, a page that opened it on its own (the spy starts now: runs
    /// before are not counted).
    pub fn adopt(frame: HtmlIFrameElement) -> Playground {
        let doc = frame.content_document().unwrap();
        let script = doc.create_element("script").unwrap();
        script.set_text_content(Some(SPY));
        doc.body().unwrap().append_child(&script).unwrap();
        Playground { frame }
    }

    /// Whether the error box is shown (false while the frame's page is still loading).
    pub fn error_shown(&self) -> bool {
        self.frame
            .content_document()
            .and_then(|d| d.query_selector("[data-error]").ok().flatten())
            .is_some_and(|e| !e.has_attribute("hidden"))
    }

    pub fn window(&self) -> JsValue {
        self.frame.content_window().unwrap().into()
    }

    pub fn doc(&self) -> Document {
        self.frame.content_document().unwrap()
    }

    pub fn root(&self) -> Element {
        self.doc().document_element().unwrap()
    }

    pub fn body_text(&self) -> String {
        self.frame
            .content_document()
            .and_then(|d| d.body())
            .map(|b| b.inner_text())
            .unwrap_or_default()
    }

    pub fn runs(&self) -> u32 {
        Reflect::get(&self.window(), &"__runs".into())
            .ok()
            .and_then(|r| Reflect::get(&r, &"length".into()).ok())
            .and_then(|n| n.as_f64())
            .unwrap_or(0.0) as u32
    }

    /// The last run's `{ok, code}`.
    pub fn last_run(&self) -> (bool, Option<String>) {
        let runs = Reflect::get(&self.window(), &"__runs".into()).unwrap();
        let last = Reflect::get(&runs, &(self.runs() - 1).into()).unwrap();
        let ok = Reflect::get(&last, &"ok".into())
            .unwrap()
            .as_bool()
            .unwrap();
        let code = Reflect::get(&last, &"code".into()).unwrap().as_string();
        (ok, code)
    }

    /// The last run's `runMs` and `drawMs`: the scenario run on the core, and the viewer
    /// mounted with its record until settled.
    pub fn last_times(&self) -> (f64, f64) {
        let runs = Reflect::get(&self.window(), &"__runs".into()).unwrap();
        let last = Reflect::get(&runs, &(self.runs() - 1).into()).unwrap();
        let ms = |name: &str| Reflect::get(&last, &name.into()).unwrap().as_f64().unwrap();
        (ms("runMs"), ms("drawMs"))
    }

    /// Ctrl+Enter in the editor: runs the scenario at once; waits for the run.
    pub async fn run_now(&self) {
        let before = self.runs();
        self.press_run();
        assert!(
            eventually_within(60_000, || self.runs() > before).await,
            "Ctrl+Enter ran the scenario: {}",
            self.body_text()
        );
    }

    /// Ctrl+Enter in the editor, without waiting for the run.
    pub fn press_run(&self) {
        let init = web_sys::KeyboardEventInit::new();
        init.set_key("Enter");
        init.set_ctrl_key(true);
        init.set_bubbles(true);
        init.set_cancelable(true);
        let event =
            web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
        self.one("[data-editor]").dispatch_event(&event).unwrap();
    }

    /// `.pg-source[data-run-state]`: `running`, `drawing` or `idle`.
    pub fn run_state(&self) -> String {
        attr(&self.one(".pg-source"), "data-run-state").unwrap_or_default()
    }

    /// Waits until the frame's page has drawn a frame.
    pub async fn next_frame(&self) {
        let window = self.window();
        let promise = js_sys::Promise::new(&mut |resolve, _| {
            let frame = js_sys::Function::new_with_args(
                "w, resolve",
                "w.requestAnimationFrame(() => setTimeout(resolve, 0))",
            );
            frame.call2(&JsValue::NULL, &window, &resolve).unwrap();
        });
        wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    }

    /// Changes the page's fragment, as a link opened in its tab does.
    pub fn set_hash(&self, hash: &str) {
        let window: web_sys::Window = self.window().unchecked_into();
        window.location().set_hash(hash).unwrap();
    }

    /// Puts `text` in the editor without an `input` event (nothing runs until asked).
    pub fn set_text(&self, text: &str) {
        Reflect::set(&self.one("[data-editor]"), &"value".into(), &text.into()).unwrap();
    }

    pub fn one(&self, selector: &str) -> Element {
        one(&self.root(), selector)
    }

    pub fn editor_text(&self) -> String {
        Reflect::get(&self.one("[data-editor]"), &"value".into())
            .unwrap()
            .as_string()
            .unwrap()
    }

    /// Puts `text` in the editor as typing would (an `input` event), and waits for its run.
    pub async fn type_text(&self, text: &str) -> (bool, Option<String>) {
        let before = self.runs();
        let editor = self.one("[data-editor]");
        Reflect::set(&editor, &"value".into(), &text.into()).unwrap();
        let event = web_sys::Event::new("input").unwrap();
        editor.dispatch_event(&event).unwrap();
        assert!(
            eventually_within(30_000, || self.runs() > before).await,
            "a run followed the change: {}",
            self.body_text()
        );
        self.last_run()
    }

    pub async fn click_and_run(&self, selector: &str) -> (bool, Option<String>) {
        let before = self.runs();
        click(&self.one(selector));
        assert!(
            eventually_within(30_000, || self.runs() > before).await,
            "{selector} ran a scenario: {}",
            self.body_text()
        );
        self.last_run()
    }

    pub fn selected_record(&self) -> Option<String> {
        maybe(&self.root(), "[role=tabpanel][data-selected-record]")
            .and_then(|p| attr(&p, "data-selected-record"))
    }

    pub fn record_state(&self) -> String {
        attr(&self.one(".pg-record"), "data-record-state").unwrap()
    }

    pub fn disabled(&self, selector: &str) -> bool {
        self.one(selector).has_attribute("disabled")
    }

    /// The bytes of the file a download button offers, and its name (waiting for the page to
    /// offer it: text typed and not yet run runs first).
    pub async fn offered(&self, selector: &str) -> (String, Vec<u8>) {
        let href = || {
            Reflect::get(&self.window(), &"__offered".into())
                .ok()
                .filter(|o| o.is_object())
                .and_then(|o| Reflect::get(&o, &"href".into()).ok())
                .and_then(|h| h.as_string())
        };
        let before = href();
        click(&self.one(selector));
        assert!(
            eventually_within(30_000, || href().is_some() && href() != before).await,
            "{selector} offered a file"
        );
        let offered = Reflect::get(&self.window(), &"__offered".into()).unwrap();
        let name = Reflect::get(&offered, &"name".into())
            .unwrap()
            .as_string()
            .unwrap();
        (name, fetch_bytes(&href().unwrap()).await)
    }

    /// Puts `text` in the editor as typing would, without waiting for its run.
    pub fn input_text(&self, text: &str) {
        let editor = self.one("[data-editor]");
        Reflect::set(&editor, &"value".into(), &text.into()).unwrap();
        editor
            .dispatch_event(&web_sys::Event::new("input").unwrap())
            .unwrap();
    }

    pub fn select_start(&self, value: &str) {
        Reflect::set(&self.one("[data-start]"), &"value".into(), &value.into()).unwrap();
    }
}

impl Drop for Playground {
    fn drop(&mut self) {
        self.frame.remove();
    }
}

/// A scenario of `pairs` claims of one lane, each released: `2 * pairs` operations (a scenario
/// may hold 10,000), long enough to run for a while.
pub fn long_scenario(id: &str, pairs: usize) -> String {
    let mut text = format!(
        "format = \"project-lanes/scenario\"\nversion = 1\nid = \"{id}\"\n\
         projects = [\"docs\", \"site\"]\nuntouched_project = \"site\"\n\n\
         [title]\nen = \"Long\"\nja = \"長い\"\n\n[summary]\nen = \"Long.\"\nja = \"長い。\"\n"
    );
    for i in 1..=pairs {
        text.push_str(&format!(
            "\n[[steps]]\nop = \"claim\"\nproject = \"docs\"\nrun = \"r-{i}\"\n\n\
             [[steps]]\nop = \"release\"\nlease = \"L{i}\"\noutcome = \"succeeded\"\n"
        ));
    }
    text
}
