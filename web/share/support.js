// What this browser lacks, said once at the top of the page instead of failing later with an
// obscure error. Checked by feature, never by browser name.
//   WebAssembly        the analyzer is C++ compiled to WebAssembly: nothing works without it
//                      (it can be switched off by policy, e.g. Safari's Lockdown Mode)
//   Worker             the analyzer runs in a Web Worker
//   Blob.stream        files are read as streams, never whole
//   DecompressionStream  gzip (.json.gz); plain .json still works without it
import { h } from '../views/dom.js';

export function missingFeatures(win = window) {
  const missing = [];
  if (typeof win.WebAssembly !== 'object' || typeof win.WebAssembly.instantiate !== 'function') {
    missing.push({ feature: 'WebAssembly', fatal: true, effect: 'the analyzer cannot run at all' });
  }
  if (typeof win.Worker !== 'function') missing.push({ feature: 'Web Workers', fatal: true, effect: 'the analyzer cannot start' });
  if (typeof win.Blob !== 'function' || typeof win.Blob.prototype.stream !== 'function') {
    missing.push({ feature: 'Blob.stream()', fatal: true, effect: 'files cannot be read' });
  }
  if (typeof win.DecompressionStream !== 'function') {
    missing.push({ feature: 'DecompressionStream', fatal: false, effect: 'gzipped traces (.json.gz) cannot be read; plain .json works (run gunzip first)' });
  }
  return missing;
}

// Puts the message under the header; returns the list (empty when all is there).
export function showSupportNote(before) {
  const missing = missingFeatures();
  if (!missing.length) return missing;
  const fatal = missing.some((m) => m.fatal);
  const note = h(
    'div',
    { id: 'support', className: `support-note${fatal ? ' fatal' : ''}`, role: 'alert' },
    h('strong', null, fatal ? 'This browser cannot run Kinetoscope. ' : 'This browser can run Kinetoscope, with a limit. '),
    missing.map((m) => h('span', { className: 'support-item' }, `No ${m.feature}: ${m.effect}. `)),
    'A current Chrome, Edge, Firefox or Safari has everything needed.',
  );
  before.parentNode.insertBefore(note, before);
  return missing;
}
