// The <lane-viewer> element (what it does: lane-viewer.js, and the guide's embedding chapter),
// defined once per page with the loader of the build it is part of:
//   lane-viewer.js             an ES module; the wasm (pkg/) and viewer.css found next to it
//   lane-viewer.standalone.js  one classic script for file:// and plain pages; both inside
// `loader` is { loadViewer(): Promise<{ mount }>, linkStylesheet(doc) }.
export function defineLaneViewer(loader) {
  // Imported where there is no DOM (a static site generator rendering on a server): nothing to
  // define; the browser defines the element when the page loads the module there.
  if (typeof HTMLElement === "undefined" || typeof customElements === "undefined") return;
  /** Words the element itself shows (the viewer's own come from its catalog, in Rust). */
  const WORDS = {
    en: {
      attribute: "This attribute value is not valid:",
      start: "The viewer could not start:",
    },
    ja: {
      attribute: "この属性の値は使えません：",
      start: "ビューアを起動できませんでした：",
    },
  };
  const BOOLEAN = ["open", "hash", "tabs"];
  const ATTRIBUTES = ["src", "record", "lang", "step", "max-bytes", "max-steps", "compare", ...BOOLEAN];

  /** Adds the viewer's stylesheet to the document once (the loader's linkStylesheet). */
  function addStylesheet(doc) {
    // Already on the page under another name (mdBook renames it with a hash of its content).
    const view = doc.defaultView;
    if (view && view.getComputedStyle(doc.documentElement).getPropertyValue("--lane-viewer-css")) {
      return;
    }
    loader.linkStylesheet(doc);
  }

  class LaneViewerElement extends HTMLElement {
    static observedAttributes = ATTRIBUTES;

    #viewer = null;
    #started = false;
    #box = null;
    #watch = null;
    #near = null;
    #generation = 0;
    #aborts = null;
    #last = { record: undefined, step: undefined };
    #ready;
    #settle;
    #settled = false;

    constructor() {
      super();
      this.#fresh();
    }

    /** The handle mount() returned, once the live viewer is shown; else null. */
    get viewer() {
      return this.#viewer;
    }

    /** Resolves with the handle once the live viewer is shown; rejects if it cannot start. */
    get ready() {
      return this.#ready;
    }

    /** A promise of record `record`'s verdict (the selected record's when left out): the
     * handle's verdict(), once the viewer is ready; rejects if it cannot start. */
    async verdict(record) {
      const viewer = await this.#ready;
      return viewer.verdict(record ?? undefined);
    }

    #fresh() {
      if (this.#ready && !this.#settled) return;
      this.#settled = false;
      this.#ready = new Promise((resolve, reject) => {
        const settled = (f) => (value) => {
          this.#settled = true;
          f(value);
        };
        this.#settle = { resolve: settled(resolve), reject: settled(reject) };
      });
      // A page that never awaits `ready` is told through the element instead.
      this.#ready.catch(() => {});
    }

    connectedCallback() {
      if (this.#started || this.#near) return; // moved within the page: keep going
      addStylesheet(this.ownerDocument);
      if (typeof IntersectionObserver !== "function") {
        this.#start();
        return;
      }
      this.#near = new IntersectionObserver(
        (entries) => {
          if (entries.some((e) => e.isIntersecting)) {
            this.#near.disconnect();
            this.#near = null;
            this.#start();
          }
        },
        { rootMargin: "400px" },
      );
      this.#near.observe(this);
    }

    disconnectedCallback() {
      // Moved elements are disconnected and connected again at once: only a removal destroys.
      queueMicrotask(() => {
        if (!this.isConnected) this.#stop();
      });
    }

    attributeChangedCallback(name, old, value) {
      if (old === value || !this.#started) return;
      if (this.#viewer && (name === "record" || name === "lang" || name === "step")) {
        this.#sync();
      } else {
        this.#stop();
        this.#start();
      }
    }

    /** The inline record, if the element holds one (the first, if it holds several). */
    #inline() {
      return this.#inlines()[0] ?? null;
    }

    /** Every inline record, in order (`mdbook-lanes`' {{#lanes-diff}} puts two). */
    #inlines() {
      return [...this.querySelectorAll(':scope > script[type="application/json"]')].map((s) => s.textContent);
    }

    /** The element's language for its own words: its lang attribute if the viewer speaks it,
     * else the language of the page around it. */
    #words() {
      const own = this.getAttribute("lang");
      const tag =
        own === "en" || own === "ja" ? own : this.parentElement?.closest("[lang]")?.getAttribute("lang") || "";
      return tag.toLowerCase().startsWith("ja") ? WORDS.ja : WORDS.en;
    }

    /** Shows one of the element's own errors (in its language, with a code) instead of the viewer. */
    #fail(code, message, detail) {
      this.querySelector(":scope > [data-lane-viewer-error]")?.remove();
      const wrap = this.ownerDocument.createElement("div");
      wrap.className = "lane-viewer";
      wrap.setAttribute("data-lane-viewer-error", "");
      const box = wrap.appendChild(this.ownerDocument.createElement("div"));
      box.className = "lv-error";
      box.setAttribute("role", "alert");
      box.setAttribute("data-viewer-error", code);
      const p = box.appendChild(this.ownerDocument.createElement("p"));
      p.className = "lv-error-message";
      p.append(message + " ");
      const c = p.appendChild(this.ownerDocument.createElement("code"));
      c.className = "lv-code";
      c.setAttribute("translate", "no");
      c.textContent = code;
      const d = box.appendChild(this.ownerDocument.createElement("p"));
      d.className = "lv-error-detail";
      d.lang = "en";
      d.textContent = detail;
      this.prepend(wrap);
    }

    /** A bad attribute value, named with what it accepts; null when every value is good. */
    #badAttribute() {
      const lang = this.getAttribute("lang");
      if (lang !== null && lang !== "en" && lang !== "ja") {
        return `lang="${lang}": expected "en" or "ja"`;
      }
      const step = this.getAttribute("step");
      if (step !== null && !/^[1-9][0-9]{0,8}$/.test(step)) {
        return `step="${step}": expected a step number, counted from 1`;
      }
      for (const [name, unit] of [["max-bytes", "bytes"], ["max-steps", "steps"]]) {
        const max = this.getAttribute(name);
        if (max !== null && !(/^[1-9][0-9]{0,15}$/.test(max) && Number.isSafeInteger(Number(max)))) {
          return `${name}="${max}": expected a whole number of ${unit}, from 1 to ${Number.MAX_SAFE_INTEGER}`;
        }
      }
      const compare = this.getAttribute("compare");
      if (compare !== null && compare.trim().split(/\s+/).length !== 2) {
        return `compare="${compare}": expected two record ids, separated by a space`;
      }
      for (const name of BOOLEAN) {
        const v = this.getAttribute(name);
        if (v !== null && v !== "" && v !== "true" && v !== "false") {
          return `${name}="${v}": expected "true", "false" or nothing`;
        }
      }
      if (this.hasAttribute("src") && this.#inline() !== null) {
        return `src="${this.getAttribute("src")}": the element holds its record already (inline JSON)`;
      }
      return null;
    }

    #flag(name, otherwise) {
      const v = this.getAttribute(name);
      return v === null ? otherwise : v !== "false";
    }

    #options() {
      const text = this.#inline();
      const options = {
        open: this.#flag("open", false),
        hash: this.#flag("hash", false),
        // A comparison shows both records' tabs.
        tabs: this.#flag("tabs", this.hasAttribute("compare") || !(text !== null || this.hasAttribute("record"))),
      };
      for (const name of ["src", "record", "lang"]) {
        const v = this.getAttribute(name);
        if (v !== null) options[name] = v;
      }
      if (text !== null) options.text = text;
      const maxBytes = this.getAttribute("max-bytes");
      if (maxBytes !== null) options.maxBytes = Number(maxBytes);
      const maxSteps = this.getAttribute("max-steps");
      if (maxSteps !== null) options.maxSteps = Number(maxSteps);
      // With several inline records, the others are opened after mount (see #start).
      const compare = this.getAttribute("compare");
      if (compare !== null && this.#inlines().length < 2) options.compare = compare.trim().split(/\s+/);
      return options;
    }

    async #start() {
      const generation = ++this.#generation;
      this.#started = true;
      this.querySelector(":scope > [data-lane-viewer-error]")?.remove();
      const bad = this.#badAttribute();
      if (bad) {
        this.#fail("BAD_ATTRIBUTE", this.#words().attribute, bad);
        this.#settle.reject(new TypeError(`<lane-viewer> ${bad}`));
        return;
      }
      const box = this.ownerDocument.createElement("div");
      box.className = "lane-viewer-live";
      box.hidden = true;
      this.#box = box;
      // The viewer's verdicts are the element's: sent again from it, so the event's target is
      // the element (the one below stops at the box).
      box.addEventListener("lane-viewer-verdict", (event) => {
        event.stopPropagation();
        this.dispatchEvent(new CustomEvent(event.type, { bubbles: true, composed: true, detail: event.detail }));
      });
      this.append(box);
      let viewer;
      const aborts = new AbortController();
      this.#aborts = aborts;
      try {
        const { mount } = await loader.loadViewer();
        if (generation !== this.#generation) return;
        viewer = await mount(box, { ...this.#options(), signal: aborts.signal });
      } catch (error) {
        if (generation !== this.#generation) return;
        box.remove();
        this.#fail("VIEWER_UNAVAILABLE", this.#words().start, String(error));
        this.#settle.reject(error);
        return;
      }
      if (generation !== this.#generation) {
        viewer.destroy();
        return;
      }
      // Inline records after the first become tabs; the first stays selected.
      const extra = this.#inlines().slice(1);
      if (extra.length > 0) {
        const first = viewer.selected;
        extra.forEach((text, i) => viewer.open_text(`record-${i + 2}.json`, text));
        if (first != null) viewer.select(first);
        const compare = this.getAttribute("compare");
        if (compare !== null) viewer.compare(...compare.trim().split(/\s+/));
      }
      // The live viewer takes the place of the static content (the inline record stays); when it
      // could show no record at all (its error says why), the static content stays under it.
      if (viewer.selected != null) {
        for (const node of [...this.childNodes]) {
          if (node !== box && !(node.nodeName === "SCRIPT" && node.type === "application/json")) {
            node.remove();
          }
        }
      } else {
        this.prepend(box);
      }
      box.hidden = false;
      this.#viewer = viewer;
      this.#watch = new MutationObserver(() => this.#report());
      this.#watch.observe(box, {
        subtree: true,
        attributes: true,
        attributeFilter: ["data-current-step", "data-selected-record"],
      });
      this.#sync();
      this.#report();
      this.#settle.resolve(viewer);
    }

    /** record, lang and step: the attributes the live viewer follows without starting again. */
    #sync() {
      const viewer = this.#viewer;
      const bad = this.#badAttribute();
      this.querySelector(":scope > [data-lane-viewer-error]")?.remove();
      if (bad) {
        this.#fail("BAD_ATTRIBUTE", this.#words().attribute, bad);
        return;
      }
      const lang = this.getAttribute("lang");
      if (lang !== null && lang !== viewer.lang) viewer.set_lang(lang);
      const record = this.getAttribute("record");
      if (record !== null && record !== viewer.selected) viewer.select(record);
      const step = this.getAttribute("step");
      if (step !== null && viewer.selected === (record ?? viewer.selected)) {
        if (!viewer.select_step(Number(step) - 1)) {
          this.#fail("BAD_ATTRIBUTE", this.#words().attribute, `step="${step}": no such step`);
        }
      }
    }

    /** Tells the page which record and step are shown, when they change. */
    #report() {
      const viewer = this.#viewer;
      if (!viewer) return;
      const record = viewer.selected ?? null;
      const step = viewer.current_step ?? null;
      const last = this.#last;
      this.#last = { record, step };
      const detail = { record, step };
      if (record !== last.record) {
        this.dispatchEvent(new CustomEvent("lane-viewer-select", { bubbles: true, composed: true, detail }));
      }
      if (step !== last.step && last.step !== undefined) {
        this.dispatchEvent(new CustomEvent("lane-viewer-step", { bubbles: true, composed: true, detail }));
      }
    }

    /** Destroys the live viewer (the element was removed, or must start again). */
    #stop() {
      this.#generation++;
      this.#started = false;
      this.#near?.disconnect();
      this.#near = null;
      this.#watch?.disconnect();
      this.#watch = null;
      // A viewer still opening its record stops reading it and is freed.
      this.#aborts?.abort();
      this.#aborts = null;
      this.#viewer?.destroy();
      this.#viewer = null;
      this.#box?.remove();
      this.#box = null;
      this.#last = { record: undefined, step: undefined };
      this.#fresh();
    }
  }

  if (!customElements.get("lane-viewer")) {
    customElements.define("lane-viewer", LaneViewerElement);
  }
}
