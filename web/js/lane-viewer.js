// <lane-viewer>: the record viewer as one element. One script tag and the element are the whole
// embed; the wasm (pkg/) and the stylesheet (viewer.css) are found next to this script.
//
//   <script type="module" src="lane-viewer.js"></script>
//   <lane-viewer src="records/index.json" record="busy-project" lang="ja"></lane-viewer>
//   <lane-viewer>…</lane-viewer>   (a record inside: paste what `lane-records render RECORD
//                                    --element` prints, never a record's JSON by hand)
//
// A page that may be opened from a folder (file://), where browsers run no module script, links
// viewer.css as well: a <lane-viewer> whose script never ran then says so, and what to do.
//
// Attributes mirror mount()'s options: src, record, lang (en, ja), step (from 1, as the deep link
// counts), open, hash and tabs ("", "true" or "false"; open and hash default to false, tabs to
// false when the element names one record or holds one, else true). Content the element holds
// besides its inline record (the static rendering `lane-records render --html` writes) is shown
// until the live viewer is ready; the wasm starts only when the element comes near the viewport.
// `element.viewer` is the handle mount() gives (null until ready), `element.ready` a promise of
// it. `lane-viewer-select` and `lane-viewer-step` (bubbling CustomEvents, detail { record, step },
// step from 0 as in data-step, null when none) let a page follow along; `lane-viewer-verdict`
// (detail { record, verdict, step, code }) comes once per record read, and `element.verdict(id)`
// is a promise of it.
//
// This module is the element (element.js) with the loader that finds the wasm and the stylesheet
// next to it. lane-viewer.standalone.js is the same element with the loader of standalone.js,
// the wasm and the stylesheet inside one classic script, for pages opened from a folder
// (file://), where browsers run no module script.

import { defineLaneViewer } from "./element.js";

let started;

/**
 * The viewer's module, initialised once per page. The paths are literals relative to this
 * module, so a browser finds them next to it and a bundler (Vite, Rollup, webpack) follows them:
 * the glue as a chunk of its own, loaded only when an element starts, and its wasm as an asset.
 */
function loadViewer() {
  started ??= import("./pkg/lane_viewer.js").then(async (m) => {
    await m.default();
    return m;
  });
  return started;
}

/** Links viewer.css, next to this module, into the document once. */
function linkStylesheet(doc) {
  const href = new URL("./viewer.css", import.meta.url).href;
  for (const link of doc.querySelectorAll("link[rel=stylesheet]")) {
    if (link.href === href) return;
  }
  const link = doc.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  doc.head.append(link);
}

defineLaneViewer({ loadViewer, linkStylesheet });

/**
 * Mounts the viewer into `target` without the element (the options and the handle:
 * lane-viewer.d.ts, and the guide's embedding chapter).
 */
export async function mount(target, options) {
  const viewer = await loadViewer();
  return viewer.mount(target, options);
}
