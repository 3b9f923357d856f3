// The `nsys stats` reports of an Nsight Systems export (src/stats/, `kinetoscope stats --format
// json`, schema kinetoscope.stats/1): one table per report, with nsys's own column names and
// numbers (integers are nanoseconds or bytes, exact; reals as the CLI writes them). The rows come
// in nsys's order; each table can be re-sorted, filtered and downloaded like the report's tables.
import { h, section, note } from './dom.js';
import { fmtAny, fmtInt, isNum } from './format.js';
import { clampedName, dataTable } from './table.js';

const decimals = (v) => Math.min(20, (String(v).split('.')[1] || '').length);

// A number as the CLI wrote it: the decimals it wrote (1 for % and ns averages, 6 for MB), with
// thousands separators. JSON reads the CLI's "0.0" back as 0, so a column of reals (`digits`: the
// most decimals any of its values has) shows every value with that many, as nsys stats does.
function cellOf(digits) {
  return (v) => {
    if (!isNum(v)) return fmtAny(v);
    const d = Number.isInteger(v) ? digits : Math.max(digits, decimals(v));
    return d ? v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : fmtInt(v);
  };
}

function reportTable(r) {
  const columns = (r.columns || []).map((label, i) => {
    const num = (r.rows || []).some((row) => typeof row[i] === 'number');
    const digits = Math.max(0, ...(r.rows || []).map((row) => (isNum(row[i]) && !Number.isInteger(row[i]) ? decimals(row[i]) : 0)));
    // Kernel names (templated C++) run to hundreds of characters: two lines, click to open.
    if (!num && label === 'Name') return { key: `c${i}`, label, className: 'name', fmt: clampedName };
    return { key: `c${i}`, label, num, fmt: cellOf(digits) };
  });
  const rows = (r.rows || []).map((row) => Object.fromEntries(row.map((v, i) => [`c${i}`, v])));
  const nameCol = (r.columns || []).findIndex((c) => c === 'Name' || c === 'Operation' || c === 'Range');
  const body = rows.length
    ? dataTable({ columns, rows, sortKey: null, filterKeys: nameCol >= 0 ? [`c${nameCol}`] : null, label: r.report })
    : note(r.note || 'No rows.');
  return h(
    'div',
    { className: 'stats-report', dataset: { report: r.report } },
    h('h3', null, `${r.title || r.report} `, h('code', null, r.report)),
    rows.length && r.note ? note(r.note) : null,
    body,
  );
}

// `stats`: the parsed kinetoscope.stats/1 object, or {error: {code, message}}.
export function statsView(stats) {
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
  );
}
