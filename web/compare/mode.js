// "Compare two traces": the user picks (or drops) BASE and TEST; both are read at once in two
// workers (worker/pool.js), each sends its diff digest, and one worker writes the trace diff, the
// bytes `kinetoscope diff BASE TEST --format json` writes. window.kinetoscope.compare(base, test)
// does the same from a script and resolves to the diff object (report() returns it too).
//
// app.js wires it: const compare = initCompare({ui, settled, showError, setCurrent, shown,
// stopOthers}); its drop handler first offers the files to compare.takes(files).
import { h, neutral, setText } from '../views/dom.js';
import { fmtBytes, fmtInt } from '../views/format.js';
import { PoolError, cancelPoolJob, poolSize, startPoolJob } from '../worker/pool.js';
import { diffMsg } from '../worker/protocol.js';
import { renderDiff } from './view.js';
import { renderWhenSeen } from '../views/held_fields.js';
import { fileButton } from '../views/file_buttons.js';

// One of the panel's two places for a trace: its name once chosen, a Choose… button, a drop
// target. chosen: {base, test}; set(which, file) when a file is picked; onDrop(which) when one is
// dropped on it (app.js's window handler then hands the files to takes()).
function slot(which, title, hint, chosen, set, onDrop) {
  const input = h('input', { type: 'file', className: 'visually-hidden', id: `compare-${which}`, accept: '.json,.gz', tabIndex: -1 });
  const name = h('p', { className: 'compare-file' });
  const box = h(
    'div',
    { className: 'compare-slot', dataset: { slot: which } },
    h('h3', null, title),
    h('p', { className: 'muted compare-hint' }, hint),
    name,
    h('label', { className: 'button small', for: `compare-${which}`, ...fileButton }, 'Choose…'),
    input,
  );
  input.addEventListener('change', () => {
    if (input.files[0]) set(which, input.files[0]);
    input.value = '';
  });
  box.addEventListener('dragover', () => box.classList.add('over'));
  box.addEventListener('dragleave', () => box.classList.remove('over'));
  box.addEventListener('drop', () => {
    box.classList.remove('over');
    onDrop(which);
  });
  box.show = () => {
    const f = chosen[which];
    setText(name, f ? `${f.name || `${which}.json`} (${fmtBytes(f.size)})` : 'none yet: drop a trace here');
    box.classList.toggle('filled', !!f);
  };
  box.show();
  return box;
}

// The panel: BASE and TEST slots, a swap button. onSwap() swaps them; onDrop(which) as in slot().
function comparePanel(chosen, set, onSwap, onDrop) {
  const base = slot('base', 'BASE (before)', 'The trace to compare against.', chosen, set, onDrop);
  const test = slot('test', 'TEST (after)', 'The trace after the change.', chosen, set, onDrop);
  const swap = h('button', { type: 'button', className: 'button small', onclick: onSwap }, '⇄ Swap');
  const card = h(
    'section',
    { className: 'card compare-panel', id: 'compare' },
    h('h2', null, 'Compare two traces'),
    h('p', { className: 'compare-intro' }, 'Two traces of the same job, before and after a change: the step-time change, and every kernel and CPU op by name with its count and time in each (HTA\'s trace diff). Both are read here; nothing is uploaded.'),
    h('div', { className: 'compare-slots' }, base, test),
    h('p', { className: 'compare-actions' }, swap),
  );
  card.slots = [base, test];
  return card;
}

// BASE and TEST read at once in the pool, then the trace diff of their diff digests:
// {json, markdown, reports} (reports: each file's result, with its own report's JSON).
async function readAndDiff(pool, [base, test], names, onProgress) {
  const items = [
    { blob: base, name: names[0], diffDigest: true },
    { blob: test, name: names[1], diffDigest: true },
  ];
  const results = await pool.readAll(items, onProgress);
  results.forEach((r, i) => {
    if (!r.ok) throw Object.assign(new PoolError(r.error), { file: names[i] });
  });
  const out = await pool.call(diffMsg(results[0].diffDigest, results[1].diffDigest));
  return { ...out, reports: results };
}

// Each trace's own findings, for "new in TEST / gone from BASE" (compare/view.js), or null.
function ownReports(out) {
  try {
    return { base: JSON.parse(out.reports[0].json), test: JSON.parse(out.reports[1].json) };
  } catch {
    return null;
  }
}

// The status line while BASE and TEST are read.
function showProgress(ui, names, p) {
  setText(ui.statusText, `Comparing ${names[0]} and ${names[1]} · ${fmtBytes(p.read)} of ${fmtBytes(p.total)} · ${fmtInt(p.done)} of 2 read`);
  ui.progress.max = p.total || 1;
  ui.progress.value = Math.min(p.read, p.total || 1);
}

// A File or Blob as it is; an ArrayBuffer (or a view) as a File named `name`; else null.
const asBlob = (x, name) => (x instanceof Blob ? x : x instanceof ArrayBuffer || ArrayBuffer.isView(x) ? new File([x], name) : null);

// The diff on screen, below the panel. The panel shrinks to the two files, their Choose… and Swap
// (ranks.css): its introduction and hints, read before choosing, pushed the answer below the
// first screen of a phone.
function showDiff(ui, panel, diff, reports, names, secs) {
  const { head, sections } = renderDiff(diff, { secs, reports });
  panel.classList.add('compared');
  ui.report.replaceChildren(panel, head, ...sections);
  renderWhenSeen(sections); // Blink lays out only the sections on screen
  document.body.dataset.view = 'compare';
  document.title = neutral(`${names[0]} → ${names[1]} · Kinetoscope`);
}

export function initCompare({ ui, settled, showError, setCurrent, shown, stopOthers }) {
  const chosen = { base: null, test: null };
  let panel = null;
  let job = null; // the running job (startPoolJob), or null
  let dropSlot = null; // the slot a drop landed on (set before app.js's window handler runs)

  const buildPanel = () => comparePanel(chosen, set, () => {
    [chosen.base, chosen.test] = [chosen.test, chosen.base];
    refresh();
    maybeRun();
  }, (which) => (dropSlot = which));

  function refresh() {
    if (panel) for (const s of panel.slots) s.show();
  }

  function showPanel() {
    if (!panel) panel = buildPanel();
    panel.classList.remove('compared'); // opened to choose: the whole panel
    refresh();
    ui.report.replaceChildren(panel);
    document.body.dataset.view = 'compare';
    document.title = 'Compare two traces · Kinetoscope';
  }

  const active = () => !!panel && panel.isConnected;

  function set(which, file) {
    chosen[which] = file;
    refresh();
    maybeRun();
  }

  function maybeRun() {
    if (chosen.base && chosen.test) run(chosen.base, chosen.test).catch(() => {});
  }

  // Files dropped anywhere while the panel is on screen: true when they were taken.
  function takes(files) {
    if (!active() || !files.length) return false;
    const where = dropSlot;
    dropSlot = null;
    if (files.length >= 2) {
      chosen.base = files[0];
      chosen.test = files[1];
      refresh();
      maybeRun();
    } else if (where) set(where, files[0]);
    else set(!chosen.base ? 'base' : 'test', files[0]);
    return true;
  }

  function cancel() {
    if (!job) return false;
    cancelPoolJob(job, 'the comparison was cancelled');
    job = null;
    ui.status.hidden = true;
    settled('cancelled');
    return true;
  }

  async function run(base, test) {
    cancel();
    stopOthers();
    if (!active()) showPanel();
    const names = [base.name || 'base.json', test.name || 'test.json'];
    const me = startPoolJob(poolSize(2), ui);
    const { pool, t0 } = me;
    job = me;
    const onProgress = (p) => me === job && showProgress(ui, names, p);
    onProgress({ read: 0, total: base.size + test.size, done: 0 });
    try {
      const work = readAndDiff(pool, [base, test], names, onProgress);
      const out = await Promise.race([work, me.whenCancelled]);
      const reports = ownReports(out);
      const diff = JSON.parse(out.json);
      job = null;
      ui.status.hidden = true;
      showDiff(ui, panel, diff, reports, names, ((performance.now() - t0) / 1000).toFixed(2));
      setCurrent(diff);
      // A copied link names the two files and says they are compared (share/export.js), not a
      // file "BASE-vs-TEST" that no one has.
      shown({ name: `${names[0].replace(/\.json(\.gz)?$/i, '')}-vs-${names[1]}`, linkName: names.join('\n'), compared: true, report: diff, json: out.json, markdown: out.markdown });
      settled('ready');
      return diff;
    } catch (e) {
      if (me.cancelled) throw e;
      job = null;
      ui.status.hidden = true;
      showError(e.file || 'the two traces', { code: e.code, message: e.message, offset: e.offset });
      settled('error');
      throw e;
    } finally {
      pool.close();
    }
  }

  // The script API: Files or Blobs (or ArrayBuffers, named base.json / test.json).
  function compare(base, test) {
    const b = asBlob(base, 'base.json');
    const t = asBlob(test, 'test.json');
    if (!b || !t) return Promise.reject(new TypeError('kinetoscope.compare takes two Files, Blobs or ArrayBuffers: BASE, TEST'));
    chosen.base = b;
    chosen.test = t;
    showPanel();
    return run(b, t);
  }

  return { showPanel, takes, cancel, compare, active };
}
