// --- Several workers on one file ------------------------------------------------------------------
// The page gives a plain File between 32 MB and 1.5 GB (worker/helpers.js) helper workers, one per
// core beyond the first (at most 7), each reached through a MessagePort (open's partPorts). The
// loader guesses N-1 points near k/N of the file where an element of the event array begins
// (src/import/chrome_json/split_point.h); helper k reads from point k up to point k+1 (the last
// one to the end of the event array) into a model of its own and sends it over as bytes
// (src/model/trace_part.h). The loader reads from the start up to point 1, checks that it is an
// element boundary, merges part 1, resumes where part 1 stopped (point 2, when the guesses were
// right), merges part 2, and so on; then reads the little that is left and finishes. A part that
// cannot be used (a wrong guess, B/E events, a cut-off file, a failed helper) is read by the
// loader itself, and the parts after it are still taken. Either way the model is the one a single
// worker builds (tests/import/split_import_test.cpp; tests/browser/workers.mjs compares the
// reports of 1..8 workers byte for byte).
import { PortMsg } from './protocol.js';
import { PROGRESS_MS, feed, loadModule, parseJson, resetModule, withBytes } from './module.js';
import { fileReader } from './stream.js';
import { Prefault, prefaultBudget } from './prefault.js';

const SPLIT_PROBE = 1 << 20;
// A part's bytes per byte of the JSON it was read from (resnet 0.15, tiny_kernels 0.19 at 200 MB,
// docs/performance.md session 41), rounded up. Its memory in the loader is twice that: the bytes
// received, and the part decoded from them before the merge.
export const PART_PER_JSON_BYTE = 0.2;

// The points where parts start: increasing offsets of element starts, one per helper at most.
export async function findSplits(M, blob, helpers) {
  const n = helpers + 1;
  const starts = [];
  for (let k = 1; k < n; k++) {
    const from = Math.floor((blob.size * k) / n);
    if (starts.length && from <= starts[starts.length - 1]) continue;
    const probe = new Uint8Array(await blob.slice(from, from + SPLIT_PROBE).arrayBuffer());
    const at = withBytes(M, probe, (ptr, len) => M.findPartStart(ptr, len), -1);
    if (at >= 0 && (!starts.length || from + at > starts[starts.length - 1])) starts.push(from + at);
  }
  return starts;
}

function applyPart(M, session, buffer) {
  return withBytes(M, new Uint8Array(buffer), (ptr, n) => session.applyPart(ptr, n), false);
}

// The loader's end of the helpers' ports: their progress, then their parts (bytes, or null).
export class PartHelpers {
  constructor(ports) {
    this.helpers = ports.map((port) => {
      const h = { port, read: 0, events: 0, done: false };
      h.result = new Promise((resolve) => (h.resolve = resolve));
      port.onmessage = (e) => {
        const m = e.data;
        if (m.type === PortMsg.progress && !h.done) {
          h.read = m.read;
          h.events = m.events;
        } else if (m.type === PortMsg.part) h.resolve(m);
      };
      return h;
    });
  }
  get count() {
    return this.helpers.length;
  }
  // The helpers' share of the progress so far (those still reading).
  get read() {
    return this.helpers.reduce((s, h) => s + (h.done ? 0 : h.read), 0);
  }
  get events() {
    return this.helpers.reduce((s, h) => s + (h.done ? 0 : h.events), 0);
  }
  // Helper k reads from starts[k] up to starts[k + 1]; helpers without a start stop.
  start(starts) {
    this.helpers.forEach((h, k) => {
      if (k < starts.length) h.port.postMessage({ type: PortMsg.start, offset: starts[k], stop: k + 1 < starts.length ? starts[k + 1] : -1 });
      else this.stop(k);
    });
  }
  result(k) {
    return this.helpers[k].result;
  }
  // No part is wanted (any more) from helper k: it may stop; a wait for it ends with none.
  stop(k) {
    const h = this.helpers[k];
    if (!h || h.done) return;
    h.done = true;
    h.port.postMessage({ type: PortMsg.stop });
    h.resolve({ bytes: null });
  }
  stopAll() {
    this.helpers.forEach((h, k) => this.stop(k));
  }
}

// The loader reads `blob` with its helpers from the points `starts` (findSplits). feedStream (the
// loader's, worker/job.js) feeds a stream to the session; false when the load stopped.
export async function readSplit(job, blob, starts, feedStream) {
  const { helpers, timings } = job;
  helpers.start(starts);
  job.mark('split');
  timings.readers = starts.length + 1;
  timings.parts = 0;
  let pos = 0;
  for (let k = 0; k < starts.length; k++) {
    if (pos > starts[k]) {
      helpers.stop(k); // the part before ended past this point: this part is not used
      continue;
    }
    if (!(await feedStream(blob.slice(pos, starts[k]).stream()))) return false;
    if (k === 0) job.mark('first_part');
    pos = starts[k];
    const asked = performance.now();
    const pending = job.session.atPartBoundary() ? helpers.result(k) : null;
    if (pending && job.prefault) {
      // The loader waits for the part (the helper's read takes longer: its module is started with
      // the load): the memory the merge writes (the part's bytes, then the part decoded) is written
      // meanwhile, as the model's is in the file's read waits. Fresh memory's first write is a page
      // fault, ~16 us per 4 KiB here: ~0.15 s of the merge of a 16 MB part (session 41).
      job.prefault.extend(2 * PART_PER_JSON_BYTE * ((k + 1 < starts.length ? starts[k + 1] : blob.size) - starts[k]));
      await job.prefault.whileWaiting(pending);
    }
    const part = pending ? await pending : null;
    const got = performance.now();
    timings.part_wait_ms = (timings.part_wait_ms || 0) + Math.round(got - asked);
    if (job.cancelled) return false;
    if (k === 0) job.mark('part_received');
    const merged = part && part.bytes && applyPart(job.M, job.session, part.bytes);
    timings.merge_ms = (timings.merge_ms || 0) + Math.round(performance.now() - got);
    if (merged) {
      pos = job.session.resumeOffset();
      job.read = pos;
      timings.part_bytes = (timings.part_bytes || 0) + part.bytes.byteLength;
      timings.parts++;
      if (!timings.helper) timings.helper = part.timings;
    }
    helpers.stop(k);
  }
  job.mark('merged');
  return feedStream(blob.slice(pos).stream());
}

// The helper: {part, name, blob, port}. Waits for {start, offset, stop}, reads the event array
// from there into a part, and answers {part, bytes} (an ArrayBuffer, or null).
export async function runPart(msg) {
  const port = msg.port;
  let session = null;
  let stopped = false;
  const t0 = performance.now();
  const timings = {};
  const mark = (what) => (timings[what] = Math.round((performance.now() - t0) * 10) / 10);
  try {
    const go = new Promise((resolve) => {
      port.onmessage = (e) => {
        if (e.data.type === PortMsg.stop) stopped = true;
        resolve(e.data);
      };
    });
    const M = await loadModule();
    mark('module');
    const order = await go;
    if (order.type !== PortMsg.start) return;
    mark('start');
    session = new M.Session();
    session.startPart(order.offset, typeof order.stop === 'number' ? order.stop : -1);
    const reader = fileReader(msg.blob.slice(order.offset).stream());
    // The part's model and its bytes, written while the helper waits for the File's chunks, as
    // the loader writes its model's (prefault.js): their page faults otherwise come in the feed
    // and in takePart(), on the way to the part the loader waits for.
    const range = (typeof order.stop === 'number' && order.stop >= 0 ? order.stop : msg.blob.size) - order.offset;
    const prefault = new Prefault(M, prefaultBudget(M, range) + Math.floor(PART_PER_JSON_BYTE * range));
    let read = 0;
    let lastPost = 0;
    for (;;) {
      const pending = reader.read();
      await prefault.whileWaiting(pending);
      const { value, done } = await pending;
      if (done || stopped) break;
      if (feed(M, session, value) === false || session.partFailed()) break;
      read += value.length;
      if (session.partEnded()) break;
      const now = performance.now();
      if (now - lastPost >= PROGRESS_MS) {
        lastPost = now;
        port.postMessage({ type: PortMsg.progress, read, events: parseJson(session.progressJson(), {}).events || 0 });
      }
    }
    reader.cancel().catch(() => {});
    mark('read');
    timings.prefault_ms = Math.round(prefault.ms);
    const view = !stopped && session.partEnded() && !session.partFailed() ? session.takePart() : null;
    const bytes = view && view.length ? view.slice().buffer : null; // a copy: the view is WASM memory
    mark('sent');
    port.postMessage({ type: PortMsg.part, bytes, timings }, bytes ? [bytes] : []);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) resetModule();
    port.postMessage({ type: PortMsg.part, bytes: null, error: String((e && e.message) || e) });
  } finally {
    if (session) session.delete();
  }
}
