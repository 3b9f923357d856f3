// GPU kernel summary: one row per kernel name, sortable, with a filter box.
import { h, section, note } from './dom.js';
import { fmtAny, fmtByKey, fmtInt, fmtUs } from './format.js';
import { clampedName, dataTable, extraColumns, shareCell } from './table.js';

const KNOWN = ['name', 'category', 'class', 'count', 'total_us', 'avg_us', 'median_us', 'min_us', 'max_us', 'stddev_us', 'percent'];

export function kernelsView(k) {
  if (!k || typeof k !== 'object') return null;
  const rows = Array.isArray(k.rows) ? k.rows : [];
  const head = h('p', null, `${fmtInt(k.count)} kernel launches, ${fmtUs(k.total_us)} of GPU kernel time, ${fmtInt(rows.length)} distinct kernels.`);
  if (!rows.length) return section('kernels', 'GPU kernels', note('No GPU kernels in this trace.'));
  const columns = [
    { key: 'name', label: 'Kernel', className: 'name', fmt: clampedName },
    { key: 'category', label: 'Category', fmt: fmtAny },
    { key: 'class', label: 'Class', fmt: fmtAny },
    { key: 'count', label: 'Count', num: true, fmt: fmtInt },
    { key: 'total_us', label: 'Total', num: true, fmt: fmtUs },
    { key: 'percent', label: 'Share', num: true, fmt: shareCell },
    { key: 'avg_us', label: 'Avg', num: true, fmt: fmtUs },
    { key: 'median_us', label: 'Median', num: true, fmt: fmtUs },
    { key: 'min_us', label: 'Min', num: true, fmt: fmtUs },
    { key: 'max_us', label: 'Max', num: true, fmt: fmtUs },
    { key: 'stddev_us', label: 'Std dev', num: true, fmt: fmtUs },
    ...extraColumns(rows, KNOWN, fmtByKey),
  ].filter((c) => !KNOWN.includes(c.key) || rows.some((r) => c.key in r));
  return section(
    'kernels',
    'GPU kernels',
    head,
    dataTable({ columns, rows, sortKey: 'total_us', filterKeys: ['name', 'category', 'class'], label: 'kernels' }),
  );
}
