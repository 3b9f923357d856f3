// The selection controller: a clicked (or linked, or searched) slice with its details in the
// drawer, its links drawn as arrows, the stack above it read after the first paint; focus (F), the
// mark (M) and Esc. Hit testing a click is geometry.js hitAt.
import { hitAt, plotWidth } from './geometry.js';
import { foldable } from './layout.js';
import { MIN_SPAN_NS } from './state.js';
import { renderDetails } from './details.js';
import { sliceContext } from './context.js';
import { mergedAt } from './merged.js';
import { centerOn, drawerShown, keepInView, relayout, reveal, setWindow, showAround } from './viewport.js';
import { requestDraw } from './frames.js';
import { shareSelection } from './sharing.js';
import { closeRun, selectRun } from './runs.js';
import { areaCancel } from './area.js';
import { setHits } from './search.js';

export async function select(tl, slice, { scroll = false } = {}) {
  const { st, client, dom } = tl;
  if (st.run) Object.assign(st, { run: null, runAggregate: null, mark: null });
  if (slice === null || slice === undefined || slice < 0) {
    st.selection = null;
    st.details = null;
    renderDetails(dom.detailsBox, null, {});
    drawerShown(tl, false);
    if (tl.link.writtenSlice !== null) shareSelection(tl, null);
    requestDraw(tl);
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
    [b, fl, det] = await Promise.all([client.request('brief', { slice }), client.request('flows', { slice }), client.request('details', { slice })]);
  } catch (e) {
    if (e.code !== 'stale') dom.status.textContent = `Could not read slice ${slice}: ${e.message}`;
    return null;
  }
  if (st.selection !== sel || session !== client.session) return null;
  sel.brief = b.brief;
  sel.links = fl.flows.links;
  sel.briefs = new Map(fl.flows.slices.map((x) => [x.slice, x]));
  st.details = det.details;
  const onSelect = (i) => select(tl, i, { scroll: true }).then(() => centerOn(tl, st.selection && st.selection.brief));
  renderDetails(dom.detailsBox, det.details, { flows: fl.flows, onSelect, context: null, zero: st.layout && st.layout.time_zero });
  drawerShown(tl, !!det.details);
  shareSelection(tl, det.details);
  // Selected by a click too: a slice the drawer now covers is scrolled above it.
  if (scroll && sel.brief) reveal(tl, sel.brief.track, sel.brief.depth);
  else if (sel.brief) keepInView(tl, sel.brief.track, sel.brief.depth);
  requestDraw(tl);
  // The stack above it, read after the first paint of the drawer.
  const read = (i) => client.request('details', { slice: i }).then((r) => r.details, () => null);
  sliceContext(det.details, read).then((context) => {
    if (st.selection !== sel || session !== client.session) return;
    st.context = context;
    renderDetails(dom.detailsBox, det.details, { flows: fl.flows, onSelect, context, zero: st.layout && st.layout.time_zero });
    drawerShown(tl, true); // its height may have changed
    if (sel.brief) keepInView(tl, sel.brief.track, sel.brief.depth);
    requestDraw(tl);
  });
  return det.details;
}

// F: the area selection, else the selected slice, fills the window.
export function focus(tl) {
  const st = tl.st;
  if (st.area) return setWindow(tl, st.area.start, st.area.end);
  const b = st.selection && st.selection.brief;
  if (!b) return;
  showAround(tl, b.start_ns, b.start_ns + b.dur_ns, Math.max(b.dur_ns * 0.15, MIN_SPAN_NS));
  reveal(tl, b.track, b.depth);
}

// M: marks the area selection's range, else the selected slice's, else clears the mark.
export function markRange(tl) {
  const st = tl.st;
  const b = st.selection && st.selection.brief;
  if (st.area) st.mark = { start: st.area.start, end: st.area.end };
  else if (b) st.mark = { start: b.start_ns, end: b.start_ns + b.dur_ns };
  else st.mark = null;
  requestDraw(tl);
}

// Esc: closes the innermost thing open (a run, the area, the selection, the mark, the hits).
export function clear(tl) {
  const st = tl.st;
  if (st.run) closeRun(tl);
  else if (st.area) areaCancel(tl);
  else if (st.selection) select(tl, null);
  else if (st.mark) st.mark = null;
  else setHits(tl, null, '');
  requestDraw(tl);
}

export async function clickAt(tl, x, y) {
  const st = tl.st;
  const hit = hitAt(st, x, y);
  if (!hit) return;
  const { lane, depth, t } = hit;
  if (lane.kind === 'group' || !hit.inPlot) {
    if (lane.kind === 'group') {
      if (lane.closed) st.collapsed.delete(lane.key);
      else st.collapsed.add(lane.key);
      relayout(tl);
    } else if (lane.kind === 'track' && foldable(lane.track)) {
      // The label of a deep thread is its fold control: all rows, or the top few again.
      if (st.expanded.has(lane.track.id)) st.expanded.delete(lane.track.id);
      else st.expanded.add(lane.track.id);
      relayout(tl);
    }
    return;
  }
  if (lane.kind !== 'track') return;
  if (depth < 0 || depth >= lane.rows) return select(tl, null);
  const nsPerPx = (st.view.end - st.view.start) / plotWidth(st);
  // A merged box: the run, not one of its slices.
  const run = mergedAt(st, lane, depth, t, nsPerPx);
  if (run) return selectRun(tl, run);
  const r = await tl.client.request('sliceAt', { track: lane.track.id, depth, t, tolerance: 3 * nsPerPx }).catch(() => ({ slice: -1 }));
  return select(tl, r.slice >= 0 ? r.slice : null);
}
