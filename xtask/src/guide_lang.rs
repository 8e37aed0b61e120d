//! The guide's two languages. mdBook writes one `<html lang>` for a whole book (its
//! `book.language`, here `en`), so after the build every page under `guide/ja/` is given
//! `lang="ja"`; then the pages are checked: each Japanese page says `ja`, has an English
//! counterpart (`ja/x.html` and `x.html`), and the two link to each other, and no link in a
//! chapter points to a page the guide does not have.
//!
//! One book with a fix after the build, rather than a second book for Japanese: the Japanese
//! chapters keep the English book's sidebar, search and print page, and the `{{#lanes}}`
//! records and viewer files stay where they are; a replaced theme template would have to follow
//! every mdbook release. A change in mdbook's output fails the build here, never silently.

use std::collections::BTreeMap;
use std::path::Path;

use crate::util::Result;

/// The folder of the Japanese pages, inside the guide.
const JA: &str = "ja/";

/// The start of every page mdBook writes for this book.
const MDBOOK_HTML: &str = "<html lang=\"en\"";

/// Pages mdBook makes of the whole book rather than of one chapter.
const NOT_CHAPTERS: [&str; 3] = ["print.html", "toc.html", "404.html"];

/// Marks the Japanese pages of the built guide in `guide` as Japanese and checks the languages'
/// links.
pub fn mark_and_check(guide: &Path) -> Result<()> {
    let mut pages = BTreeMap::new();
    collect(guide, "", &mut pages)?;
    for (page, html) in pages.iter_mut().filter(|(page, _)| page.starts_with(JA)) {
        *html = japanese(html).map_err(|e| format!("guide/{page}: {e}"))?;
        let file = guide.join(page);
        std::fs::write(&file, html.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    }
    let problems = problems(&pages);
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!("the guide's languages:\n  {}", problems.join("\n  ")).into())
    }
}

/// Every `.html` file below `dir`, by its path in the guide (`ja/viewer.html`).
fn collect(dir: &Path, prefix: &str, pages: &mut BTreeMap<String, String>) -> Result<()> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            collect(&path, &format!("{prefix}{name}/"), pages)?;
        } else if name.ends_with(".html") {
            let html = std::fs::read_to_string(&path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            pages.insert(format!("{prefix}{name}"), html);
        }
    }
    Ok(())
}

/// The page with `lang="ja"` in place of mdBook's `lang="en"`.
fn japanese(html: &str) -> std::result::Result<String, String> {
    match html.matches(MDBOOK_HTML).count() {
        1 => Ok(html.replacen(MDBOOK_HTML, "<html lang=\"ja\"", 1)),
        _ if html_lang(html) == Some("ja") => Ok(html.to_owned()),
        n => Err(format!(
            "expected mdbook's `{MDBOOK_HTML}` once, found it {n} times; \
             the Japanese pages would not say they are Japanese"
        )),
    }
}

/// The `lang` of the page's `<html>` element.
fn html_lang(html: &str) -> Option<&str> {
    let start = html.find("<html ")?;
    let tag = &html[start..start + html[start..].find('>')?];
    attribute(tag, "lang")
}

fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    Some(&tag[start..start + tag[start..].find('"')?])
}

/// The `href` of every link in the chapter's text (`<main>`), not in mdBook's navigation.
fn chapter_links(html: &str) -> Vec<&str> {
    let Some(start) = html.find("<main>") else {
        return Vec::new();
    };
    let end = html[start..]
        .find("</main>")
        .map_or(html.len(), |e| start + e);
    let mut links = Vec::new();
    let mut rest = &html[start..end];
    while let Some(at) = rest.find("<a ") {
        rest = &rest[at..];
        let Some(close) = rest.find('>') else { break };
        links.extend(attribute(&rest[..close], "href"));
        rest = &rest[close..];
    }
    links
}

/// The guide page a relative link from `page` leads to, or `None` for a link elsewhere
/// (another site, an anchor on the same page, a file that is not a page).
fn target(page: &str, href: &str) -> Option<String> {
    if href.contains(':') || href.starts_with('/') || href.starts_with('#') {
        return None;
    }
    let path = href.split(['#', '?']).next()?;
    if !path.ends_with(".html") {
        return None;
    }
    let mut parts: Vec<&str> = page.split('/').collect();
    parts.pop();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                // Above the guide: a page it cannot have.
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The page in the other language: `ja/x.html` for `x.html` and back.
fn counterpart(page: &str) -> String {
    match page.strip_prefix(JA) {
        Some(english) => english.to_owned(),
        None => format!("{JA}{page}"),
    }
}

/// What is wrong with the guide's languages, one line a problem.
fn problems(pages: &BTreeMap<String, String>) -> Vec<String> {
    let mut problems = Vec::new();
    for (page, html) in pages {
        if NOT_CHAPTERS.contains(&page.as_str()) {
            continue;
        }
        let japanese = page.starts_with(JA);
        if japanese && html_lang(html) != Some("ja") {
            problems.push(format!(
                "{page} says lang=\"{}\", not \"ja\"",
                html_lang(html).unwrap_or("")
            ));
        }
        let links: Vec<Option<String>> = chapter_links(html)
            .into_iter()
            .map(|href| target(page, href))
            .collect();
        for (href, to) in chapter_links(html).into_iter().zip(&links) {
            if let Some(to) = to
                && !pages.contains_key(to)
            {
                problems.push(format!(
                    "{page} links to {href}, a page the guide does not have"
                ));
            }
        }
        let other = counterpart(page);
        if japanese && !pages.contains_key(&other) {
            problems.push(format!("{page} has no English counterpart {other}"));
        }
        if pages.contains_key(&other) && !links.contains(&Some(other.clone())) {
            problems.push(format!("{page} has no language switch to {other}"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(lang: &str, text: &str) -> String {
        format!(
            "<!DOCTYPE HTML>\n<html lang=\"{lang}\" class=\"light sidebar-visible\" dir=\"ltr\">\
             <nav><a href=\"ja/viewer.html\">sidebar</a></nav><main>{text}</main>\
             <nav class=\"nav-wrapper\"><a href=\"../missing.html\">next</a></nav></html>"
        )
    }

    fn guide(pages: &[(&str, String)]) -> BTreeMap<String, String> {
        pages
            .iter()
            .map(|(path, html)| (path.to_string(), html.clone()))
            .collect()
    }

    #[test]
    fn a_japanese_page_made_by_mdbook_becomes_japanese() {
        let html = japanese(&page("en", "本文")).unwrap();
        assert_eq!(html_lang(&html), Some("ja"));
        assert_eq!(japanese(&html).unwrap(), html);
        let error = japanese("<!DOCTYPE HTML>\n<html class=\"light\">").unwrap_err();
        assert!(error.contains("found it 0 times"), "{error}");
    }

    #[test]
    fn links_resolve_from_the_page_and_leave_other_sites_alone() {
        assert_eq!(
            target("ja/viewer.html", "../viewer.html#zoom").unwrap(),
            "viewer.html"
        );
        assert_eq!(
            target("viewer.html", "ja/viewer.html").unwrap(),
            "ja/viewer.html"
        );
        assert_eq!(
            target("viewer.html", "./ja/../glossary.html").unwrap(),
            "glossary.html"
        );
        assert_eq!(target("viewer.html", "../outside.html"), None);
        for elsewhere in [
            "https://example.com/a.html",
            "#zoom",
            "/guide/a.html",
            "a.json",
        ] {
            assert_eq!(target("viewer.html", elsewhere), None, "{elsewhere}");
        }
    }

    #[test]
    fn pages_linked_both_ways_in_their_languages_pass() {
        let pages = guide(&[
            (
                "viewer.html",
                page("en", "<a href=\"ja/viewer.html\">日本語</a>"),
            ),
            (
                "ja/viewer.html",
                page("ja", "<a href=\"../viewer.html\">English</a>"),
            ),
            (
                "glossary.html",
                page("en", "<a href=\"viewer.html#zoom\">the viewer</a>"),
            ),
            ("print.html", page("en", "<a href=\"nowhere.html\">x</a>")),
        ]);
        assert_eq!(problems(&pages), Vec::<String>::new());
    }

    #[test]
    fn a_japanese_page_said_to_be_english_fails() {
        let pages = guide(&[
            (
                "viewer.html",
                page("en", "<a href=\"ja/viewer.html\">日本語</a>"),
            ),
            (
                "ja/viewer.html",
                page("en", "<a href=\"../viewer.html\">English</a>"),
            ),
        ]);
        assert_eq!(
            problems(&pages),
            ["ja/viewer.html says lang=\"en\", not \"ja\""]
        );
    }

    #[test]
    fn a_switch_to_a_missing_page_or_no_switch_fails() {
        let pages = guide(&[
            (
                "viewer.html",
                page("en", "<a href=\"ja/viewr.html\">日本語</a>"),
            ),
            ("ja/viewer.html", page("ja", "no link back")),
            ("ja/orphan.html", page("ja", "")),
        ]);
        assert_eq!(
            problems(&pages),
            [
                "ja/orphan.html has no English counterpart orphan.html",
                "ja/viewer.html has no language switch to viewer.html",
                "viewer.html links to ja/viewr.html, a page the guide does not have",
                "viewer.html has no language switch to ja/viewer.html",
            ]
        );
    }
}
