// What bounds the step: HTA's critical path of one step (report key `critical_path`,
// docs/report-schema.md). A bar and a table split the path by what bounds it (HTA's bound_by
// names), then the heaviest events on it. The timeline toggle that highlights the path is added
// by timeline/links.js (the report views stay unaware of the timeline).
import { h, section, note } from './dom.js';
import { fmtInt, fmtPct, fmtUs, isNum } from './format.js';
import { clampedName, dataTable } from './table.js';

// HTA's labels, in the order of its summary, with what each means for the reader.
const BOUNDS = [
  ['cpu_bound', 'CPU', 'CPU ops and runtime calls'],
  ['gpu_compute_bound', 'GPU compute', 'GPU kernels, copies and sets'],
  ['gpu_communication_bound', 'GPU communication', 'NCCL / RCCL kernels'],
  ['gpu_kernel_launch_overhead', 'Launch delay', 'from a launch call to its kernel starting on an idle stream'],
  ['gpu_kernel_kernel_overhead', 'Kernel-kernel gap', 'between kernels queued on one stream'],
];

const EDGE = {
  critical_path_operator: 'operator',
  critical_path_dependency: 'dependency',
  critical_path_kernel_launch_delay: 'launch delay',
  critical_path_kernel_kernel_delay: 'kernel-kernel gap',
  critical_path_sync_dependency: 'sync',
};

export function criticalPathView(cp) {
  if (!cp || typeof cp !== 'object') return null;
  const title = 'What bounds the step';
  if (cp.ok === false) return section('critical-path', title, note(`No critical path: ${cp.error || 'unknown reason'}.`));
  const by = cp.bound_by_us && typeof cp.bound_by_us === 'object' ? cp.bound_by_us : {};
  const pct = cp.bound_by_pct && typeof cp.bound_by_pct === 'object' ? cp.bound_by_pct : {};
  const rows = BOUNDS.filter(([k]) => isNum(by[k]) && (by[k] > 0 || k !== 'gpu_communication_bound')).map(([k, label, what]) => ({
    bound_by: k,
    label,
    what,
    us: by[k],
    pct: isNum(pct[k]) ? pct[k] : null,
  }));
  const bar = h('div', { className: 'cp-bar', role: 'img', 'aria-label': rows.map((r) => `${r.label} ${fmtPct(r.pct)}`).join(', ') });
  for (const r of rows) {
    if (!(r.pct > 0)) continue;
    const part = h('div', { className: `cp-part cp-${r.bound_by}`, title: `${r.label}: ${fmtUs(r.us)} (${fmtPct(r.pct)})` });
    part.style.width = `${Math.min(100, r.pct)}%`;
    bar.appendChild(part);
  }
  const parts = [
    h(
      'p',
      null,
      `Critical path of ${cp.window || 'the step'}: ${fmtUs(cp.path_total_us)} over ${fmtInt(cp.events_on_path)} edges. `,
      h('strong', { className: 'cp-summary' }, cp.summary ? `${cp.summary[0].toUpperCase()}${cp.summary.slice(1)}.` : ''),
    ),
    h('p', { className: 'muted' }, 'The longest chain of dependent work in the step, as HTA’s critical_path_analysis builds it: making an event on it faster makes the step faster; elsewhere it may not.'),
    bar,
    dataTable({
      columns: [
        { key: 'label', label: 'Bound by', className: 'name' },
        { key: 'us', label: 'Time on the path', num: true, fmt: fmtUs },
        { key: 'pct', label: 'Share', num: true, fmt: fmtPct },
        { key: 'bound_by', label: 'HTA label' },
        { key: 'what', label: 'What it is' },
      ],
      rows,
      sortKey: 'us',
      label: 'critical path by what bounds it',
    }),
  ];
  const path = Array.isArray(cp.path) ? cp.path.filter((e) => e && isNum(e.duration_us)) : [];
  if (path.length) {
    const left = isNum(cp.path_left_out) && cp.path_left_out > 0 ? ` (${fmtInt(cp.path_left_out)} lighter edges left out)` : '';
    parts.push(h('h3', { className: 'sub' }, `The heaviest events on the path, in path order${left}`));
    parts.push(
      dataTable({
        columns: [
          { key: 'name', label: 'Event', className: 'name', fmt: clampedName },
          { key: 'duration_us', label: 'Weight', num: true, fmt: fmtUs },
          { key: 'edge', label: 'Edge' },
          { key: 'bound_by', label: 'Bound by' },
          { key: 'ts_us', label: 'Starts at', num: true, fmt: fmtUs },
        ],
        rows: path.map((e) => ({ ...e, edge: EDGE[e.edge_type] || e.edge_type })),
        sortKey: 'ts_us',
        sortDesc: false,
        label: 'critical path events',
      }),
    );
  }
  return section('critical-path', title, parts);
}
