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

// GPU time by the op that launched it (the TB plugin's operator view): self is the GPU time of
// the ops it launched itself (the innermost op around the launch), total all launched inside it.
export function gpuByOpView(g) {
  if (!g || typeof g !== 'object' || !(g.attributed_ops > 0)) return null;
  const rows = Array.isArray(g.rows) ? g.rows : [];
  const from = g.source === 'nvtx_emit_nvtx' ? "from the NVTX ranges PyTorch's emit_nvtx pushes around each op" : 'from the CPU ops around each launch';
  const unlaunched = g.unlaunched_ops > 0 ? ` ${fmtInt(g.unlaunched_ops)} have no launching call in the trace (launched before the capture began, or the runtime events were lost).` : '';
  const share = g.gpu_us > 0 ? ((100 * g.attributed_us) / g.gpu_us).toFixed(1) : '0.0';
  const columns = [
    { key: 'name', label: 'Op', className: 'name', fmt: clampedName },
    { key: 'gpu_ops', label: 'GPU ops', num: true, fmt: fmtInt },
    { key: 'self_us', label: 'Self', num: true, fmt: fmtUs, title: 'GPU time of the ops it launched as the innermost op' },
    { key: 'self_pct', label: 'Self %', num: true, fmt: shareCell },
    { key: 'total_us', label: 'Total', num: true, fmt: fmtUs, title: 'GPU time of every op launched inside it' },
    { key: 'total_pct', label: 'Total %', num: true, fmt: shareCell },
  ];
  return section(
    'gpu-by-op',
    'GPU time by launching op',
    h('p', null, `${fmtInt(g.attributed_ops)} of ${fmtInt(g.gpu_ops)} GPU ops were launched inside an op (${share}% of GPU time), ${from}.${unlaunched}`),
    dataTable({ columns, rows, sortKey: 'self_us', filterKeys: ['name'], label: 'gpu_by_op' }),
  );
}
