// --- A large gzip file: one worker decompresses, the other parses -------------------------------
// DecompressionStream runs on the thread that reads from it, so decompressing and parsing in one
// worker add up. For a gzip File of UNZIP_MIN bytes or more (worker/helpers.js) the page gives the
// loader a helper that decompresses ({unzip, name, blob, port}) and transfers the JSON chunks to
// it, a few ahead (credits returned as the loader takes them), so the two overlap on two cores. All
// the JSON decoded before a damaged or cut-off end reaches the loader first (gunzip.js),
// then the error: the loader reports it as it does its own (gzip_corrupt, at the JSON offset).
import { PortMsg } from './protocol.js';
import { JobError } from './module.js';
import { gunzip } from './gunzip.js';

const UNZIP_AHEAD = 4;
const UNZIP_BATCH = 1 << 20;

// The helper's side.
export async function runUnzip(msg) {
  const t0 = performance.now();
  const port = msg.port;
  let credits = UNZIP_AHEAD;
  let stopped = false;
  let wake = null;
  port.onmessage = (e) => {
    if (e.data.type === PortMsg.ack) credits++;
    else if (e.data.type === PortMsg.stop) stopped = true;
    if (wake) wake();
  };
  let read = 0;
  const counted = msg.blob.stream().pipeThrough(
    new TransformStream({
      transform(chunk, controller) {
        read += chunk.length;
        controller.enqueue(chunk);
      },
    }),
  );
  let reader = null;
  // Decoded chunks (64 KB) are gathered into UNZIP_BATCH bytes per message: one message per chunk
  // cost the loader more than the decompression saved.
  let batch = new Uint8Array(UNZIP_BATCH);
  let filled = 0;
  const send = () => {
    if (!filled) return;
    credits--;
    port.postMessage({ type: PortMsg.chunk, buffer: batch.buffer, offset: 0, length: filled, read }, [batch.buffer]);
    batch = new Uint8Array(UNZIP_BATCH);
    filled = 0;
  };
  try {
    const decoded = gunzip(counted, msg.blob);
    reader = decoded.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done || stopped) break;
      for (let at = 0; at < value.length; ) {
        const n = Math.min(value.length - at, UNZIP_BATCH - filled);
        batch.set(value.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === UNZIP_BATCH) {
          while (credits <= 0 && !stopped) await new Promise((r) => (wake = r));
          if (stopped) break;
          send();
        }
      }
    }
    send();
    port.postMessage({ type: PortMsg.end, read, ms: Math.round(performance.now() - t0), gzipCut: decoded.gzipCut, gzipTrailing: decoded.gzipTrailing });
  } catch (e) {
    send(); // what was decoded before the error
    port.postMessage({ type: PortMsg.end, read, error: String((e && e.message) || e) });
  } finally {
    if (reader) reader.cancel().catch(() => {});
  }
}

// The loader's side: a stream-like source of the chunks the helper sends (what the loader uses of
// a ReadableStream: getReader(), read(), cancel()). onRead gets the compressed bytes read so far.
export function relayed(port, onRead) {
  const chunks = [];
  let end = null;
  let waiting = null;
  port.onmessage = (e) => {
    const m = e.data;
    if (m.type === PortMsg.chunk) chunks.push(m);
    else if (m.type === PortMsg.end) end = m;
    if (waiting) waiting();
  };
  // The helper's worker failed (the page tells: part-lost): end with an error that says so.
  const lost = () => {
    end = { read: 0, lost: true };
    if (waiting) waiting();
  };
  const reader = {
    async read() {
      while (!chunks.length && !end) await new Promise((r) => (waiting = r));
      waiting = null;
      if (chunks.length) {
        const m = chunks.shift();
        port.postMessage({ type: PortMsg.ack });
        onRead(m.read);
        return { done: false, value: new Uint8Array(m.buffer, m.offset, m.length) };
      }
      source.helperMs = end.ms;
      if (end.lost) throw new JobError('worker_failed', 'the worker that decompresses the file stopped: open the file again');
      onRead(end.read);
      if (end.error) throw new Error(end.error);
      source.gzipCut = end.gzipCut; // cut off: gunzip()
      source.gzipTrailing = end.gzipTrailing; // bytes after the gzip data, ignored
      return { done: true, value: undefined };
    },
    cancel() {
      port.postMessage({ type: PortMsg.stop });
      return Promise.resolve();
    },
  };
  const source = { getReader: () => reader, cancel: () => reader.cancel(), lost, helperMs: 0 };
  return source;
}
