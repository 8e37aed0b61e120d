//! The find box: typing a query counts and marks its matches, Enter and the buttons walk them,
//! a query that is not taken says why with its code, and the deep link holds the query. The
//! expected steps are worked out here from how each record was made, not read from the viewer.

use lane_viewer_tests::*;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, KeyboardEvent, KeyboardEventInit};

/// Enter (or Shift+Enter) in the find box.
fn enter(root: &Element, shift: bool) {
    let init = KeyboardEventInit::new();
    init.set_key("Enter");
    init.set_shift_key(shift);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let event = KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    one(root, "[data-find-input]")
        .dispatch_event(&event)
        .unwrap();
}

fn status(root: &Element) -> Element {
    one(root, "[data-find-status]")
}

fn current(root: &Element) -> Option<usize> {
    attr(root, "data-current-step").and_then(|n| n.parse().ok())
}

/// Each mark's (from, to, count).
fn marks(root: &Element) -> Vec<(usize, usize, usize)> {
    let number = |m: &Element, name| attr(m, name).unwrap().parse::<usize>().unwrap();
    all(root, "[data-find-marks] [data-find-mark]")
        .iter()
        .map(|m| {
            (
                number(m, "data-from"),
                number(m, "data-to"),
                number(m, "data-count"),
            )
        })
        .collect()
}

fn input_value(root: &Element) -> String {
    js_sys::Reflect::get(&one(root, "[data-find-input]"), &"value".into())
        .unwrap()
        .as_string()
        .unwrap()
}

#[wasm_bindgen_test]
async fn a_query_counts_and_marks_its_matches_and_enter_walks_them_round() {
    for (lang, two, first, second) in [
        ("en", "2 matches", "Match 1 of 2", "Match 2 of 2"),
        (
            "ja",
            "該当 2 件",
            "該当 2 件中 1 件目",
            "該当 2 件中 2 件目",
        ),
    ] {
        // busy-project: steps 2 and 3 (1 and 2 from 0) are refused claims.
        let m = mount(&[("record", s("busy-project")), ("lang", s(lang))]).await;
        let root = m.root();
        let find = one(&root, "[data-find][role=search]");
        assert!(attr(&one(&find, "[data-find-input]"), "aria-label").is_some());
        assert_eq!(text(&status(&root)), "");
        type_query(&root, "is:refused");
        assert_eq!(text(&status(&root)), two);
        assert_eq!(
            attr(&status(&root), "data-find-count").as_deref(),
            Some("2")
        );
        assert_eq!(marks(&root), [(1, 1, 1), (2, 2, 1)]);
        enter(&root, false);
        assert_eq!(current(&root), Some(1));
        assert_eq!(text(&status(&root)), first);
        enter(&root, false);
        assert_eq!(
            (current(&root), text(&status(&root))),
            (Some(2), second.into())
        );
        enter(&root, false);
        assert_eq!(current(&root), Some(1), "round past the last");
        enter(&root, true);
        assert_eq!(current(&root), Some(2), "Shift+Enter: round past the first");
        click(&one(&root, "[data-find-next]"));
        assert_eq!(current(&root), Some(1));
        click(&one(&root, "[data-find-prev]"));
        assert_eq!(current(&root), Some(2));
        // Another step that is no match: the count again.
        key(&one(&root, "[data-timeline]"), "Home");
        assert_eq!(
            (current(&root), text(&status(&root))),
            (Some(0), two.into())
        );
        // The language switch keeps the query and its matches.
        let other = if lang == "en" { "ja" } else { "en" };
        assert!(m.viewer.set_lang(other));
        assert_eq!(input_value(&root), "is:refused");
        assert_eq!(
            attr(&status(&root), "data-find-count").as_deref(),
            Some("2")
        );
        assert_eq!(marks(&root).len(), 2);
    }
}

#[wasm_bindgen_test]
async fn a_query_that_is_not_taken_says_why_and_moves_nothing() {
    let m = mount(&[("record", s("busy-project")), ("lang", s("en"))]).await;
    let root = m.root();
    for (query, code) in [
        ("colour:red", "UNKNOWN_KEY"),
        ("op:fly", "UNKNOWN_OP"),
        ("since:yesterday", "BAD_TIME"),
        ("is:", "EMPTY_VALUE"),
        ("is:slow", "UNKNOWN_KIND"),
    ] {
        type_query(&root, query);
        assert_eq!(
            attr(&status(&root), "data-find-error").as_deref(),
            Some(code)
        );
        assert_eq!(attr(&status(&root), "data-find-count"), None);
        assert!(
            text(&status(&root)).starts_with(query),
            "{}",
            text(&status(&root))
        );
        assert!(marks(&root).is_empty());
        enter(&root, false);
        assert_eq!(current(&root), None, "{query}");
    }
    type_query(&root, &"x".repeat(1_001));
    assert_eq!(
        attr(&status(&root), "data-find-error").as_deref(),
        Some("QUERY_TOO_LONG")
    );
    type_query(&root, "op:claim nothing-is-called-this");
    assert_eq!(text(&status(&root)), "No step matches");
    assert_eq!(
        attr(&status(&root), "data-find-count").as_deref(),
        Some("0")
    );
    type_query(&root, "");
    assert_eq!(text(&status(&root)), "");
    assert_eq!(attr(&status(&root), "data-find-count"), None);
}

#[wasm_bindgen_test]
async fn a_run_label_in_a_100000_step_record_is_found_selected_and_marked() {
    // A version 3 record of 50,000 runs of project `a`, each claimed and released: run-N is
    // steps 2N and 2N+1.
    let record = runs_record("runs-100000", 50_000);
    let m = mount(&[("src", s("records/busy-project.json")), ("lang", s("en"))]).await;
    m.viewer.open_text("runs.jsonl", record);
    let root = m.root();
    let shown = || {
        maybe(
            &root,
            "[data-selected-record=runs-100000] [data-find-input]",
        )
    };
    assert!(
        eventually_within(60_000, || shown().is_some()).await,
        "{:?} {}",
        error_codes(&root),
        text(&root).chars().take(600).collect::<String>()
    );
    type_query(&root, "run:run-31415");
    assert_eq!(
        attr(&status(&root), "data-find-count").as_deref(),
        Some("2")
    );
    assert_eq!(
        marks(&root),
        [(62_830, 62_831, 2)],
        "one pixel column, counted"
    );
    enter(&root, false);
    assert_eq!(current(&root), Some(62_830));
    assert_eq!(text(&status(&root)), "Match 1 of 2");
    enter(&root, false);
    assert_eq!(
        current(&root),
        Some(62_831),
        "its release concerns the same run"
    );
    // Every claim: one mark per pixel column, counting all 50,000.
    type_query(&root, "op:claim");
    let marked = marks(&root);
    assert!(marked.len() <= 900, "{} marks", marked.len());
    assert_eq!(marked.iter().map(|m| m.2).sum::<usize>(), 50_000);
    assert_eq!(
        text(&status(&root)),
        "50,000 matches",
        "the current step is a release"
    );
}

#[wasm_bindgen_test]
async fn the_deep_link_holds_the_query_and_restores_it() {
    let history = window().history().unwrap();
    let hash = || window().location().hash().unwrap();
    history
        .replace_state_with_url(
            &JsValue::NULL,
            "",
            Some("#record=busy-project&lang=en&step=3&find=is%3Arefused"),
        )
        .unwrap();
    let m = mount(&[("hash", JsValue::TRUE)]).await;
    let root = m.root();
    assert_eq!(input_value(&root), "is:refused");
    assert_eq!(current(&root), Some(2));
    assert_eq!(text(&status(&root)), "Match 2 of 2");
    assert_eq!(marks(&root).len(), 2);
    // Typing writes the link in place: Back does not step through the letters.
    let entries = history.length().unwrap();
    type_query(&root, "run:nightly-102 & more");
    assert_eq!(history.length().unwrap(), entries);
    assert_eq!(
        hash(),
        "#record=busy-project&lang=en&step=3&find=run%3Anightly-102%20%26%20more"
    );
    // A link without a query empties the box.
    window()
        .location()
        .set_hash("record=busy-project&lang=en")
        .unwrap();
    assert!(eventually(|| input_value(&root).is_empty()).await);
    assert_eq!(text(&status(&root)), "");
    assert!(marks(&root).is_empty());
    drop(m);
    clear_hash();
}

#[wasm_bindgen_test]
async fn focus_stays_in_the_box_while_typing_and_walking() {
    let m = mount(&[("record", s("busy-project")), ("lang", s("en"))]).await;
    let root = m.root();
    let input = one(&root, "[data-find-input]");
    input
        .unchecked_ref::<web_sys::HtmlElement>()
        .focus()
        .unwrap();
    type_query(&root, "docs");
    enter(&root, false);
    enter(&root, false);
    assert_eq!(focused().as_ref(), Some(&input));
    assert_eq!(current(&root), Some(1));
}
