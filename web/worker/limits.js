// --- Limits (docs/hardening.md) --------------------------------------------------------------------
// The module may grow to 4 GB (-sMAXIMUM_MEMORY=4GB). The model costs 96-148 bytes per event
// (measured, below), whatever the event's size in JSON. So:
//  - a file above MAX_JSON_BYTES is refused before anything is read (no real trace that size fits:
//    even at ~700 bytes of JSON per event it would need more than 4 GB);
//  - once PROJECT_AFTER_BYTES of JSON are read, the events per byte so far give the events the
//    whole file holds (its size, or for gzip the size its trailer gives); a load that would not fit
//    even at the fewest bytes per event measured is stopped there, at once, instead of minutes later;
//  - a load that runs out of memory anyway is stopped by the Session (wasm/bindings.cpp).
// All three give the code too_large and say to use the CLI, which streams with no such limit.
// An Nsight Systems export fetched by ?url= is read whole into a Blob first (it needs random
// access): MAX_FETCHED_EXPORT_BYTES bounds that.
import { JobError, parseJson } from './module.js';

export const WASM_MAX_BYTES = 4 * 2 ** 30;
// The WASM memory per event after the report, measured on every shape so far: 96 (bench/shapes
// nccl, 191 k events), 110 (resnet), 111 (tiny_kernels; bench/heap_node.mjs, docs/performance.md
// session 34) and 148 (10 million tiny events, each with a name of its own: the string pool;
// tests/wasm/hostile_memory.cjs, docs/hardening.md). A load is stopped only when even the fewest
// would not fit; the columns are reserved only when even the most leave half the memory free.
const FEWEST_BYTES_PER_EVENT = 96;
const MOST_BYTES_PER_EVENT = 148;
export const MAX_JSON_BYTES = 32 * 2 ** 30;
export const PROJECT_AFTER_BYTES = 16 * 2 ** 20;
export const MAX_FETCHED_EXPORT_BYTES = 8 * 2 ** 30;

export function gb(n) {
  return `${(n / 2 ** 30).toFixed(1)} GiB`;
}

export function tooLarge(name, what, offset) {
  return new JobError('too_large', `${what}: more than the 4 GB of memory a web page can use. The command line has no such limit: kinetoscope report ${name}`, offset);
}

// The events the whole file (jsonTotal bytes of JSON) projects to, from the events per byte read so
// far, and the model's bytes at the fewest and the most bytes per event measured.
function projection(session, jsonTotal) {
  const p = parseJson(session.progressJson(), {});
  const events = p.events ? (p.events * jsonTotal) / p.bytes : 0;
  return { p, events, atLeast: events * FEWEST_BYTES_PER_EVENT, atMost: events * MOST_BYTES_PER_EVENT };
}

// After PROJECT_AFTER_BYTES more of JSON: the error to stop with when the whole file (jsonTotal
// bytes) projects past the memory limit, else null.
export function projectedTooLarge(session, name, jsonTotal) {
  const { p, events, atLeast } = projection(session, jsonTotal);
  if (atLeast <= WASM_MAX_BYTES) return null;
  return tooLarge(name, `stopped after ${p.bytes} bytes of about ${gb(jsonTotal)} of JSON: at ${Math.round(p.bytes / p.events)} bytes per event it holds about ${(events / 1e6).toFixed(0)} million events, which need at least ${gb(atLeast)}`, p.bytes);
}

// After the first projection: a file whose model, at the most bytes per event measured, projects
// to at most half the memory has its columns reserved for the whole (Session.reserveForTotal,
// instead of doubling as they grow): not a file near the limit, where a reservation beyond the need would be what fails. Measured: WASM
// in Node read the 200 MB amd and pystack shapes 25-30% faster, the CLI 5-12% with 4-8% less
// memory; this page's loads took as long as before.
export function reserveModel(session, jsonTotal) {
  if (typeof session.reserveForTotal !== 'function') return;
  if (projection(session, jsonTotal).atMost <= WASM_MAX_BYTES / 2) session.reserveForTotal(jsonTotal);
}
