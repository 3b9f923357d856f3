// gzip decoded by the browser's DecompressionStream as the CLI's zlib reader decodes it
// (src/import/gzip_reader.h): every member of a multi-member file (cat a.gz b.gz), everything
// decoded before a damaged or cut-off end, and a file with bytes after its gzip data (zero
// padding, text appended) read with those bytes ignored and counted. A DecompressionStream does
// none of the three: it refuses the first byte after a member's end, in Chromium ("Junk found
// after end of compressed data") as in Firefox ("Unexpected input after the end of stream"), and
// the output of the write that holds that byte is lost with the error.
import { isGzip } from './stream.js';
import { GZIP_PIECE, blobSource, feedOf, keptSource, memoryReader } from './gzip_input.js';

// A member's compressed bytes are kept in memory while it is decoded, up to this many, so that a
// member whose end a write overran is decoded again without reading the file again (10^5 tiny
// members read up to 64 KiB twice each: ~12 GB of Blob reads for a 4 MB file). A larger member is
// read again from the File (or the bytes keptSource kept: gzip_input.js).
const MEMBER_LOG = 64 << 20;
// After a member of at most SMALL_MEMBER compressed bytes, the next one is guessed small too (a
// writer that gzips each record it appends: 10^5 members of ~40 bytes): its end is sought in the
// next few times that many bytes from its start, with one decoder, instead of a write that runs
// over its end, is refused, and is decoded again by a second decoder.
const SMALL_MEMBER = 16 << 10;
// The shortest gzip member: a 10-byte header, 2 bytes of deflate (an empty final block), the
// 8-byte trailer.
const MIN_MEMBER = 20;
const EMPTY = new Uint8Array(0);
// deflate's largest expansion: one input byte gives at most ~1032 bytes of output.
const MAX_EXPANSION = 1032;
const U32 = 2 ** 32;

// One DecompressionStream; its output goes to deliver() once `skip` bytes were dropped (a member
// decoded again). write() resolves once the reader has taken all the output of what was written
// (the empty write runs only after the readable side is drained: it has no queue), so `out`, the
// member's bytes decoded so far, is exact between writes.
function openDecoder(deliver, skip) {
  const ds = new DecompressionStream('gzip');
  const writer = ds.writable.getWriter();
  const reader = ds.readable.getReader();
  const d = { out: 0 };
  d.reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      const from = d.out;
      d.out += value.length;
      if (d.out > skip) await deliver(from >= skip ? value : value.subarray(skip - from));
    }
  })();
  d.reading.catch(() => {}); // a write reports the error
  d.write = async (bytes) => {
    await writer.write(bytes);
    await writer.write(EMPTY);
  };
  d.finish = async () => {
    await writer.close();
    await d.reading;
  };
  d.abort = (e) => {
    writer.abort(e).catch(() => {});
    reader.cancel(e).catch(() => {});
  };
  return d;
}

// Writes the bytes [from, to) (bytes holds [lo, to)), in which a write was refused, stopping
// where the member may end: a position k whose 4 bytes before are the member's size modulo 2^32
// (the gzip trailer's ISIZE) once the bytes up to k are written. It ends there when the next
// byte is refused: {end: k}. A refusal anywhere else is damage: {failed}. `open`: [from, to) was
// not known to be refused (a guess, endNear()): all of it taken is {open: true}, not damage.
// `minEnd`: where the member can end at the earliest (MIN_MEMBER bytes after its start: the zeros of
// its header, a modification time of 0, read as a size of 0, cost a probe each).
async function stepToEnd(d, from, to, lo, bytes, open = false, minEnd = 0) {
  const le32 = (k) => (bytes[k - lo - 4] | (bytes[k - lo - 3] << 8) | (bytes[k - lo - 2] << 16) | (bytes[k - lo - 1] << 24)) >>> 0;
  const base = d.out % U32;
  let pos = from;
  for (let k = Math.max(from + 1, lo + 4, minEnd); k < to; k++) {
    if (k < pos) continue; // k == pos: the byte just probed may have been the last one
    const isize = le32(k);
    // The member's size cannot have grown by more than deflate's expansion of what is written.
    if ((isize - base + U32) % U32 > (k - from + 8) * MAX_EXPANSION) continue;
    try {
      await d.write(bytes.subarray(pos - lo, k - lo));
    } catch (e) {
      d.abort(e);
      return { failed: e };
    }
    pos = k;
    if (d.out % U32 !== isize) continue;
    try {
      await d.write(bytes.subarray(k - lo, k + 1 - lo));
      pos = k + 1; // taken: the size matched by chance
    } catch {
      return { end: k };
    }
  }
  try {
    await d.write(bytes.subarray(pos - lo, to - lo));
  } catch (e) {
    d.abort(e);
    return { failed: e };
  }
  if (open) return { open: true };
  return { failed: new Error('the gzip data was refused, then read on a second pass') };
}

// Decodes the member that begins at byte `start`, reading compressed bytes from `src` (positioned
// there), dropping its first `skip` bytes of output. Returns {whole: end} or {cut: end} when the
// input ends, {failed, from, to, delivered, piece, log} when the write of [from, to) is refused
// (`piece` those bytes; the rest of their chunk is put back into `src`; `log` the member's bytes
// before `from`, null past MEMBER_LOG), or with `step` ({from, to, lo, bytes}: where the first pass
// was refused) what stepToEnd() says.
async function decodeMember(src, start, skip, deliver, step, onDecoder, memberLog = MEMBER_LOG) {
  const d = openDecoder(deliver, skip);
  onDecoder(d);
  let pos = start;
  let log = step ? null : [];
  let logged = 0;
  for (;;) {
    const { value, done } = await src.read();
    if (done) break;
    for (let at = 0; at < value.length; ) {
      if (step && pos === step.from) return stepToEnd(d, step.from, step.to, step.lo, step.bytes, false, start + MIN_MEMBER);
      let n = Math.min(GZIP_PIECE, value.length - at);
      if (step) n = Math.min(n, step.from - pos);
      const piece = value.subarray(at, at + n);
      try {
        await d.write(piece);
      } catch (e) {
        d.abort(e);
        if (!step) src.unread(value.subarray(at + n));
        return { failed: e, from: pos, to: pos + n, delivered: d.out, piece, log };
      }
      if (log) {
        logged += n;
        if (logged > memberLog) log = null;
        else log.push(piece);
      }
      pos += n;
      at += n;
    }
  }
  if (step) return { failed: new Error('the gzip file changed while it was read') };
  try {
    await d.finish();
    return { whole: pos };
  } catch {
    return { cut: pos }; // all the input was taken, the member's end is missing: cut off
  }
}

// The 4 bytes before `from` and the refused piece, as stepToEnd() takes them: {lo, bytes}, from
// the member's log (a copy only where the piece does not follow them in its own buffer, once per
// chunk or piece boundary, never per member); null when the log was not kept.
function stepBytes(r, start) {
  const lo = Math.max(start, r.from - 4);
  const need = r.from - lo;
  if (need === 0) return { lo, bytes: r.piece };
  if (!r.log) return null;
  const p = r.piece;
  const last = r.log[r.log.length - 1];
  if (last && last.buffer === p.buffer && last.byteOffset + last.length === p.byteOffset && last.length >= need) {
    return { lo, bytes: new Uint8Array(p.buffer, p.byteOffset - need, need + p.length) };
  }
  const bytes = new Uint8Array(need + p.length);
  let k = need;
  for (let i = r.log.length - 1; i >= 0 && k > 0; i--) {
    const b = r.log[i];
    const take = Math.min(k, b.length);
    bytes.set(b.subarray(b.length - take), k - take);
    k -= take;
  }
  bytes.set(p, need);
  return { lo, bytes };
}

// The decoded stream of `input` (a stream of gzip bytes). A refused write is looked into: the
// member is decoded again up to the refused bytes, which are then written a few at a time to find
// where the member ends. `blob`, the same bytes as a Blob (a File), gives them again; without it
// (a fetched body, ?url=) they are kept as they are read (keptSource), so a fetched file reads as
// the File does. When the stream ends, `gzipCut` is the compressed bytes read if the file was cut
// off (the loader passes it on: Session.setGzipCut), and `gzipTrailing` {at, ignored} says where
// the gzip data ends and how many bytes that are not gzip follow it (Session.setGzipTrailing).
// `memberLog`: the most compressed bytes of a member kept in memory (tests lower it to reach the
// path of a member read again from the file).
export function gunzip(input, blob = null, { memberLog = MEMBER_LOG } = {}) {
  let controller;
  let wanted = false; // the reader has asked for more since the last chunk
  let wake = null;
  let cancelled = false;
  let decoder = null;
  const again = blob ? blobSource(blob) : keptSource(input);
  const src = feedOf(blob ? input.getReader() : again.first);
  // A chunk is handed over only when asked for, so that when the stream errors no chunk is still
  // queued (an error drops them).
  const deliver = async (value) => {
    wanted = false;
    controller.enqueue(value);
    while (!wanted && !cancelled) await new Promise((r) => (wake = r));
  };
  const onDecoder = (d) => (decoder = d);
  const stream = new ReadableStream(
    {
      start(c) {
        controller = c;
      },
      pull() {
        wanted = true;
        if (wake) wake();
      },
      cancel(reason) {
        cancelled = true;
        src.cancel(reason).catch(() => {});
        if (!blob) again.cancel(reason);
        if (decoder) decoder.abort(reason);
        if (wake) wake();
      },
    },
    { highWaterMark: 0 },
  );
  // The end of the member at `start` when it lies in the next few times `last` bytes (the size
  // of the member before): the end, or {skip} (the output delivered) when it does not.
  const endNear = async (start, last) => {
    const window = await src.peek(Math.min(GZIP_PIECE, 4 * last + 64));
    const d = openDecoder(deliver, 0);
    onDecoder(d);
    const r = await stepToEnd(d, start, start + window.length, start, window, true, start + MIN_MEMBER);
    if (r.end !== undefined) {
      src.skip(r.end - start);
      return { end: r.end };
    }
    if (r.failed) throw r.failed;
    d.abort(new Error('a larger member'));
    return { skip: d.out };
  };
  const run = async () => {
    let start = 0;
    let last = 0; // the compressed size of the member before (0: none)
    for (;;) {
      let next;
      let skip = 0;
      if (last && last <= SMALL_MEMBER) {
        const near = await endNear(start, last);
        next = near.end;
        skip = near.skip || 0;
      }
      if (next === undefined) {
        const r = await decodeMember(src, start, skip, deliver, null, onDecoder, memberLog);
        if (r.whole !== undefined) return;
        if (r.cut !== undefined) {
          stream.gzipCut = r.cut;
          return;
        }
        if (cancelled) throw r.failed;
        // Refused: decode the member again (from the bytes logged in memory, or for a member past
        // MEMBER_LOG from the file), then step through the refused bytes.
        let step = stepBytes(r, start);
        let redo = r.log && memoryReader([...r.log, r.piece]);
        try {
          if (!step) step = { lo: Math.max(start, r.from - 4), bytes: await again.bytes(Math.max(start, r.from - 4), r.to) };
          if (!redo) redo = again.reader(start);
        } catch {
          throw r.failed; // a fetched file too large to keep: the refusal stands
        }
        const stepped = await decodeMember(redo, start, Math.max(skip, r.delivered), deliver, { from: r.from, to: r.to, ...step }, onDecoder);
        redo.cancel().catch(() => {});
        if (stepped.end === undefined) throw stepped.failed;
        // What follows the member's end in the refused piece is the next one's (or not gzip).
        next = stepped.end;
        src.unread(r.piece.subarray(next - r.from));
      }
      last = next - start;
      // Another member (gzip's magic bytes, as zlib decides), or bytes that are not gzip.
      if (isGzip(await src.peek(2))) {
        start = next;
        continue;
      }
      stream.gzipTrailing = { at: next, ignored: (await again.size()) - next };
      return;
    }
  };
  run().then(
    () => {
      if (!cancelled) controller.close();
    },
    (e) => {
      if (!cancelled) controller.error(e);
    },
  );
  return stream;
}
