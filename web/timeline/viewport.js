// The viewport controller: the canvas's size, the window in time, the vertical scroll, which
// processes are folded, and bringing a slice's row into view. Each function takes the timeline hub
// `tl` (timeline.js: {st, dom, client, live}); the math is in state.js.
import { LABEL_W, ROW_H, RULER_H, buildLanes, foldable } from './layout.js';
import { palette } from './colors.js';
import { plotWidth, timeAt } from './geometry.js';
import { clampScrollY, clampWindow, fitWindow, scrollToShow, traceDomain, zoomWindow } from './state.js';
import { requestDraw } from './frames.js';

export function resize(tl) {
  const { st, dom } = tl;
  const w = Math.max(300, Math.floor(dom.wrap.clientWidth));
  const hgt = Math.max(300, Math.floor(dom.wrap.clientHeight));
  const dpr = window.devicePixelRatio || 1;
  if (w === st.width && hgt === st.height && dpr === st.dpr && dom.canvas.width === Math.round(w * dpr)) return;
  Object.assign(st, { width: w, height: hgt, dpr });
  dom.canvas.width = Math.round(w * dpr);
  dom.canvas.height = Math.round(hgt * dpr);
  dom.canvas.style.width = `${w}px`;
  dom.canvas.style.height = `${hgt}px`;
  clampScroll(tl);
  requestDraw(tl);
}

export function setTheme(tl, theme) {
  tl.st.theme = theme;
  tl.st.palette = palette(theme);
  tl.dom.section.dataset.theme = theme;
  // A symbol, its words in the name and the tooltip: the toolbar keeps to one line at 1024 px.
  const words = theme === 'dark' ? 'Light theme' : 'Dark theme';
  tl.dom.themeButton.textContent = theme === 'dark' ? '\u2600' : '\u263E';
  tl.dom.themeButton.title = words;
  tl.dom.themeButton.setAttribute('aria-label', words);
  requestDraw(tl);
}

export function drawerShown(tl, shown) {
  tl.dom.drawer.hidden = !shown;
  tl.st.occluded = shown ? tl.dom.drawer.offsetHeight : 0;
  clampScroll(tl);
}

// The drawer covers the bottom of the canvas: the tracks under it do not count as in view.
export const viewH = (tl) => tl.st.height - RULER_H - (tl.st.occluded || 0);

export function clampScroll(tl) {
  const st = tl.st;
  st.scrollY = clampScrollY(st.scrollY, st.geo ? st.geo.height : 0, viewH(tl));
}

export function setWindow(tl, start, end) {
  tl.st.view = clampWindow(traceDomain(tl.st), start, end);
  requestDraw(tl);
}

// The window [lo - pad, hi + pad], moved (not narrowed) to lie within the trace where it fits: a
// finding's range at the trace's start, padded, began at -17.6 ms, a time no event has, which the
// ruler and a copied link (t=-17598,...) then showed.
export function showAround(tl, lo, hi, pad) {
  const { start: first, span: total } = traceDomain(tl.st);
  const width = hi - lo + 2 * pad;
  let start = lo - pad;
  if (start + width > first + total) start = first + total - width;
  if (start < first) start = Math.min(first, lo);
  setWindow(tl, start, start + width);
}

export function fit(tl) {
  tl.st.view = fitWindow(traceDomain(tl.st));
  requestDraw(tl);
}

// Where a zoom is anchored: the time under the pointer, else the middle of the window.
export function anchorTime(tl) {
  const { st } = tl;
  const m = st.mouse;
  return m && m.inside && m.x >= LABEL_W ? timeAt(st, m.x) : (st.view.start + st.view.end) / 2;
}

export function zoomAt(tl, t, factor) {
  tl.st.view = zoomWindow(tl.st.view, traceDomain(tl.st), t, factor);
  requestDraw(tl);
}

export function panBy(tl, fraction) {
  const v = tl.st.view;
  const span = v.end - v.start;
  setWindow(tl, v.start + span * fraction, v.end + span * fraction);
}

export function dragBy(tl, dx, dy) {
  const st = tl.st;
  const nsPerPx = (st.view.end - st.view.start) / plotWidth(st);
  st.view = { start: st.view.start - dx * nsPerPx, end: st.view.end - dx * nsPerPx };
  st.scrollY -= dy;
  clampScroll(tl);
  requestDraw(tl);
}

export function relayout(tl) {
  const { st, dom } = tl;
  st.geo = buildLanes(st.layout, st.collapsed, st.showSparse, st.expanded);
  const sparse = st.layout.groups.reduce((a, g) => a + g.tracks.filter((t) => t.sparse).length, 0);
  const b = dom.sparseButton;
  b.hidden = sparse === 0;
  b.textContent = st.showSparse ? `hide ${sparse} sparse track${sparse === 1 ? '' : 's'}` : `${st.geo.hidden} track${st.geo.hidden === 1 ? '' : 's'} hidden · show`;
  b.title = 'Tracks with only one or two instants, or one slice over the whole trace';
  clampScroll(tl);
  requestDraw(tl);
}

// Makes a slice's row visible: unfolds its process (and shows sparse tracks if it is one), and
// scrolls it into the middle third when it is not well in view.
export function reveal(tl, track, depth) {
  const st = tl.st;
  if (!st.layout) return;
  let lane = st.geo.trackLane.get(track);
  if (!lane) {
    const g = st.layout.groups.find((x) => x.tracks.some((t) => t.id === track));
    if (g) {
      st.collapsed.delete(`p${g.process}`);
      if (g.tracks.some((t) => t.id === track && t.sparse)) st.showSparse = true;
      relayout(tl);
      lane = st.geo.trackLane.get(track);
    }
  }
  if (!lane) return;
  if (depth >= lane.rows) {
    // A row of a folded deep thread: the thread unfolds.
    st.expanded.add(track);
    relayout(tl);
    lane = st.geo.trackLane.get(track);
  }
  st.scrollY = scrollToShow(lane.rowsTop + depth * ROW_H, st.scrollY, viewH(tl));
  clampScroll(tl);
}

// The E key: every deep thread shows all its rows, or, when all do already, its top few again
// (a click on one thread's label does the same for that thread, selection.js).
export function toggleFolds(tl) {
  const st = tl.st;
  if (!st.layout) return;
  const deep = st.layout.groups.flatMap((g) => g.tracks).filter(foldable);
  if (!deep.length) return;
  if (deep.every((t) => st.expanded.has(t.id))) for (const t of deep) st.expanded.delete(t.id);
  else for (const t of deep) st.expanded.add(t.id);
  relayout(tl);
}

// As reveal, but scrolls only when the row is out of view (under the drawer, above the top).
export function keepInView(tl, track, depth) {
  const st = tl.st;
  const lane = st.geo && st.geo.trackLane.get(track);
  if (!lane || depth >= lane.rows) return reveal(tl, track, depth);
  const y = lane.rowsTop + depth * ROW_H;
  if (y < st.scrollY || y + ROW_H > st.scrollY + viewH(tl)) reveal(tl, track, depth);
}

// Scrolls so that both slices' rows are in view above the drawer, or `b` alone when they do not fit.
export function revealPair(tl, a, b) {
  const st = tl.st;
  reveal(tl, a.track, a.depth);
  reveal(tl, b.track, b.depth);
  const la = st.geo.trackLane.get(a.track);
  const lb = st.geo.trackLane.get(b.track);
  if (!la || !lb) return;
  const ya = la.rowsTop + a.depth * ROW_H;
  const yb = lb.rowsTop + b.depth * ROW_H;
  const top = Math.min(ya, yb);
  const bottom = Math.max(ya, yb) + ROW_H;
  const room = viewH(tl);
  if (bottom - top > room - ROW_H) return reveal(tl, b.track, b.depth);
  st.scrollY = top - Math.min(3 * ROW_H, (room - (bottom - top)) / 2);
  clampScroll(tl);
  requestDraw(tl);
}

// Brings a slice (a brief) on screen: the window moves to it (or widens to a long one), its row
// into view.
export function centerOn(tl, b) {
  if (!b) return;
  const v = tl.st.view;
  const span = v.end - v.start;
  if (b.dur_ns > span * 0.8) setWindow(tl, b.start_ns - b.dur_ns * 0.1, b.start_ns + b.dur_ns * 1.1);
  else if (b.start_ns + b.dur_ns < v.start || b.start_ns > v.end) setWindow(tl, b.start_ns + b.dur_ns / 2 - span / 2, b.start_ns + b.dur_ns / 2 + span / 2);
  reveal(tl, b.track, b.depth);
  requestDraw(tl);
}
