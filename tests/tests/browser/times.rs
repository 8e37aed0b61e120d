//! Records of running systems (version 2, exported from journals): each step's time in the
//! reader's time zone to the millisecond and its caller, the record saying it was recorded from
//! a running system, the timeline's switch between one column per step and a time axis (offered
//! only when steps have times), and replay that compares results, never times. The records are
//! `target/browser-site/fixtures/journal/`, written by xtask from real journals.

use lane_viewer_tests::*;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;
use web_sys::{Element, MouseEvent, MouseEventInit};

const INDEX: &str = "fixtures/journal/index.json";

async fn mount_journal(record: &str, lang: &str) -> Mounted {
    mount(&[("src", s(INDEX)), ("record", s(record)), ("lang", s(lang))]).await
}

/// The fixture's JSON, read apart from the viewer.
async fn json(id: &str) -> Value {
    serde_json::from_str(&fetch_text(&format!("fixtures/journal/{id}.json")).await).unwrap()
}

fn panel(root: &Element) -> Element {
    one(root, "[role=tabpanel]")
}

async fn verified(root: &Element) -> bool {
    eventually_within(10_000, || {
        attr(&panel(root), "data-verification").as_deref() == Some("verified")
    })
    .await
}

fn two(n: f64) -> String {
    format!("{:02}", n as u32)
}

/// `at` as the reader's clock reads it, written with the browser's own `Date` (not the
/// viewer's code): `2026-05-01 12:00:00.250 (UTC+09:00)` or `2026年5月1日 12:00:00.250（UTC+09:00）`.
fn local(at: &str, lang: &str) -> String {
    let date = js_sys::Date::new(&JsValue::from_str(at));
    let offset = -date.get_timezone_offset();
    let zone = if offset == 0.0 {
        "UTC".to_string()
    } else {
        let sign = if offset > 0.0 { '+' } else { '-' };
        let m = offset.abs();
        format!("UTC{sign}{}:{}", two((m / 60.0).floor()), two(m % 60.0))
    };
    let (y, mo, d) = (date.get_full_year(), date.get_month() + 1, date.get_date());
    let clock = format!(
        "{}:{}:{}.{:03}",
        two(date.get_hours().into()),
        two(date.get_minutes().into()),
        two(date.get_seconds().into()),
        date.get_milliseconds()
    );
    match lang {
        "ja" => format!("{y}年{mo}月{d}日 {clock}（{zone}）"),
        _ => format!("{y}-{}-{} {clock} ({zone})", two(mo.into()), two(d.into())),
    }
}

/// Clicks `x` px from the left edge of `element`, at its middle height.
fn click_x(element: &Element, x: f64) {
    let b = element.get_bounding_client_rect();
    let init = MouseEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_client_x((b.left() + x) as i32);
    init.set_client_y((b.top() + b.height() / 2.0) as i32);
    let event = MouseEvent::new_with_mouse_event_init_dict("click", &init).unwrap();
    element.dispatch_event(&event).unwrap();
}

fn number(element: &Element, name: &str) -> f64 {
    attr(element, name).unwrap().parse().unwrap()
}

/// The drawn segments as (row, state, from, to), on either axis.
fn segments(root: &Element) -> Vec<(String, String, String, String)> {
    all(root, "[data-timeline-row] [data-segment]")
        .iter()
        .map(|s| {
            let row = s.closest("[data-timeline-row]").unwrap().unwrap();
            let get = |e: &Element, n: &str| attr(e, n).unwrap();
            (
                get(&row, "data-timeline-row"),
                get(s, "data-state"),
                get(s, "data-from"),
                get(s, "data-to"),
            )
        })
        .collect()
}

#[wasm_bindgen_test]
async fn each_step_shows_its_time_in_the_readers_zone_to_the_millisecond_and_its_caller() {
    for id in ["shop-journal", "farm-window"] {
        let record = json(id).await;
        let steps = record["steps"].as_array().unwrap();
        for lang in ["en", "ja"] {
            let m = mount_journal(id, lang).await;
            let root = m.root();
            wasm_bindgen_futures::JsFuture::from(m.viewer.settled())
                .await
                .unwrap();
            for (n, step) in steps.iter().enumerate() {
                let card = one(&root, &format!("[data-step=\"{n}\"]"));
                let at = step["at"].as_str().unwrap();
                assert_eq!(attr(&card, "data-at").as_deref(), Some(at));
                let time = one(&card, "time.lv-time");
                assert_eq!(attr(&time, "datetime").as_deref(), Some(at));
                assert_eq!(text(&time), local(at, lang), "{id} step {n}");
                let actor = step["actor"].as_str();
                assert_eq!(attr(&card, "data-actor").as_deref(), actor);
                assert_eq!(
                    maybe(&card, ".lv-actor").map(|a| text(&a)).as_deref(),
                    actor
                );
                let when = text(&one(&card, ".lv-when"));
                let word = if lang == "ja" { "時刻" } else { "Time" };
                assert!(when.starts_with(word), "{when}");
                if actor.is_some() {
                    let word = if lang == "ja" {
                        "呼び出し元"
                    } else {
                        "Caller"
                    };
                    assert!(when.contains(word), "{when}");
                }
            }
        }
    }
}

#[wasm_bindgen_test]
async fn a_record_from_a_journal_says_it_was_recorded_from_a_running_system() {
    let record = json("farm-window").await;
    let since = record["origin"]["since"].as_str().unwrap();
    for (lang, says, window) in [
        (
            "en",
            "Recorded from a running system: build farm.".to_string(),
            format!("Transitions from {}.", local(since, "en")),
        ),
        (
            "ja",
            "稼働中のシステム「build farm」から記録したものです。".to_string(),
            format!("{}以降の遷移です。", local(since, "ja")),
        ),
    ] {
        let m = mount_journal("farm-window", lang).await;
        let root = m.root();
        assert_eq!(text(&one(&root, "[data-origin=journal]")), says);
        assert_eq!(text(&one(&root, "[data-origin-window]")), window);
        let zone = text(&one(&root, "[data-time-zone]"));
        let offset = attr(&one(&root, "[data-time-zone]"), "data-time-zone").unwrap();
        assert!(
            zone.contains(&offset) && offset.starts_with("UTC"),
            "{zone}"
        );
        // A window that starts with a lane held replays from that start, and is proven.
        assert!(verified(&root).await, "{lang}");
    }
}

#[wasm_bindgen_test]
async fn records_without_times_keep_one_column_per_step_and_no_switch() {
    for lang in ["en", "ja"] {
        let m = mount(&[("record", s("busy-project")), ("lang", s(lang))]).await;
        let root = m.root();
        assert!(maybe(&root, "[data-axis-choice]").is_none());
        assert!(maybe(&root, "[data-axis]").is_none());
        assert!(maybe(&root, "[data-time-tick]").is_none());
        for selector in [".lv-when", "[data-at]", "[data-origin]", "[data-time-zone]"] {
            assert!(maybe(&root, selector).is_none(), "{selector}");
        }
    }
}

#[wasm_bindgen_test]
async fn the_timeline_switches_to_a_time_axis_and_back_keeping_the_current_step() {
    let record = json("shop-journal").await;
    let times: Vec<f64> = record["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| js_sys::Date::parse(s["at"].as_str().unwrap()))
        .collect();
    for (lang, steps_word, time_word) in [
        ("en", "One column per step", "Time axis"),
        ("ja", "1 ステップ 1 列", "時間軸"),
    ] {
        let m = mount_journal("shop-journal", lang).await;
        let root = m.root();
        let section = || one(&root, ".lv-timeline");
        assert_eq!(attr(&section(), "data-axis").as_deref(), Some("steps"));
        let choice = |axis: &str| one(&root, &format!("[data-axis-choice={axis}]"));
        assert_eq!(text(&choice("steps")), steps_word);
        assert_eq!(text(&choice("time")), time_word);
        assert_eq!(
            attr(&choice("steps"), "aria-pressed").as_deref(),
            Some("true")
        );
        let on_steps = segments(&root);
        assert!(m.viewer.select_step(JsValue::from(3)));

        click(&choice("time"));
        assert_eq!(attr(&section(), "data-axis").as_deref(), Some("time"));
        assert_eq!(
            attr(&choice("time"), "aria-pressed").as_deref(),
            Some("true")
        );
        assert_eq!(
            attr(&choice("steps"), "aria-pressed").as_deref(),
            Some("false")
        );
        let focused_axis = focused().and_then(|f| attr(&f, "data-axis-choice"));
        assert_eq!(
            focused_axis.as_deref(),
            Some("time"),
            "focus stays on the switch"
        );
        let svg = one(&root, "[data-timeline]");
        assert_eq!(attr(&svg, "data-axis").as_deref(), Some("time"));
        assert!(!all(&root, "[data-time-tick]").is_empty());
        // The same segments, placed by time: a step's column is as wide as the time to the
        // next step.
        assert_eq!(segments(&root), on_steps);
        let (plot_x, plot_w) = (number(&svg, "data-plot-x"), number(&svg, "data-plot-w"));
        let span = times[times.len() - 1] - times[0];
        let end = span + (span / times.len() as f64).floor().max(1.0);
        let x = |n: usize| plot_x + (times[n] - times[0]) * plot_w / end;
        // The current step stays, and its marker is at its time.
        assert_eq!(attr(&root, "data-current-step").as_deref(), Some("3"));
        let marker = one(&root, "[data-current-marker]");
        let marker_x: f64 = attr(&marker, "x").unwrap().parse().unwrap();
        assert!((marker_x - x(3)).abs() < 0.5, "{marker_x} vs {}", x(3));
        // Step 2 (a dispatch, then 10 s of work) takes most of the drawing, and step 6 (a
        // refused cancel, then 2.4 s) most of the rest: a click in the middle of either's time
        // selects it, though with one column per step the first would land on step 4 and the
        // second on step 8.
        let scale = svg.get_bounding_client_rect().width() / 880.0;
        for n in [2, 6] {
            assert!(x(n + 1) - x(n) > 100.0, "step {n} is wide");
            click_x(&svg, (x(n) + x(n + 1)) / 2.0 * scale);
            assert_eq!(attr(&root, "data-current-step"), Some(n.to_string()));
        }

        // Another language keeps the axis; the way back draws one column per step again.
        let other = if lang == "en" { "ja" } else { "en" };
        m.viewer.set_lang(other);
        assert_eq!(attr(&section(), "data-axis").as_deref(), Some("time"));
        click(&choice("steps"));
        assert_eq!(attr(&section(), "data-axis").as_deref(), Some("steps"));
        assert!(attr(&one(&root, "[data-timeline]"), "data-axis").is_none());
        assert!(all(&root, "[data-time-tick]").is_empty());
        assert_eq!(segments(&root), on_steps);
        assert_eq!(attr(&root, "data-current-step").as_deref(), Some("6"));
    }
}

#[wasm_bindgen_test]
async fn replay_compares_results_never_times() {
    let mut record = json("shop-journal").await;
    // Every time moved a day later and the steps' order of times reversed: still the same
    // transitions with the same results.
    let steps = record["steps"].as_array_mut().unwrap();
    let count = steps.len();
    for (n, step) in steps.iter_mut().enumerate() {
        step["at"] = format!("2026-05-02T03:00:{:02}.{:03}Z", count - n, n).into();
    }
    record["id"] = "moved".into();
    let m = mount_journal("shop-journal", "en").await;
    let root = m.root();
    m.viewer
        .open_text("moved.json", serde_json::to_string(&record).unwrap());
    assert!(
        eventually(|| { attr(&panel(&root), "data-selected-record").as_deref() == Some("moved") })
            .await
    );
    assert!(verified(&root).await);
    let first = one(&root, "[data-step=\"0\"] time");
    assert_eq!(
        attr(&first, "datetime").as_deref(),
        Some(format!("2026-05-02T03:00:{count:02}.000Z").as_str())
    );
}

#[wasm_bindgen_test]
async fn a_record_without_an_untouched_project_says_nothing_of_one() {
    // A PostgreSQL export: version 2, no `untouched_project`.
    let json: Value =
        serde_json::from_str(&fetch_text("corpus/pg-journal-lanes.json").await).unwrap();
    assert!(json.get("untouched_project").is_none());
    for (lang, words) in [("en", "is untouched"), ("ja", "どのステップでも取得されず")]
    {
        let m = mount(&[
            ("src", s("corpus/pg-journal-lanes.json")),
            ("lang", s(lang)),
        ])
        .await;
        let root = m.root();
        wasm_bindgen_futures::JsFuture::from(m.viewer.settled())
            .await
            .unwrap();
        assert!(maybe(&root, "[data-untouched-project]").is_none(), "{lang}");
        assert!(maybe(&root, ".lv-untouched-note").is_none(), "{lang}");
        assert!(maybe(&root, ".lv-untouched").is_none(), "{lang}");
        assert!(!text(&root).contains(words), "{lang}: {}", text(&root));
    }
}

/// A PostgreSQL-like export: `first` refused claims at its first instant, views 10 ms apart,
/// and `last` refused claims at its last instant.
fn refusals_at_the_edges(id: &str, first: usize, middle: usize, last: usize) -> String {
    use project_lanes::record::{Origin, OriginKind, Recorder, Text, Timestamp};
    let text = |s: &str| Text {
        en: s.into(),
        ja: s.into(),
    };
    let mut rec = Recorder::new(id, text(id), text("t"), &["docs", "site"], "site")
        .unwrap()
        .without_untouched_project();
    rec.origin(Origin {
        kind: OriginKind::Journal,
        system: Some("pg".into()),
        since: None,
        until: None,
    });
    let at = |ms: u64| Timestamp::from_millis(1_777_604_400_000 + ms).unwrap();
    for _ in 0..first {
        rec.claim("docs", "not a label").at(at(0)).actor("w");
    }
    for n in 0..middle {
        rec.view("docs").at(at(10 * (n as u64 + 1))).actor("w");
    }
    for _ in 0..last {
        rec.claim("docs", "not a label")
            .at(at(10 * (middle as u64 + 1)))
            .actor("w");
    }
    serde_json::to_string(&rec.finish().unwrap()).unwrap()
}

#[wasm_bindgen_test]
async fn refusals_at_a_records_first_and_last_instant_are_drawn_whole_inside_the_plot() {
    let m = mount_journal("shop-journal", "en").await;
    let root = m.root();
    for (id, first, middle, last) in [
        ("alone", 1, 20, 1),
        ("counted", 30, 20, 30),
        ("narrow", 1, 2_000, 1),
    ] {
        m.viewer.open_text(
            &format!("{id}.json"),
            refusals_at_the_edges(id, first, middle, last),
        );
        assert!(
            eventually(|| attr(&panel(&root), "data-selected-record").as_deref() == Some(id)).await
        );
        for axis in ["steps", "time"] {
            click(&one(&root, &format!("[data-axis-choice={axis}]")));
            let svg = one(&root, "[data-timeline]");
            let left = number(&svg, "data-plot-x");
            let right = left + number(&svg, "data-plot-w");
            let marks = all(&svg, ".lv-tl-refused > path, .lv-tl-refused > rect");
            assert!(marks.len() >= 2, "{id}");
            for mark in marks {
                let b = mark
                    .unchecked_ref::<web_sys::SvgGraphicsElement>()
                    .get_b_box()
                    .unwrap();
                let (x, w) = (f64::from(b.x()), f64::from(b.width()));
                assert!(
                    left <= x + 0.01 && x + w <= right + 0.01,
                    "{id} on {axis}: {} spans {}..{}, the plot {left}..{right}",
                    mark.get_attribute("class").unwrap_or_default(),
                    x,
                    x + w
                );
            }
        }
    }
}

/// The steps whose times stand out, worked out here from the JSON alone: earlier than the step
/// before, or outside `origin.since` (inclusive) .. `origin.until` (exclusive). Times are saved
/// in one spelling (UTC, milliseconds), so their text orders as they do.
fn standing_out(record: &Value) -> Vec<(usize, &'static str)> {
    let since = record["origin"]["since"].as_str();
    let until = record["origin"]["until"].as_str();
    let steps = record["steps"].as_array().unwrap();
    let mut out = Vec::new();
    for (n, step) in steps.iter().enumerate() {
        let at = step["at"].as_str().unwrap();
        let earlier = n > 0 && at < steps[n - 1]["at"].as_str().unwrap();
        let outside = since.is_some_and(|s| at < s) || until.is_some_and(|u| at >= u);
        match (earlier, outside) {
            (true, true) => out.push((n, "earlier outside")),
            (true, false) => out.push((n, "earlier")),
            (false, true) => out.push((n, "outside")),
            _ => {}
        }
    }
    out
}

#[wasm_bindgen_test]
async fn edited_times_and_callers_replay_but_are_shown_as_recorded_unchecked_and_marked() {
    let good = json("farm-window").await;
    let since = good["origin"]["since"].as_str().unwrap().to_string();
    let count = good["steps"].as_array().unwrap().len();
    let mut cases: Vec<(&str, Value)> = Vec::new();
    // Every time moved a day back: all before the window's start.
    let mut moved = good.clone();
    for step in moved["steps"].as_array_mut().unwrap() {
        let at = step["at"]
            .as_str()
            .unwrap()
            .replacen("2026-05-01", "2026-04-30", 1);
        step["at"] = at.into();
    }
    cases.push(("moved", moved));
    // One step's time set to 2001: earlier than the step before, and outside.
    let mut in_2001 = good.clone();
    in_2001["steps"][2]["at"] = "2001-01-01T00:00:00.000Z".into();
    cases.push(("in-2001", in_2001));
    // Every caller "mallory", and the window ends before the last two steps.
    let mut mallory = good.clone();
    for step in mallory["steps"].as_array_mut().unwrap() {
        step["actor"] = "mallory".into();
    }
    let until = mallory["steps"][count - 2]["at"].clone();
    mallory["origin"]["until"] = until;
    cases.push(("mallory", mallory));
    // A step a millisecond before the one before (callers running at the same time).
    let mut concurrent = good.clone();
    let before = concurrent["steps"][2]["at"].as_str().unwrap().to_string();
    let earlier = format!("{}{}Z", &before[..20], {
        let ms: u32 = before[20..23].parse().unwrap();
        format!("{:03}", ms - 1)
    });
    concurrent["steps"][3]["at"] = earlier.into();
    cases.push(("concurrent", concurrent));
    assert!(since.as_str() <= good["steps"][0]["at"].as_str().unwrap());

    for lang in ["en", "ja"] {
        let m = mount_journal("farm-window", lang).await;
        let root = m.root();
        for (id, record) in &cases {
            let mut record = record.clone();
            record["id"] = (*id).into();
            m.viewer.open_text(
                &format!("{id}.json"),
                serde_json::to_string(&record).unwrap(),
            );
            assert!(
                eventually(|| attr(&panel(&root), "data-selected-record").as_deref() == Some(id))
                    .await
            );
            // Replay compares results and states, never times or callers: verified...
            assert!(verified(&root).await, "{id}");
            wasm_bindgen_futures::JsFuture::from(m.viewer.settled())
                .await
                .unwrap();
            // ...and the panel says what it did not check.
            let unchecked = text(&one(&root, "[data-unchecked]"));
            // The fixture's lanes journal names no callers: "mallory" brings them.
            let callers = record["steps"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s.get("actor").is_some());
            let says = match (lang, callers) {
                ("ja", true) => {
                    "時刻、呼び出し元、記録の期間は記録のまま表示しており、確かめていません。"
                }
                ("ja", false) => "時刻、記録の期間は記録のまま表示しており、確かめていません。",
                (_, true) => "Shown as recorded, not checked: times, callers, the window.",
                (_, false) => "Shown as recorded, not checked: times, the window.",
            };
            assert!(unchecked.ends_with(says), "{id} {lang}: {unchecked}");
            // The steps whose times stand out are marked, and only those.
            let expected = standing_out(&record);
            assert!(!expected.is_empty(), "{id}");
            let marked: Vec<(usize, String)> = all(&root, "[data-step][data-time-mark]")
                .iter()
                .map(|c| {
                    let n = attr(c, "data-step").unwrap().parse().unwrap();
                    (n, attr(c, "data-time-mark").unwrap())
                })
                .collect();
            let expected_marks: Vec<(usize, String)> =
                expected.iter().map(|(n, m)| (*n, m.to_string())).collect();
            assert_eq!(marked, expected_marks, "{id} {lang}");
            for (n, mark) in &expected {
                let words = text(&one(&root, &format!("[data-step=\"{n}\"] .lv-time-mark")));
                let earlier = match lang {
                    "ja" => format!("ステップ {n} より前の時刻"),
                    _ => format!("earlier than step {n}"),
                };
                let outside = match lang {
                    "ja" => "記録の期間の外",
                    _ => "outside the record's window",
                };
                assert_eq!(
                    words.contains(&earlier),
                    mark.contains("earlier"),
                    "{words}"
                );
                assert_eq!(words.contains(outside), mark.contains("outside"), "{words}");
            }
            let summary = one(&root, "[data-time-marks]");
            assert_eq!(
                attr(&summary, "data-time-marks"),
                Some(expected.len().to_string())
            );
            let first = expected[0].0 + 1;
            let step = match lang {
                "ja" => format!("ステップ {first}"),
                _ => format!("Step {first}"),
            };
            assert!(text(&summary).contains(&step), "{}", text(&summary));
            // Out of order by a millisecond is said to be no error.
            let no_error = match lang {
                "ja" => "1 ミリ秒ほど前後することがあります",
                _ => "a millisecond or so out of order",
            };
            let earlier = expected.iter().any(|(_, m)| m.contains("earlier"));
            assert_eq!(text(&summary).contains(no_error), earlier, "{id} {lang}");
        }
    }
}
