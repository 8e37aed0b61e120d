// The verdicts one viewer tells (web/src/app/verdicts.rs decides when): each is sent once as
// `lane-viewer-verdict` from the viewer's root (a bubbling, composed CustomEvent, detail
// { record, verdict, step, code, chain, root }), kept by record id (null: nothing could be shown), and given
// to the promises of the handle's verdict(id) that wait for it.
export class LaneViewerVerdicts {
  #root;
  #told = new Map();
  #waiting = [];

  constructor(root) {
    this.#root = root;
  }

  /** A verdict reached: kept, sent, and given to the promises waiting for it. */
  tell(record, verdict, step, code, chain, root) {
    const detail = {
      record: record ?? null, verdict, step: step ?? null, code: code ?? null,
      chain, root: root ?? null,
    };
    this.#told.set(detail.record, detail);
    const waiting = this.#waiting;
    this.#waiting = waiting.filter((w) => w.record !== detail.record);
    for (const w of waiting) if (w.record === detail.record) w.resolve(detail);
    this.#root.dispatchEvent(new CustomEvent("lane-viewer-verdict", { bubbles: true, composed: true, detail }));
  }

  /** A promise of record `record`'s verdict: at once if it was told. */
  wait(record) {
    const told = this.#told.get(record ?? null);
    if (told) return Promise.resolve(told);
    return new Promise((resolve, reject) => this.#waiting.push({ record: record ?? null, resolve, reject }));
  }

  /** A promise rejected with `message`. */
  refuse(message) {
    return Promise.reject(new Error(message));
  }

  /** Rejects every promise still waiting with `message` (the viewer is destroyed). */
  fail(message) {
    for (const w of this.#waiting) w.reject(new Error(message));
    this.#waiting = [];
  }
}
