// Diagnostics: events the reader skipped or repaired, counted per kind, with the first byte offset.
import { h, section, note } from './dom.js';
import { fmtAny, fmtByKey, fmtInt } from './format.js';
import { dataTable, extraColumns } from './table.js';

const KNOWN = ['severity', 'code', 'message', 'count', 'first_offset'];

export function diagnosticsView(d) {
  if (!Array.isArray(d)) return null;
  if (!d.length) return section('diagnostics', 'Diagnostics', note('Every event was read without trouble.'));
  const columns = [
    { key: 'severity', label: 'Severity', fmt: (v) => h('span', { className: `badge sev-${v}` }, fmtAny(v)) },
    { key: 'code', label: 'Code', fmt: (v) => h('code', null, fmtAny(v)) },
    { key: 'message', label: 'Message', fmt: fmtAny },
    { key: 'count', label: 'Count', num: true, fmt: fmtInt },
    { key: 'first_offset', label: 'First at byte', num: true, fmt: fmtInt },
    ...extraColumns(d, KNOWN, fmtByKey),
  ];
  return section('diagnostics', 'Diagnostics', dataTable({ columns, rows: d, sortKey: null, label: 'diagnostics' }));
}

// The problems that change what the report means (a file cut off, events skipped or repaired: the
// warnings and errors), said above the report where the first screen shows them: at the bottom,
// in Diagnostics alone, a cut-off file read as if it were whole. Each says what and where.
// `trace`: the report's trace facts (an export's offsets are row ids; a .gz's count in its JSON).
export function readProblems(d, trace) {
  const nsys = !!trace && trace.format === 'nsys_sqlite';
  const of = trace && trace.gzip ? ' of the decompressed JSON' : '';
  const bad = (Array.isArray(d) ? d : []).filter((x) => x && (x.severity === 'error' || x.severity === 'warning'));
  if (!bad.length) return null;
  const where = (x) => {
    const parts = [];
    if (x.count > 1) parts.push(`${fmtInt(x.count)} times`);
    // An export's offsets are row ids, not bytes (findings.js says more).
    if (!nsys && Number.isFinite(x.first_offset)) parts.push(`${x.count > 1 ? 'first ' : ''}at byte ${fmtInt(x.first_offset)}${of}`);
    return parts.length ? ` (${parts.join(', ')})` : '';
  };
  return h(
    'div',
    { className: 'read-problems', role: 'note' },
    h('strong', null, bad.some((x) => x.severity === 'error') ? 'Parts of this file could not be read: ' : 'Read with repairs: '),
    h('span', null, 'the report below is of the file as read, without what was skipped. '),
    h('a', { href: '#diagnostics' }, 'All in Diagnostics'),
    h(
      'ul',
      null,
      bad.map((x) => h('li', null, h('code', null, fmtAny(x.code)), ' ', fmtAny(x.message), where(x))),
    ),
  );
}
