//! A piece of DOM as a list of operations, written once and carried out by a backend: in the
//! viewer, one JavaScript function builds it in one crossing (`web/js/tree.js`); here,
//! [`html::write`] writes the same markup as a string.
//!
//! An operation is four numbers ([`WIDTH`]): its kind ([`ELEMENT`], [`SVG`], [`ATTRIBUTE`],
//! [`TEXT`]), a node, and two strings by their index in the tree's string list. Node 0 is the
//! root the tree is built into; every element an operation creates gets the next index. The
//! strings are one text, each string followed by [`SEPARATOR`] (string 0 is the empty string;
//! a short string that repeats is written once); a separator inside record text becomes U+FFFD. Record text only ever becomes text content or
//! attribute values, never markup.

pub mod html;

/// Numbers per operation.
pub const WIDTH: usize = 4;
/// `[ELEMENT, parent, tag, class]`: a new HTML element, appended to `parent`.
pub const ELEMENT: u32 = 0;
/// `[SVG, parent, tag, class]`: a new SVG element, appended to `parent`.
pub const SVG: u32 = 1;
/// `[ATTRIBUTE, node, name, value]`: sets an attribute.
pub const ATTRIBUTE: u32 = 2;
/// `[TEXT, node, text, 0]`: appends a text node.
pub const TEXT: u32 = 3;
/// Ends each string of the string list.
pub const SEPARATOR: char = '\u{1f}';

/// Strings of up to this many bytes are written once per tree (a repeated tag, class,
/// attribute name or label refers to the first), as far as [`SLOTS`] remember them.
const SHORT: usize = 64;
/// Strings remembered, by a hash of their bytes.
const SLOTS: usize = 512;

/// The operations to build, and how many nodes they have made so far.
pub struct Tree {
    ops: Vec<u32>,
    strings: String,
    count: u32,
    nodes: u32,
    /// Short strings written so far: (start in `strings`, length, index), by hash.
    seen: Vec<(u32, u32, u32)>,
}

/// A node of a [`Tree`], by index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct N(pub u32);

/// The root: the element the tree is built into.
pub const ROOT: N = N(0);

/// One operation, read back ([`Tree::ops`]).
#[derive(Debug, PartialEq, Eq)]
pub enum Op<'a> {
    /// A new element, the next node.
    Element {
        /// The node it is appended to.
        parent: N,
        /// In the SVG namespace, not HTML.
        svg: bool,
        /// Its tag name.
        tag: &'a str,
        /// Its `class` attribute; empty for none.
        class: &'a str,
    },
    /// An attribute set on a node.
    Attribute {
        /// The node.
        node: N,
        /// The attribute's name.
        name: &'a str,
        /// Its value.
        value: &'a str,
    },
    /// A text node appended to a node.
    Text {
        /// The node it is appended to.
        node: N,
        /// The text.
        text: &'a str,
    },
}

/// Hundredths of a pixel as SVG number text, without float formatting (which would cost
/// kilobytes of the wasm budget).
pub fn px(hundredths: u64) -> String {
    let mut out = String::new();
    push_px(&mut out, hundredths);
    out
}

/// Appends `n` in decimal (without the formatting machinery).
pub fn push_number(out: &mut String, n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut n = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &digits[at..] {
        out.push(char::from(d));
    }
}

/// Appends hundredths of a pixel as SVG number text (`12.05`, `12.3`, `12`).
pub fn push_px(out: &mut String, hundredths: u64) {
    push_number(out, hundredths / 100);
    let frac = hundredths % 100;
    if frac != 0 {
        out.push('.');
        out.push(char::from(b'0' + (frac / 10) as u8));
        if !frac.is_multiple_of(10) {
            out.push(char::from(b'0' + (frac % 10) as u8));
        }
    }
}

impl Default for Tree {
    fn default() -> Tree {
        Tree::new()
    }
}

impl Tree {
    /// An empty tree: nothing under [`ROOT`] yet.
    pub fn new() -> Tree {
        let mut strings = String::with_capacity(4096);
        strings.push(SEPARATOR);
        Tree {
            ops: Vec::with_capacity(1024),
            strings,
            count: 1,
            nodes: 1,
            seen: vec![(0, 0, 0); SLOTS],
        }
    }

    /// The operations, [`WIDTH`] numbers each.
    pub fn numbers(&self) -> &[u32] {
        &self.ops
    }

    /// The strings, each followed by [`SEPARATOR`].
    pub fn strings(&self) -> &str {
        &self.strings
    }

    /// Whether there is nothing to build.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The operations, read back.
    pub fn ops(&self) -> impl Iterator<Item = Op<'_>> {
        let strings: Vec<&str> = self.strings.split(SEPARATOR).collect();
        let s = move |i: u32| strings.get(i as usize).copied().unwrap_or_default();
        self.ops.chunks_exact(WIDTH).map(move |op| {
            let (node, a, b) = (N(op[1]), s(op[2]), s(op[3]));
            match op[0] {
                ELEMENT | SVG => Op::Element {
                    parent: node,
                    svg: op[0] == SVG,
                    tag: a,
                    class: b,
                },
                ATTRIBUTE => Op::Attribute {
                    node,
                    name: a,
                    value: b,
                },
                _ => Op::Text { node, text: a },
            }
        })
    }

    /// Adds a string to the list; its index.
    fn string(&mut self, value: &str) -> u32 {
        if value.is_empty() {
            return 0;
        }
        let bytes = value.as_bytes();
        let slot = (bytes.len() <= SHORT).then(|| {
            // FNV-1a.
            let hash = bytes.iter().fold(0x811c_9dc5_u32, |h, &b| {
                (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
            });
            hash as usize % SLOTS
        });
        if let Some((start, len, index)) = slot.and_then(|s| self.seen.get(s).copied())
            && index != 0
            && self
                .strings
                .as_bytes()
                .get(start as usize..(start + len) as usize)
                == Some(bytes)
        {
            return index;
        }
        let start = self.strings.len() as u32;
        if value.contains(SEPARATOR) {
            self.strings.extend(
                value
                    .chars()
                    .map(|c| if c == SEPARATOR { '\u{fffd}' } else { c }),
            );
        } else {
            self.strings.push_str(value);
        }
        let len = self.strings.len() as u32 - start;
        self.strings.push(SEPARATOR);
        self.count += 1;
        if let Some(seen) = slot.and_then(|s| self.seen.get_mut(s)) {
            *seen = (start, len, self.count - 1);
        }
        self.count - 1
    }

    /// Adds a string written by `write` to the list; its index.
    fn string_with(&mut self, write: impl FnOnce(&mut String)) -> u32 {
        write(&mut self.strings);
        self.strings.push(SEPARATOR);
        self.count += 1;
        self.count - 1
    }

    fn op(&mut self, kind: u32, node: N, a: &str, b: &str) {
        let (a, b) = (self.string(a), self.string(b));
        self.ops.extend_from_slice(&[kind, node.0, a, b]);
    }

    /// A new HTML element under `parent`.
    pub fn el(&mut self, parent: N, tag: &str, class: &str) -> N {
        self.op(ELEMENT, parent, tag, class);
        self.nodes += 1;
        N(self.nodes - 1)
    }

    /// A new HTML element under `parent` with a text.
    pub fn el_text(&mut self, parent: N, tag: &str, class: &str, text: &str) -> N {
        let e = self.el(parent, tag, class);
        self.text(e, text);
        e
    }

    /// A new SVG element under `parent`.
    pub fn svg(&mut self, parent: N, tag: &str, class: &str) -> N {
        self.op(SVG, parent, tag, class);
        self.nodes += 1;
        N(self.nodes - 1)
    }

    /// Sets an attribute.
    pub fn attr(&mut self, node: N, name: &str, value: &str) {
        self.op(ATTRIBUTE, node, name, value);
    }

    /// Sets an attribute to a whole number.
    pub fn attr_number(&mut self, node: N, name: &str, value: u64) {
        let name = self.string(name);
        let value = self.string_with(|out| push_number(out, value));
        self.ops
            .extend_from_slice(&[ATTRIBUTE, node.0, name, value]);
    }

    /// Sets an attribute to hundredths of a pixel, written as SVG number text.
    pub fn attr_px(&mut self, node: N, name: &str, hundredths: u64) {
        let name = self.string(name);
        let value = self.string_with(|out| push_px(out, hundredths));
        self.ops
            .extend_from_slice(&[ATTRIBUTE, node.0, name, value]);
    }

    /// Appends a text node (nothing for an empty text).
    pub fn text(&mut self, node: N, value: &str) {
        if !value.is_empty() {
            self.op(TEXT, node, value, "");
        }
    }

    /// SVG text at `x` (hundredths) and `y` (px).
    pub fn svg_text(&mut self, parent: N, class: &str, x: u64, y: u64, value: &str) -> N {
        let t = self.svg(parent, "text", class);
        self.attr_px(t, "x", x);
        self.attr_number(t, "y", y);
        self.text(t, value);
        t
    }

    /// A rectangle at `x` (hundredths), `y` (px), `w` wide (hundredths) and `h` high (px).
    pub fn rect(&mut self, parent: N, class: &str, (x, y): (u64, u64), (w, h): (u64, u64)) -> N {
        let r = self.svg(parent, "rect", class);
        self.attr_px(r, "x", x);
        self.attr_number(r, "y", y);
        self.attr_px(r, "width", w);
        self.attr_number(r, "height", h);
        r
    }
}

/// `template` with `{0}`, `{1}`, … as `values`, each in a `<bdi>`: record text in a sentence
/// stays isolated, so a right-to-left override inside it cannot reorder the sentence around it.
pub(crate) fn isolated(t: &mut Tree, parent: N, template: &str, values: &[&str]) {
    // Each placeholder found as `fill` finds it (a char, not a string search, which would bring
    // its own searcher into the wasm).
    let mut rest = template;
    while let Some(at) = rest.find('{') {
        let (before, after) = rest.split_at(at);
        t.text(parent, before);
        let digit = after.as_bytes().get(1).map_or(0, |d| d.wrapping_sub(b'0')) as usize;
        if let Some(value) = values.get(digit) {
            t.el_text(parent, "bdi", "", value);
        }
        rest = after.get(3..).unwrap_or_default();
    }
    t.text(parent, rest);
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
        assert_eq!(px(100_000_000_000), "1000000000");
        let mut out = String::new();
        push_number(&mut out, u64::MAX);
        assert_eq!(out, u64::MAX.to_string());
    }

    #[test]
    fn a_repeated_short_string_is_written_once() {
        let mut t = Tree::new();
        for n in 0..3 {
            let li = t.el(ROOT, "li", "lv-lane");
            t.attr_number(li, "data-n", n);
            t.text(li, "site: idle");
        }
        assert_eq!(t.strings().matches("site: idle").count(), 1);
        assert_eq!(t.strings().matches("lv-lane").count(), 1);
        let texts: Vec<&str> = t
            .ops()
            .filter_map(|op| match op {
                Op::Text { text, .. } => Some(text),
                _ => None,
            })
            .collect();
        assert_eq!(texts, ["site: idle"; 3]);
        let long = "x".repeat(SHORT + 1);
        t.text(ROOT, &long);
        t.text(ROOT, &long);
        assert_eq!(
            t.strings().matches(&long).count(),
            2,
            "long strings are not remembered"
        );
    }

    #[test]
    fn every_operation_is_four_numbers_and_reads_back_as_written() {
        let mut t = Tree::new();
        let li = t.el(ROOT, "li", "lv-step");
        t.attr(li, "data-note", "a\u{1f}b");
        t.text(li, "");
        t.text(li, "Step 1");
        let g = t.svg(li, "g", "");
        assert_eq!((li, g), (N(1), N(2)));
        assert_eq!(t.numbers().len(), 4 * WIDTH);
        let ops: Vec<Op> = t.ops().collect();
        assert_eq!(
            ops,
            [
                Op::Element {
                    parent: ROOT,
                    svg: false,
                    tag: "li",
                    class: "lv-step"
                },
                // A separator in record text cannot shift the strings after it.
                Op::Attribute {
                    node: li,
                    name: "data-note",
                    value: "a\u{fffd}b"
                },
                Op::Text {
                    node: li,
                    text: "Step 1"
                },
                Op::Element {
                    parent: li,
                    svg: true,
                    tag: "g",
                    class: ""
                },
            ]
        );
    }
}
