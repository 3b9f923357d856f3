// The page's last line of defence against a trace too big for WebAssembly memory
// (docs/hardening.md "Limits"): with the module's 4 GB taken, a Session fed a trace must stop with
// the too_large error that points to the CLI (wasm/bindings.cpp keeps a reserve and a new_handler),
// not abort the module; and after it the same module must read the next trace.
//   node tests/wasm/limits.cjs   (KINETOSCOPE_WASM_DIR: the build's wasm/ folder, default build/wasm)
'use strict';
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..', '..');
const wasmDir = path.resolve(root, process.env.KINETOSCOPE_WASM_DIR || 'build/wasm');

function trace(events, from = 0) {
  const parts = [];
  for (let i = from; i < from + events; i++) {
    parts.push(`{"ph":"X","cat":"kernel","name":"k${i % 50}","pid":0,"tid":7,"ts":${i * 3},"dur":2,"args":{"stream":7,"device":0,"correlation":${i}}}`);
  }
  return parts.join(',');
}

// Feeds text as the worker does (web/worker/module.js feed): straight into the importer's buffer.
// False once the session has stopped (feedBuffer gives no address, or the commit fails).
function feedText(M, session, text) {
  const bytes = Buffer.from(text);
  const ptr = session.feedBuffer(bytes.length);
  if (!ptr) return false;
  M.HEAPU8.set(bytes, ptr);
  return session.feedCommit(bytes.length);
}

async function main() {
  const createKinetoscope = require(path.join(wasmDir, 'kinetoscope_wasm.js'));
  const M = await createKinetoscope({ wasmBinary: fs.readFileSync(path.join(wasmDir, 'kinetoscope_wasm.wasm')) });
  let passed = 0;
  let failed = 0;
  const check = (cond, what) => {
    if (cond) passed++;
    else failed++;
    console.log(`${cond ? 'ok  ' : 'FAIL'}  ${what}`);
  };

  const session = new M.Session();
  session.setSource('big.json', false);
  check(feedText(M, session, '{"traceEvents":[' + trace(1000)) === true, 'a session reads the start of a trace');
  // Take (nearly) all the rest of the 4 GB, in blocks ever smaller.
  const blocks = [];
  for (let size = 256 << 20; size >= 64 << 10; size >>= 1) {
    for (let p; (p = M._malloc(size)); ) blocks.push(p);
  }
  const heapMb = M.HEAPU8.length / 2 ** 20;
  console.log(`      memory taken: ${blocks.length} blocks, heap ${heapMb.toFixed(0)} MB`);
  check(heapMb > 3500, 'the module grew to its 4 GB limit');
  // Feed more events: the model outgrows what is left.
  let stopped = false;
  let crashed = null;
  try {
    for (let i = 1000; i < 4_000_000 && !stopped; i += 2000) {
      const ok = feedText(M, session, ',' + trace(2000, i));
      if (ok !== true) stopped = true;
    }
  } catch (e) {
    crashed = e;
  }
  check(!crashed, `no abort while running out of memory${crashed ? `: ${crashed.message}` : ''}`);
  check(stopped, 'feeding stopped once memory ran out');
  const err = JSON.parse(session.errorJson() || 'null');
  check(err && err.code === 'too_large', `errorJson() is too_large: ${JSON.stringify(err)}`);
  check(err && /kinetoscope report big\.json/.test(err.message) && /4 GB/.test(err.message), 'the message names the limit and the CLI command');
  check(session.finish() === false, 'finish() refuses the partial trace');
  session.delete();
  for (const p of blocks) M._free(p);
  // The module is still usable.
  const next = new M.Session();
  next.setSource('small.json', false);
  const fed = feedText(M, next, '{"traceEvents":[' + trace(100) + ']}');
  const done = fed && next.finish();
  const report = done ? JSON.parse(next.reportJson()) : null;
  check(report && report.trace.slices === 100, 'the same module reads the next trace');
  next.delete();
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
