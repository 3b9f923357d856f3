// Embedding, as Perfetto does it: another page opens Kinetoscope (window.open or an <iframe>) and
// hands it a trace by postMessage. The handshake (docs/sharing.md; examples/embed/host.html):
//
//   Kinetoscope -> host  {type:'kinetoscope-ready', api:1}        when the page has started
//   host -> Kinetoscope  {type:'kinetoscope-open', name, buffer, view?, wantReport?}
//                        buffer: an ArrayBuffer (transfer it), a typed array, a Blob or a File;
//                        view: {f, t, r} as in a deep link; wantReport: send the report back
//   Kinetoscope -> host  {type:'kinetoscope-loaded', ok:true, name, findings, report?}
//                     or {type:'kinetoscope-loaded', ok:false, name, error:{code, message, offset?}}
//   host -> Kinetoscope  {type:'kinetoscope-ping'}  answered with 'kinetoscope-ready' (for a host
//                        whose listener started late)
//
// Who may drive the page (issue 17: a page of any origin that framed or opened Kinetoscope could
// load data under any name, replace the user's trace with a forged one, and read the reply):
// - only the window that opened this page, or the page that frames it (the relations the user
//   made), and only when its origin is allowed: this page's own origin, the origins in
//   <meta name="kinetoscope-embed-origins"> (scripts/dist.mjs --embed-origin), and ?embed=ORIGIN
//   in this page's URL (repeatable). An opaque origin (a file:// page, a sandboxed frame) is never
//   allowed: it can only be answered with '*', which reaches whatever page that window shows next.
// - every message goes to the exact allowed origin: if the host navigated elsewhere meanwhile,
//   the browser drops it.
// - a trace the user opened (drop, file picker, ?url=) is never replaced from outside: the host
//   is told `busy`, without the user's file name.
import { setView } from './view.js';

const API_VERSION = 1;

function hostWindow() {
  if (window.opener && window.opener !== window) return window.opener;
  if (window.parent && window.parent !== window) return window.parent;
  return null;
}

// "https://a.example:8443/any/path" -> "https://a.example:8443"; null for anything else (opaque
// origins, other schemes, text that is not a URL).
export function originOf(text) {
  try {
    const u = new URL(String(text).trim());
    return /^https?:$/.test(u.protocol) && u.origin !== 'null' ? u.origin : null;
  } catch {
    return null;
  }
}

export function allowedOrigins(loc = window.location, doc = document) {
  const out = new Set();
  const own = originOf(loc.href);
  if (own) out.add(own);
  const meta = doc.querySelector('meta[name="kinetoscope-embed-origins"]');
  const listed = [(meta && meta.getAttribute('content')) || '', ...new URLSearchParams(loc.search).getAll('embed')];
  for (const text of listed)
    for (const part of text.split(/[\s,]+/)) {
      const o = part && originOf(part);
      if (o) out.add(o);
    }
  return out;
}

function toBlob(buffer) {
  if (buffer instanceof Blob) return buffer;
  if (buffer instanceof ArrayBuffer || ArrayBuffer.isView(buffer)) return new Blob([buffer]);
  return null;
}

// Posts without throwing: the host may have closed or navigated away meanwhile.
function post(target, msg, origin) {
  try {
    if (target && typeof target.postMessage === 'function') target.postMessage(msg, origin);
  } catch {
    // gone
  }
}

// `open(blob, name)` loads a trace and resolves with its report object; `shown()` returns the
// report object on screen (null when none).
export function initEmbedding({ open, shown = () => null }) {
  const host = hostWindow();
  const allowed = allowedOrigins();
  const ready = { type: 'kinetoscope-ready', api: API_VERSION };
  let embedded = null; // the report object the host's last open produced
  let loading = false;

  window.addEventListener('message', async (e) => {
    const m = e.data;
    if (!m || typeof m !== 'object' || typeof m.type !== 'string' || !m.type.startsWith('kinetoscope-')) return;
    const from = hostWindow();
    if (!from || e.source !== from) return; // not our opener or parent
    if (!allowed.has(e.origin)) {
      console.warn(`Kinetoscope: ignored ${m.type} from ${e.origin}: not an allowed embedding origin (docs/sharing.md, ?embed=ORIGIN)`);
      return;
    }
    const source = e.source;
    const origin = e.origin; // exact and not opaque: allowedOrigins() never holds 'null'
    const reply = (msg) => post(source, msg, origin);
    if (m.type === 'kinetoscope-ping') {
      reply(ready);
      return;
    }
    if (m.type !== 'kinetoscope-open') return;
    const name = typeof m.name === 'string' && m.name ? m.name : 'trace.json';
    const current = shown();
    // The user's own work wins: a report on screen that the host did not open (a trace, the
    // ranks of a job, a comparison: each view calls shown()), and a load the user started that
    // is still running (<body data-state="loading"> while it is not the host's), which an open
    // from here would cancel.
    const userLoading = !loading && document.body.dataset.state === 'loading';
    if (loading || userLoading || (current && current !== embedded)) {
      const error = { code: 'busy', message: 'the page shows a trace the user opened (or is loading one); it is not replaced without the user' };
      reply({ type: 'kinetoscope-loaded', ok: false, name, error });
      return;
    }
    const blob = toBlob(m.buffer);
    if (!blob) {
      const error = { code: 'bad_message', message: 'kinetoscope-open needs `buffer`: an ArrayBuffer, a typed array or a Blob' };
      reply({ type: 'kinetoscope-loaded', ok: false, name, error });
      return;
    }
    if (m.view && typeof m.view === 'object') {
      try {
        setView(m.view, 'embed');
      } catch {
        // a bad view in the message does not stop the trace from opening
      }
    }
    loading = true;
    try {
      const report = await open(blob, name);
      embedded = report;
      const findings = report && Array.isArray(report.findings) ? report.findings.length : 0;
      reply({ type: 'kinetoscope-loaded', ok: true, name, findings, ...(m.wantReport ? { report } : {}) });
    } catch (err) {
      // A load the user cut short by opening their own file: say so without naming that file.
      const error =
        err && err.code === 'cancelled'
          ? { code: 'cancelled', message: 'the load was cancelled: another trace was opened' }
          : { code: (err && err.code) || 'unknown', message: String((err && err.message) || err) };
      if (err && typeof err.offset === 'number') error.offset = err.offset;
      reply({ type: 'kinetoscope-loaded', ok: false, name, error });
    } finally {
      loading = false;
    }
  });

  // The ready message carries nothing private, but goes only to allowed origins (a host at any
  // other origin gets nothing at all).
  if (host) for (const o of allowed) post(host, ready, o);
}
