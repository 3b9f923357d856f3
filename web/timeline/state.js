// The timeline's state: plain data and the small pure functions that update it or answer questions
// about it (the window in time, scrolling, when to ask the worker again, search hits). Nothing here
// touches the DOM, the canvas or the worker, so each piece is tested alone in Node
// (tests/web/timeline_state.test.mjs); the controllers (viewport.js, fetch.js, selection.js, ...)
// call these and draw.
import { hueIndex, palette } from './colors.js';

export const MIN_SPAN_NS = 50;

export function createState(theme) {
  const st = {
    theme,
    palette: palette(theme),
    width: 800,
    height: 480,
    dpr: 1,
    view: { start: 0, end: 1 },
    scrollY: 0,
    occluded: 0, // px of the canvas under the details drawer
    layout: null,
    geo: null,
    collapsed: new Set(),
    expanded: new Set(), // deep CPU threads shown with all their rows (layout.js FOLD_ROWS)
    showSparse: false, // sparse tracks (layout.js) are hidden until the toolbar's control shows them
    data: null,
    names: new Map(),
    hues: new Map(),
    hueOf: null,
    selection: null,
    details: null,
    context: null,
    run: null, // a selected merged box (merged.js)
    runAggregate: null,
    hits: null,
    hitsLabel: '',
    highlight: null, // setHighlight(): columns as hits, plus label
    area: null,
    aggregate: null,
    mark: null,
    mouse: null,
  };
  st.hueOf = (id) => {
    let hue = st.hues.get(id);
    if (hue === undefined) {
      const name = st.names.get(id);
      hue = hueIndex(name === undefined ? '' : name);
      if (name !== undefined) st.hues.set(id, hue);
    }
    return hue;
  };
  return st;
}

// The trace's length in ns (at least 1).
export const totalSpan = (st) => (st.layout ? Math.max(st.layout.span_ns, 1) : 1);

// Where the trace lies in the view's time: [start, start + span). Times count from the trace's
// time zero (layout.time_zero): its first event, so start is 0, or an Nsight Systems session's
// start, where the first event comes later (or earlier: ranges opened before the capture).
export const traceDomain = (st) => ({ start: (st.layout && st.layout.start_ns) || 0, span: totalSpan(st) });

// The window [start, end) kept sane: at least MIN_SPAN_NS, at most 4x the trace, some of the trace
// on screen.
export function clampWindow(dom, start, end) {
  const { start: lo, span: total } = dom;
  // A window that is no number (an infinite range from a crafted link) shows the whole trace.
  if (!Number.isFinite(start) || !Number.isFinite(end)) return clampWindow(dom, lo - total * 0.01, lo + total * 1.01);
  let span = Math.max(MIN_SPAN_NS, end - start);
  span = Math.min(span, total * 4);
  let s = (start + end) / 2 - span / 2;
  s = Math.min(Math.max(s, lo - span * 0.9), lo + total - span * 0.1);
  return { start: s, end: s + span };
}

// The whole trace with 1% on each side.
export function fitWindow(dom) {
  const { start: lo, span: total } = dom;
  return clampWindow(dom, lo - total * 0.01, lo + total * 1.01);
}

// Zooms by `factor` (< 1 in) keeping time `t` where it is on screen.
export function zoomWindow(view, dom, t, factor) {
  const total = dom.span;
  const span = view.end - view.start;
  const next = Math.min(total * 4, Math.max(MIN_SPAN_NS, span * factor));
  const start = t - (t - view.start) * (next / span);
  return { start, end: start + next };
}

// Scroll position kept within the lanes: `contentH` of lanes in `viewH` px of view.
export const clampScrollY = (y, contentH, viewH) => Math.min(Math.max(0, contentH - viewH), Math.max(0, y));

// The scroll that brings a row at lane-space `y` into the middle third, or `scrollY` if it is
// already well inside (10%..80% of the view).
export function scrollToShow(y, scrollY, viewH) {
  return y < scrollY + viewH * 0.1 || y > scrollY + viewH * 0.8 ? y - viewH / 3 : scrollY;
}

// Whether the last answer `d` cannot draw `view`: it is near or past the fetched window's edge,
// its scale is 1.5x off, or lanes on screen (`items`) are not in it.
export function needsQuery(d, view, dom, plotW, items) {
  if (!d) return true;
  const { start: lo, span: total } = dom;
  const span = view.end - view.start;
  if (view.start < d.winStart || view.end > d.winEnd) return true;
  if (view.start - d.winStart < span * 0.25 && d.winStart > lo - span) return true;
  if (d.winEnd - view.end < span * 0.25 && d.winEnd < lo + total + span) return true;
  const nsPerPx = span / plotW;
  // Against the scale asked for (the answer's pixelNs is rounded up to whole ns).
  if (nsPerPx > d.nsPerPx * 1.5 || (nsPerPx * 1.5 < d.nsPerPx && d.pixelNs > 1)) return true;
  for (const t of items.tracks) if (!d.trackSet.has(t)) return true;
  for (const c of items.counters) if (!d.counterSet.has(c)) return true;
  return false;
}

// Runs of equal keys in a sorted column: key -> [from, to).
function ranges(keys) {
  const m = new Map();
  for (let k = 0, n = keys.length; k < n; ) {
    let j = k + 1;
    while (j < n && keys[j] === keys[k]) j++;
    m.set(keys[k], [k, j]);
    k = j;
  }
  return m;
}

// Indexes an answer of the LOD query for drawing: its rows per track ([depth, from, to]), counter
// series and instant rows as ranges, and each rectangle's hue (once per answer, not per frame).
export function indexRows(d, hueOf) {
  d.rows = new Map();
  for (let k = 0, n = d.start.length; k < n; ) {
    const t = d.track[k];
    const dep = d.depth[k];
    let j = k + 1;
    while (j < n && d.track[j] === t && d.depth[j] === dep) j++;
    if (!d.rows.has(t)) d.rows.set(t, []);
    d.rows.get(t).push([dep, k, j]);
    k = j;
  }
  d.series = ranges(d.cSeries);
  d.instRows = ranges(d.iTrack);
  d.hue = new Uint8Array(d.start.length);
  for (let k = 0; k < d.hue.length; k++) d.hue[k] = hueOf(d.name[k]);
  return d;
}

export const HIT_COLUMNS = ['slice', 'start', 'end', 'track', 'depth'];

export function emptyColumns() {
  return { slice: new Int32Array(0), start: new Float64Array(0), end: new Float64Array(0), track: new Uint32Array(0), depth: new Uint32Array(0) };
}

// Columns (as search answers) from slice briefs, by start time.
export function columnsFromBriefs(briefs) {
  const b = [...briefs].sort((x, y) => x.start_ns - y.start_ns);
  return {
    slice: Int32Array.from(b, (x) => x.slice),
    start: Float64Array.from(b, (x) => x.start_ns),
    end: Float64Array.from(b, (x) => x.start_ns + x.dur_ns),
    track: Uint32Array.from(b, (x) => x.track),
    depth: Uint32Array.from(b, (x) => x.depth),
  };
}

// Search hits (or a highlight) from columns: their longest duration (drawing starts that far left
// of the window) and no current hit.
export function hitsFrom(cols) {
  if (!cols) return null;
  let maxDur = 0;
  for (let k = 0; k < cols.slice.length; k++) maxDur = Math.max(maxDur, cols.end[k] - cols.start[k]);
  return { ...cols, maxDur, current: -1 };
}

// The hit N / Shift+N goes to: the next (dir 1) or previous (-1) after the current one, else the
// first starting at or after `center` (or the one before it), wrapping around.
export function nextHitIndex(hs, dir, center, lowerBound) {
  const n = hs.slice.length;
  if (hs.current >= 0) return (hs.current + dir + n) % n;
  let i = lowerBound(hs.start, 0, n, center);
  if (dir < 0) i -= 1;
  return ((i % n) + n) % n;
}

// "12 matches · 3 names", "1 of 12 · …": the count beside the search box.
export function hitCountText(hs, label) {
  if (!hs) return '';
  const n = hs.slice.length;
  const tail = label ? ` · ${label}` : '';
  if (hs.current >= 0) return `${hs.current + 1} of ${n.toLocaleString('en-US')}${tail}`;
  return `${n.toLocaleString('en-US')} ${n === 1 ? 'match' : 'matches'}${tail}`;
}

// A test on {name, lower} for the search box's text: a case-blind substring, or a regular
// expression (case-blind); throws SyntaxError for a bad one.
export function nameMatcher(text, regex) {
  if (regex) {
    const re = new RegExp(text, 'i');
    return (n) => re.test(n.name);
  }
  const q = text.toLowerCase();
  return (n) => n.lower.includes(q);
}

// The timeline's own memory, in bytes: on the page, the columns of the last LOD answer, the search
// hits and the highlight (typed arrays; the maps and lanes around them are small beside them); in the
// worker, the view index over the model (the layout's index_bytes, src/timeline_query/view_index.h).
export function memoryOf(st) {
  const columns = (o) => (o ? Object.values(o).reduce((a, v) => a + (ArrayBuffer.isView(v) ? v.byteLength : 0), 0) : 0);
  const page = { lod: columns(st.data), hits: columns(st.hits), highlight: columns(st.highlight) };
  return { page_bytes: page.lod + page.hits + page.highlight, ...Object.fromEntries(Object.entries(page).map(([k, v]) => [`${k}_bytes`, v])), index_bytes: st.layout && Number.isFinite(st.layout.index_bytes) ? st.layout.index_bytes : null };
}
