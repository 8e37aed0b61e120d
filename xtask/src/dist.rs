//! `cargo xtask dist`: a self-contained static site in `target/dist/`.
//!
//! ```text
//! target/dist/
//!   index.html embed.html site.css viewer.css   (from www/)
//!   pkg/lane_viewer.js pkg/lane_viewer_bg.wasm  (the viewer, built and bound)
//!   records/index.json records/<id>.json         (the committed records)
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
    let root = project_root();
    let bin = wasm_bindgen_bin()?;
    step("building the viewer (cargo build -p lane-viewer --profile wasm --target wasm32)");
    cargo(
        &root,
        &[
            "build",
            "-p",
            "lane-viewer",
            "--profile",
            "wasm",
            "--target",
            WASM_TARGET,
        ],
    )?;
    let wasm = root.join("target/wasm32-unknown-unknown/wasm/lane_viewer.wasm");
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
    let pkg = built_in(out);
    // Comments in the generated glue are Rust doc comments copied as JSDoc: the site does not
    // need them, and they count against the size budget.
    for path in &pkg.glue {
        let js = std::fs::read_to_string(path)?;
        std::fs::write(path, strip_comments(&js))?;
    }
    Ok(pkg)
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
    step("copying pages and records");
    for page in ["index.html", "embed.html", "site.css", "viewer.css"] {
        copy(&root.join("www").join(page), &dist.join(page))?;
    }
    copy_records(&root.join("records"), &dist.join("records"))?;
    let files = write_sums(&dist)?;
    step(&format!("site ready: {} ({files} files)", dist.display()));
    Ok(dist)
}

/// Copies `index.json` and the record files it lists (nothing else from `records/`).
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

/// Writes `SHA256SUMS` (the `sha256sum` format) for every file under `dir`; returns the count.
fn write_sums(dir: &Path) -> Result<usize> {
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

fn collect(root: &Path, dir: &Path, out: &mut Vec<String>) -> Result<()> {
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
}
