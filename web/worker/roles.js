// The page's analyzer workers and their roles (hardening, docs/hardening.md): `worker` holds the
// trace on screen (the timeline queries it); `loader` reads the file being loaded, in a worker of
// its own, so that a cancel or a new file ends it with terminate(): a stuck load (a huge file, a
// read that never ends, a long WASM call) never keeps a worker running, whatever the timing. A
// load that succeeds makes its loader the new `worker` (the old one is ended); a load that fails
// is ended and the report on screen keeps its worker. Beside them: the `helpers` of a large file
// (worker/helpers.js), only while that file loads, and the warmed-up `spare` that becomes the
// next loader. app.js decides when; this module only starts, swaps and ends them.
import { warmMsg } from './protocol.js';
import { startAnalyzerWorker } from './start.js';

// The spare starts this long after a load settles, once the page is idle again.
const SPARE_DELAY_MS = 300;

// onMessage(event, fromWorker): every worker's messages. onLoaderFailed(message): the loader's
// script itself failed. loading(): whether a file is being read (no spare starts meanwhile).
export function workerRoles({ onMessage, onLoaderFailed, loading }) {
  let worker = null;
  let loader = null;
  let helpers = []; // the workers helping the loader read a large file
  // The next loader, started ahead of time and warmed up (worker/warm.js): a file opened after the
  // page has been open a moment is read by optimized code from its first byte. <body
  // data-warm="1"> once it is ready (tests and the benchmark wait for it).
  let spare = null;

  function takeSpare() {
    const w = spare;
    spare = null;
    delete document.body.dataset.warm;
    delete document.body.dataset.spare;
    return w;
  }

  function start() {
    const w = startAnalyzerWorker();
    w.onmessage = (e) => onMessage(e, w);
    w.onerror = (e) => {
      // The worker script itself failed; a fresh one starts for the next file.
      e.preventDefault();
      w.terminate();
      if (w === worker) worker = null;
      if (w === spare) takeSpare();
      if (w === loader) {
        loader = null;
        onLoaderFailed(e.message || 'unknown error');
      }
    };
    return w;
  }

  function endHelpers() {
    for (const x of helpers) x.terminate();
    helpers = [];
  }

  function endLoader() {
    if (loader) loader.terminate();
    loader = null;
    endHelpers();
  }

  return {
    isWorker: (w) => !!w && w === worker,
    isLoader: (w) => !!w && w === loader,
    isSpare: (w) => !!w && w === spare,
    // To the worker of the trace on screen; false when there is none.
    post: (msg) => !!worker && (worker.postMessage(msg), true),
    // A fresh loader for the next file: the warmed-up spare, else a new worker.
    newLoader() {
      endLoader();
      loader = takeSpare() || start();
    },
    // To the loader; false once it was ended (the load replaced or cancelled).
    postLoader: (msg, transfer = []) => !!loader && (loader.postMessage(msg, transfer), true),
    setHelpers: (list) => (helpers = list),
    endHelpers,
    endLoader,
    // The load succeeded: its loader now holds the trace on screen, and the old worker ends.
    promoteLoader() {
      if (worker && worker !== loader) worker.terminate();
      worker = loader;
      loader = null;
    },
    // A spare for the next load, once this one has settled and the page is idle again.
    scheduleSpare() {
      setTimeout(() => {
        if (loading() || spare) return;
        spare = start();
        spare.postMessage(warmMsg());
        document.body.dataset.spare = '1';
      }, SPARE_DELAY_MS);
    },
  };
}
