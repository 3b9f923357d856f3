// The vertical layout of the timeline (no canvas here): the worker's track list (grouped by process,
// already in drawing order) becomes lanes with a y offset in CSS pixels. A group header lane, then
// per track one lane whose slice rows are `ROW_H` tall (depth 0 on top, a strip for instants above
// when the track has any), then one lane per counter series. Collapsed groups keep only their header.
// Empty tracks (no slices, no instants) get no lane, and a process with nothing to draw no header.
// Sparse tracks (the worker marks them from the data: one or two instants, or a single slice over
// the whole trace, as Kineto's "Spans"/"Traces" lanes) are hidden unless `showSparse`; `hidden`
// counts them for the "N tracks hidden · show" control.
// GPU processes come first (the worker orders CPU first, as Kineto's sort indices do): users read the
// GPU's streams first, and the CPU thread that launched the work right under them. A CPU thread
// deeper than FOLD_ROWS (a Python stack of ten rows fills the first screen) shows its top
// FOLDED_ROWS rows until `expanded` has its id; its lane's `folded` counts the rows not shown, and
// its label is the control that unfolds it (selection.js).

import { distinctTail } from './text.js';
export const RULER_H = 28;
export const GROUP_H = 22;
export const ROW_H = 18;
export const INSTANT_H = 10;
export const TRACK_PAD = 3;
export const COUNTER_H = 42;
export const LABEL_W = 210;
export const FOLD_ROWS = 4;
export const FOLDED_ROWS = 3;

// Whether a track folds: a thread (not a GPU stream) deeper than FOLD_ROWS. Kineto puts some CPU
// threads (a tqdm monitor's Python stack) under the GPU's pid, so this goes by the track's kind.
export const foldable = (track) => track.kind !== 'stream' && track.rows > FOLD_ROWS;

// The rows a track lane shows: all, or the top FOLDED_ROWS of a deep thread not expanded.
export function shownRows(track, expanded) {
  return foldable(track) && !(expanded && expanded.has(track.id)) ? FOLDED_ROWS : track.rows;
}

export function buildLanes(layout, collapsed, showSparse = false, expanded = null) {
  const lanes = [];
  const trackLane = new Map(); // track id -> lane
  let y = 0;
  let hidden = 0;
  const groups = [...layout.groups.filter((g) => g.gpu), ...layout.groups.filter((g) => !g.gpu)];
  for (const g of groups) {
    // Tracks with nothing to draw (a thread named in metadata only) are left out: clutter.
    const drawable = g.tracks.filter((t) => t.rows > 0 || t.instants);
    const shown = showSparse ? drawable : drawable.filter((t) => !t.sparse);
    hidden += drawable.length - shown.length;
    if (!shown.length && !g.counters.length) continue;
    const key = `p${g.process}`;
    const closed = collapsed.has(key);
    lanes.push({ kind: 'group', key, y, h: GROUP_H, group: g, closed });
    y += GROUP_H;
    if (closed) continue;
    // In a GPU process, its streams before any CPU thread filed under the same pid.
    if (g.gpu) shown.sort((a, b) => (a.kind === 'stream' ? 0 : 1) - (b.kind === 'stream' ? 0 : 1));
    shown.forEach((t, i) => {
      const instantH = t.instants ? INSTANT_H : 0;
      const rows = shownRows(t, expanded);
      const h = TRACK_PAD * 2 + instantH + Math.max(1, rows) * ROW_H;
      // What tells its label from its neighbours' (an export thread's rows share the thread's name).
      const tail = distinctTail(t.name, shown[i - 1] && shown[i - 1].name, shown[i + 1] && shown[i + 1].name);
      const lane = { kind: 'track', key: `t${t.id}`, y, h, group: g, track: t, rowsTop: y + TRACK_PAD + instantH, rows, folded: t.rows - rows, tail };
      lanes.push(lane);
      trackLane.set(t.id, lane);
      y += h;
    });
    for (const c of g.counters) {
      lanes.push({ kind: 'counter', key: `c${c.id}`, y, h: COUNTER_H, group: g, counter: c });
      y += COUNTER_H;
    }
  }
  return { lanes, trackLane, height: y, hidden };
}

// The first lane whose bottom is below `y` (binary search: lanes are in y order).
export function laneIndexAt(lanes, y) {
  let lo = 0;
  let hi = lanes.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (lanes[mid].y + lanes[mid].h <= y) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Track ids and counter ids of the lanes within [top, bottom), and the tracks of collapsed groups
// there (an area selection over a collapsed group takes all its tracks).
export function itemsBetween(lanes, top, bottom, { withCollapsed = false } = {}) {
  const tracks = [];
  const counters = [];
  for (let i = laneIndexAt(lanes, top); i < lanes.length && lanes[i].y < bottom; i++) {
    const l = lanes[i];
    if (l.kind === 'track') tracks.push(l.track.id);
    else if (l.kind === 'counter') counters.push(l.counter.id);
    else if (withCollapsed && l.closed) for (const t of l.group.tracks) tracks.push(t.id);
  }
  return { tracks, counters };
}
