// "Show on timeline" (issue 18, item 5) and highlights: a finding's evidence in context, a range, a
// name's occurrences, and setHighlight (a list of slices outlined in their own color, e.g. a critical
// path). Slices come in as ids the worker resolves: byte offsets of events (or an export's row ids,
// as decimal strings: they are past 2^53) or slice indices.
import { inertName } from '../views/inert.js';
import { lowerBound } from './geometry.js';
import { MIN_SPAN_NS, columnsFromBriefs, hitsFrom } from './state.js';
import { reveal, revealPair, showAround } from './viewport.js';
import { requestDraw, settled } from './frames.js';
import { namesList, searchByIds, setHits } from './search.js';
import { select } from './selection.js';
import { show } from './lifecycle.js';

// The details of the slices at `offsets` (those found), by start time.
async function detailsAt(tl, offsets) {
  const r = await tl.client.request('offsets', { offsets }).catch(() => ({ slices: [] }));
  const slices = r.slices.filter((i) => i >= 0);
  const dets = await Promise.all(slices.map((slice) => tl.client.request('details', { slice }).catch(() => null)));
  return dets.map((x) => x && x.details).filter(Boolean).sort((a, b) => a.start_ns - b.start_ns);
}

// The briefs of slices by index (those that exist), by start time.
async function briefsOf(tl, slices) {
  const rs = await Promise.all(slices.map((slice) => tl.client.request('brief', { slice }).catch(() => null)));
  return rs.map((x) => x && x.brief).filter(Boolean).sort((a, b) => a.start_ns - b.start_ns);
}

// A finding's evidence: the window holds the range (a gap), the events given (the op after the gap)
// and their launches on the CPU, with room around them; the range itself is marked; `names`
// highlights every occurrence of those names (N steps through them), else the events; the first
// event is selected.
export async function showEvidence(tl, range, { offsets = [], names = [] } = {}) {
  await show(tl);
  const st = tl.st;
  let lo = range ? range.start_ns : Infinity;
  let hi = range ? range.end_ns : -Infinity;
  const dets = offsets.length ? await detailsAt(tl, offsets) : [];
  for (const d of dets) {
    for (const b of [d, d.partner]) {
      if (!b) continue;
      lo = Math.min(lo, b.start_ns);
      hi = Math.max(hi, b.start_ns + b.dur_ns);
    }
  }
  if (!(lo <= hi)) return tl.snapshot();
  showAround(tl, lo, hi, Math.max((hi - lo) * 0.25, 10e3));
  st.mark = range && range.end_ns > range.start_ns ? { start: range.start_ns, end: range.end_ns } : null;
  const wanted = new Set(names);
  const ids = wanted.size ? (await namesList(tl)).filter((n) => wanted.has(n.name)).map((n) => n.id) : [];
  if (ids.length) {
    tl.dom.searchInput.value = names.length === 1 ? inertName(names[0], 4096) : '';
    await searchByIds(tl, ids, names.length === 1 ? 'every occurrence' : `every occurrence of ${names.length} names`);
  } else if (dets.length) setHits(tl, columnsFromBriefs(dets), 'from the finding');
  if (dets.length) {
    const d = await select(tl, dets[0].slice, { scroll: true });
    // The launch on the CPU and the work on the GPU in view together (when they fit).
    if (d && d.partner) revealPair(tl, d.partner, d);
  }
  await settled(tl);
  return tl.snapshot();
}

export async function showRange(tl, startNs, endNs, offsets = []) {
  await show(tl);
  showAround(tl, startNs, endNs, Math.max((endNs - startNs) * 0.05, MIN_SPAN_NS));
  if (offsets.length) {
    const r = await tl.client.request('offsets', { offsets });
    const briefs = await briefsOf(tl, r.slices.filter((i) => i >= 0));
    setHits(tl, columnsFromBriefs(briefs), 'from the finding');
    if (briefs.length) {
      reveal(tl, briefs[0].track, briefs[0].depth);
      await select(tl, briefs[0].slice);
    }
  }
  await settled(tl);
  return tl.snapshot();
}

// An export's emit_nvtx range names each call of an op: "aten::mm, seq = 12, sizes = [...]" is a
// call of "aten::mm" (the report's op tables list the op; emit_nvtx_op_name, src/analysis/steps.h).
const CALL_ARGS = [', seq = ', ', op_id = ', ', sizes = ', ', input_op_ids = '];
function isCallOf(rangeName, op) {
  return rangeName.startsWith(op) && CALL_ARGS.some((a) => rangeName.startsWith(a, op.length));
}

// Every slice named `name` found (as the search box would; with an op's name, its emit_nvtx
// calls too), the window fitted to them (those overlapping `within` when given).
export async function showName(tl, name, { within = null } = {}) {
  await show(tl);
  const { dom, st } = tl;
  const ids = (await namesList(tl)).filter((n) => n.name === name || isCallOf(n.name, name)).map((n) => n.id);
  // The box shows the name inert (an input field would obey a bidi override too).
  dom.searchInput.value = inertName(name, 4096);
  dom.regexBox.checked = false;
  await searchByIds(tl, ids, 'exact name');
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
      showAround(tl, lo, hi, Math.max((hi - lo) * 0.05, MIN_SPAN_NS));
      const first = lowerBound(hs.start, 0, hs.slice.length, lo);
      reveal(tl, hs.track[first], hs.depth[first]);
    }
  }
  await settled(tl);
  return hs ? hs.slice.length : 0;
}

// Outlines the slices `slices` (slice indices, as state().selection and search hits give them) in
// the highlight color until cleared with null or []; `label` names the set in state().highlight.
// Resolves to the number of slices found. Does not move the view or the selection.
export async function setHighlight(tl, slices, { label = '' } = {}) {
  const st = tl.st;
  const list = Array.isArray(slices) || ArrayBuffer.isView(slices) ? [...slices].filter((i) => Number.isInteger(i) && i >= 0) : [];
  const token = {};
  tl.live.highlightToken = token;
  if (!list.length) {
    st.highlight = null;
    requestDraw(tl);
    return 0;
  }
  // One request for the whole set (a critical path has thousands of events), answered as search
  // hits are: columns by start time.
  const cols = await tl.client.request('slices', { slices: [...new Set(list)] });
  if (tl.live.highlightToken !== token) return 0; // a later call won
  st.highlight = { ...hitsFrom(cols), label: String(label) };
  requestDraw(tl);
  return st.highlight.slice.length;
}
