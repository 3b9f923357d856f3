// The view in the link (web/share/view.js): the window in time (`t`, µs) written a moment after the
// view stops moving; the selected slice (`s`, its event's byte offset, or an Nsight Systems export's
// row id as a decimal string: past 2^53) and the tab (`v`) written quietly on each selection. A link
// that has them opens the Timeline there. Per-timeline link state lives in tl.link.
import { setWindow } from './viewport.js';
import { traceDomain } from './state.js';
import { requestDraw } from './frames.js';

// `off`: a timeline that is not the page's trace (a rank's among the stacked timelines, on its own
// clock) neither writes the link nor follows it: a `t` from one of them, pasted later, moved every
// stacked rank to that rank's window, and it read as a range of the job.
export function createLinkState(off = false) {
  return { off, shareTimer: 0, written: null, writtenSlice: null, pendingSlice: null, pendingRange: null, linkedRange: false, following: false };
}

export function shareViewSoon(tl) {
  const link = tl.link;
  if (link.off) return;
  clearTimeout(link.shareTimer);
  link.shareTimer = setTimeout(() => {
    const k = window.kinetoscope;
    if (!tl.live.visible || !tl.st.layout || !k || typeof k.setView !== 'function') return;
    // The window within the trace: the fitted view pads 1% on each side, and its padding before
    // the first event wrote a time no event has into the link (t=-399.9,...).
    const { start: first, span } = traceDomain(tl.st);
    const from = Math.max(tl.st.view.start, first);
    const to = Math.min(tl.st.view.end, first + span);
    const t = [from / 1e3, (to > from ? to : tl.st.view.end) / 1e3].map((x) => Math.round(x * 1000) / 1000);
    try {
      link.written = t;
      k.setView({ t }, 'timeline');
    } catch {
      /* a view the sharing module refuses is not worth an error here */
    }
  }, 400);
}

// The id a link carries for a slice's details: the exact decimal string when the worker sent one
// (event_id: an export's row id), else the byte offset; null when there is none.
export function linkId(d) {
  if (!d) return null;
  if (typeof d.event_id === 'string' && /^\d+$/.test(d.event_id)) return d.event_id;
  return Number.isInteger(d.file_offset) && d.file_offset >= 0 ? d.file_offset : null;
}

export function shareSelection(tl, d) {
  const k = window.kinetoscope;
  if (tl.link.off || !k || typeof k.setView !== 'function') return;
  const s = linkId(d);
  tl.link.writtenSlice = s;
  try {
    k.setView({ s }, 'timeline', { quiet: true });
  } catch {
    /* as above */
  }
}

export async function applyPendingSlice(tl) {
  const link = tl.link;
  const offset = link.pendingSlice;
  link.pendingSlice = null;
  if (offset === null) return;
  const r = await tl.client.request('offsets', { offsets: [offset] }).catch(() => null);
  const slice = r && r.slices && r.slices[0] >= 0 ? r.slices[0] : -1;
  if (slice < 0) {
    tl.dom.status.textContent = `The linked slice (byte ${offset} of the file) is not in this trace.`;
    return;
  }
  const hadRange = !!link.pendingRange || link.linkedRange;
  await tl.select(slice, { scroll: true });
  if (!hadRange) tl.focus(); // no range in the link: zoom to the slice
  requestDraw(tl);
}

export function applyPendingRange(tl) {
  const link = tl.link;
  if (!link.pendingRange) return;
  setWindow(tl, link.pendingRange[0], link.pendingRange[1]);
  link.pendingRange = null;
}

// What a view change from elsewhere (the URL, a load, another part of the page) means here.
export function followView(tl, v, source, show) {
  if (source === 'timeline' || !v) return;
  const link = tl.link;
  const fromLink = source === 'url' || source === 'load';
  const ownSlice = source === 'load' && v.s !== undefined && v.s === link.writtenSlice;
  if (fromLink && v.s !== undefined && !ownSlice) link.pendingSlice = v.s;
  const written = link.written;
  // A range this timeline wrote while showing the previous trace is not a link to the next one: a
  // newly loaded trace opens fitted, unless the range came from the link or was edited.
  if (v.t && !(source === 'load' && written && v.t[0] === written[0] && v.t[1] === written[1])) {
    link.pendingRange = [v.t[0] * 1e3, v.t[1] * 1e3];
    link.linkedRange = true;
    if (tl.st.layout) applyPendingRange(tl);
  }
  if (fromLink && v.v === 'timeline' && !ownSlice && !(source === 'load' && written && v.t && v.t[0] === written[0])) {
    show().then(() => applyPendingSlice(tl), () => {});
  } else if (link.pendingSlice !== null && tl.st.layout) applyPendingSlice(tl);
}

// window.kinetoscope (app.js) exists only after the timeline is set up: hook in on first use.
export function hookSharing(tl, show) {
  const k = window.kinetoscope;
  if (tl.link.off || tl.link.following || !k || typeof k.onViewChange !== 'function') return;
  tl.link.following = true;
  k.onViewChange((v, source) => followView(tl, v, source, show));
  if (typeof k.view === 'function') followView(tl, k.view(), 'load', show);
}
