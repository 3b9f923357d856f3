// --- Warming up ---------------------------------------------------------------------------------
// The page starts its next loader ahead of time ({warm}): the module is fetched, compiled and
// instantiated, then reads a small generated trace and writes its report, so that V8 has compiled
// the hot functions with its optimizing tier before a real file arrives. (V8 first runs WebAssembly
// in a baseline tier, and a call already running keeps that code: measured, the first 200 MB a cold
// module reads take ~1.5 times as long as the next, docs/performance.md.) The work is that of
// reading ~3 MB: about 0.1 s of one core, while the page waits for the user anyway.
// Then it writes PRETOUCH_BYTES of the heap once (pretouch()).
import { Msg } from './protocol.js';
import { feed, loadModule, resetModule } from './module.js';

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

// The first write to each page of a module's memory costs the system a page fault; a load makes
// them all while it reads (the model's columns, the report's working set), ~1 in 3 of its feed
// time on this project's machine (docs/performance.md). So the spare loader takes the faults for
// its first PRETOUCH_BYTES while the page is idle: allocated, written, freed; the allocator keeps
// the memory for the load's own allocations. What it costs: that memory held by the spare loader
// before any file, so not on a machine that reports under 4 GB (navigator.deviceMemory).
export const PRETOUCH_BYTES = 128 << 20;
function pretouch(M) {
  const memory = globalThis.navigator && globalThis.navigator.deviceMemory;
  if (memory !== undefined && memory < 4) return 0;
  const p = M._malloc(PRETOUCH_BYTES);
  if (!p) return 0;
  M.HEAPU8.fill(0, p, p + PRETOUCH_BYTES);
  M._free(p);
  return PRETOUCH_BYTES;
}

// A file that arrives while the spare is still warming up must not wait for the rest of the
// warm-up (measured: a file given as the spare began waited 1.2 s for it, and read in 2.9 s
// against 2.2 s on a cold module). So the warm-up runs in stages, each a task of its own, and
// stops at the next stage once a job has begun (stopWarmup(), from the worker's open handler).
let stopped = false;
let running = false;
let cut = false; // the warm-up was under way when the job came (timings.warmup_cut)
export function stopWarmup() {
  stopped = true;
  cut = cut || running;
}
export const warmupCut = () => cut;
const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

// The warm-up itself, on a loaded module M; resolves to the bytes pretouched. Also what
// bench/ingest_node.cjs --warm runs, so that WASM in Node can be measured as the page's warm
// loader reads. It matters most for the report: its analyses run once per load, so on a cold
// module they run to their end in the baseline tier (2.5-3x the time, docs/performance.md).
export async function warmModule(M, stop = () => false) {
  const session = new M.Session();
  try {
    feed(M, session, new TextEncoder().encode(warmupTrace(30)));
    if (!session.finish()) return 0;
    await nextTask();
    if (stop()) return 0;
    session.reportJson();
    await nextTask();
    if (stop()) return 0;
    session.reportMarkdown();
  } finally {
    session.delete();
  }
  await nextTask();
  return stop() ? 0 : pretouch(M);
}

export async function warm() {
  const t0 = performance.now();
  let pretouched = 0;
  running = true;
  try {
    const M = await loadModule();
    if (!stopped) pretouched = await warmModule(M, () => stopped);
  } catch {
    if (!stopped) resetModule(); // the real load will say what is wrong
  } finally {
    running = false;
  }
  self.postMessage({ type: Msg.warmed, ms: Math.round(performance.now() - t0), pretouched, stopped });
}
