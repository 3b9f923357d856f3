// Synchronization: CUDA calls that block the CPU until the GPU catches up, and device-to-host copies
// inside steps, or without steps inside the inferred iterations (each one is an implicit
// synchronization).
import { h, section, note, valueView } from './dom.js';
import { fmtByKey, fmtBytes, fmtInt, fmtUs, labelFor } from './format.js';
import { dataTable, extraColumns } from './table.js';
import { fromNsys } from './source.js';

const CALLS = ['name', 'count', 'total_us', 'max_us'];
const ORIGINS = ['cpu_ops', 'count', 'bytes', 'gpu_us'];

// `report`: the whole report; an Nsight Systems export's copies are issued inside NVTX ranges, not
// PyTorch's CPU operators.
export function syncView(s, report) {
  if (!s || typeof s !== 'object') return null;
  const calls = Array.isArray(s.calls) ? s.calls : [];
  const origins = Array.isArray(s.dtoh_origins) ? s.dtoh_origins : [];
  const parts = [];
  if (!calls.length && !s.dtoh_in_steps) parts.push(note('No synchronizing CUDA calls and no device-to-host copies inside steps.'));
  if (calls.length) {
    parts.push(h('p', null, `${fmtInt(s.count)} synchronizing calls, ${fmtUs(s.total_us)} in all.`));
    parts.push(
      dataTable({
        columns: [
          { key: 'name', label: 'Call', className: 'name' },
          { key: 'count', label: 'Count', num: true, fmt: fmtInt },
          { key: 'total_us', label: 'Total', num: true, fmt: fmtUs },
          { key: 'max_us', label: 'Longest', num: true, fmt: fmtUs },
          ...extraColumns(calls, CALLS, fmtByKey),
        ],
        rows: calls,
        sortKey: 'total_us',
        label: 'synchronizing calls',
      }),
    );
  }
  if (s.dtoh_in_steps) {
    // Without steps the report counted them inside the iterations it inferred (dtoh_windows).
    const where = s.dtoh_windows === 'inferred_iterations' ? 'inside the inferred iterations' : 'inside steps';
    parts.push(h('h3', { className: 'sub' }, `${fmtInt(s.dtoh_in_steps)} device-to-host copies ${where}, issued by`));
    parts.push(
      dataTable({
        columns: [
          { key: 'cpu_ops', label: fromNsys(report) ? 'NVTX range' : 'CPU operators', className: 'name' },
          { key: 'count', label: 'Copies', num: true, fmt: fmtInt },
          { key: 'bytes', label: 'Bytes', num: true, fmt: fmtBytes },
          { key: 'gpu_us', label: 'GPU time', num: true, fmt: fmtUs },
          ...extraColumns(origins, ORIGINS, fmtByKey),
        ],
        rows: origins,
        sortKey: 'count',
        label: 'device-to-host copy origins',
      }),
    );
  }
  const known = new Set(['count', 'total_us', 'calls', 'dtoh_in_steps', 'dtoh_windows', 'dtoh_origins']);
  for (const [k, v] of Object.entries(s)) {
    if (!known.has(k)) parts.push(h('p', null, h('span', { className: 'muted' }, `${labelFor(k)}: `), valueView(k, v, fmtByKey)));
  }
  return section('sync', 'Synchronization', parts);
}
