//! `cargo xtask release [--check]`: every artifact of this version in one folder.
//!
//! ```text
//! target/releases/project-lanes-<version>/
//!   crates/<crate>-<version>.crate        (cargo package --workspace, each built from its files)
//!   lane-viewer-<version>.tgz             (the npm package: the element, types, standalone build)
//!   project-lanes-site-<version>.zip      (the static site of `cargo xtask dist`)
//!   SHA256SUMS                            (`sha256sum -c SHA256SUMS` verifies the folder)
//! ```
//!
//! `release --check` then uses them as their users would, outside the repository: see
//! [`crate::installs`].

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::util::{Result, project_root, run, step};

/// This release's version: every crate's (`[workspace.package]`), the npm package's too.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The crates users depend on or install, in the order `cargo package` builds them; every other
/// member of the workspace is `publish = false`.
pub const CRATES: [&str; 8] = [
    "project-lanes",
    "project-lanes-runner",
    "project-lanes-pg",
    "project-lanes-view",
    "lane-viewer",
    "lane-records",
    "lanes-pg",
    "mdbook-lanes",
];

/// The target folder the packages are built in, by `cargo package` and by the release check's
/// `cargo install`s: apart from the workspace's, and shared, so the installs reuse the builds.
pub const PACKAGES_TARGET: &str = "target/release-check";

/// The npm package's name.
pub const NPM_PACKAGE: &str = "lane-viewer";

/// What a release folder holds, by path.
pub struct Release {
    pub dir: PathBuf,
    pub site: PathBuf,
}

impl Release {
    pub fn crate_file(&self, name: &str) -> PathBuf {
        self.dir
            .join("crates")
            .join(format!("{name}-{VERSION}.crate"))
    }

    pub fn npm_tarball(&self) -> PathBuf {
        self.dir.join(format!("{NPM_PACKAGE}-{VERSION}.tgz"))
    }

    pub fn site_zip(&self) -> PathBuf {
        self.dir.join(format!("project-lanes-site-{VERSION}.zip"))
    }
}

/// Who builds each packaged crate from its packaged files, as `cargo package` verifies it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Packages {
    /// `cargo package` does (each crate in a folder of its own).
    Verified,
    /// The release check does, once, outside the repository ([`crate::installs`]): the same
    /// builds would be made twice otherwise.
    BuiltLater,
}

/// Builds every artifact into `target/releases/project-lanes-<version>/`. Uncommitted changes
/// are refused (the crates record the commit they were made from) unless `allow_dirty`.
pub fn build(allow_dirty: bool, packages: Packages) -> Result<Release> {
    let root = project_root();
    if !allow_dirty {
        tree_is_committed(&root)?;
    }
    changelog_has_this_version(&root)?;
    // The site first: it is what mdbook-lanes carries (`dist::carry_viewer`) and what is zipped.
    let site = crate::dist::dist()?;
    let release = Release {
        dir: root.join(format!("target/releases/project-lanes-{VERSION}")),
        site,
    };
    if release.dir.exists() {
        std::fs::remove_dir_all(&release.dir)?;
    }
    std::fs::create_dir_all(release.dir.join("crates"))?;
    step(match packages {
        Packages::Verified => {
            "packaging the crates (cargo package --workspace, but the playground: each built \
             from its packaged files)"
        }
        Packages::BuiltLater => {
            "packaging the crates (cargo package --workspace --no-verify, but the playground: \
             the check builds each from its packaged files)"
        }
    });
    // Cargo counts the viewer mdbook-lanes carries (ignored by git, listed in its `include`) as
    // an uncommitted change, so `tree_is_committed` stands in for its own check.
    // The playground's module is part of the site, not a crate: it holds the workspace's
    // scenarios (`records/scenarios/`), which no package of its own could.
    // Packages build in a target folder of their own: built alone, lane-viewer would replace
    // the workspace's unhashed `target/debug/liblane_viewer.rlib` with one of other features.
    let cargo_bin = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(Command::new(cargo_bin)
        .args([
            "package",
            "--workspace",
            "--exclude",
            "lane-playground",
            "--allow-dirty",
        ])
        .args((packages == Packages::BuiltLater).then_some("--no-verify"))
        .env("CARGO_TARGET_DIR", root.join(PACKAGES_TARGET))
        .current_dir(&root))?;
    packaged_crates_are_the_published_ones(&root)?;
    the_postgresql_library_builds_no_tool(&root)?;
    for name in CRATES {
        let file = root
            .join(PACKAGES_TARGET)
            .join("package")
            .join(format!("{name}-{VERSION}.crate"));
        crate::dist::copy(&file, &release.crate_file(name))?;
    }
    step("packing the npm package (npm pack)");
    let package = npm_package(&root, &release.site)?;
    run(Command::new("npm")
        .args(["pack", "--silent", "--pack-destination"])
        .arg(&release.dir)
        .current_dir(&package))?;
    if !release.npm_tarball().is_file() {
        return Err(format!("npm pack wrote no {}", release.npm_tarball().display()).into());
    }
    step("zipping the static site");
    zip_dir(
        &release.site,
        &format!("project-lanes-site-{VERSION}"),
        &release.site_zip(),
    )?;
    let files = crate::dist::write_sums(&release.dir)?;
    step(&format!(
        "{files} files and SHA256SUMS in {}",
        release.dir.display()
    ));
    Ok(release)
}

/// Nothing in the working tree differs from the commit (`git status`: no change, no new file
/// outside what git ignores), so the crates come from a commit others can check out.
fn tree_is_committed(root: &Path) -> Result<()> {
    let status = crate::util::output(
        Command::new("git")
            .args(["status", "--porcelain"])
            .current_dir(root),
    )
    .ok_or("git status failed (a release is made from a git checkout)")?;
    if status.trim().is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the working tree has changes not committed (commit them, or pass --allow-dirty for \
             a release that is only checked):\n{status}"
        )
        .into())
    }
}

/// `CHANGELOG.md` (Keep a Changelog) has a section for this version.
fn changelog_has_this_version(root: &Path) -> Result<()> {
    let path = root.join("CHANGELOG.md");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let heading = format!("## [{VERSION}]");
    if text.lines().any(|line| line.starts_with(&heading)) {
        Ok(())
    } else {
        Err(format!("CHANGELOG.md has no `{heading} - YYYY-MM-DD` section for this version").into())
    }
}

/// [`CRATES`] are exactly the members that may be published (`cargo metadata`), and
/// `cargo package --workspace` packaged each at this version: a crate made publishable without
/// being listed here (or the other way round) is found.
fn packaged_crates_are_the_published_ones(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let metadata = crate::util::output(
        Command::new(cargo)
            .args(["metadata", "--no-deps", "--format-version", "1"])
            .current_dir(root),
    )
    .ok_or("cargo metadata failed")?;
    let metadata: serde_json::Value = serde_json::from_str(&metadata)?;
    let mut publishable = Vec::new();
    for package in metadata["packages"].as_array().into_iter().flatten() {
        // `publish = false` is an empty list of registries; absent means crates.io.
        let unpublished = package["publish"].as_array().is_some_and(|r| r.is_empty());
        let name = package["name"].as_str().unwrap_or_default();
        // Every dependency inside the workspace asks for this version (Cargo.toml's
        // `[workspace.dependencies]` says it a second time, for `cargo package`).
        for dep in package["dependencies"].as_array().into_iter().flatten() {
            let wanted = format!("^{VERSION}");
            let dev = dep["kind"].as_str() == Some("dev");
            if !dev && dep.get("path").is_some() && dep["req"].as_str() != Some(wanted.as_str()) {
                return Err(format!(
                    "{name} depends on {} {}, not this release's {VERSION} (Cargo.toml's \
                     [workspace.dependencies])",
                    dep["name"].as_str().unwrap_or_default(),
                    dep["req"].as_str().unwrap_or_default()
                )
                .into());
            }
        }
        if !unpublished {
            publishable.push(name.to_string());
            if package["version"].as_str() != Some(VERSION) {
                return Err(format!("{name} is not at this release's version {VERSION}").into());
            }
        }
    }
    publishable.sort();
    let mut listed: Vec<String> = CRATES.iter().map(|s| s.to_string()).collect();
    listed.sort();
    if publishable != listed {
        return Err(format!(
            "the publishable crates are {publishable:?}; xtask's release lists {listed:?} (make \
             a crate publish = false, or list it in release::CRATES)"
        )
        .into());
    }
    Ok(())
}

/// The crates a library user of the PostgreSQL backend must not build: the operator's command
/// line parser, time parser and temporary files are `lanes-pg`'s.
const TOOL_CRATES: [&str; 3] = ["clap", "jiff", "tempfile"];

/// `cargo tree -p project-lanes-pg -e normal` holds none of [`TOOL_CRATES`].
fn the_postgresql_library_builds_no_tool(root: &Path) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tree = crate::util::output(
        Command::new(cargo)
            .args([
                "tree",
                "-p",
                "project-lanes-pg",
                "-e",
                "normal",
                "--prefix",
                "none",
            ])
            .current_dir(root),
    )
    .ok_or("cargo tree -p project-lanes-pg failed")?;
    let found: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split(' ').next())
        .filter(|name| TOOL_CRATES.contains(name))
        .collect();
    if found.is_empty() {
        Ok(())
    } else {
        Err(format!("project-lanes-pg builds {found:?}, which only lanes-pg should need").into())
    }
}

/// Assembles the npm package in `target/npm/lane-viewer/` from the built site and `web/npm/`.
fn npm_package(root: &Path, site: &Path) -> Result<PathBuf> {
    let dir = root.join("target/npm").join(NPM_PACKAGE);
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    let npm = root.join("web/npm");
    let manifest = std::fs::read_to_string(npm.join("package.json"))?;
    // The version is the workspace's, written here only: a line after the name, so the rest of
    // the file (its order too: `types` first among the export conditions) is kept as written.
    let name_line = format!("  \"name\": \"{NPM_PACKAGE}\",\n");
    let Some(at) = manifest.find(&name_line) else {
        return Err(format!("web/npm/package.json has no line {name_line:?}").into());
    };
    let at = at + name_line.len();
    let manifest = format!(
        "{}  \"version\": \"{VERSION}\",\n{}",
        &manifest[..at],
        &manifest[at..]
    );
    let parsed: serde_json::Value = serde_json::from_str(&manifest)
        .map_err(|e| format!("web/npm/package.json with its version: {e}"))?;
    if parsed["version"] != VERSION {
        return Err(
            "web/npm/package.json has a version of its own; the workspace's is written".into(),
        );
    }
    let files: Vec<String> = parsed["files"]
        .as_array()
        .ok_or("web/npm/package.json: `files` is a list")?
        .iter()
        .filter_map(|f| f.as_str().map(String::from))
        .collect();
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join("package.json"), manifest)?;
    for (from, name) in [
        (npm.join("README.md"), "README.md"),
        (npm.join("lane-viewer.d.ts"), "lane-viewer.d.ts"),
        (root.join("LICENSE-MIT"), "LICENSE-MIT"),
        (root.join("LICENSE-APACHE"), "LICENSE-APACHE"),
    ] {
        crate::dist::copy(&from, &dir.join(name))?;
    }
    for name in crate::dist::MODULES
        .iter()
        .chain(&["lane-viewer.standalone.js", "viewer.css"])
    {
        crate::dist::copy(&site.join(name), &dir.join(name))?;
    }
    crate::dist::copy_tree(&site.join("pkg"), &dir.join("pkg"))?;
    // Every file the manifest lists is there, and nothing it does not list is.
    let mut present = Vec::new();
    crate::dist::collect(&dir, &dir, &mut present)?;
    for name in &files {
        let name = name.trim_end_matches('/');
        if !dir.join(name).exists() {
            return Err(format!("the npm package lists {name}, which was not assembled").into());
        }
    }
    for rel in &present {
        let listed = rel == "package.json"
            || rel == "README.md"
            || files
                .iter()
                .any(|f| rel == f || (f.ends_with('/') && rel.starts_with(f.as_str())));
        if !listed {
            return Err(format!("the npm package holds {rel}, which `files` does not list").into());
        }
    }
    Ok(dir)
}

/// Writes `dir`'s files into the zip `to`, under the folder `prefix`, in a stable order.
fn zip_dir(dir: &Path, prefix: &str, to: &Path) -> Result<()> {
    use std::io::Write as _;
    let mut files = Vec::new();
    crate::dist::collect(dir, dir, &mut files)?;
    files.sort();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(to)?);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    for rel in files {
        zip.start_file(format!("{prefix}/{rel}"), options)?;
        zip.write_all(&std::fs::read(dir.join(&rel))?)?;
    }
    zip.finish()?;
    Ok(())
}
