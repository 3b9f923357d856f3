// Timelines of selected ranks, stacked and aligned on one step: each selected rank is read again
// in a worker of its own (which then keeps its trace for timeline queries, as the page's main
// worker does for a single trace), and gets its own timeline (timeline/timeline.js). Every
// timeline shows its rank's ProfilerStep N from its start, over the same span (the longest of the
// selected ranks' step N), so the step starts line up and the lengths compare at one scale.
import { h, note, section } from '../views/dom.js';
import { fmtUs } from '../views/format.js';
import { startAnalyzerWorker } from '../share/worker-source.js';
import { createTimeline } from '../timeline/timeline.js';

const MAX_RANKS = 4;
let nextId = 2_000_000; // apart from app.js's and the pool's load ids

// The ranks worth looking at first: the straggler (if a finding names one) and the rank that
// waits most in collectives.
function defaultRanks(multi) {
  const picked = [];
  const s = (multi.findings || []).find((f) => f.id === 'ranks.straggler');
  const k = s ? multi.ranks.findIndex((r) => r.rank === s.evidence.rank) : -1;
  if (k >= 0) picked.push(k);
  const waits = multi.ranks.map((r, i) => [r.wait_us || 0, i]).sort((a, b) => b[0] - a[0]);
  for (const [, i] of waits) if (picked.length < 2 && !picked.includes(i)) picked.push(i);
  return picked.sort((a, b) => a - b);
}

// The window of step `number` in rank k's own report: [start, end] in µs from the trace start.
function stepOf(multi, k, number) {
  const rows = (multi.reports[k] && multi.reports[k].steps && multi.reports[k].steps.rows) || [];
  const row = rows.find((r) => r.number === number);
  return row ? [row.start_us, row.end_us] : null;
}

// One rank's timeline: a worker reading `file`, then createTimeline() bound to it.
function rankTimeline(file, name, box, onError) {
  const id = nextId++;
  const worker = startAnalyzerWorker(() => new Worker(new URL('../worker.js', import.meta.url)));
  const panel = h('section', { className: 'card timeline stacked-timeline' });
  box.append(panel);
  const tl = createTimeline({ post: (m) => worker.postMessage(m), section: panel, onShow: null });
  const ready = new Promise((resolve, reject) => {
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'tl') tl.onReply(m);
      else if (m.id !== id) return;
      else if (m.type === 'report') {
        tl.loaded(id);
        resolve();
      } else if (m.type === 'error') reject(new Error(m.error.message));
    };
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message || 'the analyzer stopped'));
    };
  });
  worker.postMessage({ type: 'open', id, blob: file, name });
  ready.catch(onError);
  return { ready, api: tl.api, panel, dispose: () => worker.terminate() };
}

export function stackedSection(multi, fileOf) {
  const steps = (multi.heatmap && multi.heatmap.steps) || [];
  if (!steps.length || multi.ranks.length < 2) return null;
  const chosen = new Set(defaultRanks(multi));
  const boxes = multi.ranks.map((r, k) => {
    const input = h('input', { type: 'checkbox', value: String(k), checked: chosen.has(k) || null });
    input.addEventListener('change', () => {
      if (input.checked) chosen.add(k);
      else chosen.delete(k);
      for (const b of boxes) b.input.disabled = !b.input.checked && chosen.size >= MAX_RANKS;
    });
    const label = h('label', { className: 'stacked-rank' }, input, ` rank ${r.rank}`);
    label.input = input;
    return label;
  });
  const stepSelect = h('select', { 'aria-label': 'Step to align on', id: 'stacked-step' }, steps.map((n) => h('option', { value: String(n) }, `step ${n}`)));
  const status = h('span', { className: 'muted', 'aria-live': 'polite' });
  const stack = h('div', { className: 'stacked-list' });
  let shown = [];

  function dispose() {
    for (const t of shown) t.dispose();
    shown = [];
  }

  async function show() {
    dispose();
    stack.replaceChildren();
    const number = Number(stepSelect.value);
    const ranks = [...chosen].sort((a, b) => a - b);
    if (!ranks.length) {
      status.textContent = 'Pick at least one rank.';
      return;
    }
    const windows = ranks.map((k) => stepOf(multi, k, number));
    const span = Math.max(0, ...windows.filter(Boolean).map(([s, e]) => e - s));
    status.textContent = `Reading ${ranks.length} rank${ranks.length === 1 ? '' : 's'} again for their timelines…`;
    const mine = ranks.map((k, i) => {
      const row = multi.ranks[k];
      const w = windows[i];
      stack.append(h('h3', { className: 'sub' }, `rank ${row.rank} · step ${number}`, w ? ` · ${fmtUs(w[1] - w[0])}` : ' · not on this rank'));
      const file = fileOf(k);
      const t = file
        ? rankTimeline(file, row.file, stack, (e) => stack.append(note(`rank ${row.rank}: ${e.message}`)))
        : null;
      return { t, w };
    });
    shown = mine.map((x) => x.t).filter(Boolean);
    await Promise.all(
      mine.map(async ({ t, w }) => {
        if (!t) return;
        await t.ready;
        await t.api.show();
        if (w) {
          const pad = span * 0.03;
          await t.api.setWindow((w[0] - pad) * 1e3, (w[0] + span + pad) * 1e3);
        }
      }),
    ).then(
      () => (status.textContent = `Step ${number} of each rank from its start, over ${fmtUs(span)} (the longest): the starts line up, the lengths compare.`),
      (e) => (status.textContent = `A timeline failed: ${e.message}`),
    );
  }

  const go = h('button', { type: 'button', className: 'button small', onclick: () => show() }, 'Show timelines');
  const sec = section(
    'stacked',
    'Timelines of selected ranks',
    note(`Pick up to ${MAX_RANKS} ranks and a step: their timelines are stacked with that step aligned. Each rank is read again for its timeline.`),
    h('div', { className: 'stacked-controls' }, h('span', { className: 'stacked-ranks' }, boxes), stepSelect, go, status),
    stack,
  );
  sec.dispose = dispose;
  sec.show = show;
  return sec;
}
