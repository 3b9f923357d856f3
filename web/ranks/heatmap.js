// A rank x step heat map in the DOM (no library, no canvas): one cell per (rank, step), columns
// aligned on the step number so the same ProfilerStep lines up on every rank. Colour is a
// sequential scale (viridis-like: dark = low, yellow = high, readable for colour-blind eyes); a cell
// a rank lacks is hatched grey. Each cell's value is in its title (hover) and aria-label.
import { h } from '../views/dom.js';
import { fmtInt, fmtUs } from '../views/format.js';

// Viridis at five stops (matplotlib's colormap, sampled), interpolated in sRGB.
const STOPS = [
  [68, 1, 84],
  [59, 82, 139],
  [33, 145, 140],
  [94, 201, 98],
  [253, 231, 37],
];

export function colorAt(t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0)) * (STOPS.length - 1);
  const i = Math.min(STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const c = STOPS[i].map((v, k) => Math.round(v + (STOPS[i + 1][k] - v) * f));
  return `rgb(${c[0]}, ${c[1]}, ${c[2]})`;
}

// Dark text on the light end of the scale, white on the dark end.
const inkAt = (t) => (t > 0.62 ? '#1d2330' : '#fff');

function range(values) {
  let min = Infinity;
  let max = -Infinity;
  for (const row of values) {
    for (const v of row) {
      if (typeof v !== 'number') continue;
      if (v < min) min = v;
      if (v > max) max = v;
    }
  }
  return Number.isFinite(min) ? { min, max } : { min: 0, max: 0 };
}

function legend(min, max, what) {
  const bar = h('span', { className: 'heat-legend-bar', 'aria-hidden': 'true' });
  bar.style.background = `linear-gradient(to right, ${STOPS.map((_, i) => colorAt(i / (STOPS.length - 1))).join(', ')})`;
  return h(
    'div',
    { className: 'heat-legend' },
    h('span', { className: 'muted' }, `${what}:`),
    h('span', null, fmtUs(min)),
    bar,
    h('span', null, fmtUs(max)),
    h('span', { className: 'heat-cell missing heat-swatch', 'aria-hidden': 'true' }),
    h('span', { className: 'muted' }, 'no such step on this rank'),
  );
}

// Keyboard (the ARIA grid pattern): the grid is one Tab stop, on the cell last moved to; the arrows
// move between cells, Home/End to the row's ends, Page Up/Down by ten ranks, Ctrl+Home/End to the
// first and last cell; Enter or Space opens the cell's rank, as a click does. Only the cell with
// the focus carries a tabindex: a map of 1,000 ranks is not 20,000 Tab stops.
const PAGE_ROWS = 10;
function moveKey(e, r, s, rows, cols) {
  const last = [rows - 1, cols - 1];
  switch (e.key) {
    case 'ArrowLeft': return [r, s - 1];
    case 'ArrowRight': return [r, s + 1];
    case 'ArrowUp': return [r - 1, s];
    case 'ArrowDown': return [r + 1, s];
    case 'PageUp': return [r - PAGE_ROWS, s];
    case 'PageDown': return [r + PAGE_ROWS, s];
    case 'Home': return e.ctrlKey ? [0, 0] : [r, 0];
    case 'End': return e.ctrlKey ? last : [r, last[1]];
    default: return null;
  }
}

// cellAt(r, s): the cell of rank index r, step index s (its row drawn first if it was not yet).
function keyboard(grid, rows, cols, cellAt, open) {
  let at = cellAt(0, 0);
  at.tabIndex = 0;
  grid.addEventListener('keydown', (e) => {
    const cell = e.target.closest('.heat-cell');
    if (!cell || !grid.contains(cell)) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault(); // Space would scroll the page
      if (!cell.classList.contains('missing')) open(cell);
      return;
    }
    const to = moveKey(e, Number(cell.dataset.r), Number(cell.dataset.s), rows, cols);
    if (!to) return;
    e.preventDefault(); // the arrows would scroll the map's box
    const clamp = (v, n) => Math.min(n - 1, Math.max(0, v));
    at.removeAttribute('tabindex');
    at = cellAt(clamp(to[0], rows), clamp(to[1], cols));
    at.tabIndex = 0;
    at.focus();
  });
  // A cell clicked becomes the one Tab returns to.
  grid.addEventListener('focusin', (e) => {
    const cell = e.target.closest('.heat-cell');
    if (!cell || cell === at) return;
    at.removeAttribute('tabindex');
    at = cell;
    at.tabIndex = 0;
  });
}

// steps: [step numbers]; ranks: [rank numbers]; values[r][s]: microseconds or null.
// `zeroBased`: the scale starts at 0 (waiting time) instead of the smallest value (step time).
// Otherwise it spans at least a tenth of the largest value: four ranks whose steps took 3.65 to
// 3.67 ms (0.6% apart) were painted from dark purple to yellow, as different as colours get.
// Each row is a role="row" element laid out with `display: contents`, so the cells stay items of
// the one CSS grid and screen readers still read rank by rank.
const MIN_SPAN = 0.1;
const FIRST_ROWS = 40;
const ROWS_MORE = 100;
export function heatMap({ label, what, steps, ranks, values, zeroBased = false, onCell }) {
  const { min: lo, max } = range(values);
  const min = zeroBased ? 0 : Math.max(0, Math.min(lo, max * (1 - MIN_SPAN)));
  const span = max - min;
  // Values written in the cells when they fit; otherwise only in the title.
  const showText = steps.length <= 12;
  const grid = h('div', { className: 'heat-grid', role: 'grid', 'aria-label': label, 'aria-rowcount': String(ranks.length + 1), 'aria-colcount': String(steps.length + 1) });
  grid.style.gridTemplateColumns = showText
    ? `max-content repeat(${steps.length}, minmax(72px, 160px))`
    : `max-content repeat(${steps.length}, minmax(10px, 1fr))`;
  grid.append(
    h(
      'div',
      { className: 'heat-row', role: 'row' },
      h('div', { className: 'heat-corner', role: 'columnheader' }, 'rank \\ step'),
      steps.map((n) => h('div', { className: 'heat-step', role: 'columnheader' }, String(n))),
    ),
  );
  // One rank's row, its cells in line[s].
  const rowOf = (rank, r) => {
    const row = h('div', { className: 'heat-row', role: 'row', 'aria-rowindex': String(r + 2) }, h('div', { className: 'heat-rank', role: 'rowheader' }, `rank ${rank}`));
    const line = steps.map((step, s) => {
      const v = values[r] ? values[r][s] : null;
      const at = { r: String(r), s: String(s) };
      if (typeof v !== 'number') {
        const text = `rank ${rank}, step ${step}: no such step`;
        return h('div', { className: 'heat-cell missing', role: 'gridcell', title: text, 'aria-label': text, dataset: at });
      }
      Object.assign(at, { rank: String(rank), step: String(step) });
      const t = span > 0 ? (v - min) / span : 0.5;
      const text = `rank ${rank}, step ${step}: ${fmtUs(v)}`;
      const cell = h('div', { className: 'heat-cell', role: 'gridcell', title: text, 'aria-label': text, dataset: at }, showText ? fmtUs(v) : null);
      cell.style.background = colorAt(t);
      cell.style.color = inkAt(t);
      return cell;
    });
    row.append(...line);
    return { row, line };
  };
  // The rows are drawn as the map's box scrolls to them, FIRST_ROWS at first and ROWS_MORE at a
  // time after: 1,000 ranks were 2 x 3,000 elements to style and lay out at once, for a box that
  // shows ~20 rows (the keyboard draws the rows it moves to too).
  const scroll = h('div', { className: 'heat-scroll' }, grid);
  const cells = [];
  const more = h('div', { className: 'heat-more muted', 'aria-hidden': 'true' });
  const drawTo = (n) => {
    const upTo = Math.min(n, ranks.length);
    if (upTo <= cells.length) return;
    const frag = document.createDocumentFragment();
    for (let r = cells.length; r < upTo; r++) {
      const { row, line } = rowOf(ranks[r], r);
      cells.push(line);
      frag.append(row);
    }
    more.before(frag);
    if (cells.length >= ranks.length) more.remove();
    else more.textContent = `${fmtInt(ranks.length - cells.length)} more ranks below: scroll to draw them`;
  };
  grid.append(more);
  drawTo(FIRST_ROWS);
  if (cells.length < ranks.length && typeof IntersectionObserver === 'function') {
    const seen = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && drawTo(cells.length + ROWS_MORE), { root: scroll, rootMargin: '200px' });
    seen.observe(more);
  } else drawTo(ranks.length);
  const open = (cell) => onCell && onCell(ranks[Number(cell.dataset.r)], steps[Number(cell.dataset.s)]);
  grid.addEventListener('click', (e) => {
    const cell = e.target.closest('.heat-cell');
    if (cell && !cell.classList.contains('missing')) open(cell);
  });
  const cellAt = (r, s) => {
    drawTo(r + 1);
    return cells[r][s];
  };
  if (ranks.length && steps.length) keyboard(grid, ranks.length, steps.length, cellAt, open);
  return h('div', { className: 'heat' }, h('h3', { className: 'sub' }, label), scroll, legend(min, max, what));
}
