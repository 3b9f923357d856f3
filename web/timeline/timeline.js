// The timeline tab: a canvas of tracks grouped by process, drawn on the main thread from answers the
// worker computes in WebAssembly (src/timeline_query: level of detail, layout, details, search,
// aggregates).
//
// createTimeline composes small parts around one hub object `tl`:
//   tl.st     the state: plain data (state.js, with the pure functions that update it)
//   tl.dom    the DOM (toolbar.js); tl.client the worker (client.js)
//   tl.live   what is in flight: visibility, the pending query, promises, frame counters
//   tl.link   the view in the link (sharing.js); tl.hover the merged-box tooltip (runs.js)
// and the controllers, each a module of functions taking `tl`: viewport.js (window, scroll, folds),
// fetch.js (LOD queries), frames.js (drawing: render.js), selection.js (click, details drawer),
// runs.js (merged boxes), area.js (area aggregate), search.js, evidence.js ("show on timeline",
// highlights), sharing.js (links), lifecycle.js (load, show, PNG). input.js turns keys and the
// mouse into the `ctl` calls below. The public API (`api`) is what app.js, ranks/stacked.js, the
// report's "show on timeline" buttons (links.js) and the tests use.
import { TimelineClient } from './client.js';
import { renderDetails } from './details.js';
import { attachInput } from './input.js';
import { LABEL_W, ROW_H, RULER_H } from './layout.js';
import { counterMaxLabel } from './units.js';
import { plotWidth, xOf } from './geometry.js';
import { renderAggregate } from './aggregate.js';
import { createState, memoryOf } from './state.js';
import { buildDom } from './toolbar.js';
import { anchorTime, dragBy, fit, panBy, relayout, reveal, resize, setTheme, setWindow, toggleFolds, zoomAt, clampScroll } from './viewport.js';
import { createStats, requestDraw, settled, takeStats } from './frames.js';
import { clear, clickAt, focus, markRange, select } from './selection.js';
import { closeRun, hoverAt } from './runs.js';
import { aggregateArea, areaCancel, areaEnd, areaStart, areaTo } from './area.js';
import { nextHit, search, wireSearch } from './search.js';
import { setHighlight, showEvidence, showName, showRange } from './evidence.js';
import { createLinkState, followView, shareViewSoon } from './sharing.js';
import { query, queryNeeded } from './fetch.js';
import { loaded, pngProvider, setVisible, show } from './lifecycle.js';
import { onThemeChange, pageTheme, setPageTheme } from '../views/theme.js';

// linked: false for a timeline that is not the page's trace (ranks/stacked.js): no link (sharing.js).
export function createTimeline({ post, section, onShow, linked = true }) {
  const tl = {
    st: createState(pageTheme()),
    client: new TimelineClient(post),
    onShow,
    stats: createStats(),
    live: { visible: false, hasTrace: false, layoutPromise: null, namesPromise: null, inflight: null, framesDrawn: 0, settleWaiters: [], rafPending: false, input: null, forceRaster: false, searchSeq: 0, highlightToken: null },
    link: createLinkState(!linked),
    hover: { run: null, timer: 0 },
    texts: [],
  };
  const st = tl.st;
  tl.dom = buildDom(section, {
    // The whole page's theme (views/theme.js); every timeline follows it below.
    theme: () => setPageTheme(st.theme === 'dark' ? 'light' : 'dark'),
    fit: () => fit(tl),
    sparse: () => {
      st.showSparse = !st.showSparse;
      relayout(tl);
    },
    closeDrawer: () => (st.run ? closeRun(tl) : select(tl, null)),
    nextHit: (dir) => nextHit(tl, dir),
  });
  tl.buckets = { solid: Array.from({ length: st.palette.hues }, () => []), busy: Array.from({ length: st.palette.hues }, () => []), hatch: [] };
  // What controllers call across the hub, not by importing each other: scripts/dist.mjs bundles
  // no import cycle.
  Object.assign(tl, {
    snapshot: () => snapshot(tl),
    select: (slice, opts) => select(tl, slice, opts),
    focus: () => focus(tl),
    showName: (name, opts) => showName(tl, name, opts),
    query: () => query(tl),
    queryNeeded: () => queryNeeded(tl),
    shareViewSoon: () => shareViewSoon(tl),
  });
  tl.png = pngProvider(tl);
  setTheme(tl, st.theme);
  onThemeChange((theme) => setTheme(tl, theme));
  renderDetails(tl.dom.detailsBox, null, {});
  renderAggregate(tl.dom.areaBox, null, {});
  if (typeof ResizeObserver === 'function') new ResizeObserver(() => resize(tl)).observe(tl.dom.wrap);
  wireSearch(tl);
  tl.live.input = attachInput(tl.dom.canvas, controls(tl));
  return { api: publicApi(tl), loaded: (session) => loaded(tl, session), onReply: (m) => tl.client.onReply(m), setVisible: (v) => setVisible(tl, v) };
}

// What input.js drives.
function controls(tl) {
  const st = tl.st;
  return {
    active: () => tl.live.visible && !!st.layout,
    requestDraw: () => requestDraw(tl),
    zoomAtMouse: (f) => zoomAt(tl, anchorTime(tl), f),
    panBy: (f) => panBy(tl, f),
    panPx: (px) => panBy(tl, px / plotWidth(st)),
    scrollBy: (dy) => {
      st.scrollY += dy;
      clampScroll(tl);
      requestDraw(tl);
    },
    dragBy: (dx, dy) => dragBy(tl, dx, dy),
    mouseAt: (x, y, inside) => {
      st.mouse = { x, y, inside };
      if (tl.live.visible) requestDraw(tl);
      hoverAt(tl, x, y, inside);
    },
    clickAt: (x, y) => clickAt(tl, x, y),
    areaStart: (x, y) => areaStart(tl, x, y),
    areaTo: (x, y) => areaTo(tl, x, y),
    areaEnd: (x, y) => areaEnd(tl, x, y),
    areaCancel: () => areaCancel(tl),
    focus: () => focus(tl),
    fit: () => fit(tl),
    markRange: () => markRange(tl),
    toggleFolds: () => toggleFolds(tl),
    nextHit: (dir) => nextHit(tl, dir),
    focusSearch: () => tl.dom.searchInput.focus(),
    clear: () => clear(tl),
  };
}

// state(): what the page and the tests read.
function snapshot(tl) {
  const { st, dom } = tl;
  const run = st.run;
  return {
    start_ns: st.view.start,
    end_ns: st.view.end,
    span_ns: st.layout ? st.layout.span_ns : 0,
    plot_left: LABEL_W,
    plot_width: plotWidth(st),
    selection: st.selection ? st.selection.slice : null,
    details: st.details,
    context: st.selection ? st.context || null : null,
    drawer: !dom.drawer.hidden,
    run: run ? { start_ns: run.start, end_ns: run.end, count: run.count, track: run.track, aggregate: st.runAggregate || null } : null,
    links: st.selection ? st.selection.links : [],
    hits: st.hits ? st.hits.slice.length : 0,
    hit: st.hits && st.hits.current >= 0 ? st.hits.current : null,
    highlight: st.highlight ? { count: st.highlight.slice.length, label: st.highlight.label, slices: [...st.highlight.slice] } : null,
    area: st.area ? { start_ns: st.area.start, end_ns: st.area.end, tracks: st.area.tracks || [] } : null,
    aggregate: st.aggregate,
    mark: st.mark ? { start_ns: st.mark.start, end_ns: st.mark.end } : null,
    theme: st.theme,
    frames: tl.live.framesDrawn,
    scroll_y: st.scrollY,
    ruler_h: RULER_H,
    // The lanes as laid out (y in lane space: the screen's is ruler_h + y - scroll_y).
    hiddenTracks: st.geo ? st.geo.hidden : 0,
    lanes: st.geo ? st.geo.lanes.map((l) => ({ kind: l.kind, key: l.key, y: l.y, h: l.h, closed: !!l.closed, gpu: !!l.group.gpu, folded: l.folded || 0, name: l.kind === 'group' ? l.group.name : l.kind === 'track' ? l.track.name : l.counter.name, ...(l.kind === 'counter' ? { max: counterMaxLabel(l.counter, !!l.group.gpu) } : {}) })) : [],
    layout: st.layout,
  };
}

// Where a slice is on the page (client px), after making its row visible; null if not on screen.
async function locate(tl, slice) {
  const st = tl.st;
  const b = (await tl.client.request('brief', { slice })).brief;
  if (!b) return null;
  reveal(tl, b.track, b.depth);
  await settled(tl);
  const lane = st.geo.trackLane.get(b.track);
  const rect = tl.dom.canvas.getBoundingClientRect();
  const x0 = Math.max(LABEL_W, xOf(st, b.start_ns));
  const x1 = Math.min(st.width, xOf(st, b.start_ns + b.dur_ns));
  const y = RULER_H + lane.rowsTop + b.depth * ROW_H - st.scrollY + ROW_H / 2;
  if (x1 < LABEL_W || x0 > st.width || y < RULER_H || y > st.height) return null;
  return { x: rect.left + (x0 + x1) / 2, y: rect.top + y, brief: b };
}

function publicApi(tl) {
  const { dom } = tl;
  return {
    show: () => show(tl),
    hide: () => setVisible(tl, false),
    visible: () => tl.live.visible,
    settled: () => settled(tl),
    state: () => snapshot(tl),
    setWindow: async (start, end) => {
      setWindow(tl, start, end);
      await settled(tl);
      return snapshot(tl);
    },
    select: (slice) => select(tl, slice, { scroll: true }),
    locate: (slice) => locate(tl, slice),
    search: async (text, { regex = false } = {}) => {
      dom.searchInput.value = text;
      dom.regexBox.checked = regex;
      return search(tl, text, regex);
    },
    nextHit: (dir) => nextHit(tl, dir),
    aggregate: (fromNs, toNs, tracks) => aggregateArea(tl, fromNs, toNs, tracks),
    showRange: (a, b, offsets) => showRange(tl, a, b, offsets),
    showEvidence: (range, opts) => showEvidence(tl, range, opts),
    showName: (name, opts) => showName(tl, name, opts),
    // Outlines the slices (indices, as `selection` and search hits give them) in the highlight
    // color, e.g. a critical path; setHighlight(null) clears it. Resolves to how many were found;
    // state().highlight says {count, label, slices}.
    setHighlight: (slices, { label = '' } = {}) => setHighlight(tl, slices, { label }),
    // The critical path with every edge (worker -> Session.criticalPathJson): the report's window
    // by default, else {annotation, instance} or {whole: true}.
    criticalPath: async (args = {}) => (await tl.client.request('criticalPath', args)).criticalPath,
    theme: (t) => setPageTheme(t),
    followView: (v, source) => followView(tl, v, source, () => show(tl)),
    measureRaster: (on) => {
      tl.live.forceRaster = !!on;
    },
    stats: (reset = false) => takeStats(tl.stats, reset),
    // The timeline's own memory: {page_bytes (lod, hits, highlight), index_bytes (the worker's view
    // index)}; the benchmark reports it (bench/timeline/run.mjs).
    memory: () => memoryOf(tl.st),
  };
}
