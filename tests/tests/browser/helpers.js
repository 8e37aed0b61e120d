// The page-side helpers of the modules of the `browser` binary, in one module: the runner's test
// page imports every JavaScript snippet at once, and past six (the browser's connections to one
// host) its server now and then never answers one and the page never starts (xtask's test
// `no_browser_test_page_imports_more_than_six_snippets` says the figures).

// embedding.rs
export function schemeColours(scheme, cssText) {
  const vars = {};
  let border = null;
  const visit = (rules, dark) => {
    for (const r of rules) {
      if (r.media && r.cssRules) { if (r.conditionText.includes("dark")) visit(r.cssRules, true); continue; }
      if (!r.style) continue;
      if (r.selectorText === ".lane-viewer" && dark === (scheme === "dark")) {
        for (const name of r.style) if (name.startsWith("--")) vars[name] = r.style.getPropertyValue(name).trim();
      }
      if (r.selectorText === ".lane-viewer button" && !dark) {
        const decl = r.style.getPropertyValue("border-color") || r.style.getPropertyValue("border");
        const m = /var\((--[\w-]+)\)/.exec(decl);
        if (m) border = m[1];
      }
    }
  };
  // The stylesheet's text, parsed here (the page's own link is cross-origin, its rules unreadable).
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(cssText);
  visit(sheet.cssRules, false);
  return [border, vars["--lv-bg"], vars["--lv-panel"], border && vars[border]];
}

// keyboard_and_focus.rs
export function keyWith(el, key, alt, ctrl) {
  const e = new KeyboardEvent("keydown", { key, altKey: alt, ctrlKey: ctrl, bubbles: true, cancelable: true });
  return el.dispatchEvent(e);
}

// open_verify.rs
// Drops one file of `bytes` bytes of zeros (too large to read).
export function dropBig(target, name, bytes) {
  const data = new DataTransfer();
  data.items.add(new File([new Uint8Array(bytes)], name));
  target.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
}
// Logs each lane-viewer-verdict that reaches `target`: [event, its detail as one line].
export function logVerdicts(target, log) {
  target.addEventListener("lane-viewer-verdict", (e) => log.push([e, verdictLine(e.detail)]));
}
export function verdictLine(d) {
  return `${d.record} ${d.verdict} ${d.step} ${d.code}`;
}

// timeline.rs
// Drops one file on `target` as a person would: a DataTransfer holding a File.
export function dropFile(target, name, content) {
  const data = new DataTransfer();
  data.items.add(new File([content], name, { type: "application/json" }));
  target.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
}

// wording.rs
// The horizontal extent on screen of `text` inside `element` (its characters' boxes, however
// the bidi algorithm placed them), and of the last character of `element`'s text.
export function textExtent(element, text) {
  const walker = element.ownerDocument.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  let all = "", nodes = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) { nodes.push([n, all.length]); all += n.data; }
  const at = all.indexOf(text);
  if (at < 0) return null;
  const range = element.ownerDocument.createRange();
  const box = (from, to) => {
    let left = Infinity, right = -Infinity;
    for (const [n, start] of nodes) {
      for (let i = Math.max(from, start); i < Math.min(to, start + n.data.length); i++) {
        range.setStart(n, i - start); range.setEnd(n, i - start + 1);
        for (const r of range.getClientRects()) { if (r.width > 0) { left = Math.min(left, r.left); right = Math.max(right, r.right); } }
      }
    }
    return [left, right];
  };
  return [...box(at, at + text.length), ...box(all.length - 1, all.length)];
}
