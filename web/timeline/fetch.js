// Fetching: each query asks for the visible window plus one window on each side, at three times the
// plot's pixel width, for the lanes on screen plus one screen above and below. Frames draw from the
// last answer, so panning and zooming need no round trip; a new query goes out (one at a time) when
// the view nears the edge of what was fetched, the zoom moved 1.5x away from the answer's pixel
// size, or lanes come into view that it does not cover (state.js needsQuery).
import { inertName } from '../views/inert.js';
import { itemsBetween } from './layout.js';
import { plotWidth } from './geometry.js';
import { indexRows, needsQuery, traceDomain } from './state.js';
import { viewH } from './viewport.js';
import { record, requestDraw } from './frames.js';

export function visibleItems(tl, margin) {
  const st = tl.st;
  return itemsBetween(st.geo.lanes, st.scrollY - margin, st.scrollY + viewH(tl) + margin);
}

export function queryNeeded(tl) {
  const st = tl.st;
  if (!st.data) return true;
  return needsQuery(st.data, st.view, traceDomain(st), plotWidth(st), visibleItems(tl, 0));
}

export async function query(tl) {
  const { st, live, client } = tl;
  if (live.inflight || !live.visible || !st.layout || !queryNeeded(tl)) return;
  const span = st.view.end - st.view.start;
  const items = visibleItems(tl, viewH(tl));
  const q = {
    start: Math.floor(st.view.start - span),
    end: Math.ceil(st.view.end + span),
    pixels: Math.max(1, Math.round(plotWidth(st) * 3)),
    tracks: items.tracks,
    counters: items.counters,
  };
  const session = client.session;
  const t0 = performance.now();
  live.inflight = client.request('query', q);
  try {
    const r = await live.inflight;
    if (session !== client.session) return;
    // Names are drawn as inert text: controls escaped, long ones cut (views/inert.js).
    for (const [id, name] of Object.entries(r.names)) st.names.set(Number(id), inertName(name));
    // r.start/r.end are the rectangles' columns; the window fetched is winStart/winEnd.
    const d = { ...r, winStart: q.start, winEnd: q.end, nsPerPx: (q.end - q.start) / q.pixels, trackSet: new Set(q.tracks), counterSet: new Set(q.counters) };
    st.data = indexRows(d, st.hueOf);
    record(tl.stats.queries, { ms: r.ms, roundtrip: performance.now() - t0, searches: r.searches, rects: r.start.length, pixels: q.pixels });
  } catch (e) {
    if (e.code !== 'stale') tl.dom.status.textContent = `Query failed: ${e.message}`;
  } finally {
    live.inflight = null;
    requestDraw(tl);
  }
}
