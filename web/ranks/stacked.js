// Timelines of selected ranks, stacked: each selected rank is read again in a worker of its own
// (which then keeps its trace for timeline queries, as the page's main worker does for a single
// trace), and gets its own timeline (timeline/timeline.js). Two alignments:
//   step N: every timeline shows its rank's ProfilerStep N from its start, over the same span
//     (the longest of the selected ranks' step N), so the step starts line up and the lengths
//     compare at one scale;
//   global min (HTA's Trace._align_all_ranks in hta/common/trace.py): one clock for all ranks,
//     zero at the earliest event of any rank; every timeline shows the same window of that
//     clock (from the earliest start of step N to the latest end), so a rank that starts late
//     shows late. The report's alignment.ranks[k].first_event_us puts rank k's own time axis
//     (µs from its time zero: the first event, or an Nsight Systems session's start) on that
//     clock (clockShift).
import { h, note, section } from '../views/dom.js';
import { fmtUs } from '../views/format.js';
import { Msg, openMsg } from '../worker/protocol.js';
import { startAnalyzerWorker } from '../worker/start.js';
import { createTimeline } from '../timeline/timeline.js';
import { registerViewTimelines } from '../share/timeline-hook.js';
import { composeStacked } from './stacked_png.js';

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
  const worker = startAnalyzerWorker();
  const panel = h('section', { className: 'card timeline stacked-timeline' });
  box.append(panel);
  // Not the page's trace: it writes no link (the link's `t` is one trace's range).
  const tl = createTimeline({ post: (m) => worker.postMessage(m), section: panel, onShow: null, linked: false });
  const ready = new Promise((resolve, reject) => {
    worker.onmessage = (e) => {
      const m = e.data;
      if (m.type === Msg.timelineReply) tl.onReply(m);
      else if (m.id !== id) return;
      else if (m.type === Msg.report) {
        tl.loaded(id);
        resolve();
      } else if (m.type === Msg.error) reject(new Error(m.error.message));
    };
    worker.onerror = (e) => {
      e.preventDefault();
      reject(new Error(e.message || 'the analyzer stopped'));
    };
  });
  worker.postMessage(openMsg(id, { blob: file, name }));
  ready.catch(onError);
  return { ready, api: tl.api, panel, canvas: panel.querySelector('canvas'), dispose: () => worker.terminate() };
}

// What puts rank k's own time axis on the global-min clock (µs): where its first event lies on
// that clock, less where it lies on its own axis (0, unless the axis counts from an Nsight
// Systems session's start: the report's trace.first_event_us).
function clockShift(multi, k) {
  const a = multi.alignment && multi.alignment.ranks && multi.alignment.ranks[k];
  const t = multi.reports[k] && multi.reports[k].trace;
  const own = t && typeof t.first_event_us === 'number' ? t.first_event_us : 0;
  return (a && typeof a.first_event_us === 'number' ? a.first_event_us : 0) - own;
}

// Each selected rank's window in its own time axis (µs), and the words for its heading.
export function alignedWindows(multi, ranks, number, mode) {
  const local = ranks.map((k) => stepOf(multi, k, number));
  const global = local.map((w, i) => (w ? [w[0] + clockShift(multi, ranks[i]), w[1] + clockShift(multi, ranks[i])] : null));
  const present = global.filter(Boolean);
  const g0 = present.length ? Math.min(...present.map((w) => w[0])) : 0;
  const g1 = present.length ? Math.max(...present.map((w) => w[1])) : 0;
  const span = mode === 'global-min' ? g1 - g0 : Math.max(0, ...local.filter(Boolean).map(([s, e]) => e - s));
  return ranks.map((k, i) => {
    const w = local[i];
    // The step's start on the global-min clock, after the earliest selected rank's.
    const late = global[i] ? global[i][0] - g0 : null;
    const start = mode === 'global-min' ? g0 - clockShift(multi, k) : w ? w[0] : null;
    return { k, step: w, start, span, late };
  });
}

// Up to this many ranks, one checkbox each; more, and a field of rank numbers: 1,000 checkboxes
// were 2,000 elements to lay out, and a list no one scrolls through to find rank 517.
const CHECKBOX_RANKS = 32;

function rankBoxes(multi, chosen) {
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
  return boxes;
}

// The ranks as numbers typed in ("3, 517"); read() fills `chosen` from them and returns null, or
// says what is wrong with them.
function rankField(multi, chosen) {
  const byRank = new Map(multi.ranks.map((r, k) => [String(r.rank), k]));
  const value = [...chosen].sort((a, b) => a - b).map((k) => multi.ranks[k].rank).join(', ');
  const input = h('input', { type: 'text', id: 'stacked-ranks', className: 'stacked-field', value, inputmode: 'numeric', 'aria-describedby': 'stacked-ranks-hint', autocomplete: 'off', spellcheck: 'false' });
  const numbers = multi.ranks.map((r) => r.rank);
  const lo = Math.min(...numbers);
  const hi = Math.max(...numbers);
  const hint = h('span', { className: 'muted', id: 'stacked-ranks-hint' }, `up to ${MAX_RANKS} of ${multi.ranks.length} ranks (${lo}–${hi}), by number, e.g. ${value || lo}`);
  const wrap = h('span', { className: 'stacked-pick' }, h('label', { for: 'stacked-ranks' }, 'Ranks: '), input, ' ', hint);
  wrap.read = () => {
    const words = input.value.split(/[\s,;]+/).filter(Boolean);
    const unknown = words.filter((w) => !byRank.has(w));
    if (unknown.length) return `No rank ${unknown.join(', ')} among these ranks (${lo}–${hi}).`;
    const picked = [...new Set(words.map((w) => byRank.get(w)))];
    if (picked.length > MAX_RANKS) return `Pick at most ${MAX_RANKS} ranks (${picked.length} given).`;
    chosen.clear();
    for (const k of picked) chosen.add(k);
    return null;
  };
  input.addEventListener('keydown', (e) => e.key === 'Enter' && wrap.closest('section') && wrap.closest('section').show());
  return wrap;
}

export function stackedSection(multi, fileOf) {
  const steps = (multi.heatmap && multi.heatmap.steps) || [];
  if (!steps.length || multi.ranks.length < 2) return null;
  const chosen = new Set(defaultRanks(multi));
  const picker = multi.ranks.length > CHECKBOX_RANKS ? rankField(multi, chosen) : rankBoxes(multi, chosen);
  const stepSelect = h('select', { 'aria-label': 'Step to align on', id: 'stacked-step' }, steps.map((n) => h('option', { value: String(n) }, `step ${n}`)));
  const alignSelect = h(
    'select',
    { 'aria-label': 'Alignment', id: 'stacked-align', title: 'Step N: each rank from its own step start. Global min (HTA): one clock, zero at the earliest event of any rank.' },
    h('option', { value: 'step' }, 'align on the step'),
    h('option', { value: 'global-min' }, 'global min (HTA)'),
  );
  const status = h('span', { className: 'muted', 'aria-live': 'polite' });
  const stack = h('div', { className: 'stacked-list' });
  let shown = [];
  let picture = null; // {title, parts: [{heading, t}], ranks, step, name}: what the PNG export saves
  let shows = 0; // the latest show(): an earlier one that ends late leaves the picture alone

  // The export bar's Timeline PNG saves these timelines, as one image, while they are on screen
  // (the ranks view; share/timeline-hook.js).
  const provider = {
    available: () => !!picture && stack.isConnected && document.body.dataset.view === 'ranks',
    fileName: () => picture.name,
    what: () => `The stacked timelines of ${picture.parts.length === 1 ? 'rank' : 'ranks'} ${picture.ranks.join(', ')} (step ${picture.step}) as one PNG image, each under its heading`,
    toBlob: async () => {
      const parts = picture.parts.filter((p) => p.t && p.t.canvas && p.t.canvas.width > 0);
      await Promise.all(parts.map((p) => p.t.api.settled()));
      return composeStacked(picture.title, parts.map((p) => ({ heading: p.heading.textContent, canvas: p.t.canvas })));
    },
  };

  function dispose() {
    for (const t of shown) t.dispose();
    shown = [];
    if (picture) {
      picture = null;
      registerViewTimelines(null);
    }
  }

  async function show() {
    const me = ++shows;
    dispose();
    stack.replaceChildren();
    const unread = picker.read ? picker.read() : null;
    if (unread) {
      status.textContent = unread;
      return;
    }
    const number = Number(stepSelect.value);
    const ranks = [...chosen].sort((a, b) => a - b);
    if (!ranks.length) {
      status.textContent = 'Pick at least one rank.';
      return;
    }
    const mode = alignSelect.value;
    const windows = alignedWindows(multi, ranks, number, mode);
    const span = windows.length ? windows[0].span : 0;
    status.textContent = `Reading ${ranks.length} rank${ranks.length === 1 ? '' : 's'} again for their timelines…`;
    const mine = windows.map((win) => {
      const row = multi.ranks[win.k];
      const w = win.step;
      const when = win.late === null ? '' : mode === 'global-min' ? ` · starts ${fmtUs(win.late)} after the earliest` : ` · ${fmtUs(win.late)} later than the earliest on the global-min clock`;
      const heading = h('h3', { className: 'sub', dataset: { rank: String(row.rank) } }, `rank ${row.rank} · step ${number}`, w ? ` · ${fmtUs(w[1] - w[0])}${when}` : ' · not on this rank');
      stack.append(heading);
      const file = fileOf(win.k);
      const t = file
        ? rankTimeline(file, row.file, stack, (e) => stack.append(note(`rank ${row.rank}: ${e.message}`)))
        : null;
      return { t, start: win.start, heading };
    });
    shown = mine.map((x) => x.t).filter(Boolean);
    await Promise.all(
      mine.map(async ({ t, start }) => {
        if (!t) return;
        await t.ready;
        await t.api.show();
        if (start !== null) {
          const pad = span * 0.03;
          await t.api.setWindow((start - pad) * 1e3, (start + span + pad) * 1e3);
        }
      }),
    ).then(
      () => {
        if (me !== shows) return;
        status.textContent =
          mode === 'global-min'
            ? `Step ${number} on one clock (HTA's global-minimum alignment), over ${fmtUs(span)}: the ranks keep their offsets.`
            : `Step ${number} of each rank from its start, over ${fmtUs(span)} (the longest): the starts line up, the lengths compare.`;
        const rankNumbers = windows.map((win) => multi.ranks[win.k].rank);
        picture = { title: status.textContent, parts: mine, ranks: rankNumbers, step: number, name: `ranks-${rankNumbers.join('-')}.step-${number}.timelines.png` };
        registerViewTimelines(provider);
      },
      (e) => (status.textContent = `A timeline failed: ${e.message}`),
    );
  }

  const go = h('button', { type: 'button', className: 'button small', onclick: () => show() }, 'Show timelines');
  const sec = section(
    'stacked',
    'Timelines of selected ranks',
    note(`Pick up to ${MAX_RANKS} ranks and a step: their timelines are stacked with that step aligned on its start, or on one clock from the earliest event of any rank (HTA's global-minimum alignment). Each rank is read again for its timeline.`),
    h('div', { className: 'stacked-controls' }, h('span', { className: 'stacked-ranks' }, picker), stepSelect, alignSelect, go, status),
    stack,
  );
  sec.dispose = dispose;
  sec.show = show;
  return sec;
}
