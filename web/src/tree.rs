//! A DOM built in one crossing: Rust writes a list of operations, and one inline JS function
//! (`buildTree`) carries them out, instead of several wasm↔JS crossings per element.
//!
//! Operations are four fields each: a kind (`e` an HTML element, `s` an SVG element, `a` an
//! attribute, `t` a text node), a node index (0 is the element passed in; every created element
//! gets the next index) and two arguments. Record text only ever becomes text content or
//! attribute values.

use wasm_bindgen::prelude::*;
use web_sys::Element;

/// The operations to build, and how many nodes they have made so far.
pub struct Tree {
    ops: String,
    nodes: usize,
}

/// A node of a [`Tree`], by index.
#[derive(Clone, Copy)]
pub struct N(pub usize);

/// The root: the element passed to [`Tree::build`].
pub const ROOT: N = N(0);

const FIELD: char = '\u{1f}';

#[wasm_bindgen(inline_js = r#"
export function buildTree(root, packed) {
  const doc = root.ownerDocument, nodes = [root], f = packed.split("\u001f");
  for (let i = 0; i + 3 < f.length; i += 4) {
    const k = f[i], n = nodes[+f[i + 1]], a = f[i + 2], b = f[i + 3];
    if (k === "a") n.setAttribute(a, b);
    else if (k === "t") n.append(a);
    else {
      const e = k === "s" ? doc.createElementNS("http://www.w3.org/2000/svg", a)
        : doc.createElement(a);
      if (b) e.setAttribute("class", b);
      n.append(e);
      nodes.push(e);
    }
  }
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = buildTree)]
    fn build_tree(root: &Element, packed: &str);
}

/// Hundredths of a pixel as SVG number text, without float formatting (which would cost
/// kilobytes of the wasm budget).
pub fn px(hundredths: u64) -> String {
    let mut out = (hundredths / 100).to_string();
    let frac = hundredths % 100;
    if frac != 0 {
        out.push('.');
        out.push(char::from(b'0' + (frac / 10) as u8));
        if !frac.is_multiple_of(10) {
            out.push(char::from(b'0' + (frac % 10) as u8));
        }
    }
    out
}

impl Tree {
    pub fn new() -> Tree {
        Tree {
            ops: String::with_capacity(8192),
            nodes: 1,
        }
    }

    /// Carries the operations out under `root`.
    pub fn build(self, root: &Element) {
        build_tree(root, &self.ops);
    }

    fn field(&mut self, value: &str) {
        if value.contains(FIELD) {
            self.ops.extend(
                value
                    .chars()
                    .map(|c| if c == FIELD { '\u{fffd}' } else { c }),
            );
        } else {
            self.ops.push_str(value);
        }
        self.ops.push(FIELD);
    }

    fn op(&mut self, kind: &str, node: N, a: &str, b: &str) {
        self.field(kind);
        self.field(&node.0.to_string());
        self.field(a);
        self.field(b);
    }

    /// A new HTML element under `parent`.
    pub fn el(&mut self, parent: N, tag: &str, class: &str) -> N {
        self.op("e", parent, tag, class);
        self.nodes += 1;
        N(self.nodes - 1)
    }

    /// A new SVG element under `parent`.
    pub fn svg(&mut self, parent: N, tag: &str, class: &str) -> N {
        self.op("s", parent, tag, class);
        self.nodes += 1;
        N(self.nodes - 1)
    }

    pub fn attr(&mut self, node: N, name: &str, value: &str) {
        self.op("a", node, name, value);
    }

    /// Appends a text node.
    pub fn text(&mut self, node: N, value: &str) {
        self.op("t", node, value, "");
    }

    /// SVG text at `x` (hundredths) and `y` (px).
    pub fn svg_text(&mut self, parent: N, class: &str, x: u64, y: u64, value: &str) -> N {
        let t = self.svg(parent, "text", class);
        self.attr(t, "x", &px(x));
        self.attr(t, "y", &px(y * 100));
        self.text(t, value);
        t
    }

    /// A rectangle at `x` (hundredths), `y` (px), `w` wide (hundredths) and `h` high (px).
    pub fn rect(&mut self, parent: N, class: &str, (x, y): (u64, u64), (w, h): (u64, u64)) -> N {
        let r = self.svg(parent, "rect", class);
        self.attr(r, "x", &px(x));
        self.attr(r, "y", &px(y * 100));
        self.attr(r, "width", &px(w));
        self.attr(r, "height", &px(h * 100));
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_are_written_without_float_formatting() {
        assert_eq!(px(0), "0");
        assert_eq!(px(1234), "12.34");
        assert_eq!(px(1230), "12.3");
        assert_eq!(px(1205), "12.05");
    }
}
