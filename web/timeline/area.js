// The area selection (Shift+drag): a time range over whole lanes, and the aggregate of the slices in
// it (per name: count, total, self, min, max) in the panel under the canvas.
import { RULER_H, itemsBetween, laneIndexAt } from './layout.js';
import { timeAt } from './geometry.js';
import { renderAggregate } from './aggregate.js';
import { requestDraw } from './frames.js';

// Whole lanes: from the lane under the top edge (lane-space y0) to the one under the bottom (y1).
export function snapToLanes(lanes, y0, y1) {
  const first = lanes[laneIndexAt(lanes, y0)];
  const last = lanes[Math.min(lanes.length - 1, laneIndexAt(lanes, y1))];
  return { y0: first ? first.y : y0, y1: last ? last.y + last.h : y1 };
}

export function areaStart(tl, x, y) {
  const st = tl.st;
  const t = timeAt(st, x);
  const ly = y - RULER_H + st.scrollY;
  st.area = { x0: t, start: t, end: t, ya: ly, y0: ly, y1: ly, done: false };
  requestDraw(tl);
}

export function areaTo(tl, x, y) {
  const st = tl.st;
  if (!st.area) return;
  const t = timeAt(st, x);
  const ly = y - RULER_H + st.scrollY;
  st.area.start = Math.min(st.area.x0, t);
  st.area.end = Math.max(st.area.x0, t);
  st.area.y0 = Math.min(st.area.ya, ly);
  st.area.y1 = Math.max(st.area.ya, ly);
  requestDraw(tl);
}

export async function areaEnd(tl, x, y) {
  areaTo(tl, x, y);
  const a = tl.st.area;
  if (!a) return null;
  const lanes = tl.st.geo.lanes;
  Object.assign(a, snapToLanes(lanes, a.y0, a.y1));
  const items = itemsBetween(lanes, a.y0, a.y1, { withCollapsed: true });
  return aggregateArea(tl, Math.round(a.start), Math.round(a.end), items.tracks);
}

export async function aggregateArea(tl, from, to, tracks) {
  const st = tl.st;
  const a = st.area || { y0: 0, y1: 0 };
  Object.assign(a, { start: from, end: to, tracks, done: true });
  st.area = a;
  requestDraw(tl);
  const r = await tl.client.request('aggregate', { from, to, tracks });
  if (st.area !== a) return null;
  st.aggregate = r.aggregate;
  renderAggregate(tl.dom.areaBox, r.aggregate, { onShow: (name) => tl.showName(name, { within: [from, to] }) });
  return r.aggregate;
}

export function areaCancel(tl) {
  tl.st.area = null;
  tl.st.aggregate = null;
  renderAggregate(tl.dom.areaBox, null, {});
  requestDraw(tl);
}
