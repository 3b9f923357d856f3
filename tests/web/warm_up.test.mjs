// The page's warm-up (web/worker/warm.js, web/views/warm.js): the trace the spare loader reads
// before any file is shaped like a training loop's, so that the code a real trace runs is hot
// (collectives, copies, syncs, Python frames, memory events), and the report the page renders
// unseen has tables as long as a real one's. Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { warmModule, warmupTrace } from '../../web/worker/warm.js';
import { inflate } from '../../web/views/warm.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = resolve(ROOT, process.env.KINETOSCOPE_CLI || 'build/native/kinetoscope');

// Runs `child` (a module script that logs KS-REAL-LOAD, then KS-REAL-LOAD-MS n) under V8's compile
// log; returns the large TurboFan compiles logged after KS-REAL-LOAD. A compile that took longer
// than the whole real load began before it (the warm-up's own, late on a busy machine:
// Session::report() takes seconds): not the real load's doing.
function largeCompilesDuringRealLoad(child) {
  const r = spawnSync(process.execPath, ['--trace-wasm-compilation-times', '--input-type=module', '-e', child], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  const at = r.stdout.indexOf('KS-REAL-LOAD');
  assert.ok(at > 0 && /using TurboFan/.test(r.stdout.slice(0, at)), 'no compile log from V8 (--trace-wasm-compilation-times)');
  const realMs = Number((/KS-REAL-LOAD-MS (\d+)/.exec(r.stdout) || [])[1]);
  assert.ok(realMs > 0, 'the child did not say how long the real load took');
  const late = r.stdout
    .slice(at)
    .split('\n')
    .filter((l) => /using TurboFan/.test(l) && Number((/bodysize (\d+)/.exec(l) || [])[1]) >= LARGE_BODY)
    .filter((l) => Number((/took (\d+) ms/.exec(l) || [])[1]) < realMs);
  return late;
}

test('the warm-up trace holds what a training loop writes', () => {
  const doc = JSON.parse(warmupTrace(30));
  const cats = new Set(doc.traceEvents.map((e) => e.cat));
  for (const c of ['user_annotation', 'gpu_user_annotation', 'python_function', 'cpu_op', 'cuda_runtime', 'kernel', 'gpu_memcpy', 'gpu_memset', 'cpu_instant_event', 'ac2g']) {
    assert.ok(cats.has(c), `no ${c} event`);
  }
  const nccl = doc.traceEvents.find((e) => e.cat === 'kernel' && /^ncclDevKernel/.test(e.name));
  assert.ok(nccl && nccl.args['Collective name'] === 'allreduce', 'no NCCL kernel with its collective args');
  assert.ok(doc.deviceProperties.length === 1 && doc.distributedInfo.world_size === 8);
});

test('its report runs the analyses a real trace does: steps, collectives, copies, syncs', { skip: !existsSync(CLI) && `no CLI at ${CLI}` }, () => {
  const file = join(mkdtempSync(join(tmpdir(), 'ks-warm-')), 'warm.json');
  writeFileSync(file, warmupTrace(30));
  const r = spawnSync(CLI, ['report', '--format', 'json', file], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.steps.count, 30);
  const ids = new Set(report.findings.map((f) => f.id));
  for (const id of ['comm.not_overlapped', 'sync.dtoh_in_step', 'sync.runtime_calls', 'gpu.idle']) assert.ok(ids.has(id), `no ${id}: ${[...ids].join(', ')}`);
  assert.ok(report.memory_ops && report.memory_ops.rows.length >= 2, 'no copy and memset rows');
});

test('inflate: every list of rows grows to 300, names made distinct; other lists stay', () => {
  const grown = inflate({ kernels: { rows: [{ name: 'a', n: 1 }, { name: 'b', n: 2 }] }, dims: [1, 2], nested: [[1], [2]] });
  assert.equal(grown.kernels.rows.length, 300);
  assert.equal(new Set(grown.kernels.rows.map((x) => x.name)).size, 300);
  assert.deepEqual(grown.kernels.rows[3], { name: 'b 3', n: 2 });
  assert.deepEqual(grown.dims, [1, 2]);
  assert.deepEqual(grown.nested, [[1], [2]]);
});

// The report's largest functions must be optimized before a file arrives: with one round of the
// warm-up (before session 31) V8 compiled them with its optimizing tier only after the first real
// report, which then ran them in the baseline tier. A child Node prints V8's compile log
// (--trace-wasm-compilation-times), runs the page's warm-up, waits for the background compiles,
// then reads and reports a trace twice the warm-up's size: no large function (WebAssembly body
// of LARGE_BODY bytes or more) may be compiled by TurboFan after that point. "The background
// compiles ended" is measured: the child waits until half a second passes with less than 10% of
// a core used; on a busy machine that can pass while a long compile runs, so a compile that took
// longer than the whole real load is not counted (it began before).
const WASM_DIR = resolve(ROOT, process.env.KINETOSCOPE_WASM_DIR || 'build/wasm');
const LARGE_BODY = 8000;
test('after the warm-up, a report compiles none of its large functions', { skip: !existsSync(join(WASM_DIR, 'kinetoscope_wasm.js')) && `no WASM build at ${WASM_DIR} (make wasm)` }, () => {
  const child = `
    const { createRequire } = await import('node:module');
    const { readFileSync } = await import('node:fs');
    const require = createRequire(${JSON.stringify(join(WASM_DIR, 'x.js'))});
    const M = await require(${JSON.stringify(join(WASM_DIR, 'kinetoscope_wasm.js'))})({ wasmBinary: readFileSync(${JSON.stringify(join(WASM_DIR, 'kinetoscope_wasm.wasm'))}) });
    const { warmModule, warmupTrace } = await import(${JSON.stringify(resolve(ROOT, 'web/worker/warm.js'))});
    const { feed } = await import(${JSON.stringify(resolve(ROOT, 'web/worker/module.js'))});
    const quiet = async () => {
      for (let tries = 0; tries < 120; tries++) {
        const before = process.cpuUsage();
        await new Promise((r) => setTimeout(r, 500));
        const used = process.cpuUsage(before);
        if (used.user + used.system < 50000) return;
      }
    };
    await warmModule(M);
    await quiet();
    console.log('KS-REAL-LOAD');
    const t0 = performance.now();
    const s = new M.Session();
    feed(M, s, new TextEncoder().encode(warmupTrace(60)));
    if (!s.finish() || !s.reportJson()) throw new Error('the trace did not read');
    s.delete();
    await quiet();
    console.log('KS-REAL-LOAD-MS', Math.round(performance.now() - t0));
  `;
  const late = largeCompilesDuringRealLoad(child);
  assert.deepEqual(late, [], 'large functions compiled by TurboFan only during the real report');
});

// A file that arrives while the spare reads its warm-up trace waits for the task under way: the
// trace is read a piece a task, and the warm-up stops at the next piece once a file has come
// (stop() true). Before session 40 the whole ~2 MB trace was read in one task (0.2 s and more on a
// cold module; a file given as the page loaded waited up to 2.3 s at load average 18). A module
// stand-in counts the bytes fed.
test('the warm-up stops within a piece of its trace once a file comes', async () => {
  let fed = 0;
  const heap = new Uint8Array(1 << 17);
  const M = {
    HEAPU8: heap,
    Session: class {
      feedBuffer(n) {
        return n <= heap.length ? 1 : 0;
      }
      feedCommit(n) {
        fed += n;
        return true;
      }
      finish() {
        return true;
      }
      reportJson() {
        return '{}';
      }
      reportMarkdown() {
        return '';
      }
      delete() {}
    },
  };
  await warmModule(M, () => fed > 0);
  const trace = warmupTrace(30).length;
  assert.ok(fed > 0, 'the warm-up fed nothing');
  assert.ok(fed <= 256 * 1024 && fed < trace / 4, `the warm-up fed ${fed} of its ${trace} bytes after the file came`);
});

// The page reads a large file with helpers (worker/split.js): a helper writes its part
// (takePart) and the loader, the warmed-up spare, merges it (applyPart), each once per load. The
// warm-up read its trace in one session, so both ran in V8's baseline tier in every split load,
// and V8 compiled their large functions with TurboFan only then (session 41: bodies of 8.9 and
// 21.6 KB after the merge, in Node). Now each round reads its trace as the split path does. The
// child runs the warm-up, waits for the background compiles, then a split read twice the
// warm-up trace's size: no large function may be compiled by TurboFan after that point.
test('after the warm-up, a split read compiles none of its large functions', { skip: !existsSync(join(WASM_DIR, 'kinetoscope_wasm.js')) && `no WASM build at ${WASM_DIR} (make wasm)` }, () => {
  const child = `
    const { createRequire } = await import('node:module');
    const { readFileSync } = await import('node:fs');
    const require = createRequire(${JSON.stringify(join(WASM_DIR, 'x.js'))});
    const M = await require(${JSON.stringify(join(WASM_DIR, 'kinetoscope_wasm.js'))})({ wasmBinary: readFileSync(${JSON.stringify(join(WASM_DIR, 'kinetoscope_wasm.wasm'))}) });
    const { warmModule, warmupTrace } = await import(${JSON.stringify(resolve(ROOT, 'web/worker/warm.js'))});
    const { feed, withBytes } = await import(${JSON.stringify(resolve(ROOT, 'web/worker/module.js'))});
    const quiet = async () => {
      for (let tries = 0; tries < 120; tries++) {
        const before = process.cpuUsage();
        await new Promise((r) => setTimeout(r, 500));
        const used = process.cpuUsage(before);
        if (used.user + used.system < 50000) return;
      }
    };
    await warmModule(M);
    await quiet();
    console.log('KS-REAL-LOAD');
    const t0 = performance.now();
    const trace = new TextEncoder().encode(warmupTrace(60));
    const from = trace.length >> 1;
    const start = from + withBytes(M, trace.subarray(from), (p, n) => M.findPartStart(p, n), -1);
    const helper = new M.Session();
    helper.startPart(start, -1);
    feed(M, helper, trace.subarray(start));
    const part = helper.takePart().slice();
    helper.delete();
    const s = new M.Session();
    feed(M, s, trace.subarray(0, start));
    if (!withBytes(M, part, (p, n) => s.applyPart(p, n), false)) throw new Error('the part was not merged');
    feed(M, s, trace.subarray(Number(s.resumeOffset())));
    if (!s.finish() || !s.reportJson()) throw new Error('the trace did not read');
    s.delete();
    await quiet();
    console.log('KS-REAL-LOAD-MS', Math.round(performance.now() - t0));
  `;
  const late = largeCompilesDuringRealLoad(child);
  assert.deepEqual(late, [], 'large functions compiled by TurboFan only during the split read');
});

// Each round's part is merged (not read again by the session), and the report the page renders
// unseen is the one a single read of the trace gives.
test('the warm-up merges a part each round, and its report is a single read’s', { skip: !existsSync(join(WASM_DIR, 'kinetoscope_wasm.js')) && `no WASM build at ${WASM_DIR} (make wasm)` }, async () => {
  const { createRequire } = await import('node:module');
  const { readFileSync } = await import('node:fs');
  const require = createRequire(join(WASM_DIR, 'x.js'));
  const M = await require(join(WASM_DIR, 'kinetoscope_wasm.js'))({ wasmBinary: readFileSync(join(WASM_DIR, 'kinetoscope_wasm.wasm')) });
  const { feed } = await import('../../web/worker/module.js');
  const plain = new M.Session();
  feed(M, plain, new TextEncoder().encode(warmupTrace(30)));
  assert.ok(plain.finish());
  const expected = plain.reportJson();
  plain.delete();
  const P = M.Session.prototype;
  const { applyPart, reportJson } = P;
  let merged = 0;
  const reports = [];
  P.applyPart = function (...a) {
    const ok = applyPart.apply(this, a);
    if (ok) merged++;
    return ok;
  };
  P.reportJson = function () {
    const json = reportJson.call(this);
    reports.push(json);
    return json;
  };
  try {
    await warmModule(M);
  } finally {
    Object.assign(P, { applyPart, reportJson });
  }
  assert.equal(merged, 3, 'a part merged in each of the three rounds');
  assert.equal(reports.length, 3);
  for (const json of reports) assert.ok(json === expected, 'the split read’s report differs from a single read’s');
});
