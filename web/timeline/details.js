// The details panel of the selected slice: what the model knows (name, category, times, self time,
// track, ids, launch configuration), the links (its launch or its kernel, its parent, flows) as
// buttons that select the other end, and all the event's own args, read back from the trace's bytes
// by the worker. Every string from the trace goes in as text (dom.js h()), made inert first
// (views/inert.js: controls shown as escapes, long names cut).
import { h } from '../views/dom.js';
import { NAME_MAX, inertLines, inertName } from '../views/inert.js';
import { fmtDur } from './units.js';

function row(label, ...value) {
  return h('tr', null, h('th', { scope: 'row' }, label), h('td', null, ...value));
}

function linkButton(brief, onSelect, prefix = '') {
  if (!brief) return null;
  return h(
    'button',
    { type: 'button', className: 'tl-link', dataset: { slice: String(brief.slice) }, onclick: () => onSelect(brief.slice) },
    `${prefix}${inertName(brief.name)}`,
    h('span', { className: 'muted' }, ` · ${fmtDur(brief.dur_ns)}`),
  );
}

// Arg values may be long (shapes, call stacks): a longer cut than names.
const VALUE_MAX = 4 * NAME_MAX;
const TEXT_MAX = 64 * 1024;

function argValue(key, v) {
  if (typeof v === 'string' && /stack/i.test(key) && v.includes(';')) {
    return h('ol', { className: 'tl-stack' }, v.split(';').filter(Boolean).map((f) => h('li', null, inertName(f, VALUE_MAX))));
  }
  if (v !== null && typeof v === 'object') return h('code', null, inertName(JSON.stringify(v), VALUE_MAX));
  return h('code', null, inertName(v, VALUE_MAX));
}

export function renderDetails(box, d, { flows, onSelect }) {
  if (!d) {
    box.replaceChildren(h('p', { className: 'muted' }, 'Click a slice to see its details.'));
    return;
  }
  const rows = [
    row('Category', inertName(d.cat) || '—', h('span', { className: 'muted' }, ` (${d.kind})`)),
    row('Start', fmtDur(d.start_ns), h('span', { className: 'muted' }, ' from the first event')),
    row('Duration', fmtDur(d.dur_ns)),
    row('Self time', fmtDur(d.self_ns), h('span', { className: 'muted' }, d.children ? ` (${d.children} direct children)` : '')),
    row('Track', `${inertName(d.process_name) || `pid ${d.pid}`} › ${inertName(d.track_name)}`, h('span', { className: 'muted' }, ` · depth ${d.depth}`)),
  ];
  if (d.correlation !== null) rows.push(row('Correlation', String(d.correlation)));
  if (d.external_id !== null) rows.push(row('External id', String(d.external_id)));
  if (d.stream !== null && d.kind !== 'cpu_op') rows.push(row('Stream', String(d.stream), d.device !== null ? ` on device ${d.device}` : ''));
  if (d.bytes !== null) rows.push(row('Bytes', String(d.bytes)));
  if (d.launch) {
    const l = d.launch;
    rows.push(row('Grid × block', `[${l.grid.join(', ')}] × [${l.block.join(', ')}]`));
    if (l.occupancy_pct !== null) rows.push(row('Est. occupancy', `${l.occupancy_pct}%`));
  }
  const links = [];
  if (d.partner) links.push(linkButton(d.partner, onSelect, d.kind === 'runtime' || d.kind === 'driver' ? 'Launches: ' : 'Launched by: '));
  if (d.parent) links.push(linkButton(d.parent, onSelect, 'Inside: '));
  if (flows) {
    const briefs = new Map(flows.slices.map((b) => [b.slice, b]));
    for (const l of flows.links) {
      if (l.kind === 'launch') continue; // shown as the partner
      const other = l.from === d.slice ? briefs.get(l.to) : briefs.get(l.from);
      links.push(linkButton(other, onSelect, `${l.from === d.slice ? 'Flow to' : 'Flow from'} (${l.kind}): `));
    }
  }
  const args = d.args && typeof d.args === 'object' ? Object.entries(d.args) : [];
  const parts = [
    h('h3', { className: 'tl-name', title: inertName(d.name) }, inertName(d.name)),
    h('table', { className: 'tl-facts' }, h('tbody', null, rows)),
    links.length ? h('div', { className: 'tl-links' }, links) : null,
    h('h4', null, 'Args'),
    args.length
      ? h('table', { className: 'tl-args' }, h('tbody', null, args.map(([k, v]) => row(inertName(k), argValue(k, v)))))
      : h('p', { className: 'muted' }, inertName(d.note, VALUE_MAX) || (d.args ? 'This event has no args.' : 'No args.')),
    d.text ? h('details', null, h('summary', null, `Event JSON (${d.byte_len} bytes at offset ${d.file_offset})`), h('pre', { className: 'json' }, inertLines(d.text, TEXT_MAX))) : null,
    h('p', { className: 'muted' }, `Trace time: ${d.ts_ns} ns`),
  ];
  box.replaceChildren(...parts.filter(Boolean)); // replaceChildren would write null as text
}
