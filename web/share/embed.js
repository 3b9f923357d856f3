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
// Only the window that opened this page, or the page that frames it, is listened to: those are
// the relations the user made. Replies go to that window only, at the origin it sent from.
import { setView } from './view.js';

const API_VERSION = 1;

function hostWindow() {
  if (window.opener && window.opener !== window) return window.opener;
  if (window.parent && window.parent !== window) return window.parent;
  return null;
}

// A window at an opaque origin (a file:// page, a sandboxed frame) can only be reached with '*'.
const targetOf = (origin) => (origin && origin !== 'null' ? origin : '*');

function toBlob(buffer) {
  if (buffer instanceof Blob) return buffer;
  if (buffer instanceof ArrayBuffer || ArrayBuffer.isView(buffer)) return new Blob([buffer]);
  return null;
}

export function initEmbedding({ open }) {
  const host = hostWindow();
  const ready = { type: 'kinetoscope-ready', api: API_VERSION };

  window.addEventListener('message', async (e) => {
    const m = e.data;
    if (!m || typeof m !== 'object' || typeof m.type !== 'string' || !m.type.startsWith('kinetoscope-')) return;
    const from = hostWindow();
    if (!from || e.source !== from) return; // not our opener or parent
    const reply = (msg) => e.source.postMessage(msg, targetOf(e.origin));
    if (m.type === 'kinetoscope-ping') {
      reply(ready);
      return;
    }
    if (m.type !== 'kinetoscope-open') return;
    const name = typeof m.name === 'string' && m.name ? m.name : 'trace.json';
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
    try {
      const report = await open(blob, name);
      const findings = Array.isArray(report.findings) ? report.findings.length : 0;
      reply({ type: 'kinetoscope-loaded', ok: true, name, findings, ...(m.wantReport ? { report } : {}) });
    } catch (err) {
      const error = { code: err.code || 'unknown', message: err.message };
      if (typeof err.offset === 'number') error.offset = err.offset;
      reply({ type: 'kinetoscope-loaded', ok: false, name, error });
    }
  });

  if (host) {
    try {
      host.postMessage(ready, '*'); // carries nothing private: any origin may learn the page started
    } catch {
      // a host that went away
    }
  }
}
