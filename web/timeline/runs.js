// Merged boxes (merged.js) as the pointer meets them: a click selects the run (its aggregate in the
// drawer, its range marked), hovering shows a tooltip with its count at once and its top names once
// the worker says them.
import { renderDetails } from './details.js';
import { mergedAt, renderRun, tipText } from './merged.js';
import { hitAt, plotWidth } from './geometry.js';
import { drawerShown, keepInView, showAround } from './viewport.js';
import { requestDraw } from './frames.js';

export async function selectRun(tl, run) {
  const { st, dom } = tl;
  await tl.select(null);
  st.run = run;
  st.mark = { start: run.start, end: run.end };
  const onZoom = () => showAround(tl, run.start, run.end, (run.end - run.start) * 0.1);
  const onShow = (name) => tl.showName(name, { within: [run.start, run.end] });
  const draw = (agg) => {
    renderRun(dom.detailsBox, run, agg, { onZoom, onShow });
    drawerShown(tl, true);
    keepInView(tl, run.track, run.depth); // above the drawer
    requestDraw(tl);
  };
  draw(null);
  const r = await tl.client.request('aggregate', { from: run.start, to: run.end, tracks: [run.track] }).catch(() => null);
  if (st.run !== run) return null;
  st.runAggregate = r ? r.aggregate : null;
  draw(st.runAggregate);
  return st.runAggregate;
}

export function closeRun(tl) {
  const st = tl.st;
  if (!st.run) return;
  Object.assign(st, { run: null, runAggregate: null, mark: null });
  drawerShown(tl, false);
  renderDetails(tl.dom.detailsBox, null, {});
  requestDraw(tl);
}

// The merged box under the pointer, or null.
function runAt(st, x, y) {
  const hit = hitAt(st, x, y);
  if (!hit || !hit.inPlot || hit.lane.kind !== 'track') return null;
  if (hit.depth < 0 || hit.depth >= hit.lane.rows) return null;
  return mergedAt(st, hit.lane, hit.depth, hit.t, (st.view.end - st.view.start) / plotWidth(st));
}

export function hoverAt(tl, x, y, inside) {
  const { st } = tl;
  const tip = tl.dom.tip;
  const hover = tl.hover;
  const run = inside ? runAt(st, x, y) : null;
  if (!run) {
    tip.hidden = true;
    hover.run = null;
    clearTimeout(hover.timer);
    return;
  }
  tip.style.left = `${Math.min(x + 14, st.width - 280)}px`;
  // Below the pointer, or above it near the bottom (the wrap clips what overflows).
  const above = y > st.height - 110;
  tip.style.top = above ? '' : `${y + 16}px`;
  tip.style.bottom = above ? `${st.height - y + 12}px` : '';
  const was = hover.run;
  if (was && was.start === run.start && was.end === run.end && was.track === run.track) return;
  hover.run = run;
  tip.textContent = tipText(run, null);
  tip.hidden = false;
  clearTimeout(hover.timer);
  hover.timer = setTimeout(async () => {
    const r = await tl.client.request('aggregate', { from: run.start, to: run.end, tracks: [run.track] }).catch(() => null);
    if (hover.run === run && r) tip.textContent = tipText(run, r.aggregate);
  }, 150);
}
