// The playground's runner off the page's thread: a Web Worker (made by playground-runner.js)
// that runs scenarios in the playground's own module, so a long one never blocks typing.
//
// Messages in:  {type: "start", module}       the compiled module (WebAssembly.Module)
//               {type: "run", id, file, text}  a scenario to run
// Messages out: {type: "ready"} | {type: "failed", error}
//               {type: "phase", id, phase}     "running": the core has the scenario
//               {type: "ran", id, ran}         what `run` gave ({ok, …}, see lane-playground)
//               {type: "ran", id, error}       `run` threw (not expected: the module is spent)

import init, { run } from "./playground/lane_playground.js";

let ready = null;

self.onmessage = async (event) => {
  const message = event.data;
  if (message?.type === "start") {
    ready = init({ module_or_path: message.module });
    try {
      await ready;
      self.postMessage({ type: "ready" });
    } catch (error) {
      self.postMessage({ type: "failed", error: String(error) });
    }
  } else if (message?.type === "run") {
    await ready;
    self.postMessage({ type: "phase", id: message.id, phase: "running" });
    try {
      const ran = run(message.file, message.text);
      self.postMessage({ type: "ran", id: message.id, ran });
    } catch (error) {
      self.postMessage({ type: "ran", id: message.id, error: String(error) });
    }
  }
};
