//! The timeline in headless Chromium: the drawn segments against segments rebuilt
//! here, independently of the viewer, from each record file's JSON (`serde_json::Value`, not
//! the core's types); step selection by click, keys, buttons, the API and the deep link.

use lane_viewer_tests::*;
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, MouseEvent, MouseEventInit};

const LANGS: [&str; 2] = ["en", "ja"];
const LARGE: &str = "bench/10000/index.json";

/// A row's segments: (state, from, to).
type Segments = Vec<(String, usize, usize)>;
/// Rows as (id, kind, segments).
type Rows = Vec<(String, String, Segments)>;

/// Appends step `i` in `state` (with `holder`) to `row`, merging with the previous segment
/// when it is the step before in the same state and holder.
fn push(
    row: &mut Segments,
    holders: &mut Vec<Option<String>>,
    state: &str,
    holder: Option<String>,
    i: usize,
) {
    if let (Some(last), Some(last_holder)) = (row.last_mut(), holders.last())
        && last.0 == state
        && *last_holder == holder
        && last.2 + 1 == i
    {
        last.2 = i;
        return;
    }
    row.push((state.to_string(), i, i));
    holders.push(holder);
}

/// The rows the timeline must draw, rebuilt from the record's JSON alone: one row per project
/// (in `projects` order) from each step's `lanes`, then per queue (in `queues` order) one row
/// per reservation (by id number) from each step's `reservations`, from the step that first
/// lists it.
fn rebuild(record: &Value) -> Rows {
    let steps = record["steps"].as_array().expect("steps");
    let mut rows = Rows::new();
    for project in record["projects"].as_array().expect("projects") {
        let project = project.as_str().unwrap();
        let (mut row, mut holders) = (Vec::new(), Vec::new());
        for (i, step) in steps.iter().enumerate() {
            let lane = step["lanes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|l| l["project"] == project)
                .expect("every step has every lane");
            let state = if lane["busy"] == true {
                lane["state"].as_str().unwrap()
            } else {
                "idle"
            };
            let run = lane["run"].as_str().map(String::from);
            push(&mut row, &mut holders, state, run, i);
        }
        rows.push((project.to_string(), "lane".to_string(), row));
    }
    // id number → (queue, row)
    let mut reservations = std::collections::BTreeMap::<u64, (String, Segments)>::new();
    for (i, step) in steps.iter().enumerate() {
        for r in step["reservations"].as_array().into_iter().flatten() {
            let id = r["id"].as_str().unwrap();
            let number: u64 = id.strip_prefix('R').unwrap().parse().unwrap();
            let entry = reservations
                .entry(number)
                .or_insert_with(|| (r["queue"].as_str().unwrap().to_string(), Vec::new()));
            let mut holders = vec![None; entry.1.len()];
            push(
                &mut entry.1,
                &mut holders,
                r["state"].as_str().unwrap(),
                None,
                i,
            );
        }
    }
    for queue in record["queues"].as_array().into_iter().flatten() {
        for (number, (q, row)) in &reservations {
            if q == queue.as_str().unwrap() {
                rows.push((format!("R{number}"), "reservation".into(), row.clone()));
            }
        }
    }
    rows
}

/// Refused steps and their codes, from the JSON.
fn refused(record: &Value) -> Vec<(usize, String)> {
    record["steps"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, s["result"]["error"].as_str()?.to_string())))
        .collect()
}

/// The rows the viewer drew.
fn drawn(root: &Element) -> Rows {
    all(root, "[data-timeline] [data-timeline-row]")
        .iter()
        .map(|row| {
            let segments = all(row, "[data-segment]")
                .iter()
                .map(|s| {
                    let n = |name| attr(s, name).unwrap().parse::<usize>().unwrap();
                    (attr(s, "data-state").unwrap(), n("data-from"), n("data-to"))
                })
                .collect();
            (
                attr(row, "data-timeline-row").unwrap(),
                attr(row, "data-row-kind").unwrap(),
                segments,
            )
        })
        .collect()
}

/// The segments drawn as themselves: in a drawing of more steps than pixels, idle and running
/// spans narrower than 2 px are counted together in marks (`[data-dense]`) instead, and those
/// marks count exactly the spans left out.
fn apart(root: &Element, expected: &Rows) -> Rows {
    let svg = one(root, "[data-timeline]");
    let number = |name| attr(&svg, name).unwrap().parse::<usize>().unwrap();
    let (steps, plot_w) = (number("data-steps"), number("data-plot-w"));
    let mut rows = expected.clone();
    if steps <= plot_w {
        return rows;
    }
    for (id, _, segments) in &mut rows {
        let before = segments.len();
        segments.retain(|(state, from, to)| {
            let wide = (to - from + 1) * plot_w * 100 / steps >= 200;
            wide || !(state == "idle" || state == "running")
        });
        let row = one(&svg, &format!("[data-timeline-row=\"{id}\"]"));
        let counted: usize = all(&row, "[data-dense]")
            .iter()
            .map(|d| attr(d, "data-count").unwrap().parse::<usize>().unwrap())
            .sum();
        assert_eq!(
            counted,
            before - segments.len(),
            "{id}: spans counted together"
        );
    }
    rows
}

fn drawn_refused(root: &Element) -> Vec<(usize, String)> {
    all(root, "[data-timeline] [data-refused-step]")
        .iter()
        .map(|m| {
            (
                attr(m, "data-refused-step").unwrap().parse().unwrap(),
                attr(m, "data-code").unwrap(),
            )
        })
        .collect()
}

async fn json(url: &str) -> Value {
    serde_json::from_str(&fetch_text(url).await).unwrap()
}

fn timeline(root: &Element) -> Element {
    one(root, "[data-timeline]")
}

/// The timeline's text alternative (named by the slider's `aria-describedby`).
fn alt(root: &Element) -> String {
    text(&one(root, "[data-timeline-alt]"))
}

fn current(root: &Element) -> Option<usize> {
    attr(root, "data-current-step").map(|n| n.parse().unwrap())
}

/// Asserts that step `n` is current everywhere: the root, the API, the highlighted card, the
/// column marker and the position text.
fn assert_current(m: &Mounted, n: usize, steps: usize, lang: &str) {
    let root = m.root();
    assert_eq!(current(&root), Some(n));
    assert_eq!(m.viewer.current_step(), Some(n as u32));
    let cards = all(&root, ".lv-current");
    assert_eq!(cards.len(), 1, "one highlighted card");
    assert_eq!(attr(&cards[0], "data-step"), Some(n.to_string()));
    assert_eq!(attr(&cards[0], "aria-current").as_deref(), Some("step"));
    let marker = one(&root, "[data-current-marker]");
    assert_eq!(attr(&marker, "display"), None, "the marker is shown");
    let position = text(&one(&root, "[data-step-position]"));
    let (n, steps) = (grouped(n + 1), grouped(steps));
    let expected = if lang == "en" {
        format!("Step {n} of {steps}")
    } else {
        format!("ステップ {n}（全 {steps} ステップ）")
    };
    assert_eq!(position, expected);
}

#[wasm_bindgen_test]
async fn every_record_draws_the_segments_rebuilt_from_its_json_in_both_languages() {
    let mut sources: Vec<(String, String)> = index()
        .await
        .records
        .iter()
        .map(|e| ("records/index.json".to_string(), e.id.to_string()))
        .collect();
    sources.push((LARGE.to_string(), "large-10000".to_string()));
    for (src, id) in sources {
        let dir = src.trim_end_matches("index.json");
        let record = json(&format!("{dir}{id}.json")).await;
        let expected = rebuild(&record);
        for lang in LANGS {
            let m = mount(&[("src", s(&src)), ("record", s(&id)), ("lang", s(lang))]).await;
            let root = m.root();
            assert_eq!(drawn(&root), apart(&root, &expected), "{id} in {lang}");
            assert_eq!(drawn_refused(&root), refused(&record), "{id} in {lang}");
            // The untouched project is idle from start to end.
            let untouched = record["untouched_project"].as_str().unwrap();
            let steps = record["steps"].as_array().unwrap().len();
            let row = expected.iter().find(|r| r.0 == untouched).unwrap();
            assert_eq!(row.2, [("idle".to_string(), 0, steps - 1)], "{id}");
            let svg = timeline(&root);
            assert_eq!(attr(&svg, "role").as_deref(), Some("slider"));
            assert_eq!(attr(&svg, "tabindex").as_deref(), Some("0"));
            // Reservation rows keep their queue.
            for r in all(&svg, "[data-row-kind=reservation]") {
                assert!(attr(&r, "data-queue").is_some());
            }
        }
    }
}

#[wasm_bindgen_test]
async fn the_ten_thousand_step_record_draws_a_few_hundred_shapes() {
    let m = mount(&[("src", s(LARGE)), ("lang", s("en"))]).await;
    let svg = timeline(&m.root());
    let segments = all(&svg, "[data-segment]").len();
    let shapes = all(&svg, "rect, path, text").len();
    assert!(
        (100..1_000).contains(&segments),
        "{segments} segments for 10,000 steps"
    );
    assert!(shapes < 1_500, "{shapes} shapes in all");
    // The last step can be selected before the background rendering has built its card; the
    // card is marked once it exists.
    assert!(m.viewer.select_step(JsValue::from(9_999_u32)));
    assert_eq!(current(&m.root()), Some(9_999));
    wasm_bindgen_futures::JsFuture::from(m.viewer.settled())
        .await
        .unwrap();
    assert!(eventually(|| maybe(&m.root(), "[data-step=\"9999\"].lv-current").is_some()).await);
    assert_current(&m, 9_999, 10_000, "en");
}

#[wasm_bindgen_test]
async fn the_text_alternative_says_what_every_row_shows() {
    let record = json("records/persistence-gate.json").await;
    for lang in LANGS {
        let m = mount(&[("record", s("persistence-gate")), ("lang", s(lang))]).await;
        let label = alt(&m.root());
        for name in [
            "docs", "site", "billing", "R1", "R2", "R3", "general", "delivery",
        ] {
            assert!(label.contains(name), "{lang}: {name} in {label}");
        }
        let expected = if lang == "en" {
            [
                "billing (untouched): idle throughout.",
                "docs: idle from step 1 to 3, then running from step 4 to 9, then idle at step 10",
                "Reservation R1 (general, docs): waiting from step 1 to 3, then dispatched from step 4 to 5, then saving from step 6 to 9",
            ]
        } else {
            [
                "billing（手つかず）：最初から最後まで空き。",
                "docs：ステップ 1〜3 は空き、その後ステップ 4〜9 は実行中、その後ステップ 10 は空き",
                "予約 R1（general、docs）：ステップ 1〜3 は待機中、その後ステップ 4〜5 は割り当て済み、その後ステップ 6〜9 は保存中",
            ]
        };
        for part in expected {
            assert!(label.contains(part), "{part} in {label}");
        }
        // The legend names every state in the viewer's language.
        let legend = text(&one(&m.root(), ".lv-tl-legend"));
        let names = if lang == "en" {
            ["idle", "running", "stop requested", "waiting", "saving"]
        } else {
            ["空き", "実行中", "停止要求済み", "待機中", "保存中"]
        };
        for name in names {
            assert!(legend.contains(name), "{name} in {legend}");
        }
    }
    assert_eq!(record["steps"].as_array().unwrap().len(), 13);
}

#[wasm_bindgen_test]
async fn refused_steps_are_marked_with_their_codes() {
    let m = mount(&[("record", s("stale-release")), ("lang", s("ja"))]).await;
    let marks = all(&timeline(&m.root()), "[data-refused-step]");
    assert_eq!(marks.len(), 2);
    for mark in marks {
        assert_eq!(text(&mark), "LEASE_NOT_CURRENT");
    }
    let label = alt(&m.root());
    assert!(label.contains("ステップ 4（LEASE_NOT_CURRENT）"), "{label}");
}

/// Clicks the middle of `element`'s box, as a pointer would.
fn click_at(element: &Element) {
    let b = element.get_bounding_client_rect();
    let init = MouseEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_client_x((b.left() + b.width() / 2.0) as i32);
    init.set_client_y((b.top() + b.height() / 2.0) as i32);
    let event = MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    element.dispatch_event(&event).unwrap();
}

#[wasm_bindgen_test]
async fn clicking_a_column_selects_its_step_in_both_languages() {
    for lang in LANGS {
        let m = mount(&[("record", s("stop-keeps-occupancy")), ("lang", s(lang))]).await;
        let root = m.root();
        assert_eq!(current(&root), None, "no step is current at first");
        assert!(all(&root, ".lv-current").is_empty());
        // Each segment of the first row: its middle column.
        for segment in all(&root, "[data-timeline-row] [data-segment]") {
            let from: usize = attr(&segment, "data-from").unwrap().parse().unwrap();
            let to: usize = attr(&segment, "data-to").unwrap().parse().unwrap();
            click_at(&segment);
            let n = current(&root).unwrap();
            assert!(
                (from..=to).contains(&n),
                "{lang}: clicked {from}..={to}, got {n}"
            );
            assert_current(&m, n, 6, lang);
        }
        // A click on a row's label selects nothing new.
        let before = current(&root);
        click_at(&one(&root, ".lv-tl-label"));
        assert_eq!(current(&root), before);
    }
}

#[wasm_bindgen_test]
async fn arrow_keys_home_and_end_move_the_current_step() {
    for lang in LANGS {
        let m = mount(&[("record", s("persistence-gate")), ("lang", s(lang))]).await;
        let svg = timeline(&m.root());
        svg.unchecked_ref::<web_sys::HtmlElement>().focus().ok();
        key(&svg, "ArrowRight");
        assert_current(&m, 0, 13, lang);
        key(&svg, "ArrowRight");
        key(&svg, "ArrowRight");
        assert_current(&m, 2, 13, lang);
        key(&svg, "ArrowLeft");
        assert_current(&m, 1, 13, lang);
        key(&svg, "End");
        assert_current(&m, 12, 13, lang);
        key(&svg, "ArrowRight");
        assert_current(&m, 12, 13, lang);
        key(&svg, "Home");
        assert_current(&m, 0, 13, lang);
        key(&svg, "ArrowLeft");
        assert_current(&m, 0, 13, lang);
        // The record tabs still work with their own arrows.
        assert_eq!(m.viewer.selected().as_deref(), Some("persistence-gate"));
    }
}

#[wasm_bindgen_test]
async fn brackets_move_to_the_next_and_previous_refusal_or_recovery() {
    for lang in LANGS {
        // busy-project: steps 2 and 3 (1 and 2 from 0) are refused claims.
        let m = mount(&[("record", s("busy-project")), ("lang", s(lang))]).await;
        let svg = timeline(&m.root());
        key(&svg, "]");
        assert_current(&m, 1, 5, lang);
        key(&svg, "]");
        assert_current(&m, 2, 5, lang);
        // Past the last one the step stays.
        key(&svg, "]");
        assert_current(&m, 2, 5, lang);
        key(&svg, "[");
        assert_current(&m, 1, 5, lang);
        key(&svg, "[");
        assert_current(&m, 1, 5, lang);
        key(&svg, "End");
        key(&svg, "[");
        assert_current(&m, 2, 5, lang);
    }
    // unresolved-blocks refuses nothing: its one recovery is the save that failed (step 6).
    let m = mount(&[("record", s("unresolved-blocks")), ("lang", s("en"))]).await;
    let svg = timeline(&m.root());
    key(&svg, "]");
    assert_current(&m, 5, 14, "en");
    key(&svg, "]");
    assert_current(&m, 5, 14, "en");
}

#[wasm_bindgen_test]
async fn previous_and_next_buttons_move_the_current_step() {
    let m = mount(&[("record", s("busy-project")), ("lang", s("en"))]).await;
    let root = m.root();
    let (prev, next) = (
        one(&root, "[data-step-prev]"),
        one(&root, "[data-step-next]"),
    );
    click(&next);
    assert_current(&m, 0, 5, "en");
    assert_eq!(attr(&prev, "aria-disabled").as_deref(), Some("true"));
    click(&next);
    click(&next);
    assert_current(&m, 2, 5, "en");
    click(&prev);
    assert_current(&m, 1, 5, "en");
    for _ in 0..6 {
        click(&next);
    }
    assert_current(&m, 4, 5, "en");
    assert_eq!(attr(&next, "aria-disabled").as_deref(), Some("true"));
}

#[wasm_bindgen_test]
async fn select_step_keeps_the_step_across_languages_and_drops_it_for_another_record() {
    let m = mount(&[("record", s("explicit-outcome")), ("lang", s("en"))]).await;
    assert!(
        !m.viewer.select_step(JsValue::from(6_u32)),
        "explicit-outcome has 6 steps"
    );
    assert_eq!(m.viewer.current_step(), None);
    assert!(m.viewer.select_step(JsValue::from(4_u32)));
    assert_current(&m, 4, 6, "en");
    assert!(m.viewer.set_lang("ja"));
    assert_current(&m, 4, 6, "ja");
    assert!(m.viewer.select("busy-project"));
    assert_eq!(m.viewer.current_step(), None);
    assert_eq!(current(&m.root()), None);
    assert!(all(&m.root(), ".lv-current").is_empty());
    assert_eq!(
        attr(&one(&m.root(), "[data-current-marker]"), "display").as_deref(),
        Some("none")
    );
}

#[wasm_bindgen_test]
async fn the_deep_link_carries_the_step_from_one() {
    let history = window().history().unwrap();
    let hash = || window().location().hash().unwrap();
    history
        .replace_state_with_url(
            &JsValue::NULL,
            "",
            Some("#record=unresolved-blocks&lang=ja&step=5"),
        )
        .unwrap();
    let m = mount(&[("hash", JsValue::TRUE)]).await;
    assert_eq!(m.viewer.selected().as_deref(), Some("unresolved-blocks"));
    assert_current(&m, 4, 14, "ja");
    assert_eq!(hash(), "#record=unresolved-blocks&lang=ja&step=5");
    key(&timeline(&m.root()), "ArrowRight");
    assert_eq!(hash(), "#record=unresolved-blocks&lang=ja&step=6");
    history.back().unwrap();
    assert!(eventually(|| m.viewer.current_step() == Some(4)).await);
    assert_current(&m, 4, 14, "ja");
    // A link without a step clears it; a step out of range is ignored.
    window()
        .location()
        .set_hash("record=unresolved-blocks&lang=ja")
        .unwrap();
    assert!(eventually(|| m.viewer.current_step().is_none()).await);
    window()
        .location()
        .set_hash("record=unresolved-blocks&lang=ja&step=2")
        .unwrap();
    assert!(eventually(|| m.viewer.current_step() == Some(1)).await);
    // A step out of range is ignored: the language in the same link changes, the step stays.
    window()
        .location()
        .set_hash("record=unresolved-blocks&lang=en&step=99")
        .unwrap();
    assert!(eventually(|| m.viewer.lang() == "en").await);
    assert_current(&m, 1, 14, "en");
    // Another record drops the step from the link.
    click(&one(&m.root(), "[role=tab][data-record-id=busy-project]"));
    assert_eq!(hash(), "#record=busy-project&lang=en");
    drop(m);
    history
        .replace_state_with_url(&JsValue::NULL, "", Some("#"))
        .unwrap();
}

#[wasm_bindgen_test]
async fn at_320_px_the_timeline_scrolls_inside_itself_and_the_viewer_does_not() {
    let m = mount(&[("record", s("persistence-gate")), ("lang", s("ja"))]).await;
    m.host.set_attribute("style", "width: 320px").unwrap();
    let root = m.root();
    let scroller = one(&root, ".lv-tl-scroll");
    assert!(
        scroller.scroll_width() > scroller.client_width(),
        "the drawing is wider than its box: {} > {}",
        scroller.scroll_width(),
        scroller.client_width()
    );
    assert!(
        root.scroll_width() <= root.client_width() + 1,
        "the viewer itself does not scroll sideways: {} vs {}",
        root.scroll_width(),
        root.client_width()
    );
    // Selecting the last step brings its column into the box.
    assert!(m.viewer.select_step(JsValue::from(12_u32)));
    assert!(scroller.scroll_left() > 0);
}

#[wasm_bindgen(module = "/tests/browser/helpers.js")]
extern "C" {
    #[wasm_bindgen(js_name = dropFile)]
    fn drop_file(target: &Element, name: &str, content: &str);
}

/// A bundled record's JSON under another id (so it opens beside the bundled one).
async fn renamed(id: &str, new_id: &str) -> Value {
    let mut record = json(&format!("records/{id}.json")).await;
    record["id"] = Value::String(new_id.to_string());
    record
}

#[wasm_bindgen_test]
async fn records_opened_with_open_text_or_dropped_get_their_timeline() {
    for lang in LANGS {
        let m = mount(&[("lang", s(lang))]).await;
        let root = m.root();
        // A dispatcher record, with open_text.
        let gate = renamed("persistence-gate", "my-gate").await;
        m.viewer.open_text("my-gate.json", gate.to_string());
        assert_eq!(m.viewer.selected().as_deref(), Some("my-gate"));
        assert_eq!(drawn(&root), rebuild(&gate), "my-gate in {lang}");
        assert_eq!(drawn_refused(&root), refused(&gate), "my-gate in {lang}");
        assert!(m.viewer.select_step(JsValue::from(3_u32)));
        assert_current(&m, 3, 13, lang);
        click(&one(&root, "[data-step-next]"));
        assert_current(&m, 4, 13, lang);
        // A lanes record, dropped: it is selected with no current step.
        let busy = renamed("busy-project", "my-busy").await;
        drop_file(&root, "my-busy.json", &busy.to_string());
        assert!(eventually(|| m.viewer.selected().as_deref() == Some("my-busy")).await);
        assert_eq!(m.viewer.current_step(), None);
        assert_eq!(current(&root), None);
        assert_eq!(drawn(&root), rebuild(&busy), "my-busy in {lang}");
        let steps = busy["steps"].as_array().unwrap().len();
        let svg = timeline(&root);
        svg.unchecked_ref::<web_sys::HtmlElement>().focus().ok();
        key(&svg, "End");
        assert_current(&m, steps - 1, steps, lang);
    }
}

#[wasm_bindgen_test]
async fn select_step_called_while_the_viewer_rebuilds_takes_effect() {
    use std::cell::RefCell;
    use std::rc::Rc;
    use wasm_bindgen::closure::Closure;

    let host = host();
    let viewer = Rc::new(
        try_mount(
            &host,
            &[("lang", s("en")), ("record", s("persistence-gate"))],
        )
        .await
        .unwrap(),
    );
    let root = one(&host, "[data-lane-viewer]");
    assert!(viewer.select_step(JsValue::from(1_u32)));
    // What the page's handler saw: the current step, and whether select_step was accepted.
    type Seen = Rc<RefCell<Vec<(Option<u32>, bool)>>>;
    let seen: Seen = Rc::default();
    let on_focusout = {
        let (viewer, seen) = (viewer.clone(), seen.clone());
        Closure::<dyn FnMut()>::new(move || {
            let current = viewer.current_step();
            let accepted = viewer.select_step(JsValue::from(7_u32));
            seen.borrow_mut().push((current, accepted));
        })
    };
    host.add_event_listener_with_callback("focusout", on_focusout.as_ref().unchecked_ref())
        .unwrap();
    // Focus inside the raw JSON, then a re-render takes that element away.
    one(&root, "details.lv-raw")
        .set_attribute("open", "")
        .unwrap();
    one(&root, ".lv-json")
        .unchecked_ref::<web_sys::HtmlElement>()
        .focus()
        .unwrap();
    assert!(viewer.set_lang("ja"));
    host.remove_event_listener_with_callback("focusout", on_focusout.as_ref().unchecked_ref())
        .unwrap();
    let seen = seen.borrow().clone();
    assert!(!seen.is_empty(), "focusout fired during the re-render");
    assert_eq!(seen[0], (Some(1), true));
    assert_eq!(viewer.current_step(), Some(7));
    assert_eq!(current(&root), Some(7));
    let cards = all(&root, ".lv-current");
    assert_eq!(cards.len(), 1);
    assert_eq!(attr(&cards[0], "data-step").as_deref(), Some("7"));
    assert_eq!(attr(&root, "lang").as_deref(), Some("ja"));
    viewer.destroy();
    assert!(
        !viewer.select_step(JsValue::from(2_u32)),
        "a destroyed viewer selects no step"
    );
    host.remove();
}

#[wasm_bindgen_test]
async fn a_record_shown_again_keeps_its_timeline_but_not_its_old_step() {
    let gate = json("records/persistence-gate.json").await;
    for lang in LANGS {
        let m = mount(&[("record", s("persistence-gate")), ("lang", s(lang))]).await;
        let root = m.root();
        assert!(m.viewer.select_step(JsValue::from(12_u32)));
        assert_current(&m, 12, 13, lang);
        assert!(m.viewer.select("busy-project"));
        assert!(m.viewer.select("persistence-gate"));
        // The drawing is the same, with no current step left from before.
        assert_eq!(drawn(&root), rebuild(&gate), "{lang}");
        assert_eq!(m.viewer.current_step(), None);
        assert_eq!(current(&root), None);
        assert!(all(&root, ".lv-current").is_empty());
        assert_eq!(
            attr(&one(&root, "[data-current-marker]"), "display").as_deref(),
            Some("none")
        );
        let next = one(&root, "[data-step-next]");
        assert_eq!(attr(&next, "aria-disabled").as_deref(), Some("false"));
        assert_eq!(all(&root, "[data-timeline]").len(), 1, "one timeline");
        // The other language's timeline is its own, in that language.
        let other = if lang == "en" { "ja" } else { "en" };
        assert!(m.viewer.set_lang(other));
        let heading = if other == "en" {
            "Timeline"
        } else {
            "タイムライン"
        };
        assert_eq!(text(&one(&root, ".lv-tl-h")), heading);
        assert_eq!(drawn(&root), rebuild(&gate), "{other}");
        click(&one(&root, "[data-step-next]"));
        assert_current(&m, 0, 13, other);
    }
}

#[wasm_bindgen_test]
async fn the_timeline_is_a_slider_that_names_its_keys_and_its_current_step() {
    for (lang, hint, brackets, position) in [
        (
            "en",
            "arrow keys",
            "refusal or recovery with ] and [",
            "Step 4 of 13",
        ),
        (
            "ja",
            "矢印キー",
            "] と [ で次または前の拒否・復旧",
            "ステップ 4（全 13 ステップ）",
        ),
    ] {
        let m = mount(&[("record", s("persistence-gate")), ("lang", s(lang))]).await;
        let root = m.root();
        let svg = timeline(&root);
        assert_eq!(attr(&svg, "role").as_deref(), Some("slider"));
        assert_eq!(attr(&svg, "tabindex").as_deref(), Some("0"));
        assert_eq!(attr(&svg, "aria-valuemin").as_deref(), Some("1"));
        assert_eq!(attr(&svg, "aria-valuemax").as_deref(), Some("13"));
        let described = attr(&svg, "aria-describedby").unwrap();
        let description: String = described
            .split(' ')
            .map(|id| text(&document().get_element_by_id(id).unwrap()))
            .collect::<Vec<_>>()
            .join(" ");
        assert!(description.contains(hint), "{lang}: {description}");
        assert!(description.contains(brackets), "{lang}: {description}");
        assert!(description.contains("R1"), "{lang}: the text alternative");
        assert!(m.viewer.select_step(JsValue::from(3_u32)));
        assert_eq!(attr(&svg, "aria-valuenow").as_deref(), Some("4"));
        let valuetext = attr(&svg, "aria-valuetext").unwrap();
        assert!(valuetext.starts_with(position), "{valuetext}");
        svg.unchecked_ref::<web_sys::HtmlElement>().focus().ok();
        key(&svg, "ArrowRight");
        assert_eq!(attr(&svg, "aria-valuenow").as_deref(), Some("5"));
    }
}

#[wasm_bindgen_test]
async fn every_state_in_the_legend_looks_different_and_is_named_once() {
    for lang in LANGS {
        let m = mount(&[("record", s("persistence-gate")), ("lang", s(lang))]).await;
        let root = m.root();
        let keys = all(&root, "[data-legend]");
        assert_eq!(
            keys.len(),
            3 + 7,
            "{lang}: three lane states, seven reservation states"
        );
        let mut looks = Vec::new();
        let mut names = Vec::new();
        for key in &keys {
            let swatch = one(key, ".lv-tl-sw");
            let style = window().get_computed_style(&swatch).unwrap().unwrap();
            let look: Vec<String> = [
                "height",
                "background-image",
                "background-color",
                "border-top-style",
                "outline-style",
            ]
            .iter()
            .map(|p| style.get_property_value(p).unwrap())
            .collect();
            let name = text(key);
            assert!(
                !looks.contains(&look),
                "{lang}: {name} looks like another state: {look:?}"
            );
            assert!(!names.contains(&name), "{lang}: {name} twice");
            looks.push(look);
            names.push(name);
        }
    }
}
