// The nsys-style summary tables: CUDA API calls (cuda_api_sum), CPU annotations (nvtx_sum), CPU
// ops by self time (key_averages), kernels by class and by GPU annotation, launches per API. Each
// is sortable, filterable and downloadable as CSV (table.js).
import { h, section, note } from './dom.js';
import { fmtAny, fmtInt, fmtUs } from './format.js';
import { dataTable, shareCell } from './table.js';
import { fromNsys } from './source.js';
import { clampedName } from './clamp.js';

// Long C++/Python names: two lines, whole on a click or Enter (clamp.js, as in the kernel table).
const name = (v) => clampedName(v);

const STATS = [
  { key: 'count', label: 'Count', num: true, fmt: fmtInt },
  { key: 'total_us', label: 'Total', num: true, fmt: fmtUs },
  { key: 'percent', label: 'Time %', num: true, fmt: shareCell },
  { key: 'avg_us', label: 'Avg', num: true, fmt: fmtUs },
  { key: 'median_us', label: 'Median', num: true, fmt: fmtUs },
  { key: 'min_us', label: 'Min', num: true, fmt: fmtUs },
  { key: 'max_us', label: 'Max', num: true, fmt: fmtUs },
  { key: 'stddev_us', label: 'Std dev', num: true, fmt: fmtUs },
];

// `empty`: what to say when the table has no rows.
function namedTable(id, title, what, t, label, empty = `No ${what} in this trace.`) {
  if (!t || typeof t !== 'object') return null;
  const rows = Array.isArray(t.rows) ? t.rows : [];
  if (!rows.length) return section(id, title, note(empty));
  return section(
    id,
    title,
    h('p', null, `${fmtInt(t.count)} ${what}, ${fmtUs(t.total_us)} in total; Time % is of that total.`),
    dataTable({ columns: [{ key: 'name', label: 'Name', className: 'name', fmt: name }, ...STATS], rows, sortKey: 'total_us', filterKeys: ['name'], label }),
  );
}

export function apiCallsView(t) {
  return namedTable('api-calls', 'Runtime API calls (CUDA, HIP, driver)', 'runtime and driver calls', t, 'api_calls');
}

// An Nsight Systems export's CPU annotations are its NVTX ranges (nsys stats' nvtx_sum).
export function annotationsView(t, report) {
  if (fromNsys(report)) return namedTable('annotations', 'NVTX ranges', 'NVTX ranges', t, 'annotations', 'No NVTX ranges in this export: nsys profile records them with --trace=nvtx (torch.cuda.nvtx.range in the program).');
  return namedTable('annotations', 'CPU annotations', 'annotation ranges', t, 'annotations');
}

export function cpuOpsView(c, report) {
  if (!c || typeof c !== 'object') return null;
  const rows = Array.isArray(c.rows) ? c.rows : [];
  // PyTorch's CPU operators (aten::...) are torch.profiler's events: an export never has them, and
  // "No CPU ops in this trace" read as if the program had done nothing on the CPU.
  if (!rows.length && fromNsys(report)) return null;
  if (!rows.length) return section('cpu-ops', 'CPU ops', note('No CPU ops in this trace.'));
  const columns = [
    { key: 'name', label: 'Op', className: 'name', fmt: name },
    { key: 'count', label: 'Calls', num: true, fmt: fmtInt },
    { key: 'self_us', label: 'Self', num: true, fmt: fmtUs, title: 'Sort by self time: duration minus direct children' },
    { key: 'self_percent', label: 'Self %', num: true, fmt: shareCell },
    { key: 'total_us', label: 'Total', num: true, fmt: fmtUs },
    { key: 'avg_us', label: 'Avg', num: true, fmt: fmtUs },
    { key: 'max_us', label: 'Max', num: true, fmt: fmtUs },
    { key: 'self_max_us', label: 'Max self', num: true, fmt: fmtUs },
  ];
  return section(
    'cpu-ops',
    'CPU ops by self time',
    h('p', null, `${fmtInt(c.count)} op calls, ${fmtUs(c.self_us)} of self time (an op's time minus its direct children's).`),
    dataTable({ columns, rows, sortKey: 'self_us', filterKeys: ['name'], label: 'cpu_ops' }),
  );
}

export function kernelGroupsView(g) {
  if (!g || typeof g !== 'object') return null;
  const byClass = Array.isArray(g.by_class) ? g.by_class : [];
  if (!byClass.length) return null;
  const parts = [
    h('p', null, `Math (GEMM, attention, convolution): ${fmtUs(g.math_us)}, ${fmtAny(g.math_pct)}% of kernel time.`),
    dataTable({
      columns: [{ key: 'class', label: 'Class' }, { key: 'category', label: 'HTA category' }, ...STATS],
      rows: byClass,
      sortKey: 'total_us',
      label: 'kernels_by_class',
    }),
  ];
  const ann = g.by_annotation && Array.isArray(g.by_annotation.rows) ? g.by_annotation.rows : [];
  if (g.has_annotations && ann.length) {
    // An export has no GPU annotations: its kernels go under the NVTX range open at their launch.
    const nvtx = g.annotation_source === 'nvtx_at_launch';
    parts.push(h('h3', null, nvtx ? 'By NVTX range at launch (the innermost the program pushed)' : 'By innermost GPU annotation'));
    parts.push(dataTable({ columns: [{ key: 'name', label: nvtx ? 'NVTX range' : 'Annotation', className: 'name', fmt: name }, ...STATS], rows: ann, sortKey: 'total_us', filterKeys: ['name'], label: 'kernels_by_annotation' }));
  }
  return section('kernel-groups', 'Kernels by class', ...parts);
}

export function launchesView(l) {
  if (!l || typeof l !== 'object' || !(l.launches > 0)) return null;
  const rows = (Array.isArray(l.apis) ? l.apis : []).map((a) => ({ ...a, median_delay_us: a.delay ? a.delay.median_us : null }));
  const columns = [
    { key: 'name', label: 'API', className: 'name', fmt: name },
    { key: 'launches', label: 'Launches', num: true, fmt: fmtInt },
    { key: 'short_kernels', label: 'Short kernels', num: true, fmt: fmtInt, title: 'Launch ≤ 50 µs and GPU time < launch time' },
    { key: 'runtime_outliers', label: 'Launch > 50 µs', num: true, fmt: fmtInt },
    { key: 'delay_outliers', label: 'Delay > 100 µs', num: true, fmt: fmtInt },
    { key: 'median_delay_us', label: 'Median delay', num: true, fmt: fmtUs },
    { key: 'cpu_us', label: 'CPU time', num: true, fmt: fmtUs },
    { key: 'gpu_us', label: 'GPU time', num: true, fmt: fmtUs },
  ];
  return section(
    'launches',
    'Kernel launches',
    h('p', null, `${fmtInt(l.launches)} launches that started a GPU op (HTA's launch statistics); launch delay is the GPU start minus the end of the launch call.`),
    dataTable({ columns, rows, sortKey: 'launches', filterKeys: ['name'], label: 'launch_stats' }),
  );
}
