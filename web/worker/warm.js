// --- Warming up ---------------------------------------------------------------------------------
// The page starts its next loader ahead of time ({warm}): the module is fetched, compiled and
// instantiated, then reads a small generated trace and writes its report, so that V8 has compiled
// the hot functions with its optimizing tier before a real file arrives. (V8 first runs WebAssembly
// in a baseline tier, and a call already running keeps that code: measured, the first 200 MB a cold
// module reads take ~1.5 times as long as the next, docs/performance.md.) The work is that of
// reading ~6 MB (the trace three times, WARM_ROUNDS): about 0.3 s of one core, while the page waits for
// the user anyway.
// It no longer writes a fixed 128 MiB of its heap ahead of any file: a load takes its page faults
// while it waits for the file, as much as the file needs (worker/prefault.js).
import { Msg } from './protocol.js';
import { feed, loadModule, resetModule, withBytes } from './module.js';

// The warm-up trace: what a training loop's trace holds, so that the code a real file runs is the
// code the warm-up made hot (V8 compiles a function with its optimizing tier in the background
// once it has run enough; a function a real load runs for the first time is compiled then, on
// the load's cores: measured, 25% of a 55 MB load's time with dynamic tiering, against V8's
// eager tier-up, docs/performance.md session 26). Each step: its ProfilerStep (CPU and GPU),
// the DataLoader's __next__, Python frames, ops with shapes launching kernels (ac2g flows), a
// pageable copy to the host and its sync, a memset, an NCCL all-reduce with Kineto's collective
// args on its own stream, and the allocator's [memory] events.
export function warmupTrace(steps) {
  const ev = [
    '{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}}',
    '{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"thread 1 (python)"}}',
    '{"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"GPU 0"}}',
    '{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7"}}',
  ];
  let corr = 1;
  let py = 1;
  const launch = (t, name, gpuT, dur, cat, extra) => {
    const id = corr++;
    ev.push(
      `{"ph":"X","cat":"cuda_runtime","name":"${cat === 'kernel' ? 'cudaLaunchKernel' : cat === 'gpu_memcpy' ? 'cudaMemcpyAsync' : 'cudaMemsetAsync'}","pid":1,"tid":1,"ts":${t},"dur":4,"args":{"External id":${id},"cbid":211,"correlation":${id}}}`,
      `{"ph":"X","cat":"${cat}","name":"${name}","pid":0,"tid":${extra.stream || 7},"ts":${gpuT},"dur":${dur},"args":{"External id":${id},"device":0,"stream":${extra.stream || 7},"correlation":${id}${extra.args || ''}}}`,
      `{"ph":"s","id":${id},"pid":1,"tid":1,"ts":${t},"cat":"ac2g","name":"ac2g"}`,
      `{"ph":"f","id":${id},"pid":0,"tid":${extra.stream || 7},"ts":${gpuT},"cat":"ac2g","name":"ac2g","bp":"e"}`,
    );
    return id;
  };
  const KERNEL = ',"registers per thread":128,"shared memory":16384,"blocks per SM":1.5,"warps per SM":6,"grid":[80,1,1],"block":[128,1,1],"est. achieved occupancy %":12';
  const COMM = '"Collective name":"allreduce","dtype":"Float","In msg nelems":4194304,"Out msg nelems":4194304,"Group size":8,"Process Group Name":"0","Process Group Description":"default_pg","Process Group Ranks":"[0, 1, 2, 3, 4, 5, 6, 7]"';
  for (let s = 0, ts = 1000; s < steps; s++, ts += 8000) {
    ev.push(`{"ph":"X","cat":"user_annotation","name":"ProfilerStep#${s}","pid":1,"tid":1,"ts":${ts},"dur":7000,"args":{"External id":${corr++}}}`);
    ev.push(`{"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#${s}","pid":0,"tid":7,"ts":${ts + 20},"dur":6900,"args":{"External id":${corr++}}}`);
    ev.push(`{"ph":"X","cat":"user_annotation","name":"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__","pid":1,"tid":1,"ts":${ts + 5},"dur":300,"args":{"External id":${corr++}}}`);
    const frame = py++;
    ev.push(`{"ph":"X","cat":"python_function","name":"train.py(42): train_step","pid":1,"tid":1,"ts":${ts + 400},"dur":5000,"args":{"Python id":${frame},"Python parent id":0,"Python thread":0}}`);
    for (let k = 0; k < 60; k++) {
      const t = ts + 410 + k * 70;
      ev.push(`{"ph":"X","cat":"python_function","name":"torch/nn/modules/linear.py(114): forward","pid":1,"tid":1,"ts":${t},"dur":60,"args":{"Python id":${py++},"Python parent id":${frame},"Python thread":0}}`);
      ev.push(`{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":${t}.5,"dur":20,\n  "args":{"External id":${corr},"Sequence number":${k},"Fwd thread id":0,"Input Dims":[[64,64],[64,64]],"Input type":["float","float"]}}`);
      launch(t + 5, k % 2 ? 'ampere_sgemm_128x64_nn' : 'void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)', t + 12, 30, 'kernel', { args: KERNEL });
      if (k % 20 === 0) ev.push(`{"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":${t + 1},"s":"t","args":{"Total Reserved":67108864,"Total Allocated":${16384 * (k + 1)},"Bytes":16384,"Addr":${140000000000 + k},"Device Type":1,"Device Id":0}}`);
    }
    const t = ts + 4700;
    ev.push(`{"ph":"X","cat":"cpu_op","name":"record_param_comms","pid":1,"tid":1,"ts":${t},"dur":30,"args":{"External id":${corr},${COMM}}}`);
    launch(t + 5, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)', t + 20, 900, 'kernel', { stream: 20, args: `${KERNEL},${COMM}` });
    launch(t + 40, 'Memset (Device)', t + 930, 2, 'gpu_memset', { args: ',"bytes":4096' });
    ev.push(`{"ph":"X","cat":"cpu_op","name":"aten::item","pid":1,"tid":1,"ts":${t + 50},"dur":1200,"args":{"External id":${corr}}}`);
    launch(t + 60, 'Memcpy DtoH (Device -> Pageable)', t + 940, 3, 'gpu_memcpy', { args: ',"bytes":4,"memory bandwidth (GB/s)":0.001' });
    ev.push(`{"ph":"X","cat":"cuda_runtime","name":"cudaStreamSynchronize","pid":1,"tid":1,"ts":${t + 70},"dur":1100,"args":{"cbid":131,"correlation":${corr++}}}`);
  }
  return `{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"NVIDIA H100 80GB HBM3","totalGlobalMem":85031714816,"computeMajor":9,"computeMinor":0,"numSms":132}],"distributedInfo":{"backend":"nccl","rank":0,"world_size":8},"traceEvents":[\n${ev.join(',\n')}\n],"traceName":"warm-up","displayTimeUnit":"ms","baseTimeNanoseconds":1700000000000000000}`;
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
const WARM_PIECE = 256 << 10; // the warm-up trace (~2 MB) is read in pieces of this size

// The warm-up trace's report, sent with {warmed}: the page renders it once, unseen, so that its
// own views' code is compiled before a real report (web/views/warm.js).
let warmReport = '';

// Rounds of the warm-up trace's read and report. V8 compiles a WebAssembly function with its
// optimizing tier once it has run a while (its tiering budget), and a call already running keeps
// the code it started with. Two large functions the report JSON runs once per report (its
// findings and trace sections' writers, by their sizes in a build with names) were left short of
// their budget by one round, so a real file's report ran them in the baseline tier, and V8 compiled them (0.2-0.5 s of a core on this
// machine) right after it, while the page drew the report. A second round tiers them up before
// the file (measured, docs/performance.md session 31; tests/web/warm_up.test.mjs). Since the
// analyses and sections are functions of their own (Binaryen no longer inlines them all into
// Session::report(), wasm/CMakeLists.txt), each has its own budget, and a 36 KB one was still
// compiled only during the first real report after two rounds: a third (session 32).
export const WARM_ROUNDS = 3;

// The warm-up itself, on a loaded module M; resolves to {pretouched: 0} (the heap bytes it
// wrote ahead of a file: none since worker/prefault.js; the field stays for the benchmarks). Also what
// bench/ingest_node.cjs --warm runs, so that WASM in Node can be measured as the page's warm
// loader reads. It matters most for the report: its analyses run once per load, so on a cold
// module they run to their end in the baseline tier (2.5-3x the time, docs/performance.md).
export async function warmModule(M, stop = () => false) {
  const trace = new TextEncoder().encode(warmupTrace(30));
  for (let round = 0; round < WARM_ROUNDS; round++) {
    if (round > 0) await nextTask();
    if (stop() || !(await warmRound(M, trace, round === 0, stop))) return { pretouched: 0 };
  }
  return { pretouched: 0 };
}

// One read and report (JSON and Markdown) of the warm-up trace, false when it failed or was
// stopped. The first round's report is kept for the page's views (warmReport).
async function warmRound(M, trace, first, stop) {
  const session = new M.Session();
  try {
    // The trace is read as the page reads a large file with a helper (worker/split.js): its second
    // half as a part (takePart), which the session merges (applyPart) once it has read the first.
    // Without this the real load's part was written and merged in V8's baseline tier, once per
    // load (docs/performance.md session 41); the loader is this warmed-up spare.
    const start = partStart(M, trace);
    const part = start > 0 ? await warmPart(M, trace, start, stop) : null;
    if (stop()) return false;
    let resume = 0;
    if (part) {
      if (!(await feedPieces(M, session, trace.subarray(0, start), stop))) return false;
      if (session.atPartBoundary() && withBytes(M, part, (ptr, n) => session.applyPart(ptr, n), false)) resume = Number(session.resumeOffset());
      else resume = start; // not merged: the session reads the part's bytes itself
    }
    if (!(await feedPieces(M, session, trace.subarray(resume), stop, resume > 0))) return false;
    if (!session.finish()) return false;
    await nextTask();
    if (stop()) return false;
    const report = session.reportJson();
    if (first) warmReport = report;
    await nextTask();
    if (stop()) return false;
    session.reportMarkdown();
    return true;
  } finally {
    session.delete();
  }
}

// The trace fed a piece a task: a file that arrives meanwhile waits for one piece, not for the
// whole read (on a cold module, in the baseline tier, the whole read was one task of 0.2 s and
// more: a file given as the page loaded waited up to 2.3 s for it at load average 18,
// docs/performance.md session 40). False when stopped or the feed failed.
async function feedPieces(M, session, bytes, stop, waitFirst = true) {
  for (let at = 0; at < bytes.length; at += WARM_PIECE) {
    if (at > 0 || waitFirst) {
      await nextTask();
      if (stop()) return false;
    }
    if (feed(M, session, bytes.subarray(at, at + WARM_PIECE)) === false) return false;
  }
  return true;
}

// Where the warm-up trace's part starts (an element near its middle), or -1.
function partStart(M, trace) {
  if (typeof M.findPartStart !== 'function') return -1;
  const from = trace.length >> 1;
  const at = withBytes(M, trace.subarray(from), (ptr, n) => M.findPartStart(ptr, n), -1);
  return at >= 0 ? from + at : -1;
}

// The part from `start` to the end, read by a session of its own as a helper worker reads its
// part: its bytes (a copy out of WASM memory, as the helper sends them), or null.
async function warmPart(M, trace, start, stop) {
  const part = new M.Session();
  try {
    part.startPart(start, -1);
    if (!(await feedPieces(M, part, trace.subarray(start), stop, false))) return null;
    if (!part.partEnded() || part.partFailed()) return null;
    const view = part.takePart();
    return view && view.length ? view.slice() : null;
  } finally {
    part.delete();
  }
}

export async function warm() {
  const t0 = performance.now();
  let pretouched = 0;
  running = true;
  try {
    const M = await loadModule();
    if (!stopped) pretouched = (await warmModule(M, () => stopped)).pretouched;
  } catch {
    if (!stopped) resetModule(); // the real load will say what is wrong
  } finally {
    running = false;
  }
  self.postMessage({ type: Msg.warmed, ms: Math.round(performance.now() - t0), pretouched, stopped, report: stopped ? '' : warmReport });
}
