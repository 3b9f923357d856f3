// The timeline's life: a trace loads (loaded: a new worker session, everything reset), the tab is
// shown (show: the layout is fetched once per trace, then frames), hidden, or drawn off-screen for
// the PNG export before the tab was ever opened.
import { inertName } from '../views/inert.js';
import { renderDetails } from './details.js';
import { renderAggregate } from './aggregate.js';
import { fmtDur } from './units.js';
import { drawerShown, fit, relayout, resize } from './viewport.js';
import { requestDraw, settled } from './frames.js';
import { applyPendingRange, applyPendingSlice, hookSharing } from './sharing.js';

export function ensureLayout(tl) {
  const { live, client, st, dom } = tl;
  if (!live.layoutPromise && client.session !== null) {
    const session = client.session;
    dom.status.textContent = 'Building the timeline…';
    live.layoutPromise = client.request('layout').then((r) => {
      if (session !== client.session) return;
      for (const g of r.layout.groups) {
        g.name = inertName(g.name);
        for (const t of g.tracks) t.name = inertName(t.name);
        for (const c of g.counters) c.name = inertName(c.name);
      }
      Object.assign(st, { layout: r.layout, collapsed: new Set(), expanded: new Set(), showSparse: false, scrollY: 0 });
      relayout(tl);
      fit(tl);
      applyPendingRange(tl);
      if (tl.link.pendingSlice !== null) applyPendingSlice(tl);
      const n = r.layout.groups.reduce((a, g) => a + g.tracks.length, 0);
      // "1 process · 1 track · 885.0 ms span", not "1 processes · 1 tracks · 885.0 ms".
      const count = (k, one, many) => `${k} ${k === 1 ? one : many}`;
      dom.status.textContent = `${count(r.layout.groups.length, 'process', 'processes')} · ${count(n, 'track', 'tracks')} · ${fmtDur(r.layout.span_ns)} span`;
    });
    live.layoutPromise.catch((e) => {
      live.layoutPromise = null;
      dom.status.textContent = `The timeline could not be built: ${e.message}`;
    });
  }
  return live.layoutPromise || Promise.reject(new Error('no trace is loaded'));
}

export async function show(tl) {
  if (tl.onShow) tl.onShow();
  setVisible(tl, true);
  await ensureLayout(tl);
  resize(tl);
  await settled(tl);
}

export function setVisible(tl, v) {
  tl.live.visible = v;
  if (v) {
    resize(tl);
    requestDraw(tl);
    registerPng(tl);
  }
}

function canvasPng(canvas) {
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the timeline canvas gave no image'))), 'image/png'));
}

// The PNG export (share/export.js): the canvas as drawn, or, before the Timeline tab was ever opened
// (a 300x300 blank canvas then, issue 18 item 7), the timeline drawn off-screen at the size the tab
// would have. Not on the rank and compare views, which show no single trace.
export function pngProvider(tl) {
  const { live, dom } = tl;
  const provider = {
    available: () => live.hasTrace && !document.body.dataset.view,
    toBlob: async () => {
      if (!provider.available()) return null;
      if (live.visible) {
        await settled(tl);
        return canvasPng(dom.canvas);
      }
      dom.section.classList.add('tl-offscreen');
      dom.section.hidden = false;
      try {
        live.visible = true;
        await ensureLayout(tl);
        resize(tl);
        await settled(tl);
        return await canvasPng(dom.canvas);
      } finally {
        live.visible = false;
        dom.section.hidden = true;
        dom.section.classList.remove('tl-offscreen');
      }
    },
  };
  return provider;
}

// Only the page's own timeline: a stacked rank's (link.off) is exported by its stack, as one image
// with the others (ranks/stacked.js); registered here, the last rank read replaced the page's.
function registerPng(tl) {
  if (tl.link.off) return;
  const k = window.kinetoscope;
  if (k && typeof k.registerTimeline === 'function') k.registerTimeline(tl.png);
}

// A new trace in the worker's session `session`: everything from the last one goes.
export function loaded(tl, session) {
  const { st, live, dom } = tl;
  // A link's range or slice waiting for a layout was for the trace before: the view replayed for
  // this one (share/view.js, checked against its files) sets them again.
  Object.assign(tl.link, { pendingRange: null, pendingSlice: null, linkedRange: false });
  hookSharing(tl, () => show(tl));
  live.hasTrace = true;
  registerPng(tl);
  tl.client.attach(session);
  Object.assign(live, { layoutPromise: null, namesPromise: null, inflight: null });
  Object.assign(st, { layout: null, geo: null, data: null, selection: null, details: null, hits: null, highlight: null, area: null, aggregate: null, mark: null, scrollY: 0, context: null });
  st.names = new Map();
  st.hues = new Map();
  dom.searchInput.value = '';
  dom.hitCount.textContent = '';
  renderDetails(dom.detailsBox, null, {});
  drawerShown(tl, false);
  renderAggregate(dom.areaBox, null, {});
  if (live.visible) ensureLayout(tl).then(() => requestDraw(tl), () => {});
}
