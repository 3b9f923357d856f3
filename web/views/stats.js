// The `nsys stats` reports of an Nsight Systems export (src/stats/, `kinetoscope stats --format
// json`, schema kinetoscope.stats/1): one table per report, with nsys's own column names and
// numbers (integers are nanoseconds or bytes, exact; reals as the CLI writes them). The rows come
// in nsys's order; each table can be re-sorted, filtered and downloaded like the report's tables.
import { h, section, note } from './dom.js';
import { fmtAny, fmtInt, isNum } from './format.js';
import { clampedName, dataTable, toCsv } from './table.js';

// The reports nsys prints only when asked, offered under the default ones.
const ON_REQUEST = [
  ['nvtx_gpu_proj_sum', 'NVTX ranges projected onto the GPU: the GPU time of each step or phase'],
  ['cuda_kern_exec_sum', 'launch, queue and run time of each kernel'],
  ['nvtx_kern_sum', 'kernels by the NVTX ranges around their launch'],
  ['cuda_gpu_kern_sum:base', 'kernels by base name: every template instantiation in one row'],
  ['cuda_gpu_kern_gb_sum', 'kernels by name and launch shape (grid, block)'],
  ['cuda_gpu_sum', 'kernels and copies in one table'],
  ['cuda_api_gpu_sum', 'API calls, kernels and copies in one table'],
  ['nvtx_pushpop_sum', 'push/pop ranges only'],
  ['nvtx_startend_sum', 'start/end ranges only'],
  ['cuda_gpu_trace', 'every kernel and copy'],
  ['cuda_api_trace', 'every CUDA API call'],
  ['cuda_kern_exec_trace', 'every kernel launch: API, queue and run time'],
  ['nvtx_pushpop_trace', 'every push/pop NVTX range with its stack (level, parent, children)'],
  ['um_sum', 'unified memory: page faults and migrations by address'],
  ['um_total_sum', 'unified memory: migrated bytes and page faults in all'],
  ['um_cpu_page_faults_sum', 'unified memory: the host functions that page-faulted'],
];

// The worker's kinetoscope.stats/1 text as an object ({error} when it is not one).
export function parseStats(json) {
  try {
    return JSON.parse(json);
  } catch (err) {
    return { error: { code: 'bad_stats', message: err.message } };
  }
}

// `stats` with one more report, asked for by name (the worker's answer `json`: that report or an
// error, which then shows in its place).
export function withReport(stats, json, name) {
  const more = parseStats(json);
  const report = more.error ? { report: name, title: name, columns: [], rows: [], note: `Not computed: ${more.error.message}` } : (more.reports || [])[0];
  const reports = ((stats && stats.reports) || []).filter((r) => r.report !== name);
  return { ...stats, reports: report ? [...reports, report] : reports };
}

// The columns of names: Name, Kernel Name, API Name, Range, NVTX Range, Operation (a memory
// operation, or in cuda_gpu_sum / cuda_api_gpu_sum any kernel name), and nvtx_pushpop_trace's
// NameTree (the name after a "--" per level).
const NAMES = /(^|\s)(Name|Range)$|^Operation$|^NameTree$/;

// One format per column kind in every table, as `nsys stats` and `kinetoscope stats` print them
// (src/stats/stats_writers.cpp column_decimals): reals with 3 decimals in MB columns, with whole
// nanoseconds in another time unit ("Avg (us)" 3.493), else with 1 (Time (%), Avg, Med, StdDev);
// integers (counts, Total Time, Min, Max in ns) with none. JSON reads the CLI's "0.0" back as 0, so
// the kind comes from the column's name (Avg, Med, StdDev, Time (%) and MB are always reals) or
// from a value with decimals: a StdDev column of zeros printed "0" in one table and "0.0" in another.
const REAL_COLUMNS = /^(Time \(%\)|(Avg|Med|StdDev|Q1|Q3) \()|\(MB/;
const UNIT_DECIMALS = { '(us)': 3, '(ms)': 6, '(s)': 9 };
function columnDecimals(label) {
  if (label.includes('(MB')) return 3;
  const unit = Object.keys(UNIT_DECIMALS).find((u) => label.endsWith(u));
  return unit ? UNIT_DECIMALS[unit] : 1;
}

function cellOf(digits) {
  return (v) => {
    if (!isNum(v)) return fmtAny(v);
    return digits ? v.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : fmtInt(v);
  };
}

// The page shows a table's name columns first, as the report's own tables: nsys prints them last
// (a text table's one free-width column), where at 1024 px they were cut to a few letters behind
// eight columns of numbers. The CSV keeps nsys's order and column names.
export function nameColumnsFirst(labels, isName = (label) => NAMES.test(label)) {
  const order = labels.map((label, i) => i);
  return [...order.filter((i) => isName(labels[i], i)), ...order.filter((i) => !isName(labels[i], i))];
}

function statsCsv(r) {
  const labels = r.columns || [];
  return {
    name: `${r.report}.csv`,
    dataset: { report: r.report },
    text: (rows) => toCsv(labels.map((label) => ({ key: label })),
      rows.map((row) => Object.fromEntries(labels.map((label, i) => [label, row[`c${i}`]])))),
  };
}

// A name cell: cut past NAME_CELL_MAX characters with its length (as the CLI's text table cuts it
// past 4,096 bytes): a 1 MB kernel name made a 1 MB cell and a 1 MB tooltip, for each row that
// holds it. The filter and the CSV read the row's whole name.
export const NAME_CELL_MAX = 4096;
export function cutStatsName(v) {
  const name = String(v ?? '');
  if (name.length <= NAME_CELL_MAX) return name;
  let end = NAME_CELL_MAX;
  const last = name.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1; // not inside a surrogate pair
  return `${name.slice(0, end)}… (${name.length.toLocaleString('en-US')} chars)`;
}
const statsName = (v) => clampedName(cutStatsName(v));

function reportTable(r) {
  const byIndex = (r.columns || []).map((label, i) => {
    const num = (r.rows || []).some((row) => typeof row[i] === 'number');
    const real = REAL_COLUMNS.test(label) || (r.rows || []).some((row) => isNum(row[i]) && !Number.isInteger(row[i]));
    const digits = real ? columnDecimals(label) : 0;
    // Kernel names (templated C++) and emit_nvtx ranges run to hundreds of characters: two
    // lines, click to open.
    if (!num && NAMES.test(label)) return { key: `c${i}`, label, className: 'name', fmt: statsName };
    return { key: `c${i}`, label, num, fmt: cellOf(digits) };
  });
  const columns = nameColumnsFirst(r.columns || [], (label, i) => byIndex[i].className === 'name').map((i) => byIndex[i]);
  const rows = (r.rows || []).map((row) => Object.fromEntries(row.map((v, i) => [`c${i}`, v])));
  const nameCol = (r.columns || []).findIndex((c) => NAMES.test(c));
  const body = rows.length
    ? dataTable({ columns, rows, sortKey: null, filterKeys: nameCol >= 0 ? [`c${nameCol}`] : null, label: r.report, csv: statsCsv(r) })
    : note(r.note || 'No rows.');
  return h(
    'div',
    { className: 'stats-report', dataset: { report: r.report } },
    h('h3', null, `${r.title || r.report} `, h('code', null, r.report)),
    rows.length && r.note ? note(r.note) : null,
    r.omitted_rows ? note(`The first ${fmtInt(rows.length)} rows of ${fmtInt(rows.length + r.omitted_rows)}: kinetoscope stats --report ${r.report} writes them all.`) : null,
    body,
  );
}

// "More reports": a button per report not shown yet; `ask(name)` requests it.
function moreReports(shown, ask) {
  const names = new Set(shown.map((r) => r.report));
  const left = ON_REQUEST.filter(([name]) => !names.has(name));
  if (!ask || !left.length) return null;
  const button = ([name, what]) =>
    h('button', {
      type: 'button', className: 'more-report', title: what, dataset: { report: name },
      onclick: (e) => {
        e.currentTarget.disabled = true;
        e.currentTarget.textContent = `${name}: computing…`;
        ask(name);
      },
    }, name);
  return h('p', { className: 'more-reports' }, 'More reports (nsys prints them when asked): ', left.map(button));
}

// `stats`: the parsed kinetoscope.stats/1 object, or {error: {code, message}}; `ask(name)` asks
// for one more report (the "More reports" buttons; none without it).
export function statsView(stats, ask) {
  if (!stats) return null;
  if (stats.error) return section('nsys-stats', 'Nsight Systems stats', note(`The stats could not be computed: ${stats.error.message} (${stats.error.code})`));
  const reports = Array.isArray(stats.reports) ? stats.reports : [];
  return section(
    'nsys-stats',
    'Nsight Systems stats',
    h(
      'p',
      { className: 'muted' },
      'The reports ',
      h('code', null, 'nsys stats'),
      ' prints by default, computed from the export’s own tables with NVIDIA’s definitions: the tables of ',
      h('code', null, 'kinetoscope stats'),
      '. Times in ns.',
    ),
    reports.map(reportTable),
    moreReports(reports, ask),
  );
}
