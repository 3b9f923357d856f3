// Starts the analyzer worker. The hosted page loads worker.js from beside itself; the single-file
// page (dist/kinetoscope.html, made by scripts/dist.mjs) carries the worker's whole source, the
// WASM glue and the WASM as base64 included, in a non-executed <script type="text/x-kinetoscope-
// worker"> block, and starts it from a Blob URL (CSP: worker-src blob:), so it needs no file but
// itself and runs from file:// with no network.
const INLINE_ID = 'kinetoscope-worker-source';

// fromFile: () => Worker, the hosted page's way (it knows its own URL).
export function startAnalyzerWorker(fromFile) {
  const inline = document.getElementById(INLINE_ID);
  if (!inline) return fromFile();
  // One Blob URL for the page's life: a worker restarted after a crash reuses it.
  if (!startAnalyzerWorker.url) {
    startAnalyzerWorker.url = URL.createObjectURL(new Blob([inline.textContent], { type: 'text/javascript' }));
  }
  return new Worker(startAnalyzerWorker.url);
}
