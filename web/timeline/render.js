// Draws the timeline on a 2D canvas from the state the controller keeps (timeline.js): the last
// level-of-detail answer from the worker, the lanes, the selection, search hits, area and mark.
// Nothing here asks the worker anything, so a frame costs only the rectangles on screen: per visible
// row a binary search into that row's rectangles, then fills batched per color (one fillStyle and
// one path per hue), then text where a slice is wide enough to hold some.
//
// Coordinate spaces: trace time (ns from the first event), CSS pixels (x, y below), device pixels
// (the canvas backing store, CSS px x devicePixelRatio; the context is scaled once per frame).
//
// Coordinates are in geometry.js, text cutting in text.js, overlays (hits, selection, ranges) in
// overlays.js, the labels and ruler in chrome.js.
import { COUNTER_H, GROUP_H, INSTANT_H, LABEL_W, ROW_H, RULER_H, laneIndexAt } from './layout.js';
import { THEMES } from './colors.js';
import { niceStep } from './units.js';
import { lowerBound, plotWidth, screenY, xOf } from './geometry.js';
import { FONT, charPx, measureChar, truncate } from './text.js';
import { drawHits, drawRange, drawSelection } from './overlays.js';
import { drawLabels, drawRuler } from './chrome.js';

export { lowerBound, plotWidth, rowY, screenY, timeAt, xOf } from './geometry.js';

const MIN_TEXT_PX = 28;

function drawSteps(ctx, st, theme, top, bottom) {
  const steps = st.layout.steps;
  ctx.fillStyle = theme.step;
  for (let i = 0; i < steps.length; i++) {
    if (i % 2) continue;
    const s = steps[i];
    const x0 = Math.max(LABEL_W, xOf(st, s.start_ns));
    const x1 = Math.min(st.width, xOf(st, s.end_ns));
    if (x1 > x0) ctx.fillRect(x0, top, x1 - x0, bottom - top);
  }
}

function drawGrid(ctx, st, theme, ticks, top, bottom) {
  ctx.fillStyle = theme.grid;
  for (const t of ticks) ctx.fillRect(Math.round(xOf(st, t)), top, 1, bottom - top);
}

function ticksFor(st) {
  const nsPerPx = (st.view.end - st.view.start) / plotWidth(st);
  const step = niceStep(nsPerPx * 100);
  const first = Math.ceil(st.view.start / step) * step;
  const ticks = [];
  for (let t = first; t <= st.view.end && ticks.length < 200; t += step) ticks.push(t);
  return { step, ticks };
}

// Slices of one track lane: fills batched per hue, text afterwards.
function drawTrackSlices(ctx, st, lane, buckets, texts) {
  const d = st.data;
  const rows = d && d.rows.get(lane.track.id);
  if (!rows) return;
  const x0 = st.view.start;
  const x1 = st.view.end;
  const scale = plotWidth(st) / (x1 - x0);
  for (const [depth, from, to] of rows) {
    if (depth >= lane.rows) continue; // folded away
    const y = Math.round(screenY(st, lane.rowsTop + depth * ROW_H));
    if (y + ROW_H < RULER_H || y > st.height) continue;
    // Rows are in start order and never overlap, so ends are sorted too.
    let k = lowerBound(d.end, from, to, x0);
    for (; k < to; k++) {
      const s = d.start[k];
      if (s > x1) break;
      const e = d.end[k];
      let left = LABEL_W + (s - x0) * scale;
      let w = (e - s) * scale;
      if (left < LABEL_W - 2) {
        w -= LABEL_W - 2 - left;
        left = LABEL_W - 2;
      }
      // Whole pixels; neighbours that round to the same pixel overlap, which costs nothing.
      const px0 = Math.round(left);
      const pw = Math.max(1, Math.round(left + w) - px0);
      const hue = d.hue[k];
      const merged = d.count[k] > 1;
      const b = merged ? buckets.busy[hue] : buckets.solid[hue];
      b.push(px0, y + 1, pw, ROW_H - 2);
      if (merged && pw >= HATCH_MIN_PX) buckets.hatch.push(px0, y + 1, pw, ROW_H - 2);
      if (w >= MIN_TEXT_PX) texts.push(k, left, y, w);
    }
  }
}

// Merged runs (many slices in one box) are hatched, so that they do not pass for one slice.
const HATCH_MIN_PX = 4;
const HATCH_STEP = 6;
function drawHatch(ctx, theme, r) {
  if (!r.length) return;
  ctx.beginPath();
  for (let i = 0; i < r.length; i += 4) {
    const x = r[i];
    const y = r[i + 1];
    const w = r[i + 2];
    const hh = r[i + 3];
    // 45° strokes from the bottom edge, then from the left edge, cut at the box.
    for (let a = HATCH_STEP / 2; a < w; a += HATCH_STEP) {
      const len = Math.min(hh, w - a);
      ctx.moveTo(x + a, y + hh);
      ctx.lineTo(x + a + len, y + hh - len);
    }
    for (let b = HATCH_STEP / 2; b < hh; b += HATCH_STEP) {
      const len = Math.min(hh - b, w);
      ctx.moveTo(x, y + hh - b);
      ctx.lineTo(x + len, y + hh - b - len);
    }
  }
  ctx.strokeStyle = theme.hatch;
  ctx.lineWidth = 1;
  ctx.stroke();
  r.length = 0;
}

// One fillStyle per hue; rectangles on whole pixels (no anti-aliased edges to rasterize).
function flush(ctx, colors, buckets) {
  for (let hue = 0; hue < buckets.length; hue++) {
    const b = buckets[hue];
    if (!b.length) continue;
    ctx.fillStyle = colors[hue];
    for (let i = 0; i < b.length; i += 4) ctx.fillRect(b[i], b[i + 1], b[i + 2], b[i + 3]);
    b.length = 0;
  }
}

// "1,234 slices" for merged runs: toLocaleString is slow enough to show in a frame's profile, and
// the same counts recur frame after frame.
const countLabels = new Map();
function countLabel(n, px) {
  let s = countLabels.get(n);
  if (s === undefined) {
    if (countLabels.size > 4096) countLabels.clear();
    s = n.toLocaleString('en-US');
    countLabels.set(n, s);
  }
  // "×" says it is a count of slices, not a duration or an id (issue 18, item 2).
  const fits = Math.floor((px - 6) / charPx());
  if (s.length + 8 <= fits) return `×${s} slices`;
  return s.length + 1 <= fits ? `×${s}` : '';
}

function drawTexts(ctx, st, theme, texts) {
  const d = st.data;
  ctx.font = FONT;
  measureChar(ctx);
  ctx.fillStyle = theme.sliceInk;
  ctx.textBaseline = 'middle';
  for (let i = 0; i < texts.length; i += 4) {
    const k = texts[i];
    const left = Math.max(texts[i + 1], LABEL_W);
    const w = texts[i + 1] + texts[i + 3] - left;
    if (w < MIN_TEXT_PX) continue;
    const name = st.names.get(d.name[k]) || '';
    // A merged run stands for many names; its color is its first slice's.
    // A merged run's count is not cut ("4,…" says nothing): "1,234 slices", "1,234" or no text.
    const label = d.count[k] > 1 ? countLabel(d.count[k], w) : name;
    const text = truncate(ctx, label, w);
    if (text) ctx.fillText(text, left + 3, texts[i + 2] + ROW_H / 2);
  }
  texts.length = 0;
}

function drawInstants(ctx, st, theme, lane) {
  const d = st.data;
  const r = d && d.instRows.get(lane.track.id);
  if (!r) return;
  const y = screenY(st, lane.y + 2);
  const tip = y + INSTANT_H - 3;
  ctx.fillStyle = theme.instant;
  ctx.beginPath();
  // A mark is a 6 px triangle; marks under 3 px apart make one band (a trapezoid) instead of a
  // triangle each: path building was most of a zoomed-out frame's cost on traces with dense
  // instants (one mark per pixel).
  let first = NaN;
  let last = NaN;
  const mark = () => {
    if (first !== first) return;
    ctx.moveTo(first - 3, y);
    ctx.lineTo(last + 3, y);
    ctx.lineTo(last, tip);
    if (last !== first) ctx.lineTo(first, tip);
    ctx.closePath();
  };
  for (let k = lowerBound(d.iTs, r[0], r[1], st.view.start); k < r[1]; k++) {
    const t = d.iTs[k];
    if (t > st.view.end) break;
    const x = xOf(st, t);
    if (x - last < 3) {
      last = x;
      continue;
    }
    mark();
    first = x;
    last = x;
  }
  mark();
  ctx.fill();
}

// A counter series as a step line (a sample holds until the next) over a light area; where one
// pixel stands for several samples, a vertical bar from their min to their max.
function drawCounter(ctx, st, theme, lane) {
  const d = st.data;
  const r = d && d.series.get(lane.counter.id);
  if (!r) return;
  const c = lane.counter;
  const top = screenY(st, lane.y) + 6;
  const h = COUNTER_H - 10;
  const lo = Math.min(0, c.min);
  const span = c.max - lo || 1;
  const yOf = (v) => top + h - ((v - lo) / span) * h;
  const base = yOf(Math.max(lo, 0));
  let k = Math.max(r[0], lowerBound(d.cTs, r[0], r[1], st.view.start) - 1);
  ctx.beginPath();
  let started = false;
  let lastX = LABEL_W;
  let lastY = base;
  for (; k < r[1]; k++) {
    const x = Math.max(LABEL_W, xOf(st, d.cTs[k]));
    const y = yOf(d.cLast[k]);
    if (!started) {
      ctx.moveTo(x, base);
      ctx.lineTo(x, y);
      started = true;
    } else {
      ctx.lineTo(x, lastY);
      ctx.lineTo(x, y);
    }
    if (d.cMin[k] !== d.cMax[k]) {
      ctx.lineTo(x, yOf(d.cMax[k]));
      ctx.lineTo(x, yOf(d.cMin[k]));
      ctx.lineTo(x, y);
    }
    lastX = x;
    lastY = y;
    if (d.cTs[k] > st.view.end) break;
  }
  if (!started) return;
  const right = Math.min(st.width, Math.max(lastX, xOf(st, st.view.end)));
  ctx.lineTo(right, lastY);
  ctx.strokeStyle = theme.counter;
  ctx.lineWidth = 1;
  ctx.stroke();
  ctx.lineTo(right, base);
  ctx.closePath();
  ctx.globalAlpha = 0.18;
  ctx.fillStyle = theme.counter;
  ctx.fill();
  ctx.globalAlpha = 1;
}


const visibleLanes = []; // reused across frames

// buckets: {solid: [[]...], busy: [[]...]} reused across frames.
export function drawFrame(ctx, st, buckets, texts) {
  const theme = THEMES[st.theme] || THEMES.light;
  const pal = st.palette;
  ctx.setTransform(st.dpr, 0, 0, st.dpr, 0, 0);
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, 0, st.width, st.height);
  if (!st.layout || !st.geo) return;
  const { step, ticks } = ticksFor(st);
  const lanes = st.geo.lanes;
  const visible = visibleLanes;
  visible.length = 0;
  for (let i = laneIndexAt(lanes, st.scrollY); i < lanes.length; i++) {
    const l = lanes[i];
    if (screenY(st, l.y) > st.height) break;
    visible.push(l);
  }
  const bottom = Math.min(st.height, screenY(st, st.geo.height));
  ctx.save();
  ctx.beginPath();
  ctx.rect(LABEL_W, RULER_H, st.width - LABEL_W, st.height - RULER_H);
  ctx.clip();
  for (const lane of visible) {
    const y = screenY(st, lane.y);
    if (lane.kind === 'group') {
      ctx.fillStyle = theme.group;
      ctx.fillRect(LABEL_W, y, st.width - LABEL_W, GROUP_H);
    } else if (lane.kind === 'track' && lane.track.id % 2) {
      ctx.fillStyle = theme.laneAlt;
      ctx.fillRect(LABEL_W, y, st.width - LABEL_W, lane.h);
    }
  }
  drawSteps(ctx, st, theme, RULER_H, bottom);
  drawGrid(ctx, st, theme, ticks, RULER_H, bottom);
  for (const lane of visible) {
    if (lane.kind === 'track') drawTrackSlices(ctx, st, lane, buckets, texts);
  }
  flush(ctx, pal.solid, buckets.solid);
  flush(ctx, pal.busy, buckets.busy);
  drawHatch(ctx, theme, buckets.hatch);
  drawTexts(ctx, st, theme, texts);
  for (const lane of visible) {
    if (lane.kind === 'track' && lane.track.instants) drawInstants(ctx, st, theme, lane);
    else if (lane.kind === 'counter') drawCounter(ctx, st, theme, lane);
  }
  drawHits(ctx, st, theme);
  drawSelection(ctx, st, theme);
  if (st.mark) drawRange(ctx, st, theme.mark, theme.markLine, st.mark.start, st.mark.end, RULER_H, bottom);
  if (st.area) {
    const top = Math.max(RULER_H, screenY(st, st.area.y0));
    const bot = Math.min(st.height, screenY(st, st.area.y1));
    drawRange(ctx, st, theme.area, theme.areaLine, st.area.start, st.area.end, top, bot);
  }
  ctx.restore();
  drawLabels(ctx, st, theme, visible);
  drawRuler(ctx, st, theme, step, ticks);
  // Vertical position of the lanes.
  const viewH = st.height - RULER_H;
  if (st.geo.height > viewH) {
    const h = Math.max(20, (viewH * viewH) / st.geo.height);
    const y = RULER_H + ((viewH - h) * st.scrollY) / (st.geo.height - viewH);
    ctx.fillStyle = theme.grid;
    ctx.fillRect(st.width - 5, y, 4, h);
  }
}
