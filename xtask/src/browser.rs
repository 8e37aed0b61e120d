//! Browser tests and benchmarks: the `tests/` crate compiled to wasm and run by
//! wasm-bindgen-test-runner in headless Chromium, against the site from `fixtures.rs`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::fixtures::browser_site;
use crate::serve::StaticServer;
use crate::tools::{Browser, WASM_TARGET, browser, wasm_bindgen_bin};
use crate::util::{Result, project_root, step};

/// Chromium without background networking: this machine's network is closed, and Chromium's
/// attempts to reach its services would only slow it down.
const QUIET_CHROMIUM: [&str; 6] = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// Which browser run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// `tests/tests/viewer.rs`: the viewer against the records and the fixtures.
    Tests,
    /// `tests/tests/bench.rs`: timings, built with optimizations.
    Bench,
}

/// Builds and runs the suite; returns every line the runner printed.
pub fn run(suite: Suite) -> Result<Vec<String>> {
    let bin = wasm_bindgen_bin()?;
    let browser = browser()?;
    let site = browser_site(suite == Suite::Bench)?;
    let webdriver = write_webdriver_json(&browser)?;
    let wasm_files = build(suite)?;
    let runner = bin.join("wasm-bindgen-test-runner");
    let mut lines = Vec::new();
    for wasm in wasm_files {
        step(&format!(
            "running {} in headless Chromium",
            wasm.file_name().unwrap_or_default().to_string_lossy()
        ));
        let mut command = Command::new(&runner);
        command
            .arg(&wasm)
            // The runner serves files it does not generate from its working directory: the
            // tests fetch records/… and fixtures/… from the site.
            .current_dir(&site)
            .env("CHROMEDRIVER", &browser.chromedriver)
            .env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", &webdriver)
            .env("WASM_BINDGEN_TEST_TIMEOUT", "600")
            .env("WASM_BINDGEN_TEST_DRIVER_TIMEOUT", "30")
            .stdout(Stdio::piped());
        if suite == Suite::Bench {
            command.arg("--nocapture");
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", runner.display()))?;
        if let Some(out) = child.stdout.take() {
            for line in BufReader::new(out).lines() {
                let line = line?;
                println!("{line}");
                lines.push(line);
            }
        }
        let status = child.wait()?;
        if !status.success() {
            return Err(
                format!("browser run failed ({status}); the output above says which test").into(),
            );
        }
    }
    Ok(lines)
}

/// Compiles the suite's test binaries for wasm32 and returns their paths.
fn build(suite: Suite) -> Result<Vec<PathBuf>> {
    step("building the browser tests for wasm32");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(project_root())
        .args(["test", "-p", "lane-viewer-tests", "--target", WASM_TARGET])
        .args(["--no-run", "--message-format=json-render-diagnostics"]);
    match suite {
        Suite::Tests => command.args([
            "--test",
            "viewer",
            "--test",
            "hardening",
            "--test",
            "open_verify",
        ]),
        Suite::Bench => command.args(["--release", "--features", "bench", "--test", "bench"]),
    };
    let output = command.stderr(Stdio::inherit()).output()?;
    if !output.status.success() {
        return Err("building the browser tests failed (see above)".into());
    }
    let mut files = Vec::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] == "compiler-artifact"
            && message["profile"]["test"] == true
            && let Some(path) = message["executable"].as_str()
        {
            files.push(PathBuf::from(path));
        }
    }
    if files.is_empty() {
        return Err("cargo built no browser test binary".into());
    }
    Ok(files)
}

/// Chromium's options for the runner: the Debian binary and the quiet flags.
fn write_webdriver_json(browser: &Browser) -> Result<PathBuf> {
    let path = project_root().join("target/browser-webdriver.json");
    let caps = serde_json::json!({
        "goog:chromeOptions": {
            "binary": browser.chromium,
            "args": QUIET_CHROMIUM.iter().chain(&["--disable-extensions", "--window-size=1280,900"]).collect::<Vec<_>>()
        }
    });
    std::fs::write(&path, serde_json::to_vec_pretty(&caps)?)?;
    Ok(path)
}

/// Loads the built site (`target/dist/`, as `cargo xtask serve` serves it) in headless Chromium
/// and checks that the pages render: the real glue, pages, content types and records together.
pub fn smoke_test_dist(dist: &Path) -> Result<()> {
    step("checking the built site in headless Chromium (index.html, embed.html)");
    let browser = browser()?;
    let addr = StaticServer::bind(dist, 0)?.spawn();
    let profile = project_root().join("target/smoke-profile");
    let pages: [(&str, &[&str]); 2] = [
        (
            "index.html#record=persistence-gate&lang=ja",
            &[
                "data-lane-viewer=\"\" lang=\"ja\"",
                "data-selected-record=\"persistence-gate\"",
                "data-reservation=\"R1\"",
                "data-nothing-executed",
            ],
        ),
        (
            "embed.html",
            &[
                "data-selected-record=\"busy-project\"",
                "data-selected-record=\"stale-release\"",
                "data-untouched-project=\"site\"",
            ],
        ),
    ];
    for (page, expected) in pages {
        let url = format!("http://{addr}/{page}");
        let output = Command::new(&browser.chromium)
            .args(["--headless", "--no-sandbox"])
            .args(QUIET_CHROMIUM)
            .args(["--virtual-time-budget=15000", "--dump-dom"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(&url)
            .stderr(Stdio::null())
            .output()
            .map_err(|e| format!("cannot start {}: {e}", browser.chromium.display()))?;
        let dom = String::from_utf8_lossy(&output.stdout);
        let missing: Vec<&&str> = expected.iter().filter(|e| !dom.contains(**e)).collect();
        if !missing.is_empty() {
            return Err(format!(
                "{url} rendered without {missing:?}; page excerpt:\n{}",
                dom.chars().take(2000).collect::<String>()
            )
            .into());
        }
        println!("ok: {page}");
    }
    Ok(())
}
