// Math efficiency (the report's `math` key, kinetoscope.math/1; src/analysis/math_efficiency.h):
// per op group the FLOPs from its recorded shapes, achieved TFLOP/s and % of the GPU's peak; per
// step the model FLOPs and MFU. Without shapes it says how to record them.
import { h, section, note } from './dom.js';
import { fmtAny, fmtInt, fmtPct, fmtUs, isNum } from './format.js';
import { dataTable } from './table.js';
import { clampedWithTitle } from './clamp.js';

const fmtTflops = (v) => (isNum(v) ? v.toFixed(v >= 100 ? 0 : 1) : fmtAny(v));
const fmtGflop = (v) => (isNum(v) ? (v / 1e9).toPrecision(4) : fmtAny(v));
const fmtTflop = (v) => (isNum(v) ? (v / 1e12).toPrecision(4) : fmtAny(v));

function gpuLine(g) {
  if (!g) return note('No GPU named in the trace.');
  if (!g.known) return h('p', null, `GPU: ${g.device_name || 'not named'} — unknown GPU: no peak, so no % of peak and no MFU.`);
  const peaks = Object.entries(g.peak_tflops || {}).map(([d, v]) => `${d} ${v}`).join(', ');
  return h('p', null, `GPU: ${g.device_name} = ${g.peak_row}; dense peak TFLOP/s: ${peaks} (`,
    h('a', { href: g.url, rel: 'noopener noreferrer', target: '_blank' }, g.source), ').');
}

function kernelCell(v) {
  const list = Array.isArray(v) ? v : [];
  if (!list.length) return '—';
  const name = String(list[0].name ?? '');
  return clampedWithTitle(name, list.map((k) => k.name).join('\n'));
}

export function mathView(m) {
  if (!m || typeof m !== 'object') return null;
  if (!m.shapes_recorded) return section('math', 'Math efficiency', gpuLine(m.gpu), note(m.hint || 'No input shapes in this trace.'));
  const t = m.totals || {};
  const parts = [
    gpuLine(m.gpu),
    h('p', null, `${fmtInt(t.counted_ops)} ops counted, ${fmtTflop(t.flops)} TFLOP; their kernels ran ${fmtUs(t.math_kernel_us)} of ${fmtUs(t.kernel_us)} kernel time. FLOPs from the shapes (src/analysis/op_flops.h).`),
  ];
  const steps = Array.isArray(m.steps) ? m.steps : [];
  if (steps.length) {
    parts.push(dataTable({
      columns: [
        { key: 'step', label: 'Step', num: true, fmt: fmtInt },
        { key: 'dur_us', label: 'Time', num: true, fmt: fmtUs },
        { key: 'flops', label: 'TFLOP', num: true, fmt: fmtTflop },
        { key: 'dtype', label: 'Dtype', fmt: fmtAny },
        { key: 'mfu_pct', label: 'MFU', num: true, fmt: fmtPct, title: 'model FLOPs / (step time x peak of the dtype)' },
        { key: 'math_kernel_us', label: 'Math kernels', num: true, fmt: fmtUs },
        { key: 'fast_math_share_pct', label: '≥50% peak', num: true, fmt: fmtPct, title: 'share of kernel time in math at >= 50% of peak' },
      ],
      rows: steps, sortKey: 'step', sortDesc: false, label: 'steps',
    }));
  }
  const ops = Array.isArray(m.ops) ? m.ops : [];
  parts.push(dataTable({
    columns: [
      { key: 'name', label: 'Op', className: 'name', fmt: fmtAny },
      { key: 'shapes', label: 'Shapes', fmt: fmtAny },
      { key: 'dtype', label: 'Dtype', fmt: fmtAny },
      { key: 'count', label: 'Count', num: true, fmt: fmtInt },
      { key: 'flops_each', label: 'GFLOP each', num: true, fmt: fmtGflop },
      { key: 'gpu_us', label: 'GPU time', num: true, fmt: fmtUs },
      { key: 'achieved_tflops', label: 'TFLOP/s', num: true, fmt: fmtTflops },
      { key: 'peak_tflops', label: 'Peak', num: true, fmt: fmtTflops },
      { key: 'pct_of_peak', label: '% of peak', num: true, fmt: fmtPct },
      // A name column like the Op's: a mangled kernel name has no space to wrap at, and on one
      // line made the MI300 math table 16,704 px wide.
      { key: 'top_kernels', label: 'Kernel', className: 'name', fmt: kernelCell },
    ],
    rows: ops, sortKey: 'gpu_us', filterKeys: ['name', 'shapes', 'dtype'], label: 'math ops',
  }));
  if (isNum(m.ops_total) && m.ops_total > ops.length) parts.push(note(`${fmtInt(m.ops_total - ops.length)} more op groups: kinetoscope math TRACE --format json lists them.`));
  const nc = Array.isArray(m.not_counted) ? m.not_counted : [];
  if (nc.length) parts.push(note(`Not counted (FLOPs unknown): ${nc.map((u) => `${u.name} ×${u.count}: ${u.reason}`).join('; ')}.`));
  return section('math', 'Math efficiency', ...parts);
}
