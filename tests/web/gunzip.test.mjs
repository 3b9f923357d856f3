// The worker's gzip reader (web/worker/gunzip.js) against a DecompressionStream that behaves as
// Chromium's and Firefox's do: it decodes one gzip member and refuses the first byte after its
// end, losing the output of the write that holds it (Node's own reads on into the next member,
// so it cannot stand in). Every member, and the bytes after the last one, must read the same
// whether the gzip comes from a File (a Blob to slice) or from a fetched body (?url=: a stream
// read once). Run: node --test tests/web/
import test from 'node:test';
import assert from 'node:assert/strict';
import { constants, gzipSync, inflateRawSync } from 'node:zlib';
import { gunzip } from '../../web/worker/gunzip.js';

// Decodes what was written so far (one member: the 10-byte header gzipSync writes, then deflate);
// once the deflate data and its 8-byte trailer are all in, any further byte is refused.
class BrowserLikeDecompressionStream {
  static made = 0; // how many were made (the tiny-members test counts them)
  constructor(format) {
    assert.equal(format, 'gzip');
    BrowserLikeDecompressionStream.made++;
    let input = Buffer.alloc(0);
    let sent = 0;
    let end = -1;
    const decode = () => {
      if (input.length <= 10) return Buffer.alloc(0);
      const { buffer, engine } = inflateRawSync(input.subarray(10), { info: true, finishFlush: constants.Z_SYNC_FLUSH });
      const used = 10 + engine.bytesWritten;
      if (used < input.length) end = used + 8; // the deflate data ended before the input
      return buffer;
    };
    const t = new TransformStream(
      {
        transform(chunk, controller) {
          if (!chunk.length) return;
          input = Buffer.concat([input, Buffer.from(chunk)]);
          const out = decode();
          if (end >= 0 && input.length > end) throw new TypeError('Junk found after end of compressed data.');
          if (out.length > sent) controller.enqueue(new Uint8Array(out.subarray(sent)));
          sent = out.length;
        },
        flush() {
          if (end < 0 || input.length < end) throw new TypeError('Compressed input was truncated.');
        },
      },
      undefined,
      { highWaterMark: 0 },
    );
    this.writable = t.writable;
    this.readable = t.readable;
  }
}
globalThis.DecompressionStream = BrowserLikeDecompressionStream;

// A stream of `bytes` in chunks of `size` bytes, as fetch() or Blob.stream() gives them.
function chunked(bytes, size) {
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(new Uint8Array(bytes.subarray(at, at + size)));
      at += size;
    },
  });
}

async function readAll(stream) {
  const parts = [];
  const reader = stream.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    parts.push(Buffer.from(value));
  }
  return Buffer.concat(parts).toString();
}

// A trace in three members (cat a.gz b.gz c.gz), the JSON each holds, and text appended to it.
function threeMembers(junk) {
  const events = (from, to) => Array.from({ length: to - from }, (_, k) => `{"ph":"X","name":"k${(from + k) % 97}","ts":${(from + k) * 10},"dur":4,"pid":0,"tid":7}`).join(',');
  const text = ['{"traceEvents":[' + events(0, 900) + ',', events(900, 1800) + ',', events(1800, 2700) + ']}'];
  const gz = Buffer.concat([...text.map((t) => gzipSync(Buffer.from(t))), junk]);
  return { gz, json: text.join(''), gzipEnd: gz.length - junk.length };
}

for (const [what, junk] of [
  ['a log line', Buffer.from('[rank0] training finished in 3600 s\n')],
  ['1 KB of zero padding', Buffer.alloc(1024)],
  ['nothing', Buffer.alloc(0)],
]) {
  for (const chunk of [1 << 16, 4096, 333]) {
    test(`gunzip: three members followed by ${what} read whole from a File and from a fetched body (${chunk}-byte chunks)`, async () => {
      const { gz, json, gzipEnd } = threeMembers(junk);
      const trailing = junk.length ? { at: gzipEnd, ignored: junk.length } : undefined;
      const fromFile = gunzip(chunked(gz, chunk), new Blob([gz]));
      assert.equal(await readAll(fromFile), json);
      assert.deepEqual(fromFile.gzipTrailing, trailing);
      // ?url=: no Blob, the body is read once (it was refused as gzip_corrupt with a log line or
      // padding after it, and after the first member of three).
      const fetched = gunzip(chunked(gz, chunk), null);
      assert.equal(await readAll(fetched), json);
      assert.deepEqual(fetched.gzipTrailing, trailing);
      assert.equal(fetched.gzipCut, undefined);
    });
  }
}

test('gunzip: damage inside a member still fails from a fetched body, after what was decoded', async () => {
  const { gz } = threeMembers(Buffer.alloc(0));
  const damaged = Buffer.from(gz);
  for (let k = 200; k < 260; k++) damaged[k] ^= 0x5a;
  await assert.rejects(readAll(gunzip(chunked(damaged, 4096), null)));
  await assert.rejects(readAll(gunzip(chunked(damaged, 4096), new Blob([damaged]))));
});

test('gunzip: a fetched gzip cut off half way says where it was cut', async () => {
  const { gz, json } = threeMembers(Buffer.alloc(0));
  const cut = gz.subarray(0, gz.length - 500);
  const fetched = gunzip(chunked(cut, 4096), null);
  const text = await readAll(fetched);
  assert.ok(json.startsWith(text) && text.length > json.length / 2);
  assert.equal(fetched.gzipCut, cut.length);
});

test('gunzip: empty members between and after the others (gzip -c /dev/null >> trace.json.gz) read whole', async () => {
  // An empty member is all zeros after its header: its size (0) matched the bytes before its end
  // by chance, the probe of that byte took it, and the true end was skipped: the page failed
  // with "Junk found after end of compressed data" where the CLI read the file.
  const { gz, json } = threeMembers(Buffer.alloc(0));
  const empty = gzipSync(Buffer.alloc(0));
  for (const chain of [Buffer.concat([empty, gz]), Buffer.concat([gz, empty, empty]), Buffer.concat([empty, empty, empty, gz, empty])]) {
    for (const blob of [new Blob([chain]), null]) {
      const out = gunzip(chunked(chain, 4096), blob);
      assert.equal(await readAll(out), json);
      assert.equal(out.gzipTrailing, undefined);
      assert.equal(out.gzipCut, undefined);
    }
  }
  // Empty members inside the chain, between members that hold JSON.
  const parts = ['{"traceEvents":[{"ph":"X","name":"k","ts":1,', '"dur":2,"pid":1,"tid":1}]}'];
  const inside = Buffer.concat([gzipSync(Buffer.from(parts[0])), empty, empty, gzipSync(Buffer.from(parts[1]))]);
  assert.equal(await readAll(gunzip(chunked(inside, 333), new Blob([inside]))), parts.join(''));
});

// `bytes` as a File would be: every byte read through it (stream() or a slice's arrayBuffer()) is
// counted in `count.bytes`.
function countingBlob(bytes, count) {
  const wrap = (b) => ({
    size: b.size,
    slice: (from, to) => wrap(b.slice(from, to)),
    arrayBuffer: async () => {
      const ab = await b.arrayBuffer();
      count.bytes += ab.byteLength;
      return ab;
    },
    stream: () => b.stream().pipeThrough(new TransformStream({ transform(c, ctl) { count.bytes += c.length; ctl.enqueue(c); } })),
  });
  return wrap(new Blob([bytes]));
}

test('gunzip: many tiny members are read from the file once each (each byte once), not 64 KiB again per member', async () => {
  // 1,000 members of one event each (a writer that gzips every record it appends), then a log line.
  const events = Array.from({ length: 1000 }, (_, k) => `{"ph":"X","name":"k${k % 7}","ts":${k},"dur":1,"pid":0,"tid":7}`);
  const text = ['{"traceEvents":[', ...events.map((e, k) => (k ? ',' : '') + e), ']}'];
  const junk = Buffer.from('[rank0] done\n');
  const gz = Buffer.concat([...text.map((t) => gzipSync(Buffer.from(t))), junk]);
  for (const chunk of [1 << 16, 4096]) {
    const count = { bytes: 0 };
    const file = countingBlob(gz, count);
    const made = BrowserLikeDecompressionStream.made;
    const out = gunzip(file.stream(), file);
    assert.equal(await readAll(out), text.join(''));
    // One decoder a member: after a small member the next one's end is sought in the bytes after
    // its start (endNear), not by a write over its end that a second decoder repeats (2 a member).
    const decoders = BrowserLikeDecompressionStream.made - made;
    assert.ok(decoders <= text.length + 2, `${decoders} decoders for ${text.length} members`);
    assert.deepEqual(out.gzipTrailing, { at: gz.length - junk.length, ignored: junk.length });
    // The file's bytes, read once: before, each member after the first read its 64 KiB piece
    // again (twice): ~1,000 x 2 x the rest of the file here, ~12 GB for 10^5 members.
    assert.equal(count.bytes, gz.length, `${count.bytes} bytes read from a ${gz.length}-byte file (chunks of ${chunk})`);
    // A fetched body (no File to slice): read once too.
    let read = 0;
    const body = chunked(gz, chunk).pipeThrough(new TransformStream({ transform(c, ctl) { read += c.length; ctl.enqueue(c); } }));
    const fetched = gunzip(body, null);
    assert.equal(await readAll(fetched), text.join(''));
    assert.equal(read, gz.length);
  }
});

test('gunzip: a member larger than the bytes kept in memory is read again from the file, and reads whole', async () => {
  // memberLog 256 bytes: the members of these (~3.7 KB compressed) are decoded again from the File or
  // from the bytes a fetched body kept, as every member was before.
  const { gz, json, gzipEnd } = threeMembers(Buffer.from('tail\n'));
  for (const chunk of [1 << 16, 1024, 333]) {
    const count = { bytes: 0 };
    const file = countingBlob(gz, count);
    const out = gunzip(chunked(gz, chunk), file, { memberLog: 256 });
    assert.equal(await readAll(out), json);
    assert.deepEqual(out.gzipTrailing, { at: gzipEnd, ignored: 5 });
    // The first member (the later ones follow a small one: endNear() finds their ends) spans
    // pieces of 1 KiB or less; in 64 KiB chunks the file is one piece, nothing before the refusal.
    if (chunk <= 1024) assert.ok(count.bytes > 0, 'the large members were not read again from the file');
    const fetched = gunzip(chunked(gz, chunk), null, { memberLog: 256 });
    assert.equal(await readAll(fetched), json);
    assert.deepEqual(fetched.gzipTrailing, { at: gzipEnd, ignored: 5 });
  }
});
