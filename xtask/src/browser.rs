//! Browser tests and benchmarks: the `tests/` crate compiled to wasm once and run by
//! wasm-bindgen-test-runner in each engine (`engines.rs`): headless Chromium through
//! chromedriver, headless Firefox through geckodriver, and WebKitGTK's MiniBrowser through
//! WebKitWebDriver on a private Xvfb display. The runner finds the driver in `CHROMEDRIVER`,
//! `GECKODRIVER` or `SAFARIDRIVER` (WebKitWebDriver speaks the same W3C WebDriver as
//! safaridriver); it reads capabilities from `webdriver.json` for Chromium and Firefox, but sends
//! none to a Safari-type driver, so WebKit runs with WebKitWebDriver's defaults (MiniBrowser
//! `--automation`, which needs the display).
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

use crate::engines::{Display, Engine, Installed};
use crate::fixtures::browser_site;
use crate::serve::{OpenRequests, StaticServer};
use crate::tools::{WASM_TARGET, wasm_bindgen_bin};
use crate::util::{Result, project_root, step, stop_group};
use crate::webdriver::{Look, capabilities, driver_env};

/// Tests that cannot run in one engine, with the reason: the runner is told to skip them there
/// (`--skip`), and every run in that engine prints them. An entry is the engine, a part of the
/// test's name that matches it alone, and why.
const NOT_IN: &[(Engine, &str, &str)] = &[
    (
        Engine::Firefox,
        SELECT_STEP_IN_FOCUSOUT,
        NO_FOCUSOUT_ON_REMOVAL,
    ),
    (
        Engine::WebKit,
        SELECT_STEP_IN_FOCUSOUT,
        NO_FOCUSOUT_ON_REMOVAL,
    ),
    (Engine::Firefox, SELECT_IN_FOCUSOUT, NO_FOCUSOUT_ON_REMOVAL),
    (Engine::WebKit, SELECT_IN_FOCUSOUT, NO_FOCUSOUT_ON_REMOVAL),
    (Engine::WebKit, PLAYGROUND_LONG_RUN, NO_PLAYGROUND_WORKER),
    (Engine::WebKit, PLAYGROUND_STOP, NO_PLAYGROUND_WORKER),
];

/// Two tests of the playground's worker: a long run that typing does not wait for, and its stop.
const PLAYGROUND_LONG_RUN: &str =
    "playground_a_long_scenario_runs_off_the_page_and_typing_goes_on_meanwhile";
const PLAYGROUND_STOP: &str = "playground_stop_ends_a_long_run_and_the_page_goes_on";
const NO_PLAYGROUND_WORKER: &str = "WebKitGTK refuses the playground's worker in the tests' frame \
    (a module worker from a Blob URL importing the site's script from another origin: an `error` \
    event with no message), so the page runs scenarios on its own thread and says so, as it \
    should; the tests check the worker (they run in Chromium and Firefox)";

/// Two tests that call the viewer from a `focusout` handler while the viewer rebuilds.
const SELECT_STEP_IN_FOCUSOUT: &str = "select_step_called_while_the_viewer_rebuilds_takes_effect";
const SELECT_IN_FOCUSOUT: &str = "page_calls_made_while_the_viewer_rebuilds_take_effect";
const NO_FOCUSOUT_ON_REMOVAL: &str = "it reaches the viewer from a `focusout` fired while the \
    viewer rebuilds, and only Chromium fires `focusout` when a re-render removes the focused \
    element; Firefox and WebKit move the focus without an event (the HTML standard's focus \
    fixup), so the call it checks cannot happen there (it runs in Chromium)";

/// Every environment variable through which wasm-bindgen-test-runner may pick a driver: each run
/// sets the one of its engine and clears the others.
const DRIVER_VARIABLES: [&str; 8] = [
    "GECKODRIVER",
    "SAFARIDRIVER",
    "CHROMEDRIVER",
    "MSEDGEDRIVER",
    "GECKODRIVER_REMOTE",
    "SAFARIDRIVER_REMOTE",
    "CHROMEDRIVER_REMOTE",
    "MSEDGEDRIVER_REMOTE",
];

/// How long the runner may take to build the page and start the first test.
const STARTUP_LIMIT: Duration = Duration::from_secs(180);

/// Which browser run.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// `tests/tests/` but `bench.rs`: the viewer against the records and the fixtures.
    Tests,
    /// `tests/tests/bench.rs`: timings, built with optimizations.
    Bench,
}

impl Suite {
    fn name(self) -> &'static str {
        match self {
            Suite::Tests => "the browser tests",
            Suite::Bench => "the browser benchmarks",
        }
    }

    /// The longest one test may run before the watchdog stops it.
    fn test_limit(self) -> Duration {
        match self {
            // Twice the longest wait a test has of its own (60 s for a 100,000-step record to
            // verify): a slow test fails on its own assertion, a hung one is stopped here.
            Suite::Tests => Duration::from_secs(120),
            Suite::Bench => Duration::from_secs(600),
        }
    }
}

/// A suite built and ready to run: its fixture server is up, its binaries are compiled (once,
/// for every engine).
pub struct Prepared {
    suite: Suite,
    runner: PathBuf,
    wasm_files: Vec<PathBuf>,
    open: Arc<OpenRequests>,
    /// Held while the suite runs: the site and the test binaries are this checkout's, one run at
    /// a time.
    _site: std::fs::File,
}

/// One engine set up for the runner: its driver, its capabilities file, its display.
pub struct Target {
    installed: Installed,
    webdriver_json: PathBuf,
    display: Option<Display>,
}

impl Target {
    pub fn new(installed: &Installed) -> Result<Target> {
        let engine = installed.engine;
        let webdriver_json =
            project_root().join(format!("target/browser-webdriver-{}.json", engine.name()));
        let caps = capabilities(installed, Look::default(), false);
        std::fs::write(&webdriver_json, serde_json::to_vec_pretty(&caps)?)?;
        let display = match &installed.xvfb {
            Some(xvfb) => Some(Display::start(xvfb)?),
            None => None,
        };
        Ok(Target {
            installed: installed.clone(),
            webdriver_json,
            display,
        })
    }

    pub fn engine(&self) -> Engine {
        self.installed.engine
    }

    /// The runner's environment: this engine's driver variable, and none of the others.
    fn configure(&self, command: &mut Command) {
        for variable in DRIVER_VARIABLES {
            command.env_remove(variable);
        }
        let variable = match self.engine() {
            Engine::Chromium => "CHROMEDRIVER",
            Engine::Firefox => "GECKODRIVER",
            Engine::WebKit => "SAFARIDRIVER",
        };
        command
            .env(variable, &self.installed.driver)
            .env("WASM_BINDGEN_TEST_WEBDRIVER_JSON", &self.webdriver_json)
            .envs(driver_env(
                &self.installed,
                Look::default(),
                self.display.as_ref(),
            ));
    }
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
    let lock = lock_site()?;
    let site = browser_site(suite == Suite::Bench)?;
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
        open,
        _site: lock,
    })
}

/// Waits until no other browser run of this checkout is using `target/browser-site` (each run
/// rewrites the site the other one serves, which would fail the other's tests), then holds it
/// until the returned file is dropped. The operating system releases it if the run is killed.
fn lock_site() -> Result<std::fs::File> {
    let target = project_root().join("target");
    std::fs::create_dir_all(&target)?;
    let path = target.join("browser-site.lock");
    let file = std::fs::File::create(&path)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            println!(
                "another browser run of this checkout is using target/browser-site; \
                 waiting for it to end ({} is locked)",
                path.display()
            );
            file.lock()?;
        }
        Err(std::fs::TryLockError::Error(error)) => {
            return Err(format!("cannot lock {}: {error}", path.display()).into());
        }
    }
    Ok(file)
}

/// Builds the suite once and runs it once in each engine (only the tests whose names contain
/// `filter`), printing as it goes. The tests run in every engine at once, each line labelled
/// with its engine (a test waits on its page far more than it computes); the benchmarks one
/// engine after the other, so that they do not time each other. Fails with what failed in every
/// engine; returns each engine's output lines.
pub fn run(
    suite: Suite,
    engines: &[Installed],
    filter: Option<&str>,
) -> Result<Vec<(Engine, Vec<String>)>> {
    let prepared = prepare(suite)?;
    let at_once = suite == Suite::Tests;
    let runs = in_engines(engines, at_once, |installed, echo| {
        let target = Target::new(installed)?;
        let started = Instant::now();
        let outcome = run_once(&prepared, &target, filter, echo)?;
        Ok((outcome, started.elapsed()))
    });
    let mut outputs = Vec::new();
    let mut failures = Vec::new();
    for (installed, run) in engines.iter().zip(runs) {
        let engine = installed.engine;
        match run {
            Ok((outcome, took)) => {
                match outcome.failure {
                    Some(failure) => failures.push(format!("in {}: {failure}", engine.label())),
                    None => step(&format!(
                        "{} passed in {}: {:.1} s",
                        suite.name(),
                        engine.label(),
                        took.as_secs_f64()
                    )),
                }
                outputs.push((engine, outcome.lines));
            }
            Err(error) => failures.push(format!("in {}: {error}", engine.label())),
        }
    }
    if failures.is_empty() {
        Ok(outputs)
    } else {
        Err(failures.join("\n").into())
    }
}

/// How a run's lines are printed as they come.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Echo {
    /// Not at all (they are kept, and printed or logged by the caller).
    Off,
    /// As they are.
    Plain,
    /// Each after its engine's name, `[Firefox] …`: engines that run at once.
    Labelled,
}

/// `one` in each engine, all at once (each on a thread of its own, printing labelled lines) or
/// one after the other; the results in the order of `engines`.
fn in_engines<T: Send>(
    engines: &[Installed],
    at_once: bool,
    one: impl Fn(&Installed, Echo) -> Result<T> + Sync,
) -> Vec<std::result::Result<T, String>> {
    if !at_once || engines.len() < 2 {
        return engines
            .iter()
            .map(|installed| one(installed, Echo::Plain).map_err(|e| e.to_string()))
            .collect();
    }
    std::thread::scope(|scope| {
        let runs: Vec<_> = engines
            .iter()
            .map(|installed| {
                let one = &one;
                scope.spawn(move || one(installed, Echo::Labelled).map_err(|e| e.to_string()))
            })
            .collect();
        runs.into_iter()
            .map(|run| {
                run.join()
                    .unwrap_or_else(|_| Err("the engine's run panicked".to_owned()))
            })
            .collect()
    })
}

/// `cargo xtask browser [--engine E] [--repeat N] [FILTER]`: builds once, then runs the browser
/// tests `times` times in a row in each engine (only those whose names contain `filter`), and
/// reports passes and failures per engine. Each run's output is kept in
/// `target/browser-runs/<engine>-<n>.log`.
pub fn repeat(times: usize, engines: &[Installed], filter: Option<&str>) -> Result<()> {
    let prepared = prepare(Suite::Tests)?;
    let logs = project_root().join("target/browser-runs");
    std::fs::create_dir_all(&logs)?;
    let counts = in_engines(engines, true, |installed, echo| {
        let target = Target::new(installed)?;
        let engine = target.engine();
        let (mut passed, mut failed) = (0, 0);
        let mut durations = Vec::new();
        // A single run prints everything as it goes; more are counted, and logged.
        let echo = if times == 1 { echo } else { Echo::Off };
        for run in 1..=times {
            let started = Instant::now();
            let outcome = run_once(&prepared, &target, filter, echo)?;
            let seconds = started.elapsed().as_secs_f64();
            durations.push(seconds);
            let log = logs.join(format!("{}-{run}.log", engine.name()));
            std::fs::write(&log, outcome.lines.join("\n") + "\n")?;
            let tests = outcome
                .lines
                .iter()
                .filter(|l| l.starts_with("test ") && l.ends_with(" ... ok"))
                .count();
            match &outcome.failure {
                None => {
                    passed += 1;
                    println!(
                        "{} run {run}/{times}: passed ({tests} tests) in {seconds:.1} s",
                        engine.label()
                    );
                }
                Some(failure) => {
                    failed += 1;
                    let failure = if times == 1 { "see above" } else { failure };
                    println!(
                        "{} run {run}/{times}: FAILED in {seconds:.1} s: {failure}\n  output: {}",
                        engine.label(),
                        log.display()
                    );
                }
            }
        }
        durations.sort_by(f64::total_cmp);
        let median = durations.get(durations.len() / 2).copied().unwrap_or(0.0);
        Ok((passed, failed, median))
    });
    let mut summary = Vec::new();
    for (installed, counts) in engines.iter().zip(counts) {
        summary.push((installed.engine, counts?));
    }
    println!("\nbrowser suite, {times} runs per engine:");
    let (mut passed, mut failed) = (0, 0);
    for (engine, (p, f, median)) in &summary {
        println!(
            "  {:<9} {p} passed, {f} failed (median {median:.1} s a run)",
            engine.label()
        );
        passed += p;
        failed += f;
    }
    println!("{passed} passed, {failed} failed");
    if failed > 0 {
        return Err(format!("{failed} of {} browser runs failed", passed + failed).into());
    }
    Ok(())
}

/// `cargo xtask browser --interactive FILE [FILTER]`: the runner's page for the tests of
/// `tests/tests/FILE.rs` whose names contain `FILTER`, or of `tests/tests/browser/FILE.rs` (a
/// module of the `browser` binary) whose names start with it, on http://127.0.0.1:8000/, to
/// open in a browser of your own, with the fixture server up until Ctrl-C.
pub fn interactive(file: &str, filter: Option<&str>) -> Result<()> {
    let tests = project_root().join("tests/tests");
    let binary = if tests.join(format!("{file}.rs")).is_file() && file != "bench" {
        file
    } else if tests.join(format!("browser/{file}.rs")).is_file() && file != "main" {
        "browser"
    } else {
        return Err(format!(
            "no browser test file tests/tests/{file}.rs or tests/tests/browser/{file}.rs"
        )
        .into());
    };
    let prepared = prepare(Suite::Tests)?;
    let wasm = prepared
        .wasm_files
        .iter()
        .find(|wasm| {
            let name = wasm.file_stem().unwrap_or_default().to_string_lossy();
            // Cargo names test binaries `<name>-<hash>`.
            name.rsplit_once('-')
                .is_some_and(|(stem, _)| stem == binary)
        })
        .ok_or_else(|| format!("cargo built no browser test binary `{binary}`"))?;
    // In the shared binary a test's name starts with its module's (`viewer::two_viewers_…`).
    let filter = if binary == "browser" {
        Some(format!("{file}::{}", filter.unwrap_or("")))
    } else {
        filter.map(str::to_owned)
    };
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

/// Runs every binary of a prepared suite once in one engine under the watchdog.
pub fn run_once(
    prepared: &Prepared,
    target: &Target,
    filter: Option<&str>,
    echo: Echo,
) -> Result<RunOutcome> {
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    let engine = target.engine();
    // The runner works in an empty folder (one per engine, as they run at once): it must not be
    // able to serve any fixture.
    let workdir = project_root()
        .join("target/browser-runner")
        .join(engine.name());
    std::fs::create_dir_all(&workdir)?;
    let skipped: Vec<&(Engine, &str, &str)> =
        NOT_IN.iter().filter(|(e, _, _)| *e == engine).collect();
    for (_, test, why) in &skipped {
        let line = format!(
            "not run in {}: tests matching `{test}`: {why}",
            engine.label()
        );
        println!("{line}");
        lines.push(line);
    }
    for wasm in &prepared.wasm_files {
        let name = wasm.file_name().unwrap_or_default().to_string_lossy();
        if echo != Echo::Off {
            step(&format!("running {name} in {}", engine.label()));
        }
        let mut command = Command::new(&prepared.runner);
        command.arg(wasm).args(filter);
        for (_, test, _) in &skipped {
            command.args(["--skip", test]);
        }
        target.configure(&mut command);
        command
            // Streams the console too: `Invoking test: …` tells the watchdog which test runs.
            .arg("--nocapture")
            .current_dir(&workdir)
            // The watchdog limits each test; this only bounds a whole binary.
            .env("WASM_BINDGEN_TEST_TIMEOUT", "3600")
            .env("WASM_BINDGEN_TEST_DRIVER_TIMEOUT", "30")
            // Its own group, so that stopping it stops the driver and the browser too.
            .process_group(0)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = command
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", prepared.runner.display()))?;
        let binary = format!("{name} in {}", engine.label());
        // The other binaries still run: one run shows every failure of the engine.
        let label = (echo == Echo::Labelled).then(|| format!("[{}] ", engine.label()));
        let echo = (echo != Echo::Off).then_some(label.as_deref().unwrap_or(""));
        if let Some(failure) = watch(child, prepared, &binary, echo, &mut lines)? {
            failures.push(failure);
        }
    }
    let ran = lines
        .iter()
        .any(|l| l.starts_with("test ") && l.contains(" ... "));
    if failures.is_empty() && !ran {
        failures.push(match filter {
            Some(filter) => format!("no browser test's name contains `{filter}`"),
            None => "the runner ran no browser test".to_owned(),
        });
    }
    Ok(RunOutcome {
        lines,
        failure: (!failures.is_empty()).then(|| failures.join("\n")),
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
    /// The test that just finished, and how long it took.
    finished: Option<(String, Duration)>,
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
            if let Some((running, since)) = self.running.take()
                && running == name
            {
                self.finished = Some((running, since.elapsed()));
            }
            if result.starts_with("FAIL") {
                self.failed.push(name.to_owned());
            }
        } else if line.contains("page-snapshot") {
            self.snapshot = Some(line.to_owned());
        }
    }
}

/// Follows one runner process to its end, printing its lines after `echo` if given; returns
/// what failed, if anything.
fn watch(
    mut child: Child,
    prepared: &Prepared,
    binary: &str,
    echo: Option<&str>,
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
    // `lines` holds the engine's earlier binaries too; this one's start here.
    let first = lines.len();
    let started = Instant::now();
    let mut progress = Progress::default();
    let limit = prepared.suite.test_limit();
    loop {
        match receive.recv_timeout(Duration::from_millis(500)) {
            Ok(line) => {
                if let Some(label) = echo {
                    println!("{label}{line}");
                }
                progress.read(&line);
                lines.push(line);
                if let Some((name, took)) = progress.finished.take()
                    && took > limit / 4
                {
                    let slow = format!(
                        "slow: `{name}` took {:.1} s ({binary}; a test may take {} s)",
                        took.as_secs_f64(),
                        limit.as_secs()
                    );
                    println!("{slow}");
                    lines.push(slow);
                }
            }
            Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {}
        }
        let overdue = match &progress.running {
            Some((name, since)) if since.elapsed() > limit => Some(format!(
                "browser test `{name}` ({binary}) did not finish within {} s and was stopped",
                limit.as_secs()
            )),
            None if lines[first..]
                .iter()
                .all(|l| !l.contains("Invoking test: "))
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
            stop_group(&mut child);
            let report = hang_report(&overdue, &progress, &prepared.open, started);
            if let Some(label) = echo {
                eprintln!("{label}{report}");
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
        Suite::Tests => command.args(["--tests", "--profile", "browser-test"]),
        Suite::Bench => command.args(["--release", "--features", "bench", "--test", "bench"]),
    };
    let output = command.stderr(Stdio::inherit()).output()?;
    if !output.status.success() {
        return Err("building the browser tests failed (see above)".into());
    }
    // Integration test files only: the helper library has no tests of its own.
    let files = crate::util::test_executables(&output.stdout, |_| true);
    if files.is_empty() {
        return Err("cargo built no browser test binary".into());
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_test_marked_not_in_an_engine_exists_under_one_name() {
        let sources = sources_under("tests/tests");
        let functions: Vec<&str> = sources
            .split("fn ")
            .skip(1)
            .map(|rest| {
                rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                    .next()
                    .unwrap_or("")
            })
            .collect();
        for (engine, test, why) in NOT_IN {
            assert!(!why.is_empty());
            // `--skip` matches parts of names: the entry must name one test and match no other.
            let matching: Vec<&&str> = functions.iter().filter(|f| f.contains(test)).collect();
            assert_eq!(matching, vec![test], "NOT_IN ({engine:?}) names `{test}`");
        }
    }

    /// The text of the Rust file at `path` in the repository, or of every one under it.
    fn sources_under(path: &str) -> String {
        let path = project_root().join(path);
        if path.is_file() {
            return std::fs::read_to_string(path).unwrap();
        }
        let mut files = Vec::new();
        crate::dist::collect(&path, &path, &mut files).unwrap();
        files
            .iter()
            .filter(|file| file.ends_with(".rs"))
            .map(|file| std::fs::read_to_string(path.join(file)).unwrap())
            .collect()
    }

    /// The JavaScript modules a page imports besides its glue for the Rust `sources`: each
    /// `inline_js`, and each `module = "/…"` path once.
    fn snippets(sources: &str) -> usize {
        let modules: std::collections::BTreeSet<&str> = sources
            .split("wasm_bindgen(module = \"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        sources.matches("wasm_bindgen(inline_js").count() + modules.len()
    }

    #[test]
    fn no_browser_test_page_imports_more_than_six_snippets() {
        // The runner's page imports every snippet at once; past six (the browser's connections
        // to one host), its server now and then never answers one and the page never starts
        // (Chromium: 4 of 8 starts hung with eight, none of 12 with four).
        let shared = snippets(&(sources_under("web/src") + &sources_under("tests/src")));
        let tests = project_root().join("tests/tests");
        for entry in std::fs::read_dir(&tests).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let own = snippets(&sources_under(&format!("tests/tests/{name}")));
            assert!(
                shared + own <= 6,
                "the page of tests/tests/{name} imports {} JavaScript snippets ({shared} of the \
                 viewer and the tests' library); at most 6 (put its helpers in one module)",
                shared + own
            );
        }
    }

    #[test]
    fn the_watchdog_follows_the_runner_output() {
        let mut progress = Progress::default();
        progress.read("Invoking test: shows_a_record");
        assert_eq!(progress.running.as_ref().unwrap().0, "shows_a_record");
        progress.read("    page-snapshot after 45 s: | viewer 1");
        assert!(progress.snapshot.is_some());
        progress.read("test shows_a_record ... ok");
        assert!(progress.running.is_none());
        assert_eq!(progress.finished.take().unwrap().0, "shows_a_record");
        progress.read("Invoking test: fails");
        progress.read("test fails ... FAIL");
        assert_eq!(progress.failed, vec!["fails".to_owned()]);
    }
}
