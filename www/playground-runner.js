// Runs the playground's scenarios in a Web Worker (playground-worker.js), one at a time, with
// the phase each run is in and a cancel that ends the worker and starts a fresh one. Where no
// worker can be made, it runs them on the page's thread instead, as the page did before, and
// says so (`inWorker`).
//
// The worker is made from a Blob URL whose one line imports playground-worker.js by its full
// address: a page in a frame of another origin (the tests' `srcdoc` copy) may not start a
// worker from the site's address, but may from a blob of its own.

/** Milliseconds a new worker may take to say it is ready before the page runs on its own thread. */
const START_MS = 10_000;

export class Runner {
  /** `module`: the compiled playground module; `runHere(file, text)`: the page's own `run`;
   * `onPhase(phase)`: "starting", "running" (the core has it), then the run's promise settles. */
  constructor(module, runHere, onPhase) {
    this.module = module;
    this.runHere = runHere;
    this.onPhase = onPhase;
    this.worker = null;
    this.ready = null;
    this.job = null;
    /** The run waiting for its worker to start, if any (see `cancel`). */
    this.starting = null;
    this.ids = 0;
    /** Whether runs go to a worker (false once a worker could not be made). */
    this.inWorker = typeof Worker === "function";
    this.why = null;
  }

  /** Starts a worker, resolving once it is ready; falls back to the page's thread if it is not. */
  start() {
    if (!this.inWorker) return Promise.resolve(false);
    if (this.ready) return this.ready;
    this.ready = new Promise((resolve) => {
      let worker;
      let blobUrl = null;
      try {
        const url = new URL("playground-worker.js", import.meta.url).href;
        const blob = new Blob([`import ${JSON.stringify(url)};\n`], { type: "text/javascript" });
        blobUrl = URL.createObjectURL(blob);
        worker = new Worker(blobUrl, { type: "module" });
      } catch (error) {
        if (blobUrl) URL.revokeObjectURL(blobUrl);
        this.fallBack(String(error));
        resolve(false);
        return;
      }
      const timer = setTimeout(() => fail("no answer from the worker"), START_MS);
      // Kept until the worker has loaded it: WebKit reads the blob after `new Worker` returns.
      const loaded = () => URL.revokeObjectURL(blobUrl);
      const fail = (why) => {
        loaded();
        clearTimeout(timer);
        worker.terminate();
        if (this.worker === worker) this.worker = null;
        this.fallBack(why);
        resolve(false);
      };
      worker.onerror = (event) => {
        event.preventDefault?.();
        fail(event.message || "the worker could not start");
      };
      worker.onmessage = (event) => {
        const message = event.data;
        if (message.type === "ready") {
          loaded();
          clearTimeout(timer);
          worker.onerror = (event) => this.workerFailed(event.message || "the worker stopped");
          resolve(true);
        } else if (message.type === "failed") {
          fail(message.error);
        } else if (this.job && message.id === this.job.id) {
          if (message.type === "phase") this.onPhase(message.phase);
          else if (message.error !== undefined) this.workerFailed(message.error);
          else this.finish({ ran: message.ran });
        }
      };
      this.worker = worker;
      worker.postMessage({ type: "start", module: this.module });
    });
    return this.ready;
  }

  fallBack(why) {
    this.inWorker = false;
    this.why = why;
    this.ready = null;
  }

  /** A worker that fails mid-run: the run is given up, and the next one starts a fresh worker. */
  workerFailed(why) {
    this.stop();
    this.finish({ ran: null, failed: why });
  }

  /** Runs `text` as the file `file`: `{ran}` (what `run` gives), `{cancelled: true}`, or
   * `{ran: null, failed}` when the worker failed mid-run. */
  async run(file, text) {
    this.onPhase("starting");
    // A stop asked for while the worker starts ends the run before it is sent.
    const starting = { cancelled: false };
    this.starting = starting;
    const inWorker = await this.start();
    this.starting = null;
    if (starting.cancelled) return { cancelled: true };
    if (inWorker) {
      return new Promise((resolve) => {
        this.job = { id: ++this.ids, resolve };
        this.worker.postMessage({ type: "run", id: this.job.id, file, text });
      });
    }
    this.onPhase("running");
    // Let the page say so before the run holds its thread.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    return { ran: this.runHere(file, text) };
  }

  finish(outcome) {
    const job = this.job;
    this.job = null;
    job?.resolve(outcome);
  }

  /** Ends the run in flight (its worker is ended; the next run starts a fresh one), or the run
   * waiting for its worker to start (it is never sent). Returns whether there was one to end: a
   * run on the page's thread cannot be. */
  cancel() {
    if (this.starting) {
      this.starting.cancelled = true;
      return true;
    }
    if (!this.job) return false;
    this.stop();
    this.finish({ cancelled: true });
    return true;
  }

  stop() {
    this.worker?.terminate();
    this.worker = null;
    this.ready = null;
  }
}
