//! `mdbook-lanes`: mdBook's preprocessor protocol, and `install`. Run `mdbook-lanes --help`.
//!
//! ```text
//! mdbook-lanes                               [context, book] JSON on stdin → the book on stdout
//! mdbook-lanes supports RENDERER             exit 0 for html, 1 otherwise
//! mdbook-lanes install BOOK_DIR [--assets DIR]
//! ```

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use mdbook_lanes::install::{NOT_CARRIED, Viewer};
use mdbook_lanes::{check_mdbook_version, install, run, supports};

/// An mdBook preprocessor for project-lanes records: ```lanes blocks (scenarios) run on the real
/// core when the book is built, {{#lanes path/to/record.json}} embeds a saved record and
/// {{#lanes-diff a.json b.json}} two, compared; each becomes a <lane-viewer> with the static
/// picture and the records themselves.
#[derive(Parser)]
#[command(
    name = "mdbook-lanes",
    version,
    override_usage = "mdbook-lanes                      (run by mdBook: [context, book] JSON on stdin)
       mdbook-lanes supports RENDERER
       mdbook-lanes install BOOK_DIR [--assets DIR]",
    after_help = "Supported: mdBook 0.5 (any 0.5 release; built against 0.5.4). mdBook 0.4 and 0.5 give \
preprocessors different JSON, so a book built by any other version is refused, saying which.

Set a book up once with `mdbook-lanes install BOOK_DIR`, then build it with `mdbook build`.

examples:
  mdbook-lanes install path/to/book
  mdbook-lanes install path/to/book --assets target/dist"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Whether mdBook's RENDERER can show the viewer: exit status 0 for html, 1 for any other
    Supports {
        /// The renderer's name, as mdBook passes it
        #[arg(value_name = "RENDERER")]
        renderer: String,
    },
    /// Set a book up: copy the viewer into BOOK_DIR/lanes/ and add it to BOOK_DIR/book.toml
    #[command(
        override_usage = "mdbook-lanes install BOOK_DIR [--assets DIR]",
        after_help = "Copies lane-viewer.standalone.js and viewer.css into BOOK_DIR/lanes/ and adds \
[preprocessor.lanes], output.html.additional-js and output.html.additional-css to BOOK_DIR/book.toml, \
keeping its formatting and comments. Running it again changes nothing in book.toml and refreshes \
the copies.

examples:
  mdbook-lanes install path/to/book                  (the viewer this mdbook-lanes carries)
  mdbook-lanes install path/to/book --assets DIR     (a folder holding the two files)"
    )]
    Install {
        /// The book's folder, the one holding book.toml
        #[arg(value_name = "BOOK_DIR")]
        book: PathBuf,
        /// A folder holding lane-viewer.standalone.js and viewer.css to copy instead of the
        /// viewer this mdbook-lanes carries
        #[arg(long, value_name = "DIR")]
        assets: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        None => preprocess(),
        Some(Command::Supports { renderer }) => {
            return if supports(&renderer) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
        Some(Command::Install { book, assets }) => match assets {
            Some(dir) => Viewer::from_dir(&dir).and_then(|viewer| install_into(&book, &viewer)),
            None => Viewer::carried()
                .ok_or_else(|| NOT_CARRIED.to_string())
                .and_then(|viewer| install_into(&book, &viewer)),
        },
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("mdbook-lanes: {e}");
            ExitCode::FAILURE
        }
    }
}

fn preprocess() -> Result<(), String> {
    let mut input = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut input)
        .map_err(|e| format!("cannot read mdBook's input: {e}"))?;
    // The version first: another mdBook's book has another shape, which would only fail to parse.
    check_mdbook_version(&input)?;
    let (ctx, book) = mdbook_preprocessor::parse_input(input.as_slice())
        .map_err(|e| format!("cannot read mdBook's input: {e:#}"))?;
    let book = run(&ctx, book)?;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &book).map_err(|e| format!("cannot write the book: {e}"))?;
    out.flush()
        .map_err(|e| format!("cannot write the book: {e}"))
}

fn install_into(book: &std::path::Path, viewer: &Viewer) -> Result<(), String> {
    let report = install::install(book, viewer)?;
    for file in &report.copied {
        println!("copied {}", file.display());
    }
    if report.changes.is_empty() {
        println!("book.toml already set up");
    }
    for change in &report.changes {
        println!("book.toml: {change}");
    }
    Ok(())
}
