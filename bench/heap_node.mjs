#!/usr/bin/env node
// The WASM model's memory in Node (issue #19: bytes per event): the resident bytes of the module's
// memory (its mapping in /proc/self/smaps, found by its size) after the feed, after finish() and
// after the report, without the page's prefault (worker/prefault.js), which writes memory ahead.
// Resident bytes do not depend on the machine's load.
//   node bench/heap_node.mjs [--warm] [TRACE]   (--warm: the spare's warm-up alone, then TRACE)
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const create = require(root + '/build/wasm/kinetoscope_wasm.js');
const { warmModule } = await import(root + '/web/worker/warm.js');
const { feed } = await import(root + '/web/worker/module.js');
const M = await create({ wasmBinary: readFileSync(root + '/build/wasm/kinetoscope_wasm.wasm') });
function wasmResident() {
  const size = M.HEAPU8.length; let rss = 0, cur = null;
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
    if (m) cur = Number(BigInt('0x' + m[2]) - BigInt('0x' + m[1])) === size;
    else if (cur && line.startsWith('Rss:')) rss += Number(/(\d+)/.exec(line)[1]) * 1024;
  }
  return rss;
}
const MB = (n) => (n / 2 ** 20).toFixed(1);
console.log('fresh: heap', MB(M.HEAPU8.length), 'resident', MB(wasmResident()));
if (process.argv.includes('--warm')) { await warmModule(M); console.log('warm: heap', MB(M.HEAPU8.length), 'resident', MB(wasmResident()), 'free', MB(M.heapFreeBytes())); }
const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (file) {
  const bytes = readFileSync(file);
  const s = new M.Session();
  for (let at = 0; at < bytes.length; at += 1 << 20) feed(M, s, bytes.subarray(at, at + (1 << 20)));
  const fedRes = wasmResident();
  s.finish();
  const finRes = wasmResident();
  const json = s.reportJson();
  const ev = JSON.parse(s.progressJson()).events;
  console.log(file, 'events', ev, 'fed resident', MB(fedRes), 'finished resident', MB(finRes), 'after report resident', MB(wasmResident()), 'heap', MB(M.HEAPU8.length), 'free', MB(M.heapFreeBytes()), 'B/event', Math.round(wasmResident() / ev), 'x json', (wasmResident() / bytes.length).toFixed(3), 'report', json.length);
}
