// The playground page (playground.html): the editor, the live viewer and the ways out. Scenarios
// run in the playground's own module (playground/, lane-records' runner), in a Web Worker
// (playground-runner.js) so that a long one never blocks typing; the record is shown by the
// usual viewer (pkg/). After every run the page dispatches `playground-ran` on `document` with
// `{ok, code, runMs, drawMs}`, which its tests and benchmark wait for; a run stopped before it
// ends dispatches `playground-stopped` instead. `.pg-source[data-run-state]` is `running`,
// `drawing` or `idle`.

import initViewer, { mount } from "./pkg/lane_viewer.js";
import initPlayground, * as pg from "./playground/lane_playground.js";
import { Runner } from "./playground-runner.js";

/** Milliseconds of quiet typing before the scenario runs again. */
const QUIET_MS = 250;
/** The longest scenario a link holds, in characters: browsers cap URLs at about 2 MB. */
const MAX_LINK = 1_000_000;
/** The largest record file "Edit a record file…" reads: 64 MiB, far more than a scenario of at
 * most 4 MiB comes from (the viewer takes records of up to 256 MiB). */
const MAX_RECORD_FILE = 64 * 1024 * 1024;
/** Milliseconds to wait for the page that opened this one to hand over its record. */
const HANDOFF_MS = 10_000;

const WORDS = {
  en: {
    loading: "Starting the playground…",
    ran: (steps, ms) => `Ran on the core: ${steps.toLocaleString("en")} steps, ${ms} ms.`,
    failed: "The scenario has an error; the record shown is from the last scenario that ran.",
    failedNone: "The scenario has an error.",
    lead: (e) =>
      e.line
        ? `${e.code}: line ${e.line}, column ${e.column} of ${e.file}. As lane-records run says it:`
        : `${e.code}: ${e.file}. As lane-records run says it:`,
    groupScenarios: "Bundled scenarios",
    groupTemplates: "Blank templates",
    groupRecords: "Bundled records (edit as a scenario)",
    template: { "lanes.toml": "Lanes alone", "dispatcher.toml": "Queues and a dispatcher" },
    copied: "The link is copied.",
    copyBelow: "Copy the link below.",
    linkTooLong: "The scenario is too long for a link (browsers cap links at about 2 MB): download it instead.",
    unknownRecord: (id) => `No bundled record is called ${id}:`,
    linkError: "The link in the address does not hold a scenario:",
    editError: (name) => `${name} cannot be edited as a scenario:`,
    waiting: "Waiting for the record from the page that opened this one…",
    handoffError:
      "No record came from the page that opened this one. Open the record's file with “Edit a record file as a scenario…” instead:",
    cannotStart: "The playground could not start: ",
    viewerFailed: "The viewer could not show the record: VIEWER_FAILED",
    editor: "Scenario (TOML)",
    running: (s) => `Running on the core… ${s} s`,
    drawing: "Showing the record…",
    stopped: "Stopped before it ended; the record shown is from the last scenario that ran. Ctrl+Enter runs it again.",
    runFailed: "The run stopped with an error:",
  },
  ja: {
    loading: "プレイグラウンドを起動しています…",
    ran: (steps, ms) => `コアで実行しました：${steps.toLocaleString("ja")} ステップ、${ms} ミリ秒。`,
    failed: "シナリオに誤りがあります。表示中の記録は、最後に実行できたシナリオのものです。",
    failedNone: "シナリオに誤りがあります。",
    lead: (e) =>
      e.line
        ? `${e.code}：${e.file} の ${e.line} 行目 ${e.column} 列目に誤りがあります。lane-records run の表示：`
        : `${e.code}：${e.file}。lane-records run の表示：`,
    groupScenarios: "同梱のシナリオ",
    groupTemplates: "白紙のひな形",
    groupRecords: "同梱の記録（シナリオとして編集）",
    template: { "lanes.toml": "レーンだけ", "dispatcher.toml": "キューとディスパッチャ" },
    copied: "リンクをコピーしました。",
    copyBelow: "下のリンクをコピーしてください。",
    linkTooLong: "シナリオが長すぎてリンクにできません（ブラウザのリンクは約 2 MB までです）。ダウンロードしてください。",
    unknownRecord: (id) => `同梱の記録に ${id} はありません：`,
    linkError: "アドレスのリンクにはシナリオが入っていません：",
    editError: (name) => `${name} はシナリオとして編集できません：`,
    waiting: "このページを開いたページから記録を受け取っています…",
    handoffError:
      "このページを開いたページから記録を受け取れませんでした。代わりに「記録ファイルをシナリオとして編集…」で記録ファイルを開いてください：",
    cannotStart: "プレイグラウンドを起動できませんでした：",
    viewerFailed: "ビューアで記録を表示できませんでした：VIEWER_FAILED",
    editor: "シナリオ（TOML）",
    running: (s) => `コアで実行しています… ${s} 秒`,
    drawing: "記録を表示しています…",
    stopped: "終わる前に中止しました。表示中の記録は、最後に実行できたシナリオのものです。Ctrl+Enter でもう一度実行します。",
    runFailed: "実行が誤りで止まりました：",
  },
};

const $ = (selector) => document.querySelector(selector);
const editor = $("[data-editor]");
const gutter = $("[data-gutter]");
const status = $("[data-status]");
const errorBox = $("[data-error]");
const recordPane = $(".pg-record");
const host = $("[data-viewer-host]");
const source = $(".pg-source");
const stopButton = $("[data-stop-run]");

const state = {
  lang: "en",
  /** The file name errors name and downloads take. */
  file: "scenario.toml",
  /** The last run that gave a record: {id, file, json, steps}. */
  good: null,
  /** The current error (a run's, a link's or a record file's), or null. */
  error: null,
  /** Whether `good` is the record of the text in the editor. */
  current: false,
  viewer: null,
  lines: 0,
};

const words = () => WORDS[state.lang];

/** The fragment's parameters (`lang`, `scenario`, `record`, `from`). */
const fragment = () => new URLSearchParams(location.hash.slice(1));

function setLang(lang) {
  state.lang = lang;
  document.documentElement.lang = lang;
  for (const button of document.querySelectorAll("[data-set-lang]")) {
    button.setAttribute("aria-pressed", String(button.dataset.setLang === lang));
  }
  editor.setAttribute("aria-label", words().editor);
  state.viewer?.set_lang(lang);
  fillStarts();
  showStatus();
}

// ---- the editor ----------------------------------------------------------------------------

function countLines(text) {
  let n = 1;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

/** Line numbers beside the text, redrawn only when the number of lines changes. */
function drawGutter() {
  const lines = countLines(editor.value);
  if (lines !== state.lines) {
    state.lines = lines;
    let numbers = "";
    for (let i = 1; i <= lines; i++) numbers += i + "\n";
    gutter.textContent = numbers;
  }
  // As far down as the editor scrolls, which has a scrollbar below its lines.
  gutter.style.paddingBottom = `${8 + editor.offsetHeight - editor.clientHeight}px`;
  gutter.scrollTop = editor.scrollTop;
}

/** Counts the texts put in the editor (typing too): a load that finishes after a newer one
 * is dropped. */
let loads = 0;

function setText(file, text) {
  loads++;
  state.file = file;
  $("[data-file-name]").textContent = file;
  editor.value = text;
  editor.scrollTop = 0;
  drawGutter();
  runNow();
}

// ---- running -------------------------------------------------------------------------------

let timer = 0;
let running = null;
let again = false;
/** Runs the scenarios (set by `start`). */
let runner = null;
/** The phase of the run in flight, its start, and the timer that counts its seconds. */
const run = { phase: "idle", since: 0, ticker: 0 };

function setPhase(phase) {
  run.phase = phase;
  source.dataset.runState = phase === "starting" ? "running" : phase;
  clearInterval(run.ticker);
  if (phase === "starting") run.since = performance.now();
  if (phase === "starting" || phase === "running") {
    run.ticker = setInterval(showStatus, 1000);
  }
  stopButton.hidden = !(phase === "starting" || phase === "running") || !runner?.inWorker;
  // A browser that gives no worker: said beside the editor, with why.
  const note = $("[data-no-worker]");
  note.hidden = runner?.inWorker !== false;
  $("[data-no-worker-why]").textContent = runner?.why ?? "";
  showStatus();
}

/** Stops the run in flight (the worker is ended; the next run starts a fresh one). */
function stopRun() {
  if (!runner?.cancel()) return;
  again = false;
  // Said at once; the run's own end (`runOnce`) says the same.
  state.current = false;
  state.stopped = true;
  setPhase("idle");
}

function runSoon() {
  clearTimeout(timer);
  timer = setTimeout(runNow, QUIET_MS);
}

/** Runs the editor's text; a run asked for while one is drawing follows it, with the newest text. */
function runNow() {
  clearTimeout(timer);
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    try {
      do {
        again = false;
        await runOnce(editor.value);
      } while (again);
    } finally {
      running = null;
    }
  })();
  return running;
}

/** Whether the editor holds text that has not run yet. */
let typed = false;

async function runOnce(text) {
  typed = false;
  const started = performance.now();
  const outcome = await runner.run(state.file, text);
  const runMs = performance.now() - started;
  if (outcome.cancelled) {
    state.current = false;
    state.stopped = true;
    setPhase("idle");
    document.dispatchEvent(new CustomEvent("playground-stopped", { detail: { runMs } }));
    return;
  }
  state.stopped = false;
  const ran = outcome.ran ?? {
    ok: false,
    code: "RUN_FAILED",
    file: state.file,
    shown: `${state.file}: ${outcome.failed}`,
    lead: `${words().runFailed}${state.lang === "ja" ? "" : " "}RUN_FAILED`,
  };
  let drawMs = 0;
  if (ran.ok) {
    setPhase("drawing");
    state.error = null;
    state.good = ran;
    state.current = true;
    const drawn = performance.now();
    try {
      await showRecord(ran.json);
    } catch (error) {
      // Not expected (the record ran on the core): say it, and keep what is shown.
      state.current = false;
      state.error = { code: "VIEWER_FAILED", file: ran.file, shown: String(error), lead: words().viewerFailed };
    }
    drawMs = performance.now() - drawn;
  } else {
    state.error = ran;
    state.current = false;
  }
  state.lastMs = Math.round(runMs + drawMs);
  setPhase("idle");
  document.dispatchEvent(
    new CustomEvent("playground-ran", {
      detail: { ok: ran.ok, code: ran.ok ? null : ran.code, runMs, drawMs },
    }),
  );
}

/** Shows `json` in a fresh viewer, keeping the current step, then drops the old one. */
async function showRecord(json) {
  const old = state.viewer;
  const step = old?.current_step;
  const box = document.createElement("div");
  box.className = "pg-viewer";
  host.append(box);
  let viewer;
  try {
    viewer = await mount(box, { text: json, tabs: false, open: false, lang: state.lang });
    await viewer.settled();
  } catch (error) {
    box.remove();
    throw error;
  }
  // The page's language may have changed while it mounted.
  if (viewer.lang !== state.lang) viewer.set_lang(state.lang);
  if (step !== undefined && step !== null) viewer.select_step(step);
  observer?.disconnect();
  // The viewer's own language buttons switch the whole page.
  observer = new MutationObserver(() => {
    if (viewer.lang !== state.lang) setLang(viewer.lang);
  });
  observer.observe(box, { attributes: true, attributeFilter: ["lang"], subtree: true });
  old?.destroy();
  old?.free();
  for (const child of [...host.children]) if (child !== box) child.remove();
  state.viewer = viewer;
}

/** Watches the shown viewer's language. */
let observer = null;

// ---- what the page says --------------------------------------------------------------------

function showStatus() {
  const w = words();
  const error = state.error;
  errorBox.hidden = error === null;
  // An error of the editor's text, or of something else (a link, a record file).
  const ours = error !== null && error.lead === undefined;
  editor.setAttribute("aria-invalid", String(ours));
  if (error) {
    $("[data-error-lead]").textContent = error.lead ?? w.lead(error);
    $("[data-error-text]").textContent = error.shown;
    $("[data-goto-error]").hidden = !ours || !error.line;
  }
  if (run.phase === "starting" || run.phase === "running") {
    status.textContent = w.running(Math.floor((performance.now() - run.since) / 1000));
  } else if (run.phase === "drawing") {
    status.textContent = w.drawing;
  } else if (ours) {
    status.textContent = state.good ? w.failed : w.failedNone;
  } else if (state.stopped) {
    status.textContent = w.stopped;
  } else if (state.good && state.current) {
    status.textContent = w.ran(state.good.steps, state.lastMs ?? 0);
  } else {
    status.textContent = "";
  }
  const stale = state.good !== null && !state.current;
  recordPane.dataset.recordState = state.good === null ? "none" : stale ? "stale" : "current";
  $("[data-stale-note]").hidden = !stale;
  for (const kind of ["record", "zip"]) {
    $(`[data-download="${kind}"]`).disabled = !state.current;
  }
}

/** An error that is not the editor's text (a link, a record file): shown until the next run. */
function showError(lead, failure) {
  state.error = { ...failure, lead: `${lead}${state.lang === "ja" ? "" : " "}${failure.code}` };
  showStatus();
}

function gotoError() {
  const error = state.error;
  if (!error?.line) return;
  const lines = editor.value.split("\n");
  let offset = 0;
  for (let i = 0; i < error.line - 1 && i < lines.length; i++) offset += lines[i].length + 1;
  // Columns count characters (code points); the textarea counts UTF-16 units.
  const line = lines[error.line - 1] ?? "";
  offset += [...line].slice(0, error.column - 1).join("").length;
  editor.focus();
  editor.setSelectionRange(offset, offset);
  // Bring the line into view: its place in the text times the height of a line.
  const height = parseFloat(getComputedStyle(editor).lineHeight) || 20;
  editor.scrollTop = Math.max(0, (error.line - 3) * height);
  drawGutter();
}

// ---- starts --------------------------------------------------------------------------------

let starts = [];
let bundledRecords = [];

function fillStarts() {
  const select = $("[data-start]");
  const chosen = select.value;
  const w = words();
  const group = (label, options) => {
    const element = document.createElement("optgroup");
    element.label = label;
    for (const [value, text] of options) element.append(new Option(text, value));
    return element;
  };
  const title = (t) => (state.lang === "ja" ? t.ja : t.en);
  select.replaceChildren(
    group(
      w.groupScenarios,
      starts.filter((s) => s.kind === "scenario").map((s) => [`start:${s.file}`, title(s.title)]),
    ),
    group(
      w.groupTemplates,
      starts.filter((s) => s.kind === "template").map((s) => [`start:${s.file}`, w.template[s.file] ?? s.file]),
    ),
  );
  if (bundledRecords.length) {
    select.append(
      group(w.groupRecords, bundledRecords.map((r) => [`record:${r.id}`, title(r.title)])),
    );
  }
  if (chosen) select.value = chosen;
}

async function loadStart(value) {
  if (value.startsWith("start:")) {
    const start = starts.find((s) => `start:${s.file}` === value);
    if (start) setText(start.file, start.text);
  } else if (value.startsWith("record:")) {
    await editBundledRecord(value.slice("record:".length));
  }
}

async function editBundledRecord(id) {
  const entry = bundledRecords.find((r) => r.id === id);
  if (!entry) {
    showError(words().unknownRecord(id), {
      code: "UNKNOWN_RECORD",
      file: id,
      shown: `${id}: no bundled record has this id`,
    });
    return;
  }
  const ticket = loads;
  let bytes;
  try {
    const response = await fetch(new URL(`records/${entry.file}`, document.baseURI));
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    bytes = new Uint8Array(await response.arrayBuffer());
  } catch (error) {
    showError(words().editError(entry.file), {
      code: "RECORD_UNAVAILABLE",
      file: entry.file,
      shown: `${entry.file}: ${error.message}`,
    });
    return;
  }
  if (ticket === loads) editRecord(entry.file, bytes);
}

/** Edits the record file `bytes` as a scenario; returns whether it could be. */
function editRecord(name, bytes) {
  const edited = pg.edit(name, bytes);
  if (edited.ok) {
    setText(edited.file, edited.text);
  } else {
    showError(words().editError(name), edited);
  }
  return edited.ok;
}

async function openRecordFile(file) {
  if (file.size > MAX_RECORD_FILE) {
    showError(words().editError(file.name), {
      code: "RECORD_TOO_LARGE",
      file: file.name,
      shown: `${file.name}: the file is ${file.size} bytes; a record file read here may be at most ${MAX_RECORD_FILE} bytes`,
    });
    return;
  }
  const ticket = loads;
  const bytes = new Uint8Array(await file.arrayBuffer());
  if (ticket === loads) editRecord(file.name, bytes);
}

// ---- the ways out --------------------------------------------------------------------------

/** Offers `bytes` as the file `name`; the button keeps the blob's URL (`data-url`). */
function offer(button, name, bytes, type) {
  if (button.dataset.url) URL.revokeObjectURL(button.dataset.url);
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  button.dataset.url = url;
  button.dataset.file = name;
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
}

async function download(button) {
  // Text typed since the last run runs first: what is offered is what the editor holds.
  if (typed || running) await runNow();
  const kind = button.dataset.download;
  const id = state.current ? state.good.id : state.file.replace(/\.toml$/, "");
  if (kind === "scenario") {
    offer(button, `${id}.toml`, editor.value, "application/toml");
  } else if (kind === "record" && state.current) {
    offer(button, state.good.file, state.good.json, "application/json");
  } else if (kind === "zip" && state.current) {
    const zip = pg.bundle(state.file, editor.value);
    if (zip instanceof Uint8Array) offer(button, `${id}.zip`, zip, "application/zip");
  }
}

/** Puts the editor's scenario in this tab's address (`#scenario=`); returns the link, or null
 * for a scenario too long for one. */
function scenarioInAddress() {
  const value = pg.share(editor.value);
  if (value.length > MAX_LINK) return null;
  const url = new URL(location.href);
  url.hash = `${new URLSearchParams({ lang: state.lang })}&scenario=${value}`;
  try {
    history.replaceState(null, "", url);
  } catch {
    // The link is still there to copy.
  }
  return url;
}

async function copyLink() {
  const url = scenarioInAddress();
  if (url === null) {
    status.textContent = words().linkTooLong;
    return;
  }
  const input = $("[data-link]");
  input.value = url.href;
  $("[data-link-row]").hidden = false;
  try {
    await navigator.clipboard.writeText(url.href);
    status.textContent = words().copied;
  } catch {
    input.focus();
    input.select();
    status.textContent = words().copyBelow;
  }
}

// ---- start ---------------------------------------------------------------------------------

async function start() {
  const params = fragment();
  const asked = params.get("lang");
  const lang =
    asked === "en" || asked === "ja"
      ? asked
      : (navigator.languages ?? []).some((l) => l.toLowerCase().startsWith("ja"))
        ? "ja"
        : "en";
  setLang(lang);
  status.textContent = words().loading;
  const [, module] = await Promise.all([initViewer(), compilePlayground()]);
  await initPlayground({ module_or_path: module });
  runner = new Runner(module, pg.run, setPhase);
  starts = pg.starts();
  try {
    const response = await fetch(new URL("records/index.json", document.baseURI));
    if (response.ok) bundledRecords = (await response.json()).records ?? [];
  } catch {
    bundledRecords = [];
  }
  fillStarts();

  editor.addEventListener("input", () => {
    typed = true;
    loads++;
    drawGutter();
    runSoon();
  });
  editor.addEventListener("scroll", () => (gutter.scrollTop = editor.scrollTop));
  editor.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      runNow();
    }
  });
  for (const button of document.querySelectorAll("[data-set-lang]")) {
    button.addEventListener("click", () => setLang(button.dataset.setLang));
  }
  $("[data-load-start]").addEventListener("click", () => loadStart($("[data-start]").value));
  const picker = $("[data-record-file]");
  $("[data-open-record]").addEventListener("click", () => picker.click());
  picker.addEventListener("change", () => {
    if (picker.files?.[0]) openRecordFile(picker.files[0]);
    picker.value = "";
  });
  $("[data-goto-error]").addEventListener("click", gotoError);
  for (const button of document.querySelectorAll("[data-download]")) {
    button.addEventListener("click", () => download(button));
  }
  $("[data-copy-link]").addEventListener("click", copyLink);
  stopButton.addEventListener("click", stopRun);

  // A link opened in this tab changes only the fragment: follow it.
  addEventListener("hashchange", () => {
    const params = fragment();
    const asked = params.get("lang");
    if (asked === "en" || asked === "ja") setLang(asked);
    if (["scenario", "record", "from"].some((name) => params.has(name))) fromFragment(false);
  });
  await fromFragment(true);
}

/** The playground's module, compiled once: the page and every worker it starts share it. */
async function compilePlayground() {
  const url = new URL("playground/lane_playground_bg.wasm", import.meta.url);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return WebAssembly.compile(await response.arrayBuffer());
}

/** Loads what the fragment names: a shared scenario, a bundled record, the record of the page
 * that opened this one, else the first scenario. */
/** `initial`: the editor is still empty, so a record it does not know leaves the first bundled
 * scenario in it (a link that holds no scenario leaves it empty, beside the link's error). */
async function fromFragment(initial) {
  const params = fragment();
  const shared = params.get("scenario");
  const record = params.get("record");
  if (shared !== null) {
    const text = pg.unshare(shared);
    if (text.ok) {
      setText("shared.toml", text.text);
    } else {
      showError(words().linkError, text);
    }
  } else if (params.get("from") === "opener") {
    await fromOpener();
  } else if (record !== null) {
    const known = bundledRecords.some((r) => r.id === record);
    if (known) $("[data-start]").value = `record:${record}`;
    else if (initial) loadFirst();
    await editBundledRecord(record);
  } else {
    loadFirst();
  }
}

/** The record the page that opened this one shows (the standalone page's "edit this record as
 * a scenario", for a record that is not the site's own): this page asks for it with
 * `lane-playground-ready`, and takes only the answer of that page, of this page's origin. A
 * frame asks the page it is in. */
function fromOpener() {
  const peer = window.opener ?? (window.parent !== window ? window.parent : null);
  const failed = (shown) =>
    showError(words().handoffError, { code: "RECORD_UNAVAILABLE", file: "the opener", shown });
  if (!peer) {
    failed("the opener: no page opened this one");
    return;
  }
  status.textContent = words().waiting;
  const ticket = loads;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      removeEventListener("message", listen);
      if (status.textContent === words().waiting) status.textContent = "";
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      failed(`the opener: no answer in ${HANDOFF_MS / 1000} s`);
    }, HANDOFF_MS);
    function listen(event) {
      const data = event.data;
      if (event.source !== peer || event.origin !== self.origin) return;
      if (data?.type !== "lane-playground-record") return;
      done();
      if (ticket !== loads) return;
      const name = typeof data.name === "string" && data.name ? data.name : "record.json";
      if (typeof data.text !== "string") {
        failed("the opener: what came is not a record's text");
      } else if (data.text === "") {
        showError(words().editError(name), {
          code: "RECORD_TOO_LARGE",
          file: name,
          shown: `${name}: the viewer keeps the text of a record of at most 16 MiB, and this one is larger`,
        });
      } else if (editRecord(name, new TextEncoder().encode(data.text))) {
        // Reloaded, the tab keeps the scenario without the page that opened it (closed by then).
        scenarioInAddress();
      }
    }
    addEventListener("message", listen);
    peer.postMessage({ type: "lane-playground-ready" }, "/");
  });
}

function loadFirst() {
  const first = starts.find((s) => s.kind === "scenario");
  $("[data-start]").value = `start:${first.file}`;
  setText(first.file, first.text);
}

start().catch((error) => {
  status.textContent = words().cannotStart + error;
});
