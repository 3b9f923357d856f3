#!/usr/bin/env node
// The split read's own costs in Node, without a browser: the helper's part written (takePart) and
// copied out of its module, and the loader's merge (applyPart), as web/worker/split.js does them
// with one helper, on a cold module or after the page's warm-up (warm.js warmModule). The helper
// and the loader are two instances of the module, as two workers are in the page. Thread CPU
// time (process.cpuUsage) and page faults (each a first write to fresh memory) per step, which a
// loaded machine inflates less than the wall clock.
// Prints one JSON line.
//   node bench/split_node.mjs TRACE [--warm]
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const wasmDir = resolve(root, process.env.KINETOSCOPE_WASM_DIR || 'build/wasm');
const require = createRequire(import.meta.url);
const { feed, withBytes } = await import(join(root, 'web/worker/module.js'));
const { warmModule } = await import(join(root, 'web/worker/warm.js'));

const file = process.argv[2];
const warm = process.argv.includes('--warm');
const bytes = readFileSync(file);

async function instance() {
  const create = require(join(wasmDir, 'kinetoscope_wasm.js'));
  const M = await create({ wasmBinary: readFileSync(join(wasmDir, 'kinetoscope_wasm.wasm')) });
  if (warm) await warmModule(M);
  return M;
}

// CPU ms of this thread (user + system) and wall ms of fn().
function timed(fn) {
  const c0 = process.cpuUsage();
  const f0 = process.resourceUsage().minorPageFault;
  const t0 = performance.now();
  const value = fn();
  const c = process.cpuUsage(c0);
  const faults = process.resourceUsage().minorPageFault - f0;
  return { value, cpu_ms: Math.round((c.user + c.system) / 1000), wall_ms: Math.round(performance.now() - t0), faults };
}

const CHUNK = 1 << 20;
function feedRange(M, s, from, to) {
  for (let at = from; at < to; at += CHUNK) feed(M, s, bytes.subarray(at, Math.min(to, at + CHUNK)));
}

const helperM = await instance();
const loaderM = await instance();
// The split point near the middle, as findSplits() finds it.
const from = Math.floor(bytes.length / 2);
const at = withBytes(loaderM, bytes.subarray(from, from + (1 << 20)), (p, n) => loaderM.findPartStart(p, n), -1);
if (at < 0) throw new Error('no split point');
const start = from + at;

const helper = new helperM.Session();
helper.startPart(start, -1);
const read = timed(() => feedRange(helperM, helper, start, bytes.length));
if (!helper.partEnded() || helper.partFailed()) throw new Error('the part did not end');
const take = timed(() => helper.takePart());
const copy = timed(() => take.value.slice().buffer);
const part = copy.value;
helper.delete();

const loader = new loaderM.Session();
loader.setSource(basename(file), false);
feedRange(loaderM, loader, 0, start);
if (!loader.atPartBoundary()) throw new Error('not at a part boundary');
const apply = timed(() => withBytes(loaderM, new Uint8Array(part), (p, n) => loader.applyPart(p, n), false));
if (!apply.value) throw new Error('applyPart failed');
feedRange(loaderM, loader, Number(loader.resumeOffset()), bytes.length);
const fin = timed(() => loader.finish());
const report = timed(() => loader.reportJson());
loader.delete();
console.log(
  JSON.stringify({
    file: basename(file),
    warm,
    part_bytes: part.byteLength,
    helper_read: { cpu_ms: read.cpu_ms, wall_ms: read.wall_ms, faults: read.faults },
    take_part: { cpu_ms: take.cpu_ms, wall_ms: take.wall_ms, faults: take.faults },
    copy: { cpu_ms: copy.cpu_ms, wall_ms: copy.wall_ms, faults: copy.faults },
    apply_part: { cpu_ms: apply.cpu_ms, wall_ms: apply.wall_ms, faults: apply.faults },
    finish: { cpu_ms: fin.cpu_ms, wall_ms: fin.wall_ms },
    report: { cpu_ms: report.cpu_ms, wall_ms: report.wall_ms, bytes: report.value.length },
    loadavg: (await import('node:os')).loadavg()[0].toFixed(1),
  }),
);
