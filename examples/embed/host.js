// The host side of Kinetoscope's postMessage handshake (docs/sharing.md):
//   1. open Kinetoscope (window.open or an iframe) and keep the trace's bytes ready;
//   2. on {type:'kinetoscope-ready'} from that window, post
//      {type:'kinetoscope-open', name, buffer} and transfer the ArrayBuffer;
//   3. Kinetoscope answers {type:'kinetoscope-loaded', ok, name, findings | error}.
'use strict';

const kinetoscope = new URL(new URLSearchParams(location.search).get('kinetoscope') || '../../dist/', location.href);
// Kinetoscope answers only origins it allows: its own, those its host configured, and ?embed=.
// A host at an opaque origin (this page opened from file://) is never answered: serve it over
// http(s) (node scripts/serve.mjs) to try it.
if (location.origin !== 'null' && location.origin !== kinetoscope.origin) kinetoscope.searchParams.append('embed', location.origin);
// A file:// Kinetoscope has an opaque origin ('null'), which postMessage can only reach with '*'.
const targetOrigin = kinetoscope.origin === 'null' ? '*' : kinetoscope.origin;
const $ = (id) => document.getElementById(id);
let pending = null; // {name, buffer}: the trace waiting for Kinetoscope to be ready
let target = null; // the Kinetoscope window

function log(text) {
  const li = document.createElement('li');
  li.textContent = text;
  $('log').append(li);
}

window.addEventListener('message', (e) => {
  if (!target || e.source !== target) return; // only the Kinetoscope window this page opened
  const m = e.data || {};
  if (m.type === 'kinetoscope-ready') {
    log('kinetoscope-ready');
    if (!pending) return;
    const { name, buffer } = pending;
    pending = null;
    target.postMessage({ type: 'kinetoscope-open', name, buffer }, targetOrigin, [buffer]);
    log(`kinetoscope-open ${name} (${buffer.byteLength} bytes, transferred)`);
  } else if (m.type === 'kinetoscope-loaded') {
    log(m.ok ? `kinetoscope-loaded ok: ${m.name}, ${m.findings} findings` : `kinetoscope-loaded failed: ${m.error.code}: ${m.error.message}`);
    document.body.dataset.loaded = m.ok ? 'ok' : 'error';
  }
});

async function openTrace(how) {
  const file = $('trace').files[0];
  if (!file) {
    log('pick a trace first');
    return;
  }
  pending = { name: file.name, buffer: await file.arrayBuffer() };
  if (how === 'tab') {
    target = window.open(kinetoscope.href, '_blank'); // not noopener: Kinetoscope answers its opener
    if (!target) log('the browser blocked the new tab');
  } else {
    const frame = $('frame');
    frame.hidden = false;
    frame.src = kinetoscope.href;
    target = frame.contentWindow;
  }
}

$('where').textContent = kinetoscope.href;
$('in-tab').addEventListener('click', () => openTrace('tab'));
$('in-frame').addEventListener('click', () => openTrace('frame'));
