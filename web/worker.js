// Kinetoscope worker (classic script): owns the WASM analyzer and streams one trace at a time into it.
//
// Messages in:  {type:'open', id, name, blob}   a File or Blob, read with blob.stream()
//               {type:'open', id, name, url}    a same-origin URL, read with fetch().body
//               {type:'cancel', id}
// Messages out: {type:'progress', id, read, total, bytes, events}   at most every ~100 ms
//               {type:'report', id, json}                          the report as a JSON string
//               {type:'error', id, error:{code, message, offset?}}
//               {type:'cancelled', id}
//
// The trace is never held whole in JS: chunks go from the stream (through DecompressionStream when the
// first bytes are the gzip magic 1f 8b) straight into WASM memory, one chunk at a time.
'use strict';

const PROGRESS_MS = 100;
const YIELD_MS = 50;

let modulePromise = null;
let current = null; // the running job: {id, cancelled, reader}

function loadModule() {
  if (!modulePromise) {
    modulePromise = (async () => {
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
    resp = await fetch(msg.url);
  } catch (e) {
    throw new JobError('fetch_failed', `could not fetch ${msg.name}: ${e.message}`);
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
const GZIP_PIECE = 64 * 1024;
function gunzip(input) {
  const ds = new DecompressionStream('gzip');
  const writer = ds.writable.getWriter();
  const reader = input.getReader();
  (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        for (let at = 0; at < value.length; at += GZIP_PIECE) await writer.write(value.subarray(at, at + GZIP_PIECE));
      }
      await writer.write(new Uint8Array(0));
      await writer.close();
    } catch (e) {
      writer.abort(e).catch(() => {});
      reader.cancel(e).catch(() => {});
    }
  })();
  return ds.readable;
}

function feed(M, session, chunk) {
  const ptr = M._malloc(chunk.length);
  if (!ptr) throw new JobError('out_of_memory', 'the analyzer ran out of memory');
  try {
    // Read HEAPU8 after _malloc: growing the memory replaces the view.
    M.HEAPU8.set(chunk, ptr);
    return session.feed(ptr, chunk.length);
  } finally {
    M._free(ptr);
  }
}

function parseJson(text, fallback) {
  try {
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

async function run(msg) {
  const job = { id: msg.id, cancelled: false, reader: null };
  current = job;
  let read = 0;
  let session = null;
  let gzip = false;
  let total = 0;
  const progress = () => {
    const p = session ? parseJson(session.progressJson(), {}) : {};
    self.postMessage({ type: 'progress', id: job.id, read, total, bytes: p.bytes || 0, events: p.events || 0 });
  };
  try {
    const M = await loadModule().catch((e) => {
      throw new JobError('wasm_load_failed', `the analyzer (wasm/kinetoscope_wasm.js) could not be loaded: ${e.message || e}`);
    });
    if (job.cancelled) return;
    const src = await openSource(msg);
    total = src.total;
    if (job.cancelled) return src.stream.cancel().catch(() => {});
    const peeked = await peek(src.stream, 2, (c) => (read += c.length));
    gzip = peeked.first.length === 2 && peeked.first[0] === 0x1f && peeked.first[1] === 0x8b;
    const data = gzip ? gunzip(peeked.stream) : peeked.stream;
    session = new M.Session();
    session.setSource(msg.name, gzip);
    job.reader = data.getReader();
    let lastPost = 0;
    let lastYield = performance.now();
    progress();
    for (;;) {
      const { value, done } = await job.reader.read();
      if (job.cancelled) return;
      if (done) break;
      // A false return means the core already hit a fatal error: finish() will report it.
      if (feed(M, session, value) === false) {
        job.reader.cancel().catch(() => {});
        break;
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
        if (job.cancelled) return;
      }
    }
    const ok = session.finish();
    progress();
    if (ok) {
      self.postMessage({ type: 'report', id: job.id, json: session.reportJson() });
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
      err = { code: 'analyzer_crashed', message: `the analyzer stopped on this file: ${e.message}`, offset: read };
    } else if (gzip) {
      // Same code and offset (bytes of JSON decoded) as the CLI's zlib reader gives.
      const json = session ? parseJson(session.progressJson(), {}).bytes || 0 : 0;
      err = {
        code: 'gzip_corrupt',
        message: `the gzip data is damaged or cut off (${e.message || e}); ${json} bytes of JSON were read`,
        offset: json,
      };
    }
    else err = { code: 'read_failed', message: `the file could not be read: ${e.message || e}`, offset: read };
    if (err.offset === undefined) delete err.offset;
    self.postMessage({ type: 'error', id: job.id, error: err });
  } finally {
    if (session) session.delete();
    if (current === job) current = null;
    if (job.cancelled) self.postMessage({ type: 'cancelled', id: job.id });
  }
}

function cancel(job) {
  job.cancelled = true;
  if (job.reader) job.reader.cancel().catch(() => {});
}

self.onmessage = (e) => {
  const msg = e.data;
  if (msg.type === 'open') {
    if (current) cancel(current);
    run(msg);
  } else if (msg.type === 'cancel') {
    if (current && current.id === msg.id) cancel(current);
  }
};
