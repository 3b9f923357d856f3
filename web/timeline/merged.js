// Merged boxes (issue 18, item 2): at low zoom many small slices are drawn as one box (the LOD
// query's runs, count > 1). Hovering one says what it holds (a tooltip with the top names); a click
// selects the run (the aggregate of its slices, in the drawer) rather than one arbitrary slice.
import { h } from '../views/dom.js';
import { inertName } from '../views/inert.js';
import { fmtInt } from '../views/format.js';
import { fmtDur } from './units.js';

// The merged box drawn at time `t` (± tolerance, ns) on row `depth` of `lane`, from the data the
// frame was drawn from: {start, end, count, track, depth} or null.
export function mergedAt(st, lane, depth, t, tolerance) {
  const d = st.data;
  const rows = d && d.rows.get(lane.track.id);
  if (!rows) return null;
  for (const [dep, from, to] of rows) {
    if (dep !== depth) continue;
    for (let k = from; k < to; k++) {
      if (d.start[k] > t + tolerance) break;
      if (d.end[k] >= t - tolerance && d.count[k] > 1) return { start: d.start[k], end: d.end[k], count: d.count[k], track: lane.track.id, depth };
    }
  }
  return null;
}

// The rows of an aggregate that are slices of that depth's names: the aggregate counts every depth
// of the track, so names from enclosing rows (longer than the run) are left out.
function runRows(agg, run) {
  return (agg.rows || []).filter((r) => r.max_us * 1e3 <= run.end - run.start);
}

export function tipText(run, agg) {
  const head = `×${fmtInt(run.count)} slices merged at this zoom · ${fmtDur(run.end - run.start)}`;
  if (!agg) return head;
  const top = runRows(agg, run)
    .slice(0, 3)
    .map((r) => `${inertName(r.name, 80)} ×${fmtInt(r.count)}`);
  return top.length ? `${head}\n${top.join('\n')}\nclick: the whole run` : head;
}

// The drawer's content for a selected run: what it is, its names by total time, and a way in.
export function renderRun(box, run, agg, { onZoom, onShow }) {
  const rows = agg ? runRows(agg, run) : [];
  box.replaceChildren(
    h('h3', { className: 'tl-name' }, `×${fmtInt(run.count)} slices merged at this zoom`),
    h(
      'p',
      { className: 'muted' },
      `${fmtDur(run.end - run.start)} on this row; too small to draw one by one. `,
      h('button', { type: 'button', className: 'button small tl-run-zoom', onclick: onZoom }, 'Zoom in on them'),
    ),
    !agg
      ? h('p', { className: 'muted' }, 'Reading their names…')
      : h(
          'table',
          { className: 'tl-facts tl-run' },
          h('thead', null, h('tr', null, h('th', null, 'Name'), h('th', null, 'Count'), h('th', null, 'Total'))),
          h(
            'tbody',
            null,
            rows.slice(0, 20).map((r) =>
              h(
                'tr',
                null,
                h('td', null, h('button', { type: 'button', className: 'tl-crumb', title: 'Highlight them', onclick: () => onShow(r.name) }, inertName(r.name))),
                h('td', null, fmtInt(r.count)),
                h('td', null, fmtDur(r.total_us * 1e3)),
              ),
            ),
          ),
        ),
  );
}
