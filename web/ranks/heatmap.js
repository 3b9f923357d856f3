// A rank x step heat map in the DOM (no library, no canvas): one cell per (rank, step), columns
// aligned on the step number so the same ProfilerStep lines up on every rank. Colour is a
// sequential scale (viridis-like: dark = low, yellow = high, readable for colour-blind eyes); a cell
// a rank lacks is hatched grey. Each cell's value is in its title (hover) and aria-label.
import { h } from '../views/dom.js';
import { fmtUs } from '../views/format.js';

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

// steps: [step numbers]; ranks: [rank numbers]; values[r][s]: microseconds or null.
// `zeroBased`: the scale starts at 0 (waiting time) instead of the smallest value (step time).
// Otherwise it spans at least a tenth of the largest value: four ranks whose steps took 3.65 to
// 3.67 ms (0.6% apart) were painted from dark purple to yellow, as different as colours get.
const MIN_SPAN = 0.1;
export function heatMap({ label, what, steps, ranks, values, zeroBased = false, onCell }) {
  const { min: lo, max } = range(values);
  const min = zeroBased ? 0 : Math.max(0, Math.min(lo, max * (1 - MIN_SPAN)));
  const span = max - min;
  // Values written in the cells when they fit; otherwise only in the title.
  const showText = steps.length <= 12;
  const grid = h('div', { className: 'heat-grid', role: 'table', 'aria-label': label });
  grid.style.gridTemplateColumns = showText
    ? `max-content repeat(${steps.length}, minmax(72px, 160px))`
    : `max-content repeat(${steps.length}, minmax(10px, 1fr))`;
  grid.append(h('div', { className: 'heat-corner', role: 'columnheader' }, 'rank \\ step'));
  for (const n of steps) grid.append(h('div', { className: 'heat-step', role: 'columnheader' }, String(n)));
  ranks.forEach((rank, r) => {
    grid.append(h('div', { className: 'heat-rank', role: 'rowheader' }, `rank ${rank}`));
    steps.forEach((step, s) => {
      const v = values[r] ? values[r][s] : null;
      if (typeof v !== 'number') {
        grid.append(h('div', { className: 'heat-cell missing', role: 'cell', title: `rank ${rank}, step ${step}: no such step`, 'aria-label': 'none' }));
        return;
      }
      const t = span > 0 ? (v - min) / span : 0.5;
      const text = `rank ${rank}, step ${step}: ${fmtUs(v)}`;
      const cell = h('div', { className: 'heat-cell', role: 'cell', title: text, 'aria-label': text, dataset: { rank: String(rank), step: String(step) } }, showText ? fmtUs(v) : null);
      cell.style.background = colorAt(t);
      cell.style.color = inkAt(t);
      if (onCell) cell.addEventListener('click', () => onCell(rank, step));
      grid.append(cell);
    });
  });
  return h('div', { className: 'heat' }, h('h3', { className: 'sub' }, label), h('div', { className: 'heat-scroll' }, grid), legend(min, max, what));
}
