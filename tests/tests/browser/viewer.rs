//! The viewer in headless Chromium, through the real fetch-and-parse path, compared with the
//! record files.

use lane_viewer_tests::*;
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

const LANGS: [&str; 2] = ["en", "ja"];

#[wasm_bindgen_test]
async fn the_first_record_is_selected_initially() {
    let index = index().await;
    let m = mount(&[("lang", s("en"))]).await;
    let first = record(index.records[0].id.as_str()).await;
    assert_shows(&m.root(), &first, "en");
    assert_eq!(m.viewer.selected().as_deref(), Some(first.id.as_str()));
    let tabs = all(&m.root(), "[role=tab][data-record-id]");
    let ids: Vec<_> = tabs
        .iter()
        .map(|t| attr(t, "data-record-id").unwrap())
        .collect();
    let expected: Vec<_> = index.records.iter().map(|e| e.id.to_string()).collect();
    assert_eq!(ids, expected, "tabs follow the index order");
    let selected: Vec<_> = tabs
        .iter()
        .filter(|t| attr(t, "aria-selected").as_deref() == Some("true"))
        .collect();
    assert_eq!(selected.len(), 1);
    assert_eq!(attr(selected[0], "tabindex").as_deref(), Some("0"));
}

#[wasm_bindgen_test]
async fn the_record_option_selects_initially() {
    let m = mount(&[("record", s("stale-release")), ("lang", s("ja"))]).await;
    assert_shows(&m.root(), &record("stale-release").await, "ja");
}

#[wasm_bindgen_test]
async fn the_deep_link_selects_the_record_and_the_language() {
    let history = window().history().unwrap();
    history
        .replace_state_with_url(&JsValue::NULL, "", Some("#record=explicit-outcome&lang=ja"))
        .unwrap();
    let m = mount(&[("hash", JsValue::TRUE)]).await;
    assert_shows(&m.root(), &record("explicit-outcome").await, "ja");
    // The lang option wins over the deep link (one viewer follows the hash at a time).
    drop(m);
    let n = mount(&[("hash", JsValue::TRUE), ("lang", s("en"))]).await;
    assert_eq!(n.viewer.lang(), "en");
    assert_eq!(n.viewer.selected().as_deref(), Some("explicit-outcome"));
    drop(n);
    history
        .replace_state_with_url(&JsValue::NULL, "", Some("#"))
        .unwrap();
}

#[wasm_bindgen_test]
async fn every_record_in_both_languages_selected_by_click() {
    let index = index().await;
    for lang in LANGS {
        let m = mount(&[("lang", s(lang))]).await;
        // Last to first, so every click changes the selection.
        for entry in index.records.iter().rev() {
            let tab = one(
                &m.root(),
                &format!("[role=tab][data-record-id={}]", entry.id),
            );
            click(&tab);
            assert_shows(&m.root(), &record(entry.id.as_str()).await, lang);
        }
    }
}

#[wasm_bindgen_test]
async fn every_record_in_both_languages_selected_by_keyboard() {
    let index = index().await;
    let count = index.records.len();
    for lang in LANGS {
        let m = mount(&[("lang", s(lang))]).await;
        let root = m.root();
        for step in 1..=count {
            let current = focused_tab_or_selected(&root);
            key(&current, "ArrowRight");
            let expected = &index.records[step % count];
            assert_shows(&root, &record(expected.id.as_str()).await, lang);
            let focus = focused().expect("a focused element");
            assert_eq!(
                attr(&focus, "data-record-id").as_deref(),
                Some(expected.id.as_str()),
                "focus follows"
            );
        }
        key(&focused_tab_or_selected(&root), "End");
        assert_shows(
            &root,
            &record(index.records[count - 1].id.as_str()).await,
            lang,
        );
        key(&focused_tab_or_selected(&root), "Home");
        assert_shows(&root, &record(index.records[0].id.as_str()).await, lang);
        key(&focused_tab_or_selected(&root), "ArrowLeft");
        assert_shows(
            &root,
            &record(index.records[count - 1].id.as_str()).await,
            lang,
        );
    }
}

fn focused_tab_or_selected(root: &web_sys::Element) -> web_sys::Element {
    focused()
        .filter(|f| attr(f, "role").as_deref() == Some("tab"))
        .unwrap_or_else(|| one(root, "[role=tab][aria-selected=true]"))
}

#[wasm_bindgen_test]
async fn english_and_japanese_renders_have_the_same_structure_and_different_text() {
    for entry in index().await.records {
        let en = mount(&[("lang", s("en")), ("record", s(entry.id.as_str()))]).await;
        let ja = mount(&[("lang", s("ja")), ("record", s(entry.id.as_str()))]).await;
        let (en_panel, ja_panel) = (
            one(&en.root(), "[role=tabpanel]"),
            one(&ja.root(), "[role=tabpanel]"),
        );
        assert_eq!(structure(&en_panel), structure(&ja_panel), "{}", entry.id);
        assert_ne!(text(&en_panel), text(&ja_panel), "{}", entry.id);
        for selector in [
            ".lv-title",
            ".lv-summary",
            ".lv-no-work",
            ".lv-h",
            ".lv-untouched-note",
        ] {
            assert_ne!(
                text(&one(&en_panel, selector)),
                text(&one(&ja_panel, selector)),
                "{selector}"
            );
        }
        // Error codes appear verbatim in both.
        for code in all(&en_panel, "[data-step] .lv-response .lv-code") {
            assert!(text(&ja_panel).contains(&text(&code)));
        }
    }
}

#[wasm_bindgen_test]
async fn switching_language_keeps_the_selection() {
    let m = mount(&[("lang", s("en")), ("record", s("stop-keeps-occupancy"))]).await;
    let stop = record("stop-keeps-occupancy").await;
    assert!(m.viewer.set_lang("ja"));
    assert_shows(&m.root(), &stop, "ja");
    click(&one(&m.root(), "[data-lang-choice=en]"));
    assert_shows(&m.root(), &stop, "en");
    assert_eq!(
        attr(&one(&m.root(), "[data-lang-choice=en]"), "aria-pressed").as_deref(),
        Some("true")
    );
    assert!(!m.viewer.set_lang("fr"));
    assert_eq!(m.viewer.lang(), "en");
}

#[wasm_bindgen_test]
async fn two_viewers_on_one_page_stay_independent() {
    let a = mount(&[("lang", s("en")), ("record", s("busy-project"))]).await;
    let b = mount(&[("lang", s("ja")), ("record", s("stale-release"))]).await;
    click(&one(
        &a.root(),
        "[role=tab][data-record-id=explicit-outcome]",
    ));
    assert!(b.viewer.set_lang("en"));
    assert_shows(&a.root(), &record("explicit-outcome").await, "en");
    assert_shows(&b.root(), &record("stale-release").await, "en");
    key(&one(&b.root(), "[role=tab][aria-selected=true]"), "Home");
    assert_eq!(a.viewer.selected().as_deref(), Some("explicit-outcome"));
    assert_eq!(b.viewer.selected().as_deref(), Some("independent-claims"));
    assert_ids_unique();
    drop(a);
    click(&one(&b.root(), "[role=tab][data-record-id=busy-project]"));
    assert_shows(&b.root(), &record("busy-project").await, "en");
}

#[wasm_bindgen_test]
async fn selection_updates_the_deep_link_and_back_and_forward_work() {
    let history = window().history().unwrap();
    history
        .replace_state_with_url(&JsValue::NULL, "", Some("#"))
        .unwrap();
    let m = mount(&[("hash", JsValue::TRUE), ("lang", s("en"))]).await;
    let hash = || window().location().hash().unwrap();
    assert_eq!(hash(), "#record=independent-claims&lang=en");
    click(&one(&m.root(), "[role=tab][data-record-id=busy-project]"));
    assert_eq!(hash(), "#record=busy-project&lang=en");
    click(&one(&m.root(), "[data-lang-choice=ja]"));
    assert_eq!(hash(), "#record=busy-project&lang=ja");
    history.back().unwrap();
    assert!(
        eventually(|| m.viewer.lang() == "en").await,
        "back restores the language"
    );
    history.back().unwrap();
    assert!(eventually(|| m.viewer.selected().as_deref() == Some("independent-claims")).await);
    history.forward().unwrap();
    assert!(eventually(|| m.viewer.selected().as_deref() == Some("busy-project")).await);
    assert_shows(&m.root(), &record("busy-project").await, "en");
    drop(m);
    history
        .replace_state_with_url(&JsValue::NULL, "", Some("#"))
        .unwrap();
}

#[wasm_bindgen_test]
async fn raw_json_and_a_download_link_come_with_every_record() {
    let m = mount(&[("record", s("busy-project"))]).await;
    let raw = text(&one(&m.root(), ".lv-json"));
    assert_eq!(raw, fetch_text("records/busy-project.json").await);
    let link = one(&m.root(), "a.lv-download");
    assert_eq!(
        attr(&link, "download").as_deref(),
        Some("busy-project.json")
    );
    assert!(
        attr(&link, "href")
            .unwrap()
            .ends_with("/records/busy-project.json")
    );
}

fn error_codes(root: &web_sys::Element) -> Vec<String> {
    all(root, "[data-viewer-error]")
        .iter()
        .filter_map(|e| attr(e, "data-viewer-error"))
        .collect()
}

#[wasm_bindgen_test]
async fn a_missing_index_shows_its_error_and_nothing_breaks() {
    let m = mount(&[("src", s("fixtures/missing/index.json")), ("lang", s("ja"))]).await;
    assert_eq!(error_codes(&m.root()), ["INDEX_UNAVAILABLE"]);
    let message = text(&one(&m.root(), "[data-viewer-error]"));
    assert!(
        message.contains("記録の一覧を読み込めませんでした"),
        "{message}"
    );
    assert!(message.contains("INDEX_UNAVAILABLE"));
    assert!(all(&m.root(), "[role=tab]").is_empty());
    assert!(m.viewer.set_lang("en"));
    assert!(text(&one(&m.root(), "[data-viewer-error]")).contains("could not be loaded"));
}

#[wasm_bindgen_test]
async fn a_broken_index_shows_invalid_json() {
    let m = mount(&[("src", s("fixtures/broken-index/index.json"))]).await;
    assert_eq!(error_codes(&m.root()), ["INVALID_JSON"]);
}

#[wasm_bindgen_test]
async fn each_bad_record_shows_its_own_error_while_the_rest_keep_working() {
    let m = mount(&[("src", s("fixtures/mixed/index.json")), ("lang", s("en"))]).await;
    let root = m.root();
    assert_shows(&root, &record("busy-project").await, "en");
    for (id, code) in [
        ("future-version", "UNSUPPORTED_VERSION"),
        ("tampered", "HASH_MISMATCH"),
        ("missing-steps", "INVALID_RECORD"),
        ("not-json", "INVALID_JSON"),
        ("missing-file", "RECORD_UNAVAILABLE"),
    ] {
        click(&one(&root, &format!("[role=tab][data-record-id={id}]")));
        let panel = one(&root, "[role=tabpanel]");
        assert_eq!(attr(&panel, "data-selected-record").as_deref(), Some(id));
        assert_eq!(error_codes(&panel), [code], "{id}");
        assert!(all(&panel, "[data-step]").is_empty(), "{id} shows no steps");
        assert!(text(&panel).contains(code));
    }
    // The good record still works after visiting every bad one.
    click(&one(&root, "[role=tab][data-record-id=busy-project]"));
    assert_shows(&root, &record("busy-project").await, "en");
    assert!(!m.viewer.select("no-such-record"));
    assert_eq!(error_codes(&root), ["UNKNOWN_RECORD"]);
    assert_eq!(m.viewer.selected().as_deref(), Some("busy-project"));
    click(&one(&root, "[role=tab][data-record-id=hostile]"));
    assert!(
        error_codes(&root).is_empty(),
        "a new selection clears the notice"
    );
}

#[wasm_bindgen_test]
async fn hostile_strings_stay_inert_text() {
    for lang in LANGS {
        let m = mount(&[
            ("src", s("fixtures/mixed/index.json")),
            ("record", s("hostile")),
            ("lang", s(lang)),
        ])
        .await;
        let root = m.root();
        for _ in 0..5 {
            tick().await;
        }
        assert!(
            global("__lanesPwned").is_undefined(),
            "a hostile string ran as script"
        );
        assert!(
            // The timeline's drawing and its row labels are the only SVG the viewer makes.
            maybe(
                &root,
                "img, script, svg:not(.lv-tl-svg, .lv-tl-labels), iframe, b, [onerror], [onload], [onmouseover]"
            )
            .is_none(),
            "markup from the record became elements"
        );
        let panel_text = text(&one(&root, "[role=tabpanel]"));
        let title = if lang == "en" {
            "<img src=x onerror="
        } else {
            "<script>window.__lanesPwned=2</script>"
        };
        assert!(panel_text.contains(title), "{panel_text}");
        assert!(panel_text.contains("<b onmouseover=window.__lanesPwned=5>docs</b>"));
        assert!(text(&one(&root, "[role=tab][data-record-id=hostile]")).contains('<'));
        let steps = all(&root, "[data-step]");
        assert_eq!(
            attr(&steps[0], "data-result").as_deref(),
            Some("INVALID_LABEL")
        );
        assert_eq!(
            attr(&steps[2], "data-result").as_deref(),
            Some("INVALID_OUTCOME")
        );
    }
}

#[wasm_bindgen_test]
async fn an_index_that_repeats_an_id_is_refused() {
    let m = mount(&[("src", s("fixtures/duplicate-ids/index.json"))]).await;
    assert_eq!(error_codes(&m.root()), ["INVALID_INDEX"]);
}

#[wasm_bindgen_test]
async fn the_page_may_call_the_viewer_from_events_the_viewer_causes() {
    use std::rc::Rc;
    use wasm_bindgen::JsCast;
    use wasm_bindgen::closure::Closure;
    let host = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&host).unwrap();
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &s("src"), &s(&site("records/index.json"))).unwrap();
    let viewer = Rc::new(
        lane_viewer::mount(host.clone(), options.into())
            .await
            .unwrap(),
    );
    let seen = Rc::new(std::cell::RefCell::new(Vec::new()));
    // Moving focus to the next tab fires focusin synchronously, while the viewer handles the
    // key: the page's handler reads and even changes the viewer.
    let on_focus = {
        let (viewer, seen) = (viewer.clone(), seen.clone());
        Closure::<dyn FnMut()>::new(move || {
            seen.borrow_mut().push(viewer.selected());
            viewer.set_lang("ja");
        })
    };
    host.add_event_listener_with_callback("focusin", on_focus.as_ref().unchecked_ref())
        .unwrap();
    let root = one(&host, "[data-lane-viewer]");
    key(&one(&root, "[role=tab][aria-selected=true]"), "ArrowRight");
    assert_eq!(seen.borrow().as_slice(), [Some("busy-project".to_string())]);
    assert_eq!(viewer.lang(), "ja");
    assert_eq!(viewer.selected().as_deref(), Some("busy-project"));
    viewer.destroy();
    host.remove();
}

#[wasm_bindgen_test]
async fn destroy_removes_the_viewer_and_its_listeners() {
    let m = mount(&[]).await;
    let root = m.root();
    m.viewer.destroy();
    assert!(maybe(&m.host, "[data-lane-viewer]").is_none());
    // Events on the detached root reach no listener: nothing changes, nothing throws.
    click(&one(&root, "[role=tab][data-record-id=busy-project]"));
    assert_ne!(m.viewer.selected().as_deref(), Some("busy-project"));
    // The handle outlives the viewer: its methods do nothing.
    assert!(!m.viewer.select("busy-project"));
    assert!(!m.viewer.set_lang("ja"));
}

#[wasm_bindgen_test]
async fn bad_options_reject_the_mount() {
    let host = document().create_element("div").unwrap();
    let options = js_sys::Object::new();
    js_sys::Reflect::set(&options, &s("colour"), &s("red")).unwrap();
    let error = lane_viewer::mount(host, options.into())
        .await
        .err()
        .expect("rejected");
    let message = js_sys::Error::from(error).message().as_string().unwrap();
    assert!(message.contains("unknown field `colour`"), "{message}");
}

/// Switching back to a record puts its panel back (the same elements, not rebuilt) and it still
/// shows exactly that record, verified, in the right language, with no step left current.
#[wasm_bindgen_test]
async fn a_record_shown_again_gets_its_own_panel_back_unchanged() {
    let busy = record("busy-project").await;
    let stale = record("stale-release").await;
    let m = mount(&[("record", s("busy-project")), ("lang", s("en"))]).await;
    let root = m.root();
    let first_card = one(&root, "[data-step=\"0\"]");
    assert!(m.viewer.select_step(JsValue::from(1_u32)));
    assert!(m.viewer.select("stale-release"));
    assert_shows(&root, &stale, "en");
    assert!(m.viewer.select("busy-project"));
    assert_eq!(
        one(&root, "[data-step=\"0\"]"),
        first_card,
        "the same elements"
    );
    assert_shows(&root, &busy, "en");
    let panel = one(&root, "[role=tabpanel]");
    assert_eq!(
        attr(&panel, "data-verification").as_deref(),
        Some("verified")
    );
    assert_eq!(
        attr(&panel, "data-selected-record").as_deref(),
        Some("busy-project")
    );
    assert!(all(&root, ".lv-current").is_empty(), "no step left current");
    // Each language keeps its own panel.
    assert!(m.viewer.set_lang("ja"));
    assert_shows(&root, &busy, "ja");
    assert!(m.viewer.set_lang("en"));
    assert_eq!(one(&root, "[data-step=\"0\"]"), first_card);
    assert_shows(&root, &busy, "en");
    assert_eq!(
        all(&root, "[data-step]").len(),
        busy.steps.len(),
        "each step once"
    );
}

/// The selected record is shown as soon as its own file arrives, not after the whole index: of
/// 200 records, the one a page asks for is fetched first and on screen while most tabs still
/// load (`aria-busy`, not errors); a tab chosen while its file loads says so, then shows it.
#[wasm_bindgen_test]
async fn the_selected_record_is_shown_before_the_others_arrive() {
    use std::cell::{Cell, RefCell};
    use std::rc::Rc;
    let host = host();
    let opts = options(&[
        ("src", s("fixtures/many/index.json")),
        ("record", s("many-150")),
        ("lang", s("en")),
    ]);
    let viewer: Rc<RefCell<Option<lane_viewer::Viewer>>> = Rc::default();
    wasm_bindgen_futures::spawn_local({
        let (host, viewer) = (host.clone(), viewer.clone());
        async move {
            let mounted = lane_viewer::mount(host, opts).await;
            *viewer.borrow_mut() = Some(mounted.expect("mount resolves"));
        }
    });
    // Counted at the very moment many-150's first step enters the page (the observer runs
    // right after that change, before any other record's arrival).
    let loading_then: Rc<Cell<Option<usize>>> = Rc::default();
    let watching = {
        let (watched, loading_then) = (host.clone(), loading_then.clone());
        watch(&host, move || {
            let shown = "[data-selected-record=\"many-150\"] [data-step]";
            if loading_then.get().is_none() && maybe(&watched, shown).is_some() {
                let loading = all(&watched, "[role=tab][aria-busy=\"true\"]").len();
                loading_then.set(Some(loading));
            }
        })
    };
    for _ in 0..2000 {
        if loading_then.get().is_some() {
            break;
        }
        sleep(5).await;
    }
    drop(watching);
    let root = one(&host, "[data-lane-viewer]");
    let loading = loading_then.get().expect("many-150 is shown");
    assert!(loading >= 190, "most records still load: {loading} of 199");
    assert!(
        viewer.borrow().is_none(),
        "mount resolves once every record arrived"
    );
    assert_eq!(attr(&root, "aria-busy").as_deref(), Some("true"));
    assert!(
        all(&host, ".lv-tab-error").is_empty(),
        "loading is not failing"
    );
    // The last record fetched, chosen while it loads.
    click(&one(&host, "[role=tab][data-record-id=\"many-199\"]"));
    let panel = one(&host, "[role=tabpanel]");
    assert_eq!(
        attr(&panel, "data-selected-record").as_deref(),
        Some("many-199")
    );
    assert!(
        maybe(&panel, ".lv-loading[role=status]").is_some(),
        "says it is loading"
    );
    assert!(maybe(&panel, "[data-step]").is_none());
    for _ in 0..4000 {
        if viewer.borrow().is_some() {
            break;
        }
        sleep(5).await;
    }
    let viewer = viewer.borrow_mut().take().expect("mount resolved");
    assert_eq!(viewer.selected().as_deref(), Some("many-199"));
    assert!(maybe(&panel, ".lv-loading").is_none());
    assert_eq!(
        all(&panel, "[data-step]").len(),
        1,
        "many-199 is shown once it arrived"
    );
    assert_eq!(
        attr(&panel, "data-verification").as_deref(),
        Some("verified")
    );
    assert_eq!(all(&host, "[role=tab]").len(), 200);
    assert!(all(&host, "[aria-busy]").is_empty(), "nothing left loading");
    assert!(maybe(&host, ".lv-loading").is_none());
    viewer.destroy();
    host.remove();
}

#[wasm_bindgen_test]
async fn record_ids_go_into_the_deep_link_encoded_and_back_restores_their_panel() {
    clear_hash();
    let m = mount(&[("hash", JsValue::TRUE), ("lang", s("en"))]).await;
    let root = m.root();
    let hash = || window().location().hash().unwrap();
    m.viewer.open_text("bad name.json", "not json".into());
    assert_eq!(hash(), "#record=bad%20name.json&lang=en");
    m.viewer
        .open_text("x&record=busy-project.json", "not json".into());
    assert_eq!(
        hash(),
        "#record=x%26record%3Dbusy-project.json&lang=en",
        "the id stays one value"
    );
    tick().await;
    assert_eq!(
        m.viewer.selected().as_deref(),
        Some("x&record=busy-project.json")
    );
    assert_eq!(error_codes(&root), ["INVALID_JSON"], "no UNKNOWN_RECORD");
    click(&one(&root, "[role=tab][data-record-id=busy-project]"));
    assert_eq!(hash(), "#record=busy-project&lang=en");
    let panel = || attr(&one(&root, "[role=tabpanel]"), "data-selected-record");
    let history = window().history().unwrap();
    history.back().unwrap();
    assert!(eventually(|| panel().as_deref() == Some("x&record=busy-project.json")).await);
    history.back().unwrap();
    assert!(eventually(|| panel().as_deref() == Some("bad name.json")).await);
    assert_eq!(m.viewer.selected().as_deref(), Some("bad name.json"));
    assert_eq!(error_codes(&root), ["INVALID_JSON"], "no UNKNOWN_RECORD");
    // One traversal at a time: WebKit drops a second one asked for before the first is done.
    history.forward().unwrap();
    assert!(eventually(|| panel().as_deref() == Some("x&record=busy-project.json")).await);
    history.forward().unwrap();
    assert!(eventually(|| panel().as_deref() == Some("busy-project")).await);
    assert_shows(&root, &record("busy-project").await, "en");
    drop(m);
    clear_hash();
}

#[wasm_bindgen_test]
async fn each_viewer_is_a_region_named_by_the_record_it_shows_in_its_language() {
    let (busy, stale) = (record("busy-project").await, record("stale-release").await);
    let name = |lang: &str, title: &str| match lang {
        "ja" => format!("プロジェクトレーン：{title}"),
        _ => format!("Project lanes: {title}"),
    };
    // Two viewers in one language (a guide's chapter, `embed.html` after a language switch):
    // two landmarks, two names.
    let a = mount(&[("lang", s("en")), ("record", s("busy-project"))]).await;
    let b = mount(&[("lang", s("ja")), ("record", s("stale-release"))]).await;
    for (m, lang, record) in [(&a, "en", &busy), (&b, "ja", &stale)] {
        let root = m.root();
        assert_eq!(attr(&root, "role").as_deref(), Some("region"));
        assert_eq!(
            attr(&root, "aria-label"),
            Some(name(lang, record.title.get(lang)))
        );
    }
    assert!(b.viewer.set_lang("en"));
    assert_eq!(
        attr(&b.root(), "aria-label"),
        Some(name("en", stale.title.get("en")))
    );
    assert_ne!(attr(&a.root(), "aria-label"), attr(&b.root(), "aria-label"));
    // Kept up to date on select.
    assert!(a.viewer.select("stale-release"));
    assert!(b.viewer.select("busy-project"));
    assert_eq!(
        attr(&a.root(), "aria-label"),
        Some(name("en", stale.title.get("en")))
    );
    assert!(a.viewer.set_lang("ja"));
    assert_eq!(
        attr(&a.root(), "aria-label"),
        Some(name("ja", stale.title.get("ja")))
    );
    assert_eq!(
        attr(&b.root(), "aria-label"),
        Some(name("en", busy.title.get("en")))
    );
}

#[wasm_bindgen_test]
async fn mount_refuses_a_language_it_does_not_speak_and_options_that_are_not_an_object() {
    let refused = |options: JsValue| async move {
        let error = lane_viewer::mount(host(), options)
            .await
            .err()
            .expect("mount rejects");
        js_sys::Error::from(error).message().as_string().unwrap()
    };
    let with_lang = |tag: &str| {
        let object = js_sys::Object::new();
        js_sys::Reflect::set(&object, &s("src"), &s(&site("records/index.json"))).unwrap();
        js_sys::Reflect::set(&object, &s("lang"), &s(tag)).unwrap();
        JsValue::from(object)
    };
    for tag in ["fr", "EN", "ja-JP", ""] {
        let message = refused(with_lang(tag)).await;
        assert!(
            message.contains("lang") && message.contains("\"en\"") && message.contains("\"ja\""),
            "{tag}: {message}"
        );
    }
    for options in [
        JsValue::from(js_sys::Array::new()),
        JsValue::from(5),
        s("records/index.json"),
        JsValue::TRUE,
    ] {
        let message = refused(options.clone()).await;
        assert!(message.contains("object"), "{options:?}: {message}");
    }
    // A value of the wrong type: the option and what it must be are named.
    let with = |name: &str, value: JsValue| {
        let object = js_sys::Object::new();
        js_sys::Reflect::set(&object, &s(name), &value).unwrap();
        JsValue::from(object)
    };
    for (name, value, says) in [
        (
            "hash",
            s("yes"),
            "hash must be true or false, not the string \"yes\"",
        ),
        (
            "open",
            JsValue::from(1),
            "open must be true or false, not 1",
        ),
        ("src", JsValue::from(2.5), "src must be a string, not 2.5"),
        (
            "lang",
            JsValue::TRUE,
            "lang must be a string, not a boolean",
        ),
        (
            "compare",
            s("ab"),
            "compare must be a list of record ids, not the string \"ab\"",
        ),
        (
            "compare",
            js_sys::Array::of2(&s("a"), &JsValue::from(2)).into(),
            "compare must be a list of record ids, not an object",
        ),
    ] {
        let message = refused(with(name, value)).await;
        assert_eq!(message, format!("lane-viewer options: {says}"));
    }
    // What a page would leave behind: no viewer.
    assert!(
        all(&document().body().unwrap(), "[data-lane-viewer]")
            .iter()
            .all(|v| v.is_connected())
    );
}

#[wasm_bindgen_test]
async fn a_destroyed_viewer_has_no_selection_and_no_step() {
    let m = mount(&[("lang", s("en")), ("record", s("busy-project"))]).await;
    assert!(m.viewer.select_step(JsValue::from(2_u32)));
    m.viewer.destroy();
    assert_eq!(m.viewer.selected(), None);
    assert_eq!(m.viewer.current_step(), None);
}

#[wasm_bindgen_test]
async fn select_step_refuses_what_is_not_a_step_number() {
    let host = host();
    let viewer = try_mount(&host, &[("lang", s("en")), ("record", s("busy-project"))])
        .await
        .unwrap();
    let root = one(&host, "[data-lane-viewer]");
    // The handle as a page holds it: the JavaScript class, whose methods convert their
    // arguments.
    let object: JsValue = viewer.into();
    let call = |method: &str, value: &JsValue| -> JsValue {
        let function: js_sys::Function = js_sys::Reflect::get(&object, &s(method)).unwrap().into();
        function.call1(&object, value).unwrap()
    };
    for value in [
        JsValue::UNDEFINED,
        JsValue::NULL,
        JsValue::from(f64::NAN),
        JsValue::from(2.7),
        JsValue::from(-1),
        JsValue::from(5),
        JsValue::from(4_294_967_301.0),
        JsValue::from(f64::INFINITY),
        s("3"),
        JsValue::TRUE,
    ] {
        assert_eq!(call("select_step", &value), JsValue::FALSE, "{value:?}");
        assert_eq!(attr(&root, "data-current-step"), None, "{value:?}");
    }
    assert_eq!(call("select_step", &JsValue::from(4)), JsValue::TRUE);
    assert_eq!(attr(&root, "data-current-step").as_deref(), Some("4"));
    assert_eq!(call("select_step", &JsValue::from(0.0)), JsValue::TRUE);
    assert_eq!(attr(&root, "data-current-step").as_deref(), Some("0"));
    call("destroy", &JsValue::UNDEFINED);
    host.remove();
}

#[wasm_bindgen_test]
async fn a_single_record_over_the_limit_named_by_src_is_a_record_too_large() {
    let m = mount(&[
        ("src", s("fixtures/oversized/big-record.json")),
        ("lang", s("en")),
    ])
    .await;
    assert_eq!(error_codes(&m.root()), ["RECORD_TOO_LARGE"]);
    let words = text(&m.root());
    assert!(words.contains("The record file is too large"), "{words}");
    assert!(!words.contains("index"), "{words}");
}

/// Built panels and timelines are kept in one cache of 16 (record, language) pairs: a record
/// shown again soon gets its drawing back; after 16 others it is drawn afresh (nothing else
/// holds on to it).
#[wasm_bindgen_test]
async fn a_record_shown_again_after_sixteen_others_is_drawn_afresh() {
    let m = mount(&[("record", s("busy-project")), ("lang", s("en"))]).await;
    let root = m.root();
    let first = one(&root, "[data-timeline]");
    for i in 0..3 {
        let id = format!("soon-{i}");
        m.viewer
            .open_text(&format!("{id}.json"), one_claim_record(&id));
    }
    assert!(m.viewer.select("busy-project"));
    assert_eq!(one(&root, "[data-timeline]"), first, "kept");
    for i in 0..20 {
        let id = format!("later-{i}");
        m.viewer
            .open_text(&format!("{id}.json"), one_claim_record(&id));
    }
    assert!(m.viewer.select("busy-project"));
    let again = one(&root, "[data-timeline]");
    assert_ne!(again, first, "dropped from the cache");
    assert_shows(&root, &record("busy-project").await, "en");
}
