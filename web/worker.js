// Kinetoscope worker (classic script): owns the WASM analyzer and streams one trace at a time into it.
//
// Messages in:  {type:'open', id, name, blob[, partPort | unzipPort]}   a File or Blob, read with
//                                                blob.stream() (or by a helper: see below)
//               {type:'part', name, blob, port}  this worker helps another read a large file (see
//                                                "Two workers on one file"); {type:'part-lost', id}
//               {type:'unzip', blob, port}      this worker decompresses a large gzip file for another
//               {type:'warm'}                   load the module and warm it up (see "Warming up")
//               {type:'open', id, name, url}    a same-origin URL, read with fetch().body
//               {type:'cancel', id}
//               {type:'tl', id, req, op, args}  a timeline query on the last loaded trace (see the end)
//               {type:'combine'|'diff', ...}    several files at once (see combinable() below)
//               {type:'step-range', id, name}   the last loaded trace's report with steps from the
//                                                ranges named `name` (see stepRange())
// Messages out: {type:'progress', id, stage, read, total, bytes, events}   at most every ~100 ms;
//               stage 'reading', 'building' or 'analysing'
//               {type:'report', id, json, markdown, timings[, nsys]} the report as JSON and Markdown text
//               {type:'stats', id, json, ms}                       after the report of an Nsight Systems
//                                                                  export: its `nsys stats` tables
//               {type:'warm', ms}                                  warmed up, ready for a file
//               {type:'error', id, error:{code, message, offset?}}
//               {type:'cancelled', id}
//               {type:'tl', id, req, result | error}                a timeline answer
//
// The trace is never held whole in JS: chunks go from the stream (through DecompressionStream when the
// first bytes are the gzip magic 1f 8b) straight into WASM memory, one chunk at a time.
'use strict';

const PROGRESS_MS = 100;
const GZIP_UNSUPPORTED = 'this browser has no DecompressionStream, so it cannot read gzip: gunzip the file first, or use a current browser';
const YIELD_MS = 50;

let modulePromise = null;
let current = null; // the running job: {id, cancelled, reader}

function loadModule() {
  if (!modulePromise) {
    modulePromise = (async () => {
      // The single-file page (dist/kinetoscope.html) starts this worker from a Blob that holds the
      // glue (createKinetoscope is already defined) and the WASM as base64: nothing to fetch.
      if (self.kinetoscopeWasmBase64) return createKinetoscope({ wasmBinary: embeddedWasm() });
      // The glue sits in wasm/ beside this worker; without locateFile it would look for the .wasm
      // next to the worker script.
      importScripts('wasm/kinetoscope_wasm.js');
      return createKinetoscope({ locateFile: (p) => new URL('wasm/' + p, self.location.href).href });
    })();
    modulePromise.catch(() => {
      modulePromise = null; // let a later file try again
    });
  }
  return modulePromise;
}

let wasmBinary = null;
function embeddedWasm() {
  if (!wasmBinary) {
    const text = atob(self.kinetoscopeWasmBase64);
    wasmBinary = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) wasmBinary[i] = text.charCodeAt(i);
  }
  return wasmBinary;
}

class JobError extends Error {
  constructor(code, message, offset) {
    super(message);
    this.code = code;
    this.offset = offset;
  }
}

// Reads at least n bytes from the front of a stream; returns them and a stream that still yields
// everything (the peeked chunks first). onChunk sees each raw chunk once, for the progress count.
async function peek(stream, n, onChunk) {
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

async function openSource(msg) {
  if (msg.blob) return { stream: msg.blob.stream(), total: msg.blob.size };
  let resp;
  try {
    // redirect: 'error': a same-origin URL that redirects elsewhere must not bring in another
    // origin's file (the page's <meta> CSP does not bind this worker on hosts that send no CSP
    // header, e.g. GitHub Pages). The check of resp.url is for browsers that ignore the option.
    resp = await fetch(msg.url, { redirect: 'error', credentials: 'same-origin' });
  } catch (e) {
    throw new JobError('fetch_failed', `could not fetch ${msg.name}: ${e.message} (redirects are refused)`);
  }
  if (resp.redirected || (resp.url && new URL(resp.url).origin !== new URL(msg.url, self.location.href).origin)) {
    throw new JobError('fetch_failed', `could not fetch ${msg.name}: it redirected to another address (refused)`);
  }
  if (!resp.ok || !resp.body) {
    throw new JobError('fetch_failed', `could not fetch ${msg.name}: HTTP ${resp.status} ${resp.statusText}`.trim());
  }
  // Content-Length is the size on the wire; it is the file size only without Content-Encoding.
  const len = Number(resp.headers.get('Content-Length'));
  const total = !resp.headers.get('Content-Encoding') && len > 0 ? len : 0;
  return { stream: resp.body, total };
}

// Like pipeThrough(new DecompressionStream('gzip')), except that everything decoded before a damaged
// or cut-off end still reaches the reader (as with the CLI's zlib reader). With pipeThrough, output
// still queued when the stream errors at its end is dropped. Here each compressed piece is small,
// and an empty write before close() returns only once the reader has taken all queued output (a
// transform stream runs the next write only after its readable side is drained).
// A stream that is only cut off (every piece was taken, the end is missing: close() fails) ends as
// a whole one would, and says so: its gzipCut is then the compressed bytes read, which the loader
// passes on (Session.setGzipCut), as the CLI does, so that the readable part is shown with a
// diagnostic. Damaged bytes (a write fails) end it with the error.
const GZIP_PIECE = 64 * 1024;
function gunzip(input) {
  const ds = new DecompressionStream('gzip');
  const writer = ds.writable.getWriter();
  const reader = input.getReader();
  let compressed = 0;
  const pumped = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        compressed += value.length;
        for (let at = 0; at < value.length; at += GZIP_PIECE) await writer.write(value.subarray(at, at + GZIP_PIECE));
      }
      await writer.write(new Uint8Array(0));
    } catch (e) {
      writer.abort(e).catch(() => {});
      reader.cancel(e).catch(() => {});
      return false;
    }
    try {
      await writer.close();
    } catch (e) {
      return true; // all the input was taken, the stream's end is missing: cut off
    }
    return false;
  })();
  const out = ds.readable.getReader();
  const stream = new ReadableStream({
    async pull(controller) {
      let got;
      try {
        got = await out.read();
      } catch (e) {
        if (!(await pumped)) throw e;
        stream.gzipCut = compressed;
        controller.close();
        return;
      }
      if (got.done) controller.close();
      else controller.enqueue(got.value);
    },
    cancel(reason) {
      reader.cancel(reason).catch(() => {});
      return out.cancel(reason);
    },
  });
  return stream;
}

// --- Limits (docs/hardening.md) --------------------------------------------------------------------
// The module may grow to 4 GB (-sMAXIMUM_MEMORY=4GB). The model costs about MODEL_BYTES_PER_EVENT
// per event (measured, docs/hardening.md), whatever the event's size in JSON. So:
//  - a file above MAX_JSON_BYTES is refused before anything is read (no real trace that size fits:
//    even at ~700 bytes of JSON per event it would need more than 4 GB);
//  - once PROJECT_AFTER_BYTES of JSON are read, the events per byte so far give the events the
//    whole file holds (its size, or for gzip the size its trailer gives); a load clearly above the
//    limit (1.25 times) is stopped there, at once, instead of minutes later;
//  - a load that runs out of memory anyway is stopped by the Session (wasm/bindings.cpp).
// All three give the code too_large and say to use the CLI, which streams with no such limit.
const WASM_MAX_BYTES = 4 * 2 ** 30;
const MODEL_BYTES_PER_EVENT = 100; // the CLI (64-bit) peaks at 123 per event on 10 million events
const MAX_JSON_BYTES = 32 * 2 ** 30;
const PROJECT_AFTER_BYTES = 16 * 2 ** 20;

function gb(n) {
  return `${(n / 2 ** 30).toFixed(1)} GB`;
}

function tooLarge(name, what, offset) {
  return new JobError('too_large', `${what}: more than the 4 GB of memory a web page can use. The command line has no such limit: kinetoscope report ${name}`, offset);
}

// The decompressed size a gzip file says it has (its last 4 bytes, ISIZE: the size modulo 2^32).
// A trace compresses 5-20 times, so an ISIZE below the compressed size has wrapped past 4 GB.
async function gzipDecodedSize(blob) {
  if (!blob || blob.size < 18) return 0;
  const t = new Uint8Array(await blob.slice(blob.size - 4).arrayBuffer());
  const isize = t[0] + t[1] * 2 ** 8 + t[2] * 2 ** 16 + t[3] * 2 ** 24;
  return isize >= blob.size ? isize : isize + 2 ** 32;
}

// Chunks are fed in pieces of at most FEED_BYTES: V8 runs a WebAssembly function in its baseline
// tier until it has compiled an optimized version, and a call already running keeps the code it
// started with, so one long call on a cold module runs unoptimized to its end.
const FEED_BYTES = 64 << 10;
function feed(M, session, chunk) {
  for (let at = 0; at < chunk.length; at += FEED_BYTES) {
    if (feedPiece(M, session, chunk.subarray(at, at + FEED_BYTES)) === false) return false;
  }
  return true;
}

// The chunk goes straight into the importer's buffer (one copy). No address back means the session
// stopped: a fatal error or out of memory, which finish() and errorJson() then report.
function feedPiece(M, session, chunk) {
  const ptr = session.feedBuffer(chunk.length);
  if (!ptr) return false;
  M.HEAPU8.set(chunk, ptr); // HEAPU8 read after feedBuffer(): growing the memory replaces the view
  return session.feedCommit(chunk.length);
}

// A File's stream read into one reused buffer (a BYOB reader) instead of a new ArrayBuffer per
// chunk: in Chromium that read a 213 MB File in about two thirds of the time, on the thread that
// also parses. Each chunk is a view of that buffer, valid until the next read(): feed() copies it
// into WASM memory at once, so only a File's own stream (nothing kept, see ByteKeeper) reads so.
const READ_BYTES = 1 << 20;
function fileReader(stream) {
  let reader;
  try {
    reader = stream.getReader({ mode: 'byob' });
  } catch {
    return stream.getReader(); // not a byte stream in this browser
  }
  let buffer = new ArrayBuffer(READ_BYTES);
  return {
    async read() {
      const r = await reader.read(new Uint8Array(buffer));
      if (r.value) buffer = r.value.buffer;
      return r;
    },
    cancel: (why) => reader.cancel(why),
  };
}

const isGzip = (head) => head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;

function parseJson(text, fallback) {
  try {
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

async function run(msg) {
  // A helper worker for a large plain file (findSplit): the page sends its port along.
  const helper = msg.partPort ? new PartHelper(msg.partPort) : null;
  const job = { id: msg.id, cancelled: false, reader: null, helper };
  // Where a load's time goes, for bench/ingest_browser.mjs (ms since the worker got the message).
  const t0 = performance.now();
  // Also the time spent waiting for the stream's chunks and inside the module feeding them.
  const timings = { read_wait_ms: 0, feed_ms: 0, reads: 0 };
  const mark = (what) => (timings[what] = Math.round((performance.now() - t0) * 10) / 10);
  current = job;
  let read = 0;
  let lastSqlitePost = 0;
  let session = null;
  let gzip = false;
  let total = 0;
  // stage: 'reading', then 'building' (finish(): pairing, sorting, the model) and 'analysing'
  // (the report), each said before the call that can take long on a large or degenerate trace.
  const progress = (stage = 'reading') => {
    const p = session ? parseJson(session.progressJson(), {}) : {};
    const h = helper && !helper.done ? helper : { read: 0, events: 0 }; // the helper's part so far
    self.postMessage({ type: 'progress', id: job.id, stage, read: read + h.read, total, bytes: (p.bytes || 0) + h.read, events: (p.events || 0) + h.events });
  };
  let M = null;
  try {
    M = await loadModule().catch((e) => {
      throw new JobError('wasm_load_failed', `the analyzer (wasm/kinetoscope_wasm.js) could not be loaded: ${e.message || e}`);
    });
    if (job.cancelled) return;
    mark('module');
    // The timeline's kept Session (the trace on screen) stays while this file loads, unless the
    // module is already big: then its memory goes to the new file (WASM memory is limited to 4 GB).
    if (kept && M.HEAPU8.length > KEEP_SESSION_HEAP) {
      deleteSession(kept.session);
      kept = null;
    }
    // An Nsight Systems export (SQLite, whatever its name): read in place, page by page (below).
    // A file named *.sqlite that is not SQLite gets the SQLite reader's error, as in the CLI.
    if (msg.blob && (msg.name.endsWith('.sqlite') || isSqliteHead(new Uint8Array(await msg.blob.slice(0, 16).arrayBuffer())))) {
      if (helper) helper.stop();
      if (job.cancelled) return;
      session = new M.Session();
      session.setSource(msg.name, false);
      total = msg.blob.size;
      // Progress from inside the import (one WASM call): the bytes of the File read so far. Posted
      // from here, without calling back into the Session, which is busy.
      const ok = importSqlite(M, session, msg.blob, job, (n) => {
        read = n;
        const now = performance.now();
        if (now - lastSqlitePost >= PROGRESS_MS) {
          lastSqlitePost = now;
          self.postMessage({ type: 'progress', id: job.id, read, total, bytes: read, events: 0 });
        }
      });
      mark('finished');
      timings.sqlite_reads = parseJson(session.sqliteReadsJson(), {});
      timings.wasm_heap_bytes = M.HEAPU8.length; // the model (and SQLite's cache); never the file
      read = total;
      progress();
      const json = ok ? session.reportJson() : '';
      mark('report_json');
      if (!json) {
        const err = parseJson(session.errorJson(), null) || { code: 'unknown', message: 'the export could not be read' };
        self.postMessage({ type: 'error', id: job.id, error: err });
        return;
      }
      const markdown = session.reportMarkdown();
      mark('markdown');
      const withStats = typeof msg.loadIndex !== 'number' && !msg.diffDigest;
      self.postMessage({ type: 'report', id: job.id, json, markdown, timings, nsys: withStats, ...combinable(session, msg) });
      adoptSession(job.id, session, new ByteKeeper(null, SQLITE_NO_ARGS));
      const kept = session;
      session = null;
      // The `nsys stats` tables come after the report (on a 1 GB export they take longer than the
      // report itself): {type:'stats', id, json, ms}. Not for a rank of several files or a side of
      // a comparison, whose page shows no stats.
      if (withStats) {
        const t = performance.now();
        const stats = kept.statsJson('');
        self.postMessage({ type: 'stats', id: job.id, json: stats, ms: Math.round(performance.now() - t) });
      }
      return;
    }
    let plainFile = false;
    let data = null; // a stream of JSON whose bytes are counted as they are read (peek, the helper)
    let jsonTotal = 0;
    if (msg.unzipPort) {
      // A large gzip file: the helper decompresses it and hands the JSON over (see runUnzip).
      gzip = true;
      if (typeof DecompressionStream !== 'function') throw new JobError('gzip_unsupported', GZIP_UNSUPPORTED);
      total = msg.blob.size;
      jsonTotal = await gzipDecodedSize(msg.blob);
      data = relayed(msg.unzipPort, (n) => (read = n));
      job.unzip = data;
      mark('unzip_helper');
    } else if (msg.blob && !isGzip(new Uint8Array(await msg.blob.slice(0, 2).arrayBuffer()))) {
      // A plain File: its own stream, read by fileReader() (feedStream counts what it reads).
      total = jsonTotal = msg.blob.size;
      plainFile = true;
    } else {
      const src = await openSource(msg);
      total = src.total;
      if (job.cancelled) return src.stream.cancel().catch(() => {});
      const peeked = await peek(src.stream, 2, (c) => (read += c.length));
      gzip = isGzip(peeked.first);
      if (gzip && typeof DecompressionStream !== 'function') throw new JobError('gzip_unsupported', GZIP_UNSUPPORTED);
      jsonTotal = gzip ? await gzipDecodedSize(msg.blob) : total;
      data = gzip ? gunzip(peeked.stream) : peeked.stream; // counted by peek()
    }
    if (jsonTotal > MAX_JSON_BYTES) {
      if (data) data.cancel().catch(() => {});
      throw tooLarge(msg.name, `${msg.name} holds ${gb(jsonTotal)} of JSON${gzip ? ' (its gzip trailer says)' : ''}, and its analysis would need more`, 0);
    }
    session = new M.Session();
    session.setSource(msg.name, gzip);
    // The details panel re-reads an event's bytes: keep the file itself, or the decoded JSON.
    const keep = new ByteKeeper(!gzip && msg.blob ? msg.blob : null);
    let nextProjection = PROJECT_AFTER_BYTES;
    let lastPost = 0;
    let lastYield = performance.now();
    // Feeds one stream to the end. False when the core stopped (a fatal error: finish() says it).
    const feedStream = async (stream) => {
      job.reader = plainFile ? fileReader(stream) : stream.getReader();
      let fedBytes = 0;
      for (;;) {
        const asked = performance.now();
        const { value, done } = await job.reader.read();
        const got = performance.now();
        timings.read_wait_ms += got - asked;
        if (job.cancelled) return false;
        if (done) return true;
        if (!timings.first_chunk) mark('first_chunk');
        timings.reads++;
        if (stream !== data) read += value.length;
        const fed = feed(M, session, value);
        timings.feed_ms += performance.now() - got;
        // A false return means the core already hit a fatal error: finish() will report it.
        if (fed === false) {
          job.reader.cancel().catch(() => {});
          return false;
        }
        keep.add(value);
        fedBytes += value.length;
        if (jsonTotal && fedBytes >= nextProjection) {
          nextProjection = fedBytes + PROJECT_AFTER_BYTES;
          const p = parseJson(session.progressJson(), {});
          const events = p.events ? (p.events * jsonTotal) / p.bytes : 0;
          const projected = events * MODEL_BYTES_PER_EVENT;
          if (projected > 1.25 * WASM_MAX_BYTES) {
            job.reader.cancel().catch(() => {});
            throw tooLarge(msg.name, `stopped after ${p.bytes} bytes of about ${gb(jsonTotal)} of JSON: at ${Math.round(p.bytes / p.events)} bytes per event it holds about ${(events / 1e6).toFixed(0)} million events, which need about ${gb(projected)}`, p.bytes);
          }
        }
        const now = performance.now();
        if (now - lastPost >= PROGRESS_MS) {
          lastPost = now;
          progress();
        }
        // Decompressed chunks can resolve back to back as microtasks; let a cancel message in.
        if (now - lastYield >= YIELD_MS) {
          await new Promise((r) => setTimeout(r, 0));
          lastYield = performance.now();
          if (job.cancelled) return false;
        }
      }
    };
    const start = helper && plainFile ? await findSplit(M, msg.blob) : -1;
    progress();
    if (start > 0) {
      // Two workers on one file (see findSplit): this one reads up to `start`, the helper on.
      helper.start(start);
      mark('split');
      let rest = start;
      if (await feedStream(msg.blob.slice(0, start).stream())) {
        mark('first_part');
        const part = session.atPartBoundary() ? await helper.result : null;
        if (job.cancelled) return;
        mark('part_received');
        if (part && part.bytes && applyPart(M, session, part.bytes)) {
          rest = session.resumeOffset();
          read = rest;
          timings.part_bytes = part.bytes.byteLength;
          timings.helper = part.timings;
        }
        helper.stop();
        mark('merged');
        await feedStream(msg.blob.slice(rest).stream());
      }
    } else {
      if (helper) helper.stop();
      await feedStream(data || msg.blob.stream());
    }
    if (job.cancelled) return;
    // A gzip file cut off: its readable part is the trace, with a diagnostic (gunzip()).
    if (data && data.gzipCut !== undefined) session.setGzipCut(data.gzipCut);
    mark('fed');
    timings.read_wait_ms = Math.round(timings.read_wait_ms);
    timings.feed_ms = Math.round(timings.feed_ms);
    if (job.unzip && job.unzip.helperMs) timings.unzip_ms = job.unzip.helperMs;
    progress('building');
    const ok = session.finish();
    mark('finished');
    progress('analysing');
    const json = ok ? session.reportJson() : '';
    mark('report_json');
    if (ok && json) {
      const markdown = typeof session.reportMarkdown === 'function' ? session.reportMarkdown() : '';
      mark('markdown');
      self.postMessage({ type: 'report', id: job.id, json, markdown, timings, ...combinable(session, msg) });
      adoptSession(job.id, session, keep); // the timeline queries it from now on
      session = null;
    } else {
      const err = parseJson(session.errorJson(), null) || { code: 'unknown', message: 'the trace could not be read' };
      self.postMessage({ type: 'error', id: job.id, error: err });
    }
  } catch (e) {
    if (job.cancelled) return;
    let err;
    if (e instanceof JobError) err = { code: e.code, message: e.message, offset: e.offset };
    else if (e instanceof WebAssembly.RuntimeError) {
      // The module aborted (a trap, or memory past its limit): its state is gone, so the next
      // file gets a fresh instance.
      modulePromise = null;
      session = null;
      kept = null; // the kept Session lived in the same, now dead, instance
      // An allocation larger than the Session's reserve aborts the module: with its memory at the
      // 4 GB limit, that is the trace being too large, and is said so.
      const full = M && M.HEAPU8 && M.HEAPU8.length > WASM_MAX_BYTES - 256 * 2 ** 20;
      err = full || /memory|OOM|alloc/i.test(e.message)
        ? tooLarge(msg.name, `the analyzer ran out of memory (${e.message})`, read)
        : { code: 'analyzer_crashed', message: `the analyzer stopped on this file: ${e.message}`, offset: read };
      if (err instanceof JobError) err = { code: err.code, message: err.message, offset: err.offset };
    } else if (gzip) {
      // Same code and offset (bytes of JSON decoded) as the CLI's zlib reader gives.
      const json = session ? parseJson(session.progressJson(), {}).bytes || 0 : 0;
      err = {
        code: 'gzip_corrupt',
        // The browser's own words ("WritableStreamDefaultWriter...") say nothing to a user.
        message: `the gzip stream is damaged or ends early (the file was cut off?); ${json} bytes of JSON were read. The readable part opens as plain JSON: gzip -dc FILE > trace.json, then open trace.json`,
        offset: json,
      };
    }
    else err = { code: 'read_failed', message: `the file could not be read: ${e.message || e}`, offset: read };
    if (err.offset === undefined) delete err.offset;
    self.postMessage({ type: 'error', id: job.id, error: err });
  } finally {
    if (session) deleteSession(session);
    if (current === job) current = null;
    if (job.cancelled) self.postMessage({ type: 'cancelled', id: job.id });
  }
}

// --- Nsight Systems exports (SQLite) ----------------------------------------------------------------
// `nsys export --type sqlite` writes an SQLite database, which is read where it lies: SQLite (compiled
// into the module) asks for pages, the Session's block cache (src/import/block_cache_source.h) turns
// them into reads of 1 MiB, and each such read is a synchronous slice of the File, here
// (FileReaderSync, which workers have). Only the model lives in WASM memory; the File is never
// loaded whole. The Session keeps the database open (the Stats view reads it), so its read function
// stays registered, by the file's id, until the Session is deleted (deleteSession()).
const SQLITE_HEAD = 'SQLite format 3\0';
const SQLITE_NO_ARGS = 'an Nsight Systems export has no event text: the slice details come from its tables';

function isSqliteHead(head) {
  if (head.length < 16) return false;
  for (let i = 0; i < 16; i++) if (head[i] !== SQLITE_HEAD.charCodeAt(i)) return false;
  return true;
}

let nextFileId = 1;
function importSqlite(M, session, blob, job, onRead) {
  const id = nextFileId++;
  const reader = new FileReaderSync();
  let bytes = 0;
  if (!M.ksFiles) M.ksFiles = {};
  M.ksFiles[id] = (offset, n) => {
    const buf = reader.readAsArrayBuffer(blob.slice(offset, offset + n));
    bytes += buf.byteLength;
    onRead(Math.min(bytes, blob.size));
    return new Uint8Array(buf);
  };
  session.dropFile = () => delete M.ksFiles[id]; // when the Session goes (deleteSession)
  return session.importSqlite(blob.size, id);
}

function deleteSession(session) {
  if (session.dropFile) session.dropFile();
  session.delete();
}

// The report on screen analyzed again with its steps taken from the ranges named msg.name ("" for
// the default detection): `kinetoscope report --step-range NAME`. {type:'step-range', id, name} ->
// {type:'report-update', id, json, markdown}, or an error.
function stepRange(msg) {
  if (!kept || kept.id !== msg.id || typeof kept.session.setStepRange !== 'function') {
    self.postMessage({ type: 'error', id: msg.id, error: { code: 'stale', message: 'that trace is no longer loaded' } });
    return;
  }
  try {
    kept.session.setStepRange(String(msg.name || ''));
    const json = kept.session.reportJson();
    if (!json) throw new Error('the report could not be written');
    self.postMessage({ type: 'report-update', id: msg.id, json, markdown: kept.session.reportMarkdown() });
  } catch (e) {
    self.postMessage({ type: 'error', id: msg.id, error: { code: 'analyzer_crashed', message: String((e && e.message) || e) } });
  }
}

// --- Warming up ---------------------------------------------------------------------------------
// The page starts its next loader ahead of time ({type:'warm'}): the module is fetched, compiled and
// instantiated, then reads a small generated trace and writes its report, so that V8 has compiled
// the hot functions with its optimizing tier before a real file arrives. (V8 first runs WebAssembly
// in a baseline tier, and a call already running keeps that code: measured, the first 200 MB a cold
// module reads take ~1.5 times as long as the next, docs/performance.md.) The work is that of
// reading ~3 MB: about 0.1 s of one core, while the page waits for the user anyway.
function warmupTrace(steps) {
  const ev = ['{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}}'];
  let corr = 1;
  for (let s = 0, ts = 1000; s < steps; s++, ts += 6000) {
    ev.push(`{"ph":"X","cat":"user_annotation","name":"ProfilerStep#${s}","pid":1,"tid":1,"ts":${ts},"dur":5000}`);
    for (let k = 0; k < 100; k++, corr++) {
      const t = ts + k * 50;
      ev.push(
        `{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":${t}.5,"dur":20,\n  "args":{"External id":${corr},"Sequence number":${k},"Input Dims":[[64,64],[64,64]]}}`,
        `{"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":${t + 5},"dur":4,"args":{"External id":${corr},"cbid":211,"correlation":${corr}}}`,
        `{"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_nn","pid":0,"tid":7,"ts":${t + 12},"dur":30,"args":{"External id":${corr},"device":0,"stream":7,"correlation":${corr},"registers per thread":128,"blocks per SM":1.5,"warps per SM":6,"grid":[80,1,1],"block":[128,1,1],"est. achieved occupancy %":12}}`,
        `{"ph":"s","id":${corr},"pid":1,"tid":1,"ts":${t + 5},"cat":"ac2g","name":"ac2g"}`,
        `{"ph":"f","id":${corr},"pid":0,"tid":7,"ts":${t + 12},"cat":"ac2g","name":"ac2g","bp":"e"}`,
      );
    }
  }
  return `{"schemaVersion":1,"traceEvents":[\n${ev.join(',\n')}\n]}`;
}

async function warm() {
  const t0 = performance.now();
  let session = null;
  try {
    const M = await loadModule();
    session = new M.Session();
    feed(M, session, new TextEncoder().encode(warmupTrace(30)));
    if (session.finish()) {
      session.reportJson();
      session.reportMarkdown();
    }
  } catch {
    modulePromise = null; // the real load will say what is wrong
  } finally {
    if (session) session.delete();
  }
  self.postMessage({ type: 'warm', ms: Math.round(performance.now() - t0) });
}

// --- Two workers on one file ----------------------------------------------------------------------
// The page gives a plain File between 32 MB and 1.5 GB (web/app.js, SPLIT_MIN/SPLIT_MAX) a second
// worker, reached through a MessagePort (msg.partPort). This worker then reads the file from the
// start up to a point near the middle; the helper reads from that point to the end of the event
// array into a model of its own and sends it over as bytes (src/model/trace_part.h), which this
// worker merges in before it reads the little that is left and finishes. The point is a guess
// (src/import/chrome_json/split_point.h) that this worker checks when it gets there; when the guess
// was wrong or the helper cannot help (B/E events, a cut-off file, a failure), this worker reads
// on by itself. Either way the model is the one a single worker builds
// (tests/import/split_import_test.cpp). From memory in Node two workers read 1.57x as fast as one;
// in the page on the project's 2-core machine, where reading the File already keeps the second
// core busy, they were no faster, so the page uses them only with 4 cores or more
// (docs/performance.md).
const SPLIT_AT = 0.5; // of the file; the first worker also merges and finishes
const SPLIT_PROBE = 1 << 20;

// Copies bytes into a block of WASM memory for one call, call(ptr, length); `failed` when the
// memory cannot be had.
function withBytes(M, bytes, call, failed) {
  const ptr = M._malloc(bytes.length);
  if (!ptr) return failed;
  try {
    M.HEAPU8.set(bytes, ptr); // HEAPU8 read after _malloc: growing the memory replaces the view
    return call(ptr, bytes.length);
  } finally {
    M._free(ptr);
  }
}

async function findSplit(M, blob) {
  const from = Math.floor(blob.size * SPLIT_AT);
  const probe = new Uint8Array(await blob.slice(from, from + SPLIT_PROBE).arrayBuffer());
  const at = withBytes(M, probe, (ptr, n) => M.findPartStart(ptr, n), -1);
  return at < 0 ? -1 : from + at;
}

function applyPart(M, session, buffer) {
  return withBytes(M, new Uint8Array(buffer), (ptr, n) => session.applyPart(ptr, n), false);
}

// The first worker's end of the port: the helper's progress, then its part (bytes, or null).
class PartHelper {
  constructor(port) {
    this.port = port;
    this.read = 0;
    this.events = 0;
    this.done = false;
    this.result = new Promise((resolve) => (this.resolve = resolve));
    port.onmessage = (e) => {
      const m = e.data;
      if (m.type === 'progress' && !this.done) {
        this.read = m.read;
        this.events = m.events;
      } else if (m.type === 'part') {
        this.resolve(m);
      }
    };
  }
  start(offset) {
    this.port.postMessage({ type: 'start', offset });
  }
  // No part is wanted (any more): the helper may stop; a wait for it ends with none.
  stop() {
    if (this.done) return;
    this.done = true;
    this.port.postMessage({ type: 'stop' });
    this.resolve({ bytes: null });
  }
}

// --- A large gzip file: one worker decompresses, the other parses -------------------------------
// DecompressionStream runs on the thread that reads from it, so decompressing and parsing in one
// worker add up. For a gzip File of UNZIP_MIN bytes or more (web/app.js) the page gives the loader
// a helper that decompresses ({type:'unzip', blob, port}) and transfers the JSON chunks to it, a
// few ahead (credits returned as the loader takes them), so the two overlap on two cores. All the
// JSON decoded before a damaged or cut-off end reaches the loader first (gunzip() above), then the
// error: the loader reports it as it does its own (gzip_corrupt, at the JSON offset reached).
const UNZIP_AHEAD = 4;
const UNZIP_BATCH = 1 << 20;

async function runUnzip(msg) {
  const t0 = performance.now();
  const port = msg.port;
  let credits = UNZIP_AHEAD;
  let stopped = false;
  let wake = null;
  port.onmessage = (e) => {
    if (e.data.type === 'ack') credits++;
    else if (e.data.type === 'stop') stopped = true;
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
    port.postMessage({ type: 'chunk', buffer: batch.buffer, offset: 0, length: filled, read }, [batch.buffer]);
    batch = new Uint8Array(UNZIP_BATCH);
    filled = 0;
  };
  try {
    const decoded = gunzip(counted);
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
    port.postMessage({ type: 'end', read, ms: Math.round(performance.now() - t0), gzipCut: decoded.gzipCut });
  } catch (e) {
    send(); // what was decoded before the error
    port.postMessage({ type: 'end', read, error: String((e && e.message) || e) });
  } finally {
    if (reader) reader.cancel().catch(() => {});
  }
}

// The loader's side: a stream-like source of the chunks the helper sends (what feedStream uses of
// a ReadableStream: getReader(), read(), cancel()). onRead gets the compressed bytes read so far.
function relayed(port, onRead) {
  const chunks = [];
  let end = null;
  let waiting = null;
  port.onmessage = (e) => {
    const m = e.data;
    if (m.type === 'chunk') chunks.push(m);
    else if (m.type === 'end') end = m;
    if (waiting) waiting();
  };
  // The helper's worker failed (web/app.js tells): end with an error that says so.
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
        port.postMessage({ type: 'ack' });
        onRead(m.read);
        return { done: false, value: new Uint8Array(m.buffer, m.offset, m.length) };
      }
      source.helperMs = end.ms;
      if (end.lost) throw new JobError('worker_failed', 'the worker that decompresses the file stopped: open the file again');
      onRead(end.read);
      if (end.error) throw new Error(end.error);
      source.gzipCut = end.gzipCut; // cut off: gunzip()
      return { done: true, value: undefined };
    },
    cancel() {
      port.postMessage({ type: 'stop' });
      return Promise.resolve();
    },
  };
  const source = { getReader: () => reader, cancel: () => reader.cancel(), lost, helperMs: 0 };
  return source;
}

// The helper: {type:'part', name, blob, port}. Waits for {type:'start', offset}, reads the event
// array from there into a part, and answers {type:'part', bytes} (an ArrayBuffer, or null).
async function runPart(msg) {
  const port = msg.port;
  let session = null;
  let stopped = false;
  const t0 = performance.now();
  const timings = {};
  const mark = (what) => (timings[what] = Math.round((performance.now() - t0) * 10) / 10);
  try {
    const go = new Promise((resolve) => {
      port.onmessage = (e) => {
        if (e.data.type === 'stop') stopped = true;
        resolve(e.data);
      };
    });
    const M = await loadModule();
    mark('module');
    const order = await go;
    if (order.type !== 'start') return;
    mark('start');
    session = new M.Session();
    session.startPart(order.offset);
    const reader = fileReader(msg.blob.slice(order.offset).stream());
    let read = 0;
    let lastPost = 0;
    for (;;) {
      const { value, done } = await reader.read();
      if (done || stopped) break;
      if (feed(M, session, value) === false || session.partFailed()) break;
      read += value.length;
      if (session.partEnded()) break;
      const now = performance.now();
      if (now - lastPost >= PROGRESS_MS) {
        lastPost = now;
        port.postMessage({ type: 'progress', read, events: parseJson(session.progressJson(), {}).events || 0 });
      }
    }
    reader.cancel().catch(() => {});
    mark('read');
    const view = !stopped && session.partEnded() && !session.partFailed() ? session.takePart() : null;
    const bytes = view && view.length ? view.slice().buffer : null; // a copy: the view is WASM memory
    mark('sent');
    port.postMessage({ type: 'part', bytes, timings }, bytes ? [bytes] : []);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) modulePromise = null;
    port.postMessage({ type: 'part', bytes: null, error: String((e && e.message) || e) });
  } finally {
    if (session) session.delete();
  }
}

function cancel(job) {
  job.cancelled = true;
  if (job.reader) job.reader.cancel().catch(() => {});
  if (job.helper) job.helper.stop();
}

self.onmessage = (e) => {
  const msg = e.data;
  if (msg.type === 'warm') {
    warm();
  } else if (msg.type === 'part') {
    runPart(msg);
  } else if (msg.type === 'unzip') {
    runUnzip(msg);
  } else if (msg.type === 'part-lost') {
    if (current && current.id === msg.id && current.helper) current.helper.stop();
    if (current && current.id === msg.id && current.unzip) current.unzip.lost();
  } else if (msg.type === 'open') {
    if (current) cancel(current);
    run(msg);
  } else if (msg.type === 'cancel') {
    if (current && current.id === msg.id) cancel(current);
  } else if (msg.type === 'tl') {
    timelineRequest(msg);
  } else if (msg.type === 'step-range') {
    stepRange(msg);
  } else if (msg.type === 'combine' || msg.type === 'diff') {
    combine(msg);
  }
};

// --- Several files at once (web/ranks/, web/compare/) ----------------------------------------------
// A file opened with `loadIndex` (a rank of a job) also sends its rank digest; one opened with
// `diffDigest: true` (BASE or TEST of a comparison) its diff digest. Then one worker gets
//   {type:'combine', id, digests, reports, markdowns}  -> {type:'combined', id, json, markdown}
//     the multi-rank report (`kinetoscope report --format json|md FILES...`), files in load order
//   {type:'diff', id, base, test}                      -> {type:'combined', id, json, markdown}
//     the trace diff (`kinetoscope diff BASE TEST --format json|md`)
function combinable(session, msg) {
  const out = {};
  if (typeof msg.loadIndex === 'number' && typeof session.digestJson === 'function') out.digest = session.digestJson(msg.loadIndex);
  if (msg.diffDigest && typeof session.diffDigestJson === 'function') out.diffDigest = session.diffDigestJson();
  return out;
}

function stringList(M, items) {
  const list = new M.StringList();
  for (const s of items) list.push_back(s);
  return list;
}

async function combine(msg) {
  const fail = (code, message) => self.postMessage({ type: 'error', id: msg.id, error: { code, message } });
  let M;
  try {
    M = await loadModule();
  } catch (e) {
    return fail('wasm_load_failed', `the analyzer (wasm/kinetoscope_wasm.js) could not be loaded: ${e.message || e}`);
  }
  const lists = [];
  try {
    let json;
    let markdown = '';
    if (msg.type === 'combine') {
      const digests = stringList(M, msg.digests);
      lists.push(digests);
      lists.push(stringList(M, msg.reports));
      json = M.combineRanks(digests, lists[1]);
      if (msg.markdowns && typeof M.combineRanksMarkdown === 'function') {
        lists.push(stringList(M, msg.markdowns));
        markdown = M.combineRanksMarkdown(digests, lists[2]);
      }
    } else {
      json = M.diffTraces(msg.base, msg.test, 'json');
      markdown = M.diffTraces(msg.base, msg.test, 'md');
    }
    if (!json) return fail('bad_digest', 'the analyzer could not read what the files sent back');
    self.postMessage({ type: 'combined', id: msg.id, json, markdown });
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) modulePromise = null;
    fail('analyzer_crashed', `combining the files failed: ${e.message || e}`);
  } finally {
    for (const l of lists) l.delete();
  }
}

// --- The timeline (web/timeline/) ----------------------------------------------------------------
// The Session of the last trace that loaded stays alive (until the next one loads) and answers the
// timeline's queries; its report is the one on screen. Columns come back from WASM as views into its
// memory, which the next call may grow and detach, so each is copied (.slice()) at once, and the
// copies are transferred to the page.
//
// Args for the details panel are read back from the event's own bytes (the model keeps each slice's
// file_offset and byte_len in the decompressed JSON): for a plain File or Blob, a slice of it; for
// gzip (no random access) and fetched (?url=) input, the decoded bytes are kept as they stream by, in
// Blobs of a few MB (the browser may keep large Blobs on disk), up to KEEP_BUDGET bytes; past that the
// panel says the args are not available.
const KEEP_BUDGET = 2 ** 31;
const KEEP_SESSION_HEAP = 1.5 * 2 ** 30;
const KEEP_PART = 8 << 20;

class ByteKeeper {
  constructor(blob, none = '') {
    this.blob = blob; // a File/Blob that is the JSON itself: nothing to copy
    this.none = none; // why there are no event bytes to keep (an Nsight Systems export)
    this.parts = [];
    this.pending = [];
    this.pendingBytes = 0;
    this.total = 0;
    this.over = false;
  }
  add(chunk) {
    if (this.blob || this.over || this.none) return;
    this.total += chunk.length;
    if (this.total > KEEP_BUDGET) {
      this.over = true;
      this.parts = [];
      this.pending = [];
      return;
    }
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    if (this.pendingBytes >= KEEP_PART) this.flush();
  }
  flush() {
    if (this.pending.length) this.parts.push(new Blob(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }
  result() {
    if (this.blob) return { bytes: this.blob, note: '' };
    if (this.none) return { bytes: null, note: this.none };
    if (this.over) return { bytes: null, note: `the decoded trace is larger than ${KEEP_BUDGET >> 20} MB, so event args are not kept` };
    this.flush();
    return { bytes: new Blob(this.parts), note: '' };
  }
}

let kept = null; // {id, session, bytes, note, names: Set of name ids the page has}

function adoptSession(id, session, keeper) {
  if (kept) deleteSession(kept.session);
  const { bytes, note } = keeper.result();
  kept = { id, session, bytes, note, names: new Set() };
}

const LOD_COLUMNS = ['start', 'end', 'slice', 'count', 'name', 'track', 'depth', 'cSeries', 'cTs', 'cMin', 'cMax', 'cLast', 'iTrack', 'iTs', 'iCount', 'iInstant', 'iName'];
const HIT_COLUMNS = ['slice', 'start', 'end', 'track', 'depth'];

function copyColumns(result, keys) {
  const out = {};
  for (const k of keys) out[k] = result[k].slice(); // copies: the view into WASM memory may die
  return out;
}

// Names (string ids) in `ids` the page has not been sent yet, as {id: name}.
function newNames(k, ...columns) {
  const want = [];
  for (const col of columns) {
    for (const id of col) {
      if (!k.names.has(id)) {
        k.names.add(id);
        want.push(id);
      }
    }
  }
  return want.length ? JSON.parse(k.session.namesJson(JSON.stringify(want))) : {};
}

async function eventArgs(k, d) {
  if (!k.bytes) return { note: k.note || 'the event bytes are not kept for this input' };
  if (!d.byte_len) return { note: 'this slice has no event bytes' };
  const text = await k.bytes.slice(d.file_offset, d.file_offset + d.byte_len).text();
  try {
    const ev = JSON.parse(text);
    return { args: ev && typeof ev === 'object' && ev.args && typeof ev.args === 'object' ? ev.args : {}, text };
  } catch {
    return { text, note: 'the event is not strict JSON (the importer repaired it); its text is shown' };
  }
}

async function timelineAnswer(k, op, a) {
  const s = k.session;
  switch (op) {
    case 'layout':
      return { layout: JSON.parse(s.trackLayoutJson()) };
    case 'query': {
      const t0 = performance.now();
      const r = s.queryViewport(a.start, a.end, a.pixels, JSON.stringify(a.tracks), JSON.stringify(a.counters));
      const cols = copyColumns(r, LOD_COLUMNS);
      const cost = { searches: r.searches, pixelNs: r.pixelNs, ms: performance.now() - t0 };
      return { ...cols, ...cost, names: newNames(k, cols.name, cols.iName), transfer: LOD_COLUMNS.map((c) => cols[c].buffer) };
    }
    case 'details': {
      const d = JSON.parse(s.sliceDetailsJson(a.slice));
      if (d.slice === undefined) return { details: null };
      return { details: { ...d, ...(await eventArgs(k, d)) } };
    }
    case 'names':
      return { names: JSON.parse(s.sliceNamesJson()) };
    case 'search': {
      const cols = copyColumns(s.slicesWithNames(JSON.stringify(a.ids)), HIT_COLUMNS);
      return { ...cols, transfer: HIT_COLUMNS.map((c) => cols[c].buffer) };
    }
    case 'offsets':
      return { slices: JSON.parse(s.slicesAtOffsetsJson(JSON.stringify(a.offsets))) };
    case 'brief':
      return { brief: JSON.parse(s.sliceBriefJson(a.slice)) };
    case 'aggregate':
      return { aggregate: JSON.parse(s.aggregateJson(a.from, a.to, JSON.stringify(a.tracks))) };
    case 'flows':
      return { flows: JSON.parse(s.flowsForSlice(a.slice)) };
    case 'sliceAt':
      return { slice: s.sliceAt(a.track, a.depth, a.t, a.tolerance) };
    default:
      throw new Error(`unknown timeline request ${op}`);
  }
}

async function timelineRequest(msg) {
  const reply = (body, transfer = []) => self.postMessage({ type: 'tl', id: msg.id, req: msg.req, ...body }, transfer);
  if (!kept || kept.id !== msg.id) {
    reply({ error: { code: 'stale', message: 'that trace is no longer loaded' } });
    return;
  }
  try {
    const result = await timelineAnswer(kept, msg.op, msg.args || {});
    const transfer = result.transfer || [];
    delete result.transfer;
    reply({ result }, transfer);
  } catch (e) {
    if (e instanceof WebAssembly.RuntimeError) {
      modulePromise = null;
      kept = null;
    }
    reply({ error: { code: 'timeline_failed', message: String(e.message || e) } });
  }
}
