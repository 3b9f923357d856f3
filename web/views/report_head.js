// The head of a single trace's report: its file name, what was read and how long it took, then
// `extras` (the Nsight Systems step-range box, notes), the run at a glance and a link to each
// section. app.js puts it above the sections renderReport() made.
import { h } from './dom.js';
import { fmtBytes } from './format.js';
import { reportLead } from './glance.js';
import { recordedNothing } from './report.js';
import { readProblems } from './diagnostics.js';

export function reportHead(report, name, secs, sections, extras) {
  const nav = h(
    'nav',
    { className: 'jump', 'aria-label': 'Report sections' },
    sections.map((s) => h('a', { href: `#${s.id}` }, s.querySelector('h2').textContent)),
  );
  const kind = report.trace && report.trace.format === 'nsys_sqlite' ? 'SQLite (Nsight Systems export)' : 'JSON';
  const size = report.trace && typeof report.trace.json_bytes === 'number' ? `${fmtBytes(report.trace.json_bytes)} of ${kind}, ` : '';
  return h(
    'div',
    { className: 'report-head' },
    h('h2', null, name),
    h('p', { className: 'muted' }, `${size}analyzed in ${secs} s${report.generator ? ` by ${report.generator}` : ''}`),
    ...extras,
    ...(recordedNothing(report) ? [readProblems(report.diagnostics, report.trace), emptyLead(report)].filter(Boolean) : reportLead(report)),
    nav,
  );
}

// An export of several GPU processes shown whole (opened by URL): its numbers are the processes'
// summed; the CLI compares them as ranks.
export function summedNote(name, processes) {
  const n = processes.length;
  const what = processes[0].merged ? `This file holds ${n} ranks' processes on one GPU (traces of several nodes merged)` : `This export holds ${n} GPU processes`;
  return h('p', { className: 'note', dataset: { summed: String(n) } }, `${what}, whose numbers are summed here. To compare them as ranks (straggler, per-rank steps), open the file itself here, or run: kinetoscope report ${name}`);
}

// Instead of the glance (steps, GPU idle: nothing to say) for a file without events: what it had.
function emptyLead(report) {
  const t = report.trace;
  const what = t.format === 'nsys_sqlite' ? 'This export' : 'This file';
  // Events skipped as unreadable are not "nothing recorded": a broken file read as an empty capture,
  // its byte offset only in Diagnostics at the bottom, under advice to call prof.step().
  const unread = (report.diagnostics || []).some((d) => d && d.severity === 'error');
  if (unread) {
    return h(
      'p',
      { className: 'note empty-trace', dataset: { empty: '1', unread: '1' } },
      `No trace event could be read from ${what.toLowerCase()}: what it holds was skipped as unreadable (above, with where), so there is no timeline and no table to show. Fix or export the file again; the finding below is about a capture that recorded nothing, which may not be the case here.`,
    );
  }
  return h(
    'p',
    { className: 'note empty-trace', dataset: { empty: '1' } },
    `${what} holds no trace events: no operators, kernels or steps were recorded, so there is no timeline and no table to show. The finding below says how that usually happens and how to capture a step.`,
  );
}
