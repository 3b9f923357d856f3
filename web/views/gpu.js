// GPU busy time: over which window the GPU was measured, how much of it ran work, how much sat idle.
import { h, section, note } from './dom.js';
import { fmtAny, fmtByKey, fmtPct, fmtUs, isNum, labelFor } from './format.js';

const WINDOWS = {
  steps: 'the profiler steps',
  gpu_span: 'the first to the last GPU operation',
  none: 'no window',
};

export function gpuView(g) {
  if (!g || typeof g !== 'object') return null;
  if (g.has_gpu_ops === false) return section('gpu', 'GPU busy time', note('No GPU kernels, copies or sets in this trace.'));
  const busyPct = isNum(g.idle_pct) ? 100 - g.idle_pct : null;
  const bar = h('div', { className: 'busy-bar', role: 'img', 'aria-label': `GPU busy ${fmtPct(busyPct)}` });
  if (isNum(busyPct)) {
    const fill = h('div', { className: 'busy-fill' });
    fill.style.width = `${Math.min(100, Math.max(0, busyPct))}%`;
    bar.appendChild(fill);
  }
  const stats = [
    ['Busy', fmtUs(g.busy_us)],
    ['Idle', fmtPct(g.idle_pct)],
    ['Window', fmtUs(g.window_us)],
  ];
  for (const [k, v] of Object.entries(g)) {
    if (!['has_gpu_ops', 'window', 'window_us', 'busy_us', 'idle_pct'].includes(k)) stats.push([labelFor(k), fmtByKey(k, v)]);
  }
  return section(
    'gpu',
    'GPU busy time',
    h('p', null, `Measured over ${WINDOWS[g.window] || fmtAny(g.window)}: any kernel, copy or set on any stream counts as busy.`),
    h('ul', { className: 'stats' }, stats.map(([k, v]) => h('li', null, h('span', { className: 'muted' }, k), h('strong', null, v)))),
    isNum(busyPct) ? bar : null,
  );
}
