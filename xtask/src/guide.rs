//! The project's guide (`docs/`, an mdBook) built into `<site>/guide/` with the pinned mdbook and
//! this workspace's `mdbook-lanes`: `mdbook-lanes install docs` copies the viewer it carries (the
//! site's, see [`crate::dist::carry_viewer`]) into `docs/lanes/` (ignored by git; `book.toml`
//! already lists them),
//! then `mdbook build` runs the preprocessor found on `PATH`, so every ```` ```lanes ```` block is
//! run on the core and every `{{#lanes}}` record embedded as this build made them.

use std::path::Path;
use std::process::Command;

use crate::util::{Result, cargo, project_root, run, step};

/// Builds the guide from `docs/` into `site/guide/`; mdbook-lanes already carries the site's
/// viewer.
pub fn build(site: &Path) -> Result<()> {
    let root = project_root();
    let mdbook = crate::tools::mdbook()?;
    step("building mdbook-lanes (the guide's preprocessor)");
    cargo(&root, &["build", "--quiet", "-p", "mdbook-lanes"])?;
    let bin = root.join("target/debug");
    let docs = root.join("docs");
    run(Command::new(bin.join("mdbook-lanes"))
        .arg("install")
        .arg(&docs))?;
    step("building the guide with mdbook (docs/ → guide/)");
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin];
    dirs.extend(std::env::split_paths(&path));
    run(Command::new(mdbook)
        .arg("build")
        .arg(&docs)
        .arg("--dest-dir")
        .arg(site.join("guide"))
        .env("PATH", std::env::join_paths(dirs)?))
    .map_err(|e| {
        format!("{e}\nthe guide (docs/) did not build; the message above names the chapter")
    })?;
    step("the guide's Japanese pages: lang=\"ja\", and a link to each page's counterpart");
    crate::guide_lang::mark_and_check(&site.join("guide"))
}

/// The guide's pages that embed records, and how many viewers each holds.
pub const PAGES: [(&str, usize); 9] = [
    ("guide/introduction.html", 1),
    ("guide/lane-records.html", 3),
    ("guide/queue-records.html", 3),
    ("guide/scenarios.html", 1),
    ("guide/embedding.html", 1),
    ("guide/viewer.html", 1),
    ("guide/ja/embedding.html", 1),
    ("guide/ja/viewer.html", 1),
    ("guide/chaos-run.html", 1),
];
