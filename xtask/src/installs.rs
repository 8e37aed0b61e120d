//! `cargo xtask release --check`: a release used as its users would, in a folder outside the
//! repository, with nothing of the clone around it.
//!
//! - `SHA256SUMS` verifies the folder (`sha256sum -c`);
//! - every `.crate` is unpacked; mdbook-lanes' carried viewer is byte for byte the one this
//!   version just built;
//! - the libraries build from their unpacked crates, as a new crate depending on all of them
//!   (the unpacked crates stand in for crates.io, by `[patch.crates-io]`, since nothing is
//!   published yet): what `cargo package` verifies, made once here;
//! - `lane-records`, `lanes-pg` and `mdbook-lanes` are installed with `cargo install --path`
//!   from the unpacked crates and say their version;
//! - a new mdBook with one ```` ```lanes ```` block and one `{{#lanes …}}` is set up by the
//!   installed `mdbook-lanes install` and built, then opened from `file://` in Chromium: both
//!   records verified;
//! - the site's zip is unpacked, and its offline page and a guide page are opened from
//!   `file://` in Chromium: every record verified;
//! - the npm tarball is installed into a new project with Vite and TypeScript from npm; a plain
//!   page using it from `node_modules` and a page built by Vite each verify a record in
//!   Chromium, Firefox and WebKit, `tsc --noEmit` passes on a file using its types, and Node.js
//!   imports it (no DOM, as a static site generator renders) without an error.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::engines::{Engine, Installed};
use crate::release::{CRATES, Release, VERSION};
use crate::serve::StaticServer;
use crate::util::{Result, output, project_root, run, step};
use crate::webdriver::in_each_engine;

/// The tools installed from their packages, each with the binary of the same name.
const TOOLS: [&str; 3] = ["lane-records", "lanes-pg", "mdbook-lanes"];

/// The bundler and the type checker the npm check installs, pinned.
const VITE: &str = "vite@7.3.8";
const TYPESCRIPT: &str = "typescript@5.9.3";

pub fn check(release: &Release) -> Result<()> {
    step("SHA256SUMS verifies the release folder (sha256sum -c)");
    run(Command::new("sha256sum")
        .args(["--check", "--quiet", "--strict", "SHA256SUMS"])
        .current_dir(&release.dir))?;
    let work = std::env::temp_dir().join(format!("project-lanes-release-check-{VERSION}"));
    if work.exists() {
        std::fs::remove_dir_all(&work)?;
    }
    std::fs::create_dir_all(work.join("crates"))?;
    if work.starts_with(project_root()) {
        return Err(format!("{} is inside the repository", work.display()).into());
    }
    step(&format!("unpacking the crates into {}", work.display()));
    for name in CRATES {
        run(Command::new("tar")
            .arg("-xzf")
            .arg(release.crate_file(name))
            .arg("-C")
            .arg(work.join("crates")))?;
    }
    carried_viewer_is_this_versions(&work, &release.site)?;
    patch_crates_io(&work)?;
    build_libraries(&work)?;
    let bin = install_tools(&work)?;
    let book = build_a_new_book(&work, &bin)?;
    let npm = npm_project(&work, release)?;
    let site = unzip_site(&work, release)?;
    let engines = crate::engines::engines(&Engine::ALL)?;
    open_pages(&engines, &book, &site, &npm)?;
    step("the release works outside the repository");
    Ok(())
}

fn unpacked(work: &Path, name: &str) -> PathBuf {
    work.join("crates").join(format!("{name}-{VERSION}"))
}

/// The viewer inside the mdbook-lanes package is the one this version built: a stale copy
/// (from an older `cargo xtask dist`) cannot ship.
fn carried_viewer_is_this_versions(work: &Path, site: &Path) -> Result<()> {
    step("mdbook-lanes carries the viewer this version built");
    let viewer = unpacked(work, "mdbook-lanes").join("viewer");
    for name in crate::dist::CARRIED {
        let carried = std::fs::read(viewer.join(name))
            .map_err(|e| format!("the mdbook-lanes package has no viewer/{name}: {e}"))?;
        if carried != std::fs::read(site.join(name))? {
            return Err(format!(
                "the mdbook-lanes package's viewer/{name} is not the one this version built"
            )
            .into());
        }
    }
    Ok(())
}

/// Cargo's configuration in `work`: the unpacked crates stand in for crates.io.
fn patch_crates_io(work: &Path) -> Result<()> {
    let mut patch = String::from(
        "# The unpacked crates of this release stand in for crates.io (nothing is published).\n\
         [patch.crates-io]\n",
    );
    for name in CRATES {
        patch.push_str(&format!(
            "{name} = {{ path = {:?} }}\n",
            unpacked(work, name).display().to_string()
        ));
    }
    std::fs::create_dir_all(work.join(".cargo"))?;
    std::fs::write(work.join(".cargo/config.toml"), patch)?;
    Ok(())
}

/// The target folder of the check's builds: one across runs (outside the temporary folder), so
/// a second check is quick, and shared by the libraries and the installs.
fn packages_target() -> PathBuf {
    project_root().join(crate::release::PACKAGES_TARGET)
}

/// Every library of the release built from its unpacked crate: a new crate that depends on each
/// at this version, built as a user's would be.
fn build_libraries(work: &Path) -> Result<()> {
    let libraries: Vec<&str> = CRATES
        .into_iter()
        .filter(|name| !TOOLS.contains(name))
        .collect();
    step(&format!(
        "the libraries built from their packages, outside the repository ({})",
        libraries.join(", ")
    ));
    let dir = work.join("libraries");
    std::fs::create_dir_all(dir.join("src"))?;
    let mut manifest = String::from(
        "[package]\nname = \"release-check-libraries\"\nversion = \"0.0.0\"\n\
         edition = \"2024\"\npublish = false\n\n[workspace]\n\n[dependencies]\n",
    );
    for name in &libraries {
        manifest.push_str(&format!("{name} = \"={VERSION}\"\n"));
    }
    std::fs::write(dir.join("Cargo.toml"), manifest)?;
    std::fs::write(dir.join("src/lib.rs"), "")?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(Command::new(cargo)
        .args(["build", "--quiet"])
        .env("CARGO_TARGET_DIR", packages_target())
        .current_dir(&dir))
}

/// `cargo install --path` of each tool from its unpacked crate; returns the folder of binaries.
fn install_tools(work: &Path) -> Result<PathBuf> {
    let root = work.join("root");
    let target = packages_target();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    for tool in TOOLS {
        step(&format!(
            "cargo install --path {tool}-{VERSION} (from its package, outside the repository)"
        ));
        run(Command::new(&cargo)
            .args(["install", "--debug", "--quiet", "--path"])
            .arg(unpacked(work, tool))
            .arg("--root")
            .arg(&root)
            .env("CARGO_TARGET_DIR", &target)
            .current_dir(work))?;
    }
    let bin = root.join("bin");
    for tool in TOOLS {
        let said = output(Command::new(bin.join(tool)).arg("--version"))
            .ok_or_else(|| format!("the installed {tool} --version failed"))?;
        let expected = format!("{tool} {VERSION}");
        if said.trim() != expected {
            return Err(format!("{tool} --version said {said:?}, not {expected:?}").into());
        }
        println!("ok: {said}", said = said.trim());
    }
    Ok(bin)
}

/// A new mdBook set up by the installed `mdbook-lanes install` (the viewer it carries) and
/// built by the pinned mdbook with the installed preprocessor; returns the built chapter.
fn build_a_new_book(work: &Path, bin: &Path) -> Result<PathBuf> {
    step("a new mdBook: mdbook-lanes install, then mdbook build");
    let repo = project_root();
    let book = work.join("book");
    std::fs::create_dir_all(book.join("src"))?;
    std::fs::write(book.join("book.toml"), "[book]\ntitle = \"Lanes\"\n")?;
    std::fs::write(
        book.join("src/SUMMARY.md"),
        "# Summary\n\n- [Runs](runs.md)\n",
    )?;
    let scenario = std::fs::read_to_string(repo.join("records/scenarios/02-busy-project.toml"))?;
    crate::dist::copy(
        &repo.join("records/stale-release.json"),
        &book.join("src/stale-release.json"),
    )?;
    std::fs::write(
        book.join("src/runs.md"),
        format!(
            "# Runs\n\nA scenario, run when the book is built:\n\n```lanes\n{scenario}```\n\n\
             A saved record:\n\n{{{{#lanes stale-release.json}}}}\n"
        ),
    )?;
    run(Command::new(bin.join("mdbook-lanes"))
        .arg("install")
        .arg(&book))?;
    let path = std::env::var_os("PATH").unwrap_or_default();
    let mut dirs = vec![bin.to_path_buf()];
    dirs.extend(std::env::split_paths(&path));
    run(Command::new(crate::tools::mdbook()?)
        .arg("build")
        .arg(&book)
        .env("PATH", std::env::join_paths(dirs)?))?;
    Ok(book.join("book/runs.html"))
}

/// A new npm project with the packed tarball, Vite and TypeScript: a plain page, a page built
/// by Vite, and `tsc --noEmit`. Returns the folder to serve.
fn npm_project(work: &Path, release: &Release) -> Result<PathBuf> {
    step("the npm package in a new project (npm install, tsc --noEmit, vite build)");
    let dir = work.join("npm");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(
        dir.join("package.json"),
        "{ \"name\": \"lane-viewer-check\", \"private\": true, \"type\": \"module\" }\n",
    )?;
    run(Command::new("npm")
        .args(["install", "--silent", "--no-audit", "--no-fund"])
        .arg(release.npm_tarball())
        .args([VITE, TYPESCRIPT])
        .current_dir(&dir))?;
    let repo = project_root();
    crate::dist::copy_records(&repo.join("records"), &dir.join("records"))?;
    // (a) a plain page, the module from node_modules.
    std::fs::write(
        dir.join("plain.html"),
        "<!doctype html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\"><title>plain</title>\n\
         <script type=\"module\" src=\"node_modules/lane-viewer/lane-viewer.js\"></script>\n</head>\n\
         <body>\n<lane-viewer src=\"records/index.json\" record=\"busy-project\"></lane-viewer>\n\
         </body>\n</html>\n",
    )?;
    // (b) a page built by Vite: the package imported by name, the records as public files.
    let app = dir.join("app");
    crate::dist::copy_tree(&dir.join("records"), &app.join("public/records"))?;
    std::fs::write(
        app.join("index.html"),
        "<!doctype html>\n<html lang=\"ja\">\n<head><meta charset=\"utf-8\"><title>vite</title>\n\
         <script type=\"module\" src=\"./main.js\"></script>\n</head>\n<body>\n\
         <div id=\"mounted\"></div>\n</body>\n</html>\n",
    )?;
    std::fs::write(
        app.join("main.js"),
        "import \"lane-viewer/viewer.css\";\nimport { mount } from \"lane-viewer\";\n\n\
         const element = document.createElement(\"lane-viewer\");\n\
         element.setAttribute(\"src\", \"records/index.json\");\n\
         element.setAttribute(\"record\", \"stale-release\");\n\
         element.setAttribute(\"lang\", \"ja\");\ndocument.body.append(element);\n\
         window.mounted = mount(document.querySelector(\"#mounted\"), \
         { src: \"records/index.json\", record: \"persistence-gate\", tabs: false });\n",
    )?;
    run(Command::new(dir.join("node_modules/.bin/vite"))
        .args([
            "build",
            "--logLevel",
            "warn",
            "--base",
            "./",
            "--emptyOutDir",
            "app",
        ])
        .current_dir(&dir))?;
    // The types: the element from querySelector, its handle, events, and mount's options.
    std::fs::write(
        dir.join("check.ts"),
        "import { mount, type LaneViewerElement, type MountOptions } from \"lane-viewer\";\n\n\
         const element: LaneViewerElement | null = document.querySelector(\"lane-viewer\");\n\
         element?.addEventListener(\"lane-viewer-step\", (e) => {\n\
         \x20 const step: number | null = e.detail.step;\n  console.log(step, e.detail.record);\n});\n\
         const options: MountOptions = { src: \"records/index.json\", lang: \"ja\", tabs: false };\n\
         const viewer = await mount(document.body, options);\n\
         const moved: boolean = viewer.select_step(0) && viewer.set_lang(\"en\");\n\
         await element?.ready.then((v) => v.settled());\n\
         console.log(moved, viewer.current_step, viewer.selected);\n\
         document.addEventListener(\"lane-viewer-select\", (e) => console.log(e.detail.record));\n\
         const lang: \"en\" | \"ja\" = viewer.lang;\n\
         viewer.free();\n\
         // @ts-expect-error: lang is \"en\" or \"ja\"\n\
         await mount(document.body, { lang: \"fr\" });\n\
         console.log(lang);\n",
    )?;
    run(Command::new(dir.join("node_modules/.bin/tsc"))
        .args([
            "--noEmit",
            "--strict",
            "--target",
            "es2022",
            "--module",
            "nodenext",
            "--moduleResolution",
            "nodenext",
            "--lib",
            "es2022,dom",
            "check.ts",
        ])
        .current_dir(&dir))?;
    println!("ok: tsc --noEmit");
    // Imported where there is no DOM, as a static site generator does when it renders a page.
    let said = output(
        Command::new("node")
            .args([
                "--input-type=module",
                "-e",
                "const m = await import('lane-viewer'); console.log(typeof m.mount);",
            ])
            .current_dir(&dir),
    )
    .ok_or("importing lane-viewer in Node.js (no DOM) failed")?;
    if said.trim() != "function" {
        return Err(format!("lane-viewer imported in Node.js gives mount as {said:?}").into());
    }
    println!("ok: imported in Node.js, where there is no DOM");
    Ok(dir)
}

/// The site's zip unpacked; returns its folder.
fn unzip_site(work: &Path, release: &Release) -> Result<PathBuf> {
    step("the site's zip, unpacked");
    let into = work.join("site");
    let file = std::fs::File::open(release.site_zip())?;
    zip::ZipArchive::new(file)?.extract(&into)?;
    Ok(into.join(format!("project-lanes-site-{VERSION}")))
}

/// The pages in the browsers: the npm pages served, in every engine; in Chromium also the book
/// and the unzipped site's offline page and guide from `file://`.
fn open_pages(engines: &[Installed], book: &Path, site: &Path, npm: &Path) -> Result<()> {
    let server = StaticServer::bind(npm, 0)?;
    let open = server.open_requests();
    let addr = server.spawn();
    let logs = project_root().join("target/smoke");
    let what = "the installed packages' pages";
    in_each_engine(
        engines,
        what,
        (&logs, "release-driver"),
        async |client, engine| {
            let mut pages = vec![
                (format!("http://{addr}/plain.html"), 1),
                (format!("http://{addr}/app/dist/index.html"), 1),
            ];
            if engine == Engine::Chromium {
                pages.push((format!("file://{}", book.display()), 2));
                let guide = site.join("guide/lane-records.html");
                pages.push((format!("file://{}", guide.display()), 3));
            }
            for (url, count) in &pages {
                crate::smoke::check_viewers(client, url, *count, &open).await?;
                if url.ends_with("/app/dist/index.html") {
                    mounted_is_verified(client).await?;
                }
                println!("ok: {url} ({count} verified) in {}", engine.label());
            }
            if engine == Engine::Chromium {
                let (page, expected) = crate::smoke::OFFLINE;
                let url = format!("file://{}", site.join(page).display());
                crate::smoke::check_page(client, &url, expected, &open).await?;
                println!("ok: {url} in {}", engine.label());
            }
            Ok(())
        },
    )
}

/// On the Vite page, `mount` from the package resolved and its viewer verified its record.
async fn mounted_is_verified(client: &fantoccini::Client) -> Result<()> {
    let value = client
        .execute_async(
            "const done = arguments[arguments.length - 1];
             window.mounted.then((v) => v.settled()).then(() => done(
               document.querySelector('#mounted [data-verification=\"verified\"]') !== null
             ), (e) => done(String(e)));",
            vec![],
        )
        .await?;
    if value.as_bool() == Some(true) {
        Ok(())
    } else {
        Err(format!("the Vite page's mount() did not verify its record: {value}").into())
    }
}
