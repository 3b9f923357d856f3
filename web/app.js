// Kinetoscope page, main thread: UI only. The worker (worker/main.js, started by worker/roles.js)
// owns the WASM analyzer, reads the file as a stream and sends back progress and, at the end, the
// report as a JSON string; worker/protocol.js names every message between the two.
//
// Public API for scripts and tests:
//   window.kinetoscope.open(fileOrBlobOrArrayBuffer[, name]) -> Promise<report object>
//   window.kinetoscope.open([file, file, ...])                -> Promise<multi-rank report object>
//   window.kinetoscope.compare(base, test)                    -> Promise<trace diff object>
//   window.kinetoscope.openUrl(sameOriginPath)                -> Promise<report object>
//   window.kinetoscope.report()                               -> the current report object, or null
//   window.kinetoscope.stats()                                -> its `nsys stats` tables (kinetoscope.stats/1)
//                                                                for an Nsight Systems export, else null
//   window.kinetoscope.timings()                              -> where the last load's time went (ms)
//   window.kinetoscope.timeline: the timeline tab's API (timeline/timeline.js: show, state, ...)
//   view(), setView(), onViewChange(), registerTimeline(), exports(): sharing (share/share.js,
//   docs/sharing.md); the page also takes a trace by postMessage (share/embed.js)
import { neutral } from './views/dom.js';
import { renderReport } from './views/report.js';
import { reportHead, summedNote } from './views/report_head.js';
import { renderWhenSeen } from './views/held_fields.js';
import { warmViews } from './views/warm.js';
import { nsysExport } from './views/nsys_export.js';
import { initSharing, reportShown, sharingApi } from './share/share.js';
import { checkLinkFiles, loadSettled } from './share/view.js';
import { enter, leave, newJob } from './share/history.js';
import { ownOriginUrl } from './share/own_origin.js';
import { Msg, WorkerError, openMsg, partLostMsg } from './worker/protocol.js';
import { workerRoles } from './worker/roles.js';
import { UNZIP_MIN, startHelpers, startsGzip } from './worker/helpers.js';
import { initTimelineTab } from './timeline/tab.js';
import { initRanks } from './ranks/mode.js';
import { filesFromDrop, filesFromFolderInput } from './ranks/pick.js';
import { initCompare } from './compare/mode.js';
import { initFleet, isFleetFile } from './fleet/fleet.js';
import { initExample } from './views/welcome.js';
import { initFileButtons } from './views/file_buttons.js';
import { initSkipLink } from './views/skip.js';
import { initDropZone, showCancelledBox, showErrorBox, showProgress as showStatusProgress } from './views/status.js';

const $ = (id) => document.getElementById(id);
const ui = { file: $('file'), status: $('status'), statusText: $('status-text'), progress: $('progress'), cancel: $('cancel') };
Object.assign(ui, { error: $('error'), report: $('report'), drop: $('drop'), folder: $('folder'), compare: $('compare-open') });

let job = null; // the file being read: {id, name, size, t0, resolve, reject}
let nextId = 1;
let current = null; // the report on screen
let shownId = 0; // the load id of the report on screen
let timings = null; // where the last load's time went (ms), for bench/ingest_browser.mjs
// The Timeline tab (timeline/tab.js): it asks the worker for views of the loaded trace.
const timeline = initTimelineTab({ post: (msg) => workers.post(msg), report: ui.report });

const jobError = (err) => new WorkerError(err, 'the trace could not be read');

// The trace on screen's worker, the file being read's loader, its helpers and the warm spare
// (worker/roles.js says why each is its own worker).
const workers = workerRoles({
  onMessage,
  onLoaderFailed: (why) => job && fail({ code: 'worker_failed', message: `the analyzer stopped: ${why}` }),
  loading: () => !!job,
});

function onMessage(e, from) {
  const m = e.data;
  if (m.type === Msg.warmed) {
    // Ready once the page's own views have run too (the first time: views/warm.js).
    if (workers.isSpare(from)) warmViews(m.report, () => !!job).then(() => workers.isSpare(from) && Object.assign(document.body.dataset, { warm: '1', pretouched: String(m.pretouched || 0) }));
    return;
  }
  if (m.type === Msg.timelineReply) return workers.isWorker(from) && timeline.onReply(m); // answers to the timeline (timeline/client.js)
  if (m.type === Msg.stats) return workers.isWorker(from) && nsys.onStats(m); // after an Nsight Systems export's report
  if (nsys.isRangeReply(m)) return workers.isWorker(from) && nsys.onRangeReply(m);
  if (!job || m.id !== job.id || !workers.isLoader(from)) return; // a late message from a replaced or cancelled file
  if (m.type === Msg.progress) showProgress(m);
  else if (m.type === Msg.error) fail(m.error);
  else if (m.type === Msg.report) {
    const received = performance.now();
    let report;
    try {
      report = JSON.parse(m.json);
    } catch (err) {
      fail({ code: 'bad_report', message: `the analyzer returned an unreadable report: ${err.message}` });
      return;
    }
    const done = job;
    done.nsys = !!m.nsys; // an Nsight Systems export: its stats tables follow (views/nsys_export.js)
    done.gpuProcesses = m.gpuProcesses || null;
    job = null;
    workers.endHelpers();
    // An export of several processes with GPU work (nsys profile torchrun): its ranks, each
    // process read on its own, as `kinetoscope report FILE.sqlite` does. A URL's export has no
    // File here: it is shown whole, with the note that says so (show()).
    if (done.gpuProcesses && done.blob) {
      workers.endLoader();
      ranks.openExport(done.blob, done.name, done.gpuProcesses).then(done.resolve, done.reject);
      return;
    }
    workers.promoteLoader(); // the old trace's worker ends: its trace leaves the screen now
    ui.status.hidden = true;
    const parsed = performance.now();
    const drawn = show(report, done);
    const attached = performance.now();
    timeline.loaded(done.id, report);
    reportShown({ name: done.name, report, json: m.json, markdown: m.markdown || '', ...linkOf(done) });
    // A place Back returns to (share/history.js), in the tab it opened on.
    const tab = done.navView || (document.body.dataset.tab === 'timeline' ? 'timeline' : 'report');
    enter(done.navJob, tab, tab === 'timeline' ? () => timeline.api.show() : () => timeline.api.showReport());
    const at = (t) => Math.round((t - done.t0) * 10) / 10;
    const worker = m.timings || {};
    // The worker's clock starts when it takes the open message (job.js): on the page's clock, so
    // that a loader still busy with a warm-up stage shows as time before it (worker_start).
    const workerStart = typeof worker.origin_ms === 'number' ? at(worker.origin_ms - performance.timeOrigin) : undefined;
    timings = { begin: done.t0, worker, worker_start: workerStart, received: at(received), parsed: at(parsed), sections: at(drawn.sections), attached: at(attached), shown: at(performance.now()) };
    // Drawn: a task after the next animation frame runs once that frame (style, layout, paint of
    // the report) is done; the report's tables take most of it.
    const these = timings;
    requestAnimationFrame(() => setTimeout(() => (these.painted = at(performance.now())), 0));
    settled('ready');
    done.resolve(report);
  }
}

function fail(err) {
  const done = job;
  job = null;
  workers.endLoader();
  ui.status.hidden = true;
  showError(done ? done.name : 'the trace', err);
  settled('error');
  if (done) done.reject(jobError(err));
}

function showError(name, err) {
  showErrorBox(ui.error, name, err);
}

// <body data-state="loading|ready|error" data-loads="N">: N counts finished loads, so a test (or a
// style) can wait for the next one without racing the worker.
function settled(state) {
  document.body.dataset.state = state;
  document.body.dataset.loads = String(Number(document.body.dataset.loads || 0) + 1);
  loadSettled(state); // a link pasted during the load, when no report came of it
  workers.scheduleSpare();
}

// A rank of a job opened alone (ranks/mode.js): its links name the job's files and the rank.
const linkOf = (done) => (done.link ? { linkName: done.link.name, rank: done.link.rank } : {});

// nav: {navJob, navView} for share/history.js, link for share/share.js (kept out of the worker's
// message).
function begin(fields, nav = {}) {
  ranks.cancel();
  compare.cancel();
  if (job) {
    const old = job;
    job = null;
    old.reject(jobError({ code: 'cancelled', message: `${old.name} was replaced by ${fields.name}` }));
  }
  workers.newLoader();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    job = { id, name: fields.name, size: fields.size, blob: fields.blob || null, navJob: nav.navJob, navView: nav.navView, link: nav.link, t0: performance.now(), resolve, reject };
    ui.error.hidden = true;
    ui.status.hidden = false;
    document.body.dataset.state = 'loading';
    showProgress({ read: 0, total: fields.size, bytes: 0, events: 0 });
    const post = (gzip) => {
      if (!job || job.id !== id) return; // replaced or cancelled meanwhile
      // A helper whose script fails: the loader reads its part itself.
      const h = startHelpers(fields, gzip, (k) => job && job.id === id && workers.postLoader(partLostMsg(id, k)));
      if (h) workers.setHelpers(h.workers);
      workers.postLoader(openMsg(id, { ...fields, ...(h ? h.extra : {}) }), h ? h.transfer : []);
    };
    if (fields.blob && fields.blob.size >= UNZIP_MIN) startsGzip(fields.blob).then(post);
    else post(false);
  });
}

function showProgress(p) {
  showStatusProgress(ui, job.name, p);
}

// An Nsight Systems export's stats tables and step-range box (views/nsys_export.js).
const nsys = nsysExport({
  report: ui.report,
  post: (msg) => workers.post(msg),
  isShown: (id) => !!current && shownId === id,
  show: (report, done) => show(report, done),
  rangeShown: (report, m, done) => {
    reportShown({ name: done.name, report, json: m.json, markdown: m.markdown || '', ...linkOf(done) });
    settled('ready');
  },
  rangeFailed: (done, error) => {
    showError(done.name, error);
    settled('error');
  },
  timings: () => timings,
});

function show(report, done) {
  current = report;
  shownId = done.id;
  nsys.clear();
  delete document.body.dataset.view; // set by the ranks and compare views
  ranks.close();
  // Before the timeline takes the link's range and slice: are these the link's files?
  checkLinkFiles(done.link ? done.link.name : done.name);
  const secs = ((performance.now() - done.t0) / 1000).toFixed(2);
  const sections = renderReport(report);
  const built = performance.now(); // the sections' DOM, before the head and the page take them
  // An Nsight Systems export: its stats tables follow; say so until they are here.
  const waiting = nsys.placeholder(done);
  if (waiting) sections.push(waiting);
  const extras = [nsys.headBox(done, report), done.gpuProcesses ? summedNote(done.name, done.gpuProcesses) : null];
  const head = reportHead(report, done.name, secs, sections, extras);
  ui.report.replaceChildren(head, ...sections);
  renderWhenSeen(sections); // so that Blink lays out only the sections on screen
  document.title = `${neutral(done.name)} · Kinetoscope`;
  return { sections: built };
}

// options.rankProcess {pid, rank, count[, merged]}: one process of an Nsight Systems export, or
// one rank of a JSON file holding several (merged), read alone
// (the ranks view's "Timeline of this rank…" for an export of several processes); options.link
// {name, rank}: a rank of a job opened alone, whose links name the job (share/share.js).
function open(source, name, options) {
  if (Array.isArray(source) || (typeof FileList !== 'undefined' && source instanceof FileList)) {
    const files = Array.from(source, (x, i) => (x instanceof Blob ? x : new File([x], `rank-${i}.json`)));
    return ranks.open(files);
  }
  let blob = source;
  if (source instanceof ArrayBuffer || ArrayBuffer.isView(source)) blob = new Blob([source]);
  else if (!(source instanceof Blob)) return Promise.reject(new TypeError('kinetoscope.open takes a File, a Blob or an ArrayBuffer'));
  const rankProcess = options && options.rankProcess ? options.rankProcess : undefined;
  // Back to this trace from another one reads it again (share/history.js); options.navJob: the
  // opener's own way back (a rank alone), options.navView: the view it is opened for.
  const navJob = (options && options.navJob) || newJob(() => open(blob, name, { ...options, navJob }));
  return begin({ blob, name: name || source.name || 'trace.json', size: blob.size, rankProcess }, { navJob, navView: options && options.navView, link: options && options.link });
}

// Only the page's own origin (share/own_origin.js).
function openUrl(path) {
  const { url, err } = ownOriginUrl(path);
  if (err) {
    showError(path, err);
    settled('error');
    return Promise.reject(jobError(err));
  }
  const name = decodeURIComponent(url.pathname.split('/').pop() || '') || path;
  const navJob = newJob(() => begin({ url: url.href, name, size: 0 }, { navJob }));
  return begin({ url: url.href, name, size: 0 }, { navJob });
}

// Returns the name of the file it stopped reading, if any.
function cancel() {
  if (!job) return false;
  const old = job;
  job = null;
  workers.endLoader();
  ui.status.hidden = true;
  settled('cancelled');
  old.reject(jobError({ code: 'cancelled', message: `reading ${old.name} was cancelled` }));
  return old.name;
}

const ignore = () => {}; // UI-started loads report failures on the page itself

// Several files at once (ranks/) and two traces compared (compare/) draw in the same report area
// and status line, and stop whatever else is loading.
function otherView(report) {
  leave(); // a comparison or a fleet has no entry to come back to; the ranks enter their own
  current = report;
  nsys.clear();
  if (timeline.api.showReport) timeline.api.showReport();
  const tabs = $('tabs');
  if (tabs) tabs.hidden = true; // the Timeline tab belongs to a single trace
}
const shared = { ui, settled, showError, setCurrent: otherView, shown: reportShown };
const ranks = initRanks({ ...shared, stopSingle: () => { cancel(); compare.cancel(); } });
const compare = initCompare({ ...shared, stopOthers: () => { cancel(); ranks.cancel(); ranks.close(); } });
// A fleet.json (python3 -m fleet; docs/fleet.md) opens the fleet view instead of the analyzer.
const fleet = initFleet({ ...shared, stopOthers: () => { cancel(); ranks.cancel(); ranks.close(); compare.cancel(); } });

// One file is one trace; several are the ranks of one job; on the compare panel, BASE and TEST.
function openFiles(files) {
  if (compare.takes(files)) return;
  if (files.length === 1) isFleetFile(files[0]).then((yes) => (yes ? fleet.open(files[0]) : open(files[0]))).catch(ignore);
  else ranks.open(files).catch(ignore); // none: says that no trace was found
}

ui.file.addEventListener('change', () => {
  openFiles(Array.from(ui.file.files));
  ui.file.value = ''; // choosing the same file again still fires 'change'
});
if (ui.folder) {
  ui.folder.addEventListener('change', () => {
    openFiles(filesFromFolderInput(ui.folder.files));
    ui.folder.value = '';
  });
}
if (ui.compare) ui.compare.addEventListener('click', () => compare.showPanel());
// Whichever load was running stops, and the page says so (and which report is still shown).
const stopAll = () => [ranks.cancel() && 'the ranks', compare.cancel() && 'the two traces', cancel()].find(Boolean);
ui.cancel.addEventListener('click', () => (stopped => stopped && showCancelledBox(ui.error, stopped))(stopAll()));

initDropZone(ui.drop, (dt) => filesFromDrop(dt).then(openFiles, ignore));
initFileButtons();
initSkipLink($('skip-link'));

window.kinetoscope = Object.freeze({ open, openUrl, compare: compare.compare, report: () => current, stats: nsys.stats, timings: () => timings, ...sharingApi, timeline: timeline.api });
initSharing({ open, report: ui.report, firstNode: ui.status });
initExample({ open, openUrl, ignore });

// ?url=path or ?demo=path: open a trace served by this same origin (make demo uses this); an
// Nsight Systems export too (the worker fetches it whole: it is read in place, worker/nsys.js).
const params = new URLSearchParams(location.search);
const start = params.get('url') || params.get('demo');
if (start) openUrl(start).catch(ignore);
else workers.scheduleSpare();
