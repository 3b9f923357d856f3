// The worker's File reads for SQLite (web/worker/file_chunks.js): the bytes asked for, from 16 MiB
// slices read once and kept up to the budget, least recently used out first. FileReaderSync and
// the File are stood in for by a byte array and a counting reader. Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { CHUNK_BYTES, FileChunks, KEEP_AFTER, KEEP_WHEN_LARGER, KEEP_WHOLE_UP_TO } from '../../web/worker/file_chunks.js';

function fakeFile(size) {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 4093) bytes[i] = (i / 4093) & 255; // a pattern worth comparing
  const blob = { size, slice: (a, b) => ({ a, b: Math.min(b, size) }) };
  const reader = { reads: [], readAsArrayBuffer(s) { this.reads.push(s.a); return bytes.slice(s.a, s.b).buffer; } };
  return { bytes, blob, reader };
}

// What the WASM block cache does with a short read: asks again for the rest.
function readAll(chunks, offset, n) {
  const out = new Uint8Array(n);
  let got = 0;
  while (got < n) {
    const part = chunks.read(offset + got, n - got);
    if (part.length === 0) break;
    out.set(part, got);
    got += part.length;
  }
  return out.subarray(0, got);
}

test('FileChunks: any range reads as the file holds it, across slices and at the end', () => {
  const size = 2 * CHUNK_BYTES + 12345;
  const { bytes, blob, reader } = fakeFile(size);
  const chunks = new FileChunks(blob, reader);
  for (const [offset, n] of [[0, 4096], [CHUNK_BYTES - 100, 300], [size - 500, 500], [size - 10, 100], [5 * 4093, 1 << 20]]) {
    const want = bytes.subarray(offset, Math.min(size, offset + n));
    assert.deepEqual(readAll(chunks, offset, n), want, `${n} bytes at ${offset}`);
  }
  // A read never runs past its slice: the rest is asked for again.
  assert.equal(chunks.read(CHUNK_BYTES - 100, 300).length, 100);
  assert.equal(chunks.read(size, 10).length, 0);
});

test('FileChunks: each slice is read from the File once while it is kept', () => {
  const { blob, reader } = fakeFile(3 * CHUNK_BYTES);
  const chunks = new FileChunks(blob, reader);
  for (let pass = 0; pass < 3; pass++) for (let o = 0; o < blob.size; o += 1 << 20) chunks.read(o, 1 << 20);
  assert.deepEqual(reader.reads, [0, CHUNK_BYTES, 2 * CHUNK_BYTES]);
  assert.equal(chunks.bytesRead, blob.size);
  assert.equal(chunks.kept, blob.size);
});

test('FileChunks: past the budget the least recently used slice goes, and trim() lowers it', () => {
  const { blob, reader } = fakeFile(6 * CHUNK_BYTES);
  const chunks = new FileChunks(blob, reader);
  chunks.trim(2 * CHUNK_BYTES);
  chunks.read(0, 10); // slice 0
  chunks.read(CHUNK_BYTES, 10); // slice 1
  chunks.read(5, 10); // slice 0 again: now the most recent
  chunks.read(2 * CHUNK_BYTES, 10); // slice 2: slice 1 goes
  assert.deepEqual([...chunks.chunks.keys()], [0, 2]);
  assert.equal(chunks.kept, 2 * CHUNK_BYTES);
  chunks.read(CHUNK_BYTES, 10); // read again from the File
  assert.deepEqual(reader.reads, [0, CHUNK_BYTES, 2 * CHUNK_BYTES, CHUNK_BYTES]);
  chunks.trim(KEEP_AFTER);
  assert.ok(chunks.kept <= KEEP_AFTER);
  chunks.trim(0); // never below the slice in use
  assert.deepEqual([...chunks.chunks.keys()], [1]);
});

test('FileChunks: a file past KEEP_WHOLE_UP_TO keeps only its last KEEP_WHEN_LARGER bytes', () => {
  const size = KEEP_WHOLE_UP_TO + 3 * CHUNK_BYTES;
  const blob = { size, slice: (a, b) => ({ a, b: Math.min(b, size) }) };
  const reader = { readAsArrayBuffer: (s) => new ArrayBuffer(s.b - s.a) }; // no bytes worth keeping
  const chunks = new FileChunks(blob, reader);
  for (let o = 0; o < size; o += CHUNK_BYTES) chunks.read(o, 1);
  assert.equal(chunks.bytesRead, size);
  assert.equal(chunks.kept, KEEP_WHEN_LARGER);
  const last = Math.floor((size - 1) / CHUNK_BYTES);
  assert.ok(chunks.chunks.has(last) && !chunks.chunks.has(0));
  // A file of the budget or less is kept whole (the second test).
});
