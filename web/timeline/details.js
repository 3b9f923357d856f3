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

// [[64,4096],[4096]] as "[[64, 4096], [4096]]"; a list of types as "c10::BFloat16, Scalar".
function dimsText(v) {
  if (v === undefined || v === null) return null;
  return typeof v === 'string' ? v : JSON.stringify(v).replace(/,/g, ', ');
}
function typesText(v) {
  if (v === undefined || v === null) return null;
  return Array.isArray(v) ? v.map((x) => (x === '' ? '—' : String(x))).join(', ') : String(v);
}

// The launching op (GPU work) and the whole stack above the slice, each frame a button
// (context.js). `context` is null while it is being read.
function contextParts(d, context, onSelect) {
  if (!context) return d.parent || d.partner ? [h('p', { className: 'muted tl-context-wait' }, 'Reading the stack…')] : [];
  const parts = [];
  const l = context.launcher;
  if (l) {
    const dims = dimsText(l.inputDims);
    const types = typesText(l.inputTypes);
    parts.push(
      h(
        'div',
        { className: 'tl-launcher' },
        h('strong', null, 'Launched by op: '),
        h('button', { type: 'button', className: 'tl-crumb', dataset: { slice: String(l.slice) }, onclick: () => onSelect(l.slice) }, inertName(l.name)),
        dims ? h('div', null, h('span', { className: 'muted' }, 'Input Dims '), h('code', { className: 'tl-dims' }, inertName(dims, VALUE_MAX))) : null,
        types ? h('div', null, h('span', { className: 'muted' }, 'Input type '), h('code', null, inertName(types, VALUE_MAX))) : null,
      ),
    );
  }
  if (context.ancestors.length) {
    parts.push(
      h('h4', null, `Stack (${context.ancestors.length} frame${context.ancestors.length === 1 ? '' : 's'}, innermost first${context.via ? `, above ${inertName(context.via.name)}` : ''})`),
      h(
        'ol',
        { className: 'tl-ancestors' },
        context.ancestors.map((a) =>
          h(
            'li',
            { className: `kind-${a.kind}` },
            h('button', { type: 'button', className: 'tl-crumb', dataset: { slice: String(a.slice) }, onclick: () => onSelect(a.slice) }, inertName(a.name)),
            h('span', { className: 'muted' }, ` · ${a.kind.replace('_', ' ')} · ${fmtDur(a.dur_ns)}`),
          ),
        ),
      ),
    );
  } else if (d.parent || context.via) parts.push(h('p', { className: 'muted' }, 'No enclosing CPU op or Python frame.'));
  return parts;
}

// `zero`: what times count from (the layout's time_zero: "first event", or an Nsight Systems
// export's "session start").
export function renderDetails(box, d, { flows, onSelect, context, zero }) {
  if (!d) {
    box.replaceChildren(h('p', { className: 'muted' }, 'Click a slice to see its details.'));
    return;
  }
  const rows = [
    row('Category', inertName(d.cat) || '—', h('span', { className: 'muted' }, ` (${d.kind})`)),
    row('Start', fmtDur(d.start_ns), h('span', { className: 'muted' }, ` from the ${zero === 'session start' ? 'session start' : 'first event'}`)),
    row('Duration', fmtDur(d.dur_ns)),
    row('Self time', fmtDur(d.self_ns), h('span', { className: 'muted' }, d.children ? ` (${d.children} direct children)` : '')),
    row('Track', `${inertName(d.process_name) || `pid ${d.pid}`} › ${inertName(d.track_name)}`, h('span', { className: 'muted' }, ` · depth ${d.depth}`)),
  ];
  if (d.correlation !== null) rows.push(row('Correlation', String(d.correlation)));
  if (d.stream !== null && d.kind !== 'cpu_op') rows.push(row('Stream', String(d.stream), d.device !== null ? ` on device ${d.device}` : ''));
  if (d.bytes !== null) rows.push(row('Bytes', String(d.bytes)));
  // A memcpy or memset carries grid [0,0,0] x block [0,0,0] in some traces: not a launch shape.
  if (d.launch && [...d.launch.grid, ...d.launch.block].some((x) => x > 0)) {
    const l = d.launch;
    rows.push(row('Grid × block', `[${l.grid.join(', ')}] × [${l.block.join(', ')}]`));
    // Kineto writes 0 when it could not estimate occupancy (library GEMMs with dynamic shared
    // memory among them): a 0 read as "idle SMs" misleads, so it is said as unknown.
    if (l.occupancy_pct > 0) rows.push(row('Est. occupancy', `${l.occupancy_pct}%`));
    else if (l.occupancy_pct === 0) rows.push(row('Est. occupancy', h('span', { className: 'muted', title: 'The trace says 0%: the profiler could not estimate it for this kernel' }, 'not estimated (the trace says 0)')));
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
    // The worker sends the first 500 flows of a slice (a crafted trace bound 10^6 to one).
    if (flows.omitted > 0) links.push(h('span', { className: 'muted' }, `and ${flows.omitted.toLocaleString('en-US')} more flows, not drawn`));
  }
  const args = d.args && typeof d.args === 'object' ? Object.entries(d.args) : [];
  // Two columns in the drawer: the facts and args; where the slice sits (launching op, stack).
  const where = contextParts(d, context, onSelect);
  const facts = [
    h('table', { className: 'tl-facts' }, h('tbody', null, rows)),
    links.length ? h('div', { className: 'tl-links' }, links) : null,
    h('h4', null, 'Args'),
    args.length
      ? h('table', { className: 'tl-args' }, h('tbody', null, args.map(([k, v]) => row(inertName(k), argValue(k, v)))))
      : h('p', { className: 'muted' }, inertName(d.note, VALUE_MAX) || (d.args ? 'This event has no args.' : 'No args.')),
    d.text ? h('details', null, h('summary', null, `Event JSON (${d.byte_len} bytes at offset ${d.file_offset})`), h('pre', { className: 'json' }, inertLines(d.text, TEXT_MAX))) : null,
    h('p', { className: 'muted' }, `Trace time: ${d.ts_ns} ns`),
  ].filter(Boolean); // replaceChildren would write null as text
  box.replaceChildren(
    h('h3', { className: 'tl-name', title: inertName(d.name) }, inertName(d.name)),
    h('div', { className: where.length ? 'tl-cols' : 'tl-cols one' }, h('div', { className: 'tl-col' }, facts), where.length ? h('div', { className: 'tl-col tl-where' }, where) : null),
  );
}
