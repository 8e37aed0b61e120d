//! `mdbook-lanes`: mdBook's preprocessor protocol, and `install`.
//!
//! ```text
//! mdbook-lanes                               [context, book] JSON on stdin → the book on stdout
//! mdbook-lanes supports RENDERER             exit 0 for html, 1 otherwise
//! mdbook-lanes install BOOK_DIR [--assets DIR]
//! ```

use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use mdbook_lanes::{install, run, supports, workspace_dist};

const USAGE: &str = "usage:\n  mdbook-lanes                    (run by mdbook: [context, book] on stdin)\n  \
                     mdbook-lanes supports RENDERER\n  mdbook-lanes install BOOK_DIR [--assets DIR]";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let result = match args.as_slice() {
        [] => preprocess(),
        ["supports", renderer] => {
            return if supports(renderer) {
                ExitCode::SUCCESS
            } else {
                ExitCode::FAILURE
            };
        }
        ["install", book] => install_into(book, workspace_dist()),
        ["install", book, "--assets", assets] | ["install", "--assets", assets, book] => {
            install_into(book, PathBuf::from(assets))
        }
        ["--help" | "-h" | "help"] => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(format!("unknown arguments: {}\n{USAGE}", args.join(" "))),
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
    let (ctx, book) = mdbook_preprocessor::parse_input(std::io::stdin().lock())
        .map_err(|e| format!("cannot read mdBook's input: {e:#}"))?;
    if ctx.mdbook_version != mdbook_preprocessor::MDBOOK_VERSION {
        eprintln!(
            "mdbook-lanes: warning: built for mdbook {}, run by mdbook {}",
            mdbook_preprocessor::MDBOOK_VERSION,
            ctx.mdbook_version
        );
    }
    let book = run(&ctx, book)?;
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &book).map_err(|e| format!("cannot write the book: {e}"))?;
    out.flush()
        .map_err(|e| format!("cannot write the book: {e}"))
}

fn install_into(book: &str, assets: PathBuf) -> Result<(), String> {
    let report = install::install(book.as_ref(), &assets)?;
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
