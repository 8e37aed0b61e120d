//! The built site (`target/dist/`, as `cargo xtask serve` serves it) loaded in each engine: the
//! real glue, pages, content types and records together, and the guide (every embedded viewer
//! verified). In Chromium also the offline page from `file://`, and the guide with JavaScript
//! turned off (every record's static picture there, nothing claimed verified). A page passes when
//! its DOM holds what a reader must see; one that does not within the limit fails with what it
//! showed and the requests still open.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::engines::{Engine, Installed};
use crate::serve::{OpenRequests, StaticServer};
use crate::util::{Result, project_root, step};
use crate::webdriver::{Look, in_each_engine, in_session};

/// How long one page may take to show what it must.
const PAGE_LIMIT: Duration = Duration::from_secs(60);

/// Each page of the site and what its DOM must hold once it has rendered.
pub const PAGES: [(&str, &[&str]); 3] = [
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
        "playground.html#lang=ja",
        &[
            "data-record-state=\"current\"",
            "data-selected-record=\"independent-claims\"",
            "data-verification=\"verified\"",
            "data-lane-viewer=\"\" lang=\"ja\"",
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

/// The page with records inside it, opened from the folder (`file://`) in Chromium, and what it
/// must show: both records replayed by the standalone build, with no hash to compare.
pub const OFFLINE: (&str, &[&str]) = (
    "offline.html",
    &[
        "data-selected-record=\"busy-project\"",
        "data-selected-record=\"stale-release\"",
        "data-verification=\"verified\"",
        "data-no-hash",
    ],
);

/// Checks every page of the built site `dist` in each engine.
pub fn smoke_test_dist(dist: &Path, engines: &[Installed]) -> Result<()> {
    let server = StaticServer::bind(dist, 0)?;
    let open = server.open_requests();
    let addr = server.spawn();
    let logs = project_root().join("target/smoke");
    let what = "the built site (index.html, playground.html, embed.html, the guide)";
    in_each_engine(engines, what, (&logs, "driver"), async |client, engine| {
        for (page, expected) in PAGES {
            check_page(client, &format!("http://{addr}/{page}"), expected, &open).await?;
            println!("ok: {page} in {}", engine.label());
        }
        for (page, count) in crate::guide::PAGES {
            check_viewers(client, &format!("http://{addr}/{page}"), count, &open).await?;
            println!(
                "ok: {page} ({count} viewers verified) in {}",
                engine.label()
            );
        }
        if engine == Engine::Chromium {
            // A folder opened from a disk: no server, module scripts and fetches refused.
            let url = format!("file://{}", dist.join(OFFLINE.0).display());
            check_page(client, &url, OFFLINE.1, &open).await?;
            println!("ok: {url} in {}", engine.label());
        }
        Ok(())
    })?;
    match engines.iter().find(|i| i.engine == Engine::Chromium) {
        Some(chromium) => without_scripts(chromium, addr, &logs),
        None => Ok(()),
    }
}

/// The guide's pages in Chromium with scripts disabled: each `<lane-viewer>` keeps its static
/// picture (the timeline's drawing and every step card), and none claims to be verified.
fn without_scripts(installed: &Installed, addr: std::net::SocketAddr, logs: &Path) -> Result<()> {
    step("checking the guide in Chromium with JavaScript turned off");
    let log = logs.join("chromium-no-scripts-driver.log");
    let look = Look {
        scripts_off: true,
        ..Look::default()
    };
    in_session(installed, look, &log, async |client| {
        for (page, count) in crate::guide::PAGES {
            client.goto(&format!("http://{addr}/{page}")).await?;
            // The page's source as the browser holds it: no script is needed to read it.
            let html = client.source().await?;
            // mdBook's first inline script adds the class `js` to `<html>`: its absence shows
            // that no script ran.
            let root = html.split('>').next().unwrap_or_default();
            if root.split(['"', ' ']).any(|word| word == "js") {
                return Err(format!("{page}: scripts ran although turned off ({root}>)").into());
            }
            // Attributes of elements, not the same words shown in a code block (`&lt;div …`).
            let pictures = html
                .match_indices("data-lane-viewer-static")
                .filter(|(at, _)| {
                    let before = &html[..*at];
                    before.rfind('<') > before.rfind('>')
                })
                .count();
            let svgs = html.matches("<svg").count();
            if pictures != count || svgs < count || !html.contains("data-step=") {
                return Err(format!(
                    "{page} without JavaScript: {pictures} static pictures and {svgs} drawings \
                     (expected {count} of each at least, with step cards)"
                )
                .into());
            }
            if html.contains("data-verification=\"verified\"") {
                return Err(format!("{page} without JavaScript claims a verified record").into());
            }
            println!("ok: {page} without JavaScript ({count} static pictures)");
        }
        Ok(())
    })
}

/// Opens `url` and waits until its DOM holds every `expected` string, bringing each
/// `<lane-viewer>` that has not started into view in turn, as a reader scrolling down does (the
/// element starts its wasm only near the viewport).
pub async fn check_page(
    client: &fantoccini::Client,
    url: &str,
    expected: &[&str],
    open: &OpenRequests,
) -> Result<()> {
    let started = Instant::now();
    client.goto(url).await?;
    let mut dom = String::new();
    while started.elapsed() < PAGE_LIMIT {
        client
            .execute(
                "const next = [...document.querySelectorAll('lane-viewer')].find((e) => !e.viewer);
                 if (next) next.scrollIntoView();",
                vec![],
            )
            .await?;
        dom = page_html(client).await?;
        if expected.iter().all(|e| dom.contains(e)) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let missing: Vec<&&str> = expected.iter().filter(|e| !dom.contains(**e)).collect();
    let mut report = format!(
        "{url} did not render {missing:?} within {} s",
        PAGE_LIMIT.as_secs()
    );
    for (url, age) in open.list_since(started) {
        report.push_str(&format!(
            "\n  request still open: {url} (for {:.1} s)",
            age.as_secs_f64()
        ));
    }
    report.push_str("\n  page excerpt:\n");
    report.push_str(&dom.chars().take(2000).collect::<String>());
    Err(report.into())
}

/// Opens a guide page and waits until it holds `count` `<lane-viewer>` elements, each live and
/// verified (its record checked and replayed on the core in the browser), scrolling to each in
/// turn as `check_page` does.
pub async fn check_viewers(
    client: &fantoccini::Client,
    url: &str,
    count: usize,
    open: &OpenRequests,
) -> Result<()> {
    let started = Instant::now();
    client.goto(url).await?;
    let mut seen = (0, 0);
    while started.elapsed() < PAGE_LIMIT {
        let value = client
            .execute(
                "const all = [...document.querySelectorAll('lane-viewer')];
                 const next = all.find((e) => !e.viewer);
                 if (next) next.scrollIntoView();
                 const ok = all.filter((e) => e.viewer
                   && e.querySelector('[data-verification=\"verified\"]')
                   && !e.querySelector('[data-lane-viewer-static]'));
                 return [all.length, ok.length];",
                vec![],
            )
            .await?;
        let number = |i: usize| value[i].as_u64().unwrap_or(0) as usize;
        seen = (number(0), number(1));
        if seen == (count, count) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut report = format!(
        "{url}: {} of {} viewers verified within {} s (expected {count} viewers, all verified)",
        seen.1,
        seen.0,
        PAGE_LIMIT.as_secs()
    );
    for (url, age) in open.list_since(started) {
        report.push_str(&format!(
            "\n  request still open: {url} (for {:.1} s)",
            age.as_secs_f64()
        ));
    }
    let dom = page_html(client).await?;
    report.push_str("\n  page excerpt:\n");
    report.push_str(&dom.chars().take(2000).collect::<String>());
    Err(report.into())
}

/// The page's DOM as HTML, as it is now.
pub async fn page_html(client: &fantoccini::Client) -> Result<String> {
    let value = client
        .execute("return document.documentElement.outerHTML;", vec![])
        .await?;
    Ok(value.as_str().unwrap_or_default().to_owned())
}
