// Draws the timeline on a 2D canvas from the state the controller keeps (timeline.js): the last
// level-of-detail answer from the worker, the lanes, the selection, search hits, area and mark.
// Nothing here asks the worker anything, so a frame costs only the rectangles on screen: per visible
// row a binary search into that row's rectangles, then fills batched per color (one fillStyle and
// one path per hue), then text where a slice is wide enough to hold some.
//
// Coordinate spaces: trace time (ns from the first event), CSS pixels (x, y below), device pixels
// (the canvas backing store, CSS px x devicePixelRatio; the context is scaled once per frame).
import { COUNTER_H, GROUP_H, INSTANT_H, LABEL_W, ROW_H, RULER_H, laneIndexAt } from './layout.js';
import { THEMES } from './colors.js';
import { fmtDur, fmtTick, niceStep } from './units.js';

const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif';
const BOLD = `600 ${FONT}`;
const MIN_TEXT_PX = 28;

let charWidth = 0;

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

// Screen rectangle of a slice row, or null when the track is not laid out (collapsed).
export function rowY(st, track, depth) {
  const lane = st.geo.trackLane.get(track);
  if (!lane) return null;
  return screenY(st, lane.rowsTop + depth * ROW_H);
}

// The average character width of FONT, measured once: text is cut by it, with no measureText per
// label per frame.
function measureChar(ctx) {
  if (!charWidth) charWidth = ctx.measureText('abcdefghijklmnopqrstuvwxyz0123456789').width / 36;
}

function truncate(ctx, text, px) {
  measureChar(ctx);
  const fits = Math.floor((px - 6) / charWidth);
  if (fits <= 1) return '';
  return text.length <= fits ? text : `${text.slice(0, fits - 1)}…`;
}

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
  const fits = Math.floor((px - 6) / charWidth);
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

function outline(ctx, st, brief, color, width) {
  const y = rowY(st, brief.track, brief.depth);
  if (y === null) return null;
  const x0 = xOf(st, brief.start_ns);
  const x1 = xOf(st, brief.start_ns + brief.dur_ns);
  if (x1 < LABEL_W - 4 || x0 > st.width + 4) return { x0, x1, y };
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
  ctx.strokeRect(Math.max(x0, LABEL_W - 4), y + 0.5, Math.max(2, Math.min(x1, st.width + 4) - Math.max(x0, LABEL_W - 4)), ROW_H - 1);
  return { x0, x1, y };
}

function drawHits(ctx, st, theme) {
  const h = st.hits;
  if (!h || !h.slice.length) return;
  const n = h.slice.length;
  let k = lowerBound(h.start, 0, n, st.view.start - h.maxDur);
  let drawn = 0;
  ctx.strokeStyle = theme.hit;
  ctx.lineWidth = 2;
  for (; k < n && drawn < 4000; k++) {
    if (h.start[k] > st.view.end) break;
    if (h.end[k] < st.view.start) continue;
    const y = rowY(st, h.track[k], h.depth[k]);
    if (y === null || y + ROW_H < RULER_H || y > st.height) continue;
    const x0 = xOf(st, h.start[k]);
    const w = Math.max(3, xOf(st, h.end[k]) - x0);
    ctx.strokeRect(x0 - 1, y, w + 2, ROW_H);
    drawn++;
  }
}

function arrow(ctx, from, to, color) {
  const midX = (from.x + to.x) / 2;
  ctx.strokeStyle = color;
  ctx.fillStyle = color;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  ctx.moveTo(from.x, from.y);
  ctx.bezierCurveTo(midX, from.y, midX, to.y, to.x, to.y);
  ctx.stroke();
  const dir = to.x >= midX ? 1 : -1;
  ctx.beginPath();
  ctx.moveTo(to.x, to.y);
  ctx.lineTo(to.x - 7 * dir, to.y - 4);
  ctx.lineTo(to.x - 7 * dir, to.y + 4);
  ctx.closePath();
  ctx.fill();
}

function drawSelection(ctx, st, theme) {
  const sel = st.selection;
  if (!sel || !sel.brief) return;
  const anchor = (b) => {
    const y = rowY(st, b.track, b.depth);
    return y === null ? null : { x: xOf(st, b.start_ns), y: y + ROW_H / 2 };
  };
  for (const l of sel.links || []) {
    const a = sel.briefs.get(l.from);
    const b = sel.briefs.get(l.to);
    if (!a || !b) continue;
    const other = l.from === sel.slice ? b : a;
    outline(ctx, st, other, theme.link, 2);
    const pa = anchor(a);
    const pb = anchor(b);
    if (pa && pb) arrow(ctx, pa, pb, theme.link);
  }
  outline(ctx, st, sel.brief, theme.select, 2.5);
}

function drawRange(ctx, st, fill, line, start, end, top, bottom) {
  const x0 = Math.max(LABEL_W, xOf(st, start));
  const x1 = Math.min(st.width, xOf(st, end));
  if (x1 < LABEL_W || x0 > st.width) return;
  ctx.fillStyle = fill;
  ctx.fillRect(x0, top, Math.max(1, x1 - x0), bottom - top);
  ctx.fillStyle = line;
  ctx.fillRect(x0, top, 1, bottom - top);
  ctx.fillRect(x1 - 1, top, 1, bottom - top);
}

function drawLabels(ctx, st, theme, visible) {
  ctx.fillStyle = theme.bg;
  ctx.fillRect(0, RULER_H, LABEL_W, st.height - RULER_H);
  ctx.textBaseline = 'middle';
  for (const lane of visible) {
    const y = screenY(st, lane.y);
    if (lane.kind === 'group') {
      ctx.fillStyle = theme.group;
      ctx.fillRect(0, y, LABEL_W, GROUP_H);
      ctx.fillStyle = theme.groupInk;
      ctx.font = BOLD;
      const mark = lane.closed ? '▸' : '▾';
      const tag = lane.group.gpu ? 'GPU · ' : '';
      ctx.fillText(truncate(ctx, `${mark} ${tag}${lane.group.name}`, LABEL_W - 4), 6, y + GROUP_H / 2);
    } else {
      ctx.font = FONT;
      ctx.fillStyle = theme.ink;
      const name = lane.kind === 'track' ? lane.track.name : lane.counter.name;
      ctx.fillText(truncate(ctx, name, LABEL_W - 18), 16, y + Math.min(lane.h, 22) / 2 + 1);
      if (lane.kind === 'counter') {
        ctx.fillStyle = theme.muted;
        ctx.fillText(truncate(ctx, `max ${lane.counter.max.toPrecision(4)}`, LABEL_W - 18), 16, y + 26);
      }
    }
    ctx.fillStyle = theme.grid;
    ctx.fillRect(0, y + lane.h - 1, st.width, 1);
  }
  ctx.fillStyle = theme.grid;
  ctx.fillRect(LABEL_W - 1, RULER_H, 1, st.height - RULER_H);
}

function drawRuler(ctx, st, theme, step, ticks) {
  ctx.fillStyle = theme.ruler;
  ctx.fillRect(0, 0, st.width, RULER_H);
  ctx.font = FONT;
  ctx.textBaseline = 'middle';
  measureChar(ctx);
  // The mark's label ("1.20 ms · 3.4% of the capture") first: tick and step labels under it are
  // left out rather than drawn through it.
  let markBox = null;
  if (st.mark) {
    const x0 = Math.max(LABEL_W, xOf(st, st.mark.start));
    const x1 = Math.min(st.width, xOf(st, st.mark.end));
    const dur = st.mark.end - st.mark.start;
    const pct = st.layout.span_ns > 0 ? (100 * dur) / st.layout.span_ns : 0;
    const label = `${fmtDur(dur)} · ${pct.toFixed(pct < 1 ? 2 : 1)}% of the capture`;
    ctx.font = BOLD;
    const w = ctx.measureText(label).width + 10;
    ctx.font = FONT;
    markBox = { x: Math.min(Math.max(LABEL_W, (x0 + x1) / 2 - w / 2), st.width - w), w, label };
  }
  const free = (x, text) => !markBox || x + text.length * charWidth < markBox.x || x > markBox.x + markBox.w;
  ctx.fillStyle = theme.muted;
  ctx.fillText(`${fmtDur(st.view.end - st.view.start)} shown`, 8, RULER_H / 2);
  ctx.fillStyle = theme.ink;
  for (const t of ticks) {
    const x = Math.round(xOf(st, t));
    ctx.fillRect(x, RULER_H - 8, 1, 8);
    // A label the right edge would cut ("0.01") is left out; its tick stays.
    const label = fmtTick(t, step);
    if (x + 3 + label.length * charWidth <= st.width && free(x + 3, label)) ctx.fillText(label, x + 3, 9);
  }
  // Step numbers where the band is wide enough.
  ctx.fillStyle = theme.stepInk;
  for (const s of st.layout.steps) {
    const x0 = Math.max(LABEL_W, xOf(st, s.start_ns));
    const x1 = Math.min(st.width, xOf(st, s.end_ns));
    if (x1 - x0 <= 50) continue;
    const label = truncate(ctx, `step ${s.number}`, x1 - x0);
    if (label && free(x0 + 3, label)) ctx.fillText(label, x0 + 3, RULER_H - 7);
  }
  if (markBox) {
    ctx.font = BOLD;
    ctx.fillStyle = theme.markLine;
    ctx.fillRect(markBox.x, RULER_H - 16, markBox.w, 15);
    ctx.fillStyle = theme.bg;
    ctx.fillText(markBox.label, markBox.x + 5, RULER_H - 8);
  }
  ctx.fillStyle = theme.grid;
  ctx.fillRect(0, RULER_H - 1, st.width, 1);
  if (st.mouse && st.mouse.inside && st.mouse.x > LABEL_W) {
    ctx.fillStyle = theme.muted;
    ctx.fillRect(st.mouse.x, RULER_H, 1, st.height - RULER_H);
  }
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
