//! A record's static picture, readable where no script runs: an HTML fragment (title, summary,
//! that nothing was executed and that it is not yet checked or replayed, the timeline, every
//! step, the final lanes) and the timeline alone as a standalone SVG file. Both are drawn by the
//! viewer's own code (`timeline::section`, `steps::cards`, `panel`) and written by
//! [`html::write`], so the static picture and the live viewer draw the same thing, and carry
//! the same DOM contract attributes (`[data-step]`, `[data-timeline-row]`, `[data-segment]`…).
//!
//! The fragment's root is `[data-lane-viewer-static]` (with the record's id in `data-record-id`),
//! styled by the viewer's stylesheet (`.lane-viewer`); the live viewer takes its place in
//! `<lane-viewer>` once its replay has started.

use project_lanes::record::Record;

use crate::i18n::{Lang, Msg, text};
use crate::panel;
use crate::steps;
use crate::tree::{ROOT, Tree, html};

/// The static HTML fragment of `record` in `lang`; `prefix` makes its ids unique on a page.
pub fn fragment(record: &Record, lang: Lang, prefix: &str) -> String {
    let l = lang.tag();
    let mut t = Tree::new();
    let root = t.el(ROOT, "div", "lane-viewer lv-static");
    t.attr(root, "data-lane-viewer-static", "");
    t.attr(root, "data-record-id", &record.id);
    t.attr(root, "lang", l);
    t.attr(root, "role", "region");
    let label = crate::frame::region_label(lang, Some(&record.title));
    t.attr(root, "aria-label", &label);
    t.el_text(root, "h2", "lv-title", record.title.get(l));
    t.el_text(root, "p", "lv-summary", record.summary.get(l));
    let no_work = t.el_text(root, "p", "lv-no-work", text(lang, Msg::NothingExecuted));
    t.attr(no_work, "data-nothing-executed", "");
    let note = t.el_text(root, "p", "lv-static-note", text(lang, Msg::NotYetVerified));
    t.attr(note, "data-static-note", "");
    panel::queues(&mut t, root, lang, record);
    crate::timeline::section(&mut t, root, lang, record, prefix);
    t.el_text(root, "h3", "lv-h", text(lang, Msg::StepsHeading));
    let list = t.el(root, "div", "lv-steps");
    steps::cards(&mut t, list, lang, record, (0, usize::MAX), None);
    let end = t.el(root, "div", "lv-end");
    t.el_text(end, "h3", "lv-h", text(lang, Msg::FinalLanesHeading));
    panel::final_lanes(&mut t, end, lang, record);
    panel::untouched_note(&mut t, end, lang, record);
    html::write(&t)
}

/// The timeline of `record` alone, as a standalone SVG file (for a README or a slide): the
/// viewer's drawing and its row labels, with `css` (the viewer's stylesheet) inside, so it
/// follows the reader's light or dark scheme. XML, so `&nbsp;` is written as `&#160;` and the
/// stylesheet is character data.
pub fn timeline_svg(record: &Record, lang: Lang, css: &str) -> String {
    let mut t = Tree::new();
    crate::timeline::section(&mut t, ROOT, lang, record, "lv");
    let markup = html::write(&t);
    let mut drawings = svg_elements(&markup);
    // The drawing first, then the row labels over its left edge, as the page stacks them.
    drawings.sort_by_key(|svg| svg.contains("class=\"lv-tl-labels"));
    let (width, height) = drawings
        .iter()
        .find(|svg| svg.contains("class=\"lv-tl-svg"))
        .map(|svg| (attribute(svg, "width"), attribute(svg, "height")))
        .unwrap_or_default();
    let mut out = String::new();
    out.push_str("<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lane-viewer\"");
    for (name, value) in [("width", width), ("height", height)] {
        out.push_str(&format!(" {name}=\"{value}\""));
    }
    out.push_str(&format!(
        " viewBox=\"0 0 {width} {height}\" lang=\"{}\" role=\"img\">",
        lang.tag()
    ));
    out.push_str("<title>");
    escape_xml(record.title.get(lang.tag()), &mut out);
    out.push_str("</title><style><![CDATA[\n");
    // Character data: only `]]>` would end it (a stylesheet never holds it; split if it did).
    out.push_str(&css.replace("]]>", "]]]]><![CDATA[>"));
    out.push_str("]]></style>");
    for svg in &drawings {
        out.push_str(&svg.replace("&nbsp;", "&#160;"));
    }
    out.push_str("</svg>\n");
    out
}

/// The `<svg>…</svg>` elements of `markup` (the timeline has no nested `<svg>`).
fn svg_elements(markup: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = markup;
    while let Some(start) = rest.find("<svg") {
        let Some(len) = rest[start..].find("</svg>") else {
            break;
        };
        let end = start + len + "</svg>".len();
        found.push(&rest[start..end]);
        rest = &rest[end..];
    }
    found
}

/// The value of attribute `name` on the element that starts `element`.
fn attribute<'a>(element: &'a str, name: &str) -> &'a str {
    let head = &element[..element.find('>').unwrap_or(element.len())];
    let key = format!(" {name}=\"");
    head.find(&key)
        .map(|at| &head[at + key.len()..])
        .and_then(|v| v.split('"').next())
        .unwrap_or_default()
}

fn escape_xml(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}
