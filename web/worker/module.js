// The WASM analyzer inside the worker: loading the module (once per worker), and the few helpers
// every part of the worker uses to hand it bytes.
import { errorBody } from './protocol.js';

export const PROGRESS_MS = 100; // progress messages at most this often
export const YIELD_MS = 50; // a long read lets a cancel message in this often

let modulePromise = null;

// The module, loaded on first use. The Emscripten glue (wasm/kinetoscope_wasm.js, a classic
// script: MODULARIZE defines createKinetoscope) is already there in the single-file page
// (scripts/dist.mjs puts it before this code, the WASM as base64 beside it); the hosted page's
// worker (web/worker.js, a classic worker) loads it with importScripts on first use.
export function loadModule() {
  if (!modulePromise) {
    modulePromise = (async () => {
      if (self.kinetoscopeWasmBase64) return self.createKinetoscope({ wasmBinary: embeddedWasm() });
      // The glue sits in wasm/ beside worker.js; without locateFile it would look for the .wasm
      // next to the worker script. The glue names its build (scripts/stamp_wasm.mjs): the .wasm's
      // URL carries it, so a browser may keep the .wasm, and V8 its optimized code, for good.
      if (typeof self.createKinetoscope !== 'function') self.importScripts('wasm/kinetoscope_wasm.js');
      const version = typeof self.kinetoscopeWasmVersion === 'string' ? `?v=${encodeURIComponent(self.kinetoscopeWasmVersion)}` : '';
      return self.createKinetoscope({ locateFile: (p) => new URL('wasm/' + p + (p.endsWith('.wasm') ? version : ''), self.location.href).href });
    })();
    modulePromise.catch(() => {
      modulePromise = null; // let a later file try again
    });
  }
  return modulePromise;
}

// After the module aborted (a trap, or memory past its limit) its state is gone: the next file
// gets a fresh instance.
export function resetModule() {
  modulePromise = null;
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

export class JobError extends Error {
  constructor(code, message, offset) {
    super(message);
    this.code = code;
    this.offset = offset;
  }
  body() {
    return errorBody(this.code, this.message, this.offset);
  }
}

export const moduleLoadError = (e) => new JobError('wasm_load_failed', `the analyzer (wasm/kinetoscope_wasm.js) could not be loaded: ${(e && e.message) || e}`);

export function parseJson(text, fallback) {
  try {
    return text ? JSON.parse(text) : fallback;
  } catch {
    return fallback;
  }
}

// Chunks are fed in pieces of at most FEED_BYTES: V8 runs a WebAssembly function in its baseline
// tier until it has compiled an optimized version, and a call already running keeps the code it
// started with, so one long call on a cold module runs unoptimized to its end.
const FEED_BYTES = 64 << 10;
export function feed(M, session, chunk) {
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

// Copies bytes into a block of WASM memory for one call, call(ptr, length); `failed` when the
// memory cannot be had.
export function withBytes(M, bytes, call, failed) {
  const ptr = M._malloc(bytes.length);
  if (!ptr) return failed;
  try {
    M.HEAPU8.set(bytes, ptr); // HEAPU8 read after _malloc: growing the memory replaces the view
    return call(ptr, bytes.length);
  } finally {
    M._free(ptr);
  }
}
