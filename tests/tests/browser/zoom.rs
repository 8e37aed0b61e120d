//! The overview at scale: a 100,000-step record is drawn whole in a few hundred marks per row,
//! zoomed by keys and buttons down to single steps and back, the window follows the current
//! step wherever it goes (keys, find), and a record over a thousand projects draws thirty rows
//! at a time that follow the current step's lane. The expected windows are worked out here from
//! the rule (a quarter as wide each time, the current step kept where it was drawn), not read
//! from the viewer.

use lane_viewer_tests::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::Element;

/// The steps the drawing shows, from 0, `to` excluded.
fn window(root: &Element) -> (usize, usize) {
    let svg = one(root, "[data-timeline]");
    let number = |name| attr(&svg, name).unwrap().parse::<usize>().unwrap();
    (number("data-window-from"), number("data-window-to"))
}

fn current(root: &Element) -> Option<usize> {
    attr(root, "data-current-step").and_then(|n| n.parse().ok())
}

/// Opens `text` in a new viewer and waits until its timeline is shown.
async fn open(id: &str, record: String, lang: &str) -> Mounted {
    let m = mount(&[("src", s("records/busy-project.json")), ("lang", s(lang))]).await;
    m.viewer.open_text(&format!("{id}.jsonl"), record);
    let root = m.root();
    let selector = format!("[data-selected-record={id}] [data-timeline]");
    assert!(
        eventually_within(60_000, || maybe(&root, &selector).is_some()).await,
        "{:?} {}",
        error_codes(&root),
        text(&root).chars().take(600).collect::<String>()
    );
    m
}

#[wasm_bindgen_test]
async fn a_100000_step_record_is_zoomed_by_keys_and_buttons_down_to_single_steps() {
    // 50,000 runs of project `a`: run-N holds the lane at step 2N, frees it at 2N+1.
    let m = open("runs-100000", runs_record("runs-100000", 50_000), "en").await;
    let root = m.root();
    let row = one(&root, "[data-timeline-row=a]");
    let marks = row.child_element_count();
    assert!(marks < 1_000, "{marks} marks in one row");
    assert!(!all(&row, "[data-dense]").is_empty());
    let counted: usize = all(&row, "[data-dense]")
        .iter()
        .map(|d| attr(d, "data-count").unwrap().parse::<usize>().unwrap())
        .sum();
    assert!(counted > 90_000, "{counted} segments counted together");
    assert_eq!(window(&root), (0, 100_000));
    let shown = one(&root, "[data-zoom-window]");
    assert_eq!(text(&shown), "Steps 1–100,000 of 100,000");
    for (zoom, disabled) in [("in", "false"), ("out", "true"), ("whole", "true")] {
        let button = one(&root, &format!("[data-zoom={zoom}]"));
        assert_eq!(attr(&button, "aria-disabled").as_deref(), Some(disabled));
    }

    assert!(m.viewer.select_step(60_000.into()));
    let svg = one(&root, "[data-timeline]");
    // As a keyboard user would: focus on the drawing, then its keys.
    svg.unchecked_ref::<web_sys::SvgElement>().focus().unwrap();
    key(&svg, "+");
    assert_eq!(window(&root), (45_000, 70_000));
    for _ in 0..8 {
        key(&one(&root, "[data-timeline]"), "=");
    }
    assert_eq!(
        window(&root),
        (59_995, 60_005),
        "ten steps, the current one kept"
    );
    assert_eq!(
        text(&one(&root, "[data-zoom-window]")),
        "Steps 59,996–60,005 of 100,000"
    );
    assert_eq!(
        attr(&one(&root, "[data-zoom=in]"), "aria-disabled").as_deref(),
        Some("true")
    );
    let row = one(&root, "[data-timeline-row=a]");
    assert!(all(&row, "[data-dense]").is_empty(), "each step drawn");
    let drawn: Vec<(String, String)> = all(&row, "[data-segment]")
        .iter()
        .map(|s| {
            (
                attr(s, "data-from").unwrap(),
                attr(s, "data-state").unwrap(),
            )
        })
        .collect();
    assert_eq!(drawn.len(), 10);
    assert_eq!(drawn[5], ("60000".into(), "running".into()));
    assert_eq!(drawn[6], ("60001".into(), "idle".into()));
    assert!(
        focused().is_some_and(|f| f.has_attribute("data-timeline")),
        "focus stays on the drawing"
    );
    // The window follows the current step.
    key(&one(&root, "[data-timeline]"), "End");
    assert_eq!(current(&root), Some(99_999));
    assert_eq!(window(&root), (99_990, 100_000));
    assert!(m.viewer.select_step(7.into()));
    assert_eq!(window(&root), (2, 12));
    // Out, by the button, then the whole record by its key.
    click(&one(&root, "[data-zoom=out]"));
    assert_eq!(window(&root), (0, 40));
    assert!(
        focused().is_some_and(|f| attr(&f, "data-zoom").as_deref() == Some("out")),
        "focus stays on the button"
    );
    key(&one(&root, "[data-timeline]"), "0");
    assert_eq!(window(&root), (0, 100_000));
    assert_eq!(current(&root), Some(7), "zooming keeps the current step");
    // Japanese.
    assert!(m.viewer.set_lang("ja"));
    assert_eq!(
        text(&one(&root, "[data-zoom-window]")),
        "全 100,000 ステップ中 1〜100,000"
    );
    assert_eq!(text(&one(&root, "[data-zoom=whole]")), "記録全体");
    let elements = all(&root, "*").len();
    assert!(elements < 12_000, "{elements} elements in the viewer");
    wasm_bindgen_test::console_log!("a 100,000-step record: {elements} elements in the viewer");
    m.viewer.destroy();
}

#[wasm_bindgen_test]
async fn finding_a_step_moves_the_zoomed_window_to_it() {
    let m = open("runs-2000", runs_record("runs-2000", 1_000), "en").await;
    let root = m.root();
    assert!(m.viewer.select_step(10.into()));
    for _ in 0..3 {
        click(&one(&root, "[data-zoom=in]"));
    }
    let (from, to) = window(&root);
    assert_eq!(to - from, 31);
    assert!((from..to).contains(&10));
    // The find box's next match is far outside the window.
    type_query(&root, "run:run-900");
    click(&one(&root, "[data-find-next]"));
    assert_eq!(current(&root), Some(1_800));
    let (from, to) = window(&root);
    assert!((from..to).contains(&1_800), "{from}..{to}");
    assert_eq!(to - from, 31, "as wide as before");
    // The match's mark is drawn in the window.
    let mark = one(&root, "[data-find-marks] [data-find-mark]");
    assert_eq!(attr(&mark, "data-from").as_deref(), Some("1800"));
    m.viewer.destroy();
}

#[wasm_bindgen_test]
async fn a_record_over_a_thousand_projects_draws_thirty_rows_that_follow_the_step() {
    for (lang, first, later) in [
        ("en", "Rows 1–30 of 1,000", "Rows 31–60 of 1,000"),
        (
            "ja",
            "全 1,000 行中 1〜30 行目",
            "全 1,000 行中 31〜60 行目",
        ),
    ] {
        let m = open(
            "projects-1000",
            projects_record("projects-1000", 1_000),
            lang,
        )
        .await;
        let root = m.root();
        let rows = || {
            all(&root, "[data-timeline-row]")
                .iter()
                .map(|r| attr(r, "data-timeline-row").unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(rows().len(), 30);
        assert_eq!(rows()[0], "p0");
        assert_eq!(text(&one(&root, "[data-rows-window]")), first);
        assert_eq!(
            attr(&one(&root, "[data-rows=earlier]"), "aria-disabled").as_deref(),
            Some("true")
        );
        click(&one(&root, "[data-rows=later]"));
        assert_eq!(rows()[0], "p30");
        assert_eq!(text(&one(&root, "[data-rows-window]")), later);
        assert!(focused().is_some_and(|f| attr(&f, "data-rows").as_deref() == Some("later")));
        // Step 1,500 releases p500: its row is drawn.
        assert!(m.viewer.select_step(1_500.into()));
        let shown = rows();
        assert!(shown.contains(&"p500".to_string()), "{shown:?}");
        assert_eq!(shown.len(), 30);
        // The last rows, and no further.
        assert!(m.viewer.select_step(999.into()));
        assert_eq!(rows().last().map(String::as_str), Some("p999"));
        assert_eq!(
            attr(&one(&root, "[data-rows=later]"), "aria-disabled").as_deref(),
            Some("true")
        );
        let elements = all(&root, "[data-lane-viewer] svg *").len();
        assert!(elements < 5_000, "{elements} elements in the drawings");
        m.viewer.destroy();
    }
}
