// Carries out a tree of operations (project-lanes-view's `tree` module) under `root`, in one call.
//
// `ops` holds four numbers per operation: its kind, a node, and two strings by their index in
// `text` split at U+001F. Node 0 is `root`; every element made gets the next index. The kinds:
//   0  [0, parent, tag, class]  an HTML element appended to `parent`
//   1  [1, parent, tag, class]  an SVG element appended to `parent`
//   2  [2, node, name, value]   an attribute
//   3  [3, node, text, 0]       a text node appended to `node`
// Anything else is refused: both sides must follow these values. Strings only ever become text
// or attribute values, never markup. Elements for `root` are gathered in a fragment and added
// at the end, in one insertion.
//
// Returns the nodes made, by index (the caller finds elements it needs to fill in later).
export function buildTree(root, ops, text) {
  if (ops.length % 4 !== 0) throw new Error("lane-viewer: a tree operation is four numbers");
  const doc = root.ownerDocument, strings = text.split("\u001f");
  const fragment = doc.createDocumentFragment(), nodes = [root];
  for (let i = 0; i < ops.length; i += 4) {
    const kind = ops[i], at = ops[i + 1], a = strings[ops[i + 2]], b = strings[ops[i + 3]];
    const node = at === 0 ? fragment : nodes[at];
    if (node === undefined || a === undefined || b === undefined) {
      throw new Error("lane-viewer: a tree operation names a node or a string that is not there");
    }
    if (kind === 0 || kind === 1) {
      const e = kind === 1 ? doc.createElementNS("http://www.w3.org/2000/svg", a)
        : doc.createElement(a);
      if (b) e.setAttribute("class", b);
      node.append(e);
      nodes.push(e);
    } else if (kind === 2) {
      nodes[at].setAttribute(a, b);
    } else if (kind === 3) {
      node.append(a);
    } else {
      throw new Error("lane-viewer: unknown tree operation " + kind);
    }
  }
  root.append(fragment);
  return nodes;
}
