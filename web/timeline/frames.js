// Frames: one requestAnimationFrame at a time draws the state (render.js), keeps the frame times for
// the benchmark (stats), asks the worker for data when the view outgrew the last answer (fetch.js),
// and wakes whoever waits for the timeline to hold still (settled()). It imports no other
// controller (the query and the link go through the hub: tl.query, tl.shareViewSoon), so that any
// of them can import it without an import cycle (scripts/dist.mjs bundles no cycles).
import { drawFrame } from './render.js';

const STATS_MAX = 20000;

export function createStats() {
  return { draws: [], intervals: [], queries: [], lastFrame: 0 };
}

// Appends to a bounded series.
export function record(series, value) {
  series.push(value);
  if (series.length > STATS_MAX) series.shift();
}

export function requestDraw(tl) {
  const live = tl.live;
  if (live.rafPending || !live.visible) return;
  live.rafPending = true;
  requestAnimationFrame((now) => frame(tl, now));
}

function frame(tl, now) {
  const { live, stats, st } = tl;
  live.rafPending = false;
  if (!live.visible) return;
  const moving = live.input ? live.input.animate(now) : false;
  const t0 = performance.now();
  drawFrame(tl.dom.ctx, st, tl.buckets, tl.texts);
  // Benchmarks: read a pixel back so the frame's rasterization is inside the measured time.
  if (live.forceRaster) tl.dom.ctx.getImageData(0, 0, 1, 1);
  const t1 = performance.now();
  if (stats.lastFrame) record(stats.intervals, now - stats.lastFrame);
  stats.lastFrame = now;
  record(stats.draws, t1 - t0);
  live.framesDrawn++;
  tl.query();
  if (moving) requestDraw(tl);
  else stats.lastFrame = 0;
  tl.shareViewSoon();
  if (!live.inflight && !moving && st.layout && !tl.queryNeeded()) {
    const waiters = live.settleWaiters;
    live.settleWaiters = [];
    for (const w of waiters) w();
  }
}

// Resolves once a frame has drawn with nothing moving and no query due or in flight.
export function settled(tl) {
  return new Promise((resolve) => {
    tl.live.settleWaiters.push(resolve);
    requestDraw(tl);
  });
}

// The frame and query times (copies); `reset` starts new series.
export function takeStats(stats, reset) {
  const out = { draws: [...stats.draws], intervals: [...stats.intervals], queries: [...stats.queries] };
  if (reset) {
    stats.draws.length = 0;
    stats.intervals.length = 0;
    stats.queries.length = 0;
    stats.lastFrame = 0;
  }
  return out;
}
