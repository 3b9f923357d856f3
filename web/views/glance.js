// The run at a glance, under the report's title: one line of numbers in the order an engineer reads
// a GPU run (steps, GPU idle and why, the top kernel, copies, utilization), each with its unit and
// a link to its section. Without it the first screen of a 1366x768 laptop held one finding card and
// none of these numbers.
import { h } from './dom.js';
import { fmtInt, fmtPct, fmtUs, isNum } from './format.js';
import { readProblems } from './diagnostics.js';
import { clampedShort } from './clamp.js';

// What the GPU waited on, as idle_causes splits it (docs/report-schema.md).
const CAUSES = [
  ['dataloader_us', 'waiting on data loading'],
  ['sync_us', 'after CPU/GPU syncs'],
  ['host_wait_us', 'waiting on the CPU (launches late)'],
  ['other_us', 'for other reasons (not the CPU, syncs or data loading)'],
];
const MAX_NAME = 60;

// One entry: a label linking to its section, and the value (text or nodes; title: a tooltip).
export function glanceItem(label, href, value, title) {
  return h('div', null, h('dt', null, h('a', { href }, label)), h('dd', title ? { title } : null, value));
}

function steps(s) {
  if (!s || !isNum(s.count)) return null;
  const it = s.inferred_iterations;
  if (!s.count && it && it.found === true && isNum(it.count)) {
    const cv = isNum(it.cv_pct) ? `, CV ${fmtPct(it.cv_pct)}` : '';
    return glanceItem('Steps', '#steps', `none marked; ${fmtInt(it.count)} iterations inferred from the launches, median ${fmtUs(it.median_us)}${cv}`);
  }
  if (!s.count) return glanceItem('Steps', '#steps', 'none found: the whole trace is the window');
  if (s.count === 1) return glanceItem('Steps', '#steps', `1 step, ${fmtUs(s.median_us)}`);
  const spread = isNum(s.spread_pct) ? `, spread ${fmtPct(s.spread_pct)}` : '';
  return glanceItem('Steps', '#steps', `${fmtInt(s.count)} steps, median ${fmtUs(s.median_us)}${spread}`);
}

// "waiting on the CPU, which was in write (OS runtime)": the launching thread's activity when
// one holds most of the long host waits (idle_causes.long_host_wait_lead), else null.
function hostWait(c) {
  // As gpu.idle names it: only when long waits (the CPU away) outweigh launch overhead; what the
  // thread was doing is the report's own phrase (long_host_wait_lead: "in write (OS runtime)").
  if (!(2 * (c.short_host_wait_us || 0) < c.host_wait_us)) return null;
  const lead = c.long_host_wait_lead;
  // No one activity holds them: still the CPU away, as the title says ("busy elsewhere (long host
  // waits)"), not "launches late" (hta simple_add read both, one above the other).
  if (typeof lead !== 'string' || !lead) return 'waiting on the CPU, which was busy elsewhere (long host waits)';
  const name = lead.length > MAX_NAME ? `${lead.slice(0, MAX_NAME)}…` : lead;
  return `waiting on the CPU, which was ${name}`;
}

function idle(g, c) {
  if (!g) return null;
  // The GPU section is left out then (views/report.js): the link goes to the note that says why.
  if (g.has_gpu_ops === false) return glanceItem('GPU idle', '#no-gpu', 'no GPU work in this trace');
  if (!isNum(g.idle_pct)) return null;
  // The window the report measured idle over: the steps, else the GPU's span (first GPU op to
  // last), not the whole trace (startup before the first op would count as idle).
  const of = g.window === 'steps' ? 'of step time' : g.window === 'gpu_span' ? 'of the GPU span' : 'of the trace';
  let why = '';
  // Mostly while CUDA graphs were captured: their launches were recorded, not run (as gpu.idle
  // says it).
  const idleUs = isNum(g.window_us) && isNum(g.busy_us) ? g.window_us - g.busy_us : 0;
  if (isNum(g.idle_in_graph_capture_us) && idleUs > 0 && 2 * g.idle_in_graph_capture_us >= idleUs) {
    why = `, ${fmtPct((100 * g.idle_in_graph_capture_us) / idleUs)} while CUDA graphs were captured (launches recorded, not run)`;
  } else if (c && c.idle_us > 0) {
    const [key, what] = CAUSES.reduce((a, b) => ((c[b[0]] || 0) > (c[a[0]] || 0) ? b : a));
    if (c[key] > 0) why = `, ${fmtPct((100 * c[key]) / c.idle_us)} ${key === 'host_wait_us' ? hostWait(c) || what : what}`;
  }
  return glanceItem('GPU idle', '#gpu', `${fmtPct(g.idle_pct)} ${of}${why}`);
}

function topKernel(k) {
  const top = k && Array.isArray(k.rows) && k.rows[0];
  if (!top || typeof top.name !== 'string') return null;
  const name = top.name.length > MAX_NAME ? `${top.name.slice(0, MAX_NAME)}…` : top.name;
  const share = isNum(top.percent) ? `${fmtPct(top.percent)} of kernel time, ` : '';
  // One line, cut to the column; a click or Enter shows the whole name (before: cut with an
  // ellipsis and whole only in a hover title, which a phone or a keyboard never shows).
  return glanceItem('Top kernel', '#kernels', [h('code', null, clampedShort(name, top.name)), `${share}${fmtUs(top.total_us)}`], top.name);
}

function copies(m) {
  if (!m || !isNum(m.count) || !m.count) return null;
  return glanceItem('Memcpy / memset', '#memory', `${fmtUs(m.total_us)} in ${fmtInt(m.count)} ops`);
}

// The kernels' share of the window GPU idle is a share of, when the two differ (the GPU span vs
// the whole trace): "GPU idle 11.3% of the GPU span" beside "36.5% of the trace" read as if 52%
// of the time were neither; beside "86.0% of the GPU span in kernels" the two add up (the rest is
// copies and sets). One device only: the span is every GPU's, a device's kernels are its own.
function kernelShareOfIdleWindow(gm, g, d) {
  if (!g || g.window !== 'gpu_span' || gm.window === 'steps' || !(g.window_us > 0) || !isNum(d.kernel_us)) return null;
  if (gm.devices.length !== 1 || gm.omitted_rows > 0) return null;
  return (100 * d.kernel_us) / g.window_us;
}

function utilization(gm, g) {
  const d = gm && Array.isArray(gm.devices) && gm.devices[0];
  if (!d || !isNum(d.utilization_pct)) return null;
  const sm = isNum(d.sm_efficiency_pct) ? ` · SM efficiency ${fmtPct(d.sm_efficiency_pct)}` : '';
  // The report lists at most 1,000 devices and counts the rest in omitted_rows.
  const devices = gm.devices.length + (isNum(gm.omitted_rows) ? gm.omitted_rows : 0);
  const more = devices > 1 ? ` (GPU ${d.device} of ${fmtInt(devices)})` : '';
  // Each share says what it is a share of, as GPU idle beside it does: without steps it is kernel
  // time over the whole trace, startup included.
  const over = gm.window === 'steps' ? ' of step time' : ' of the trace';
  // The report keeps a share's decimals (16 µs of kernels in a 19.8 s trace is 0.00008, not 0.00):
  // fmtPct writes it "<0.1%", as SM efficiency beside it.
  const util = fmtPct(d.utilization_pct);
  const inSpan = kernelShareOfIdleWindow(gm, g, d);
  if (isNum(inSpan)) return glanceItem('GPU utilization', '#overview', `${fmtPct(inSpan)} of the GPU span in kernels (${util} of the trace)${sm}`);
  return glanceItem('GPU utilization', '#overview', `${util}${over}${sm}${more}`);
}

export function glanceView(report) {
  if (!report || typeof report !== 'object') return null;
  const items = [
    steps(report.steps),
    idle(report.gpu, report.idle_causes),
    topKernel(report.kernels),
    copies(report.memory_ops),
    utilization(report.gpu_metrics, report.gpu),
  ].filter(Boolean);
  return items.length ? h('dl', { className: 'glance', 'aria-label': 'The run at a glance' }, items) : null;
}

// What a report's head shows under its title, for a single trace (app.js) and a rank's own report
// (ranks/mode.js) alike: the read problems, then the run at a glance. Only nodes: a caller's
// `append(...)` would write a null as the text "null".
export function reportLead(report) {
  if (!report || typeof report !== 'object') return [];
  return [readProblems(report.diagnostics, report.trace), glanceView(report)].filter(Boolean);
}
