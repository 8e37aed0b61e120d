//! The page's backend of `project_lanes_view::tree`: a [`Tree`] built under an element in one call to
//! `web/js/tree.js`, which follows the operations' layout (four numbers each, strings by index).

use project_lanes_view::tree::{N, Tree};
use wasm_bindgen::prelude::*;
use web_sys::{Element, Node};

#[wasm_bindgen(module = "/js/tree.js")]
extern "C" {
    #[wasm_bindgen(js_name = buildTree)]
    fn build_tree(root: &Node, ops: &[u32], text: &str) -> js_sys::Array;
}

/// The nodes a tree made, by index.
pub struct Built(js_sys::Array);

impl Built {
    /// The element made as `n`.
    pub fn element(&self, n: N) -> Element {
        self.0.get(n.0).unchecked_into()
    }
}

/// Carries out `tree` under `root`.
pub fn build(tree: &Tree, root: &Node) -> Built {
    Built(build_tree(root, tree.numbers(), tree.strings()))
}
