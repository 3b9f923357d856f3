// Kinetoscope page, main thread: UI only. The worker (worker.js) owns the WASM analyzer, reads the
// file as a stream and sends back progress and, at the end, the report as a JSON string.
//
// Public API for scripts and tests:
//   window.kinetoscope.open(fileOrBlobOrArrayBuffer[, name]) -> Promise<report object>
//   window.kinetoscope.openUrl(sameOriginPath)                -> Promise<report object>
//   window.kinetoscope.report()                               -> the current report object, or null
import { h } from './views/dom.js';
import { fmtBytes, fmtInt } from './views/format.js';
import { renderReport } from './views/report.js';

const $ = (id) => document.getElementById(id);
const ui = {
  file: $('file'),
  status: $('status'),
  statusText: $('status-text'),
  progress: $('progress'),
  cancel: $('cancel'),
  error: $('error'),
  report: $('report'),
  drop: $('drop'),
};

let worker = null;
let job = null; // the file being read: {id, name, size, t0, resolve, reject}
let nextId = 1;
let current = null; // the report on screen

function jobError(err) {
  const e = new Error(err.message || 'the trace could not be read');
  e.code = err.code || 'unknown';
  if (err.offset !== undefined && err.offset !== null) e.offset = err.offset;
  return e;
}

function startWorker() {
  worker = new Worker(new URL('worker.js', import.meta.url));
  worker.onmessage = onMessage;
  worker.onerror = (e) => {
    // The worker script itself failed; start a fresh one for the next file.
    e.preventDefault();
    worker.terminate();
    worker = null;
    if (job) fail({ code: 'worker_failed', message: `the analyzer stopped: ${e.message || 'unknown error'}` });
  };
}

function onMessage(e) {
  const m = e.data;
  if (!job || m.id !== job.id) return; // a late message from a replaced or cancelled file
  if (m.type === 'progress') showProgress(m);
  else if (m.type === 'error') fail(m.error);
  else if (m.type === 'report') {
    let report;
    try {
      report = JSON.parse(m.json);
    } catch (err) {
      fail({ code: 'bad_report', message: `the analyzer returned an unreadable report: ${err.message}` });
      return;
    }
    const done = job;
    job = null;
    ui.status.hidden = true;
    show(report, done);
    settled('ready');
    done.resolve(report);
  }
}

function fail(err) {
  const done = job;
  job = null;
  ui.status.hidden = true;
  showError(done ? done.name : 'the trace', err);
  settled('error');
  if (done) done.reject(jobError(err));
}

function showError(name, err) {
  const offset = err.offset !== undefined && err.offset !== null ? ` (at byte offset ${fmtInt(err.offset)})` : '';
  ui.error.replaceChildren(
    h('strong', null, `Could not read ${name}: `),
    `${err.message || 'unknown error'}${offset}`,
    err.code ? h('code', { className: 'error-code' }, err.code) : null,
  );
  ui.error.hidden = false;
}

// <body data-state="loading|ready|error" data-loads="N">: N counts finished loads, so a test (or a
// style) can wait for the next one without racing the worker.
function settled(state) {
  document.body.dataset.state = state;
  document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
}

function begin(fields) {
  if (job) {
    const old = job;
    job = null;
    old.reject(jobError({ code: 'cancelled', message: `${old.name} was replaced by ${fields.name}` }));
  }
  if (!worker) startWorker();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    job = { id, name: fields.name, size: fields.size, t0: performance.now(), resolve, reject };
    ui.error.hidden = true;
    ui.status.hidden = false;
    document.body.dataset.state = 'loading';
    showProgress({ read: 0, total: fields.size, bytes: 0, events: 0 });
    worker.postMessage({ type: 'open', id, ...fields });
  });
}

function showProgress(p) {
  const parts = [`Reading ${job.name}`];
  parts.push(p.total ? `${fmtBytes(p.read)} of ${fmtBytes(p.total)}` : `${fmtBytes(p.read)}`);
  if (p.bytes && p.bytes !== p.read) parts.push(`${fmtBytes(p.bytes)} of JSON`);
  if (p.events) parts.push(`${fmtInt(p.events)} events`);
  ui.statusText.textContent = parts.join(' · ');
  if (p.total) {
    ui.progress.max = p.total;
    ui.progress.value = Math.min(p.read, p.total);
  } else {
    ui.progress.removeAttribute('value'); // indeterminate
  }
}

function show(report, done) {
  current = report;
  const secs = ((performance.now() - done.t0) / 1000).toFixed(2);
  const sections = renderReport(report);
  const nav = h(
    'nav',
    { className: 'jump', 'aria-label': 'Report sections' },
    sections.map((s) => h('a', { href: `#${s.id}` }, s.querySelector('h2').textContent)),
  );
  const size = report.trace && typeof report.trace.json_bytes === 'number' ? `${fmtBytes(report.trace.json_bytes)} of JSON, ` : '';
  const head = h(
    'div',
    { className: 'report-head' },
    h('h2', null, done.name),
    h('p', { className: 'muted' }, `${size}analyzed in ${secs} s${report.generator ? ` by ${report.generator}` : ''}`),
    nav,
  );
  ui.report.replaceChildren(head, ...sections);
  document.title = `${done.name} · Kinetoscope`;
}

function open(source, name) {
  let blob = source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) blob = new Blob([source]);
  else if (!(source instanceof Blob)) return Promise.reject(new TypeError('kinetoscope.open takes a File, a Blob or an ArrayBuffer'));
  return begin({ blob, name: name || source.name || 'trace.json', size: blob.size });
}

// Only the page's own origin: the page promises that nothing is fetched from elsewhere.
function openUrl(path) {
  let url;
  try {
    url = new URL(path, location.href);
  } catch {
    url = null;
  }
  if (!url || url.origin !== location.origin) {
    const err = { code: 'bad_url', message: `only files from this page's own origin can be opened, not ${path}` };
    showError(path, err);
    settled('error');
    return Promise.reject(jobError(err));
  }
  const name = decodeURIComponent(url.pathname.split('/').pop() || '') || path;
  return begin({ url: url.href, name, size: 0 });
}

function cancel() {
  if (!job) return;
  const old = job;
  job = null;
  worker.postMessage({ type: 'cancel', id: old.id });
  ui.status.hidden = true;
  settled('cancelled');
  old.reject(jobError({ code: 'cancelled', message: `reading ${old.name} was cancelled` }));
}

const ignore = () => {}; // UI-started loads report failures on the page itself

ui.file.addEventListener('change', () => {
  const f = ui.file.files[0];
  if (f) open(f).catch(ignore);
  ui.file.value = ''; // choosing the same file again still fires 'change'
});
ui.cancel.addEventListener('click', cancel);

// The whole window is a drop zone.
let dragDepth = 0;
const hasFiles = (e) => e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files');
window.addEventListener('dragenter', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth++;
  ui.drop.hidden = false;
});
window.addEventListener('dragover', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  e.dataTransfer.dropEffect = 'copy';
});
window.addEventListener('dragleave', () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) ui.drop.hidden = true;
});
window.addEventListener('drop', (e) => {
  if (!hasFiles(e)) return;
  e.preventDefault();
  dragDepth = 0;
  ui.drop.hidden = true;
  const f = e.dataTransfer.files[0];
  if (f) open(f).catch(ignore);
});

window.kinetoscope = Object.freeze({ open, openUrl, report: () => current });

// ?url=path or ?demo=path: open a trace served by this same origin (make demo uses this).
const params = new URLSearchParams(location.search);
const start = params.get('url') || params.get('demo');
if (start) openUrl(start).catch(ignore);
