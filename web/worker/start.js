// Starts an analyzer worker (the page's side). The hosted page starts web/worker.js (a classic
// worker whose code is worker/main.js and its imports); the single-file page (dist/kinetoscope.html,
// made by scripts/dist.mjs) carries the worker's whole source, bundled, with the WASM glue and the
// WASM as base64, in a non-executed <script type="text/x-kinetoscope-worker"> block, and starts
// it from a Blob URL (CSP: worker-src blob:), so it needs no file but itself and runs from file://
// with no network. Whatever starts it, the worker speaks worker/protocol.js.
const INLINE_ID = 'kinetoscope-worker-source';

export function startAnalyzerWorker() {
  const inline = document.getElementById(INLINE_ID);
  if (!inline) return new Worker(new URL('../worker.js', import.meta.url));
  // One Blob URL for the page's life: a worker restarted after a crash reuses it.
  if (!startAnalyzerWorker.url) {
    startAnalyzerWorker.url = URL.createObjectURL(new Blob([inline.textContent], { type: 'text/javascript' }));
  }
  return new Worker(startAnalyzerWorker.url);
}
