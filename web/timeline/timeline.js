// The timeline tab: a canvas of tracks grouped by process, drawn on the main thread from answers the
// worker computes in WebAssembly (src/view: level of detail, layout, details, search, aggregates).
// This module owns the state and the DOM around the canvas (toolbar, details panel, area table);
// render.js draws, input.js turns keys and the mouse into the calls below, client.js talks to the
// worker.
//
// Fetching: each query asks for the visible window plus one window on each side, at three times the
// plot's pixel width, for the lanes on screen plus one screen above and below. Frames draw from the
// last answer, so panning and zooming need no round trip; a new query goes out (one at a time) when
// the view nears the edge of what was fetched, the zoom moved 1.5x away from the answer's pixel
// size, or lanes come into view that it does not cover.
import { h } from '../views/dom.js';
import { inertName } from '../views/inert.js';
import { hueIndex, palette } from './colors.js';
import { TimelineClient } from './client.js';
import { renderDetails } from './details.js';
import { sliceContext } from './context.js';
import { mergedAt, renderRun, tipText } from './merged.js';
import { attachInput } from './input.js';
import { GROUP_H, LABEL_W, ROW_H, RULER_H, buildLanes, itemsBetween, laneIndexAt } from './layout.js';
import { drawFrame, lowerBound, plotWidth, timeAt, xOf } from './render.js';
import { renderAggregate } from './aggregate.js';
import { fmtDur } from './units.js';

const MIN_SPAN_NS = 50;
const STATS_MAX = 20000;

export function createTimeline({ post, section, onShow }) {
  const client = new TimelineClient(post);
  const prefersDark = typeof matchMedia === 'function' && matchMedia('(prefers-color-scheme: dark)').matches;
  const st = {
    theme: prefersDark ? 'dark' : 'light',
    palette: null,
    width: 800,
    height: 480,
    dpr: 1,
    view: { start: 0, end: 1 },
    scrollY: 0,
    layout: null,
    geo: null,
    collapsed: new Set(),
    showSparse: false, // sparse tracks (layout.js) are hidden until the toolbar's control shows them
    data: null,
    names: new Map(),
    hues: new Map(),
    hueOf: null,
    selection: null,
    details: null,
    hits: null,
    hitsLabel: '',
    area: null,
    aggregate: null,
    mark: null,
    mouse: null,
  };
  st.palette = palette(st.theme);
  st.hueOf = (id) => {
    let hue = st.hues.get(id);
    if (hue === undefined) {
      const name = st.names.get(id);
      hue = hueIndex(name === undefined ? '' : name);
      if (name !== undefined) st.hues.set(id, hue);
    }
    return hue;
  };
  const stats = { draws: [], intervals: [], queries: [], lastFrame: 0 };
  let visible = false;
  let layoutPromise = null;
  let namesPromise = null;
  let inflight = null;
  let framesDrawn = 0;
  let settleWaiters = [];
  let pendingRange = null; // a `t` range from a link, applied once the layout is in
  let rafPending = false;
  let input = null;
  let forceRaster = false;

  // --- DOM ----------------------------------------------------------------------------------------
  const canvas = h('canvas', { className: 'tl-canvas', tabindex: '0', 'aria-label': 'Timeline: W/S zoom, A/D pan, click a slice for details', dataset: { kinetoscopeTimeline: '' } });
  const wrap = h('div', { className: 'tl-canvas-wrap' }, canvas);
  const searchInput = h('input', { type: 'search', className: 'tl-search', placeholder: 'Search slices by name…', 'aria-label': 'Search slices by name' });
  const regexBox = h('input', { type: 'checkbox', className: 'tl-regex' });
  const hitCount = h('span', { className: 'muted tl-hitcount', 'aria-live': 'polite' });
  const themeButton = h('button', { type: 'button', className: 'button tl-theme' }, '');
  const fitButton = h('button', { type: 'button', className: 'button', title: 'Fit the whole trace (0)' }, 'Fit');
  const status = h('span', { className: 'muted tl-status' });
  // "N tracks hidden · show": lanes with nothing worth drawing (the worker decides from the data)
  // stay out of the way, and one click brings them back (issue 18, item 7).
  const sparseButton = h('button', { type: 'button', className: 'button tl-sparse', hidden: true, onclick: () => { st.showSparse = !st.showSparse; relayout(); } }, '');
  const detailsBox = h('div', { className: 'tl-details' });
  // The selected slice's details open in a drawer over the bottom of the canvas, where the eye
  // is (issue 18, item 1); the wheel over it scrolls it, not the tracks.
  const drawerClose = h('button', { type: 'button', className: 'tl-drawer-close', title: 'Close (Esc)', 'aria-label': 'Close the details' }, '×');
  const drawer = h('aside', { className: 'tl-drawer', hidden: true, 'aria-label': 'Selected slice' }, drawerClose, detailsBox);
  const areaBox = h('div', { className: 'tl-area' });
  const toolbar = h(
    'div',
    { className: 'tl-toolbar' },
    searchInput,
    h('label', { className: 'tl-regex-label' }, regexBox, ' regex'),
    h('button', { type: 'button', className: 'button tl-prev', title: 'Previous match (Shift+N)', onclick: () => nextHit(-1) }, '◀'),
    h('button', { type: 'button', className: 'button tl-next', title: 'Next match (N)', onclick: () => nextHit(1) }, '▶'),
    hitCount,
    h('span', { className: 'tl-spacer' }),
    status,
    sparseButton,
    fitButton,
    themeButton,
  );
  const help = h('p', { className: 'muted tl-help' }, 'W/S zoom · A/D pan · wheel scrolls, Ctrl+wheel zooms · drag pans · Shift+drag selects an area · click a slice for details · F focus · 0 fit · M mark a range · N next match · / search');
  section.replaceChildren(
    h('h2', null, 'Timeline'),
    toolbar,
    wrap,
    help,
    h('div', { className: 'tl-panels' }, h('div', { className: 'tl-panel' }, h('h3', { className: 'sub' }, 'Area selection'), areaBox)),
  );
  wrap.append(drawer);
  drawerClose.addEventListener('click', () => (st.run ? closeRun() : select(null)));
  const ctx = canvas.getContext('2d', { alpha: false });
  const buckets = { solid: Array.from({ length: st.palette.hues }, () => []), busy: Array.from({ length: st.palette.hues }, () => []), hatch: [] };
  const texts = [];

  function setTheme(theme) {
    st.theme = theme;
    st.palette = palette(theme);
    section.dataset.theme = theme;
    themeButton.textContent = theme === 'dark' ? 'Light theme' : 'Dark theme';
    requestDraw();
  }
  themeButton.addEventListener('click', () => setTheme(st.theme === 'dark' ? 'light' : 'dark'));
  fitButton.addEventListener('click', () => fit());
  setTheme(st.theme);
  renderDetails(detailsBox, null, {});
  renderAggregate(areaBox, null, {});

  // --- geometry -----------------------------------------------------------------------------------
  function resize() {
    const w = Math.max(300, Math.floor(wrap.clientWidth));
    const hgt = Math.max(300, Math.floor(wrap.clientHeight));
    const dpr = window.devicePixelRatio || 1;
    if (w === st.width && hgt === st.height && dpr === st.dpr && canvas.width === Math.round(w * dpr)) return;
    st.width = w;
    st.height = hgt;
    st.dpr = dpr;
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(hgt * dpr);
    canvas.style.width = `${w}px`;
    canvas.style.height = `${hgt}px`;
    clampScroll();
    requestDraw();
  }
  if (typeof ResizeObserver === 'function') new ResizeObserver(resize).observe(wrap);
  function drawerShown(shown) {
    drawer.hidden = !shown;
    st.occluded = shown ? drawer.offsetHeight : 0;
    clampScroll();
  }

  // The drawer covers the bottom of the canvas: the tracks under it do not count as in view.
  const viewH = () => st.height - RULER_H - (st.occluded || 0);
  function clampScroll() {
    const max = st.geo ? Math.max(0, st.geo.height - viewH()) : 0;
    st.scrollY = Math.min(max, Math.max(0, st.scrollY));
  }
  function setWindow(start, end) {
    const total = st.layout ? Math.max(st.layout.span_ns, 1) : 1;
    let span = Math.max(MIN_SPAN_NS, end - start);
    span = Math.min(span, total * 4);
    let s = (start + end) / 2 - span / 2;
    // Keep some of the trace on screen.
    s = Math.min(Math.max(s, -span * 0.9), total - span * 0.1);
    st.view = { start: s, end: s + span };
    requestDraw();
  }
  function fit() {
    const total = st.layout ? Math.max(st.layout.span_ns, 1) : 1;
    setWindow(-total * 0.01, total * 1.01);
  }
  function anchorTime() {
    const m = st.mouse;
    return m && m.inside && m.x >= LABEL_W ? timeAt(st, m.x) : (st.view.start + st.view.end) / 2;
  }
  function zoomAt(t, factor) {
    const span = st.view.end - st.view.start;
    const total = st.layout ? Math.max(st.layout.span_ns, 1) : 1;
    const next = Math.min(total * 4, Math.max(MIN_SPAN_NS, span * factor));
    const k = next / span;
    const start = t - (t - st.view.start) * k;
    st.view = { start, end: start + next };
    requestDraw();
  }
  function panBy(fraction) {
    const span = st.view.end - st.view.start;
    setWindow(st.view.start + span * fraction, st.view.end + span * fraction);
  }

  // Makes a slice's row visible: unfolds its process and scrolls it into the middle third.
  // Scrolls only when the row is out of view (under the drawer, above the top).
  function keepInView(track, depth) {
    const lane = st.geo && st.geo.trackLane.get(track);
    if (!lane) return reveal(track, depth);
    const y = lane.rowsTop + depth * ROW_H;
    if (y < st.scrollY || y + ROW_H > st.scrollY + viewH()) reveal(track, depth);
  }
  function reveal(track, depth) {
    if (!st.layout) return;
    let lane = st.geo.trackLane.get(track);
    if (!lane) {
      const g = st.layout.groups.find((x) => x.tracks.some((t) => t.id === track));
      if (g) {
        st.collapsed.delete(`p${g.process}`);
        if (g.tracks.some((t) => t.id === track && t.sparse)) st.showSparse = true;
        relayout();
        lane = st.geo.trackLane.get(track);
      }
    }
    if (!lane) return;
    const y = lane.rowsTop + depth * ROW_H;
    if (y < st.scrollY + viewH() * 0.1 || y > st.scrollY + viewH() * 0.8) st.scrollY = y - viewH() / 3;
    clampScroll();
  }
  function relayout() {
    st.geo = buildLanes(st.layout, st.collapsed, st.showSparse);
    const sparse = st.layout.groups.reduce((a, g) => a + g.tracks.filter((t) => t.sparse).length, 0);
    sparseButton.hidden = sparse === 0;
    sparseButton.textContent = st.showSparse ? `hide ${sparse} sparse track${sparse === 1 ? '' : 's'}` : `${st.geo.hidden} track${st.geo.hidden === 1 ? '' : 's'} hidden · show`;
    sparseButton.title = 'Tracks with only one or two instants, or one slice over the whole trace';
    clampScroll();
    requestDraw();
  }

  // --- worker queries -----------------------------------------------------------------------------
  function visibleItems(margin) {
    return itemsBetween(st.geo.lanes, st.scrollY - margin, st.scrollY + viewH() + margin);
  }
  function needsQuery() {
    const d = st.data;
    if (!d) return true;
    const span = st.view.end - st.view.start;
    const total = st.layout.span_ns;
    if (st.view.start < d.winStart || st.view.end > d.winEnd) return true;
    if (st.view.start - d.winStart < span * 0.25 && d.winStart > -span) return true;
    if (d.winEnd - st.view.end < span * 0.25 && d.winEnd < total + span) return true;
    const nsPerPx = span / plotWidth(st);
    // Against the scale asked for (the answer's pixelNs is rounded up to whole ns).
    if (nsPerPx > d.nsPerPx * 1.5 || (nsPerPx * 1.5 < d.nsPerPx && d.pixelNs > 1)) return true;
    const items = visibleItems(0);
    for (const t of items.tracks) if (!d.trackSet.has(t)) return true;
    for (const c of items.counters) if (!d.counterSet.has(c)) return true;
    return false;
  }
  function indexRows(d) {
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
    const ranges = (keys) => {
      const m = new Map();
      for (let k = 0, n = keys.length; k < n; ) {
        let j = k + 1;
        while (j < n && keys[j] === keys[k]) j++;
        m.set(keys[k], [k, j]);
        k = j;
      }
      return m;
    };
    d.series = ranges(d.cSeries);
    d.instRows = ranges(d.iTrack);
    // Each rectangle's color, once per answer rather than a map lookup per rectangle per frame.
    d.hue = new Uint8Array(d.start.length);
    for (let k = 0; k < d.hue.length; k++) d.hue[k] = st.hueOf(d.name[k]);
  }
  async function query() {
    if (inflight || !visible || !st.layout || !needsQuery()) return;
    const span = st.view.end - st.view.start;
    const items = visibleItems(viewH());
    const q = {
      start: Math.floor(st.view.start - span),
      end: Math.ceil(st.view.end + span),
      pixels: Math.max(1, Math.round(plotWidth(st) * 3)),
      tracks: items.tracks,
      counters: items.counters,
    };
    const session = client.session;
    const t0 = performance.now();
    inflight = client.request('query', q);
    try {
      const r = await inflight;
      if (session !== client.session) return;
      // Names are drawn as inert text: controls escaped, long ones cut (views/inert.js).
      for (const [id, name] of Object.entries(r.names)) st.names.set(Number(id), inertName(name));
      // r.start/r.end are the rectangles' columns; the window fetched is winStart/winEnd.
      const d = { ...r, winStart: q.start, winEnd: q.end, nsPerPx: (q.end - q.start) / q.pixels, trackSet: new Set(q.tracks), counterSet: new Set(q.counters) };
      indexRows(d);
      st.data = d;
      stats.queries.push({ ms: r.ms, roundtrip: performance.now() - t0, searches: r.searches, rects: r.start.length, pixels: q.pixels });
      if (stats.queries.length > STATS_MAX) stats.queries.shift();
    } catch (e) {
      if (e.code !== 'stale') status.textContent = `Query failed: ${e.message}`;
    } finally {
      inflight = null;
      requestDraw();
    }
  }

  // --- frames -------------------------------------------------------------------------------------
  function requestDraw() {
    if (rafPending || !visible) return;
    rafPending = true;
    requestAnimationFrame(frame);
  }
  function frame(now) {
    rafPending = false;
    if (!visible) return;
    const moving = input ? input.animate(now) : false;
    const t0 = performance.now();
    drawFrame(ctx, st, buckets, texts);
    // Benchmarks: read a pixel back so the frame's rasterization is inside the measured time.
    if (forceRaster) ctx.getImageData(0, 0, 1, 1);
    const t1 = performance.now();
    if (stats.lastFrame) stats.intervals.push(now - stats.lastFrame);
    stats.lastFrame = now;
    stats.draws.push(t1 - t0);
    if (stats.draws.length > STATS_MAX) stats.draws.shift();
    if (stats.intervals.length > STATS_MAX) stats.intervals.shift();
    framesDrawn++;
    query();
    if (moving) requestDraw();
    else stats.lastFrame = 0;
    shareViewSoon();
    if (!inflight && !moving && st.layout && !needsQuery()) {
      const waiters = settleWaiters;
      settleWaiters = [];
      for (const w of waiters) w();
    }
  }

  // --- the view in the link (web/share/view.js) -----------------------------------------------------
  let shareTimer = 0;
  let written = null; // the last `t` this timeline wrote, in µs
  function shareViewSoon() {
    clearTimeout(shareTimer);
    shareTimer = setTimeout(() => {
      const k = window.kinetoscope;
      if (!visible || !st.layout || !k || typeof k.setView !== 'function') return;
      const t = [st.view.start / 1e3, st.view.end / 1e3].map((x) => Math.round(x * 1000) / 1000);
      try {
        written = t;
        k.setView({ t }, 'timeline');
      } catch {
        /* a view the sharing module refuses is not worth an error here */
      }
    }, 400);
  }
  // The selected slice in the link (`s`, its event's byte offset) and the tab (`v`): written
  // quietly on each selection (select()); a link that has them opens the Timeline on that slice.
  let writtenSlice = null;
  function shareSelection(d) {
    const k = window.kinetoscope;
    if (!k || typeof k.setView !== 'function') return;
    const s = d && Number.isInteger(d.file_offset) && d.file_offset >= 0 ? d.file_offset : null;
    writtenSlice = s;
    try {
      k.setView({ s }, 'timeline', { quiet: true });
    } catch {
      /* as above */
    }
  }
  async function applyPendingSlice() {
    const offset = pendingSlice;
    pendingSlice = null;
    if (offset === null) return;
    const r = await client.request('offsets', { offsets: [offset] }).catch(() => null);
    const slice = r && r.slices && r.slices[0] >= 0 ? r.slices[0] : -1;
    if (slice < 0) {
      status.textContent = `The linked slice (byte ${offset} of the file) is not in this trace.`;
      return;
    }
    const hadRange = !!pendingRange || linkedRange;
    await select(slice, { scroll: true });
    if (!hadRange) focus(); // no range in the link: zoom to the slice
    requestDraw();
  }
  let pendingSlice = null;
  let linkedRange = false;
  function followView(v, source) {
    if (source === 'timeline' || !v) return;
    const fromLink = source === 'url' || source === 'load';
    const ownSlice = source === 'load' && v.s !== undefined && v.s === writtenSlice;
    if (fromLink && v.s !== undefined && !ownSlice) pendingSlice = v.s;
    if (v.t) {
      // A range this timeline wrote while showing the previous trace is not a link to the next one:
      // a newly loaded trace opens fitted, unless the range came from the link or was edited.
      if (!(source === 'load' && written && v.t[0] === written[0] && v.t[1] === written[1])) {
        pendingRange = [v.t[0] * 1e3, v.t[1] * 1e3];
        linkedRange = true;
        if (st.layout) applyPendingRange();
      }
    }
    if (fromLink && v.v === 'timeline' && !ownSlice && !(source === 'load' && written && v.t && v.t[0] === written[0])) {
      show().then(() => applyPendingSlice(), () => {});
    } else if (pendingSlice !== null && st.layout) applyPendingSlice();
  }
  function applyPendingRange() {
    if (!pendingRange) return;
    setWindow(pendingRange[0], pendingRange[1]);
    pendingRange = null;
  }

  // --- selection, search, area --------------------------------------------------------------------
  async function select(slice, { scroll = false } = {}) {
    if (st.run) {
      st.run = null;
      st.runAggregate = null;
      st.mark = null;
    }
    if (slice === null || slice === undefined || slice < 0) {
      st.selection = null;
      st.details = null;
      renderDetails(detailsBox, null, {});
      drawerShown(false);
      if (writtenSlice !== null) shareSelection(null);
      requestDraw();
      return null;
    }
    // Selecting the same slice again keeps what is known about it until the answers arrive.
    const prev = st.selection && st.selection.slice === slice ? st.selection : null;
    const sel = prev ? { ...prev } : { slice, brief: null, links: [], briefs: new Map() };
    st.selection = sel;
    st.context = null;
    const session = client.session;
    let b, fl, det;
    try {
      [b, fl, det] = await Promise.all([
        client.request('brief', { slice }),
        client.request('flows', { slice }),
        client.request('details', { slice }),
      ]);
    } catch (e) {
      if (e.code !== 'stale') status.textContent = `Could not read slice ${slice}: ${e.message}`;
      return null;
    }
    if (st.selection !== sel || session !== client.session) return null;
    sel.brief = b.brief;
    sel.links = fl.flows.links;
    sel.briefs = new Map(fl.flows.slices.map((x) => [x.slice, x]));
    st.details = det.details;
    const onSelect = (i) => select(i, { scroll: true }).then(() => centerOn(st.selection && st.selection.brief));
    renderDetails(detailsBox, det.details, { flows: fl.flows, onSelect, context: null });
    drawerShown(!!det.details);
    shareSelection(det.details);
    // Selected by a click too: a slice the drawer now covers is scrolled above it.
    if (scroll && sel.brief) reveal(sel.brief.track, sel.brief.depth);
    else if (sel.brief) keepInView(sel.brief.track, sel.brief.depth);
    requestDraw();
    // The stack above it, read after the first paint of the drawer.
    const read = (i) => client.request('details', { slice: i }).then((r) => r.details, () => null);
    sliceContext(det.details, read).then((context) => {
      if (st.selection !== sel || session !== client.session) return;
      st.context = context;
      renderDetails(detailsBox, det.details, { flows: fl.flows, onSelect, context });
      drawerShown(true); // its height may have changed
      if (sel.brief) keepInView(sel.brief.track, sel.brief.depth);
      requestDraw();
    });
    return det.details;
  }
  function centerOn(b) {
    if (!b) return;
    const span = st.view.end - st.view.start;
    if (b.dur_ns > span * 0.8) setWindow(b.start_ns - b.dur_ns * 0.1, b.start_ns + b.dur_ns * 1.1);
    else if (b.start_ns + b.dur_ns < st.view.start || b.start_ns > st.view.end) setWindow(b.start_ns + b.dur_ns / 2 - span / 2, b.start_ns + b.dur_ns / 2 + span / 2);
    reveal(b.track, b.depth);
    requestDraw();
  }
  function focus() {
    if (st.area) return setWindow(st.area.start, st.area.end);
    const b = st.selection && st.selection.brief;
    if (!b) return;
    const pad = Math.max(b.dur_ns * 0.15, MIN_SPAN_NS);
    setWindow(b.start_ns - pad, b.start_ns + b.dur_ns + pad);
    reveal(b.track, b.depth);
  }
  function markRange() {
    if (st.area) st.mark = { start: st.area.start, end: st.area.end };
    else if (st.selection && st.selection.brief) st.mark = { start: st.selection.brief.start_ns, end: st.selection.brief.start_ns + st.selection.brief.dur_ns };
    else st.mark = null;
    requestDraw();
  }
  function clear() {
    if (st.run) closeRun();
    else if (st.area) areaCancel();
    else if (st.selection) select(null);
    else if (st.mark) st.mark = null;
    else setHits(null, '');
    requestDraw();
  }

  function laneAt(y) {
    const ly = y - RULER_H + st.scrollY;
    const i = laneIndexAt(st.geo.lanes, ly);
    const lane = st.geo.lanes[i];
    return lane && ly >= lane.y ? { lane, ly } : null;
  }
  async function clickAt(x, y) {
    if (!st.geo || y < RULER_H) return;
    const hit = laneAt(y);
    if (!hit) return;
    const { lane, ly } = hit;
    if (lane.kind === 'group' || x < LABEL_W) {
      if (lane.kind === 'group') {
        if (lane.closed) st.collapsed.delete(lane.key);
        else st.collapsed.add(lane.key);
        relayout();
      }
      return;
    }
    if (lane.kind !== 'track') return;
    const depth = Math.floor((ly - lane.rowsTop) / ROW_H);
    if (depth < 0 || depth >= lane.track.rows) return select(null);
    const t = timeAt(st, x);
    // A merged box: the run, not one of its slices.
    const run = mergedAt(st, lane, depth, t, (st.view.end - st.view.start) / plotWidth(st));
    if (run) return selectRun(run);
    const tolerance = (3 * (st.view.end - st.view.start)) / plotWidth(st);
    const r = await client.request('sliceAt', { track: lane.track.id, depth, t, tolerance }).catch(() => ({ slice: -1 }));
    return select(r.slice >= 0 ? r.slice : null);
  }

  // --- merged runs (merged.js) ---------------------------------------------------------------------
  async function selectRun(run) {
    await select(null);
    st.run = run;
    st.mark = { start: run.start, end: run.end };
    const zoom = () => setWindow(run.start - (run.end - run.start) * 0.1, run.end + (run.end - run.start) * 0.1);
    const draw = (agg) => renderRun(detailsBox, run, agg, { onZoom: zoom, onShow: (name) => showName(name, { within: [run.start, run.end] }) });
    draw(null);
    drawerShown(true);
    keepInView(run.track, run.depth); // above the drawer
    requestDraw();
    const r = await client.request('aggregate', { from: run.start, to: run.end, tracks: [run.track] }).catch(() => null);
    if (st.run !== run) return null;
    st.runAggregate = r ? r.aggregate : null;
    draw(st.runAggregate);
    drawerShown(true);
    keepInView(run.track, run.depth);
    requestDraw();
    return st.runAggregate;
  }
  function closeRun() {
    if (!st.run) return;
    st.run = null;
    st.runAggregate = null;
    st.mark = null;
    drawerShown(false);
    renderDetails(detailsBox, null, {});
    requestDraw();
  }
  // The tooltip over a merged box: its count at once, its top names once the worker says them.
  const tip = h('div', { className: 'tl-tip', hidden: true, role: 'tooltip' });
  wrap.append(tip);
  let tipRun = null;
  let tipTimer = 0;
  function hoverAt(x, y, inside) {
    let run = null;
    if (inside && st.geo && y >= RULER_H && x >= LABEL_W) {
      const hit = laneAt(y);
      if (hit && hit.lane.kind === 'track') {
        const depth = Math.floor((hit.ly - hit.lane.rowsTop) / ROW_H);
        if (depth >= 0 && depth < hit.lane.track.rows) run = mergedAt(st, hit.lane, depth, timeAt(st, x), (st.view.end - st.view.start) / plotWidth(st));
      }
    }
    if (!run) {
      tip.hidden = true;
      tipRun = null;
      clearTimeout(tipTimer);
      return;
    }
    tip.style.left = `${Math.min(x + 14, st.width - 280)}px`;
    // Below the pointer, or above it near the bottom (the wrap clips what overflows).
    const above = y > st.height - 110;
    tip.style.top = above ? '' : `${y + 16}px`;
    tip.style.bottom = above ? `${st.height - y + 12}px` : '';
    const same = tipRun && tipRun.start === run.start && tipRun.end === run.end && tipRun.track === run.track;
    if (same) return;
    tipRun = run;
    tip.textContent = tipText(run, null);
    tip.hidden = false;
    clearTimeout(tipTimer);
    tipTimer = setTimeout(async () => {
      const r = await client.request('aggregate', { from: run.start, to: run.end, tracks: [run.track] }).catch(() => null);
      if (tipRun === run && r) tip.textContent = tipText(run, r.aggregate);
    }, 150);
  }

  function areaStart(x, y) {
    const t = timeAt(st, x);
    st.area = { x0: t, start: t, end: t, ya: y - RULER_H + st.scrollY, y0: y - RULER_H + st.scrollY, y1: y - RULER_H + st.scrollY, done: false };
    requestDraw();
  }
  function areaTo(x, y) {
    if (!st.area) return;
    const t = timeAt(st, x);
    const ly = y - RULER_H + st.scrollY;
    st.area.start = Math.min(st.area.x0, t);
    st.area.end = Math.max(st.area.x0, t);
    st.area.y0 = Math.min(st.area.ya, ly);
    st.area.y1 = Math.max(st.area.ya, ly);
    requestDraw();
  }
  async function areaEnd(x, y) {
    areaTo(x, y);
    const a = st.area;
    if (!a) return null;
    // Whole lanes: from the lane under the top edge to the one under the bottom edge.
    const lanes = st.geo.lanes;
    const first = lanes[laneIndexAt(lanes, a.y0)];
    const last = lanes[Math.min(lanes.length - 1, laneIndexAt(lanes, a.y1))];
    if (first) a.y0 = first.y;
    if (last) a.y1 = last.y + last.h;
    const items = itemsBetween(lanes, a.y0, a.y1, { withCollapsed: true });
    return aggregateArea(Math.round(a.start), Math.round(a.end), items.tracks);
  }
  async function aggregateArea(from, to, tracks) {
    const a = st.area || { y0: 0, y1: 0 };
    a.start = from;
    a.end = to;
    a.tracks = tracks;
    a.done = true;
    st.area = a;
    requestDraw();
    const r = await client.request('aggregate', { from, to, tracks });
    if (st.area !== a) return null;
    st.aggregate = r.aggregate;
    renderAggregate(areaBox, r.aggregate, { onShow: (name) => showName(name, { within: [from, to] }) });
    return r.aggregate;
  }
  function areaCancel() {
    st.area = null;
    st.aggregate = null;
    renderAggregate(areaBox, null, {});
    requestDraw();
  }

  function namesList() {
    if (!namesPromise) {
      namesPromise = client.request('names').then((r) => r.names.map(([id, name]) => ({ id, name, lower: name.toLowerCase() })));
      namesPromise.catch(() => (namesPromise = null));
    }
    return namesPromise;
  }
  function setHits(cols, label) {
    if (!cols || !cols.slice.length) {
      st.hits = cols ? { ...cols, maxDur: 0, current: -1 } : null;
    } else {
      let maxDur = 0;
      for (let k = 0; k < cols.slice.length; k++) maxDur = Math.max(maxDur, cols.end[k] - cols.start[k]);
      st.hits = { ...cols, maxDur, current: -1 };
    }
    st.hitsLabel = label;
    const n = st.hits ? st.hits.slice.length : 0;
    hitCount.textContent = st.hits ? `${n.toLocaleString('en-US')} ${n === 1 ? 'match' : 'matches'}${label ? ` · ${label}` : ''}` : '';
    requestDraw();
  }
  async function searchByIds(ids, label) {
    if (!ids.length) {
      setHits({ slice: new Int32Array(0), start: new Float64Array(0), end: new Float64Array(0), track: new Uint32Array(0), depth: new Uint32Array(0) }, label);
      return 0;
    }
    const r = await client.request('search', { ids });
    setHits(r, label);
    return r.slice.length;
  }
  let searchSeq = 0;
  async function search(text, regex) {
    const seq = ++searchSeq;
    searchInput.classList.remove('bad');
    if (!text) {
      setHits(null, '');
      return 0;
    }
    let test;
    if (regex) {
      let re;
      try {
        re = new RegExp(text, 'i');
      } catch (e) {
        searchInput.classList.add('bad');
        hitCount.textContent = `not a regular expression: ${e.message}`;
        return -1;
      }
      test = (n) => re.test(n.name);
    } else {
      const q = text.toLowerCase();
      test = (n) => n.lower.includes(q);
    }
    const names = await namesList();
    if (seq !== searchSeq) return -1;
    const ids = names.filter(test).map((n) => n.id);
    const count = await searchByIds(ids, `${ids.length} ${ids.length === 1 ? 'name' : 'names'}`);
    return seq === searchSeq ? count : -1;
  }
  let searchTimer = 0;
  const searchSoon = () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(() => search(searchInput.value, regexBox.checked), 200);
  };
  searchInput.addEventListener('input', searchSoon);
  regexBox.addEventListener('change', searchSoon);
  searchInput.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      clearTimeout(searchTimer);
      const go = () => nextHit(e.shiftKey ? -1 : 1);
      if (st.hits && st.hitsLabel !== 'pending') go();
      else search(searchInput.value, regexBox.checked).then(go);
    } else if (e.key === 'Escape') {
      // Esc leaves the search: the text and its highlighted matches go together.
      e.preventDefault();
      clearTimeout(searchTimer);
      searchInput.value = '';
      search('', false);
      searchInput.blur();
      canvas.focus();
    }
  });

  function nextHit(dir) {
    const hs = st.hits;
    if (!hs || !hs.slice.length) return null;
    const n = hs.slice.length;
    let i;
    if (hs.current >= 0) i = (hs.current + dir + n) % n;
    else {
      i = lowerBound(hs.start, 0, n, (st.view.start + st.view.end) / 2);
      if (dir < 0) i -= 1;
      i = ((i % n) + n) % n;
    }
    hs.current = i;
    hitCount.textContent = `${i + 1} of ${n.toLocaleString('en-US')}${st.hitsLabel ? ` · ${st.hitsLabel}` : ''}`;
    const b = { slice: hs.slice[i], track: hs.track[i], depth: hs.depth[i], start_ns: hs.start[i], dur_ns: hs.end[i] - hs.start[i] };
    centerOn(b);
    select(b.slice);
    return b.slice;
  }

  // --- "show on timeline" -------------------------------------------------------------------------
  // A finding's evidence, in context (issue 18, item 5): the window holds the range (a gap), the
  // events given (the op after the gap) and their launches on the CPU, with room around them; the
  // range itself is marked; `names` highlights every occurrence of those names (N steps through
  // them), else the events; the first event is selected.
  async function showEvidence(range, { offsets = [], names = [] } = {}) {
    await show();
    let lo = range ? range.start_ns : Infinity;
    let hi = range ? range.end_ns : -Infinity;
    let briefs = [];
    if (offsets.length) {
      const r = await client.request('offsets', { offsets }).catch(() => ({ slices: [] }));
      const slices = r.slices.filter((i) => i >= 0);
      const dets = (await Promise.all(slices.map((slice) => client.request('details', { slice }).catch(() => null)))).map((x) => x && x.details).filter(Boolean);
      for (const d of dets) {
        briefs.push({ slice: d.slice, start_ns: d.start_ns, dur_ns: d.dur_ns, track: d.track, depth: d.depth });
        for (const b of [d, d.partner]) {
          if (!b) continue;
          lo = Math.min(lo, b.start_ns);
          hi = Math.max(hi, b.start_ns + b.dur_ns);
        }
      }
      briefs.sort((a, b) => a.start_ns - b.start_ns);
    }
    if (!(lo <= hi)) return state();
    const pad = Math.max((hi - lo) * 0.25, 10e3);
    setWindow(lo - pad, hi + pad);
    st.mark = range && range.end_ns > range.start_ns ? { start: range.start_ns, end: range.end_ns } : null;
    const wanted = new Set(names);
    const ids = wanted.size ? (await namesList()).filter((n) => wanted.has(n.name)).map((n) => n.id) : [];
    if (ids.length) {
      searchInput.value = names.length === 1 ? inertName(names[0], 4096) : '';
      await searchByIds(ids, names.length === 1 ? 'every occurrence' : `every occurrence of ${names.length} names`);
    } else if (briefs.length) {
      setHits(
        {
          slice: Int32Array.from(briefs, (b) => b.slice),
          start: Float64Array.from(briefs, (b) => b.start_ns),
          end: Float64Array.from(briefs, (b) => b.start_ns + b.dur_ns),
          track: Uint32Array.from(briefs, (b) => b.track),
          depth: Uint32Array.from(briefs, (b) => b.depth),
        },
        'from the finding',
      );
    }
    if (briefs.length) {
      const d = await select(briefs[0].slice, { scroll: true });
      // The launch on the CPU and the work on the GPU in view together (when they fit).
      if (d && d.partner) revealPair(d.partner, d);
    }
    await settled();
    return state();
  }
  // Scrolls so that both slices' rows are in view above the drawer, or `b` alone when they do not fit.
  function revealPair(a, b) {
    reveal(a.track, a.depth);
    reveal(b.track, b.depth);
    const la = st.geo.trackLane.get(a.track);
    const lb = st.geo.trackLane.get(b.track);
    if (!la || !lb) return;
    const ya = la.rowsTop + a.depth * ROW_H;
    const yb = lb.rowsTop + b.depth * ROW_H;
    const top = Math.min(ya, yb);
    const bottom = Math.max(ya, yb) + ROW_H;
    const room = viewH();
    if (bottom - top > room - ROW_H) return reveal(b.track, b.depth);
    st.scrollY = top - Math.min(3 * ROW_H, (room - (bottom - top)) / 2);
    clampScroll();
    requestDraw();
  }

  async function showRange(startNs, endNs, offsets = []) {
    await show();
    const pad = Math.max((endNs - startNs) * 0.05, MIN_SPAN_NS);
    setWindow(startNs - pad, endNs + pad);
    if (offsets.length) {
      const r = await client.request('offsets', { offsets });
      const slices = r.slices.filter((i) => i >= 0);
      const briefs = (await Promise.all(slices.map((slice) => client.request('brief', { slice })))).map((x) => x.brief).filter(Boolean);
      briefs.sort((a, b) => a.start_ns - b.start_ns);
      setHits(
        {
          slice: Int32Array.from(briefs, (b) => b.slice),
          start: Float64Array.from(briefs, (b) => b.start_ns),
          end: Float64Array.from(briefs, (b) => b.start_ns + b.dur_ns),
          track: Uint32Array.from(briefs, (b) => b.track),
          depth: Uint32Array.from(briefs, (b) => b.depth),
        },
        'from the finding',
      );
      if (briefs.length) {
        reveal(briefs[0].track, briefs[0].depth);
        await select(briefs[0].slice);
      }
    }
    await settled();
    return state();
  }
  async function showName(name, { within = null } = {}) {
    await show();
    const names = await namesList();
    const ids = names.filter((n) => n.name === name).map((n) => n.id);
    // The box shows the name inert (an input field would obey a bidi override too).
    searchInput.value = inertName(name, 4096);
    regexBox.checked = false;
    await searchByIds(ids, 'exact name');
    const hs = st.hits;
    if (hs && hs.slice.length) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let k = 0; k < hs.slice.length; k++) {
        if (within && (hs.end[k] < within[0] || hs.start[k] > within[1])) continue;
        lo = Math.min(lo, hs.start[k]);
        hi = Math.max(hi, hs.end[k]);
      }
      if (lo <= hi) {
        const pad = Math.max((hi - lo) * 0.05, MIN_SPAN_NS);
        setWindow(lo - pad, hi + pad);
        const first = lowerBound(hs.start, 0, hs.slice.length, lo);
        reveal(hs.track[first], hs.depth[first]);
      }
    }
    await settled();
    return hs ? hs.slice.length : 0;
  }

  // --- lifecycle ----------------------------------------------------------------------------------
  function ensureLayout() {
    if (!layoutPromise && client.session !== null) {
      const session = client.session;
      status.textContent = 'Building the timeline…';
      layoutPromise = client.request('layout').then((r) => {
        if (session !== client.session) return;
        for (const g of r.layout.groups) {
          g.name = inertName(g.name);
          for (const t of g.tracks) t.name = inertName(t.name);
          for (const c of g.counters) c.name = inertName(c.name);
        }
        st.layout = r.layout;
        st.collapsed = new Set();
        st.showSparse = false;
        st.scrollY = 0;
        relayout();
        fit();
        applyPendingRange();
        if (pendingSlice !== null) applyPendingSlice();
        const n = r.layout.groups.reduce((a, g) => a + g.tracks.length, 0);
        status.textContent = `${r.layout.groups.length} processes · ${n} tracks · ${fmtDur(r.layout.span_ns)}`;
      });
      layoutPromise.catch((e) => {
        layoutPromise = null;
        status.textContent = `The timeline could not be built: ${e.message}`;
      });
    }
    return layoutPromise || Promise.reject(new Error('no trace is loaded'));
  }
  function settled() {
    return new Promise((resolve) => {
      settleWaiters.push(resolve);
      requestDraw();
    });
  }
  async function show() {
    if (onShow) onShow();
    setVisible(true);
    await ensureLayout();
    resize();
    await settled();
  }
  function setVisible(v) {
    visible = v;
    if (v) {
      resize();
      requestDraw();
      registerPng();
    }
  }
  // The PNG export (share/export.js): the canvas as drawn, or, before the Timeline tab was ever
  // opened (a 300x300 blank canvas then, issue 18 item 7), the timeline drawn off-screen at the
  // size the tab would have. Not on the rank and compare views, which show no single trace.
  let hasTrace = false;
  const pngProvider = {
    available: () => hasTrace && !document.body.dataset.view,
    toBlob: async () => {
      if (!pngProvider.available()) return null;
      if (!visible) {
        section.classList.add('tl-offscreen');
        section.hidden = false;
        try {
          visible = true;
          await ensureLayout();
          resize();
          await settled();
          return await canvasPng();
        } finally {
          visible = false;
          section.hidden = true;
          section.classList.remove('tl-offscreen');
        }
      }
      await settled();
      return canvasPng();
    },
  };
  function canvasPng() {
    return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the timeline canvas gave no image'))), 'image/png'));
  }
  function registerPng() {
    const k = window.kinetoscope;
    if (k && typeof k.registerTimeline === 'function') k.registerTimeline(pngProvider);
  }
  function loaded(session) {
    hookSharing();
    hasTrace = true;
    registerPng();
    client.attach(session);
    layoutPromise = null;
    namesPromise = null;
    inflight = null;
    Object.assign(st, { layout: null, geo: null, data: null, selection: null, details: null, hits: null, area: null, aggregate: null, mark: null, scrollY: 0 });
    st.names = new Map();
    st.hues = new Map();
    searchInput.value = '';
    hitCount.textContent = '';
    renderDetails(detailsBox, null, {});
    drawerShown(false);
    st.context = null;
    renderAggregate(areaBox, null, {});
    if (visible) ensureLayout().then(() => requestDraw(), () => {});
  }

  function state() {
    return {
      start_ns: st.view.start,
      end_ns: st.view.end,
      span_ns: st.layout ? st.layout.span_ns : 0,
      plot_left: LABEL_W,
      plot_width: plotWidth(st),
      selection: st.selection ? st.selection.slice : null,
      details: st.details,
      context: st.selection ? st.context || null : null,
      drawer: !drawer.hidden,
      run: st.run ? { start_ns: st.run.start, end_ns: st.run.end, count: st.run.count, track: st.run.track, aggregate: st.runAggregate || null } : null,
      links: st.selection ? st.selection.links : [],
      hits: st.hits ? st.hits.slice.length : 0,
      hit: st.hits && st.hits.current >= 0 ? st.hits.current : null,
      area: st.area ? { start_ns: st.area.start, end_ns: st.area.end, tracks: st.area.tracks || [] } : null,
      aggregate: st.aggregate,
      mark: st.mark ? { start_ns: st.mark.start, end_ns: st.mark.end } : null,
      theme: st.theme,
      frames: framesDrawn,
      scroll_y: st.scrollY,
      ruler_h: RULER_H,
      // The lanes as laid out (y in lane space: the screen's is ruler_h + y - scroll_y).
      hiddenTracks: st.geo ? st.geo.hidden : 0,
      lanes: st.geo ? st.geo.lanes.map((l) => ({ kind: l.kind, key: l.key, y: l.y, h: l.h, closed: !!l.closed, name: l.kind === 'group' ? l.group.name : l.kind === 'track' ? l.track.name : l.counter.name })) : [],
      layout: st.layout,
    };
  }

  // Where a slice is on the page (client px), after making its row visible; null if not on screen.
  async function locate(slice) {
    const r = await client.request('brief', { slice });
    const b = r.brief;
    if (!b) return null;
    reveal(b.track, b.depth);
    await settled();
    const lane = st.geo.trackLane.get(b.track);
    const rect = canvas.getBoundingClientRect();
    const x0 = Math.max(LABEL_W, xOf(st, b.start_ns));
    const x1 = Math.min(st.width, xOf(st, b.start_ns + b.dur_ns));
    const y = RULER_H + lane.rowsTop + b.depth * ROW_H - st.scrollY + ROW_H / 2;
    if (x1 < LABEL_W || x0 > st.width || y < RULER_H || y > st.height) return null;
    return { x: rect.left + (x0 + x1) / 2, y: rect.top + y, brief: b };
  }

  const ctl = {
    active: () => visible && !!st.layout,
    requestDraw,
    zoomAtMouse: (f) => zoomAt(anchorTime(), f),
    panBy,
    panPx: (px) => panBy(px / plotWidth(st)),
    scrollBy: (dy) => {
      st.scrollY += dy;
      clampScroll();
      requestDraw();
    },
    dragBy: (dx, dy) => {
      const nsPerPx = (st.view.end - st.view.start) / plotWidth(st);
      st.view = { start: st.view.start - dx * nsPerPx, end: st.view.end - dx * nsPerPx };
      st.scrollY -= dy;
      clampScroll();
      requestDraw();
    },
    mouseAt: (x, y, inside) => {
      st.mouse = { x, y, inside };
      if (visible) requestDraw();
      hoverAt(x, y, inside);
    },
    clickAt,
    areaStart,
    areaTo,
    areaEnd,
    areaCancel,
    focus,
    fit,
    markRange,
    nextHit,
    focusSearch: () => searchInput.focus(),
    clear,
  };
  input = attachInput(canvas, ctl);
  // window.kinetoscope (app.js) exists only after this module is set up: hook in on first use.
  let following = false;
  function hookSharing() {
    const k = window.kinetoscope;
    if (following || !k || typeof k.onViewChange !== 'function') return;
    following = true;
    k.onViewChange(followView);
    if (typeof k.view === 'function') followView(k.view(), 'load');
  }

  const api = {
    show,
    hide: () => setVisible(false),
    visible: () => visible,
    settled,
    state,
    setWindow: async (start, end) => {
      setWindow(start, end);
      await settled();
      return state();
    },
    select: (slice) => select(slice, { scroll: true }),
    locate,
    search: async (text, { regex = false } = {}) => {
      searchInput.value = text;
      regexBox.checked = regex;
      return search(text, regex);
    },
    nextHit,
    aggregate: (fromNs, toNs, tracks) => aggregateArea(fromNs, toNs, tracks),
    showRange,
    showEvidence,
    showName,
    theme: (t) => setTheme(t),
    followView,
    measureRaster: (on) => {
      forceRaster = !!on;
    },
    stats: (reset = false) => {
      const out = { draws: [...stats.draws], intervals: [...stats.intervals], queries: [...stats.queries] };
      if (reset) {
        stats.draws.length = 0;
        stats.intervals.length = 0;
        stats.queries.length = 0;
        stats.lastFrame = 0;
      }
      return out;
    },
  };
  return { api, loaded, onReply: (m) => client.onReply(m), setVisible };
}
