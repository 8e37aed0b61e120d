//! Browser benchmarks (`cargo xtask bench`): medians in headless Chromium, printed as
//! `BENCH <name>: …` lines that xtask collects.
//!
//! - mount → first record rendered (fetch index and records, hash, parse, render), after the
//!   wasm is instantiated;
//! - switching records (select + forced layout);
//! - rendering large synthetic records (1,000 to 10,000 steps), to see the cost grow linearly:
//!   the first steps shown and all steps in the DOM, on mount and on a re-render.

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
        "mount_to_first_render (8 records, fetch+hash+parse+render)",
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
    let mut samples = Vec::new();
    for i in 0..200 {
        let start = now();
        assert!(m.viewer.select(ids[i % ids.len()]));
        layout(&m.root());
        samples.push(now() - start);
    }
    report("switch_record (select + layout)", samples);
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
