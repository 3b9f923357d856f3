// A pool of analyzer workers (worker/main.js, one WASM instance each) for reading several traces at
// once: the ranks of one job (ranks/mode.js) or BASE and TEST (compare/mode.js). Each worker reads
// one file at a time and takes the next file in the list when it is done; the progress callback
// sees the bytes read over all files. Then one worker combines what the files sent back (the
// ranks' digests, or the two diff digests), with the same C++ as the CLI.
//
//   const pool = new AnalyzerPool(poolSize(files.length));
//   const results = await pool.readAll(items, onProgress);   // items: [{blob, name, ...extra}]
//   const out = await pool.call(combineMsg(...));             // {json, markdown}
//   pool.close();                                            // terminates the workers
import { Msg, WorkerError, openMsg } from './protocol.js';
import { startAnalyzerWorker } from './start.js';

// min(files, cores, 4): more workers than cores only add memory (one WASM heap each).
export function poolSize(files) {
  const cores = Number(navigator.hardwareConcurrency) || 2;
  return Math.max(1, Math.min(files, cores, 4));
}

export class PoolError extends WorkerError {}

// The sizes of `items` (pool items, {blob}) and their sum, or null when there are more than
// SIZES_UP_FRONT. A File's size costs Chromium a synchronous round trip to the browser process
// (~1 ms each): reading 1,000 of them held the page ~1.2 s right after the drop, before any
// progress was shown. With many files the progress counts files instead (ranks/mode.js).
export const SIZES_UP_FRONT = 64;
export function knownSizes(items) {
  return items.length > SIZES_UP_FRONT ? null : items.map((it) => it.blob.size || 0);
}
export function knownTotal(items) {
  const sizes = knownSizes(items);
  return sizes && sizes.reduce((a, b) => a + b, 0);
}

// Starts a job of the ranks or compare mode: a pool of `size` workers and the job object the mode
// keeps ({pool, reject, cancelled, whenCancelled, t0}) until it ends; `whenCancelled` rejects when
// cancelPoolJob() ends it, so the mode races it against its work, and t0 (taken once the workers
// are started) times the job. The page shows the status line, not an earlier error, while it runs.
export function startPoolJob(size, ui) {
  const pool = new AnalyzerPool(size);
  const t0 = performance.now();
  let reject;
  const whenCancelled = new Promise((_, r) => (reject = r));
  ui.error.hidden = true;
  ui.status.hidden = false;
  document.body.dataset.state = 'loading';
  return { pool, reject, cancelled: false, whenCancelled, t0 };
}

// Ends a running job of the ranks or compare mode (startPoolJob's): its workers stop
// and its promise rejects as 'cancelled', saying `message` (the handlers run after the caller's
// own clean-up, as microtasks).
export function cancelPoolJob(job, message) {
  job.cancelled = true;
  job.pool.close();
  job.reject(new PoolError({ code: 'cancelled', message }));
}

let nextId = 1_000_000; // apart from app.js's ids, so a stray message can never match

class PoolWorker {
  constructor(onDead) {
    this.jobs = new Map(); // id -> {resolve, reject, onMessage}
    this.worker = startAnalyzerWorker();
    this.worker.onmessage = (e) => {
      const job = this.jobs.get(e.data.id);
      if (job) job.onMessage(e.data);
    };
    this.worker.onerror = (e) => {
      e.preventDefault();
      onDead(this);
      this.failAll({ code: 'worker_failed', message: `the analyzer stopped: ${e.message || 'unknown error'}` });
    };
  }

  // Posts `msg` with a fresh id; `handle(m, done, fail)` sees every message for it.
  run(msg, handle) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const finish = (fn) => (x) => {
        this.jobs.delete(id);
        fn(x);
      };
      const done = finish(resolve);
      const fail = finish((err) => reject(err instanceof Error ? err : new PoolError(err)));
      this.jobs.set(id, { reject: fail, onMessage: (m) => (m.type === Msg.error ? fail(m.error) : handle(m, done, fail)) });
      this.worker.postMessage({ ...msg, id });
    });
  }

  failAll(err) {
    for (const job of [...this.jobs.values()]) job.reject(err);
  }

  terminate() {
    this.worker.terminate();
    this.failAll({ code: 'cancelled', message: 'reading was cancelled' });
  }
}

export class AnalyzerPool {
  constructor(size) {
    this.closed = false;
    this.workers = [];
    const onDead = (w) => {
      w.dead = true;
    };
    for (let i = 0; i < size; i++) this.workers.push(new PoolWorker(onDead));
  }

  // Reads every item ({blob, name} plus fields for the open message (protocol.js): loadIndex,
  // diffDigest); resolves to one result per item, in item order: {ok: true, json, markdown,
  // digest, diffDigest, gpuProcesses} or {ok: false, error: {code, message, offset}}
  // (gpuProcesses: an Nsight Systems export's 2+ processes with GPU work, else null). A file that fails does
  // not stop the others.
  //
  // The progress callback sees {read, total, done, files}: total is the bytes of all the files
  // when there are at most SIZES_UP_FRONT of them, else null (the sizes are not read: see
  // knownSizes), and read the bytes read so far. Kept as running sums, so each message costs the
  // same with 1,000 files as with 2 (before: two passes over every file per message).
  readAll(items, onProgress) {
    const read = new Array(items.length).fill(0);
    const sizes = knownSizes(items);
    const total = sizes && sizes.reduce((a, b) => a + b, 0);
    const results = new Array(items.length);
    let next = 0;
    let readSum = 0;
    let done = 0;
    const setRead = (i, bytes) => {
      readSum += bytes - read[i];
      read[i] = bytes;
    };
    const report = () => onProgress && onProgress({ read: readSum, total, done, files: items.length });
    const drain = async (w) => {
      while (!this.closed && next < items.length) {
        const i = next++;
        const { blob, name, ...extra } = items[i];
        // The file's size: known, or as its worker reads it (msg.total), never asked here.
        let size = sizes ? sizes[i] : 0;
        try {
          const m = await w.run(openMsg(undefined, { blob, name, ...extra }), (msg, finish) => {
            if (msg.type === Msg.progress) {
              if (msg.total > 0) size = msg.total;
              setRead(i, size ? Math.min(msg.read || 0, size) : msg.read || 0);
              report();
            } else if (msg.type === Msg.report) finish(msg);
          });
          if (size) setRead(i, size);
          results[i] = { ok: true, json: m.json, markdown: m.markdown || '', digest: m.digest || '', diffDigest: m.diffDigest || '', gpuProcesses: m.gpuProcesses || null };
        } catch (e) {
          if (this.closed) throw e;
          results[i] = { ok: false, error: { code: e.code || 'unknown', message: e.message, offset: e.offset } };
          if (w.dead) return; // its worker is gone: the others take the remaining files
        } finally {
          if (results[i]) done++;
        }
        report();
      }
    };
    report();
    return Promise.all(this.workers.map(drain)).then(() => {
      if (this.closed) throw new PoolError({ code: 'cancelled', message: 'reading was cancelled' });
      for (let i = 0; i < items.length; i++) {
        if (!results[i]) results[i] = { ok: false, error: { code: 'worker_failed', message: 'no analyzer was left to read this file' } };
      }
      return results;
    });
  }

  // A combining call (protocol.js combineMsg(digests, reports, markdowns) or diffMsg(base,
  // test)) on the first live worker; resolves to {json, markdown}.
  call(msg) {
    const w = this.workers.find((x) => !x.dead);
    if (!w || this.closed) return Promise.reject(new PoolError({ code: 'worker_failed', message: 'no analyzer is running' }));
    return w.run(msg, (m, done) => {
      if (m.type === Msg.combined) done({ json: m.json, markdown: m.markdown || '' });
    });
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    for (const w of this.workers) w.terminate();
  }
}
