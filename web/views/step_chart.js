// The step-time chart above the Steps table: one bar per step, with a time axis (0, half and the
// longest step, in the report's units), a line at the median and the first and last step numbers
// under the bars, so a user reads how long the steps took, not only how they compare.
// Heights and positions go through CSSOM (allowed by the CSP, unlike style attributes).
import { h } from './dom.js';
import { fmtAny, fmtUs, isNum } from './format.js';

const MAX_BARS = 400;
const BAR_PX = 30; // a bar (28 px) and its gap

// own(row): the time compared with the median (the first step's without the backlog it inherited).
export function stepChart(rows, median, { what = 'Step', own = (r) => r.dur_us } = {}) {
  const timed = rows.filter((r) => isNum(r.dur_us));
  const max = Math.max(0, ...timed.map((r) => r.dur_us));
  if (!(max > 0) || rows.length > MAX_BARS) return null;
  const bars = h('div', { className: 'step-bars', role: 'img', 'aria-label': `${what} durations: from ${fmtUs(Math.min(...timed.map((r) => r.dur_us)))} to ${fmtUs(max)}${isNum(median) ? `, median ${fmtUs(median)}` : ''}` });
  for (const r of rows) {
    const bar = h('div', { className: 'bar', title: `${r.name}: ${fmtUs(r.dur_us)}` });
    bar.style.height = `${Math.max(2, (100 * (isNum(r.dur_us) ? r.dur_us : 0)) / max)}%`;
    if (isNum(median) && own(r) > median * 1.1) bar.classList.add('slow');
    bars.appendChild(bar);
  }
  const plot = h('div', { className: 'step-plot' }, bars);
  if (isNum(median) && median > 0) {
    const line = h('div', { className: 'step-median', 'aria-hidden': 'true' }, h('span', null, `median ${fmtUs(median)}`));
    line.style.bottom = `${(100 * median) / max}%`;
    plot.appendChild(line);
  }
  const axis = h('div', { className: 'step-yaxis', 'aria-hidden': 'true' }, h('span', null, fmtUs(max)), h('span', null, fmtUs(max / 2)), h('span', null, '0'));
  const first = rows[0];
  const last = rows[rows.length - 1];
  const label = (r) => (isNum(r.number) ? `${what.toLowerCase()} ${fmtAny(r.number)}` : String(r.name ?? ''));
  const xaxis = h('div', { className: 'step-xaxis', 'aria-hidden': 'true' }, h('span', null, label(first)), rows.length > 1 ? h('span', null, label(last)) : null);
  const anySlow = rows.some((r) => isNum(median) && own(r) > median * 1.1);
  // As wide as its bars (up to the card): the first and last step's labels sit under them.
  const grid = h('div', { className: 'step-grid' }, axis, plot, h('span'), xaxis);
  grid.style.gridTemplateColumns = `auto minmax(0, ${Math.max(120, rows.length * BAR_PX)}px)`;
  return h(
    'figure',
    { className: 'step-chart' },
    grid,
    h('figcaption', { className: 'muted' }, `${what} duration, in order${anySlow ? '; orange: more than 10% over the median' : ''}.`),
  );
}
