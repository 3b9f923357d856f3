// Trace facts: what the file is and what it holds (format, events, span, processes, device, rank).
import { h, section, valueView } from './dom.js';
import { fmtAny, fmtBytes, fmtByKey, fmtInt, fmtUs, labelFor } from './format.js';

// Keys drawn specially below; anything else in report.trace is listed generically at the end.
const SHOWN = [
  'file', 'gzip', 'format', 'json_bytes', 'events_total', 'slices', 'events_by_phase', 'categories', 'span_us',
  'start_ns', 'processes', 'threads', 'gpu_devices', 'gpu_streams', 'device', 'rank', 'world_size', 'backend',
  'schema_version', 'capture', 'time_zero', 'origin_ns', 'first_event_us', 'events_by_phase_omitted', 'categories_omitted',
];
const WIDE = new Set(['Device', 'capture']);

// start_ns is a decimal string (epoch nanoseconds do not fit a double); epoch values get a date.
function start(ns) {
  if (typeof ns !== 'string' || !/^\d+$/.test(ns)) return fmtAny(ns);
  const ms = Number(BigInt(ns) / 1000000n);
  const plausible = ms > Date.UTC(2000, 0, 1) && ms < Date.UTC(2100, 0, 1);
  return plausible ? `${new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} (${ns} ns)` : `${ns} ns`;
}

// What the report's and the timeline's times count from: said only when it is not the first event.
function timeZero(t) {
  if (t.time_zero !== 'session_start') return undefined;
  return `the session start, as in Nsight Systems (first event at ${fmtUs(t.first_event_us)})`;
}

function rank(t) {
  if (t.rank === null || t.rank === undefined) return 'not recorded';
  const of = t.world_size === null || t.world_size === undefined ? '' : ` of ${fmtAny(t.world_size)}`;
  return `${fmtAny(t.rank)}${of}${t.backend ? ` (${t.backend})` : ''}`;
}

// `omitted`: {keys, events} the report left out past its most frequent keys (a file of 100,000
// distinct phases), said after the chips.
function counts(obj, title, omitted) {
  if (!obj || typeof obj !== 'object') return null;
  const entries = Object.entries(obj).sort((a, b) => b[1] - a[1]);
  if (!entries.length) return null;
  const more = omitted && typeof omitted === 'object' && omitted.keys > 0 ? omitted : null;
  return h(
    'div',
    { className: 'counts' },
    h('h3', null, title),
    h(
      'ul',
      { className: 'chips' },
      entries.map(([k, n]) => h('li', null, h('code', null, k), ' ', h('span', { className: 'n' }, fmtInt(n)))),
      more ? h('li', { className: 'more' }, `and ${fmtInt(more.keys)} more (${fmtInt(more.events)} events)`) : null,
    ),
  );
}

function device(d) {
  if (d === null || d === undefined) return 'none recorded';
  if (typeof d !== 'object') return fmtAny(d);
  const rest = Object.entries(d).filter(([k]) => k !== 'name');
  return h(
    'span',
    null,
    d.name ? h('strong', null, d.name) : null,
    rest.length ? h('span', { className: 'muted' }, ` (${rest.map(([k, v]) => `${k.replace(/_/g, ' ')} ${fmtByKey(k, v)}`).join(', ')})`) : null,
  );
}

function count(v) {
  return v !== null && typeof v === 'object' ? fmtInt(Array.isArray(v) ? v.length : Object.keys(v).length) : fmtInt(v);
}

export function factsView(t) {
  if (!t || typeof t !== 'object') return null;
  const rows = [
    ['File', t.gzip ? `${fmtAny(t.file)} (gzip)` : t.file],
    ['Format', t.format],
    [t.format === 'nsys_sqlite' ? 'File size (SQLite)' : 'JSON size', fmtBytes(t.json_bytes)],
    ['Events', fmtInt(t.events_total)],
    ['Slices', 'slices' in t ? fmtInt(t.slices) : undefined],
    ['Span', fmtUs(t.span_us)],
    ['Starts at', 'start_ns' in t ? start(t.start_ns) : undefined],
    ['Times count from', timeZero(t)],
    ['Processes', count(t.processes)],
    ['Threads', count(t.threads)],
    ['GPU devices', count(t.gpu_devices)],
    ['GPU streams', count(t.gpu_streams)],
    ['Rank', rank(t)],
    ['Schema version', 'schema_version' in t ? fmtAny(t.schema_version) : undefined],
    ['Device', device(t.device)],
    ['capture', 'capture' in t ? valueView('capture', t.capture, fmtByKey) : undefined],
  ].filter(([, v]) => v !== undefined);
  for (const [k, v] of Object.entries(t)) if (!SHOWN.includes(k)) rows.push([labelFor(k), valueView(k, v, fmtByKey)]);
  return section(
    'facts',
    'Trace',
    h(
      'dl',
      { className: 'facts' },
      rows.map(([k, v]) => h('div', { className: WIDE.has(k) ? 'wide' : null }, h('dt', null, k === 'capture' ? 'Captured with' : k), h('dd', null, v ?? '—'))),
    ),
    h('div', { className: 'counts-row' }, counts(t.events_by_phase, 'Events by phase', t.events_by_phase_omitted), counts(t.categories, 'Categories', t.categories_omitted)),
  );
}
