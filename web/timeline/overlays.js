// What is drawn over the slices: search hits, a highlighted set of slices (setHighlight: a critical
// path, say), the selection with its links (arrows to its launch, its kernel, its flows), and
// ranges (the mark, the area selection).
import { LABEL_W, ROW_H, RULER_H } from './layout.js';
import { lowerBound, rowY, xOf } from './geometry.js';

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

// Outlines the slices of `h` (columns by start time: slice, start, end, track, depth; maxDur) that are
// on screen, up to 4000 of them.
function drawMarked(ctx, st, h, color, width) {
  if (!h || !h.slice.length) return;
  const n = h.slice.length;
  let k = lowerBound(h.start, 0, n, st.view.start - h.maxDur);
  let drawn = 0;
  ctx.strokeStyle = color;
  ctx.lineWidth = width;
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

export function drawHits(ctx, st, theme) {
  drawMarked(ctx, st, st.hits, theme.hit, 2);
  // The highlighted set (timeline.setHighlight) in its own color, over the hits.
  if (st.highlight) drawMarked(ctx, st, st.highlight, theme.highlight || theme.link, 2.5);
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

export function drawSelection(ctx, st, theme) {
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

export function drawRange(ctx, st, fill, line, start, end, top, bottom) {
  const x0 = Math.max(LABEL_W, xOf(st, start));
  const x1 = Math.min(st.width, xOf(st, end));
  if (x1 < LABEL_W || x0 > st.width) return;
  ctx.fillStyle = fill;
  ctx.fillRect(x0, top, Math.max(1, x1 - x0), bottom - top);
  ctx.fillStyle = line;
  ctx.fillRect(x0, top, 1, bottom - top);
  ctx.fillRect(x1 - 1, top, 1, bottom - top);
}
