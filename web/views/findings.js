// Findings: what is slow and what to do about it, most severe first. Times in `ranges` and
// `events` count from the trace's time zero (report.trace.origin_ns: the first event, or an
// Nsight Systems session's start), as the timeline's do.
import { h, section, note, valueView } from './dom.js';
import { fmtAny, fmtByKey, fmtDuration, fmtInt, fmtPctAsTitle, fmtUs, fmtUsRanges, isPctKey, labelFor, labelsFor } from './format.js';

const RANK = { critical: 0, warning: 1, info: 2 };
const SHOWN = new Set(['id', 'severity', 'title', 'meaning', 'evidence', 'ranges', 'events', 'fix', 'fix_code']);
const MAX_LISTED = 5;

// A cause of GPU idle time (src/analysis/idle_causes.cpp names them) with its time, gap count or
// share: at zero it is noise on a card ("DataLoader 0.00 µs", "DataLoader gaps 0") and is left
// out here. The JSON and Markdown reports keep every number.
const CAUSE_KEY = /^(dataloader|sync|host_wait|short_host_wait|launch_wait|other)_(us|gaps|pct)$/;
export const zeroCause = (k, v) => CAUSE_KEY.test(k) && v === 0;

// Evidence values that are codes for a program (src/findings/capture_rules.cpp: "cause"), in the
// words a user reads: a card said "Cause: file_cut_off". The JSON and Markdown keep the code.
const CODE_WORDS = {
  cause: { file_cut_off: 'the file is cut off (its end is missing)', events_lost: 'the profiler lost GPU events (its buffers filled)' },
};

// An evidence value as the finding's title writes the same number: times as format_duration does
// (the title's "209.98 ms", not "210 ms"), shares as format_pct does (the title's "100.0%", not
// "100%" or ">99.9%").
function evidenceValue(k, v) {
  if (/_us($|_per_|_of_)/.test(k)) return fmtDuration(v);
  return isPctKey(k) ? fmtPctAsTitle(v) : fmtByKey(k, v);
}

// A long name wraps at its own seams, never mid-word: "enumerate(DataLoader)#_SingleProcess
// DataLoaderIter.__next__" broke as "_SingleProcessDataLoa|derIter" in a 180 px cell. A break
// opportunity (<wbr>) goes after each '.', '::', '#', '/', ',' or '(' and before a '_' run that
// follows a letter or digit (so "__next__" stays whole). CSS breaks inside a word only where one
// part alone is wider than the cell.
const SEAM = /(\.(?!\d)|::|#(?!#)|\/|,|\()(?=\S)|(?<=[A-Za-z0-9)])(?=_+[A-Za-z])/g;
function seams(text) {
  const parts = [];
  let last = 0;
  for (const m of text.matchAll(SEAM)) {
    const at = m.index + m[0].length;
    if (at <= last || at >= text.length) continue;
    parts.push(text.slice(last, at), h('wbr'));
    last = at;
  }
  parts.push(text.slice(last));
  return parts;
}

// A name (a "## copy_batch_to_gpu ##" annotation, spaces and all, or a run without spaces) moves to
// the next line whole, and breaks at its seams only when it alone is wider than the cell: it broke
// as "copy_batch_to" / "_gpu" with room for all of it on the next line. The unit is an inline
// block no wider than the cell (style.css, .name-unit).
const NAME = /##[^#\n]{1,200}?##|\S+/g;
export function seamed(text) {
  const parts = [];
  let last = 0; // the text before `last` is in parts; plain text between units stays one node
  for (const m of text.matchAll(NAME)) {
    const inner = seams(m[0]);
    if (inner.length === 1 && !m[0].includes(' ')) continue; // nowhere to break inside: plain text
    if (m.index > last) parts.push(text.slice(last, m.index));
    parts.push(h('span', { className: 'name-unit' }, inner));
    last = m.index + m[0].length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

// `windowKind`: the report's gpu.window, which the "share of" keys are a share of.
function evidence(ev, windowKind) {
  if (!ev || typeof ev !== 'object') return null;
  const entries = Object.entries(ev).filter(([k, v]) => !zeroCause(k, v));
  if (!entries.length) return null;
  const labels = labelsFor(entries.map(([k]) => k), windowKind);
  // A long text (a call chain, a source line) gets a wider cell instead of wrapping in a narrow one.
  const words = (k, v) => (typeof v === 'string' && CODE_WORDS[k] && CODE_WORDS[k][v]) || v;
  const cell = ([k, v], i) => {
    const text = words(k, v);
    return h('div', typeof text === 'string' && text.length > 28 ? { className: 'wide' } : null, h('dt', null, labels[i]), h('dd', null, typeof text === 'string' ? seamed(text) : evidenceValue(k, v)));
  };
  const dl = h('dl', { className: 'evidence' }, entries.slice(0, EVIDENCE_SHOWN).map(cell));
  if (entries.length <= EVIDENCE_SHOWN) return dl;
  // A finding across 1,000 ranks has a value per rank ("Rank 517 wait"): 3,000 elements in one
  // card. The first ones are shown; the rest are drawn when asked for.
  const rest = h('details', { className: 'evidence-more' }, h('summary', null, `${fmtInt(entries.length - EVIDENCE_SHOWN)} more values`));
  rest.addEventListener('toggle', () => {
    if (rest.open && !rest.querySelector('dl')) rest.append(h('dl', { className: 'evidence' }, entries.map((e, i) => (i < EVIDENCE_SHOWN ? null : cell(e, i)))));
  });
  return [dl, rest];
}
const EVIDENCE_SHOWN = 24;

function listed(title, list, item) {
  if (!Array.isArray(list) || !list.length) return null;
  const items = list.slice(0, MAX_LISTED).map((x) => h('li', null, item(x)));
  if (list.length > MAX_LISTED) items.push(h('li', { className: 'muted' }, `and ${fmtInt(list.length - MAX_LISTED)} more`));
  return h('div', { className: 'listed' }, h('h4', null, title), h('ul', null, items));
}

// The shown ranges, written with one precision for the whole list (format.js, fmtUsRanges).
function rangeItems(ranges) {
  if (!Array.isArray(ranges)) return ranges;
  const spans = fmtUsRanges(ranges.slice(0, MAX_LISTED).map((r) => [r.start_us, r.end_us]));
  return ranges.map((r, i) => ({ r, span: spans[i] }));
}

function range({ r, span }) {
  return r.label ? [span, h('span', { className: 'muted' }, ` · ${r.label}`)] : `${span} (${fmtUs(r.end_us - r.start_us)})`;
}

// Event names can be kernel names of any length: the list shows the start, the tooltip all of it.
const MAX_EVENT_NAME = 200;

// In an Nsight Systems export an event's "offset" is not a byte offset: its top byte names the
// table the row came from (docs/report-schema.md, "Nsight Systems exports"); the row number below
// it is past 2^53, so not exact in JavaScript, and is not shown.
const NSYS_TABLES = [null, 'CUPTI_ACTIVITY_KIND_RUNTIME', 'CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_MEMSET', 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION', 'NVTX_EVENTS', 'OSRT_API',
  'CUPTI_ACTIVITY_KIND_GRAPH_TRACE', 'CUDA_GPU_MEMORY_USAGE_EVENTS', 'SCHED_EVENTS', 'PROFILER_OVERHEAD',
  'CUDNN_EVENTS', 'CUBLAS_EVENTS', 'MPI_P2P_EVENTS', 'MPI_COLLECTIVES_EVENTS', 'MPI_START_WAIT_EVENTS',
  'MPI_OTHER_EVENTS'];

function eventWhere(e, nsys) {
  if (e.byte_offset === undefined) return '';
  if (!nsys) return `, byte ${fmtInt(e.byte_offset)} of the file`;
  const table = NSYS_TABLES[Math.floor(Number(e.byte_offset) / 2 ** 56)];
  return table ? `, a row of ${table}` : '';
}

function event(e, nsys) {
  const where = eventWhere(e, nsys);
  const name = fmtAny(e.name);
  const shown = name.length > MAX_EVENT_NAME ? `${name.slice(0, MAX_EVENT_NAME)}…` : name;
  return [h('code', { title: name }, shown), ` at ${fmtUs(e.ts_us)}, ${fmtUs(e.dur_us)}${where}`];
}

// `nsys`: the finding is of an Nsight Systems export (its events name their tables); `sessionStart`:
// the report's times count from the session start (report.trace.time_zero), as nsys counts them.
// `windowKind`: the report's gpu.window ('steps', 'gpu_span'), what a "share of the window" is of.
export function card(f, nsys = false, sessionStart = false, windowKind = undefined) {
  const sev = RANK[f.severity] === undefined ? 'info' : f.severity;
  const extra = Object.entries(f).filter(([k]) => !SHOWN.has(k));
  return h(
    'article',
    // A Tab stop: Enter or Space selects it, as a click does (share/share.js), for a link to it.
    { className: `finding sev-${sev}`, tabIndex: 0 },
    h('header', null, h('span', { className: `badge sev-${sev}` }, fmtAny(f.severity || 'info')), h('h3', null, fmtAny(f.title || f.id))),
    f.meaning ? h('p', { className: 'meaning' }, f.meaning) : null,
    evidence(f.evidence, windowKind),
    listed(`Where in the trace (from ${sessionStart ? 'the session start' : 'its start'})`, rangeItems(f.ranges), range),
    listed('Events', f.events, (e) => event(e, nsys)),
    extra.map(([k, v]) => h('div', { className: 'listed' }, h('h4', null, labelFor(k)), valueView(k, v, fmtByKey))),
    f.fix || f.fix_code
      ? h(
          'div',
          { className: 'fix' },
          f.fix ? h('p', null, h('strong', null, 'What to do: '), f.fix) : null,
          f.fix_code ? h('pre', null, h('code', null, f.fix_code)) : null,
        )
      : null,
    f.id ? h('p', { className: 'finding-id muted' }, f.id) : null,
  );
}

// `report` (optional): the whole report, for its format.
export function findingsView(findings, report) {
  const nsys = !!(report && report.trace && report.trace.format === 'nsys_sqlite');
  const sessionStart = !!(report && report.trace && report.trace.time_zero === 'session_start');
  const windowKind = report && report.gpu ? report.gpu.window : undefined;
  if (!Array.isArray(findings)) return null;
  const sorted = findings
    .map((f, i) => [f, i])
    .sort((a, b) => (RANK[a[0].severity] ?? 3) - (RANK[b[0].severity] ?? 3) || a[1] - b[1])
    .map(([f]) => f);
  const counts = {};
  for (const f of sorted) counts[f.severity] = (counts[f.severity] || 0) + 1;
  const summary = Object.keys(RANK)
    .filter((s) => counts[s])
    .map((s) => h('span', { className: `badge sev-${s}` }, `${counts[s]} ${s}`));
  return section(
    'findings',
    'Findings',
    sorted.length ? h('p', { className: 'summary-badges' }, summary) : note('No findings: nothing in this trace stood out.'),
    sorted.map((f) => card(f, nsys, sessionStart, windowKind)),
  );
}
