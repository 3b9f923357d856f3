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
  readAll(items, onProgress) {
    const read = new Array(items.length).fill(0);
    const total = items.reduce((s, it) => s + (it.blob.size || 0), 0);
    const results = new Array(items.length);
    let next = 0;
    const report = () => onProgress && onProgress({ read: read.reduce((a, b) => a + b, 0), total, done: results.filter(Boolean).length, files: items.length });
    const drain = async (w) => {
      while (!this.closed && next < items.length) {
        const i = next++;
        const { blob, name, ...extra } = items[i];
        try {
          const m = await w.run(openMsg(undefined, { blob, name, ...extra }), (msg, done) => {
            if (msg.type === Msg.progress) {
              read[i] = Math.min(msg.read || 0, blob.size || msg.read || 0);
              report();
            } else if (msg.type === Msg.report) done(msg);
          });
          read[i] = blob.size || read[i];
          results[i] = { ok: true, json: m.json, markdown: m.markdown || '', digest: m.digest || '', diffDigest: m.diffDigest || '', gpuProcesses: m.gpuProcesses || null };
        } catch (e) {
          if (this.closed) throw e;
          results[i] = { ok: false, error: { code: e.code || 'unknown', message: e.message, offset: e.offset } };
          if (w.dead) return; // its worker is gone: the others take the remaining files
        }
        report();
      }
    };
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
