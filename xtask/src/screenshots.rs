//! `cargo xtask screenshots`: the built site's standalone page (in English and in Japanese, with
//! a bundled record and with the guide's version 3 record of a chaos run), its embed page, its
//! page of records inside the page (one viewer in each language), the guide's chaos chapter and
//! its embedding chapter (in English and Japanese), a comparison of two records (and the
//! guide's chapter on comparing), the scenario playground (also with an error in the scenario, its
//! last record kept), and a 100,000-step record over 1,000
//! projects (`farm.rs`) at 1280 and 390 px (in both languages), in light and dark colour
//! schemes, in each engine, as PNG files in `target/screenshots/` — to look at what the tests
//! cannot judge. The pages are served from a copy of the built site with that record added
//! (`target/screenshot-site/`), so the site itself stays as it is published.
//! Each picture is taken once every record on the page is shown and verified, with the window
//! as tall as the page (up to `MAX_HEIGHT`).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::engines::Installed;
use crate::serve::StaticServer;
use crate::tools::{apt_install, can_apt};
use crate::util::{Result, output, project_root, step};
use crate::webdriver::{Look, WINDOW, in_session};

/// The tallest window a picture is taken in.
const MAX_HEIGHT: u32 = 4000; // Xvfb's screen for WebKit is 4200 pixels tall (engines.rs)

/// How long a page may take to be ready for its picture.
const READY_LIMIT: Duration = Duration::from_secs(60);

/// Each picture: its name, the page, how many viewers the page holds, and the window's width.
const SHOTS: [(&str, &str, usize, u32); 22] = [
    ("standalone-en", STANDALONE_EN, 1, WINDOW.0),
    ("standalone-ja", STANDALONE_JA, 1, WINDOW.0),
    ("embed", "embed.html", 2, WINDOW.0),
    ("offline", "offline.html", 2, WINDOW.0),
    // A version 3 record from a real journal (the guide's chaos run).
    ("journal-en", JOURNAL_EN, 1, WINDOW.0),
    ("journal-ja", JOURNAL_JA, 1, WINDOW.0),
    ("guide-chaos-run", "guide/chaos-run.html", 1, WINDOW.0),
    // The guide's embedding chapter, in English and in Japanese.
    ("guide-embedding", "guide/embedding.html", 1, WINDOW.0),
    ("guide-embedding-ja", "guide/ja/embedding.html", 1, WINDOW.0),
    // A comparison of two bundled records (its second difference current), on a desk and on a
    // phone, and the guide's chapter that compares two live.
    ("compare-en", COMPARE_EN, 1, WINDOW.0),
    ("compare-ja", COMPARE_JA, 1, WINDOW.0),
    ("compare-en-390", COMPARE_EN, 1, 390),
    ("compare-ja-390", COMPARE_JA, 1, 390),
    ("guide-comparing", "guide/comparing.html", 1, WINDOW.0),
    // A long record: its overview, and the window of its steps near its end, on a desk and on a
    // phone.
    ("large-en", LARGE_PAGE_EN, 1, WINDOW.0),
    ("large-ja", LARGE_PAGE_JA, 1, WINDOW.0),
    ("large-en-390", LARGE_PAGE_EN, 1, 390),
    ("large-ja-390", LARGE_PAGE_JA, 1, 390),
    ("large-end-en", LARGE_END_EN, 1, WINDOW.0),
    ("large-end-ja", LARGE_END_JA, 1, WINDOW.0),
    ("large-end-en-390", LARGE_END_EN, 1, 390),
    ("large-end-ja-390", LARGE_END_JA, 1, 390),
];

/// The playground: its name, page, window width and a script run once it shows its record. Each
/// has its own query, so that each is a page of its own, loaded afresh.
const PLAYGROUND: [(&str, &str, u32, &str); 6] = [
    (
        "playground-en",
        "playground.html?1#lang=en&record=persistence-gate",
        WINDOW.0,
        "",
    ),
    (
        "playground-ja",
        "playground.html?2#lang=ja&record=persistence-gate",
        WINDOW.0,
        "",
    ),
    (
        "playground-en-390",
        "playground.html?3#lang=en&record=busy-project",
        390,
        "",
    ),
    (
        "playground-ja-390",
        "playground.html?4#lang=ja&record=busy-project",
        390,
        "",
    ),
    (
        "playground-error-en",
        "playground.html?5#lang=en&record=busy-project",
        WINDOW.0,
        BREAK_SCENARIO,
    ),
    (
        "playground-error-ja",
        "playground.html?6#lang=ja&record=busy-project",
        WINDOW.0,
        BREAK_SCENARIO,
    ),
];

/// Puts a mistake in the playground's scenario, as typing would.
const BREAK_SCENARIO: &str = "
    const editor = document.querySelector('[data-editor]');
    editor.value = editor.value.replace('run = \"nightly-101\"', 'run = nightly-101\"');
    editor.dispatchEvent(new Event('input'));";

/// The standalone page comparing the busy project with the stale release.
const STANDALONE_EN: &str = "index.html#record=persistence-gate&lang=en";
const STANDALONE_JA: &str = "index.html#record=persistence-gate&lang=ja";
const JOURNAL_EN: &str = "index.html#src=records/chaos-run.jsonl&lang=en";
const JOURNAL_JA: &str = "index.html#src=records/chaos-run.jsonl&lang=ja";

const COMPARE_EN: &str =
    "index.html#record=busy-project&lang=en&compare=busy-project,stale-release&diff=2";
const COMPARE_JA: &str =
    "index.html#record=busy-project&lang=ja&compare=busy-project,stale-release&diff=2";

/// Steps of the long record the pictures show, and where it is on the served copy.
const LARGE_STEPS: usize = 100_000;
const LARGE_FILE: &str = "screenshots/large-100000.jsonl";
const LARGE_PAGE_EN: &str = "index.html#src=screenshots/large-100000.jsonl&lang=en";
const LARGE_PAGE_JA: &str = "index.html#src=screenshots/large-100000.jsonl&lang=ja";
const LARGE_END_EN: &str = "index.html#src=screenshots/large-100000.jsonl&lang=en&step=99990";
const LARGE_END_JA: &str = "index.html#src=screenshots/large-100000.jsonl&lang=ja&step=99990";

/// True once `arguments[0]` viewers show a verified record, no tab is loading and the fonts
/// are in.
const READY: &str = "
    const panels = document.querySelectorAll('[role=tabpanel][data-selected-record]');
    return panels.length >= arguments[0]
        && [...panels].every(p => p.getAttribute('data-verification') === 'verified')
        && !document.querySelector('[role=tab][aria-busy=true]')
        && document.fonts.status === 'loaded';";

pub fn take(dist: &Path, engines: &[Installed]) -> Result<()> {
    japanese_fonts()?;
    let site = project_root().join("target/screenshot-site");
    if site.exists() {
        std::fs::remove_dir_all(&site)?;
    }
    let copied = Command::new("cp").arg("-a").arg(dist).arg(&site).status()?;
    if !copied.success() {
        return Err(format!("cannot copy {} to {}", dist.display(), site.display()).into());
    }
    step(&format!(
        "writing a {LARGE_STEPS}-step record for the pictures"
    ));
    std::fs::create_dir_all(site.join("screenshots"))?;
    let farm = crate::farm::farm("large-100000", LARGE_STEPS, 1_000, false)?;
    std::fs::write(site.join(LARGE_FILE), farm)?;
    let server = StaticServer::bind(&site, 0)?;
    let addr = server.spawn();
    let out = project_root().join("target/screenshots");
    std::fs::create_dir_all(&out)?;
    for installed in engines {
        let engine = installed.engine;
        for dark in [false, true] {
            let scheme = if dark { "dark" } else { "light" };
            step(&format!("screenshots in {} ({scheme})", engine.label()));
            let log = out.join(format!("{}-{scheme}-driver.log", engine.name()));
            let look = Look {
                dark,
                ..Look::default()
            };
            in_session(installed, look, &log, async |client| {
                let playground = PLAYGROUND
                    .iter()
                    .map(|&(name, page, width, prepare)| (name, page, 1, width, Some(prepare)));
                let shots = SHOTS
                    .iter()
                    .map(|&(name, page, viewers, width)| (name, page, viewers, width, None))
                    .chain(playground);
                for (name, page, viewers, width, prepare) in shots {
                    let url = format!("http://{addr}/{page}");
                    let png = picture(client, &url, (viewers, width), prepare, dark)
                        .await
                        .map_err(|e| format!("{url} ({scheme}): {e}"))?;
                    let file = out.join(format!("{}-{scheme}-{name}.png", engine.name()));
                    std::fs::write(&file, png)?;
                    println!("  {}", file.display());
                }
                Ok(())
            })?;
        }
    }
    Ok(())
}

/// Opens `url`, waits until it is ready, makes the window as tall as the page and takes the
/// picture; fails if the page does not see the wanted colour scheme.
async fn picture(
    client: &fantoccini::Client,
    url: &str,
    (viewers, width): (usize, u32),
    prepare: Option<&str>,
    dark: bool,
) -> Result<Vec<u8>> {
    // Loaded in the tallest window, then made as tall as the page: WebKit does not always lay out
    // the parts of a page that a growing window brings into view until it scrolls.
    client.set_window_size(width, MAX_HEIGHT).await?;
    client.goto(url).await?;
    let started = Instant::now();
    loop {
        let ready = client.execute(READY, vec![viewers.into()]).await?;
        if ready.as_bool() == Some(true) {
            break;
        }
        if started.elapsed() > READY_LIMIT {
            return Err(format!(
                "not ready within {} s (every record shown and verified)",
                READY_LIMIT.as_secs()
            )
            .into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if let Some(script) = prepare.filter(|s| !s.is_empty()) {
        client.execute(script, vec![]).await?;
        // The playground runs again after a quarter of a second of quiet.
        tokio::time::sleep(Duration::from_millis(1500)).await;
    }
    let seen = client
        .execute(
            "return matchMedia('(prefers-color-scheme: dark)').matches;",
            vec![],
        )
        .await?;
    if seen.as_bool() != Some(dark) {
        return Err(format!("the page sees prefers-color-scheme dark = {seen}, not {dark}").into());
    }
    let height = client
        .execute(
            "return Math.ceil(document.body.getBoundingClientRect().bottom + scrollY) + 16 + (outerHeight - innerHeight);",
            vec![],
        )
        .await?
        .as_u64()
        .unwrap_or(WINDOW.1 as u64);
    client
        .set_window_size(width, (height as u32).clamp(WINDOW.1, MAX_HEIGHT))
        .await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(client.screenshot().await?)
}

/// A font with Japanese glyphs, without which the Japanese pictures show empty boxes: Debian's
/// `fonts-noto-cjk` (what most Linux desktops read Japanese with), installed as root.
fn japanese_fonts() -> Result<()> {
    let has = || {
        output(Command::new("fc-list").args([":lang=ja", "family"]))
            .is_some_and(|fonts| !fonts.trim().is_empty())
    };
    if has() {
        return Ok(());
    }
    if !can_apt() {
        return Err(
            "the Japanese pictures need a Japanese font, and this machine has none.\n\
                    On Debian or Ubuntu: sudo apt-get install -y --no-install-recommends \
                    fonts-noto-cjk"
                .into(),
        );
    }
    step("installing a Japanese font for the pictures (apt-get install fonts-noto-cjk)");
    apt_install(&["fonts-noto-cjk"], None)
}
