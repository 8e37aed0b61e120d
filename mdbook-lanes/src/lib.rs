//! # mdbook-lanes
//!
//! An mdBook preprocessor for project-lanes records. In a chapter, a ```` ```lanes ```` block holding
//! a scenario (the TOML `lane-records run` reads) is run on the real core when the book is built,
//! so what the page shows comes from the core, never from the author; `{{#lanes path/to/record.json}}`
//! embeds a saved record (the path is relative to the chapter, like mdBook's `{{#include}}`), and
//! `{{#lanes-diff a.json b.json}}` two records, compared. Each becomes a `<lane-viewer>` holding
//! the static picture and the records themselves, which the viewer script checks and replays in
//! the reader's browser.
//!
//! ```
//! use std::path::Path;
//!
//! use mdbook_lanes::embed::{self, Chapter};
//! use project_lanes_view::i18n::Lang;
//!
//! let scenario = r#"
//! format = "project-lanes/scenario"
//! version = 1
//! id = "busy"
//! title = { en = "Busy", ja = "使用中" }
//! summary = { en = "A second claim is refused.", ja = "二度目の取得は拒否されます。" }
//! projects = ["docs", "site"]
//! untouched_project = "site"
//!
//! [[steps]]
//! op = "claim"
//! project = "docs"
//! run = "build-1"
//!
//! [[steps]]
//! op = "claim"
//! project = "docs"
//! run = "build-2"
//! "#;
//! let markdown = format!("# A busy project\n\n```lanes\n{scenario}```\n");
//! let at = Chapter { file: Path::new("src/busy.md"), dir: Path::new("src"), lang: Lang::En };
//! let mut counter = 0; // numbers the elements across the book
//! let page = embed::chapter(&markdown, &at, &mut counter)?;
//! assert!(page.starts_with("# A busy project"));
//! assert!(page.contains("<lane-viewer lang=\"en\">"));
//! assert!(page.contains("PROJECT_BUSY")); // the core's answer, run at build time
//! # Ok::<(), mdbook_lanes::EmbedError>(())
//! ```
//!
//! [`embed`] rewrites one chapter; [`install`] sets a book up (`mdbook-lanes install BOOK_DIR`).
//! `main.rs` speaks mdBook's protocol (`supports RENDERER`; `[context, book]` on stdin, the book
//! on stdout).

#![warn(missing_docs)]

pub mod embed;
pub mod install;

use std::path::Path;

use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::{Book, BookItem};
use project_lanes_view::i18n::Lang;

pub use embed::EmbedError;

/// The preprocessor's name in `book.toml` (`[preprocessor.lanes]`).
pub const NAME: &str = "lanes";

/// Whether the book's elements work with `renderer`: only the HTML renderer runs the viewer.
pub fn supports(renderer: &str) -> bool {
    renderer == "html"
}

/// The mdBook releases whose preprocessor JSON this build reads: 0.5 (built against
/// [`mdbook_preprocessor::MDBOOK_VERSION`]). mdBook 0.4 gives the book in another shape.
pub const SUPPORTED_MDBOOK: &str = "0.5";

/// Refuses mdBook's input (`[context, book]`) when the mdBook that sent it is not
/// [`SUPPORTED_MDBOOK`], saying which versions are; read before the book, whose shape differs.
pub fn check_mdbook_version(input: &[u8]) -> Result<(), String> {
    #[derive(serde::Deserialize)]
    struct Context {
        mdbook_version: String,
    }
    let (context, _): (Context, serde::de::IgnoredAny) =
        serde_json::from_slice(input).map_err(|e| {
            format!(
                "cannot read mdBook's input ({e}): mdbook-lanes is run by `mdbook build` \
                 (mdBook {SUPPORTED_MDBOOK}), which gives it [context, book] as JSON"
            )
        })?;
    let version = context.mdbook_version;
    // "0.5" of "0.5.4", "0.5.0-beta.1" or "0.5.2+local".
    let release = version.split(['-', '+']).next().unwrap_or_default();
    if release.rsplit_once('.').map(|(minor, _)| minor) == Some(SUPPORTED_MDBOOK) {
        return Ok(());
    }
    Err(format!(
        "this book is built by mdBook {version}; mdbook-lanes supports mdBook {SUPPORTED_MDBOOK} \
         (any {SUPPORTED_MDBOOK} release; built against {}): mdBook 0.4 and 0.5 give \
         preprocessors the book in different shapes. Build the book with mdBook \
         {SUPPORTED_MDBOOK} (cargo install mdbook --version '^{SUPPORTED_MDBOOK}')",
        mdbook_preprocessor::MDBOOK_VERSION
    ))
}

/// The language elements are shown in: `[preprocessor.lanes] lang`, else `book.language` when it
/// is `ja`, else English.
pub fn book_lang(ctx: &PreprocessorContext) -> Result<Lang, String> {
    let configured: Option<String> = ctx
        .config
        .get(&format!("preprocessor.{NAME}.lang"))
        .map_err(|e| format!("book.toml: [preprocessor.{NAME}] lang: {e}"))?;
    if let Some(tag) = configured {
        return Lang::from_tag(&tag).ok_or_else(|| {
            format!("book.toml: [preprocessor.{NAME}] lang = \"{tag}\": use \"en\" or \"ja\"")
        });
    }
    let language = ctx.config.book.language.as_deref().unwrap_or("en");
    Ok(if language.starts_with("ja") {
        Lang::Ja
    } else {
        Lang::En
    })
}

/// Rewrites every chapter of `book`; the first mistake stops the build.
pub fn run(ctx: &PreprocessorContext, mut book: Book) -> Result<Book, String> {
    let lang = book_lang(ctx)?;
    let src = ctx.root.join(&ctx.config.book.src);
    let mut counter = 0;
    let mut failure: Option<EmbedError> = None;
    book.for_each_mut(|item| {
        let BookItem::Chapter(chapter) = item else {
            return;
        };
        if failure.is_some() {
            return;
        }
        let Some(source) = chapter.source_path.clone() else {
            return;
        };
        let file = Path::new(&ctx.config.book.src).join(&source);
        let dir = src.join(source.parent().unwrap_or(Path::new("")));
        let at = embed::Chapter {
            file: &file,
            dir: &dir,
            lang,
        };
        match embed::chapter(&chapter.content, &at, &mut counter) {
            Ok(content) => chapter.content = content,
            Err(e) => failure = Some(e),
        }
    });
    match failure {
        Some(e) => Err(e.to_string()),
        None => Ok(book),
    }
}
