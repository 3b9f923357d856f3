// "Where the time went", at a glance: a stacked bar per step (the TB plugin's step breakdown),
// the GPU metrics, why the GPU sat idle (per cause, and per stream as HTA splits it), HTA's
// temporal breakdown, communication overlap, launches and memory. The bars are inline SVG built
// with DOM calls (createElementNS, attributes): no library, no innerHTML, and the CSP allows it.
import { h, section, note } from './dom.js';
import { fmtAny, fmtBytes, fmtInt, fmtPct, fmtUs, isNum } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, String(v));
  for (const c of children) if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
}

// The step parts in the order they claim time, with their colours (the CSS classes colour the
// legend the same way).
export const PARTS = [
  ['kernel', 'Kernel', '#2f5bd3'],
  ['memcpy', 'Memcpy', '#7c5cd6'],
  ['memset', 'Memset', '#b18be8'],
  ['communication', 'Communication', '#0f8b8d'],
  ['runtime', 'Runtime', '#e0a100'],
  ['dataloader', 'DataLoader', '#c4320a'],
  ['cpu_exec', 'CPU Exec', '#8a94a6'],
  ['other', 'Other', '#d5d9e0'],
];

const CAUSES = [
  ['dataloader', 'DataLoader', '#c4320a'],
  ['sync', 'Synchronization', '#a15c00'],
  ['host_wait', 'Host wait (CPU late)', '#e0a100'],
  ['other', 'Other', '#d5d9e0'],
];

function legend(items, values, total) {
  return h(
    'ul',
    { className: 'ov-legend' },
    items
      .filter(([key]) => !values || (values[key] || 0) > 0)
      .map(([key, label, color]) => {
        const swatch = h('span', { className: 'ov-swatch' });
        swatch.style.background = color;
        const share = values && total > 0 ? ` ${fmtPct((100 * values[key]) / total)}` : '';
        return h('li', null, swatch, label, h('span', { className: 'muted' }, share));
      }),
  );
}

// One horizontal stacked bar (a <svg> 100 units wide, stretched by CSS), with a <title> per part.
function stackBar(items, values, total, label) {
  const bar = svg('svg', { class: 'ov-bar', viewBox: '0 0 100 10', preserveAspectRatio: 'none', role: 'img', 'aria-label': label });
  let x = 0;
  for (const [key, name, color] of items) {
    const v = values[key] || 0;
    if (!(v > 0) || !(total > 0)) continue;
    const w = (100 * v) / total;
    bar.appendChild(svg('rect', { x, y: 0, width: w, height: 10, fill: color }, svg('title', null, `${name}: ${fmtUs(v)} (${fmtPct(w)})`)));
    x += w;
  }
  return bar;
}

// Stacked bars per step: one column per step, heights proportional to the step's duration.
function stepChart(rows) {
  const max = Math.max(...rows.map((r) => (isNum(r.dur_us) ? r.dur_us : 0)));
  if (!(max > 0)) return null;
  const n = rows.length;
  const width = Math.max(n * 14, 120);
  const chart = svg('svg', { class: 'ov-steps', viewBox: `0 0 ${width} 100`, preserveAspectRatio: 'none', role: 'img', 'aria-label': 'Step time by part, one bar per step' });
  const slot = width / n;
  rows.forEach((r, i) => {
    let y = 100;
    for (const [key, name, color] of PARTS) {
      const v = r[`${key}_us`];
      if (!(v > 0)) continue;
      const hgt = (100 * v) / max;
      y -= hgt;
      const step = r.number === null || r.number === undefined ? 'the whole trace' : `ProfilerStep#${r.number}`;
      chart.appendChild(
        svg('rect', { x: i * slot + slot * 0.12, y, width: slot * 0.76, height: hgt, fill: color }, svg('title', null, `${step}, ${name}: ${fmtUs(v)} of ${fmtUs(r.dur_us)}`)),
      );
    }
  });
  return chart;
}

function stat(label, value, title) {
  return h('li', { title }, h('span', { className: 'muted' }, label), h('strong', null, value));
}

// Nsight Systems' sampled GPU metrics (an export captured with --gpu-metrics-devices; the key is
// absent elsewhere): each the mean in the steps, else over the capture. Label, JSON key, what it
// is a share of.
const MEASURED = [
  ['SM Active', 'sm_active', 'SMs with a warp resident'],
  ['Tensor Active', 'tensor_active', 'cycles the tensor pipes were active'],
  ['SM Issue', 'sm_issue', 'cycles the SMs issued an instruction'],
  ['Warps in flight', 'warps_in_flight', 'resident compute warps, of all warp slots'],
  ['Unallocated warps', 'unallocated_warps', 'empty warp slots in active SMs, of all warp slots'],
  ['DRAM read', 'dram_read', 'DRAM read bandwidth, of its peak'],
  ['DRAM write', 'dram_write', 'DRAM write bandwidth, of its peak'],
  ['PCIe RX', 'pcie_rx', 'PCIe bytes received, of the peak'],
  ['PCIe TX', 'pcie_tx', 'PCIe bytes sent, of the peak'],
  ['NVLink RX', 'nvlink_rx', 'NVLink user data received, of the peak'],
  ['NVLink TX', 'nvlink_tx', 'NVLink user data sent, of the peak'],
];

function measuredStats(m) {
  if (!m) return null;
  const out = [];
  for (const [label, key, what] of MEASURED) {
    const steps = m[`${key}_steps_pct`];
    const all = m[`${key}_pct`];
    const v = isNum(steps) ? steps : all;
    if (!isNum(v)) continue;
    const over = isNum(steps) ? 'in the steps' : 'over the capture';
    out.push(stat(`${label} (measured)`, fmtPct(v), `Nsight Systems GPU metrics: ${what}, mean of the samples ${over}`));
  }
  return out;
}

function gpuMetrics(gm) {
  if (!gm || !Array.isArray(gm.devices) || !gm.devices.length) return gm && gm.absent ? note(`GPU metrics: ${gm.absent}.`) : null;
  const over = gm.window === 'steps' ? 'over the steps' : 'over the whole trace';
  return h(
    'div',
    null,
    h('h3', null, `GPU metrics (${over})`),
    // A generated trace may name thousands of devices: the first 32, as the text report.
    gm.devices.slice(0, 32).map((d) =>
      h(
        'ul',
        { className: 'stats', 'aria-label': `GPU metrics of device ${fmtAny(d.device)}` },
        gm.devices.length > 1 ? stat('Device', fmtAny(d.device)) : null,
        // Labelled with what it is a share of: the GPU idle share beside it is of the GPU span.
        stat(`Utilization, of ${gm.window === 'steps' ? 'step time' : 'the whole trace'}`, fmtPct(d.utilization_pct), `Kernel time (union over streams) / ${gm.window === 'steps' ? 'steps time' : 'the whole trace'}`),
        stat('Est. SM efficiency', isNum(d.sm_efficiency_pct) ? fmtPct(d.sm_efficiency_pct) : '—', d.sm_efficiency_absent || 'min(blocks per SM, 1), time-weighted'),
        stat('Est. occupancy', isNum(d.occupancy_pct) ? fmtPct(d.occupancy_pct) : '—', d.occupancy_absent || 'est. achieved occupancy, weighted by kernel time'),
        stat('Tensor-core kernels', fmtPct(d.tensor_core_pct), 'Share of kernel time in tensor-core kernels'),
        measuredStats(d.measured),
      ),
    ),
    gm.devices.length + (gm.omitted_rows || 0) > 32 ? note(`${fmtInt(gm.devices.length + (gm.omitted_rows || 0) - 32)} more devices (in the JSON report).`) : null,
  );
}

function idleCauses(ic) {
  if (!ic || !(ic.idle_us > 0)) return null;
  const values = {};
  for (const [key] of CAUSES) values[key] = ic[`${key}_us`] || 0;
  return h(
    'div',
    null,
    h('h3', null, `Why the GPU sat idle (${fmtUs(ic.idle_us)} of ${fmtUs(ic.window_us)})`),
    stackBar(CAUSES, values, ic.idle_us, 'GPU idle time by cause'),
    legend(CAUSES, values, ic.idle_us),
    hostWaitActivity(ic),
  );
}

// What the launching thread did while the GPU waited for it (long host waits), innermost first.
function hostWaitActivity(ic) {
  const rows = Array.isArray(ic.long_host_wait_activity) ? ic.long_host_wait_activity : [];
  if (!rows.length || !(ic.long_host_wait_us > 0)) return null;
  const parts = rows.map((r) => `${r.activity} ${fmtPct(r.pct)}`).join(', ');
  return h(
    'p',
    { className: 'muted host-wait-activity' },
    `In the long host waits (${fmtUs(ic.long_host_wait_us)}) the launching thread was in: ${parts}.`,
  );
}

function kernelTypes(kt) {
  const rows = kt && Array.isArray(kt.rows) ? kt.rows : [];
  if (!rows.length) return null;
  return h('p', { className: 'muted' }, `GPU time by kernel type (HTA): ${rows.map((r) => `${r.type} ${fmtPct(r.percent)}`).join(', ')}.`);
}

function temporal(tb, kt) {
  if (!tb || !tb.has_gpu_ops) return null;
  const items = [
    ['compute_us', 'Compute', '#2f5bd3'],
    ['non_compute_us', 'Non-compute (communication, copies)', '#0f8b8d'],
    ['idle_us', 'Idle', '#d5d9e0'],
  ];
  return h(
    'div',
    null,
    h('h3', null, `Temporal breakdown (HTA), GPU span ${fmtUs(tb.span_us)}`),
    stackBar(items, tb, tb.span_us, 'GPU span: compute, non-compute, idle'),
    legend(items, tb, tb.span_us),
    kernelTypes(kt),
  );
}

function streams(ib) {
  const rows = ib && Array.isArray(ib.streams) ? ib.streams : [];
  if (!rows.length) return null;
  const body = rows.map((s) =>
    h(
      'tr',
      null,
      h('td', null, `${s.device === null ? '' : `GPU ${s.device} `}stream ${fmtAny(s.stream)}`),
      h('td', { className: 'num' }, fmtInt(s.ops)),
      h('td', { className: 'num' }, fmtUs(s.idle_us)),
      h('td', { className: 'num' }, `${fmtUs(s.host_wait_us)} (${fmtInt(s.gaps.host_wait.count)})`),
      h('td', { className: 'num' }, `${fmtUs(s.kernel_wait_us)} (${fmtInt(s.gaps.kernel_wait.count)})`),
      h('td', { className: 'num' }, `${fmtUs(s.other_us)} (${fmtInt(s.gaps.other.count)})`),
    ),
  );
  return h(
    'div',
    null,
    h('h3', null, 'Idle time per stream (HTA: host wait, kernel wait < 30 µs, other; gap counts)'),
    h(
      'div',
      { className: 'table-scroll' },
      h(
        'table',
        { className: 'data', 'aria-label': 'idle time per stream' },
        h('thead', null, h('tr', null, ['Stream', 'Ops', 'Idle', 'Host wait', 'Kernel wait', 'Other'].map((t) => h('th', { scope: 'col' }, t)))),
        h('tbody', null, body),
      ),
    ),
    overlapNote(rows),
  );
}

// HTA measures each gap from the op before it in start order: ops of one stream that overlap
// (older CUPTI, MTIA) make the kernel wait negative, which reads as a bug without a word.
function overlapNote(rows) {
  const n = rows.filter((s) => s.kernel_wait_us < 0).length;
  if (!n) return null;
  return h(
    'p',
    { className: 'muted' },
    `${n === 1 ? "1 stream's" : `${n} streams'`} kernel wait is negative: ops of one stream overlap in this trace, ` +
      "and each gap is measured from the op before it in start order (HTA's definition); the temporal breakdown counts the overlap once.",
  );
}

function extras(report) {
  const items = [];
  const co = report.comm_overlap;
  if (co && isNum(co.overlap_pct)) items.push(stat('Comm. overlapped', fmtPct(co.overlap_pct), `${fmtUs(co.overlap_us)} of ${fmtUs(co.communication_us)} of communication ran under computation`));
  const ls = report.launch_stats;
  if (ls && ls.launches > 0) {
    items.push(stat('Launches', fmtInt(ls.launches)));
    items.push(stat('Short kernels', fmtInt(ls.short_kernels), 'Launch ≤ 50 µs and the kernel shorter than its launch'));
    items.push(stat('Median launch delay', fmtUs(ls.delay.median_us)));
    // A loop, not Math.max(...): a spread of very many streams overflows the call stack.
    const q = (Array.isArray(ls.queues) ? ls.queues : []).reduce((m, x) => Math.max(m, x.max_len), 0);
    items.push(stat('Longest launch queue', fmtInt(q), 'Launched but not yet started ops on one stream'));
  }
  const mem = report.memory;
  if (mem && Array.isArray(mem.devices)) {
    for (const d of mem.devices) {
      if (d.device === null) continue;
      const of = isNum(d.peak_pct) ? ` (${fmtPct(d.peak_pct)})` : '';
      const allocated = isNum(d.peak_allocated_bytes) ? `allocated ${fmtBytes(d.peak_allocated_bytes)}` : 'reserved from the device';
      items.push(stat(`Peak memory, GPU ${d.device}`, `${fmtBytes(d.peak_reserved_bytes ?? d.peak_allocated_bytes)}${of}`, allocated));
    }
  }
  return items.length ? h('ul', { className: 'stats' }, items) : null;
}

export function overviewView(sb, report) {
  if (!sb || typeof sb !== 'object' || !report) return null;
  const rows = Array.isArray(sb.rows) ? sb.rows : [];
  const totals = {};
  for (const [key] of PARTS) totals[key] = (sb.parts || {})[`${key}_us`] || 0;
  const title = sb.window === 'whole_trace' ? 'the whole trace (no steps)' : `${fmtInt(rows.length)} step${rows.length === 1 ? '' : 's'}`;
  return section(
    'overview',
    'Where the time went',
    h('p', null, `Step breakdown over ${title}, ${fmtUs(sb.total_us)}: each part takes only the time no earlier part took (TensorBoard profiler's rule).`),
    stackBar(PARTS, totals, sb.total_us, 'Step time by part, all steps'),
    legend(PARTS, totals, sb.total_us),
    rows.length > 1 && rows.length <= 400 ? stepChart(rows) : null,
    gpuMetrics(report.gpu_metrics),
    idleCauses(report.idle_causes),
    temporal(report.temporal_breakdown, report.kernel_types),
    streams(report.idle_breakdown),
    extras(report),
  );
}
