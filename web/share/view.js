// The view, kept in the URL fragment so that a link pasted to a teammate who opens the same trace
// lands on the same place (docs/sharing.md):
//
//   #f=gpu.idle&t=1200.5,3400&r=3
//
//   f  the selected finding, by its rule id (report.findings[].id)
//   t  a time range START,END in µs from the trace start (the report's `_us` convention)
//   r  the selected rank
//   v  the tab: timeline or report
//   s  the selected slice, by its event's byte offset in the trace file (stable across loads)
//   n  the trace's file name: only in copied links (export.js), so that a page opened from a
//      link without the trace can say which trace to open (link-prompt.js); the ranks of a job
//      opened together name every file, one per line, in the order they were read
//   c  1: the two files in `n` are compared, BASE then TEST (the compare view's links)
//
// A fragment without '=' (#kernels, a section anchor) is not a view and is left alone.
//
// This module is also the hook API between parts of the page that do not import each other (the
// timeline, the rank views, the findings list): setView(change, source) when the user selects
// something, onViewChange(fn) to follow the view. Both are on window.kinetoscope too.

const listeners = new Set();
let view = parseFragment(location.hash) || {};
// Whether the view was made on this page (a click, the timeline's window) rather than brought by a
// link, the fragment or Back: a view made on one trace means nothing on the next one opened.
let madeHere = false;

const round3 = (x) => String(Number(x.toFixed(3)));

// A slice id (`s`): a byte offset, a number; or an Nsight Systems export's row id, past 2^53 and so
// kept as its decimal string (up to 2^64 - 1) to stay exact. null for anything else.
export function sliceId(v) {
  if (Number.isSafeInteger(v) && v >= 0) return v;
  if (typeof v !== 'string' || !/^\d{1,20}$/.test(v)) return null;
  if (v.length <= 15) return Number(v);
  return BigInt(v) < 2n ** 64n ? String(BigInt(v)) : null;
}

// '#f=a&t=1,2&r=0' -> {f:'a', t:[1,2], r:0}; null when the fragment holds no view. Unknown keys and
// malformed values are dropped, so a mangled link still opens the page.
export function parseFragment(hash) {
  const text = String(hash || '').replace(/^#/, '');
  if (!text.includes('=')) return null;
  const out = {};
  for (const part of text.split('&')) {
    const at = part.indexOf('=');
    if (at < 0) continue;
    const key = part.slice(0, at);
    let value;
    try {
      value = decodeURIComponent(part.slice(at + 1));
    } catch {
      continue;
    }
    if (key === 'f' && value) out.f = value;
    // A rank is an index: 400 digits read as Infinity ("rank Infinity"), which setView refuses.
    else if (key === 'r' && /^\d{1,15}$/.test(value)) out.r = Number(value);
    else if (key === 'v' && (value === 'timeline' || value === 'report')) out.v = value;
    else if (key === 's' && sliceId(value) !== null) out.s = sliceId(value);
    else if (key === 'n' && value) out.n = value.slice(0, 8192); // a job's files, one per line
    else if (key === 'c' && value === '1') out.c = true;
    else if (key === 't') {
      const m = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(value);
      // 400 digits read as Infinity, and an infinite range made the timeline's window NaN.
      const [a, b] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
      if (Number.isFinite(a) && Number.isFinite(b) && a <= b) out.t = [a, b];
    }
  }
  return out;
}

// The inverse of parseFragment, in a fixed key order (f, t, r, v, s, n, c) so equal views give
// equal links.
export function formatFragment(v) {
  const parts = [];
  if (v.f) parts.push(`f=${encodeURIComponent(v.f)}`);
  if (v.t) parts.push(`t=${round3(v.t[0])},${round3(v.t[1])}`);
  if (v.r !== undefined && v.r !== null) parts.push(`r=${v.r}`);
  if (v.v) parts.push(`v=${v.v}`);
  if (v.s !== undefined && v.s !== null) parts.push(`s=${v.s}`);
  if (v.n) parts.push(`n=${encodeURIComponent(v.n)}`);
  if (v.c) parts.push('c=1');
  return parts.join('&');
}

// The link to this view for someone else: the fragment plus the trace's name (`n`), and `c` when
// the names are two traces compared.
export function linkTo(name, compared = false) {
  const frag = formatFragment({ ...view, n: name || view.n, c: compared });
  return location.href.replace(/#.*$/, '') + (frag ? `#${frag}` : '');
}

// The view a link brought (the page's URL, or a fragment edited or followed), for the first
// report shown after it: the ranks view opens the link's rank (ranks/mode.js). Taken once: a job
// opened later is not moved by an old link. Switching tabs does not count as a view made here.
let linked = parseFragment(location.hash);
export function takeLinkedView() {
  const out = linked;
  linked = null;
  return out;
}

// The files the link was made for (its `n`), until files with those names are opened: the reports
// shown meanwhile are of other files, and the link's finding, range, slice and rank are not theirs
// (before, a link's rank 3 and finding opened on whatever job was dropped, and said nothing).
let linkFiles = filesOf(view);
let linkCompared = !!view.c; // the link's files are BASE then TEST, compared (its `c`)
let held = null; // the link's {f, t, s, r}, kept back while other files are open
let mismatch = null; // {opened, missing, extra, way, files, count, held}: what the report head says
let openedNow = null; // the names of the files on screen, as checkLinkFiles last had them
let waiting = false; // a link pasted while a trace was being read, for the report that load shows

function filesOf(v) {
  return v && v.n ? v.n.split('\n').filter(Boolean) : null;
}

// The names in `a` that `b` lacks, counted (two files may share a name in different folders).
function lacking(a, b) {
  const left = new Map();
  for (const x of b) left.set(x, (left.get(x) || 0) + 1);
  return a.filter((x) => {
    const k = left.get(x) || 0;
    if (k) left.set(x, k - 1);
    return !k;
  });
}

// Whether the opened files are the link's in the wrong way: a comparison's link is for BASE then
// TEST, and the same two files swapped (or opened as ranks) show the deltas with the other sign.
function otherWay(names, compared) {
  if (!linkCompared && !compared) return null;
  if (linkCompared !== compared) return linkCompared ? 'not compared' : 'compared';
  return names.join('\n') === linkFiles.join('\n') ? null : 'swapped';
}

// Called with the names of the files (one per line) before their report is shown (`compared`: BASE
// and TEST of a comparison). When the link named other files: its view is kept back (and restored
// once its files are opened) and the difference is returned, for the report head (linkMismatch);
// else null.
export function checkLinkFiles(opened, compared = false) {
  openedNow = opened;
  waiting = false; // a report has come: the link that waited is checked against it now
  if (!linkFiles) return null;
  const names = String(opened || '').split('\n').filter(Boolean);
  const missing = lacking(linkFiles, names);
  const extra = lacking(names, linkFiles);
  const way = missing.length || extra.length ? null : otherWay(names, compared);
  if (!missing.length && !extra.length && !way) {
    if (held) {
      Object.assign(view, held);
      held = null;
      madeHere = false;
      linked = currentView();
      writeFragment();
    }
    linkFiles = null;
    linkCompared = false;
    mismatch = null;
    return null;
  }
  if (!held) {
    held = {};
    for (const key of ['f', 't', 's', 'r']) if (view[key] !== undefined) held[key] = view[key];
    // The address bar keeps the link as it came (a reload brings it back whole): only the view
    // the page applies loses them.
    for (const key of Object.keys(held)) delete view[key];
  }
  linked = null;
  mismatch = { opened: names.join('\n'), missing, extra, way, files: [...linkFiles], count: linkFiles.length, held: { ...held } };
  return mismatch;
}

// The difference checkLinkFiles found for the files `opened`, or null.
export function linkMismatch(opened) {
  return mismatch && mismatch.opened === String(opened || '').split('\n').filter(Boolean).join('\n') ? mismatch : null;
}

export function currentView() {
  return { ...view, ...(view.t ? { t: [...view.t] } : {}) };
}

function normalize(change) {
  const out = {};
  for (const [key, value] of Object.entries(change || {})) {
    if (value === null || value === undefined) out[key] = undefined;
    else if (key === 'f') out.f = String(value);
    else if (key === 'r' && Number.isInteger(value) && value >= 0) out.r = value;
    else if (key === 'v' && (value === 'timeline' || value === 'report')) out.v = value;
    else if (key === 's' && sliceId(value) !== null) out.s = sliceId(value);
    else if (key === 'n') out.n = String(value);
    else if (key === 'c') out.c = !!value || undefined;
    else if (key === 't' && Array.isArray(value) && value.length === 2 && value.every(Number.isFinite)) {
      out.t = value[0] <= value[1] ? [value[0], value[1]] : [value[1], value[0]];
    } else throw new TypeError(`setView: bad value for ${key}: ${JSON.stringify(value)}`);
  }
  return out;
}

function notify(source) {
  const v = currentView();
  for (const fn of [...listeners]) {
    try {
      fn(v, source);
    } catch (e) {
      console.error('kinetoscope: a view listener failed:', e);
    }
  }
}

// Merges `change` into the view ({f}, {t:[start,end]}, {r}; null removes a key), writes the fragment
// (replaceState: selecting things does not fill the history; the views a user moves between get
// entries of their own, history.js) and tells every listener.
// `{quiet: true}`: only the fragment changes, nobody is told (the tab and the selected slice: the
// others have nothing to do about them, and a finding list told of every click would scroll).
export function setView(change, source = 'page', { quiet = false } = {}) {
  const next = { ...view, ...normalize(change) };
  for (const key of Object.keys(next)) if (next[key] === undefined) delete next[key];
  view = next;
  // The tab is no part of a trace: switching it (as the ranks view does when it opens) leaves a
  // link's finding and range for the report they were brought for.
  if (Object.keys(change || {}).some((key) => key !== 'v')) madeHere = true;
  writeFragment();
  if (!quiet) notify(source);
}

function writeFragment() {
  const frag = formatFragment(view);
  const url = location.href.replace(/#.*$/, '') + (frag ? `#${frag}` : '');
  if (url !== location.href) history.replaceState(history.state, '', url);
  lastHash = location.hash;
}

// Another trace replaces the one the view was made on: its time range, slice, finding and rank go
// (they were the old trace's: after resnet50's timeline at 48-60 ms, the next file opened said
// "Linked range: 48.0 ms → 60.0 ms"). A view from a link or from Back stays: it is for the trace
// opened.
export function forgetPreviousTrace() {
  if (!madeHere) return;
  for (const key of ['t', 's', 'f', 'r']) delete view[key];
  writeFragment();
}

// fn(view, source) on every change; source is who changed it: 'url' (the fragment was edited or a
// link followed), 'load' (a trace finished loading: apply the view to it), or the setView caller's
// name ('findings', 'timeline', ...). Returns a function that unsubscribes.
export function onViewChange(fn) {
  if (typeof fn !== 'function') throw new TypeError('onViewChange takes a function');
  listeners.add(fn);
  return () => listeners.delete(fn);
}

// After a trace loads: hand the view (from the link) to everyone, to apply to the new report.
export function replayView() {
  notify('load');
}

// Back/Forward to one of the page's own entries (history.js): that module shows the entry's view
// again; the fragment it brings is taken as the view quietly, not as a link to follow (the
// hashchange that follows it is skipped).
let traversed = null;
let lastHash = location.hash; // the fragment as this module last saw it
window.addEventListener('popstate', (e) => {
  const moved = location.hash !== lastHash;
  lastHash = location.hash;
  if (!e.state || !e.state.ks) return;
  view = parseFragment(location.hash) || {};
  madeHere = false;
  // One of the page's own entries: a view made here, not a link whose files are awaited.
  linkFiles = null;
  linkCompared = false;
  held = null;
  mismatch = null;
  traversed = moved ? location.hash : null; // no hashchange comes when the fragment is the same
});

window.addEventListener('hashchange', () => {
  lastHash = location.hash;
  if (traversed !== null && traversed === location.hash) {
    traversed = null;
    return;
  }
  traversed = null;
  const parsed = parseFragment(location.hash);
  if (!parsed) return; // a section anchor: not a view
  view = parsed;
  madeHere = false;
  linked = { ...parsed };
  linkFiles = filesOf(parsed);
  linkCompared = !!parsed.c;
  held = null;
  mismatch = null;
  // A link pasted while a trace is being read waits for that load: the report on screen is about to
  // go, and the one that comes is checked against the link's files when it is shown (before, a link
  // made for the report on screen was taken as applied there, and its finding and range then opened
  // on the trace that arrived).
  waiting = document.body.dataset.state === 'loading';
  if (!waiting) applyPasted();
});

function applyPasted() {
  // A link pasted over a report already on screen: checked against its files before anyone applies it.
  if (openedNow !== null) checkLinkFiles(openedNow);
  notify('url');
}

// A load ended without a report (cancelled, or it failed): a link that waited for it is for the
// report still on screen (app.js calls this as each load settles).
export function loadSettled(state) {
  if (!waiting || state === 'loading') return;
  waiting = false;
  applyPasted();
}
