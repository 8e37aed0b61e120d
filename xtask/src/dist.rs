//! `cargo xtask dist`: a self-contained static site in `target/dist/`.
//!
//! ```text
//! target/dist/
//!   index.html embed.html site.css               (from www/)
//!   viewer.css                                   (the viewer's stylesheet, view/viewer.css)
//!   lane-viewer.js element.js                    (the <lane-viewer> element, ES modules, web/js/)
//!   lane-viewer.standalone.js                    (the same as one classic script, wasm inside)
//!   offline.html                                 (records inside the page: works from file://)
//!   pkg/lane_viewer.js pkg/lane_viewer_bg.wasm  (the viewer, built and bound)
//!   records/index.json records/<id>.json         (the committed records, and chaos-run.jsonl)
//!   guide/                                       (the project's guide, docs/ built with mdbook)
//!   SHA256SUMS                                   (every file above)
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;

use lane_records::sha256_hex;
use project_lanes::record::Index;

use crate::tools::{WASM_TARGET, wasm_bindgen_bin};
use crate::util::{Result, cargo, project_root, run, step};

/// The built viewer: the wasm and its JS glue (the main module and any inline-JS snippets).
pub struct Pkg {
    pub wasm: PathBuf,
    pub glue: Vec<PathBuf>,
}

/// The viewer files inside a built site.
pub fn built(dist: &Path) -> Pkg {
    built_in(&dist.join("pkg"))
}

/// The viewer files in a `pkg/` folder: the wasm, the glue module and its snippets.
fn built_in(pkg: &Path) -> Pkg {
    let mut glue = vec![pkg.join("lane_viewer.js")];
    let mut snippets = Vec::new();
    if collect(pkg, &pkg.join("snippets"), &mut snippets).is_ok() {
        snippets.sort();
        glue.extend(snippets.iter().map(|rel| pkg.join(rel)));
    }
    Pkg {
        wasm: pkg.join("lane_viewer_bg.wasm"),
        glue,
    }
}

/// Builds the viewer's wasm (profile `wasm`) and binds it with wasm-bindgen into `out`.
pub fn build_pkg(out: &Path) -> Result<Pkg> {
    bind("lane-viewer", "lane_viewer", out)?;
    Ok(built_in(out))
}

/// The playground page's own module (`playground/`), bound into `out`: the wasm and its glue.
pub fn build_playground(out: &Path) -> Result<Pkg> {
    bind("lane-playground", "lane_playground", out)?;
    Ok(playground_in(out))
}

/// The playground's module inside a built site.
pub fn built_playground(dist: &Path) -> Pkg {
    playground_in(&dist.join("playground"))
}

fn playground_in(dir: &Path) -> Pkg {
    Pkg {
        wasm: dir.join("lane_playground_bg.wasm"),
        glue: vec![dir.join("lane_playground.js")],
    }
}

/// Builds `package`'s wasm (profile `wasm`) and binds it with wasm-bindgen (`--target web`) into
/// `out`, whose JavaScript loses its comments.
fn bind(package: &str, lib: &str, out: &Path) -> Result<()> {
    let root = project_root();
    let bin = wasm_bindgen_bin()?;
    step(&format!(
        "building {package} (cargo build -p {package} --profile wasm --target wasm32)"
    ));
    cargo(
        &root,
        &[
            "build",
            "-p",
            package,
            "--profile",
            "wasm",
            "--target",
            WASM_TARGET,
        ],
    )?;
    let wasm = root.join(format!("target/wasm32-unknown-unknown/wasm/{lib}.wasm"));
    step("binding it (wasm-bindgen --target web)");
    if out.exists() {
        std::fs::remove_dir_all(out)?;
    }
    run(Command::new(bin.join("wasm-bindgen"))
        .args([
            "--target",
            "web",
            "--no-typescript",
            "--remove-name-section",
            "--remove-producers-section",
            "--out-dir",
        ])
        .arg(out)
        .arg(&wasm))?;
    // Comments in the generated glue are Rust doc comments copied as JSDoc: the site does not
    // need them, and they count against the size budget.
    let mut js = Vec::new();
    collect(out, out, &mut js)?;
    for rel in js.iter().filter(|rel| rel.ends_with(".js")) {
        let path = out.join(rel);
        let text = std::fs::read_to_string(&path)?;
        std::fs::write(&path, strip_comments(&text))?;
    }
    Ok(())
}

/// Drops `/** … */` blocks and whole-line `//` comments from generated JavaScript (the only
/// comment forms wasm-bindgen and the viewer's inline snippet produce).
pub fn strip_comments(js: &str) -> String {
    let mut out = String::with_capacity(js.len());
    let mut rest = js;
    while let Some(start) = rest.find("/**") {
        out.push_str(&rest[..start]);
        match rest[start..].find("*/") {
            Some(end) => rest = &rest[start + end + 2..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out.lines()
        .filter(|line| {
            let t = line.trim_start();
            !t.is_empty() && !t.starts_with("//")
        })
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Builds the whole site into `target/dist/` and returns its path.
pub fn dist() -> Result<PathBuf> {
    let root = project_root();
    let dist = root.join("target/dist");
    if dist.exists() {
        std::fs::remove_dir_all(&dist)
            .map_err(|e| format!("cannot clear {}: {e}", dist.display()))?;
    }
    build_pkg(&dist.join("pkg"))?;
    build_playground(&dist.join("playground"))?;
    step("copying pages and records");
    for page in PAGES {
        copy(&root.join("www").join(page), &dist.join(page))?;
    }
    copy(&root.join("view/viewer.css"), &dist.join("viewer.css"))?;
    copy_modules(&dist)?;
    step("writing lane-viewer.standalone.js (a classic script, the wasm inside) and offline.html");
    write_standalone(&dist)?;
    carry_viewer(&dist)?;
    write_offline_page(&root.join("records"), &dist)?;
    copy_records(&root.join("records"), &dist.join("records"))?;
    crate::guide::build(&dist)?;
    let files = write_sums(&dist)?;
    step(&format!("site ready: {} ({files} files)", dist.display()));
    Ok(dist)
}

/// The files of `www/` a site holds.
pub const PAGES: [&str; 8] = [
    "index.html",
    "embed.html",
    "site.css",
    "playground.html",
    "playground.js",
    "playground.css",
    "playground-runner.js",
    "playground-worker.js",
];

/// The element's ES module and what it imports (`web/js/`), next to `pkg/` in a site.
pub const MODULES: [&str; 2] = ["lane-viewer.js", "element.js"];

/// Copies the element's modules from `web/js/` into `site`.
pub fn copy_modules(site: &Path) -> Result<()> {
    let js = project_root().join("web/js");
    for name in MODULES {
        copy(&js.join(name), &site.join(name))?;
    }
    Ok(())
}

/// Writes `lane-viewer.standalone.js` into `site` (which holds `pkg/`).
pub fn write_standalone(site: &Path) -> Result<()> {
    let pkg = built(site);
    let wasm = std::fs::read(&pkg.wasm)?;
    let mut snippets = String::new();
    for path in pkg.glue.iter().skip(1) {
        snippets.push_str(&std::fs::read_to_string(path)?);
    }
    let glue = std::fs::read_to_string(&pkg.glue[0])?;
    let js_dir = project_root().join("web/js");
    let element = std::fs::read_to_string(js_dir.join("element.js"))?;
    let loader = std::fs::read_to_string(js_dir.join("standalone.js"))?;
    let css = std::fs::read_to_string(project_root().join("view/viewer.css"))?;
    let js = standalone(&wasm, &snippets, &glue, &element, &loader, &css)?;
    std::fs::write(site.join("lane-viewer.standalone.js"), js)?;
    Ok(())
}

/// The files of a site that mdbook-lanes carries, from `site` into `mdbook-lanes/viewer/` (where
/// its build finds them), each written only when it changed, so an unchanged viewer does not
/// rebuild mdbook-lanes.
pub const CARRIED: [&str; 2] = ["lane-viewer.standalone.js", "viewer.css"];

/// Copies [`CARRIED`] from `site` into `mdbook-lanes/viewer/`.
pub fn carry_viewer(site: &Path) -> Result<()> {
    let dir = project_root().join("mdbook-lanes/viewer");
    for name in CARRIED {
        let bytes = std::fs::read(site.join(name))?;
        let to = dir.join(name);
        if std::fs::read(&to).ok().as_deref() != Some(bytes.as_slice()) {
            std::fs::write(&to, &bytes)
                .map_err(|e| format!("cannot write {}: {e}", to.display()))?;
        }
    }
    Ok(())
}

/// The records `offline.html` holds, each in its language.
const OFFLINE: [(&str, project_lanes_view::i18n::Lang); 2] = [
    ("busy-project", project_lanes_view::i18n::Lang::En),
    ("stale-release", project_lanes_view::i18n::Lang::Ja),
];

/// Writes `offline.html`: a documentation page whose records are inside it (each element holds
/// the record's static picture and its JSON) with the standalone script, so it works when the
/// folder is opened from a disk (`file://`), and reads without JavaScript.
pub fn write_offline_page(records: &Path, site: &Path) -> Result<()> {
    let mut body = String::new();
    for (id, lang) in OFFLINE {
        let bytes = std::fs::read(records.join(format!("{id}.json")))?;
        let record = lane_records::parse_record(&bytes)?;
        // The element `lane-records render --element` writes: the record escaped inside.
        let element = lane_records::render::element(&record, &bytes, lang, &format!("lvs-{id}"));
        body.push_str(&format!(
            "    <div class=\"doc-viewer\">\n{element}\n    </div>\n"
        ));
    }
    let page = format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n  <meta charset=\"utf-8\">\n  \
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n  \
         <meta name=\"color-scheme\" content=\"light dark\">\n  \
         <title>Project lanes, from a folder</title>\n  \
         <link rel=\"stylesheet\" href=\"site.css\">\n  <link rel=\"stylesheet\" href=\"viewer.css\">\n\
         </head>\n<body>\n  <main class=\"page doc\">\n    <h1>Records inside the page</h1>\n    \
         <p>Each record below is inside this page, so the page works when opened from a folder \
         (file://) with lane-viewer.standalone.js, and reads as a static picture without JavaScript.</p>\n\
         {body}  </main>\n  <script src=\"lane-viewer.standalone.js\"></script>\n</body>\n</html>\n"
    );
    std::fs::write(site.join("offline.html"), page)?;
    Ok(())
}

/// `<lane-viewer>` as one classic script for pages opened from a folder (`file://`, where
/// module scripts and fetches of the wasm are refused): in one function scope, the wasm as
/// base64 and `css` (the viewer's stylesheet, so that nothing needs to sit next to the script)
/// as constants, then the bound glue and its snippets, `web/js/element.js` and the loader
/// `web/js/standalone.js`, each without its `import` lines and `export` keywords.
pub fn standalone(
    wasm: &[u8],
    snippets: &str,
    glue: &str,
    element: &str,
    loader: &str,
    css: &str,
) -> Result<String> {
    use base64::Engine as _;
    let unmodule = |js: &str| -> String {
        js.lines()
            .filter(|line| !line.starts_with("import ") && !line.starts_with("export {"))
            .map(|line| {
                let line = line.strip_prefix("export ").unwrap_or(line);
                // The glue's default wasm URL, never used here (the bytes are passed in).
                format!("{}\n", line.replace("import.meta.url", "document.baseURI"))
            })
            .collect()
    };
    for (name, js) in [("element.js", element), ("standalone.js", loader)] {
        if js.contains("import.meta") || js.contains("import(") || js.contains("\nimport ") {
            return Err(
                format!("web/js/{name} uses a module feature a classic script lacks").into(),
            );
        }
    }
    let wasm = base64::engine::general_purpose::STANDARD.encode(wasm);
    // A JSON string is a JavaScript string literal.
    let css = serde_json::to_string(css)?;
    Ok(format!(
        "// <lane-viewer> as one classic script (wasm and stylesheet inside), written by `cargo \
         xtask dist`.\n(() => {{\n\"use strict\";\nconst WASM = \"{wasm}\";\nconst CSS = {css};\n{}{}{}{loader}}})();\n",
        unmodule(snippets),
        unmodule(&strip_comments(glue)),
        unmodule(element),
    ))
}

/// Copies `index.json`, the record files it lists and the records a running system made
/// ([`lane_records::RECORDED`]); nothing else from `records/`.
pub fn copy_records(from: &Path, to: &Path) -> Result<()> {
    let index_path = from.join(lane_records::INDEX_FILE);
    let text = std::fs::read(&index_path)
        .map_err(|e| format!("cannot read {}: {e}", index_path.display()))?;
    let index: Index =
        serde_json::from_slice(&text).map_err(|e| format!("{}: {e}", index_path.display()))?;
    index.check()?;
    std::fs::create_dir_all(to)?;
    copy(&index_path, &to.join(lane_records::INDEX_FILE))?;
    for entry in &index.records {
        copy(&from.join(&entry.file), &to.join(&entry.file))?;
    }
    for recorded in lane_records::RECORDED {
        copy(&from.join(recorded.file), &to.join(recorded.file))?;
    }
    Ok(())
}

pub fn copy(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(from, to)
        .map(|_| ())
        .map_err(|e| format!("cannot copy {} to {}: {e}", from.display(), to.display()).into())
}

/// Copies the folder `from` to `to`, recursively.
pub fn copy_tree(from: &Path, to: &Path) -> Result<()> {
    let mut files = Vec::new();
    collect(from, from, &mut files)?;
    for rel in files {
        copy(&from.join(&rel), &to.join(&rel))?;
    }
    Ok(())
}

/// Writes `SHA256SUMS` (the `sha256sum` format) for every file under `dir`; returns the count.
pub fn write_sums(dir: &Path) -> Result<usize> {
    let mut files = Vec::new();
    collect(dir, dir, &mut files)?;
    files.sort();
    let mut sums = String::new();
    for rel in &files {
        let bytes = std::fs::read(dir.join(rel))?;
        sums.push_str(&format!("{}  {rel}\n", sha256_hex(&bytes)));
    }
    std::fs::write(dir.join("SHA256SUMS"), sums)?;
    Ok(files.len())
}

pub fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            out.push(rel.to_string_lossy().replace('\\', "/"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::strip_comments;

    #[test]
    fn comments_go_and_code_stays() {
        let js =
            "/**\n * Docs.\n */\nexport class A {\n    // note\n    f() { return \"a//b\"; }\n}\n";
        assert_eq!(
            strip_comments(js),
            "export class A {\n    f() { return \"a//b\"; }\n}\n"
        );
        assert_eq!(strip_comments("a /** unterminated"), "a \n");
    }

    /// Whether `c` is written without spaces between words (kana, kanji, full-width forms).
    fn spaceless(c: char) -> bool {
        matches!(c, '\u{3000}'..='\u{30ff}' | '\u{3400}'..='\u{9fff}' | '\u{ff00}'..='\u{ffef}')
    }

    /// Chromium and WebKit render a line break of the HTML source between two Japanese
    /// characters as a space, Firefox as nothing: the pages never break a line there.
    #[test]
    fn the_pages_never_break_a_line_between_japanese_characters() {
        let www = crate::util::project_root().join("www");
        for entry in std::fs::read_dir(&www).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "html") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            for (n, pair) in lines.windows(2).enumerate() {
                let (end, start) = (
                    pair[0].trim_end().chars().last(),
                    pair[1].trim_start().chars().next(),
                );
                if let (Some(end), Some(start)) = (end, start) {
                    assert!(
                        !(spaceless(end) && spaceless(start)),
                        "{}:{}: a line break between {end} and {start} shows as a space in Chromium and WebKit",
                        path.display(),
                        n + 1
                    );
                }
            }
        }
    }

    /// mdBook sets the page's root font size to 62.5%: a length in rem would follow that, not
    /// the text around the viewer (the layout browser tests measure it in a book's page).
    #[test]
    fn the_viewers_stylesheet_sizes_nothing_by_the_pages_root() {
        let css =
            std::fs::read_to_string(crate::util::project_root().join("view/viewer.css")).unwrap();
        let without_comments = strip_css_comments(&css);
        for (n, line) in without_comments.lines().enumerate() {
            let found = line
                .match_indices("rem")
                .any(|(at, _)| at > 0 && line.as_bytes()[at - 1].is_ascii_digit());
            assert!(!found, "view/viewer.css:{}: a size in rem: {line}", n + 1);
        }
    }

    fn strip_css_comments(css: &str) -> String {
        let mut out = String::new();
        let mut rest = css;
        while let Some(start) = rest.find("/*") {
            out.push_str(&rest[..start]);
            let end = rest[start..]
                .find("*/")
                .map_or(rest.len(), |e| start + e + 2);
            // Keep the line count.
            out.extend(rest[start..end].chars().filter(|&c| c == '\n'));
            rest = &rest[end..];
        }
        out.push_str(rest);
        out
    }

    #[test]
    fn the_standalone_build_is_one_classic_script_with_the_wasm_inside() {
        let glue = "import { buildTree } from './snippets/x/js/tree.js';\n\
                    export class Viewer {}\n\
                    export function mount(e, o) { return buildTree(e, o); }\n\
                    async function __wbg_init(m) { return new URL('lane_viewer_bg.wasm', import.meta.url); }\n\
                    export { initSync, __wbg_init as default };\n";
        let snippet = "export function buildTree(a, b) { return [a, b]; }\n";
        let js_dir = crate::util::project_root().join("web/js");
        let element = std::fs::read_to_string(js_dir.join("element.js")).unwrap();
        let loader = std::fs::read_to_string(js_dir.join("standalone.js")).unwrap();
        let css = ".lane-viewer { color: \"red\"; }\n";
        let js = super::standalone(b"\0asm", snippet, glue, &element, &loader, css).unwrap();
        assert!(
            js.contains("const WASM = \"AGFzbQ==\";"),
            "the wasm as base64"
        );
        for line in js.lines() {
            assert!(
                !line.starts_with("import ") && !line.starts_with("export "),
                "{line}"
            );
        }
        assert!(!js.contains("import.meta") && !js.contains("import("));
        assert!(js.contains("function buildTree(a, b)") && js.contains("class Viewer {}"));
        assert!(js.contains("await __wbg_init({ module_or_path: bytes })"));
        assert!(js.contains("customElements.define(\"lane-viewer\""));
        // The stylesheet inside, as a string; nothing looked for next to the script.
        assert!(
            js.contains(r#"const CSS = ".lane-viewer { color: \"red\"; }\n";"#),
            "{js}"
        );
        assert!(js.contains("sheet.replaceSync(CSS)") && !js.contains("new URL(\"viewer.css\""));
        assert!(js.contains("defineLaneViewer({ loadViewer, linkStylesheet })"));
        // A module feature in the element or the loader is an error, not a broken script.
        let e = super::standalone(b"", snippet, glue, "import(x)", &loader, css).unwrap_err();
        assert!(e.to_string().contains("web/js/element.js"), "{e}");
        let e = super::standalone(b"", snippet, glue, &element, "import.meta", css).unwrap_err();
        assert!(e.to_string().contains("web/js/standalone.js"), "{e}");
    }
}
