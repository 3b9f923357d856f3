// Coordinates of the timeline (pure functions of the state; no canvas): trace time (ns from the
// first event), CSS pixels on the canvas, and lane space (y from the top of the first lane, before
// scrolling). Shared by drawing (render.js), the controllers, and hit testing (hitAt: what is under a point).
import { LABEL_W, ROW_H, RULER_H, laneIndexAt } from './layout.js';

// First index in [from, to) of a sorted Float64Array with value >= x.
export function lowerBound(arr, from, to, x) {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function plotWidth(st) {
  return Math.max(1, st.width - LABEL_W);
}

export function xOf(st, t) {
  return LABEL_W + ((t - st.view.start) * plotWidth(st)) / (st.view.end - st.view.start);
}

export function timeAt(st, x) {
  return st.view.start + ((x - LABEL_W) * (st.view.end - st.view.start)) / plotWidth(st);
}

// Screen y (CSS px) of a lane-space y.
export function screenY(st, y) {
  return RULER_H + y - st.scrollY;
}

// Screen rectangle of a slice row, or null when the track is not laid out (collapsed) or the row is
// folded away (a deep thread's rows below its first few).
export function rowY(st, track, depth) {
  const lane = st.geo.trackLane.get(track);
  if (!lane || depth >= lane.rows) return null;
  return screenY(st, lane.rowsTop + depth * ROW_H);
}

// The average character width of FONT, measured once: text is cut by it, with no measureText per

// What is under the point (x, y) in CSS px of the canvas: null above the lanes or below the last;
// else {lane, ly (lane-space y), depth (the row, for a track lane; may be out of its rows), t}.
export function hitAt(st, x, y) {
  if (!st.geo || y < RULER_H) return null;
  const ly = y - RULER_H + st.scrollY;
  const lane = st.geo.lanes[laneIndexAt(st.geo.lanes, ly)];
  if (!lane || ly < lane.y) return null;
  const depth = lane.kind === 'track' ? Math.floor((ly - lane.rowsTop) / ROW_H) : -1;
  return { lane, ly, depth, t: timeAt(st, x), inPlot: x >= LABEL_W };
}
