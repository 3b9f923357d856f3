// The multi-rank report (schema kinetoscope.multirank/1, docs/report-schema.md) on the page:
// findings across ranks, the per-rank table (sortable, CSV), heat maps of step time and
// collective wait (rank x step, aligned on the step number), the collectives matched across
// ranks, and a picker that opens any rank's own report. Strings from the traces are text nodes.
import { h, note, section } from '../views/dom.js';
import { fmtAny, fmtBytes, fmtInt, fmtPct, fmtUs, isNum } from '../views/format.js';
import { rollupSection, stragglerRank } from './rollup.js';
import { dataTable } from '../views/table.js';
import { clampedShort } from '../views/clamp.js';
import { toCsv } from '../share/csv.js';
import { heatMap } from './heatmap.js';
import { stackedSection } from './stacked.js';
import { ranksGlance } from './glance.js';
import { shortNames } from './short_names.js';

const COLLECTIVE_ROWS = 200;
// Up to this many ranks, the per-rank collectives table has a column per rank.
const RANK_COLUMNS = 32;
// Rows of the per-rank tables drawn at once: a job of 1,000 ranks drew 28,000 cells and held the
// page for seconds; the rest are a sort or a filter away (views/table.js says how many are shown).
const RANK_ROWS = 200;

// [heatmap key, label, what a cell's value is]
const HEAT_METRICS = [
  ['collective_wait_us', 'Collective wait', 'waiting for peers'],
  ['compute_us', 'Compute', 'computation kernels'],
  ['communication_us', 'Communication', 'communication kernels'],
  ['overlap_us', 'Overlap', 'computation overlapping communication'],
  ['idle_us', 'GPU idle', 'GPU idle within the step'],
  ['host_wait_us', 'Host wait', 'GPU idle waiting for the CPU'],
  ['dataloader_us', 'Data loader', 'DataLoader __next__'],
  ['memcpy_us', 'Memcpy', 'memcpy and memset'],
];

export function saveText(text, filename, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

const us = (v) => fmtUs(v);
const gbps = (v) => (typeof v === 'number' ? `${v.toFixed(2)} GB/s` : '–');
const sizeCell = (v) => (typeof v === 'number' ? fmtBytes(v) : '–');
const BUSBW_TITLE = 'nccl-tests bus bandwidth: size / transfer time × 2(n−1)/n for all-reduce, (n−1)/n for all-gather, reduce-scatter and all-to-all, 1 for broadcast and reduce; – where not defined';

// A rank row for the CSV: the per-step means as columns of their own (mean_compute_us, ...).
function flatRank({ step_mean: mean, ...row }) {
  return { ...row, ...Object.fromEntries(Object.entries(mean || {}).map(([k, v]) => [`mean_${k}`, v])) };
}

// Captures that hold different steps (JSON shared_steps): the totals are each capture's own, the
// waits only the shared steps' (collectives are matched there alone). The CLI's rank-table note,
// from the same facts.
export function sharedStepsNote(multi) {
  const shared = multi.shared_steps;
  if (!Array.isArray(shared) || !shared.length) return null;
  const n = shared.length;
  return h('p', { className: 'muted shared-steps' },
    `The captures hold different steps: compute, communication and the other totals cover each rank's whole capture; collective wait covers the collectives of the ${n} step${n === 1 ? '' : 's'} every rank's capture holds, from step ${shared[0]}.`);
}

function rankTable(multi, openRank) {
  const rows = multi.ranks.map((r, k) => ({ ...r, k }));
  // The straggler's row stands out (ranks.css: tr:has(.straggler-mark)).
  const straggler = stragglerRank(multi);
  const shortFiles = shortNames(rows.map((r) => String(r.file ?? '')));
  const rankCell = (v, row) => [
    h('button', { type: 'button', className: 'link-button', title: `Open rank ${v}'s own report`, onclick: () => openRank(row.k) }, String(v)),
    v === straggler ? h('span', { className: 'badge sev-critical straggler-mark', title: 'The cross-rank findings name this rank' }, 'straggler') : null,
  ];
  // Where the numbers came from, when the ranks differ in it; one source is said in the head.
  const oneSource = new Set(multi.ranks.map((r) => r.rank_source)).size === 1;
  const columns = [
    { key: 'rank', label: 'Rank', num: true, fmt: rankCell },
    oneSource ? null : { key: 'rank_source', label: 'Rank from', title: 'Where the rank number came from: distributedInfo, the file name, or the load order' },
    { key: 'steps', label: 'Steps', num: true, fmt: fmtInt },
    { key: 'step_median_us', label: 'Own step median', num: true, fmt: us, title: "Median of the steps' own times: a first step's GPU backlog queued before it is left out, so it can be below the whole steps of the Per step table and the heat map" },
    { key: 'compute_us', label: 'Compute', num: true, fmt: us, title: 'Union of computation kernels' },
    { key: 'communication_us', label: 'Communication', num: true, fmt: us, title: 'Union of communication (NCCL/RCCL) kernels' },
    { key: 'overlap_pct', label: 'Overlap', num: true, fmt: fmtPct, title: 'Share of communication time that overlaps computation' },
    { key: 'idle_us', label: 'GPU idle (span)', num: true, fmt: us, title: "Over the rank's GPU span (first GPU op to last) minus busy time; the rank's gpu.idle finding measures over its steps instead" },
    { key: 'host_wait_us', label: 'Host wait', num: true, fmt: us, title: 'GPU idle while the CPU was late: gaps whose next GPU op was launched after the gap began' },
    { key: 'dataloader_us', label: 'Data loader', num: true, fmt: us, title: 'Union of DataLoader __next__ ranges' },
    { key: 'memcpy_us', label: 'Memcpy', num: true, fmt: us, title: 'Memcpy and memset time' },
    { key: 'wait_us', label: 'Collective wait', num: true, fmt: us, title: 'Time in collectives beyond the fastest rank (waiting for peers)' },
    { key: 'idle_gaps', label: 'Idle gaps', num: true, fmt: fmtInt, title: 'GPU idle gaps of 100 µs or more between two GPU ops of a step, net of data loading' },
    { key: 'idle_gap_us', label: 'Gap idle', num: true, fmt: us, title: 'Their idle time' },
    // One line at the table's end: broken over three (a kineto file name is ~50 characters),
    // it tripled every rank's row, and 8 ranks no longer fit a 768 px screen; whole on one line,
    // the 8 DLRM ranks' table ran 748 px past its box at 1280 px. So it is the rank picker's
    // short name (what all the files start with left out: "…worker3_step_12…") in the width the
    // numbers leave, on one line; a click (or Enter) shows the whole name (views/clamp.js).
    { key: 'file', label: 'File', className: 'file', fmt: (v, row) => clampedShort(shortFiles[row.k], String(v ?? '')) },
  ].filter(Boolean);
  // The table's one CSV button: every field of a rank (its per-step means as columns), in the
  // table's order.
  const csv = { name: 'ranks.csv', dataset: { export: 'csv:ranks' }, text: (shown) => toCsv(shown.map(({ k, ...r }) => flatRank(r))) };
  // Means over each rank's steps.
  const meanRows = multi.ranks.filter((r) => r.step_mean).map((r) => ({ rank: r.rank, steps: r.steps, ...r.step_mean }));
  const meanColumns = [
    { key: 'rank', label: 'Rank', num: true },
    { key: 'step_us', label: 'Whole step', num: true, fmt: us, title: 'Mean per step: the whole device-adjusted step, a first step\'s queued backlog included' },
    { key: 'collective_wait_us', label: 'Collective wait', num: true, fmt: us },
    ...HEAT_METRICS.slice(1).map(([key, label, what]) => ({ key, label, num: true, fmt: us, title: `Mean per step: ${what}` })),
  ];
  return section(
    'ranks',
    'Ranks',
    h('p', { className: 'muted' }, 'One row per rank; click a column to sort, a rank to open its own report.'),
    dataTable({ columns, rows, sortKey: 'rank', sortDesc: false, filterKeys: rows.length > RANK_ROWS ? ['file'] : null, label: 'Per-rank table', limit: RANK_ROWS, csv }),
    sharedStepsNote(multi),
    meanRows.length ? h('h3', { className: 'sub' }, 'Per step (mean over each rank\'s steps)') : null,
    meanRows.length ? dataTable({ columns: meanColumns, rows: meanRows, sortKey: 'rank', sortDesc: false, label: 'Per-step means', limit: RANK_ROWS }) : null,
  );
}

function heatSection(multi, openRank) {
  const hm = multi.heatmap || { steps: [], step_time_us: [], collective_wait_us: [] };
  const ranks = multi.ranks.map((r) => r.rank);
  if (!hm.steps.length) return section('heatmap', 'Steps across ranks', note('No rank has ProfilerStep markers: there is no step to align on.'));
  const byRank = (rank) => ranks.indexOf(rank);
  const onCell = (rank) => openRank(byRank(rank));
  // The second map shows one per-step metric at a time (collective wait first).
  const metrics = HEAT_METRICS.filter(([key]) => Array.isArray(hm[key]));
  const pick = h('select', { id: 'heat-metric', 'aria-label': 'Per-step metric of the second heat map' }, metrics.map(([key, label]) => h('option', { value: key }, label)));
  const second = h('div', { className: 'heat-second' });
  const draw = () => {
    const [key, label, what] = metrics.find(([k]) => k === pick.value) || metrics[0];
    second.replaceChildren(heatMap({ label, what, steps: hm.steps, ranks, values: hm[key], zeroBased: true, onCell }));
  };
  pick.addEventListener('change', draw);
  draw();
  return section(
    'heatmap',
    'Steps across ranks',
    note('Each column is the same ProfilerStep on every rank (aligned on the step number). Hover a cell for its value; click it to open that rank (from the keyboard: Tab into the map, the arrows, Enter).'),
    heatMap({ label: 'Step time', what: 'step time', steps: hm.steps, ranks, values: hm.step_time_us, onCell }),
    h('div', { className: 'heat-pick' }, h('label', { className: 'muted', for: 'heat-metric' }, 'Per step: '), pick),
    second,
  );
}

function collectivesSection(multi) {
  const c = multi.collectives;
  if (!c || !c.rows) return null;
  const ranks = multi.ranks.map((r) => r.rank);
  const facts = [
    `${fmtInt(c.matched)} collectives matched by order of issue`,
    c.counts_match ? 'every rank issued the same number' : 'the ranks issued different numbers (a hang or a desync)',
    c.names_match ? 'names agree' : 'names differ between ranks',
  ];
  const sized = c.rows.some((row) => row.bytes !== null && row.bytes !== undefined);
  const perRankColumns = ranks.length <= RANK_COLUMNS;
  const rows = c.rows.slice(0, COLLECTIVE_ROWS).map((row) => {
    const out = { index: row.index, name: row.name, collective: row.collective, bytes: row.bytes, busbw_gbps: row.busbw_gbps, transfer_us: row.transfer_us };
    ranks.forEach((_, k) => (out[`r${k}`] = row.dur_us[k]));
    if (!perRankColumns) {
      const slowest = ranks.reduce((best, _, k) => (typeof row.dur_us[k] === 'number' && (best < 0 || row.dur_us[k] > row.dur_us[best]) ? k : best), -1);
      out.slowest_us = slowest < 0 ? null : row.dur_us[slowest];
      out.slowest_rank = slowest < 0 ? null : ranks[slowest];
    }
    return out;
  });
  // The CSV of the per-rank table: every rank's duration, whether or not it has a column.
  const csv = perRankColumns
    ? null
    : { name: 'collectives_per_rank.csv', dataset: { export: 'csv:collectives' }, text: (shown) => toCsv(shown.map((r) => Object.fromEntries(Object.entries(r).map(([key, v]) => [/^r\d+$/.test(key) ? `rank ${ranks[Number(key.slice(1))]}` : key, v])))) };
  const columns = [
    { key: 'index', label: '#', num: true, fmt: fmtInt },
    { key: 'name', label: 'Name', className: 'name' },
    ...(sized
      ? [
          { key: 'collective', label: 'Collective', title: 'The collective args\' "Collective name"' },
          { key: 'bytes', label: 'Size', num: true, fmt: sizeCell, title: 'max(In, Out msg nelems) × dtype size: nccl-tests\' size' },
          { key: 'busbw_gbps', label: 'Bus bw', num: true, fmt: gbps, title: BUSBW_TITLE },
        ]
      : []),
    { key: 'transfer_us', label: 'Transfer', num: true, fmt: us, title: 'Shortest duration across ranks: the transfer itself' },
    // Many ranks: the slowest rank of each collective, not a column per rank (1,000 ranks were a
    // table 1,000 columns wide, 2,000 header elements even with no row); the CSV keeps them all.
    ...(perRankColumns
      ? []
      : [
          { key: 'slowest_us', label: 'Slowest', num: true, fmt: us, title: 'The longest duration across ranks: the rank that waited most for its peers' },
          { key: 'slowest_rank', label: 'on rank', num: true, fmt: fmtInt },
        ]),
    ...(perRankColumns ? ranks : []).map((rank, k) => ({
      key: `r${k}`,
      label: `rank ${rank}`,
      num: true,
      title: `Duration on rank ${rank}; beyond the transfer it is waiting for peers`,
      fmt: (v, row) => {
        // null: the rank is not a member of the collective's process group (tensor x data parallel)
        if (v === null) return h('span', { className: 'muted', title: `rank ${rank} is not in this collective's process group` }, '—');
        const wait = typeof v === 'number' ? v - row.transfer_us : 0;
        return h('span', { title: `rank ${rank}: ${fmtUs(v)}, of which ${fmtUs(wait)} waiting` }, fmtUs(v));
      },
    })),
  ];
  const byName = c.by_name || [];
  const nameColumns = [
    { key: 'name', label: 'Name', className: 'name' },
    { key: 'collective', label: 'Collective' },
    { key: 'count', label: 'Calls', num: true, fmt: fmtInt },
    { key: 'bytes', label: 'Bytes', num: true, fmt: (v, row) => (row.sized ? sizeCell(v) : '–'), title: 'Sum over the calls whose size is known' },
    { key: 'transfer_us', label: 'Transfer', num: true, fmt: us, title: 'Sum of the calls\' transfer times' },
    { key: 'wait_us', label: 'Wait', num: true, fmt: us, title: 'Sum over calls and ranks of the time spent waiting for peers' },
    { key: 'busbw_gbps', label: 'Bus bw', num: true, fmt: gbps, title: BUSBW_TITLE },
  ];
  return section(
    'collectives',
    'Collectives',
    h('p', null, facts.join('; '), '.'),
    sized ? null : note('The traces carry no collective args (Kineto writes "In msg nelems", "dtype", "Group size" since 2024): no message sizes.'),
    byName.length ? h('h3', { className: 'sub' }, 'By name') : null,
    byName.length ? dataTable({ columns: nameColumns, rows: byName, sortKey: 'transfer_us', sortDesc: true, label: 'Collectives by name', limit: 1000 }) : null,
    h('h3', { className: 'sub' }, 'By order of issue'),
    c.rows.length > COLLECTIVE_ROWS
      ? note(`The first ${COLLECTIVE_ROWS} of ${fmtInt(isNum(c.matched) ? c.matched : c.rows.length)} are shown (${isNum(c.omitted_rows) && c.omitted_rows > 0 ? `the JSON lists the first ${fmtInt(c.rows.length)}` : 'all are in the JSON'}).`)
      : null,
    perRankColumns ? null : note(`${fmtInt(ranks.length)} ranks: each collective's slowest rank is shown; its CSV has every rank's duration.`),
    dataTable({ columns, rows, sortKey: 'index', sortDesc: false, filterKeys: ['name'], label: 'Collectives per rank', limit: COLLECTIVE_ROWS, csv }),
  );
}

function picker(multi, openRank) {
  const labels = shortNames(multi.ranks.map((r) => r.file));
  const select = h(
    'select',
    { id: 'rank-picker', 'aria-label': 'Rank to open' },
    multi.ranks.map((r, k) => h('option', { value: String(k), title: r.file }, `rank ${r.rank} · ${labels[k]}`)),
  );
  // The chosen rank's whole file name on hover (its option's label may be shortened).
  const named = () => (select.title = select.selectedOptions[0] ? select.selectedOptions[0].title : '');
  select.addEventListener('change', named);
  named();
  const go = h('button', { type: 'button', className: 'button small', onclick: () => openRank(Number(select.value)) }, 'Open its report');
  return h('div', { className: 'rank-pick' }, h('label', { for: 'rank-picker', className: 'muted' }, 'Rank:'), select, go);
}

// The head and sections of the multi-rank view; `openRank(k)` shows ranks[k]'s own report;
// `fileOf(k)` is its File (the stacked timelines read it again).
export function renderRanks(multi, { secs, openRank, fileOf }) {
  const n = multi.ranks.length;
  const sources = [...new Set(multi.ranks.map((r) => r.rank_source))].join(', ');
  const sections = [
    rollupSection(multi, openRank),
    rankTable(multi, openRank),
    heatSection(multi, openRank),
    fileOf ? stackedSection(multi, fileOf) : null,
    collectivesSection(multi),
  ].filter(Boolean);
  const nav = h('nav', { className: 'jump', 'aria-label': 'Report sections' }, sections.map((s) => h('a', { href: `#${s.id}` }, s.querySelector('h2').textContent)));
  const head = h(
    'div',
    { className: 'report-head ranks-head' },
    h('h2', null, `${n} ranks`),
    h('p', { className: 'muted' }, `ranks from ${sources}; analyzed in ${secs} s${multi.generator ? ` by ${fmtAny(multi.generator)}` : ''}`),
    picker(multi, openRank),
    ranksGlance(multi),
    nav,
  );
  return { head, sections };
}

// One rank's own report, with the way back.
export function rankHead(row, { secs, back, prev, next }) {
  return h(
    'div',
    { className: 'report-head ranks-head' },
    h('button', { type: 'button', className: 'button small', onclick: back, dataset: { action: 'all-ranks' } }, '← All ranks'),
    h('h2', null, `Rank ${row.rank}: ${row.file}`),
    h('p', { className: 'muted' }, `rank from ${row.rank_source}; one of the ranks analyzed together in ${secs} s`),
    h(
      'span',
      { className: 'rank-steps' },
      prev ? h('button', { type: 'button', className: 'button small', onclick: prev }, '‹ previous rank') : null,
      next ? h('button', { type: 'button', className: 'button small', onclick: next }, 'next rank ›') : null,
    ),
  );
}
