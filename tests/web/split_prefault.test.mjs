// The split read's loader (web/worker/split.js readSplit) waits for each helper's part; while it
// waits it writes the memory the merge will need (the part's bytes and the part decoded from
// them: worker/prefault.js), as it writes its model's while it waits for the File. Before session
// 41 those pages were first written inside applyPart(). Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { PART_PER_JSON_BYTE, readSplit } from '../../web/worker/split.js';
import { Prefault } from '../../web/worker/prefault.js';

const MB = 1e6;

// A loader reading a 200 MB file with one helper whose part starts at 100 MB and comes `delayMs`
// after it is asked for; stand-ins for the module, the session and the helpers.
function splitLoad(delayMs) {
  const written = [];
  const M = {
    HEAPU8: new Uint8Array(64),
    _malloc: () => 8,
    _free: () => {},
    prefaultHeap: (n) => (written.push(n), n),
    heapFreeBytes: () => 0,
  };
  const job = {
    M,
    cancelled: false,
    timings: {},
    mark() {},
    prefault: new Prefault(M, 0), // the model's own budget already written
    session: { atPartBoundary: () => true, applyPart: () => true, resumeOffset: () => 200 * MB },
    helpers: {
      start() {},
      stop() {},
      // A part already there when the loader asks (delayMs 0): an already settled promise.
      result: () => (delayMs ? new Promise((resolve) => setTimeout(() => resolve({ bytes: new ArrayBuffer(16) }), delayMs)) : Promise.resolve({ bytes: new ArrayBuffer(16) })),
    },
  };
  const blob = { size: 200 * MB, slice: () => ({ stream: () => null }) };
  return { job, blob, written };
}

test('while the loader waits for a part, it writes the memory the merge needs', async () => {
  const { job, blob, written } = splitLoad(50);
  assert.equal(await readSplit(job, blob, [100 * MB], async () => true), true);
  const bytes = written.reduce((a, b) => a + b, 0);
  assert.ok(bytes > 0, 'nothing written while the part was awaited');
  assert.ok(bytes <= 2 * PART_PER_JSON_BYTE * 100 * MB, `more than the part needs: ${bytes}`);
  assert.equal(job.timings.parts, 1, 'the part was merged');
});

test('a part already there is merged at once, nothing written first', async () => {
  const { job, blob, written } = splitLoad(0);
  const t0 = performance.now();
  assert.equal(await readSplit(job, blob, [100 * MB], async () => true), true);
  assert.equal(written.length, 0, `${written.length} steps written though the part had come`);
  assert.ok(performance.now() - t0 < 1000);
  assert.equal(job.timings.parts, 1);
});
