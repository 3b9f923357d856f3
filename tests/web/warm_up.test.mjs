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
import { warmupTrace } from '../../web/worker/warm.js';
import { inflate } from '../../web/views/warm.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = resolve(ROOT, process.env.KINETOSCOPE_CLI || 'build/native/kinetoscope');

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
