// The frame around the plot: track labels on the left (process groups, tracks, counters) and the
// ruler on top (ticks, step numbers, the mark's length, the pointer's line).
import { GROUP_H, LABEL_W, RULER_H, foldable } from './layout.js';
import { screenY, xOf } from './geometry.js';
import { BOLD, FONT, charPx, measureChar, truncate, truncateKeepingEnd } from './text.js';
import { counterMaxLabel, fmtDur, fmtTick } from './units.js';

// Where a lane's label block (`h` px tall) is drawn: at the lane's top, or, when that is scrolled
// above the plot, at the plot's top edge, but never below the lane's bottom (the next lane's label
// pushes it out, as sticky headers do).
export function stickyTop(y, laneH, h) {
  return Math.max(y, Math.min(RULER_H, y + laneH - h));
}

export function drawLabels(ctx, st, theme, visible) {
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
      // "GPU · " before a name that says GPU already read "GPU · GPU 0".
      const tag = lane.group.gpu && !/^GPU\b/.test(lane.group.name) ? 'GPU · ' : '';
      ctx.fillText(truncate(ctx, `${mark} ${tag}${lane.group.name}`, LABEL_W - 4), 6, y + GROUP_H / 2);
    } else {
      ctx.font = FONT;
      ctx.fillStyle = theme.ink;
      const name = lane.kind === 'track' ? lane.track.name : lane.counter.name;
      const fold = lane.kind === 'track' && foldable(lane.track);
      // Sticky: scrolled deep into a tall thread, its name (and fold control) stays at the top of
      // the plot while any of its rows is on screen, then leaves with the lane's bottom edge.
      const top = stickyTop(y, lane.h, fold || lane.kind === 'counter' ? 36 : 22);
      ctx.fillText(lane.kind === 'track' ? truncateKeepingEnd(ctx, name, LABEL_W - 18, lane.tail) : truncate(ctx, name, LABEL_W - 18), 16, top + Math.min(lane.h, 22) / 2 + 1);
      if (fold) {
        // The fold control of a deep thread (a click on the label toggles it, selection.js).
        ctx.fillStyle = theme.muted;
        const more = lane.folded > 0 ? `▸ ${lane.folded} more rows · show` : '▾ fold to top rows';
        ctx.fillText(truncate(ctx, more, LABEL_W - 18), 16, top + 30);
      }
      if (lane.kind === 'counter') {
        ctx.fillStyle = theme.muted;
        ctx.fillText(truncate(ctx, counterMaxLabel(lane.counter, !!lane.group.gpu), LABEL_W - 18), 16, top + 26);
      }
    }
    ctx.fillStyle = theme.grid;
    ctx.fillRect(0, y + lane.h - 1, st.width, 1);
  }
  ctx.fillStyle = theme.grid;
  ctx.fillRect(LABEL_W - 1, RULER_H, 1, st.height - RULER_H);
}

export function drawRuler(ctx, st, theme, step, ticks) {
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
  const free = (x, text) => !markBox || x + text.length * charPx() < markBox.x || x > markBox.x + markBox.w;
  ctx.fillStyle = theme.muted;
  ctx.fillText(`${fmtDur(st.view.end - st.view.start)} shown`, 8, RULER_H / 2);
  ctx.fillStyle = theme.ink;
  for (const t of ticks) {
    const x = Math.round(xOf(st, t));
    ctx.fillRect(x, RULER_H - 8, 1, 8);
    // A label the right edge would cut ("0.01") is left out; its tick stays.
    const label = fmtTick(t, step);
    if (x + 3 + label.length * charPx() <= st.width && free(x + 3, label)) ctx.fillText(label, x + 3, 9);
  }
  // Step numbers where the band is wide enough.
  ctx.fillStyle = theme.stepInk;
  for (const s of st.layout.steps) {
    const x0 = Math.max(LABEL_W, xOf(st, s.start_ns));
    const x1 = Math.min(st.width, xOf(st, s.end_ns));
    if (x1 - x0 <= 50) continue;
    // Bands inferred from the repeating launches (no step markers) are iterations, not steps.
    const label = truncate(ctx, `${s.inferred ? 'iteration' : 'step'} ${s.number}`, x1 - x0);
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
