//! Browser tests and benchmarks: the `tests/` crate compiled to wasm and run by
//! wasm-bindgen-test-runner in headless Chromium.
//!
//! The runner serves only the test page, the glue and the wasm. The records and fixtures come
//! from the project's own server (`serve.rs`, `for_tests`) over the site of `fixtures.rs`; its
//! address is fixed in the test binaries at build time (`LANE_TEST_SITE`). The runner works in an
//! empty folder, so a test that asked the runner's server for a fixture would fail, not pass by
//! luck. A watchdog reads the runner's streamed output: a test that runs longer than the suite's
//! limit is stopped, with its name, what its page showed and the fixture requests still open.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::fixtures::browser_site;
use crate::serve::{OpenRequests, StaticServer};
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

/// How long the runner may take to build the page and start the first test.
const STARTUP_LIMIT: Duration = Duration::from_secs(180);

/// Which browser run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// `tests/tests/*.rs` but `bench.rs`: the viewer against the records and the fixtures.
    Tests,
    /// `tests/tests/bench.rs`: timings, built with optimizations.
    Bench,
}

impl Suite {
    /// The longest one test may run before the watchdog stops it.
    fn test_limit(self) -> Duration {
        match self {
            Suite::Tests => Duration::from_secs(60),
            Suite::Bench => Duration::from_secs(600),
        }
    }
}

/// A suite built and ready to run: its fixture server is up, its binaries are compiled.
pub struct Prepared {
    suite: Suite,
    runner: PathBuf,
    wasm_files: Vec<PathBuf>,
    webdriver: PathBuf,
    chromedriver: PathBuf,
    open: Arc<OpenRequests>,
}

/// How one run of a suite ended.
pub struct RunOutcome {
    /// Every line the runners printed, in order.
    pub lines: Vec<String>,
    /// `None` when every test passed; otherwise what failed, in words.
    pub failure: Option<String>,
}

/// Starts the fixture server, writes the site and builds the suite's binaries.
pub fn prepare(suite: Suite) -> Result<Prepared> {
    let bin = wasm_bindgen_bin()?;
    let browser = browser()?;
    let site = browser_site(suite == Suite::Bench)?;
    let webdriver = write_webdriver_json(&browser)?;
    let server = bind_fixture_server(&site)?;
    let addr = server.addr();
    let open = server.open_requests();
    server.spawn();
    println!("fixtures: serving {} at http://{addr}/", site.display());
    let wasm_files = build(suite, addr)?;
    Ok(Prepared {
        suite,
        runner: bin.join("wasm-bindgen-test-runner"),
        wasm_files,
        webdriver,
        chromedriver: browser.chromedriver,
        open,
    })
}

/// Builds and runs the suite once (only the tests whose names contain `filter`), printing as it
/// goes; fails if any test fails.
pub fn run(suite: Suite, filter: Option<&str>) -> Result<Vec<String>> {
    let prepared = prepare(suite)?;
    let outcome = run_once(&prepared, filter, true)?;
    match outcome.failure {
        None => Ok(outcome.lines),
        Some(failure) => Err(failure.into()),
    }
}

/// `cargo xtask browser [--repeat N] [FILTER]`: builds once, runs the browser tests `times` times
/// in a row (only those whose names contain `filter`), and reports passes and failures. Each
/// run's output is kept in `target/browser-runs/run-<n>.log`.
pub fn repeat(times: usize, filter: Option<&str>) -> Result<()> {
    let prepared = prepare(Suite::Tests)?;
    let logs = project_root().join("target/browser-runs");
    std::fs::create_dir_all(&logs)?;
    let (mut passed, mut failed) = (0, 0);
    let mut durations = Vec::new();
    for run in 1..=times {
        let started = Instant::now();
        let outcome = run_once(&prepared, filter, times == 1)?;
        let seconds = started.elapsed().as_secs_f64();
        durations.push(seconds);
        let log = logs.join(format!("run-{run}.log"));
        std::fs::write(&log, outcome.lines.join("\n") + "\n")?;
        let tests = outcome
            .lines
            .iter()
            .filter(|l| l.starts_with("test ") && l.ends_with(" ... ok"))
            .count();
        match &outcome.failure {
            None => {
                passed += 1;
                println!("run {run}/{times}: passed ({tests} tests) in {seconds:.1} s");
            }
            Some(failure) => {
                failed += 1;
                // A single run printed everything as it went.
                let failure = if times == 1 { "see above" } else { failure };
                println!(
                    "run {run}/{times}: FAILED in {seconds:.1} s: {failure}\n  output: {}",
                    log.display()
                );
            }
        }
    }
    durations.sort_by(f64::total_cmp);
    let median = durations.get(durations.len() / 2).copied().unwrap_or(0.0);
    println!("\nbrowser suite, {times} runs (median {median:.1} s a run):");
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        return Err(format!("{failed} of {times} browser runs failed").into());
    }
    Ok(())
}

/// `cargo xtask browser --interactive FILE [FILTER]`: the runner's page for the tests of
/// `tests/tests/FILE.rs` on http://127.0.0.1:8000/, to open in a browser of your own, with the
/// fixture server up until Ctrl-C.
pub fn interactive(file: &str, filter: Option<&str>) -> Result<()> {
    let prepared = prepare(Suite::Tests)?;
    let wasm = prepared
        .wasm_files
        .iter()
        .find(|wasm| {
            let name = wasm.file_stem().unwrap_or_default().to_string_lossy();
            // Cargo names test binaries `<file>-<hash>`.
            name.rsplit_once('-').is_some_and(|(stem, _)| stem == file)
        })
        .ok_or_else(|| format!("no browser test file tests/tests/{file}.rs"))?;
    let workdir = project_root().join("target/browser-runner");
    std::fs::create_dir_all(&workdir)?;
    crate::util::run(
        Command::new(&prepared.runner)
            .arg(wasm)
            .args(filter)
            .arg("--nocapture")
            .current_dir(&workdir)
            .env("NO_HEADLESS", "1"),
    )
}

/// Runs every binary of a prepared suite once under the watchdog.
pub fn run_once(prepared: &Prepared, filter: Option<&str>, echo: bool) -> Result<RunOutcome> {
    let mut lines = Vec::new();
    // The runner works in an empty folder: it must not be able to serve any fixture.
    let workdir = project_root().join("target/browser-runner");
    std::fs::create_dir_all(&workdir)?;
    for wasm in &prepared.wasm_files {
        let name = wasm.file_name().unwrap_or_default().to_string_lossy();
        if echo {
            step(&format!("running {name} in headless Chromium"));
        }
        let mut command = Command::new(&prepared.runner);
        command
            .arg(wasm)
            .args(filter)
            // Streams the console too: `Invoking test: …` tells the watchdog which test runs.
            .arg("--nocapture")
            .current_dir(&workdir)
            .env("CHROMEDRIVER", &prepared.chromedriver)
            .env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", &prepared.webdriver)
            // The watchdog limits each test; this only bounds a whole binary.
            .env("WASM_BINDGEN_TEST_TIMEOUT", "3600")
            .env("WASM_BINDGEN_TEST_DRIVER_TIMEOUT", "30")
            // Its own group, so that stopping it stops chromedriver and Chromium too.
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", prepared.runner.display()))?;
        if let Some(failure) = watch(child, prepared, &name, echo, &mut lines)? {
            return Ok(RunOutcome {
                lines,
                failure: Some(failure),
            });
        }
    }
    Ok(RunOutcome {
        lines,
        failure: None,
    })
}

/// What the watchdog knows of a running binary.
#[derive(Default)]
struct Progress {
    /// The test that was invoked and has not finished, and since when.
    running: Option<(String, Instant)>,
    /// The last `page-snapshot` line a test logged.
    snapshot: Option<String>,
    /// Tests that failed.
    failed: Vec<String>,
}

impl Progress {
    fn read(&mut self, line: &str) {
        let line = line.trim();
        if let Some(name) = line.strip_prefix("Invoking test: ") {
            self.running = Some((name.to_owned(), Instant::now()));
            self.snapshot = None;
        } else if let Some(rest) = line.strip_prefix("test ")
            && let Some((name, result)) = rest.split_once(" ... ")
        {
            self.running = None;
            if result.starts_with("FAIL") {
                self.failed.push(name.to_owned());
            }
        } else if line.contains("page-snapshot") {
            self.snapshot = Some(line.to_owned());
        }
    }
}

/// Follows one runner process to its end; returns what failed, if anything.
fn watch(
    mut child: Child,
    prepared: &Prepared,
    binary: &str,
    echo: bool,
    lines: &mut Vec<String>,
) -> Result<Option<String>> {
    let (send, receive) = mpsc::channel();
    for stream in [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    {
        let send = send.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
    }
    drop(send);
    let started = Instant::now();
    let mut progress = Progress::default();
    let limit = prepared.suite.test_limit();
    loop {
        match receive.recv_timeout(Duration::from_millis(500)) {
            Ok(line) => {
                if echo {
                    println!("{line}");
                }
                progress.read(&line);
                lines.push(line);
            }
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        let overdue = match &progress.running {
            Some((name, since)) if since.elapsed() > limit => Some(format!(
                "browser test `{name}` ({binary}) did not finish within {} s and was stopped",
                limit.as_secs()
            )),
            None if lines.iter().all(|l| !l.contains("Invoking test: "))
                && started.elapsed() > STARTUP_LIMIT =>
            {
                Some(format!(
                    "the test page of {binary} did not start a test within {} s and was stopped",
                    STARTUP_LIMIT.as_secs()
                ))
            }
            _ => None,
        };
        if let Some(overdue) = overdue {
            stop(&mut child);
            let report = hang_report(&overdue, &progress, &prepared.open, started);
            if echo {
                eprintln!("{report}");
            }
            return Ok(Some(report));
        }
    }
    let status = child.wait()?;
    if status.success() {
        return Ok(None);
    }
    Ok(Some(if progress.failed.is_empty() {
        format!("{binary}: the runner failed ({status}); its output says why")
    } else {
        format!("{binary}: failed: {}", progress.failed.join(", "))
    }))
}

/// Kills the runner's whole process group (the runner, chromedriver and Chromium).
fn stop(child: &mut Child) {
    let group = format!("-{}", child.id());
    let _ = Command::new("kill")
        .args(["-KILL", "--", &group])
        .stderr(Stdio::null())
        .status();
    let _ = child.kill();
    let _ = child.wait();
}

fn hang_report(overdue: &str, progress: &Progress, open: &OpenRequests, start: Instant) -> String {
    let mut report = format!("{overdue}\n  what the page showed: ");
    match &progress.snapshot {
        Some(snapshot) => report.push_str(snapshot),
        None => report.push_str("(the test logged no page snapshot)"),
    }
    let open = open.list_since(start);
    if open.is_empty() {
        report.push_str("\n  fixture requests still open: none");
    } else {
        report.push_str("\n  fixture requests still open:");
        for (url, age) in open {
            report.push_str(&format!("\n    {url} (for {:.1} s)", age.as_secs_f64()));
        }
    }
    report
}

/// The fixture server on a port fixed per checkout (so the address compiled into the tests does
/// not change between runs, and the tests are not rebuilt); any free port if that one is taken.
fn bind_fixture_server(site: &Path) -> Result<StaticServer> {
    let mut hasher = DefaultHasher::new();
    project_root().hash(&mut hasher);
    // 20000–29999: below Linux's ephemeral ports, where the runner and chromedriver bind.
    let preferred = 20_000 + (hasher.finish() % 10_000) as u16;
    match StaticServer::bind(site, preferred) {
        Ok(server) => Ok(server.for_tests()),
        Err(_) => {
            println!("fixtures: port {preferred} is taken; using another (the tests are rebuilt)");
            Ok(StaticServer::bind(site, 0)?.for_tests())
        }
    }
}

/// Compiles the suite's test binaries for wasm32 and returns their paths.
fn build(suite: Suite, site: SocketAddr) -> Result<Vec<PathBuf>> {
    step("building the browser tests for wasm32");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(project_root())
        .env("LANE_TEST_SITE", format!("http://{site}/"))
        .args(["test", "-p", "lane-viewer-tests", "--target", WASM_TARGET])
        .args(["--no-run", "--message-format=json-render-diagnostics"]);
    match suite {
        // Every test file but the benchmarks.
        Suite::Tests => command.args(["--tests"]),
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
            // Integration test files only: the helper library has no tests of its own.
            && message["target"]["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k == "test"))
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
    let server = StaticServer::bind(dist, 0)?;
    let open = server.open_requests();
    let addr = server.spawn();
    let logs = project_root().join("target/smoke");
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
    for (n, (page, expected)) in pages.into_iter().enumerate() {
        let url = format!("http://{addr}/{page}");
        // A new profile for every page: nothing left from an earlier Chromium can interfere.
        let profile = logs.join(format!("profile-{n}"));
        if profile.exists() {
            std::fs::remove_dir_all(&profile)?;
        }
        std::fs::create_dir_all(&profile)?;
        let log = logs.join(format!("chromium-{n}.log"));
        let mut chromium = Command::new(&browser.chromium);
        chromium
            .args(["--headless", "--no-sandbox"])
            .args(QUIET_CHROMIUM)
            .args(["--virtual-time-budget=15000", "--dump-dom"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .arg(&url)
            .stderr(std::fs::File::create(&log)?);
        let started = Instant::now();
        let dom = dump_dom(&mut chromium, SMOKE_LIMIT).map_err(|e| {
            let mut report = format!("{url}: {e} ({})", browser.chromium.display());
            for (url, age) in open.list_since(started) {
                report.push_str(&format!(
                    "\n  request still open: {url} (for {:.1} s)",
                    age.as_secs_f64()
                ));
            }
            report.push_str(&format!("\n  Chromium's log: {}", log.display()));
            report
        })?;
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

/// How long Chromium may take to dump one page of the built site.
const SMOKE_LIMIT: Duration = Duration::from_secs(60);

/// Runs Chromium's `--dump-dom` and returns the page; stops it (and its children) if it takes
/// longer than `limit`.
fn dump_dom(command: &mut Command, limit: Duration) -> Result<String> {
    let mut child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start Chromium: {e}"))?;
    let mut stdout = child.stdout.take().ok_or("no standard output")?;
    let reader = std::thread::spawn(move || {
        let mut dom = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stdout, &mut dom);
        dom
    });
    let started = Instant::now();
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if started.elapsed() > limit {
            stop(&mut child);
            return Err(format!("Chromium did not finish within {} s", limit.as_secs()).into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let dom = reader
        .join()
        .map_err(|_| "reading Chromium's output failed")?;
    Ok(String::from_utf8_lossy(&dom).into_owned())
}
