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
