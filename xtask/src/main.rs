//! `cargo xtask`: every automation step of the workspace, in one Rust program.
//!
//! Run `cargo xtask help` for the list of tasks.

mod browser;
mod dist;
mod fixtures;
mod postgres;
mod responses;
mod serve;
mod size;
mod test_routes;
mod tools;
mod util;
mod wasm_core;

use std::process::ExitCode;

use util::{Result, cargo, project_root, rustup_target, step};

const USAGE: &str = "\
cargo xtask <task>

tasks:
  serve [--port N]  build the site and serve it on http://127.0.0.1:N/ (default 8080)
  test              every check: formatting, clippy, native tests, records, the site and its
                    wasm size budget (which builds the core for wasm32),
                    browser tests in headless Chromium
  browser [--repeat N] [FILTER]
                    only the browser tests (those whose names contain FILTER), N times in a
                    row (default 1), with a pass/fail count; each run's output is kept in
                    target/browser-runs/
  browser --interactive FILE [FILTER]
                    the tests of tests/tests/FILE.rs on http://127.0.0.1:8000/ for a browser
                    you open yourself (the fixture server stays up until Ctrl-C)
  dist              write the static site to target/dist/ (with SHA256SUMS)
  smoke             build the site and check its pages render in headless Chromium
  size              raw and gzip bytes of the viewer's wasm and JS glue, against the budget
  bench [FILTER]    browser benchmarks in headless Chromium (mount, switch, large records,
                    replay, timeline), those whose names contain FILTER
  pg-bench          PostgreSQL benchmarks of project-lanes-pg, on a throwaway cluster
  help              this text

Missing tools are installed on first use: the wasm32 target (rustup), wasm-bindgen-cli at the
pinned version (into target/tools/), Chromium and ChromeDriver, PostgreSQL (apt-get, when run
as root).
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
        ["smoke"] => dist::dist().and_then(|dist| browser::smoke_test_dist(&dist)),
        ["size"] => size::size(),
        ["bench"] => bench(None),
        ["bench", filter] => bench(Some(filter)),
        ["pg-bench"] => {
            postgres::with_cluster(&project_root(), &["bench", "-p", "project-lanes-pg"])
        }
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

fn test() -> Result<()> {
    let root = project_root();
    let prefetch = tools::Prefetch::start()?;
    step("formatting (cargo fmt --check)");
    cargo(&root, &["fmt", "--all", "--check"])?;
    step("lints (cargo clippy -D warnings)");
    cargo(
        &root,
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    step("lints for wasm32 (viewer and browser tests)");
    cargo(
        &root,
        &[
            "clippy",
            "-p",
            "lane-viewer",
            "-p",
            "lane-viewer-tests",
            "--all-targets",
            "--target",
            tools::WASM_TARGET,
            "--",
            "-D",
            "warnings",
        ],
    )?;
    step("native tests (cargo test --workspace), with a throwaway PostgreSQL for project-lanes-pg");
    postgres::with_cluster(&root, &["test", "--workspace"])?;
    step("records are up to date (lane-records --check)");
    cargo(
        &root,
        &["run", "--quiet", "-p", "lane-records", "--", "--check"],
    )?;

    prefetch.finish()?;
    wasm_core::core_tests_on_wasm32()?;
    // Building the viewer builds the core for wasm32 too.
    step("the site, and the viewer's size budget");
    let dist = dist::dist()?;
    size::report(&dist::built(&dist))?;
    browser::run(browser::Suite::Tests, None)?;
    browser::smoke_test_dist(&dist)?;
    step("all checks passed");
    Ok(())
}

/// `browser [--repeat N] [FILTER]`.
fn browser_task(args: &[&str]) -> Result<()> {
    let (times, filter) = match args {
        ["--interactive", file, filter @ ..] if filter.len() <= 1 => {
            rustup_target(tools::WASM_TARGET)?;
            return browser::interactive(file, filter.first().copied());
        }
        [] => (1, None),
        [filter] if !filter.starts_with('-') => (1, Some(*filter)),
        ["--repeat", n, rest @ ..] if rest.len() <= 1 => {
            let times = n
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("--repeat needs a whole number from 1 up, not `{n}`"))?;
            (times, rest.first().copied())
        }
        _ => {
            return Err(format!(
                "cannot read `browser {}`; use: cargo xtask browser [--repeat N] [FILTER] \
                 or cargo xtask browser --interactive FILE [FILTER]",
                args.join(" ")
            )
            .into());
        }
    };
    rustup_target(tools::WASM_TARGET)?;
    browser::repeat(times, filter)
}

fn serve(port: u16) -> Result<()> {
    let dist = dist::dist()?;
    let server = serve::StaticServer::bind(&dist, port)?;
    println!(
        "serving {} at http://{}/  (Ctrl-C to stop)",
        dist.display(),
        server.addr()
    );
    server.run()?;
    Ok(())
}

fn bench(filter: Option<&str>) -> Result<()> {
    let lines = browser::run(browser::Suite::Bench, filter)?;
    let results: Vec<&str> = lines
        .iter()
        .filter_map(|l| l.trim().strip_prefix("BENCH "))
        .collect();
    if results.is_empty() {
        return Err("the benchmark printed no results".into());
    }
    println!("\nbrowser benchmarks (headless Chromium, medians):");
    for result in results {
        println!("  {result}");
    }
    Ok(())
}
