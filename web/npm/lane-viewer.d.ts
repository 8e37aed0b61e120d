// Types of the `lane-viewer` package: the <lane-viewer> element, its attributes and events, and
// mount()'s options and handle. What each does: the guide's embedding and viewer chapters.

/** What mount() and the element take; every field may be left out. */
export interface MountOptions {
  /** URL of a records index (or of one record), relative to the page. Not with `text`. */
  src?: string | null;
  /** The language shown: "en" or "ja" (default: the browser's preference, else English). */
  lang?: "en" | "ja" | null;
  /** The id of the record selected first. */
  record?: string | null;
  /** Follow and update `location.hash` (`#record=<id>&lang=<en|ja>[&step=<n>]`); one viewer per page. */
  hash?: boolean | null;
  /** Show the "Open records…" button and accept dropped files (default true). */
  open?: boolean | null;
  /** Show the row of record tabs (default true); false shows the selected record alone. */
  tabs?: boolean | null;
  /** A record held as text by the page: shown alone, with no fetch. Not with `src`. */
  text?: string | null;
  /** Two record ids: the viewer compares record A with record B (`&compare=a,b` in the deep link). */
  compare?: [string, string] | null;
  /** The largest version 3 record taken, in bytes: a whole number from 1 to 2^53 − 1 (default 256 MiB). */
  maxBytes?: number | null;
  /** The most steps of a version 3 record held: a whole number from 1 to 2^53 − 1 (default 3,024,625, the viewer's memory budget of about 1 GiB). */
  maxSteps?: number | null;
  /** Aborted before mount() resolves: every fetch and read stops, the viewer is destroyed, mount() rejects. */
  signal?: AbortSignal | null;
}

/** A mounted viewer. */
export interface Viewer {
  /** Selects the record with this id; false (showing UNKNOWN_RECORD) if there is none. */
  select(id: string): boolean;
  /** Switches to "en" or "ja", keeping the selected record; false for any other tag. */
  set_lang(lang: string): boolean;
  /** Opens a record or an index held as text, as if a file `name` had been opened. */
  open_text(name: string, text: string): void;
  /** Resolves once every step of the selected record (a record of more than 500 steps: its listed window) is in the page. */
  settled(): Promise<void>;
  /**
   * How reading and replaying record `id` ended (the selected record's when left out), at once
   * if known; a record never shown is replayed for it. Rejects when no record has the id, and
   * when the viewer is destroyed first.
   */
  verdict(id?: string | null): Promise<LaneViewerVerdict>;
  /** Makes step n (from 0, as data-step counts) current; false, changing nothing, unless n is a step. */
  select_step(n: number): boolean;
  /** Compares record a with record b (ids); false (showing UNKNOWN_RECORD) if either is unknown. */
  compare(a: string, b: string): boolean;
  /** Ends the comparison, if any. */
  stop_comparing(): void;
  /** The current step (from 0), if one is selected. */
  readonly current_step: number | undefined;
  /** The selected record's id, if any record loaded. */
  readonly selected: string | undefined;
  /** The selected record's file as text once read (whole, or "" when not kept: a version 3 record past 16 MiB read in parts). */
  readonly selected_text: string | undefined;
  /** The language shown. */
  readonly lang: "en" | "ja";
  /** Removes the viewer's DOM and its listeners. */
  destroy(): void;
  /** Frees the handle's memory in the wasm (the viewer stays on the page until `destroy`). */
  free(): void;
}

/**
 * Mounts a viewer inside `target`; resolves once the first record is shown (or its loading
 * error). Rejects with a TypeError only for bad options.
 */
export function mount(target: Element, options?: MountOptions | null): Promise<Viewer>;

/** What `lane-viewer-select` and `lane-viewer-step` carry. */
export interface LaneViewerEventDetail {
  /** The selected record's id, or null. */
  record: string | null;
  /** The current step from 0 (as data-step counts), or null. */
  step: number | null;
}

/** What `lane-viewer-verdict` carries and `verdict()` resolves with. */
export interface LaneViewerVerdict {
  /** The record's id; null when the index (or `src`) could not be shown at all. */
  record: string | null;
  /** Every step replayed as saved; the core answered otherwise; or the record breaks the format or could not be read. */
  verdict: "verified" | "mismatch" | "invalid";
  /** The step (from 0, as data-step counts) where a mismatch is, or null. */
  step: number | null;
  /** The error code shown (REPLAY_MISMATCH, INVALID_RECORD, HASH_MISMATCH, …), or null when verified. */
  code: string | null;
  /** The record's hash chain, recomputed: chained with a verified signature, chained without one, or no chain (also for a record that could not be read: a chain that breaks makes it invalid). */
  chain: "signed" | "unsigned" | "none";
  /** The record's root hash (64 hex digits), its identity, when it is chained; otherwise null. */
  root: string | null;
}

/**
 * <lane-viewer src="records/index.json" record="busy-project" lang="ja">: the viewer as one
 * element. Attributes mirror mount()'s options: src, record, lang, step (from 1, as the deep
 * link counts), max-bytes (maxBytes), max-steps (maxSteps), compare (two ids separated by a space), open, hash and tabs ("", "true" or "false"). The element's defaults differ from
 * mount()'s where a page embeds it: open and hash are false, and tabs is false when the element
 * names one record or holds one.
 */
export interface LaneViewerElement extends HTMLElement {
  /** The handle mount() gave, once the live viewer is shown; else null. */
  readonly viewer: Viewer | null;
  /** Resolves with the handle once the live viewer is shown; rejects if it cannot start. */
  readonly ready: Promise<Viewer>;
  /** The handle's verdict(id) once the viewer is ready; rejects if it cannot start. */
  verdict(id?: string | null): Promise<LaneViewerVerdict>;
}

/** The events `<lane-viewer>` dispatches (bubbling and composed). */
export interface LaneViewerEvents {
  /** Another record was selected. */
  "lane-viewer-select": CustomEvent<LaneViewerEventDetail>;
  /** Another step became current. */
  "lane-viewer-step": CustomEvent<LaneViewerEventDetail>;
  /** A record's replay ended, or its file could not be shown: once per record read. */
  "lane-viewer-verdict": CustomEvent<LaneViewerVerdict>;
}

declare global {
  interface HTMLElementTagNameMap {
    "lane-viewer": LaneViewerElement;
  }
  /** The element's own events; all bubble, so any ancestor hears them. */
  interface HTMLElementEventMap extends LaneViewerEvents {}
  interface DocumentEventMap extends LaneViewerEvents {}
  interface WindowEventMap extends LaneViewerEvents {}
}
