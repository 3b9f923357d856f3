// Kinetoscope's analyzer worker, as the hosted page starts it: a classic worker (the Emscripten
// glue, wasm/kinetoscope_wasm.js, is a classic script loaded with importScripts) whose code is the
// ES modules in worker/ (worker/main.js; every message in worker/protocol.js; worker/README.md).
// Messages that arrive while the modules load are kept and handed over in order. The single-file
// page does not use this file: scripts/dist.mjs bundles worker/main.js into its Blob worker.
'use strict';

const early = [];
self.onmessage = (e) => early.push(e);
import('./worker/main.js').then(
  (main) => {
    for (const e of early.splice(0)) main.onMessage(e);
  },
  (err) => {
    // Without its code the worker cannot answer: fail as a broken script does (the page's
    // onerror starts a fresh worker for the next file and says what happened).
    setTimeout(() => {
      throw new Error(`the worker's modules (worker/main.js) could not be loaded: ${(err && err.message) || err}`);
    });
  },
);
