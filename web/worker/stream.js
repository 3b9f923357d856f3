// Where a trace's bytes come from: a File's own stream (a BYOB reader), a same-origin URL
// (fetch), and gzip decompression (DecompressionStream) that keeps what was decoded before a
// damaged end. The trace is never held whole in JS: chunks go from here straight into WASM memory.
import { JobError } from './module.js';

export const GZIP_UNSUPPORTED = 'this browser has no DecompressionStream, so it cannot read gzip: gunzip the file first, or use a current browser';

export const isGzip = (head) => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

// The first n bytes of a Blob.
export async function headOf(blob, n) {
  return new Uint8Array(await blob.slice(0, n).arrayBuffer());
}

// Reads at least n bytes from the front of a stream; returns them and a stream that still yields
// everything (the peeked chunks first). onChunk sees each raw chunk once, for the progress count.
export async function peek(stream, n, onChunk) {
  const reader = stream.getReader();
  const head = [];
  let have = 0;
  while (have < n) {
    const { value, done } = await reader.read();
    if (done) break;
    onChunk(value);
    head.push(value);
    have += value.length;
  }
  const first = new Uint8Array(Math.min(n, have));
  let at = 0;
  for (const c of head) {
    if (at >= first.length) break;
    const part = c.subarray(0, first.length - at);
    first.set(part, at);
    at += part.length;
  }
  const rest = new ReadableStream({
    start(controller) {
      for (const c of head) controller.enqueue(c);
    },
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) controller.close();
      else {
        onChunk(value);
        controller.enqueue(value);
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return { first, stream: rest };
}

// A same-origin URL's body: {stream, total} (total 0 when the size on the wire is not the file's).
export async function fetchSource(url, name) {
  let resp;
  try {
    // redirect: 'error': a same-origin URL that redirects elsewhere must not bring in another
    // origin's file (the page's <meta> CSP does not bind this worker on hosts that send no CSP
    // header, e.g. GitHub Pages). The check of resp.url is for browsers that ignore the option.
    resp = await fetch(url, { redirect: 'error', credentials: 'same-origin' });
  } catch (e) {
    throw new JobError('fetch_failed', `could not fetch ${name}: ${e.message} (redirects are refused)`);
  }
  if (resp.redirected || (resp.url && new URL(resp.url).origin !== new URL(url, self.location.href).origin)) {
    throw new JobError('fetch_failed', `could not fetch ${name}: it redirected to another address (refused)`);
  }
  if (!resp.ok || !resp.body) {
    throw new JobError('fetch_failed', `could not fetch ${name}: HTTP ${resp.status} ${resp.statusText}`.trim());
  }
  // Content-Length is the size on the wire; it is the file size only without Content-Encoding.
  const len = Number(resp.headers.get('Content-Length'));
  const total = !resp.headers.get('Content-Encoding') && len > 0 ? len : 0;
  return { stream: resp.body, total };
}

// A stream read whole into a Blob (the browser may keep a large one on disk), for input that
// needs random access (an Nsight Systems export fetched by ?url=). More than `limit` bytes stop
// the read with `tooLarge(bytesRead)`.
export async function streamToBlob(stream, limit, tooLarge, onBytes) {
  const reader = stream.getReader();
  const parts = [];
  let pending = [];
  let pendingBytes = 0;
  let bytes = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    bytes += value.length;
    if (bytes > limit) {
      reader.cancel().catch(() => {});
      throw tooLarge(bytes);
    }
    onBytes(bytes);
    pending.push(value);
    pendingBytes += value.length;
    if (pendingBytes >= 8 << 20) {
      parts.push(new Blob(pending));
      pending = [];
      pendingBytes = 0;
    }
  }
  parts.push(new Blob(pending));
  return new Blob(parts);
}

// The decompressed size a gzip file says it has (its last 4 bytes, ISIZE: the size modulo 2^32).
// A trace compresses 5-20 times, so an ISIZE below the compressed size has wrapped past 4 GB.
export async function gzipDecodedSize(blob) {
  if (!blob || blob.size < 18) return 0;
  const t = new Uint8Array(await blob.slice(blob.size - 4).arrayBuffer());
  const isize = t[0] + t[1] * 2 ** 8 + t[2] * 2 ** 16 + t[3] * 2 ** 24;
  return isize >= blob.size ? isize : isize + 2 ** 32;
}

// A File's stream read into three reused buffers, two reads in flight (a BYOB reader), instead of
// a new ArrayBuffer per chunk: in Chromium that read a 213 MB File in about two thirds of the
// time, on the thread that also parses. The next chunk is asked for as soon as one is handed out, so the browser reads it
// while the caller feeds this one (waiting for reads was 15% of a warm load of a 213 MB file).
// Each chunk is a view of one of the buffers, valid until the next read(): feed() copies it into
// WASM memory at once, so only a File's own stream (nothing kept, see ByteKeeper) reads so.
const READ_BYTES = 1 << 20;
const READS_AHEAD = 2;
export function fileReader(stream) {
  let reader;
  try {
    reader = stream.getReader({ mode: 'byob' });
  } catch {
    return stream.getReader(); // not a byte stream in this browser
  }
  let lent = null; // the buffer of the chunk the caller holds
  const ask = (buffer) => {
    const p = reader.read(new Uint8Array(buffer));
    p.catch(() => {}); // a failed read is reported when it is awaited, not as unhandled
    return p;
  };
  const pending = [];
  for (let k = 0; k < READS_AHEAD; k++) pending.push(ask(new ArrayBuffer(READ_BYTES)));
  return {
    async read() {
      if (lent) pending.push(ask(lent)); // the caller is done with the previous chunk
      lent = null;
      const r = await pending.shift();
      if (!r.done) lent = r.value.buffer;
      return r;
    },
    cancel: (why) => reader.cancel(why),
  };
}
