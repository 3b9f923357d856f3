// The trace diff (schema kinetoscope.diff/1, docs/report-schema.md) on the page: the step-time
// delta, then GPU ops and CPU ops by name with count and time deltas (largest time change first),
// and the names only one trace has. Per step when both traces have steps (`compared`), with the
// warning when their step counts differ. Names from the traces are text nodes.
import { h, note, section } from '../views/dom.js';
import { fmtInt, fmtPct, fmtUs, isNum } from '../views/format.js';
import { dataTable } from '../views/table.js';

const TABLE_ROWS = 200;
const NAMES_LISTED = 20;

const signed = (fmt) => (v) => (isNum(v) ? (v > 0 ? `+${fmt(v)}` : fmt(v)) : fmt(v));
const signedUs = signed(fmtUs);
const signedPct = signed(fmtPct);
const signedInt = signed(fmtInt);
// Slower (more time) is bad news in a diff: red; less time: green.
const trend = (v) => (isNum(v) && v > 0 ? 'worse' : isNum(v) && v < 0 ? 'better' : null);

function delta(v, fmt) {
  return h('span', { className: trend(v) ? `delta ${trend(v)}` : 'delta' }, fmt(v));
}

function nameList(title, names, cls) {
  if (!names || !names.length) return null;
  const items = names.slice(0, NAMES_LISTED).map((n) => h('li', null, h('code', null, n)));
  if (names.length > NAMES_LISTED) items.push(h('li', { className: 'muted' }, `and ${fmtInt(names.length - NAMES_LISTED)} more`));
  return h('div', { className: `diff-names ${cls}` }, h('h3', { className: 'sub' }, `${title} (${fmtInt(names.length)})`), h('ul', null, items));
}

// A count per step: whole numbers as such, else two decimals.
const perStep = (v) => (isNum(v) && !Number.isInteger(v) ? v.toFixed(2) : fmtInt(v));

function opsSection(id, title, t, steps) {
  if (!t) return null;
  const pct = { key: 'delta_pct', label: 'Δ %', num: true, fmt: (v, row) => (isNum(v) ? delta(v, signedPct) : row.status === 'added' ? 'new' : '—') };
  const columns = steps
    ? [
        { key: 'name', label: 'Name', className: 'name' },
        { key: 'status', label: 'Change', fmt: (v) => h('span', { className: `diff-status ${v}` }, v) },
        { key: 'base_count_per_step', label: 'Base count/step', num: true, fmt: perStep },
        { key: 'test_count_per_step', label: 'Test count/step', num: true, fmt: perStep },
        { key: 'base_per_step_us', label: 'Base time/step', num: true, fmt: fmtUs },
        { key: 'test_per_step_us', label: 'Test time/step', num: true, fmt: fmtUs },
        { key: 'delta_per_step_us', label: 'Δ time/step', num: true, fmt: (v) => delta(v, signedUs) },
        pct,
      ]
    : [
        { key: 'name', label: 'Name', className: 'name' },
        { key: 'status', label: 'Change', fmt: (v) => h('span', { className: `diff-status ${v}` }, v) },
        { key: 'base_count', label: 'Base count', num: true, fmt: fmtInt },
        { key: 'test_count', label: 'Test count', num: true, fmt: fmtInt },
        { key: 'count_delta', label: 'Δ count', num: true, fmt: (v) => delta(v, signedInt) },
        { key: 'base_total_us', label: 'Base time', num: true, fmt: fmtUs },
        { key: 'test_total_us', label: 'Test time', num: true, fmt: fmtUs },
        { key: 'delta_us', label: 'Δ time', num: true, fmt: (v) => delta(v, signedUs) },
        pct,
      ];
  const stats = h(
    'ul',
    { className: 'stats' },
    steps
      ? h('li', null, h('span', { className: 'muted' }, 'Ops per step'), h('strong', null, `${perStep(t.base_count / steps.base)} → ${perStep(t.test_count / steps.test)}`))
      : h('li', null, h('span', { className: 'muted' }, 'Ops'), h('strong', null, `${fmtInt(t.base_count)} → ${fmtInt(t.test_count)}`)),
    steps
      ? h('li', null, h('span', { className: 'muted' }, 'Time per step'), h('strong', null, `${fmtUs(t.base_per_step_us)} → ${fmtUs(t.test_per_step_us)}`), delta(t.delta_per_step_us, signedUs))
      : h('li', null, h('span', { className: 'muted' }, 'Total time'), h('strong', null, `${fmtUs(t.base_total_us)} → ${fmtUs(t.test_total_us)}`), delta(t.delta_us, signedUs)),
    h('li', null, h('span', { className: 'muted' }, 'Names added'), h('strong', null, fmtInt(t.added))),
    h('li', null, h('span', { className: 'muted' }, 'Names removed'), h('strong', null, fmtInt(t.removed))),
    h('li', null, h('span', { className: 'muted' }, 'Names changed'), h('strong', null, fmtInt(t.changed))),
  );
  return section(
    id,
    title,
    stats,
    h('div', { className: 'diff-lists' }, nameList('Added: only in TEST', t.added_names, 'added'), nameList('Removed: only in BASE', t.removed_names, 'removed')),
    t.rows.length
      ? dataTable({ columns, rows: t.rows, filterKeys: ['name'], label: `${title} compared`, limit: TABLE_ROWS })
      : note('Neither trace has any.'),
  );
}

function stepSection(diff) {
  const st = diff.step_time || {};
  const side = (label, s) =>
    h('li', null, h('span', { className: 'muted' }, `${label}: ${s.file}`), h('strong', null, isNum(s.step_median_us) ? fmtUs(s.step_median_us) : 'no steps'), h('span', { className: 'muted' }, `${fmtInt(s.steps)} step${s.steps === 1 ? '' : 's'}`));
  return section(
    'diff-steps',
    'Step time (median)',
    h(
      'ul',
      { className: 'stats' },
      side('Base', diff.base),
      side('Test', diff.test),
      h('li', null, h('span', { className: 'muted' }, 'Change'), isNum(st.delta_us) ? h('strong', null, delta(st.delta_us, signedUs)) : h('strong', null, '—'), isNum(st.delta_pct) ? delta(st.delta_pct, signedPct) : null),
    ),
    isNum(st.delta_us) ? null : note('One of the traces has no ProfilerStep markers, so there is no step time to compare: the whole traces are compared.'),
    diff.compared === 'per_step' ? note('Ops are compared per step: the ops inside the steps, each trace\'s sums divided by its step count.') : null,
    ...(diff.warnings || []).map((w) => h('p', { className: 'diff-warning', role: 'status' }, `Warning: ${w}.`)),
  );
}

export function renderDiff(diff, { secs }) {
  const steps = diff.compared === 'per_step' ? { base: diff.base.steps, test: diff.test.steps } : null;
  const sections = [stepSection(diff), opsSection('diff-gpu', 'GPU ops (kernels, memcpy, memset)', diff.gpu_ops, steps), opsSection('diff-cpu', 'CPU ops', diff.cpu_ops, steps)].filter(Boolean);
  const nav = h('nav', { className: 'jump', 'aria-label': 'Report sections' }, sections.map((s) => h('a', { href: `#${s.id}` }, s.querySelector('h2').textContent)));
  const head = h(
    'div',
    { className: 'report-head diff-head' },
    h('h2', null, h('span', { className: 'diff-side' }, diff.base.file), ' → ', h('span', { className: 'diff-side' }, diff.test.file)),
    h('p', { className: 'muted' }, `BASE → TEST, compared in ${secs} s${diff.generator ? ` by ${diff.generator}` : ''}`),
    nav,
  );
  return { head, sections };
}
