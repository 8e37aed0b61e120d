//! The timeline alone as a standalone SVG file, for a README or a slide ([`timeline_svg`]).

use project_lanes::record::Record;

use crate::i18n::Lang;
use crate::timeline::svg_legend;
use crate::tree::{ROOT, Tree, html};

/// The timeline of `record` alone, as a standalone SVG file (for a README or a slide): the
/// viewer's drawing and its row labels, and under them the legend ([`svg_legend`]), on a card of
/// the viewer's background that holds all of it, so that the declared size and viewBox hold
/// everything drawn. `css` (the viewer's stylesheet) goes inside, so that it follows the
/// reader's light or dark scheme; every colour it takes from a custom property gets the light
/// value first ([`with_fallbacks`]), for renderers without custom properties (`rsvg-convert`),
/// which otherwise draw black boxes. The stylesheet's rules apply under a `<g
/// class="lane-viewer">`: the root carries no class, so that no box of the page (padding,
/// border) moves the drawing. XML, so `&nbsp;` is written as `&#160;` and the stylesheet is
/// character data.
pub fn timeline_svg(record: &Record, lang: Lang, css: &str) -> String {
    /// The card's margin around the drawing and the legend, and the gap between them.
    const PAD: u64 = 12;
    const GAP: u64 = 6;
    let prefix = "lv";
    let mut t = Tree::new();
    crate::timeline::section(&mut t, ROOT, lang, record, prefix);
    let markup = html::write(&t);
    let mut drawings = svg_elements(&markup);
    // The drawing first, then the row labels over its left edge, as the page stacks them.
    drawings.sort_by_key(|svg| svg.contains("class=\"lv-tl-labels"));
    let number = |svg: &str, name: &str| attribute(svg, name).parse::<u64>().unwrap_or(0);
    let (width, height) = drawings
        .iter()
        .find(|svg| svg.contains("class=\"lv-tl-svg"))
        .map(|svg| (number(svg, "width"), number(svg, "height")))
        .unwrap_or_default();
    let counted = (
        markup.contains("data-refused-bucket"),
        markup.contains("data-dense"),
    );
    let mut legend = Tree::new();
    let model = crate::timeline::timeline(record);
    let legend_h = svg_legend(
        &mut legend,
        ROOT,
        lang,
        &model,
        counted,
        prefix,
        (PAD + height + GAP, width),
    );
    let (card_w, card_h) = (width + 2 * PAD, PAD + height + GAP + legend_h + PAD / 2);
    let mut out = card((card_w, card_h), lang, record.title.get(lang.tag()), css);
    // The drawing and its row labels in a viewport of the drawing's size, at the card's margin.
    out.push_str(&format!(
        "<svg x=\"{PAD}\" y=\"{PAD}\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\">"
    ));
    for svg in &drawings {
        out.push_str(&svg.replace("&nbsp;", "&#160;"));
    }
    out.push_str(&format!("</svg><g transform=\"translate({PAD},0)\">"));
    out.push_str(&html::write(&legend).replace("&nbsp;", "&#160;"));
    out.push_str("</g></g></svg>\n");
    out
}

/// A standalone picture of `(width, height)` up to its card: the root `<svg>` (named by
/// `title`, in `lang`), the stylesheet `css` with its fallbacks, the `<g class="lane-viewer">`
/// the stylesheet's rules apply under, and the card of the viewer's background. What follows
/// is drawn on the card; `</g></svg>` ends it.
pub(super) fn card((width, height): (u64, u64), lang: Lang, title: &str, css: &str) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" lang=\"{}\" role=\"img\" font-family=\"{FONTS}\">",
        lang.tag()
    ));
    out.push_str("<title>");
    escape_xml(title, &mut out);
    out.push_str("</title><style><![CDATA[\n");
    // Character data: only `]]>` would end it (a stylesheet never holds it; split if it did).
    out.push_str(&with_fallbacks(css).replace("]]>", "]]]]><![CDATA[>"));
    out.push_str("]]></style><g class=\"lane-viewer\">");
    out.push_str(&format!(
        "<rect class=\"lv-svg-card\" x=\"0.5\" y=\"0.5\" width=\"{}\" height=\"{}\" rx=\"8\"/>",
        width - 1,
        height - 1
    ));
    out
}

/// The picture's fonts: the reader's interface font, then ones with Japanese, then any sans.
const FONTS: &str =
    "system-ui, -apple-system, Segoe UI, Hiragino Sans, Noto Sans CJK JP, Noto Sans JP, sans-serif";

/// `css` with every declaration that uses a custom property (`fill: var(--lv-tl-run)`) preceded
/// by the same declaration with the property's value as the stylesheet's top-level
/// `.lane-viewer` rules define it (`fill: #0a58ca;`): the light colours. A renderer that knows
/// custom properties takes the second and follows the variables (dark mode, themes); one that
/// does not drops it and keeps the first. Comments go.
pub fn with_fallbacks(css: &str) -> String {
    let css = strip_comments(css);
    let mut values: Vec<(&str, &str)> = Vec::new();
    // Only rules at the top level (outside `@media` and the like) define the light values.
    let mut depth = 0;
    let mut rest = css.as_str();
    while let Some(open) = rest.find(['{', '}']) {
        if rest.as_bytes()[open] == b'}' {
            depth -= 1;
            rest = &rest[open + 1..];
            continue;
        }
        let prelude = rest[..open]
            .rsplit([';', '}'])
            .next()
            .unwrap_or_default()
            .trim();
        let body_end = rest[open + 1..]
            .find(['{', '}'])
            .map_or(rest.len(), |e| open + 1 + e);
        let body = &rest[open + 1..body_end];
        let nested = rest.as_bytes().get(body_end) == Some(&b'{');
        if depth == 0 && prelude == ".lane-viewer" && !nested {
            for declaration in body.split(';') {
                if let Some((name, value)) = declaration.split_once(':')
                    && name.trim().starts_with("--")
                {
                    values.push((name.trim(), value.trim()));
                }
            }
        }
        depth += 1;
        rest = &rest[open + 1..];
    }
    let resolve = |value: &str| -> Option<String> {
        let mut out = String::new();
        let mut rest = value;
        while let Some(at) = rest.find("var(") {
            out.push_str(&rest[..at]);
            let inner = &rest[at + 4..];
            let end = inner.find(')')?;
            let name = inner[..end].split(',').next()?.trim();
            let (_, found) = values.iter().rev().find(|(n, _)| *n == name)?;
            out.push_str(found);
            rest = &inner[end + 1..];
        }
        out.push_str(rest);
        Some(out)
    };
    let mut out = String::with_capacity(css.len() + css.len() / 8);
    let mut rest = css.as_str();
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..=open]);
        rest = &rest[open + 1..];
        let end = rest.find(['{', '}']).unwrap_or(rest.len());
        if rest.as_bytes().get(end) == Some(&b'{') {
            // A block of rules (`@media … {`): its own rules follow.
            continue;
        }
        let mut declarations: Vec<String> = Vec::new();
        for declaration in rest[..end].split(';') {
            if declaration.contains("var(")
                && let Some((name, value)) = declaration.split_once(':')
                && !name.trim().starts_with("--")
                && let Some(resolved) = resolve(value)
            {
                declarations.push(format!("{}: {}", name.trim_end(), resolved.trim()));
            }
            declarations.push(declaration.to_string());
        }
        out.push_str(&declarations.join(";"));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// `css` without its comments (a stylesheet's strings hold no `/*`).
fn strip_comments(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut rest = css;
    while let Some(start) = rest.find("/*") {
        out.push_str(&rest[..start]);
        rest = rest[start + 2..]
            .find("*/")
            .map_or("", |end| &rest[start + 2 + end + 2..]);
    }
    out.push_str(rest);
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

pub(super) fn escape_xml(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::with_fallbacks;

    #[test]
    fn each_custom_property_gets_its_light_value_first_and_stays_the_override() {
        let css = "/* a {comment} */\n.lane-viewer { --lv-a: #111; --lv-b: #222; color: var(--lv-a); }\n\
                   @media (prefers-color-scheme: dark) { .lane-viewer { --lv-a: #eee; } \
                   .lane-viewer .x { stroke: var(--lv-b) } }\n\
                   .lane-viewer .y { fill: var(--lv-a); stroke-width: 2; fill-opacity: var(--lv-none) }";
        let out = with_fallbacks(css);
        assert!(!out.contains("comment"), "{out}");
        assert!(out.contains("color: #111; color: var(--lv-a)"), "{out}");
        // Inside @media too; the dark block's definitions are not the light values.
        assert!(out.contains("stroke: #222; stroke: var(--lv-b)"), "{out}");
        assert!(out.contains("fill: #111; fill: var(--lv-a)"), "{out}");
        // A property nothing defines is left to the renderer as it was.
        assert!(
            out.contains("stroke-width: 2; fill-opacity: var(--lv-none)"),
            "{out}"
        );
        assert!(out.contains("--lv-a: #eee;"), "{out}");
    }
}
