//! The second backend of a [`Tree`]: its markup as a string, written as a browser serializes
//! the DOM the viewer builds from the same operations (`innerHTML` of the root), so a page can
//! show the drawing where no script runs.
//!
//! Text escapes `&`, `<`, `>` and U+00A0; attribute values escape `&`, `"`, `<`, `>` and
//! U+00A0. A `class` comes first, as the element's creation sets it; a repeated attribute keeps
//! its first place and takes its last value. HTML's void elements have no end tag; SVG elements
//! have one, as in an HTML document. Record text therefore never becomes markup.

use super::{N, Op, Tree};

/// A node being collected.
#[derive(Default)]
struct Element<'a> {
    tag: &'a str,
    svg: bool,
    attrs: Vec<(&'a str, &'a str)>,
    children: Vec<Child>,
}

enum Child {
    Element(usize),
    Text(usize),
}

/// HTML elements that have no end tag.
const VOID: [&str; 13] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// The markup of what `tree` builds under its root (the root's own tag is not written).
pub fn write(tree: &Tree) -> String {
    let mut elements = vec![Element::default()];
    let mut texts: Vec<&str> = Vec::new();
    for op in tree.ops() {
        match op {
            Op::Element {
                parent,
                svg,
                tag,
                class,
            } => {
                let at = elements.len();
                let mut attrs = Vec::new();
                if !class.is_empty() {
                    attrs.push(("class", class));
                }
                elements.push(Element {
                    tag,
                    svg,
                    attrs,
                    children: Vec::new(),
                });
                if let Some(parent) = element(&mut elements, parent) {
                    parent.children.push(Child::Element(at));
                }
            }
            Op::Attribute { node, name, value } => {
                if let Some(e) = element(&mut elements, node) {
                    match e.attrs.iter_mut().find(|(n, _)| *n == name) {
                        Some(attr) => attr.1 = value,
                        None => e.attrs.push((name, value)),
                    }
                }
            }
            Op::Text { node, text } => {
                texts.push(text);
                if let Some(e) = element(&mut elements, node) {
                    e.children.push(Child::Text(texts.len() - 1));
                }
            }
        }
    }
    let mut out = String::new();
    children(&elements, &texts, 0, &mut out);
    out
}

fn element<'e, 'a>(elements: &'e mut [Element<'a>], node: N) -> Option<&'e mut Element<'a>> {
    elements.get_mut(node.0 as usize)
}

fn children(elements: &[Element], texts: &[&str], at: usize, out: &mut String) {
    let Some(e) = elements.get(at) else { return };
    for child in &e.children {
        match *child {
            Child::Text(t) => escape(texts.get(t).copied().unwrap_or_default(), false, out),
            Child::Element(c) => {
                let Some(child) = elements.get(c) else {
                    continue;
                };
                out.push('<');
                out.push_str(child.tag);
                for (name, value) in &child.attrs {
                    out.push(' ');
                    out.push_str(name);
                    out.push_str("=\"");
                    escape(value, true, out);
                    out.push('"');
                }
                out.push('>');
                if !child.svg && VOID.contains(&child.tag) {
                    continue;
                }
                children(elements, texts, c, out);
                out.push_str("</");
                out.push_str(child.tag);
                out.push('>');
            }
        }
    }
}

fn escape(value: &str, attribute: bool, out: &mut String) {
    for c in value.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\u{a0}' => out.push_str("&nbsp;"),
            '"' if attribute => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::ROOT;
    use super::*;

    #[test]
    fn markup_is_escaped_and_nested_as_built() {
        let mut t = Tree::new();
        let p = t.el(ROOT, "p", "lv-note");
        t.attr(p, "title", "\"<b>\" & more");
        t.text(p, "<script>alert(1)</script> & \u{a0}");
        let input = t.el(ROOT, "input", "");
        t.attr(input, "type", "file");
        let svg = t.svg(ROOT, "svg", "lv-tl-svg");
        t.rect(svg, "bg", (0, 0), (1050, 2));
        t.attr(p, "title", "again");
        assert_eq!(
            write(&t),
            "<p class=\"lv-note\" title=\"again\">&lt;script&gt;alert(1)&lt;/script&gt; &amp; &nbsp;</p>\
             <input type=\"file\">\
             <svg class=\"lv-tl-svg\"><rect class=\"bg\" x=\"0\" y=\"0\" width=\"10.5\" height=\"2\"></rect></svg>"
        );
        let mut t = Tree::new();
        let p = t.el(ROOT, "p", "");
        t.attr(p, "data-x", "a\"b<c>&\u{a0}");
        assert_eq!(write(&t), "<p data-x=\"a&quot;b&lt;c&gt;&amp;&nbsp;\"></p>");
    }
}
