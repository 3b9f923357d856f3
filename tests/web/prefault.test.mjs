// The page faults of a load's memory, taken while the worker waits for the file (web/worker/
// prefault.js, wasm/heap_prefault.h): sized to the file, only while a read is pending, and the
// memory really written (the process's resident memory grows by it). Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HEAP_PER_JSON_BYTE, PREFAULT_MAX, PREFAULT_STEP, Prefault, prefaultBudget } from '../../web/worker/prefault.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const WASM_DIR = resolve(ROOT, process.env.KINETOSCOPE_WASM_DIR || 'build/wasm');
const noWasm = !existsSync(join(WASM_DIR, 'kinetoscope_wasm.js')) && `no WASM build at ${WASM_DIR} (make wasm)`;

async function loadModule() {
  const require = createRequire(join(WASM_DIR, 'x.js'));
  return require(join(WASM_DIR, 'kinetoscope_wasm.js'))({ wasmBinary: readFileSync(join(WASM_DIR, 'kinetoscope_wasm.wasm')) });
}

const MiB = 2 ** 20;
const rssOf = () => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  return Number(m[1]) * 1024;
};

test('the budget is the file\'s expected need, less the memory the allocator holds free', () => {
  const M = { prefaultHeap: () => 0, heapFreeBytes: () => 4 * MiB };
  assert.equal(prefaultBudget(M, 50e6), Math.floor(HEAP_PER_JSON_BYTE * 50e6 - 4 * MiB));
  assert.ok(prefaultBudget(M, 200e6) > 3.5 * prefaultBudget(M, 50e6), 'a larger file gets more');
  assert.equal(prefaultBudget(M, 1e12), PREFAULT_MAX - 4 * MiB, 'capped');
  assert.equal(prefaultBudget(M, 1e6), 0, 'a small file: what is free is enough');
  assert.equal(prefaultBudget(M, 0), 0, 'an unknown size: nothing');
  assert.equal(prefaultBudget({}, 50e6), 0, 'a module without prefaultHeap: nothing');
});

test('memory is written only while the read is pending, a step at a time', async () => {
  const steps = [];
  // Each step takes 1 ms, as writing a MiB of fresh pages takes a few.
  const M = {
    prefaultHeap: (n) => {
      for (const end = performance.now() + 1; performance.now() < end; );
      steps.push(n);
      return n;
    },
  };
  const p = new Prefault(M, 100 * PREFAULT_STEP);
  await p.whileWaiting(Promise.resolve({ done: false }));
  assert.equal(p.bytes, 0, 'a read that has already settled waits for nothing');
  // The read settles while the 10th step is written (not on a timer: a loaded machine delays a
  // timer past any number of steps): the writing stops there, well short of the budget.
  let settleRead;
  const read = new Promise((r) => (settleRead = r));
  const before = steps.length;
  const stepsWhileReading = {
    prefaultHeap: (n) => {
      const written = M.prefaultHeap(n);
      if (steps.length - before === 10) settleRead({ done: false });
      return written;
    },
  };
  const q = new Prefault(stepsWhileReading, 100 * PREFAULT_STEP);
  await q.whileWaiting(read);
  assert.equal(q.bytes, 10 * PREFAULT_STEP, `wrote ${q.bytes} bytes while the read was pending`);
  assert.ok(steps.every((n) => n === PREFAULT_STEP));
  const small = new Prefault(M, PREFAULT_STEP + 5);
  let release;
  const pending = new Promise((r) => (release = r)); // settles only after the budget is spent
  await small.whileWaiting(pending);
  release();
  assert.equal(small.bytes, PREFAULT_STEP + 5, 'the whole budget, never past it');
  assert.deepEqual(steps.slice(-2), [PREFAULT_STEP, 5]);
});

test('prefaultHeap writes the memory above the break: resident, and what malloc hands out next', { skip: noWasm }, async () => {
  const M = await loadModule();
  const before = rssOf();
  assert.equal(M.prefaultHeap(64 * MiB), 64 * MiB);
  const grown = rssOf() - before;
  assert.ok(grown > 56 * MiB, `resident memory grew by ${(grown / MiB).toFixed(1)} MiB, expected ~64`);
  const p = M._malloc(32 * MiB);
  M.HEAPU8.fill(1, p, p + 32 * MiB); // written into pages that are resident already
  assert.ok(rssOf() - before < 72 * MiB, `after a malloc of 32 MiB written: +${((rssOf() - before) / MiB).toFixed(1)} MiB`);
  M._free(p);
  assert.equal(M.prefaultHeap(MiB), MiB, 'goes on from where it ended');
});
