//! The playground page (`www/playground.html`) in a frame: typing re-runs the scenario on the core
//! and the live viewer shows the new record; an error is shown where it is and the last record
//! stays, marked out of date; "Edit as scenario" gives back every bundled record byte for byte;
//! the record offered for download is the file `lane-records run` writes; a link restores the
//! scenario; bad input gets a coded, located error and the page goes on working.
//!
//! The page is opened by `lane_viewer_tests::playground::Playground`.

#![cfg(target_arch = "wasm32")]

use js_sys::Reflect;
use lane_viewer_tests::playground::{Playground, long_scenario};
use lane_viewer_tests::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::HtmlElement;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn playground_typing_a_change_runs_it_again_and_the_viewer_shows_the_new_record() {
    let page = Playground::open("lang=en", 1280).await;
    assert_eq!(page.last_run(), (true, None));
    assert_eq!(
        page.selected_record().as_deref(),
        Some("independent-claims")
    );
    assert_eq!(page.record_state(), "current");
    let last = page.one("[data-step=\"5\"]");
    assert_eq!(attr(&last, "data-result").as_deref(), Some("ok"));
    // Docs's release names site's lease instead: site's own release at the end comes too late.
    let source = page.editor_text();
    let changed = source.replacen("lease = \"L1\"", "lease = \"L2\"", 1);
    assert_ne!(changed, source);
    assert_eq!(page.type_text(&changed).await, (true, None));
    let last = page.one("[data-step=\"5\"]");
    assert_eq!(
        attr(&last, "data-result").as_deref(),
        Some("LEASE_NOT_CURRENT")
    );
    assert_eq!(
        attr(
            &page.one("[role=tabpanel][data-verification]"),
            "data-verification"
        )
        .as_deref(),
        Some("verified")
    );
    assert!(
        text(&page.one("[data-status]")).starts_with("Ran on the core: 6 steps"),
        "{}",
        text(&page.one("[data-status]"))
    );
    // A download asked for before the quiet quarter second ends: the text typed runs first.
    let again = changed.replacen("run = \"deploy-7\"", "run = \"deploy-8\"", 1);
    assert_ne!(again, changed);
    page.input_text(&again);
    let (name, bytes) = page.offered("[data-download=record]").await;
    assert_eq!(name, "independent-claims.json");
    // The record downloaded replays on the core, read as `lane-records replay` reads it.
    let record = project_lanes::record::json::parse_record(&bytes).unwrap();
    assert!(project_lanes::record::replay(&record).is_ok());
    let json = String::from_utf8(bytes).unwrap();
    assert!(json.contains("deploy-8") && !json.contains("deploy-7"));
    // Line numbers follow the text.
    let lines = again.lines().count();
    assert!(text(&page.one("[data-gutter]")).contains(&format!("\n{lines}\n")));
}

#[wasm_bindgen_test]
async fn playground_a_syntax_error_is_located_and_the_last_record_stays_marked_out_of_date() {
    let page = Playground::open("lang=en", 1280).await;
    let good = page.editor_text();
    let broken = good.replacen("run = \"nightly-101\"", "run = nightly-101\"", 1);
    let (ok, code) = page.type_text(&broken).await;
    assert!(!ok);
    assert_eq!(code.as_deref(), Some("SCENARIO_SYNTAX"));
    let error = page.one("[data-error]");
    assert!(!error.has_attribute("hidden"));
    let shown = text(&page.one("[data-error-text]"));
    assert!(
        shown.starts_with("01-independent-claims.toml:18:7: "),
        "{shown}"
    );
    assert!(
        shown.contains("\n18 | run = nightly-101\"\n   |       ^"),
        "{shown}"
    );
    assert!(text(&page.one("[data-error-lead]")).contains("line 18, column 7"));
    // The last record stays, marked out of date, and is no longer offered.
    assert_eq!(page.record_state(), "stale");
    assert!(!page.one("[data-stale-note]").has_attribute("hidden"));
    assert_eq!(
        page.selected_record().as_deref(),
        Some("independent-claims")
    );
    assert!(page.disabled("[data-download=record]") && page.disabled("[data-download=zip]"));
    assert!(!page.disabled("[data-download=scenario]"));
    // "Go to the error" puts the caret there.
    click(&page.one("[data-goto-error]"));
    let editor = page.one("[data-editor]");
    let caret = Reflect::get(&editor, &"selectionStart".into())
        .unwrap()
        .as_f64()
        .unwrap() as usize;
    let line_start = broken
        .match_indices('\n')
        .nth(16)
        .map(|(i, _)| i + 1)
        .unwrap();
    // The caret counts UTF-16 units, as JavaScript does.
    assert_eq!(caret, broken[..line_start].encode_utf16().count() + 6);
    // Fixed: current again.
    assert_eq!(page.type_text(&good).await, (true, None));
    assert_eq!(page.record_state(), "current");
    assert!(page.one("[data-error]").has_attribute("hidden"));
}

#[wasm_bindgen_test]
async fn playground_edit_as_scenario_gives_back_every_bundled_record_byte_for_byte() {
    let page = Playground::open("lang=en", 1280).await;
    for entry in index().await.records {
        page.select_start(&format!("record:{}", entry.id));
        assert_eq!(page.click_and_run("[data-load-start]").await, (true, None));
        assert_eq!(page.selected_record().as_deref(), Some(entry.id.as_str()));
        let (name, bytes) = page.offered("[data-download=record]").await;
        assert_eq!(name, entry.file);
        let file = fetch_bytes(&format!("records/{}", entry.file)).await;
        assert!(bytes == file, "{} came back different", entry.id);
    }
    // The scenario offered is the editor's text, named by its record.
    let (name, bytes) = page.offered("[data-download=scenario]").await;
    assert_eq!(name, "unresolved-blocks.toml");
    assert_eq!(String::from_utf8(bytes).unwrap(), page.editor_text());
    let (name, bytes) = page.offered("[data-download=zip]").await;
    assert_eq!(name, "unresolved-blocks.zip");
    assert_eq!(&bytes[..4], b"PK\x03\x04");
}

#[wasm_bindgen_test]
async fn playground_a_copied_link_restores_the_scenario_and_a_bad_one_is_refused_with_a_code() {
    let page = Playground::open("lang=ja", 1280).await;
    let changed = page.editor_text().replacen("nightly-101", "nightly-7", 1);
    assert_eq!(page.type_text(&changed).await, (true, None));
    click(&page.one("[data-copy-link]"));
    assert!(eventually(|| !page.one("[data-link-row]").has_attribute("hidden")).await);
    let link: String = Reflect::get(&page.one("[data-link]"), &"value".into())
        .unwrap()
        .as_string()
        .unwrap();
    let hash = link.split_once('#').unwrap().1.to_string();
    assert!(hash.starts_with("lang=ja&scenario="), "{hash}");
    drop(page);

    let page = Playground::open(&hash, 1280).await;
    assert_eq!(page.editor_text(), changed);
    assert_eq!(page.last_run(), (true, None));
    assert_eq!(
        attr(&page.one("[data-lane-viewer]"), "lang").as_deref(),
        Some("ja")
    );
    assert!(page.body_text().contains("nightly-7"));
    drop(page);

    // The same link opened in a tab that already shows the playground: the page follows it.
    let page = Playground::open("lang=en", 1280).await;
    assert_ne!(page.editor_text(), changed);
    let before = page.runs();
    page.set_hash(&hash);
    assert!(eventually_within(10_000, || page.runs() > before).await);
    assert_eq!(page.editor_text(), changed);
    assert!(eventually(|| attr(&page.root(), "lang").as_deref() == Some("ja")).await);
    drop(page);

    for bad in ["scenario=not*base64", "scenario=AAAA", "scenario="] {
        let page = Playground::open(bad, 1280).await;
        let lead = text(&page.one("[data-error-lead]"));
        assert!(lead.ends_with("LINK_INVALID"), "{bad}: {lead}");
        assert!(
            text(&page.one("[data-error-text]")).starts_with("the link: no scenario in it ("),
            "{bad}"
        );
        assert_eq!(page.runs(), 0, "{bad}");
        assert_eq!(page.record_state(), "none", "{bad}");
        assert_eq!(page.editor_text(), "", "{bad}");
    }
    // A record the site does not bundle: said so, beside the first bundled scenario.
    let page = Playground::open("record=nope", 1280).await;
    assert!(eventually(|| text(&page.one("[data-error-lead]")).ends_with("UNKNOWN_RECORD")).await);
    assert!(page.editor_text().contains("id = \"independent-claims\""));
}

#[wasm_bindgen_test]
async fn playground_bad_input_gets_a_coded_located_error_and_the_page_goes_on() {
    let page = Playground::open("lang=en", 1280).await;
    let good = page.editor_text();
    let huge = format!("{good}\n# {}", "x".repeat(4 * 1024 * 1024));
    assert_eq!(
        page.type_text(&huge).await,
        (false, Some("SCENARIO_TOO_LARGE".into()))
    );
    let mut many = good.clone();
    for _ in 0..10_001 {
        many.push_str("\n[[steps]]\nop = \"view\"\nproject = \"docs\"\n");
    }
    assert_eq!(
        page.type_text(&many).await,
        (false, Some("SCENARIO_TOO_MANY_STEPS".into()))
    );
    assert!(text(&page.one("[data-error-text]")).starts_with("01-independent-claims.toml:"));
    let garbage: String = (0..20_000u32)
        .map(|i| char::from_u32((i * 7919) % 0xd7ff).unwrap_or('?'))
        .collect();
    assert_eq!(
        page.type_text(&garbage).await,
        (false, Some("SCENARIO_SYNTAX".into()))
    );
    assert!(text(&page.one("[data-error-text]")).contains('^'));
    let record = fetch_text("records/busy-project.json").await;
    assert_eq!(
        page.type_text(&record).await,
        (false, Some("SCENARIO_SYNTAX".into()))
    );
    assert_eq!(page.record_state(), "stale");
    // And the page still runs what it is given.
    assert_eq!(page.type_text(&good).await, (true, None));
    assert_eq!(page.record_state(), "current");
}

#[wasm_bindgen_test]
async fn playground_both_languages_and_a_narrow_screen() {
    let page = Playground::open("lang=en", 390).await;
    // Editor above the record at 390 px, nothing wider than the frame.
    let editor = page.one(".pg-source").get_bounding_client_rect();
    let record = page.one(".pg-record").get_bounding_client_rect();
    assert!(
        editor.bottom() <= record.top() + 1.0,
        "{} {}",
        editor.bottom(),
        record.top()
    );
    let width = page.doc().document_element().unwrap().scroll_width();
    assert!(width <= 390, "the page is {width} px wide");
    // The page's language switch switches the viewer; the viewer's switches the page.
    click(&page.one("[data-set-lang=ja]"));
    assert!(
        eventually(|| attr(&page.one("[data-lane-viewer]"), "lang").as_deref() == Some("ja")).await
    );
    assert_eq!(attr(&page.root(), "lang").as_deref(), Some("ja"));
    let title = page.one("h1").unchecked_into::<HtmlElement>().inner_text();
    assert_eq!(title.trim(), "シナリオのプレイグラウンド");
    let viewer_en = all(&page.root(), "[data-lane-viewer] button")
        .into_iter()
        .find(|b| text(b) == "English")
        .expect("the viewer's English button");
    click(&viewer_en);
    assert!(eventually(|| attr(&page.root(), "lang").as_deref() == Some("en")).await);
    let title = page.one("h1").unchecked_into::<HtmlElement>().inner_text();
    assert_eq!(title.trim(), "Scenario playground");
}

/// The standalone page's `window.open`, for a test: the tab opens in a frame inside the page
/// (`__opened`), which is the frame's parent as a tab's opener would be. Like the page, the
/// frame is a `srcdoc` copy with a `<base>` at the test site: of the same origin as the page.
fn open_in_a_frame() -> String {
    let base = serde_json::to_string(&site("")).unwrap();
    format!(
        "<script>window.open = function (url) {{ \
           const frame = document.createElement('iframe'); \
           frame.style.cssText = 'width: 1280px; height: 900px; border: 0'; \
           document.body.append(frame); window.__opened = frame; \
           const hash = new URL(url).hash; \
           fetch(url).then((r) => r.text()).then((html) => {{ frame.srcdoc = html.replace('<head>', \
             '<head><base href=\"' + {base} + '\"><script>location.hash = ' + JSON.stringify(hash) \
             + ';</' + 'script>'); }}); \
           return frame.contentWindow; }};</script>"
    )
}

#[wasm_bindgen_test]
async fn playground_a_long_scenario_runs_off_the_page_and_typing_goes_on_meanwhile() {
    let page = Playground::open("lang=en", 1280).await;
    let before = page.runs();
    let long = long_scenario("long-run", 5_000);
    page.set_text(&long);
    page.press_run();
    // Typed while the scenario runs: the text is in the editor before the run ends (on the
    // page's own thread, the run would have ended inside the key press, before this line).
    // Checked before anything else of the page can run: how far a worker gets in a frame
    // depends on the machine's load.
    let typed = format!("{long}# typed meanwhile\n");
    page.input_text(&typed);
    assert_eq!(page.editor_text(), typed);
    assert_eq!(page.runs(), before, "the run ended inside the key press");
    assert_eq!(page.run_state(), "running");
    assert!(
        text(&page.one("[data-status]")).starts_with("Running on the core"),
        "{}",
        text(&page.one("[data-status]"))
    );
    // And the page draws frames meanwhile.
    page.next_frame().await;
    assert_eq!(page.editor_text(), typed);
    assert!(
        page.one("[data-no-worker]").has_attribute("hidden"),
        "the page found no worker: {}",
        text(&page.one("[data-no-worker-why]"))
    );
    assert!(!page.one("[data-stop-run]").has_attribute("hidden"));
    // The long run ends, then the text typed meanwhile runs.
    assert!(
        eventually_within(120_000, || page.runs() >= before + 2).await,
        "{}",
        page.body_text()
    );
    assert_eq!(page.last_run(), (true, None));
    assert_eq!(page.selected_record().as_deref(), Some("long-run"));
    assert!(
        text(&page.one("[data-status]")).starts_with("Ran on the core: 10,000 steps"),
        "{}",
        text(&page.one("[data-status]"))
    );
    assert_eq!(page.run_state(), "idle");
    assert!(page.one("[data-stop-run]").has_attribute("hidden"));
    assert!(page.one("[data-no-worker]").has_attribute("hidden"));
}

#[wasm_bindgen_test]
async fn playground_stop_ends_a_long_run_and_the_page_goes_on() {
    let page = Playground::open("lang=ja", 1280).await;
    let first = page.editor_text();
    let before = page.runs();
    page.set_text(&long_scenario("long-run", 5_000));
    // Stopped as soon as it is asked for, before anything of the page can run in between: the
    // run is starting its worker or in it, never over (how far a worker gets in a frame depends
    // on the machine's load).
    page.press_run();
    assert_eq!(page.run_state(), "running");
    click(&page.one("[data-stop-run]"));
    assert_eq!(page.run_state(), "idle");
    assert!(page.one("[data-stop-run]").has_attribute("hidden"));
    let status = text(&page.one("[data-status]"));
    assert!(status.starts_with("終わる前に中止しました"), "{status}");
    assert!(page.disabled("[data-download=record]"));
    // Run at once after the stop: had the long run gone on, this one would wait behind it and
    // the long record would come first.
    let after = first.replacen("id = \"independent-claims\"", "id = \"after-stop\"", 1);
    assert_ne!(after, first);
    page.set_text(&after);
    page.run_now().await;
    assert_eq!(page.runs(), before + 1);
    assert_eq!(page.last_run(), (true, None));
    assert_eq!(page.selected_record().as_deref(), Some("after-stop"));
    assert_eq!(page.record_state(), "current");
    // And typing goes on running.
    let again = after.replacen("run = \"deploy-7\"", "run = \"deploy-8\"", 1);
    assert_ne!(again, after);
    assert_eq!(page.type_text(&again).await, (true, None));
}

#[wasm_bindgen_test]
async fn playground_edit_this_record_on_the_standalone_page_takes_any_record_shown() {
    let frame = site_page_frame("index.html", "lang=en", &open_in_a_frame(), 1280).await;
    let root = || {
        frame
            .content_document()
            .unwrap()
            .document_element()
            .unwrap()
    };
    let selected = || {
        let doc = frame.content_document()?;
        let panel = doc
            .query_selector("#viewer [role=tabpanel][data-selected-record]")
            .ok()??;
        attr(&panel, "data-selected-record")
    };
    assert!(eventually_within(30_000, || selected().is_some()).await);
    let link = one(&root(), "[data-edit-record]");
    let href = || {
        link.dispatch_event(&web_sys::Event::new("focus").unwrap())
            .unwrap();
        attr(&link, "href").unwrap()
    };
    // One of the site's records: a link to keep, by its id.
    let id = selected().unwrap();
    assert!(index().await.records.iter().any(|r| r.id.as_str() == id));
    // (Once the page has its viewer and has read the site's index.)
    let ours = format!("playground.html#lang=en&record={id}");
    assert!(eventually(|| href() == ours).await, "{}", href());

    // A record of the reader's own, opened by a drop: it is handed to a new playground tab.
    let mine = String::from_utf8(fetch_bytes("records/independent-claims.json").await)
        .unwrap()
        .replacen("\"id\": \"independent-claims\"", "\"id\": \"my-claims\"", 1);
    assert!(mine.contains("\"my-claims\""));
    drop_files(
        &one(&root(), "#viewer [data-lane-viewer]"),
        vec!["mine.json".into()],
        vec![mine.clone().into()],
    );
    assert!(eventually_within(10_000, || selected().as_deref() == Some("my-claims")).await);
    assert_eq!(href(), "playground.html#lang=en&from=opener");
    click(&link);
    let window = frame.content_window().unwrap();
    let opened = || {
        Reflect::get(&window, &"__opened".into())
            .ok()
            .filter(|f| f.is_object())
            .map(|f| f.unchecked_into::<web_sys::HtmlIFrameElement>())
    };
    assert!(
        eventually_within(10_000, || opened().is_some()).await,
        "a tab opened"
    );
    let tab = opened().unwrap();
    let shows_mine = || {
        tab.content_document()
            .and_then(|d| {
                d.query_selector("[role=tabpanel][data-selected-record]")
                    .ok()
                    .flatten()
            })
            .and_then(|p| attr(&p, "data-selected-record"))
            .as_deref()
            == Some("my-claims")
    };
    assert!(
        eventually_within(30_000, shows_mine).await,
        "the playground ran the record handed to it: {}",
        tab.content_document()
            .and_then(|d| d.body())
            .map(|b| b.inner_text())
            .unwrap_or_default()
    );
    let page = Playground::adopt(tab);
    assert!(page.editor_text().contains("id = \"my-claims\""));
    assert_eq!(page.record_state(), "current");
    // Edited as a scenario and run again, the record comes back byte for byte.
    let (name, bytes) = page.offered("[data-download=record]").await;
    assert_eq!(name, "my-claims.json");
    assert!(bytes == mine.as_bytes(), "the record came back different");
    // The tab's address now holds the scenario: reloaded once the page that opened it is
    // closed, it needs that page no more.
    let hash = Reflect::get(&page.window(), &"location".into())
        .and_then(|l| Reflect::get(&l, &"hash".into()))
        .unwrap()
        .as_string()
        .unwrap();
    assert!(hash.contains("scenario="), "{hash}");
    let edited = page.editor_text();
    drop(page);
    frame.remove();
    let reloaded = Playground::open(hash.trim_start_matches('#'), 1280).await;
    assert_eq!(reloaded.last_run(), (true, None));
    assert_eq!(reloaded.editor_text(), edited);
    assert_eq!(reloaded.selected_record().as_deref(), Some("my-claims"));
    drop(reloaded);

    // A tab at #from=opener whose opener never answers (here: the test's page) says so.
    let page = Playground::open("from=opener", 1280).await;
    let lead = text(&page.one("[data-error-lead]"));
    assert!(lead.ends_with("RECORD_UNAVAILABLE"), "{lead}");
    assert_eq!(page.runs(), 0);
}
