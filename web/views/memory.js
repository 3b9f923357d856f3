// Memory copies and sets (memcpy HtoD/DtoH/DtoD, memset): time, bytes and achieved bandwidth.
import { h, section, note } from './dom.js';
import { fmtAny, fmtBytes, fmtByKey, fmtInt, fmtRate, fmtUs } from './format.js';
import { dataTable, extraColumns, shareCell } from './table.js';

const KNOWN = ['kind', 'count', 'percent', 'total_us', 'avg_us', 'median_us', 'min_us', 'max_us', 'stddev_us', 'bytes', 'gb_per_s'];

export function memoryView(m) {
  if (!m || typeof m !== 'object') return null;
  const rows = Array.isArray(m.rows) ? m.rows : [];
  if (!rows.length) return section('memory', 'Memory operations', note('No GPU memcpy or memset in this trace.'));
  const columns = [
    { key: 'kind', label: 'Kind', fmt: fmtAny },
    { key: 'count', label: 'Count', num: true, fmt: fmtInt },
    { key: 'total_us', label: 'Total', num: true, fmt: fmtUs },
    { key: 'percent', label: 'Share', num: true, fmt: shareCell },
    { key: 'avg_us', label: 'Avg', num: true, fmt: fmtUs },
    { key: 'median_us', label: 'Median', num: true, fmt: fmtUs },
    { key: 'min_us', label: 'Min', num: true, fmt: fmtUs },
    { key: 'max_us', label: 'Max', num: true, fmt: fmtUs },
    { key: 'stddev_us', label: 'Std dev', num: true, fmt: fmtUs },
    { key: 'bytes', label: 'Bytes', num: true, fmt: fmtBytes },
    { key: 'gb_per_s', label: 'Bandwidth', num: true, fmt: fmtRate },
    ...extraColumns(rows, KNOWN, fmtByKey),
  ].filter((c) => !KNOWN.includes(c.key) || rows.some((r) => c.key in r));
  const head = h('p', null, `${fmtInt(m.count)} copies and sets, ${fmtUs(m.total_us)} of GPU time.`);
  return section('memory', 'Memory operations', m.count !== undefined ? head : null, dataTable({ columns, rows, sortKey: 'total_us', label: 'memory operations' }));
}
