// The loader of lane-viewer.standalone.js, one classic script: `cargo xtask dist` puts before it,
// in one function scope, the wasm as base64 (WASM), the viewer's stylesheet (CSS), the bound
// glue (__wbg_init, mount) and element.js (defineLaneViewer), each without import or export.

let started;

/** The viewer, instantiated once per page from the bytes inside this script. */
function loadViewer() {
  started ??= (async () => {
    const bytes = Uint8Array.from(atob(WASM), (c) => c.charCodeAt(0));
    await __wbg_init({ module_or_path: bytes });
    return { mount };
  })();
  return started;
}

/** Adopts the stylesheet inside this script into the document (a <style> where unsupported). */
function linkStylesheet(doc) {
  const view = doc.defaultView;
  if (view && view.CSSStyleSheet && "adoptedStyleSheets" in doc) {
    const sheet = new view.CSSStyleSheet();
    sheet.replaceSync(CSS);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  } else {
    const style = doc.createElement("style");
    style.textContent = CSS;
    doc.head.append(style);
  }
}

defineLaneViewer({ loadViewer, linkStylesheet });
