// What the single-trace report (app.js) adds for an Nsight Systems export: its `nsys stats`
// tables, which the trace's worker sends after the report (worker/nsys.js), and the step-range
// box, which has that worker analyze the same export again with steps from the NVTX ranges of a
// name (`kinetoscope report --step-range NAME`). app.js keeps the load; this module keeps the
// export's tables and the one step-range analysis under way.
import { h, note, section } from './dom.js';
import { parseStats, statsView, withReport } from './stats.js';
import { renderWhenSeen } from './held_fields.js';
import { stepRangeForm } from './status.js';
import { Msg, stepRangeMsg } from '../worker/protocol.js';

// page: {report: the report element, post(msg) -> false once the worker is gone, isShown(id): the
// load `id` is the report on screen, show(report, done): puts a report on screen, rangeShown(report,
// m, done): after a step-range report is on screen, rangeFailed(done, error), timings() -> the
// last load's timings or null}.
export function nsysExport(page) {
  let stats = null; // the `nsys stats` tables of the export on screen, or null
  let rangeJob = null; // {id, done}: the step-range analysis under way, or null

  // The tables: a section at the end of the report, and a link to it. <body data-stats="1"> once shown.
  function onStats(m) {
    if (!page.isShown(m.id)) return;
    stats = m.report ? withReport(stats, m.json, m.report) : parseStats(m.json);
    const node = statsView(stats, (report) => page.post({ type: Msg.statsReport, id: m.id, report }));
    const old = document.getElementById('nsys-stats');
    if (old) old.replaceWith(node);
    else page.report.appendChild(node);
    renderWhenSeen([node]);
    const nav = page.report.querySelector('nav.jump');
    if (nav && !nav.querySelector('a[href="#nsys-stats"]')) nav.appendChild(h('a', { href: '#nsys-stats' }, 'Nsight Systems stats'));
    document.body.dataset.stats = '1';
    const timings = page.timings();
    if (timings && !m.report) timings.stats_ms = m.ms;
  }

  function stepRangeBox(done, report) {
    return stepRangeForm(report, (name) => {
      if (rangeJob) return;
      if (!page.post(stepRangeMsg(done.id, name))) return; // the trace's worker is gone
      rangeJob = { id: done.id, done };
      document.body.dataset.state = 'loading';
    });
  }

  function onRangeReply(m) {
    const job = rangeJob;
    rangeJob = null;
    if (!job || !page.isShown(m.id)) return;
    if (m.type === Msg.error) return page.rangeFailed(job.done, m.error);
    const report = JSON.parse(m.json);
    const kept = stats;
    const node = document.getElementById('nsys-stats');
    page.show(report, job.done);
    // The stats tables read the export's tables, not the steps: they stay as they were.
    if (kept && node) {
      stats = kept;
      document.getElementById('nsys-stats').replaceWith(node);
      document.body.dataset.stats = '1';
    }
    page.rangeShown(report, m, job.done);
  }

  return {
    onStats,
    onRangeReply,
    // A message for onRangeReply: the new report, or the error of the analysis under way.
    isRangeReply: (m) => m.type === Msg.reportUpdate || (m.type === Msg.error && !!rangeJob && m.id === rangeJob.id),
    stats: () => stats,
    // Another report goes on screen: the tables on screen are no longer its.
    clear() {
      stats = null;
      delete document.body.dataset.stats;
    },
    // The report's parts for an export: the box in its head, a placeholder until the tables come.
    headBox: (done, report) => (done.nsys ? stepRangeBox(done, report) : null),
    placeholder: (done) => (done.nsys ? section('nsys-stats', 'Nsight Systems stats', note('Computing the `nsys stats` tables…')) : null),
  };
}
