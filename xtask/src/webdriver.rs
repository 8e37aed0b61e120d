//! Driving an engine through its WebDriver server: the capabilities each engine gets (the same
//! for the test runner and for xtask's own sessions), and a driver process with a session of
//! fantoccini's WebDriver client ([`in_session`]), for the smoke test of the built site, the
//! release's pages and the screenshots.
//!
//! How a page is made to prefer dark colours or Japanese differs per engine: Chromium takes
//! `--force-dark-mode` and `--accept-lang`, Firefox takes preferences, WebKitGTK follows the GTK
//! theme of its driver's environment (`GTK_THEME=Adwaita:dark`) and has no language setting
//! that works without the system's locales (the pages take their language from the deep link or
//! the embedding, which is what the screenshots use).

use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::engines::{Display, Engine, Installed};
use crate::util::{Result, step, stop_group};

/// Chromium without background networking: this machine's network is closed, and Chromium's
/// attempts to reach its services would only slow it down.
pub const QUIET_CHROMIUM: [&str; 6] = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
];

/// The window every engine gets, so that the tests see the same viewport.
pub const WINDOW: (u32, u32) = (1280, 900);

/// How a page is looked at: colour scheme and the browser's preferred language.
#[derive(Clone, Copy, Default, Debug)]
pub struct Look {
    pub dark: bool,
    /// `None`: the engine's default (English here).
    pub lang: Option<&'static str>,
    /// Scripts disabled in pages, as for a reader who turned JavaScript off (Chromium only).
    pub scripts_off: bool,
}

/// The capabilities for a new session of `installed`. `headless` adds the engine's headless
/// switch (wasm-bindgen-test-runner adds its own, so its `webdriver.json` goes without).
/// WebKit gets none: WebKitWebDriver starts MiniBrowser with `--automation` by itself, and the
/// test runner sends WebKit no capabilities at all (see `browser.rs`), so neither does xtask.
pub fn capabilities(installed: &Installed, look: Look, headless: bool) -> Map<String, Value> {
    let mut caps = Map::new();
    match installed.engine {
        Engine::Chromium => {
            let mut args: Vec<String> = QUIET_CHROMIUM.iter().map(|a| a.to_string()).collect();
            args.push("--disable-extensions".into());
            args.push(format!("--window-size={},{}", WINDOW.0, WINDOW.1));
            if headless {
                args.extend(["--headless".into(), "--no-sandbox".into()]);
            }
            if look.dark {
                args.push("--force-dark-mode".into());
            }
            if let Some(lang) = look.lang {
                args.push(format!("--accept-lang={lang}"));
            }
            if look.scripts_off {
                args.push("--blink-settings=scriptEnabled=false".into());
            }
            caps.insert(
                "goog:chromeOptions".into(),
                json!({ "binary": installed.browser, "args": args }),
            );
        }
        Engine::Firefox => {
            let mut args = vec![
                format!("--width={}", WINDOW.0),
                format!("--height={}", WINDOW.1),
            ];
            if headless {
                args.push("-headless".into());
            }
            let mut prefs = json!({
                // 0 dark, 1 light: what `prefers-color-scheme` answers in pages.
                "layout.css.prefers-color-scheme.content-override": if look.dark { 0 } else { 1 },
                // No network of its own: no updates, telemetry or remote settings.
                "app.update.disabledForTesting": true,
                "datareporting.policy.dataSubmissionEnabled": false,
                "toolkit.telemetry.server": "",
                "browser.safebrowsing.provider.mozilla.updateURL": "",
                "services.settings.server": "",
                "network.connectivity-service.enabled": false,
                "network.captive-portal-service.enabled": false,
            });
            if let Some(lang) = look.lang {
                prefs["intl.accept_languages"] = json!(lang);
            }
            caps.insert(
                "moz:firefoxOptions".into(),
                json!({ "binary": installed.browser, "args": args, "prefs": prefs }),
            );
        }
        Engine::WebKit => {}
    }
    caps
}

/// The environment the engine's driver (and so its browser) runs in.
pub fn driver_env(
    installed: &Installed,
    look: Look,
    display: Option<&Display>,
) -> Vec<(String, String)> {
    let mut env = Vec::new();
    if installed.engine == Engine::WebKit {
        if let Some(display) = display {
            env.push(("DISPLAY".into(), display.name.clone()));
        }
        // WebKitGTK answers `prefers-color-scheme` from the GTK theme.
        let theme = if look.dark { "Adwaita:dark" } else { "Adwaita" };
        env.push(("GTK_THEME".into(), theme.into()));
    }
    env
}

/// A WebDriver server of one engine started by xtask (with its own X display for WebKit);
/// stopped when dropped.
struct Driver {
    child: Child,
    url: String,
    installed: Installed,
    look: Look,
    _display: Option<Display>,
}

impl Driver {
    /// Starts `installed`'s driver on a free port, its output in `log`, and waits until it
    /// listens.
    fn start(installed: &Installed, look: Look, log: &Path) -> Result<Driver> {
        let display = match &installed.xvfb {
            Some(xvfb) => Some(Display::start(xvfb)?),
            None => None,
        };
        let port = TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let log_file = std::fs::File::create(log)?;
        let child = Command::new(&installed.driver)
            .arg(format!("--port={port}"))
            // Its own group, so that stopping it stops the browser it started too.
            .process_group(0)
            .envs(driver_env(installed, look, display.as_ref()))
            .stdin(Stdio::null())
            .stdout(log_file.try_clone()?)
            .stderr(log_file)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", installed.driver.display()))?;
        let mut driver = Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            installed: installed.clone(),
            look,
            _display: display,
        };
        let started = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if driver.child.try_wait()?.is_some() || started.elapsed() > Duration::from_secs(30) {
                return Err(format!(
                    "{} did not start listening (its log: {})",
                    installed.driver.display(),
                    log.display()
                )
                .into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(driver)
    }

    /// A new headless session with this driver's look, in a window of `WINDOW`.
    async fn session(&self) -> Result<fantoccini::Client> {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        let client = fantoccini::ClientBuilder::new(connector)
            .capabilities(capabilities(&self.installed, self.look, true))
            .connect(&self.url)
            .await
            .map_err(|e| format!("{} refused a session: {e}", self.installed.driver.display()))?;
        client.set_window_size(WINDOW.0, WINDOW.1).await?;
        Ok(client)
    }
}

/// Starts `installed`'s driver with `look` (its output in `log`), opens a session, runs `visit`
/// with it on a runtime of its own and closes the session, whatever `visit` returned: every
/// browser session xtask opens itself (smoke pages, the release's pages, screenshots) goes
/// through here. An error names the engine and the driver's log.
pub fn in_session<T>(
    installed: &Installed,
    look: Look,
    log: &Path,
    visit: impl AsyncFnOnce(&fantoccini::Client) -> Result<T>,
) -> Result<T> {
    let in_engine = |e: &dyn std::fmt::Display| {
        format!(
            "in {}: {e}\n  the driver's log: {}",
            installed.engine.label(),
            log.display()
        )
    };
    let driver = Driver::start(installed, look, log)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime
        .block_on(async {
            let client = driver.session().await?;
            let result = visit(&client).await;
            let _ = client.close().await;
            result
        })
        .map_err(|e| in_engine(&e).into())
}

/// [`in_session`] in each of `engines` in turn, with the default look: `what` names the pages
/// (the progress line says `WHAT in Firefox`, and so does an error), and each driver's log is
/// `logs/<engine>-<log>.log`.
pub fn in_each_engine(
    engines: &[Installed],
    what: &str,
    (logs, log): (&Path, &str),
    visit: impl AsyncFn(&fantoccini::Client, Engine) -> Result<()>,
) -> Result<()> {
    std::fs::create_dir_all(logs)?;
    for installed in engines {
        let engine = installed.engine;
        step(&format!("{what} in {}", engine.label()));
        let log = logs.join(format!("{}-{log}.log", engine.name()));
        in_session(installed, Look::default(), &log, async |client| {
            visit(client, engine).await
        })
        .map_err(|e| format!("{what} {e}"))?;
    }
    Ok(())
}

impl Drop for Driver {
    fn drop(&mut self) {
        stop_group(&mut self.child);
    }
}
