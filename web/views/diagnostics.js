// Diagnostics: events the reader skipped or repaired, counted per kind, with where the first was:
// a byte offset, or an export's table and row (first_table/first_row; its first_offset is a code).
import { h, section, note } from './dom.js';
import { fmtAny, fmtByKey, fmtInt } from './format.js';
import { clampedName, dataTable, extraColumns } from './table.js';

const KNOWN = ['severity', 'code', 'message', 'count', 'first_offset', 'first_table', 'first_row', 'excerpt'];

// "NVTX_EVENTS row 2" for an export's row, else the byte; nothing for an export's whole-file note.
function firstAt(x, nsys) {
  if (x.first_table) return `${x.first_table} row ${fmtInt(x.first_row)}`;
  return !nsys && Number.isFinite(x.first_offset) ? `byte ${fmtInt(x.first_offset)}` : '';
}

export function diagnosticsView(d, report) {
  const nsys = !!report && !!report.trace && report.trace.format === 'nsys_sqlite';
  if (!Array.isArray(d)) return null;
  if (!d.length) return section('diagnostics', 'Diagnostics', note('Every event was read without trouble.'));
  const columns = [
    { key: 'severity', label: 'Severity', fmt: (v) => h('span', { className: `badge sev-${v}` }, fmtAny(v)) },
    { key: 'code', label: 'Code', fmt: (v) => h('code', null, fmtAny(v)) },
    { key: 'message', label: 'Message', fmt: fmtAny },
    { key: 'count', label: 'Count', num: true, fmt: fmtInt },
    { key: 'first_offset', label: 'First at', keep: true, fmt: (_, x) => firstAt(x, nsys) },
    // The file's own text at the first one: long or unbroken (a table name), so it wraps, clamped.
    { key: 'excerpt', label: 'Excerpt', className: 'excerpt', fmt: (v) => (v ? clampedName(v) : '') },
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
    const at = firstAt(x, nsys);
    if (at) parts.push(`${x.count > 1 ? 'first ' : ''}${x.first_table ? 'in' : 'at'} ${at}${x.first_table ? '' : of}`);
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
