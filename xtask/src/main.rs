//! `cargo xtask`: every automation step of the workspace, in one Rust program.
//!
//! Run `cargo xtask help` for the list of tasks.

mod args;
mod browser;
mod chaos;
mod dist;
mod engines;
mod farm;
mod fixtures;
mod guide;
mod guide_lang;
mod installs;
mod instructions;
mod pg_tls;
mod postgres;
mod release;
mod responses;
mod screenshots;
mod serve;
mod size;
mod smoke;
mod summary;
mod test_routes;
mod tools;
mod util;
mod wasm_core;
mod webdriver;

use std::process::{Command, ExitCode};

use engines::Engine;
use util::{Result, cargo, project_root, rustup_target, step};

const USAGE: &str = "\
cargo xtask <task>

tasks:
  serve [--port N]  build the site and serve it on http://127.0.0.1:N/ (default 8080)
  test              every check: formatting, clippy, API docs, native tests (then the PostgreSQL
                    tests, which plain `cargo test` reports ignored, and a short chaos
                    run, on a throwaway cluster), records, the site and its wasm size budget (which builds
                    the core for wasm32), the browser tests and the built site in
                    Chromium, Firefox and WebKit, and `release --check`; a line per
                    stage (passed or failed, seconds) goes to target/xtask-test-summary.txt
                    as the run goes, and is printed at its end
  browser [--engine E] [--repeat N] [FILTER]
                    only the browser tests (those whose names contain FILTER) in engine E
                    (chromium, firefox, webkit or all; default all), N times in a row
                    (default 1), with a pass/fail count per engine; each run's output is kept
                    in target/browser-runs/
  browser --interactive FILE [FILTER]
                    the tests of tests/tests/FILE.rs whose names contain FILTER, or of
                    tests/tests/browser/FILE.rs whose names start with it, on
                    http://127.0.0.1:8000/ for a browser
                    you open yourself (the fixture server stays up until Ctrl-C)
  dist              write the static site to target/dist/ (with SHA256SUMS)
  release [--check] [--allow-dirty]
                    every artifact of this version in target/releases/project-lanes-VERSION/:
                    the .crate files (cargo package --workspace), the npm tarball, a zip of
                    the site, SHA256SUMS; with --check, each used as its users would in a
                    folder outside the repository (tools installed from their packages, a
                    new mdBook, the npm package in a plain page and a Vite build, tsc);
                    uncommitted changes are refused unless --allow-dirty
  smoke [--engine E]
                    build the site and check its pages render (default: all engines)
  screenshots [--engine E]
                    the standalone page (a bundled record, the guide's chaos run) and the
                    embed pages in English and Japanese, light and dark,
                    as PNG files in target/screenshots/ (default: all engines)
  size              raw and gzip bytes of the viewer's wasm and JS glue, against the budget
  bench [--engine E] [FILTER]
                    browser benchmarks (mount, switch, large records, replay, timeline),
                    those whose names contain FILTER, in engine E (default chromium, the
                    reference for the targets)
  bench instructions
                    a claim+release pair of plain lanes against a bare Mutex<HashMap>
                    insert+remove in instructions (callgrind; valgrind installed with
                    apt-get as root), their ratio, and the lanes' by source file
  pg-test [FILTER]  only the tests of project-lanes-pg and lanes-pg (pg-tests/; those whose
                    names contain FILTER), the ignored PostgreSQL ones included, on a
                    throwaway cluster
  pg-bench [FILTER] PostgreSQL benchmarks of project-lanes-pg (pg-tests/benches/; with
                    FILTER, those whose names contain it: pair, journal_cost, scaling,
                    dispatcher, whole_journal, sealing), on a throwaway cluster
  chaos [--secs N] [--seed S] [--workers W] [--pace MS]
                    the chaos run on a throwaway cluster: W worker processes (default 6)
                    for N seconds (default 90) on shared projects, killed, cut off and
                    paused past recovery, which a second role runs; then the whole journal
                    exported as one record (target/chaos/chaos.jsonl), replayed, audited,
                    a row changed by SQL named, and the runs checked for overlaps; with
                    --pace each run's work takes MS milliseconds more
  help              this text

Missing tools are installed on first use: the wasm32 target (rustup), wasm-bindgen-cli and
geckodriver at pinned versions (cargo install, into target/tools/), Chromium and ChromeDriver,
Firefox ESR, WebKitWebDriver with MiniBrowser and Xvfb, PostgreSQL (apt-get, when run as root;
otherwise the error names the packages).
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        ["test"] => test(),
        ["serve"] => serve(8080),
        ["serve", "--port", port] => match port.parse() {
            Ok(port) => serve(port),
            Err(_) => Err(format!("--port needs a number from 0 to 65535, not `{port}`").into()),
        },
        ["browser", rest @ ..] => browser_task(rest),
        ["dist"] => dist::dist().map(|_| ()),
        ["smoke", rest @ ..] => smoke(rest),
        ["screenshots", rest @ ..] => screenshots(rest),
        ["size"] => size::size(),
        ["bench", "instructions"] => instructions::instructions(),
        ["bench", rest @ ..] => bench(rest),
        ["pg-test"] => pg_test(None),
        ["pg-test", filter] if !filter.starts_with('-') => pg_test(Some(filter)),
        ["pg-bench"] => pg_bench(None),
        ["pg-bench", filter] if !filter.starts_with('-') => pg_bench(Some(filter)),
        ["chaos", rest @ ..] => chaos::chaos(rest),
        ["release", rest @ ..] => release_task(rest),
        ["help" | "--help" | "-h"] | [] => {
            print!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("unknown task `{}`\n\n{USAGE}", args.join(" ")).into()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("xtask: error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// `test`: every check, each a stage of the summary (`summary::FILE`), which is printed last,
/// pass or fail.
fn test() -> Result<()> {
    let root = project_root();
    let mut summary = summary::Summary::create(root.join(summary::FILE))?;
    let result = test_stages(&root, &mut summary);
    if let Err(error) = &result {
        eprintln!("xtask: error: {error}");
    }
    eprintln!("\nsummary ({}):", summary.path().display());
    eprint!("{}", summary.text());
    match (result, summary.failed()) {
        (Ok(()), _) => {
            step("all checks passed");
            Ok(())
        }
        (Err(_), Some(stage)) => Err(format!("cargo xtask test failed at: {stage}").into()),
        (Err(error), None) => Err(error),
    }
}

fn test_stages(root: &std::path::Path, summary: &mut summary::Summary) -> Result<()> {
    let prefetch = tools::Prefetch::start(engines::packages_to_install(&Engine::ALL))?;
    summary.stage("formatting (cargo fmt --check)", || {
        cargo(root, &["fmt", "--all", "--check"])
    })?;
    summary.stage("lints (cargo clippy -D warnings)", || {
        cargo(
            root,
            &[
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ],
        )
    })?;
    summary.stage(
        "lints for wasm32 (viewer, playground and browser tests)",
        || {
            cargo(
                root,
                &[
                    "clippy",
                    "-p",
                    "lane-viewer",
                    "-p",
                    "lane-viewer-tests",
                    "-p",
                    "lane-playground",
                    "--all-targets",
                    "--target",
                    tools::WASM_TARGET,
                    "--",
                    "-D",
                    "warnings",
                ],
            )
        },
    )?;
    summary.stage(
        "API docs (cargo doc -D warnings: every link in them resolves)",
        || {
            let cargo_bin = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            util::run(
                Command::new(cargo_bin)
                    .args([
                        "doc",
                        "--workspace",
                        "--no-deps",
                        "--all-features",
                        "--quiet",
                    ])
                    .env("RUSTDOCFLAGS", "-D warnings")
                    .current_dir(root),
            )
        },
    )?;
    summary.stage(
        "native tests (cargo test --workspace, as on a machine without PostgreSQL)",
        || postgres::without_database(root, &["test", "--workspace"]),
    )?;
    summary.stage(
        "the PostgreSQL tests, ignored above, on a throwaway PostgreSQL",
        || pg_tests_built(root),
    )?;
    summary.stage("a short chaos run on a throwaway PostgreSQL", || {
        chaos::run_chaos(root, "dev", &["--secs", "8", "--workers", "6"])
    })?;
    summary.stage("records are up to date (lane-records --check)", || {
        // The chaos run's build, not a build of lane-records alone (other features: a rebuild).
        let bin = chaos::build_tools(root, "dev")?;
        util::run(
            Command::new(bin.join("lane-records"))
                .arg("--check")
                .current_dir(root),
        )
    })?;
    let engines = summary.stage("the browsers and their drivers", || {
        prefetch.finish()?;
        engines::engines(&Engine::ALL)
    })?;
    summary.stage(
        "the core's reservation-id tests on wasm32, under Node.js",
        wasm_core::core_tests_on_wasm32,
    )?;
    // Building the viewer builds the core for wasm32 too.
    let dist = summary.stage("the site, and the viewer's size budget", || {
        let dist = dist::dist()?;
        size::report(&dist::built(&dist))?;
        size::report_playground(&dist::built_playground(&dist))?;
        Ok(dist)
    })?;
    summary.stage("the browser tests in Chromium, Firefox and WebKit", || {
        browser::run(browser::Suite::Tests, &engines, None).map(|_| ())
    })?;
    summary.stage("the built site's pages (smoke)", || {
        smoke::smoke_test_dist(&dist, &engines)
    })?;
    // A check of the work in this tree, committed or not.
    summary.stage(
        "the release, used as its users would (cargo xtask release --check)",
        || release_task(&["--check", "--allow-dirty"]),
    )?;
    Ok(())
}

/// `pg-test [FILTER]`: the tests of `project-lanes-pg` and `lanes-pg` (in `pg-tests/`), the
/// database ones included, on a throwaway cluster, as `test` runs them.
fn pg_test(filter: Option<&str>) -> Result<()> {
    let mut args = vec![
        "test",
        "-p",
        "project-lanes-pg",
        "-p",
        "lanes-pg",
        "-p",
        "project-lanes-pg-tests",
        "--",
        "--include-ignored",
    ];
    args.extend(filter);
    postgres::with_cluster(&project_root(), &args)
}

/// The PostgreSQL tests as `cargo xtask test` runs them: the test binaries of
/// `project-lanes-pg-tests` the workspace's build made (`cargo test --workspace`; a build of
/// those packages alone would unify other features and compile again), each with
/// `--include-ignored` on a throwaway cluster.
fn pg_tests_built(root: &std::path::Path) -> Result<()> {
    let package = root.join("pg-tests");
    let tests = util::test_binaries(root, &["--workspace"], &package)?;
    if tests.is_empty() {
        return Err("the workspace's build made no test binary of pg-tests".into());
    }
    postgres::binaries_with_cluster(root, &package, &tests)
}

/// `pg-bench [FILTER]`: the PostgreSQL benchmarks (those whose names contain FILTER) on a
/// throwaway cluster.
fn pg_bench(filter: Option<&str>) -> Result<()> {
    let mut args = vec!["bench", "-p", "project-lanes-pg-tests", "--"];
    args.extend(filter);
    postgres::with_cluster(&project_root(), &args)
}

/// `release [--check] [--allow-dirty]`: the release's folder, then (with `--check`) each of its
/// artifacts used as its users would.
fn release_task(args: &[&str]) -> Result<()> {
    let usage = "use: cargo xtask release [--check] [--allow-dirty]";
    let (mut check, mut allow_dirty) = (false, false);
    for arg in args {
        match *arg {
            "--check" => check = true,
            "--allow-dirty" => allow_dirty = true,
            _ => return Err(usage.into()),
        }
    }
    // The check builds every package from its files itself; `cargo package` need not first.
    let packages = if check {
        release::Packages::BuiltLater
    } else {
        release::Packages::Verified
    };
    let release = release::build(allow_dirty, packages)?;
    if check {
        installs::check(&release)?;
    }
    step(&format!("release ready: {}", release.dir.display()));
    Ok(())
}

/// `browser [--engine E] [--repeat N] [FILTER]` or `browser --interactive FILE [FILTER]`.
fn browser_task(args: &[&str]) -> Result<()> {
    let usage = "cargo xtask browser [--engine chromium|firefox|webkit|all] [--repeat N] \
                 [FILTER] or cargo xtask browser --interactive FILE [FILTER]";
    let args = args::browser_args(args, usage)?;
    rustup_target(tools::WASM_TARGET)?;
    if let Some(file) = args.interactive {
        if args.engine.is_some() || args.repeat.is_some() {
            return Err(format!("--interactive runs in your own browser; use: {usage}").into());
        }
        return browser::interactive(file, args.filter);
    }
    let engines = engines::engines(&args.engine.unwrap_or(Engine::ALL.to_vec()))?;
    browser::repeat(args.repeat.unwrap_or(1), &engines, args.filter)
}

/// `smoke [--engine E]`.
fn smoke(args: &[&str]) -> Result<()> {
    let args = args::browser_args(
        args,
        "cargo xtask smoke [--engine chromium|firefox|webkit|all]",
    )?;
    if args.repeat.is_some() || args.interactive.is_some() || args.filter.is_some() {
        return Err("use: cargo xtask smoke [--engine chromium|firefox|webkit|all]".into());
    }
    let engines = engines::engines(&args.engine.unwrap_or(Engine::ALL.to_vec()))?;
    let dist = dist::dist()?;
    smoke::smoke_test_dist(&dist, &engines)
}

/// `screenshots [--engine E]`.
fn screenshots(args: &[&str]) -> Result<()> {
    let usage = "cargo xtask screenshots [--engine chromium|firefox|webkit|all]";
    let args = args::browser_args(args, usage)?;
    if args.repeat.is_some() || args.interactive.is_some() || args.filter.is_some() {
        return Err(format!("use: {usage}").into());
    }
    let engines = engines::engines(&args.engine.unwrap_or(Engine::ALL.to_vec()))?;
    let dist = dist::dist()?;
    screenshots::take(&dist, &engines)
}

fn serve(port: u16) -> Result<()> {
    let dist = dist::dist()?;
    let server = serve::StaticServer::bind(&dist, port)?;
    println!(
        "serving {} at http://{}/  (the guide: http://{}/guide/; Ctrl-C to stop)",
        dist.display(),
        server.addr(),
        server.addr()
    );
    server.run()?;
    Ok(())
}

/// `bench [--engine E] [FILTER]`: Chromium unless told otherwise.
fn bench(args: &[&str]) -> Result<()> {
    let usage = "cargo xtask bench [--engine chromium|firefox|webkit|all] [FILTER]";
    let args = args::browser_args(args, usage)?;
    if args.repeat.is_some() || args.interactive.is_some() {
        return Err(format!("use: {usage}").into());
    }
    let engines = engines::engines(&args.engine.unwrap_or(vec![Engine::Chromium]))?;
    let outputs = browser::run(browser::Suite::Bench, &engines, args.filter)?;
    for (engine, lines) in outputs {
        let results: Vec<&str> = lines
            .iter()
            .filter_map(|l| l.trim().strip_prefix("BENCH "))
            .collect();
        if results.is_empty() {
            return Err(format!("the benchmark printed no results in {}", engine.label()).into());
        }
        println!("\nbrowser benchmarks ({}, medians):", engine.label());
        for result in results {
            println!("  {result}");
        }
    }
    Ok(())
}
