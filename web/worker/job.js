// One load: a trace read from a File, a Blob or a same-origin URL into a Session, then its report.
// {open, id, name, blob | url, ...} -> progress..., then report (or error, or cancelled).
// A plain File's own stream, a fetched body or gzip (decompressed here or by a helper:
// worker/unzip.js) goes chunk by chunk straight into WASM memory; a large plain File is read by
// several workers (worker/split.js); an Nsight Systems export is read in place (worker/nsys.js).
import { Msg, errorBody, errorMsg, reportMsg } from './protocol.js';
import { JobError, PROGRESS_MS, YIELD_MS, feed, loadModule, moduleLoadError, parseJson, resetModule } from './module.js';
import { GZIP_UNSUPPORTED, fetchSource, fileReader, gzipDecodedSize, headOf, isGzip, peek, streamToBlob } from './stream.js';
import { MAX_FETCHED_EXPORT_BYTES, MAX_JSON_BYTES, PROJECT_AFTER_BYTES, WASM_MAX_BYTES, gb, projectedTooLarge, reserveModel, tooLarge } from './limits.js';
import { ByteKeeper, adoptSession, deleteSession, forgetKept, makeRoomFor } from './kept.js';
import { isExport, readExport } from './nsys.js';
import { PartHelpers, findSplits, readSplit } from './split.js';
import { relayed } from './unzip.js';
import { gunzip } from './gunzip.js';
import { combinable } from './combine.js';
import { warmupCut } from './warm.js';
import { Prefault, prefaultBudget } from './prefault.js';

let current = null; // the running load

class Load {
  constructor(msg) {
    this.msg = msg;
    this.id = msg.id;
    this.cancelled = false;
    this.reader = null;
    this.helpers = new PartHelpers(msg.partPorts || []); // worker/split.js
    this.unzip = null; // worker/unzip.js relayed()
    this.M = null;
    this.session = null;
    this.read = 0; // bytes of the input read (compressed, for gzip)
    this.total = 0;
    this.gzip = false;
    this.prefault = null; // the memory written ahead while the loader waits (streamFeeder)
    // Where a load's time goes, for bench/ingest_browser.mjs (ms since the worker got the
    // message), the wait for the stream's chunks and the time inside the module feeding them.
    this.t0 = performance.now();
    // origin_ms: that moment on the clock every thread shares, so that the page can tell how long
    // the message waited for the worker (a warm-up stage still running: app.js worker_start).
    this.timings = { origin_ms: performance.timeOrigin + this.t0, read_wait_ms: 0, feed_ms: 0, reads: 0, warmup_cut: warmupCut() };
  }
  mark(what) {
    this.timings[what] = Math.round((performance.now() - this.t0) * 10) / 10;
  }
  // stage: 'reading', then 'building' (finish(): pairing, sorting, the model) and 'analysing'
  // (the report), each said before the call that can take long on a large or degenerate trace.
  progress(stage = 'reading') {
    const p = this.session ? parseJson(this.session.progressJson(), {}) : {};
    const h = this.helpers; // the helpers' parts so far
    self.postMessage({ type: Msg.progress, id: this.id, stage, read: this.read + h.read, total: this.total, bytes: (p.bytes || 0) + h.read, events: (p.events || 0) + h.events });
  }
  cancel() {
    this.cancelled = true;
    if (this.reader) this.reader.cancel().catch(() => {});
    this.helpers.stopAll();
  }
}

export function openTrace(msg) {
  if (current) current.cancel();
  const job = (current = new Load(msg));
  run(job).finally(() => {
    if (current === job) current = null;
    if (job.cancelled) self.postMessage({ type: Msg.cancelled, id: job.id });
  });
}

export function cancelTrace(id) {
  if (current && current.id === id) current.cancel();
}

// A helper of load `id` died (the page saw its worker fail): index k, or all without one.
export function helperLost(id, index) {
  if (!current || current.id !== id) return;
  if (typeof index === 'number') current.helpers.stop(index);
  else current.helpers.stopAll();
  if (current.unzip) current.unzip.lost();
}

async function run(job) {
  const msg = job.msg;
  try {
    job.M = await loadModule().catch((e) => {
      throw moduleLoadError(e);
    });
    if (job.cancelled) return;
    job.mark('module');
    makeRoomFor(job.M);
    let blob = msg.blob;
    let fetched = null;
    if (!blob) {
      fetched = await fetchInput(job);
      if (!fetched) return;
      blob = fetched.blob;
    }
    if (blob && !msg.unzipPort && isExport(msg.name, await headOf(blob, 16))) {
      job.helpers.stopAll();
      if (!job.cancelled) readExport(job, blob);
      return;
    }
    await readJson(job, fetched);
  } catch (e) {
    if (!job.cancelled) self.postMessage(errorMsg(job.id, errorOf(job, e)));
  } finally {
    job.helpers.stopAll();
    if (job.session) deleteSession(job.session);
  }
}

// A same-origin URL (?url=): {stream, first} for JSON (plain or gzip), or {blob} for an Nsight
// Systems export, which needs random access: read whole into a Blob first, within a size limit.
async function fetchInput(job) {
  const { msg } = job;
  const src = await fetchSource(msg.url, msg.name);
  job.total = src.total;
  if (job.cancelled) {
    src.stream.cancel().catch(() => {});
    return null;
  }
  const peeked = await peek(src.stream, 16, (c) => (job.read += c.length));
  if (!isExport(msg.name, peeked.first)) return peeked;
  const large = (n) => new JobError('too_large', `${msg.name} is larger than the ${gb(MAX_FETCHED_EXPORT_BYTES)} an Nsight Systems export opened by URL may have: open the file itself, or use the command line: kinetoscope report ${msg.name}`, n);
  if (job.total > MAX_FETCHED_EXPORT_BYTES) {
    peeked.stream.cancel().catch(() => {});
    throw large(0);
  }
  let last = 0;
  const blob = await streamToBlob(peeked.stream, MAX_FETCHED_EXPORT_BYTES, large, () => {
    const now = performance.now();
    if (now - last >= PROGRESS_MS) {
      last = now;
      self.postMessage({ type: Msg.progress, id: job.id, read: job.read, total: job.total, bytes: job.read, events: 0 });
    }
  });
  job.mark('fetched');
  return { blob };
}

// Where the JSON comes from: {data: a stream, or null for the File's own, plainFile, jsonTotal}.
async function jsonInput(job, fetched) {
  const { msg } = job;
  if (msg.unzipPort) {
    // A large gzip file: the helper decompresses it and hands the JSON over (worker/unzip.js).
    job.gzip = true;
    if (typeof DecompressionStream !== 'function') throw new JobError('gzip_unsupported', GZIP_UNSUPPORTED);
    job.total = msg.blob.size;
    const jsonTotal = await gzipDecodedSize(msg.blob);
    job.unzip = relayed(msg.unzipPort, (n) => (job.read = n));
    job.mark('unzip_helper');
    return { data: job.unzip, plainFile: false, jsonTotal };
  }
  if (msg.blob && !isGzip(await headOf(msg.blob, 2))) {
    // A plain File: its own stream, read by fileReader() (feedStream counts what it reads).
    job.total = msg.blob.size;
    return { data: null, plainFile: true, jsonTotal: msg.blob.size };
  }
  let peeked = fetched;
  if (!peeked) {
    job.total = msg.blob.size;
    peeked = await peek(msg.blob.stream(), 2, (c) => (job.read += c.length));
  }
  job.gzip = isGzip(peeked.first);
  if (job.gzip && typeof DecompressionStream !== 'function') throw new JobError('gzip_unsupported', GZIP_UNSUPPORTED);
  const jsonTotal = job.gzip ? await gzipDecodedSize(msg.blob) : job.total;
  return { data: job.gzip ? gunzip(peeked.stream, fetched ? null : msg.blob) : peeked.stream, plainFile: false, jsonTotal }; // counted by peek()
}

async function readJson(job, fetched) {
  const { msg, M, timings } = job;
  const { data, plainFile, jsonTotal } = await jsonInput(job, fetched);
  if (job.cancelled) return data && data.cancel().catch(() => {});
  if (jsonTotal > MAX_JSON_BYTES) {
    if (data) data.cancel().catch(() => {});
    throw tooLarge(msg.name, `${msg.name} holds ${gb(jsonTotal)} of JSON${job.gzip ? ' (its gzip trailer says)' : ''}, and its analysis would need more`, 0);
  }
  const session = (job.session = new M.Session());
  session.setSource(msg.name, job.gzip);
  // The details panel re-reads an event's bytes: keep the file itself, or the decoded JSON.
  const keep = new ByteKeeper(!job.gzip && msg.blob ? msg.blob : null);
  const feedStream = streamFeeder(job, keep, plainFile ? null : data, jsonTotal);
  const starts = job.helpers.count && plainFile ? await findSplits(M, msg.blob, job.helpers.count) : [];
  job.progress();
  if (starts.length) await readSplit(job, msg.blob, starts, feedStream);
  else {
    job.helpers.stopAll();
    await feedStream(data || msg.blob.stream());
  }
  if (job.cancelled) return;
  // A gzip file cut off: its readable part is the trace, with a diagnostic (gunzip.js).
  if (data && data.gzipCut !== undefined) session.setGzipCut(data.gzipCut);
  // Bytes after the gzip data that are not gzip: ignored, and said (gunzip.js).
  if (data && data.gzipTrailing) session.setGzipTrailing(data.gzipTrailing.at, data.gzipTrailing.ignored);
  job.mark('fed');
  timings.read_wait_ms = Math.round(timings.read_wait_ms);
  timings.feed_ms = Math.round(timings.feed_ms);
  if (job.unzip && job.unzip.helperMs) timings.unzip_ms = job.unzip.helperMs;
  finishJson(job, keep);
}

function finishJson(job, keep) {
  const { session, timings } = job;
  // One rank of a file holding several ranks merged on one GPU (ranks/mode.js processItems).
  const proc = job.msg.rankProcess;
  if (proc && proc.merged && typeof session.setMergedRank === 'function') session.setMergedRank(proc.rank);
  job.progress('building');
  const ok = session.finish();
  job.mark('finished');
  job.progress('analysing');
  const json = ok ? session.reportJson() : '';
  job.mark('report_json');
  // The module's memory after the report, for bench/memory_split.mjs: its size, what the
  // allocator holds free in it, and the session's events (bytes per event of the model).
  timings.heap_bytes = job.M.HEAPU8.length;
  if (typeof job.M.heapFreeBytes === 'function') timings.heap_free_bytes = job.M.heapFreeBytes();
  timings.events = parseJson(session.progressJson(), {}).events || 0;
  if (ok && json) {
    const markdown = typeof session.reportMarkdown === 'function' ? session.reportMarkdown() : '';
    job.mark('markdown');
    // Two nodes' ranks merged into this file on one GPU pid: the page reads it again as ranks,
    // one per launching process, as `kinetoscope report` does (not a side of a comparison).
    const probe = !job.msg.diffDigest && !proc && typeof session.gpuProcessesJson === 'function';
    const merged = probe ? parseJson(session.gpuProcessesJson(), []) : [];
    const gpuProcesses = merged.length >= 2 ? merged : undefined;
    job.mark('posted');
    self.postMessage(reportMsg(job.id, { json, markdown, timings, gpuProcesses, ...combinable(session, job.msg) }));
    adoptSession(job.id, session, keep); // the timeline queries it from now on
    job.session = null;
  } else {
    self.postMessage(errorMsg(job.id, parseJson(session.errorJson(), null) || errorBody('unknown', 'the trace could not be read')));
  }
}

// feedStream(stream): feeds one stream to the end into job.session; false when the load stopped
// (cancelled, or a fatal error in the core: finish() says which). `counted` is the stream whose
// bytes are already counted as they are read (peek(), the unzip helper); a File's own streams are
// counted here and read by fileReader().
function streamFeeder(job, keep, counted, jsonTotal) {
  const { M, session, timings } = job;
  let nextProjection = PROJECT_AFTER_BYTES;
  let fedBytes = 0;
  let lastPost = 0;
  let lastYield = performance.now();
  // The memory the model will need, written while the reads keep the worker waiting (prefault.js).
  const prefault = (job.prefault = new Prefault(M, prefaultBudget(M, jsonTotal)));
  return async (stream) => {
    job.reader = stream === counted ? stream.getReader() : fileReader(stream);
    for (;;) {
      const asked = performance.now();
      const read = job.reader.read();
      await prefault.whileWaiting(read);
      const { value, done } = await read;
      const got = performance.now();
      timings.prefault_bytes = prefault.bytes;
      timings.prefault_ms = Math.round(prefault.ms);
      timings.read_wait_ms += got - asked;
      if (job.cancelled) return false;
      if (done) return true;
      if (!timings.first_chunk) job.mark('first_chunk');
      timings.reads++;
      if (stream !== counted) job.read += value.length;
      const fed = feed(M, session, value);
      timings.feed_ms += performance.now() - got;
      if (fed === false) {
        job.reader.cancel().catch(() => {});
        return false;
      }
      keep.add(value);
      fedBytes += value.length;
      if (jsonTotal && fedBytes >= nextProjection) {
        const first = nextProjection === PROJECT_AFTER_BYTES;
        nextProjection = fedBytes + PROJECT_AFTER_BYTES;
        const err = projectedTooLarge(session, job.msg.name, jsonTotal);
        if (err) {
          job.reader.cancel().catch(() => {});
          throw err;
        }
        if (first) reserveModel(session, jsonTotal);
      }
      const now = performance.now();
      if (now - lastPost >= PROGRESS_MS) {
        lastPost = now;
        job.progress();
      }
      // Decompressed chunks can resolve back to back as microtasks; let a cancel message in.
      if (now - lastYield >= YIELD_MS) {
        await new Promise((r) => setTimeout(r, 0));
        lastYield = performance.now();
        if (job.cancelled) return false;
      }
    }
  };
}

// What a failed load says: {code, message, offset?}.
function errorOf(job, e) {
  if (e instanceof JobError) return e.body();
  if (e instanceof WebAssembly.RuntimeError) {
    // The module aborted (a trap, or memory past its limit): its state is gone, so the next
    // file gets a fresh instance.
    resetModule();
    job.session = null;
    forgetKept(); // the kept Session lived in the same, now dead, instance
    // An allocation larger than the Session's reserve aborts the module: with its memory at the
    // 4 GB limit, that is the trace being too large, and is said so.
    const M = job.M;
    const full = M && M.HEAPU8 && M.HEAPU8.length > WASM_MAX_BYTES - 256 * 2 ** 20;
    if (full || /memory|OOM|alloc/i.test(e.message)) return tooLarge(job.msg.name, `the analyzer ran out of memory (${e.message})`, job.read).body();
    return errorBody('analyzer_crashed', `the analyzer stopped on this file: ${e.message}`, job.read);
  }
  if (job.gzip) {
    // Same code and offset (bytes of JSON decoded) as the CLI's zlib reader gives.
    const json = job.session ? parseJson(job.session.progressJson(), {}).bytes || 0 : 0;
    // The browser's own words ("WritableStreamDefaultWriter...") say nothing to a user.
    // Nothing decoded: there is no readable part to point to (the advice to gunzip it would give
    // an empty file), so the words say what is wrong with the file itself.
    if (json === 0) return errorBody('gzip_corrupt', 'the gzip stream is damaged from its start: not one byte of JSON could be decompressed (a damaged download, or a file that is not gzip-compressed JSON)', 0);
    return errorBody('gzip_corrupt', `the gzip stream is damaged or ends early (the file was cut off?); ${json} bytes of JSON were read. The readable part opens as plain JSON: gzip -dc FILE > trace.json, then open trace.json`, json);
  }
  return errorBody('read_failed', `the file could not be read: ${e.message || e}`, job.read);
}
