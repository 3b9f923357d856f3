// The trace diff (schema kinetoscope.diff/1, docs/report-schema.md) on the page: the step-time
// delta, then GPU ops and CPU ops by name with count and time deltas (largest time change first),
// and the names only one trace has. Per step when both traces have steps (`compared`), with the
// warning when their step counts differ. Names from the traces are text nodes.
import { h, note, section } from '../views/dom.js';
import { fmtInt, fmtPct, fmtUs, isNum } from '../views/format.js';
import { dataTable } from '../views/table.js';
import { clampedName } from '../views/clamp.js';
import { findingChanges, matchTemplates } from './match.js';

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

// Templated names run to hundreds of characters: two lines, whole on a click or Enter (clamp.js).
const clamp = (name) => clampedName(name);

// Collapsed: a summary line; the names (clamped) when opened.
function nameList(title, names, cls) {
  if (!names || !names.length) return null;
  const items = names.slice(0, NAMES_LISTED).map((n) => h('li', null, h('code', null, clamp(n))));
  if (names.length > NAMES_LISTED) items.push(h('li', { className: 'muted' }, `and ${fmtInt(names.length - NAMES_LISTED)} more (in the table below)`));
  return h('details', { className: `diff-names ${cls}` }, h('summary', null, `${title} (${fmtInt(names.length)})`), h('ul', null, items));
}

// A count per step: whole numbers as such, else two decimals.
const perStep = (v) => (isNum(v) && !Number.isInteger(v) ? v.toFixed(2) : fmtInt(v));

function opsSection(id, title, t, steps) {
  if (!t) return null;
  const pct = { key: 'delta_pct', label: 'Δ %', num: true, fmt: (v, row) => (isNum(v) ? delta(v, signedPct) : row.status === 'added' ? 'new' : '—') };
  const name = { key: 'name', label: 'Name', className: 'name', fmt: (v, row) => (row.matched ? [clamp(v), h('div', { className: 'muted diff-was' }, 'BASE: ', clamp(row.base_name))] : clamp(v)) };
  const status = { key: 'status', label: 'Change', fmt: (v, row) => h('span', { className: `diff-status ${v}`, title: row.matched ? 'The same name once template arguments are ignored' : null }, row.matched ? 'template args' : v) };
  const columns = steps
    ? [
        name,
        status,
        { key: 'base_count_per_step', label: 'Base count/step', num: true, fmt: perStep },
        { key: 'test_count_per_step', label: 'Test count/step', num: true, fmt: perStep },
        { key: 'base_per_step_us', label: 'Base time/step', num: true, fmt: fmtUs },
        { key: 'test_per_step_us', label: 'Test time/step', num: true, fmt: fmtUs },
        { key: 'delta_per_step_us', label: 'Δ time/step', num: true, fmt: (v) => delta(v, signedUs) },
        pct,
      ]
    : [
        name,
        status,
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
    t.matched ? note(`${fmtInt(t.matched)} name${t.matched === 1 ? '' : 's'} matched ignoring template arguments (<…>): shown as one row, "template args", not as added and removed.`) : null,
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
  );
}

// The answer first: the step-time change, the names that moved it most, the findings that came
// or went (issue 18, item 4).
function answerSection(diff, gpu, cpu, changes) {
  const st = diff.step_time || {};
  // Per step when both traces have steps (delta_per_step_us is the total delta otherwise).
  const perStepDiff = diff.compared === 'per_step';
  const d = (r) => (isNum(r.delta_per_step_us) ? r.delta_per_step_us : r.delta_us);
  const top = [...((gpu && gpu.rows) || [])]
    .filter((r) => isNum(d(r)) && d(r) !== 0)
    .sort((a, b) => (isNum(st.delta_us) && st.delta_us < 0 ? d(a) - d(b) : d(b) - d(a)))
    .slice(0, 5);
  const line = isNum(st.delta_us)
    ? h('p', { className: 'diff-answer' }, 'Step time ', h('strong', null, `${fmtUs(diff.base.step_median_us)} → ${fmtUs(diff.test.step_median_us)}`), ' (', delta(st.delta_us, signedUs), isNum(st.delta_pct) ? [', ', delta(st.delta_pct, signedPct)] : null, ') median, TEST against BASE.')
    : note('One of the traces has no ProfilerStep markers: no step time to compare.');
  const finding = (f) => h('li', null, h('span', { className: `badge sev-${f.severity || 'info'}` }, f.severity || 'info'), ' ', f.title || f.id);
  return section(
    'diff-answer',
    'What changed',
    line,
    (diff.warnings || []).map((w) => h('p', { className: 'diff-warning', role: 'status' }, `Warning: ${w}.`)),
    top.length ? h('h3', { className: 'sub' }, perStepDiff ? 'GPU time per step that changed most' : 'GPU time that changed most') : null,
    top.length
      ? h(
          'ol',
          { className: 'diff-top' },
          top.map((r) =>
            h(
              'li',
              null,
              delta(d(r), signedUs),
              ' ',
              h('code', null, clamp(r.name)),
              h('span', { className: 'muted' }, perStepDiff ? ` · ${r.matched ? 'template args changed' : r.status}, ${perStep(r.base_count_per_step)} → ${perStep(r.test_count_per_step)} calls per step` : ` · ${r.matched ? 'template args changed' : r.status}, ${fmtInt(r.base_count)} → ${fmtInt(r.test_count)} calls`),
            ),
          ),
        )
      : null,
    changes && changes.added.length ? [h('h3', { className: 'sub' }, `New in TEST (${changes.added.length} finding${changes.added.length === 1 ? '' : 's'})`), h('ul', { className: 'diff-findings added' }, changes.added.map(finding))] : null,
    changes && changes.gone.length ? [h('h3', { className: 'sub' }, `Gone from BASE (${changes.gone.length} finding${changes.gone.length === 1 ? '' : 's'})`), h('ul', { className: 'diff-findings gone' }, changes.gone.map(finding))] : null,
    changes && !changes.added.length && !changes.gone.length ? note('Both traces have the same findings.') : null,
  );
}

// `reports`: {base, test}, each trace's own report (for the findings), when known.
export function renderDiff(diff, { secs, reports = null }) {
  const gpu = matchTemplates(diff.gpu_ops);
  const cpu = matchTemplates(diff.cpu_ops);
  const changes = reports ? findingChanges(reports.base, reports.test) : null;
  const steps = diff.compared === 'per_step' ? { base: diff.base.steps, test: diff.test.steps } : null;
  const sections = [answerSection(diff, gpu, cpu, changes), stepSection(diff), opsSection('diff-gpu', 'GPU ops (kernels, memcpy, memset)', gpu, steps), opsSection('diff-cpu', 'CPU ops', cpu, steps)].filter(Boolean);
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
