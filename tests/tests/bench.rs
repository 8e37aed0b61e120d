//! Browser benchmarks (`cargo xtask bench`): medians in headless Chromium, printed as
//! `BENCH <name>: …` lines that xtask collects.
//!
//! - mount → the first record on screen (the index and that record's file fetched, hashed,
//!   parsed, rendered), and → `mount` resolved (every record arrived), after the wasm is
//!   instantiated;
//! - switching records (select + forced layout; the select alone; and the DOM changes a switch
//!   makes, counted, which the machine's load does not move);
//! - rendering large synthetic records (1,000 to 10,000 steps), to see the cost grow linearly:
//!   the first steps shown and all steps in the DOM, on mount and on a re-render;
//! - replaying records on the core in the browser (the 10,000-step record, the bundled ones);
//! - opening a 10,000-step file to its first steps on screen.
//! - the timeline: drawing the 10,000-step record's timeline alone (segments, SVG,
//!   layout; target ≤ 50 ms median), and switching between all bundled records, each with its
//!   timeline (target ≤ 2 ms median);
//! - the wasm memory after opening a 10,000-step and a 100,000-step record (run it alone:
//!   `cargo xtask bench memory`);
//! - the last chaos run's whole journal (`target/chaos/chaos.jsonl`, from `cargo xtask chaos`)
//!   streamed in and verified: the time and the wasm memory;
//! - a busy farm's journal of 100,000 and 1,000,000 steps over 1,000 projects (the largest
//!   also chained, failing at step 900,000, and with every run label distinct): its overview
//!   drawn and verified, jumps to a step, to the next step and to the next match, switches to
//!   and from a small record, memory and elements (issue 53's targets at 1,000,000 steps:
//!   overview ≤ 1 s, verified ≤ 2.5 s, ≤ 100 bytes a step);
//! - two 100,000-step records compared on the core in the browser (`record::diff`), and the
//!   comparison's section built.

#![cfg(target_arch = "wasm32")]

use lane_viewer_tests::*;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const STEPS: [usize; 4] = [1_000, 2_500, 5_000, 10_000];

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[samples.len() / 2]
}

fn layout(root: &web_sys::Element) {
    // Reading geometry forces style and layout, so the cost of the new DOM is counted.
    let _ = root.get_bounding_client_rect().height();
}

fn report(name: &str, samples: Vec<f64>) {
    let n = samples.len();
    let (min, max) = samples
        .iter()
        .fold((f64::MAX, 0.0f64), |(lo, hi), &x| (lo.min(x), hi.max(x)));
    console_log!(
        "BENCH {name}: median {:.2} ms (min {min:.2}, max {max:.2}, n={n})",
        median(samples)
    );
}

#[wasm_bindgen_test]
async fn mount_to_first_render() {
    // One warm-up so the wasm's first-use costs are not counted against a real page twice.
    drop(mount(&[]).await);
    let mut samples = Vec::new();
    for _ in 0..21 {
        let start = now();
        let m = mount(&[("lang", s("en"))]).await;
        layout(&m.root());
        samples.push(now() - start);
        assert!(maybe(&m.root(), "[data-step]").is_some());
    }
    report(
        "mount_resolved (all 8 records fetched, hashed, parsed; the first rendered)",
        samples,
    );
}

/// Mount until the first record's steps are in the page (a `MutationObserver` notes the moment),
/// which is before `mount` resolves: the other records are still arriving then.
#[wasm_bindgen_test]
async fn mount_to_first_record_on_screen() {
    use std::cell::Cell;
    use std::rc::Rc;
    drop(mount(&[]).await);
    let mut samples = Vec::new();
    for _ in 0..21 {
        let host = host();
        let seen = Rc::new(Cell::new(None));
        let start = now();
        let watching = {
            let (watched, seen) = (host.clone(), seen.clone());
            watch(&host, move || {
                if seen.get().is_none() && maybe(&watched, "[data-step]").is_some() {
                    layout(&watched);
                    seen.set(Some(now() - start));
                }
            })
        };
        let viewer = lane_viewer::mount(host.clone(), options(&[("lang", s("en"))]))
            .await
            .unwrap();
        drop(watching);
        samples.push(seen.get().expect("the first record was shown"));
        viewer.destroy();
        host.remove();
    }
    report(
        "mount_to_first_record_on_screen (index + the selected record's file, hash, parse, render)",
        samples,
    );
}

#[wasm_bindgen_test]
async fn switch_records() {
    let m = mount(&[("lang", s("en"))]).await;
    let ids = [
        "busy-project",
        "stale-release",
        "explicit-outcome",
        "stop-keeps-occupancy",
    ];
    let (mut samples, mut selects) = (Vec::new(), Vec::new());
    for i in 0..200 {
        let start = now();
        assert!(m.viewer.select(ids[i % ids.len()]));
        selects.push(now() - start);
        layout(&m.root());
        samples.push(now() - start);
    }
    report("switch_record (select + layout)", samples);
    report("switch_record: select alone (the DOM)", selects);
    // The work, not the time (the machine's load moves the times): what a switch changes in
    // the page, counted by a MutationObserver after the timed loop (observing slows the DOM).
    let counted = 40;
    let counts = mutations_per_switch(&m, || {
        for i in 0..counted {
            assert!(m.viewer.select(ids[i % ids.len()]));
            layout(&m.root());
        }
    });
    let per = |n: u32| f64::from(n) / counted as f64;
    console_log!(
        "BENCH switch_record: DOM changes per switch (kept panels): {:.1} \
         ({:.1} attributes, {:.1} child lists adding {:.1} and removing {:.1} nodes, \
         {:.1} texts)",
        per(counts[0] + counts[1] + counts[4]),
        per(counts[0]),
        per(counts[1]),
        per(counts[2]),
        per(counts[3]),
        per(counts[4]),
    );
}

/// What `run` changes below the viewer, by kind: attribute changes, child-list changes, the
/// nodes those add and remove, text changes.
fn mutations_per_switch(m: &Mounted, run: impl FnOnce()) -> [u32; 5] {
    use js_sys::Reflect;
    use wasm_bindgen::JsCast;
    let get = |v: &wasm_bindgen::JsValue, key: &str| Reflect::get(v, &s(key)).unwrap();
    let length = |v: &wasm_bindgen::JsValue, key: &str| {
        get(&get(v, key), "length").as_f64().unwrap_or(0.0) as u32
    };
    let ignore = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(|| {});
    let observer = web_sys::MutationObserver::new(ignore.as_ref().unchecked_ref()).unwrap();
    let init = web_sys::MutationObserverInit::new();
    init.set_child_list(true);
    init.set_subtree(true);
    init.set_attributes(true);
    init.set_character_data(true);
    observer.observe_with_options(&m.host, &init).unwrap();
    run();
    let mut counts = [0; 5];
    for record in observer.take_records().iter() {
        match get(&record, "type").as_string().as_deref() {
            Some("attributes") => counts[0] += 1,
            Some("childList") => {
                counts[1] += 1;
                counts[2] += length(&record, "addedNodes");
                counts[3] += length(&record, "removedNodes");
            }
            _ => counts[4] += 1,
        }
    }
    observer.disconnect();
    counts
}

async fn settle(m: &Mounted) {
    wasm_bindgen_futures::JsFuture::from(m.viewer.settled())
        .await
        .unwrap();
}

#[wasm_bindgen_test]
async fn large_records() {
    for steps in STEPS {
        let src = format!("bench/{steps}/index.json");
        let mut first = Vec::new();
        let mut complete = Vec::new();
        let mut rerender = Vec::new();
        let mut rerender_complete = Vec::new();
        for _ in 0..7 {
            let start = now();
            let m = mount(&[("src", s(&src)), ("lang", s("en"))]).await;
            layout(&m.root());
            first.push(now() - start);
            settle(&m).await;
            layout(&m.root());
            complete.push(now() - start);
            assert_eq!(all(&m.root(), "[data-step]").len(), steps);
            let start = now();
            assert!(m.viewer.set_lang("ja"));
            layout(&m.root());
            rerender.push(now() - start);
            settle(&m).await;
            layout(&m.root());
            rerender_complete.push(now() - start);
        }
        report(
            &format!("large_{steps}: mount to first steps shown (fetch+hash+parse+render)"),
            first,
        );
        report(
            &format!("large_{steps}: mount to all steps in the DOM"),
            complete,
        );
        report(
            &format!("large_{steps}: re-render (language switch) to first steps shown"),
            rerender,
        );
        report(
            &format!("large_{steps}: re-render to all steps in the DOM"),
            rerender_complete,
        );
    }
}

#[wasm_bindgen_test]
async fn switch_all_bundled_records_with_timelines() {
    let ids = record_ids().await;
    let m = mount(&[("lang", s("en"))]).await;
    let (mut samples, mut selects) = (Vec::new(), Vec::new());
    for i in 0..400 {
        // Every selection changes the record (the first is selected at mount).
        let id = &ids[(i + 1) % ids.len()];
        let start = now();
        assert!(m.viewer.select(id));
        selects.push(now() - start);
        layout(&m.root());
        samples.push(now() - start);
    }
    report(
        "switch_record_with_timeline: select alone (the DOM)",
        selects,
    );
    assert!(maybe(&m.root(), "[data-timeline] [data-segment]").is_some());
    report(
        &format!(
            "switch_record_with_timeline (all {} bundled records, select + layout)",
            ids.len()
        ),
        samples,
    );
}

#[wasm_bindgen_test]
async fn timeline_of_the_10000_step_record() {
    // A mount first, so the stylesheet is on the page: layout is part of the cost.
    drop(mount(&[]).await);
    let raw = fetch_text("bench/10000/large-10000.json").await;
    let record: project_lanes::record::Record = serde_json::from_str(&raw).unwrap();
    let doc = document();
    let host = doc.create_element("div").unwrap();
    host.set_class_name("lane-viewer");
    doc.body().unwrap().append_child(&host).unwrap();
    let mut samples = Vec::new();
    let mut segments = 0;
    for _ in 0..21 {
        let start = now();
        let section =
            lane_viewer::timeline::section(&doc, lane_viewer::i18n::Lang::En, &record, "bench");
        host.append_child(&section).unwrap();
        layout(&host);
        samples.push(now() - start);
        segments = all(&host, "[data-segment]").len();
        host.set_text_content(None);
    }
    host.remove();
    report(
        &format!("timeline_10000: draw ({segments} segments; compute + SVG + layout)"),
        samples,
    );
}

/// The core's check and replay in this browser (parse excluded), for the 10,000-step
/// record and for the bundled records together.
#[wasm_bindgen_test]
async fn replay_in_the_browser() {
    use project_lanes::record::{Record, replay};
    let large: Record =
        serde_json::from_str(&fetch_text("bench/10000/large-10000.json").await).unwrap();
    let mut samples = Vec::new();
    for _ in 0..21 {
        let start = now();
        assert_eq!(replay(&large), Ok(()));
        samples.push(now() - start);
    }
    report(
        "verify_10000_steps (check + replay, parse excluded)",
        samples,
    );

    let mut bundled = Vec::new();
    for entry in index().await.records {
        bundled.push(record(entry.id.as_str()).await);
    }
    let mut samples = Vec::new();
    for _ in 0..51 {
        let start = now();
        for record in &bundled {
            assert_eq!(replay(record), Ok(()));
        }
        samples.push(now() - start);
    }
    report(
        &format!("verify_bundled ({} records together)", bundled.len()),
        samples,
    );
}

/// Opening a 10,000-step file (open_text: parse, check, the first replay chunk and the
/// first steps built) until its first steps are laid out.
#[wasm_bindgen_test]
async fn open_a_10000_step_file() {
    let text = fetch_text("bench/10000/large-10000.json").await;
    let mut samples = Vec::new();
    for _ in 0..9 {
        let m = mount(&[("lang", s("en"))]).await;
        let start = now();
        m.viewer.open_text("large-10000.json", text.clone());
        layout(&m.root());
        samples.push(now() - start);
        assert_eq!(m.viewer.selected().as_deref(), Some("large-10000"));
        assert!(maybe(&m.root(), "[data-step]").is_some());
    }
    report("open_10000_step_file (to first steps on screen)", samples);
}

/// The wasm module's memory, in MB. WebAssembly memory only grows: its size is the peak so far.
fn wasm_memory_mb() -> f64 {
    let memory: js_sys::WebAssembly::Memory = wasm_bindgen::memory().into();
    let buffer: js_sys::ArrayBuffer = memory.buffer().into();
    f64::from(buffer.byte_length()) / (1024.0 * 1024.0)
}

/// Opens the record and waits until it is verified and every step is in the page.
async fn open_whole(m: &Mounted, id: &str, text: String) {
    m.viewer.open_text(&format!("{id}.json"), text);
    let root = m.root();
    let panel = one(&root, "[role=tabpanel]");
    assert!(
        eventually_within(120_000, || attr(&panel, "data-verification").as_deref()
            == Some("verified"))
        .await
    );
    settle(m).await;
}

/// Peak wasm memory for opening a 10,000-step record and then a 100,000-step one (run alone:
/// `cargo xtask bench memory`, so no other benchmark has grown the memory first).
#[wasm_bindgen_test]
async fn memory_of_large_records() {
    let at_start = wasm_memory_mb();
    let m = mount(&[("lang", s("en"))]).await;
    let mounted = wasm_memory_mb();
    let large = fetch_text("bench/10000/large-10000.json").await;
    open_whole(&m, "large-10000", large).await;
    let after_10k = wasm_memory_mb();
    open_whole(&m, "views-100000", views_record("views-100000", 100_000)).await;
    let after_100k = wasm_memory_mb();
    drop(m);
    let m = mount(&[("lang", s("en"))]).await;
    open_whole(&m, "again-100000", views_record("again-100000", 100_000)).await;
    let again = wasm_memory_mb();
    console_log!(
        "BENCH memory (wasm, MB; it only grows): {at_start:.1} at start, {mounted:.1} mounted, \
         {after_10k:.1} after a 10,000-step record (bench/10000), {after_100k:.1} after a \
         100,000-step record (15 MB of JSON), {again:.1} after destroying that viewer and \
         opening another 100,000-step record in a new one"
    );
}

/// The last chaos run's whole journal (`cargo xtask chaos`, then `cargo xtask bench chaos`),
/// streamed from the server: the time until it is verified by replay, and the wasm memory then.
#[wasm_bindgen_test]
async fn open_the_last_chaos_run() {
    use wasm_bindgen::JsCast;
    let response: web_sys::Response = wasm_bindgen_futures::JsFuture::from(
        web_sys::window()
            .unwrap()
            .fetch_with_str(&site("bench/chaos/chaos.jsonl")),
    )
    .await
    .unwrap()
    .unchecked_into();
    if !response.ok() {
        console_log!("BENCH chaos: no record of a chaos run (run cargo xtask chaos first)");
        return;
    }
    let before = wasm_memory_mb();
    let start = now();
    let m = mount(&[("src", s("bench/chaos/chaos.jsonl")), ("lang", s("en"))]).await;
    let root = m.root();
    let panel = one(&root, "[role=tabpanel]");
    assert!(
        eventually_within(300_000, || attr(&panel, "data-verification").as_deref()
            == Some("verified"))
        .await,
        "{}",
        text(&root)
    );
    let verified = now() - start;
    console_log!(
        "BENCH chaos: the last chaos run verified {verified:.0} ms after mount; \
         wasm memory {before:.1} MB before, {:.1} MB after",
        wasm_memory_mb()
    );
}

/// The JavaScript heap in use, in MB, where the engine says (Chromium's `performance.memory`).
fn js_heap_mb() -> Option<f64> {
    let performance = js_sys::Reflect::get(&window(), &"performance".into()).ok()?;
    let memory = js_sys::Reflect::get(&performance, &"memory".into()).ok()?;
    let used = js_sys::Reflect::get(&memory, &"usedJSHeapSize".into()).ok()?;
    Some(used.as_f64()? / (1024.0 * 1024.0))
}

/// A busy farm's whole journal (`bench/farm/`, 1,000 projects; `xtask/src/farm.rs`) of
/// 100,000 and 1,000,000 steps, and the largest again with its hash chain, with a claim near step
/// 900,000 answered otherwise, and with no run label named twice, streamed from `src`: the time
/// until its overview is drawn and until it is verified (or the failing step shown), a jump to
/// a step far away, to the next step and to the next match, a switch to a small record and
/// back (select + layout each), the wasm memory (its peak) and the JavaScript heap, and the
/// elements in the viewer.
#[wasm_bindgen_test]
async fn open_a_busy_farm() {
    const M: usize = 1_000_000;
    for (id, steps) in [
        ("farm-100000", 100_000usize),
        ("farm-1000000", M),
        ("farm-1000000-chained", M),
        ("farm-1000000-mismatch", M),
        ("farm-1000000-distinct", M),
    ] {
        let host = host();
        let start = now();
        let opened = std::rc::Rc::new(std::cell::RefCell::new(None));
        wasm_bindgen_futures::spawn_local({
            let (host, opened, src) = (
                host.clone(),
                opened.clone(),
                format!("bench/farm/{id}.jsonl"),
            );
            async move {
                let options = [
                    ("src", s(&src)),
                    ("lang", s("en")),
                    ("maxBytes", (512.0 * 1024.0 * 1024.0).into()),
                ];
                *opened.borrow_mut() = Some(try_mount(&host, &options).await);
            }
        });
        // The overview of the steps read so far, drawn while the rest is read and verified.
        assert!(
            eventually_within(300_000, || maybe(&host, "[data-overview], [data-timeline]")
                .is_some())
            .await,
            "{}",
            text(&host).chars().take(400).collect::<String>()
        );
        let drawn = now() - start;
        let read_then = maybe(&host, "[data-overview]")
            .and_then(|o| attr(&o, "data-steps-read"))
            .unwrap_or_else(|| "all".into());
        assert!(eventually_within(300_000, || opened.borrow().is_some()).await);
        let viewer = opened.borrow_mut().take().unwrap().unwrap();
        let root = one(&host, "[data-lane-viewer]");
        let panel = one(&root, "[role=tabpanel]");
        let failing = id.ends_with("mismatch");
        let expected = if failing { "mismatch" } else { "verified" };
        assert!(
            eventually_within(300_000, || attr(&panel, "data-verification").as_deref()
                == Some(expected))
            .await
        );
        let verified = now() - start;
        let verdict = wasm_bindgen_futures::JsFuture::from(viewer.verdict(None))
            .await
            .unwrap();
        let failed_at = js_sys::Reflect::get(&verdict, &s("step")).unwrap().as_f64();
        if failing {
            // The misanswered claim is the first refused one at or after step 900,000.
            let step = failed_at.unwrap() as usize;
            assert!((900_000..901_000).contains(&step), "{step}");
            let line = one(&root, "[data-verification-line]");
            assert_eq!(
                attr(&one(&line, "[data-goto-step]"), "data-goto-step"),
                Some(step.to_string())
            );
        }
        // Far apart: a different window of step cards and of rows each time.
        let jump_through = || {
            let mut samples = Vec::new();
            for i in 0..21 {
                let n = (i * steps / 21 + i * 977) % steps;
                let start = now();
                assert!(viewer.select_step((n as f64).into()));
                layout(&root);
                samples.push(now() - start);
                assert_eq!(viewer.current_step(), Some(n as u32));
            }
            samples
        };
        let jumps = jump_through();
        // The next step, 21 times: what selecting a step costs where its card is in view.
        let mut selects = Vec::new();
        for _ in 0..21 {
            let n = viewer.current_step().unwrap() + 1;
            let start = now();
            assert!(viewer.select_step(n.into()));
            layout(&root);
            selects.push(now() - start);
        }
        // The same jumps with the timeline zoomed in to ten steps: what the list of step
        // cards and the step bar cost alone.
        for _ in 0..12 {
            click(&one(&root, "[data-zoom=in]"));
        }
        let zoomed = jump_through();
        click(&one(&root, "[data-zoom=whole]"));
        type_query(&root, "is:recovery");
        let matches = attr(&one(&root, "[data-find-status]"), "data-find-count").unwrap();
        let mut next = Vec::new();
        for _ in 0..21 {
            let before = viewer.current_step();
            let start = now();
            click(&one(&root, "[data-find-next]"));
            layout(&root);
            next.push(now() - start);
            assert_ne!(viewer.current_step(), before);
        }
        let elements = all(&root, "*").len();
        // A small record beside it, then back and forth: the large record's panel is kept.
        let farm = viewer.selected().unwrap();
        viewer.open_text("tiny.jsonl", TINY.to_owned());
        assert!(eventually(|| viewer.selected().as_deref() == Some("tiny")).await);
        let (mut to_large, mut to_small) = (Vec::new(), Vec::new());
        for _ in 0..21 {
            for (id, samples) in [(farm.as_str(), &mut to_large), ("tiny", &mut to_small)] {
                let start = now();
                assert!(viewer.select(id));
                layout(&root);
                samples.push(now() - start);
            }
        }
        let heap = js_heap_mb().map_or("not reported".into(), |mb| format!("{mb:.0} MB"));
        let memory = wasm_memory_mb();
        let ended = match failed_at {
            Some(step) if failing => format!("the mismatch at step {step} shown"),
            _ => "verified".to_owned(),
        };
        console_log!(
            "BENCH {id}: first overview {drawn:.0} ms ({read_then} steps read), {ended} \
             {verified:.0} ms after mount; wasm memory {memory:.0} MB (its peak so far, {:.0} bytes a step), JS heap \
             {heap}; {elements} elements in the viewer; {matches} recoveries",
            memory * 1024.0 * 1024.0 / steps as f64
        );
        report(
            &format!("{id}: jump to a step far away (select + layout)"),
            jumps,
        );
        report(
            &format!("{id}: select the next step (select + layout)"),
            selects,
        );
        report(
            &format!("{id}: the same jumps, the timeline zoomed in to ten steps"),
            zoomed,
        );
        report(
            &format!("{id}: next match (is:recovery; click + layout)"),
            next,
        );
        report(
            &format!("{id}: switch to it from a small record (select + layout)"),
            to_large,
        );
        report(
            &format!("{id}: switch to a small record (select + layout)"),
            to_small,
        );
        viewer.destroy();
        host.remove();
    }
}

/// The busy farm's 1,000,000 steps sent without a length (`/__chunked/`, chunked): the viewer
/// cannot size its list of steps from the file, which then grows by doubling. The wasm memory
/// it takes is what the viewer's step budget counts (`STEP_BYTES`). Its own name, so that it
/// runs alone in its page (`cargo xtask bench a_farm_sent_without_its_length`): the memory is
/// the page's peak.
#[wasm_bindgen_test]
async fn a_farm_sent_without_its_length() {
    const STEPS: f64 = 1_000_000.0;
    let start = now();
    let m = mount(&[
        ("src", s("__chunked/bench/farm/farm-1000000.jsonl")),
        ("lang", s("en")),
        ("maxBytes", (512.0 * 1024.0 * 1024.0).into()),
    ])
    .await;
    let panel = one(&m.root(), "[role=tabpanel]");
    assert!(
        eventually_within(600_000, || attr(&panel, "data-verification").as_deref()
            == Some("verified"))
        .await
    );
    let memory = wasm_memory_mb();
    console_log!(
        "BENCH farm-1000000 sent without its length: verified {:.0} ms after mount; wasm memory \
         {memory:.0} MB ({:.0} bytes a step)",
        now() - start,
        memory * 1024.0 * 1024.0 / STEPS
    );
}

/// A version 3 record of one step.
const TINY: &str = concat!(
    r#"{"format":"project-lanes/record","version":3,"id":"tiny","#,
    r#""title":{"en":"Tiny","ja":"小さな記録"},"summary":{"en":"One claim.","ja":"取得が一つ。"},"#,
    r#""work_executed_here":false}"#,
    "\n",
    r#"{"op":"claim","project":"docs","run":"nightly-7","result":"ok"}"#,
    "\n",
    r#"{"end":{"steps":1}}"#,
    "\n",
);

/// Comparing two 100,000-step version 3 records on the core in the browser (three changes: an
/// outcome, a run taken out, a run's release answered otherwise), and the comparison's section
/// built as operations once compared.
#[wasm_bindgen_test]
async fn compare_two_100000_step_records() {
    use project_lanes::record::diff::{Options, compare};
    use project_lanes::record::stream::{Gather, Reader};
    use project_lanes_view::i18n::Lang;
    use project_lanes_view::tree::{ROOT, Tree};
    let text = runs_record("a", 50_000);
    let mut gather = Gather::new();
    let mut reader = Reader::new();
    reader
        .feed(text.as_bytes(), &mut |s| gather.seen(s))
        .unwrap();
    reader.finish(&mut |s| gather.seen(s)).unwrap();
    let a = gather.record();
    assert_eq!(a.steps.len(), 100_000);
    let mut b = a.clone();
    b.steps[20_001].input.outcome = Some("failed".into());
    b.steps.drain(60_000..60_002);
    b.steps[80_001].result = b.steps[80_000].result.clone();
    let mut samples = Vec::new();
    let mut diff = None;
    for _ in 0..11 {
        let start = now();
        diff = Some(compare(&a, &b, &Options::default()));
        samples.push(now() - start);
    }
    let diff = diff.unwrap();
    assert!(
        !diff.approximate && diff.steps.len() == 3,
        "{:?}",
        diff.steps
    );
    report(
        "compare_100000_steps (two version 3 records, three changes; read excluded)",
        samples,
    );
    let mut samples = Vec::new();
    for _ in 0..21 {
        let start = now();
        let mut t = Tree::new();
        let sides = [("a", "A"), ("b", "B")];
        let read = Ok((&diff, [&a, &b]));
        project_lanes_view::compare::section(&mut t, ROOT, Lang::En, sides, read, Some(0));
        samples.push(now() - start);
        assert!(!t.is_empty());
    }
    report(
        "compare_100000_steps: the comparison's section built",
        samples,
    );
}

/// The playground after a keystroke in a scenario of 1,000 operations (500 claims and their
/// releases over three projects): the scenario run on the core (`lane-records`' runner in the
/// playground's module) and the viewer mounted with the new record until settled, as the page
/// times them (`playground-ran`), without the quarter second of quiet the page waits for (by
/// then the browser has drawn the keystroke in the editor, so the bench lets a frame pass too).
#[wasm_bindgen_test]
async fn playground_keystroke_in_1000_operations() {
    use lane_viewer_tests::playground::Playground;
    let mut text = String::from(
        "format = \"project-lanes/scenario\"\nversion = 1\nid = \"thousand\"\n\
         projects = [\"docs\", \"site\", \"billing\"]\nuntouched_project = \"billing\"\n\
         title = { en = \"A thousand\", ja = \"千の操作\" }\n\
         summary = { en = \"Claims and releases.\", ja = \"取得と解放。\" }\n",
    );
    for i in 0..500 {
        let project = if i % 2 == 0 { "docs" } else { "site" };
        text.push_str(&format!(
            "\n[[steps]]\nop = \"claim\"\nproject = \"{project}\"\nrun = \"run-{i}\"\n\
             \n[[steps]]\nop = \"release\"\nlease = \"L{}\"\noutcome = \"succeeded\"\n",
            i + 1
        ));
    }
    let page = Playground::open("lang=en", 1280).await;
    let (mut run, mut draw, mut total) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..23 {
        // One character changed each time, so every run gives another record.
        let typed = text.replacen("run-250\"", &format!("run-25{}\"", i % 10), 1);
        page.set_text(&typed);
        // The keystroke is drawn before the page runs the scenario, a quarter second later.
        page.next_frame().await;
        page.run_now().await;
        assert_eq!(page.last_run(), (true, None));
        if i >= 2 {
            let (r, d) = page.last_times();
            run.push(r);
            draw.push(d);
            total.push(r + d);
        }
    }
    assert_eq!(page.selected_record().as_deref(), Some("thousand"));
    report("playground_keystroke: scenario run (1,000 operations)", run);
    report("playground_keystroke: viewer mounted and settled", draw);
    report("playground_keystroke: run + redraw", total);
}

/// The playground given what it must refuse, each run timed by the page (`playground-ran`):
/// text past 4 MiB, 10,001 operations, and 20,000 characters of garbage. A run blocks the page
/// while it lasts; each must end in a coded error.
#[wasm_bindgen_test]
async fn playground_bad_input() {
    use lane_viewer_tests::playground::Playground;
    let page = Playground::open("lang=en", 1280).await;
    let good = page.editor_text();
    let mut many = good.clone();
    for _ in 0..10_001 {
        many.push_str("\n[[steps]]\nop = \"view\"\nproject = \"docs\"\n");
    }
    let garbage: String = (0..20_000u32)
        .map(|i| char::from_u32((i * 7919) % 0xd7ff).unwrap_or('?'))
        .collect();
    let cases = [
        (
            "4 MiB + 1 line",
            format!("{good}\n# {}", "x".repeat(4 * 1024 * 1024)),
        ),
        ("10,001 operations", many),
        ("garbage", garbage),
    ];
    for (name, text) in cases {
        let mut samples = Vec::new();
        for _ in 0..7 {
            page.set_text(&text);
            page.run_now().await;
            assert!(!page.last_run().0, "{name}");
            samples.push(page.last_times().0);
        }
        report(
            &format!("playground_bad_input: {name}, run until refused"),
            samples,
        );
    }
}
