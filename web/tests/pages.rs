//! The pages in `www/`: Japanese paragraphs without line breaks in their source (a browser
//! shows a break inside Japanese text as a stray space), and a code sample that scrolls can be
//! reached with the keyboard.

use std::path::{Path, PathBuf};

fn page(name: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../www")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// The source of every element whose start tag carries `lang="ja"`, up to its end tag.
fn japanese_elements(html: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = html;
    while let Some(at) = rest.find("lang=\"ja\"") {
        let start = rest[..at].rfind('<').unwrap();
        let tag: String = rest[start + 1..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        let end = rest[at..].find(&format!("</{tag}>")).map(|e| at + e);
        if let Some(end) = end {
            found.push(&rest[start..end]);
        }
        rest = &rest[at + 1..];
    }
    found
}

#[test]
fn japanese_text_in_the_pages_has_no_line_breaks_that_show_as_spaces() {
    for name in ["index.html", "embed.html"] {
        let html = page(name);
        let elements = japanese_elements(&html);
        assert!(!elements.is_empty(), "{name}");
        for element in elements {
            // An element holding others (a viewer's host) is not text.
            if element.contains("data-embed") {
                continue;
            }
            assert!(!element.contains('\n'), "{name}: {element}");
        }
    }
}

#[test]
fn the_embed_page_code_sample_can_be_focused_and_is_named() {
    let html = page("embed.html");
    let pre = html
        .lines()
        .find(|line| line.trim_start().starts_with("<pre"))
        .unwrap();
    assert!(pre.contains("tabindex=\"0\""), "{pre}");
    assert!(pre.contains("aria-label="), "{pre}");
}
