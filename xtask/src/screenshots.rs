//! `cargo xtask screenshots`: the built site's standalone page (in English and in Japanese, with
//! a bundled record and with the guide's version 3 record of a chaos run), its embed page, its
//! page of records inside the page (one viewer in each language), the guide's chaos chapter and its
//! embedding chapter (in English and Japanese), in light and dark colour schemes, in each
//! engine, as PNG files in `target/screenshots/` — to look at what the tests cannot judge.
//! Each picture is taken once every record on the page is shown and verified, with the window
//! as tall as the page (up to `MAX_HEIGHT`).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crate::engines::Installed;
use crate::serve::StaticServer;
use crate::tools::{apt_install, can_apt};
use crate::util::{Result, output, project_root, step};
use crate::webdriver::{Driver, Look, WINDOW};

/// The tallest window a picture is taken in.
const MAX_HEIGHT: u32 = 4000; // Xvfb's screen for WebKit is 4200 pixels tall (engines.rs)

/// How long a page may take to be ready for its picture.
const READY_LIMIT: Duration = Duration::from_secs(60);

/// Each picture: its name, the page, and how many viewers the page holds.
const SHOTS: [(&str, &str, usize); 9] = [
    (
        "standalone-en",
        "index.html#record=persistence-gate&lang=en",
        1,
    ),
    (
        "standalone-ja",
        "index.html#record=persistence-gate&lang=ja",
        1,
    ),
    ("embed", "embed.html", 2),
    ("offline", "offline.html", 2),
    // A version 3 record from a real journal (the guide's chaos run).
    ("journal-en", "index.html#src=guide/chaos.jsonl&lang=en", 1),
    ("journal-ja", "index.html#src=guide/chaos.jsonl&lang=ja", 1),
    ("guide-chaos-run", "guide/chaos-run.html", 1),
    // The guide's embedding chapter, in English and in Japanese.
    ("guide-embedding", "guide/embedding.html", 1),
    ("guide-embedding-ja", "guide/ja/embedding.html", 1),
];

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
    let server = StaticServer::bind(dist, 0)?;
    let addr = server.spawn();
    let out = project_root().join("target/screenshots");
    std::fs::create_dir_all(&out)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    for installed in engines {
        let engine = installed.engine;
        for dark in [false, true] {
            let scheme = if dark { "dark" } else { "light" };
            step(&format!("screenshots in {} ({scheme})", engine.label()));
            let log = out.join(format!("{}-{scheme}-driver.log", engine.name()));
            let driver = Driver::start(
                installed,
                Look {
                    dark,
                    ..Look::default()
                },
                &log,
            )?;
            runtime.block_on(async {
                let client = driver.session().await?;
                let result = async {
                    for (name, page, viewers) in SHOTS {
                        let url = format!("http://{addr}/{page}");
                        let png = picture(&client, &url, viewers, dark)
                            .await
                            .map_err(|e| format!("{url} in {} ({scheme}): {e}", engine.label()))?;
                        let file = out.join(format!("{}-{scheme}-{name}.png", engine.name()));
                        std::fs::write(&file, png)?;
                        println!("  {}", file.display());
                    }
                    Ok::<(), Box<dyn std::error::Error>>(())
                }
                .await;
                let _ = client.close().await;
                result
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
    viewers: usize,
    dark: bool,
) -> Result<Vec<u8>> {
    // Loaded in the tallest window, then made as tall as the page: WebKit does not always lay out
    // the parts of a page that a growing window brings into view until it scrolls.
    client.set_window_size(WINDOW.0, MAX_HEIGHT).await?;
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
        .set_window_size(WINDOW.0, (height as u32).clamp(WINDOW.1, MAX_HEIGHT))
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
