// Training steps (ProfilerStep#N, NVTX step ranges): how long each took and how much they vary;
// without markers, the iterations inferred from the repeating launches.
import { h, section, note } from './dom.js';
import { fmtAny, fmtByKey, fmtInt, fmtPct, fmtUs, isNum, labelFor } from './format.js';
import { dataTable, extraColumns } from './table.js';
import { stepChart } from './step_chart.js';

const KNOWN = ['name', 'number', 'start_us', 'end_us', 'dur_us'];

// Without markers, the iterations the report inferred from the repeating launches
// (steps.inferred_iterations): their times and stability, said to be inferred.
function inferredView(it) {
  if (!it || it.found !== true) return [];
  const rows = (Array.isArray(it.rows) ? it.rows : []).map((r) => ({ ...r, name: `iteration ${r.number}` }));
  const stats = [
    ['Iterations', fmtInt(it.count)],
    ['GPU ops each', fmtInt(it.ops_per_iteration)],
    ['Min', fmtUs(it.min_us)],
    ['Median', fmtUs(it.median_us)],
    ['Max', fmtUs(it.max_us)],
    ['Spread', fmtPct(it.spread_pct)],
    ['CV', fmtPct(it.cv_pct)],
  ];
  const columns = [
    { key: 'number', label: 'Iteration', num: true, fmt: fmtAny },
    { key: 'start_us', label: 'Starts at', num: true, fmt: fmtUs, title: 'Sort by start, counted from the trace’s time zero (its first event; in an Nsight Systems export, the session start)' },
    { key: 'dur_us', label: 'Duration', num: true, fmt: fmtUs },
  ];
  return [
    note(`The GPU work repeats, though: the same ${fmtInt(it.ops_per_iteration)} GPU ops are launched again and again (${fmtPct(it.match_pct)} of them recur one iteration later). These iterations are inferred from the order of the launches; the other sections still take the whole trace.`),
    statList(stats),
    stepChart(rows, it.median_us, { what: 'Iteration' }),
    rows.length ? dataTable({ columns, rows, sortKey: null, label: 'inferred iterations', limit: 1000 }) : null,
  ];
}

function statList(stats) {
  return h('ul', { className: 'stats' }, stats.map(([k, v]) => h('li', null, h('span', { className: 'muted' }, k), h('strong', null, v))));
}

export function stepsView(s) {
  if (!s || typeof s !== 'object') return null;
  const rows = Array.isArray(s.rows) ? s.rows : [];
  if (!s.count && !rows.length) {
    // The report's own note says what it looked for (ProfilerStep, NVTX ranges) and how to get steps.
    const why = typeof s.note === 'string' && s.note ? `: ${s.note}` : ' in this trace';
    return section('steps', 'Steps', note(`No step markers${why}.`), ...inferredView(s.inferred_iterations));
  }
  const stats = [
    ['Steps', fmtInt(s.count)],
    ['Min', fmtUs(s.min_us)],
    ['Median', fmtUs(s.median_us)],
    ['Max', fmtUs(s.max_us)],
    ['Spread', fmtPct(s.spread_pct)],
  ];
  for (const [k, v] of Object.entries(s)) {
    if (!['count', 'min_us', 'median_us', 'max_us', 'spread_pct', 'rows', 'inferred_iterations', 'first_step_queued_us', 'omitted_rows', 'omitted_total_us', 'last_step_left_out', 'last_step_left_out_us', 'last_step_left_out_start_us', 'first_step_left_out', 'first_step_left_out_us', 'first_step_left_out_start_us', 'overlapping_left_out', 'first_overlapping_start_us'].includes(k)) stats.push([labelFor(k), fmtByKey(k, v)]);
  }
  // A GPU-bound loop runs ahead of the GPU: the first step inherits the warm-up steps' backlog.
  const queued = s.first_step_queued_us;
  const backlog =
    isNum(queued) && rows[0] && isNum(rows[0].dur_us)
      ? note(`In the first step the GPU spends ${fmtUs(queued)} on work queued before it (the loop ran ahead of the GPU): its own time is ${fmtUs(rows[0].dur_us - queued)}.`)
      : null;
  // The first step's own time (without the backlog) is what the statistics count: it is what the
  // median is compared with, or a lone step reads as 37% over its own median (a real H100 trace).
  const ownUs = (r) => (r === rows[0] && isNum(queued) && isNum(r.dur_us) ? r.dur_us - queued : r.dur_us);
  // A last step the capture's end cut (steps.h LastStepCut): left out of the statistics.
  const cut = s.last_step_left_out;
  const cutNote =
    cut === 'open_at_capture_end' || cut === 'short'
      ? note(`The last step (${fmtUs(s.last_step_left_out_us)}, starting at ${fmtUs(s.last_step_left_out_start_us)}) is left out: ${cut === 'short' ? 'under a quarter of the others’ median, it was cut short by the profiler’s stop (the last prof.step() opens a step the capture’s end closes).' : 'its range was still open when the capture stopped, so its length is the capture’s cut.'}`)
      : null;
  // A first step the capture's start cut (steps.h first_cut): left out of the statistics.
  const firstCutNote =
    s.first_step_left_out === 'begun_before_capture'
      ? note(`The first step (${fmtUs(s.first_step_left_out_us)}, starting at ${fmtUs(s.first_step_left_out_start_us)}) is left out: it began before the capture started (the capture started mid-run, inside it), so its GPU work before the start was never traced.`)
      : null;
  // Step markers nested in or overlapping an earlier one (a merged file): left out, said (steps.h).
  const nested = s.overlapping_left_out;
  const nestedNote = isNum(nested) && nested > 0
    ? note(`${fmtInt(nested)} step marker${nested === 1 ? '' : 's'} nested in or overlapping an earlier step ${nested === 1 ? 'is' : 'are'} left out (steps follow one another; the first begins at ${fmtUs(s.first_overlapping_start_us)}, inside the step before it).`)
    : null;
  const columns = [
    { key: 'number', label: 'Step', num: true, fmt: fmtAny },
    { key: 'name', label: 'Name' },
    { key: 'start_us', label: 'Starts at', num: true, fmt: fmtUs, title: 'Sort by start, counted from the trace’s time zero (its first event; in an Nsight Systems export, the session start)' },
    { key: 'dur_us', label: 'Duration', num: true, fmt: fmtUs },
    {
      key: 'dur_us',
      label: 'vs median',
      num: true,
      title: 'Sort by duration; the first step is compared by its own time when the GPU began it with work queued before it',
      fmt: (_, row) => {
        const v = ownUs(row);
        return isNum(v) && isNum(s.median_us) && s.median_us > 0 ? `${v >= s.median_us ? '+' : ''}${fmtPct((100 * (v - s.median_us)) / s.median_us)}` : '—';
      },
    },
    ...extraColumns(rows, KNOWN, fmtByKey),
  ];
  // A long capture: the report lists the first steps only (report_table.h), the statistics cover all.
  const omitted = isNum(s.omitted_rows) && s.omitted_rows > 0
    ? note(`The report lists the first ${fmtInt(rows.length)} of ${fmtInt(rows.length + s.omitted_rows)} steps; the statistics above cover every step.`)
    : null;
  return section(
    'steps',
    'Steps',
    statList(stats),
    firstCutNote,
    cutNote,
    nestedNote,
    backlog,
    omitted,
    stepChart(rows, s.median_us, { own: ownUs }),
    rows.length ? dataTable({ columns, rows, sortKey: null, label: 'steps', limit: 1000 }) : null,
  );
}
