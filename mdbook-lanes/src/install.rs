//! `mdbook-lanes install BOOK_DIR`: copies the viewer into the book (`lanes/` next to `book.toml`)
//! and adds it to `book.toml` — `[preprocessor.lanes]`, the script in `output.html.additional-js`
//! and the stylesheet in `additional-css` — keeping the author's formatting and comments
//! (`toml_edit`). Running it again changes nothing in `book.toml` and refreshes the copies.
//!
//! The script is `lane-viewer.standalone.js`, the classic-script build with the wasm inside:
//! mdBook loads `additional-js` with plain `<script src>` tags, and a book opened from a folder
//! (`file://`) cannot fetch wasm or import modules. The packaged crate carries both files
//! ([`Viewer::carried`]); `--assets DIR` takes them from a folder instead.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use toml_edit::{Array, DocumentMut, Item, Table, Value};

use crate::NAME;

/// The folder of the book the assets go to.
pub const ASSET_DIR: &str = "lanes";
/// The file name of the first asset: the element's script, the wasm inside.
pub const SCRIPT: &str = "lane-viewer.standalone.js";
/// The file name of the second asset: the viewer's stylesheet.
pub const STYLESHEET: &str = "viewer.css";

/// What `install` did, for a person.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The files copied into the book.
    pub copied: Vec<PathBuf>,
    /// The changes made to `book.toml` (empty when it already had them).
    pub changes: Vec<String>,
}

/// The two files `install` copies, as bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Viewer {
    /// `lane-viewer.standalone.js`.
    pub script: Cow<'static, [u8]>,
    /// `viewer.css`.
    pub stylesheet: Cow<'static, [u8]>,
}

impl Viewer {
    /// The viewer this build of mdbook-lanes carries: the packaged crate's `viewer/` folder,
    /// which `cargo xtask dist` fills from the viewer this version builds. `None` in a build
    /// from a clone before `cargo xtask dist`.
    pub fn carried() -> Option<Viewer> {
        #[cfg(carried_viewer)]
        return Some(Viewer {
            script: Cow::Borrowed(include_bytes!("../viewer/lane-viewer.standalone.js")),
            stylesheet: Cow::Borrowed(include_bytes!("../viewer/viewer.css")),
        });
        #[cfg(not(carried_viewer))]
        None
    }

    /// The two files in `dir` (`--assets DIR`, such as the viewer's dist folder).
    pub fn from_dir(dir: &Path) -> Result<Viewer, String> {
        let read = |name: &str| {
            std::fs::read(dir.join(name)).map_err(|e| {
                format!(
                    "{} has no {name} ({e}): pass --assets DIR, a folder holding {SCRIPT} and \
                     {STYLESHEET} (such as the dist folder `cargo xtask dist` writes)",
                    dir.display()
                )
            })
        };
        Ok(Viewer {
            script: Cow::Owned(read(SCRIPT)?),
            stylesheet: Cow::Owned(read(STYLESHEET)?),
        })
    }
}

/// Why there is no viewer to install when none was named: this build carries none.
pub const NOT_CARRIED: &str = "this mdbook-lanes carries no viewer (it was built from a clone \
    before `cargo xtask dist`): run `cargo xtask dist` and build it again, or pass --assets DIR";

/// Copies `viewer` into `book` and updates its `book.toml`.
pub fn install(book: &Path, viewer: &Viewer) -> Result<Report, String> {
    let manifest = book.join("book.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| {
        format!(
            "cannot read {}: {e} (is {} an mdBook folder?)",
            manifest.display(),
            book.display()
        )
    })?;
    let mut doc: DocumentMut = text
        .parse()
        .map_err(|e| format!("{} is not valid TOML: {e}", manifest.display()))?;
    let mut report = Report::default();
    update(&mut doc, &mut report.changes).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let into = book.join(ASSET_DIR);
    std::fs::create_dir_all(&into).map_err(|e| format!("cannot create {}: {e}", into.display()))?;
    for (name, bytes) in [(SCRIPT, &viewer.script), (STYLESHEET, &viewer.stylesheet)] {
        let to = into.join(name);
        std::fs::write(&to, bytes)
            .map_err(|e| format!("cannot write {name} to {}: {e}", to.display()))?;
        report.copied.push(to);
    }
    if !report.changes.is_empty() {
        std::fs::write(&manifest, doc.to_string())
            .map_err(|e| format!("cannot write {}: {e}", manifest.display()))?;
    }
    Ok(report)
}

/// Adds what is missing to `book.toml`; `changes` says what.
fn update(doc: &mut DocumentMut, changes: &mut Vec<String>) -> Result<(), String> {
    let preprocessor = table(doc.as_table_mut(), "preprocessor")?;
    if !preprocessor.contains_key(NAME) {
        let mut lanes = Table::new();
        lanes.insert("command", toml_edit::value("mdbook-lanes"));
        preprocessor.insert(NAME, Item::Table(lanes));
        changes.push(format!("added [preprocessor.{NAME}]"));
    }
    let output = table(doc.as_table_mut(), "output")?;
    let html = table(output, "html")?;
    for (key, file) in [("additional-js", SCRIPT), ("additional-css", STYLESHEET)] {
        let path = format!("{ASSET_DIR}/{file}");
        let list = html
            .entry(key)
            .or_insert_with(|| toml_edit::value(Array::new()))
            .as_array_mut()
            .ok_or_else(|| format!("output.html.{key} must be a list of files"))?;
        if !list.iter().any(|v| v.as_str() == Some(path.as_str())) {
            list.push(Value::from(path.as_str()));
            changes.push(format!("added {path} to output.html.{key}"));
        }
    }
    Ok(())
}

/// The table `key` of `parent`, made (implicit, so only its children show) when missing.
fn table<'a>(parent: &'a mut Table, key: &str) -> Result<&'a mut Table, String> {
    let item = parent.entry(key).or_insert_with(|| {
        let mut t = Table::new();
        t.set_implicit(true);
        Item::Table(t)
    });
    item.as_table_mut()
        .ok_or_else(|| format!("`{key}` must be a table"))
}
