// The whole report, in reading order: findings first, then the facts and tables behind them.
// Top-level keys this page does not know yet are still shown, as formatted JSON text.
import { h, section } from './dom.js';
import { labelFor } from './format.js';
import { factsView } from './facts.js';
import { findingsView } from './findings.js';
import { stepsView } from './steps.js';
import { gpuByOpView, kernelsView } from './kernels.js';
import { mathView } from './math.js';
import { memoryView } from './memory.js';
import { diagnosticsView } from './diagnostics.js';
import { gpuView } from './gpu.js';
import { syncView } from './sync.js';
import { criticalPathView } from './critical_path.js';
import { overviewView } from './overview.js';
import { annotationsView, apiCallsView, cpuOpsView, kernelGroupsView, launchesView } from './summaries.js';

// Sections a view shows inside another one (the overview reads them from the whole report).
const shownInOverview = () => null;

// Each view gets its key's value and the whole report.
const VIEWS = [
  ['findings', findingsView],
  ['step_breakdown', overviewView],
  ['trace', factsView],
  ['steps', stepsView],
  ['gpu', gpuView],
  ['kernels', kernelsView],
  ['gpu_by_op', gpuByOpView],
  ['math', mathView],
  ['memory_ops', memoryView],
  ['sync', syncView],
  ['critical_path', criticalPathView],
  ['kernel_groups', kernelGroupsView],
  ['launch_stats', launchesView],
  ['api_calls', apiCallsView],
  ['annotations', annotationsView],
  ['cpu_ops', cpuOpsView],
  ['temporal_breakdown', shownInOverview],
  ['kernel_types', shownInOverview],
  ['idle_breakdown', shownInOverview],
  ['idle_causes', shownInOverview],
  ['comm_overlap', shownInOverview],
  ['gpu_metrics', shownInOverview],
  ['memory', shownInOverview],
  ['diagnostics', diagnosticsView],
];
// Shown in the report header (app.js) rather than as sections.
const QUIET = new Set(['schema', 'generator', 'options']);

function other(key, value) {
  return section(`extra-${key}`, labelFor(key), h('pre', { className: 'json' }, JSON.stringify(value, null, 2)));
}

// A file with no events at all (`{"traceEvents":[]}`, a capture whose schedule never reached an
// active step): every other section would be empty, so the report is its findings (the one that
// says why and what to do), the trace facts (what the file had) and any read problems.
export function recordedNothing(report) {
  return !!report && !!report.trace && report.trace.events_total === 0;
}
function shownWhenEmpty(key, report) {
  return key === 'findings' || key === 'trace' || (key === 'diagnostics' && Array.isArray(report.diagnostics) && report.diagnostics.length > 0);
}

// A trace with no GPU work at all (a CPU-only capture, a profile whose `activities` left CUDA out):
// each GPU section would say "No GPU kernels…" in turn. Those sections are left out, and one
// note (noGpuNote) says so once. Keyed on what the report counted, never on the file's name.
const countOf = (v) => (v && typeof v.count === 'number' ? v.count : 0);
export function noGpuWork(report) {
  return !!report.gpu && report.gpu.has_gpu_ops === false && countOf(report.kernels) === 0 && countOf(report.memory_ops) === 0;
}
// Math efficiency too: without kernels its FLOPs are CPU ops' and its kernel time 0, against no
// GPU's peak, a GPU section with nothing GPU in it.
const GPU_KEYS = new Set(['gpu', 'kernels', 'gpu_by_op', 'math', 'memory_ops', 'sync', 'kernel_groups', 'launch_stats', 'api_calls']);
// Runtime calls or syncs recorded without any kernel still show: they are what the trace has.
const emptyGpu = (report, key) => GPU_KEYS.has(key) && noGpuWork(report) && !(['api_calls', 'sync'].includes(key) && countOf(report[key]) > 0);
const shows = (report, key) => key in report && !emptyGpu(report, key) && (!recordedNothing(report) || shownWhenEmpty(key, report));

function noGpuNote(report) {
  const nsys = report.trace && /nsys/.test(String(report.trace.format || ''));
  const why = nsys
    ? 'It may be a capture of CPU work only, or nsys profile ran without CUDA tracing (--trace without cuda).'
    : 'It may be a CPU-only run, or the profiler ran without CUDA activity (torch.profiler activities without ProfilerActivity.CUDA).';
  return section('no-gpu', 'No GPU work', h('p', null, 'This trace has no GPU kernels, memory copies or sets, so the GPU sections (busy time, kernels, math efficiency, memory operations, launches) are left out. ', why));
}

// One section's view (null where the report has no such key): views/warm.js renders them one by one.
export const VIEW_KEYS = VIEWS.map(([k]) => k);
export function renderView(report, key) {
  const v = VIEWS.find(([k]) => k === key);
  return v && shows(report, key) ? v[1](report[key], report) : null;
}

export function renderReport(report) {
  const nodes = [];
  for (const [key, view] of VIEWS) {
    if (shows(report, key)) nodes.push(view(report[key], report));
    if (key === 'findings' && !recordedNothing(report) && noGpuWork(report)) nodes.push(noGpuNote(report));
  }
  if (recordedNothing(report)) return nodes.filter(Boolean);
  const known = new Set(VIEWS.map(([k]) => k));
  for (const [key, value] of Object.entries(report)) {
    if (!known.has(key) && !QUIET.has(key)) nodes.push(other(key, value));
  }
  return nodes.filter(Boolean);
}
