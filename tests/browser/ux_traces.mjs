// Traces made for the issue-18 tests (ux.mjs): small Kineto-shaped traces, written to a temp
// folder, each with one thing to show.
//   stackTrace(): 3 steps; under each a 20-frame Python stack, nn.Module: Linear > aten::linear >
//     aten::addmm (Input Dims) > cudaLaunchKernel > a GEMM kernel whose occupancy the trace gives
//     as 0; then 400 kernels of 1 µs, 1 µs apart (merged into runs when zoomed out), and GPU idle
//     over half of the span (gpu.idle is critical).
//   rankTrace(r): rank r of 2 (distributedInfo), the GPU idle 80% of the time on both.
//   diffPair(): BASE and TEST with one 1,500-character templated kernel whose template argument
//     changed, 60 kernels only in BASE and 60 only in TEST, and TEST's steps slower.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const GPU = 0;
const STREAM = 7;
const CPU_PID = 1000;
const CPU_TID = 1000;

function builder(rank = 0, world = 1) {
  const events = [
    { ph: 'M', name: 'process_name', pid: CPU_PID, tid: 0, args: { name: `python ${CPU_PID}` } },
    { ph: 'M', name: 'thread_name', pid: CPU_PID, tid: CPU_TID, args: { name: 'main thread' } },
    { ph: 'M', name: 'process_name', pid: GPU, tid: 0, args: { name: 'GPU 0' } },
    { ph: 'M', name: 'thread_name', pid: GPU, tid: STREAM, args: { name: 'stream 7' } },
  ];
  let corr = 1;
  let ext = 1;
  const x = (cat, name, pid, tid, ts, dur, args = {}) => events.push({ ph: 'X', cat, name, pid, tid, ts, dur, args });
  const kernel = (name, cpuTs, gpuTs, dur, extra = {}) => {
    const c = corr++;
    x('cuda_runtime', 'cudaLaunchKernel', CPU_PID, CPU_TID, cpuTs, 4, { 'External id': ext++, cbid: 211, correlation: c });
    x('kernel', name, GPU, STREAM, gpuTs, dur, {
      'External id': ext++, queued: 0, device: GPU, context: 1, stream: STREAM, correlation: c,
      'registers per thread': 128, 'shared memory': 0, 'blocks per SM': 1, 'warps per SM': 4,
      grid: [132, 1, 1], block: [128, 1, 1], 'est. achieved occupancy %': 25, ...extra,
    });
    events.push({ ph: 's', id: c, pid: CPU_PID, tid: CPU_TID, ts: cpuTs, cat: 'ac2g', name: 'ac2g' });
    events.push({ ph: 'f', id: c, pid: GPU, tid: STREAM, ts: gpuTs, cat: 'ac2g', name: 'ac2g', bp: 'e' });
  };
  const doc = () => ({
    schemaVersion: 1,
    deviceProperties: [{ id: 0, name: 'NVIDIA H100 80GB HBM3', totalGlobalMem: 85e9, computeMajor: 9, computeMinor: 0, maxThreadsPerBlock: 1024, maxThreadsPerMultiProcessor: 2048, regsPerBlock: 65536, regsPerMultiprocessor: 65536, warpSize: 32, sharedMemPerBlock: 49152, sharedMemPerMultiprocessor: 233472, numSms: 132, sharedMemPerBlockOptin: 232448 }],
    distributedInfo: world > 1 ? { backend: 'nccl', rank, world_size: world } : { rank: 0 },
    traceEvents: events,
  });
  return { events, x, kernel, doc, ext: () => ext++ };
}

export const GEMM = 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas';
export const PY_FRAMES = 20;

export function stackTrace(dir) {
  const b = builder();
  const STEP = 3000;
  for (let s = 0; s < 3; s++) {
    const t0 = 1_000_000 + s * STEP;
    b.x('user_annotation', `ProfilerStep#${s + 1}`, CPU_PID, CPU_TID, t0, STEP - 10);
    // The Python stack: frame k encloses frame k+1, 2 µs narrower on each side.
    for (let k = 0; k < PY_FRAMES; k++) b.x('python_function', `train.py(${100 + k}): frame_${k}`, CPU_PID, CPU_TID, t0 + 10 + k, 2000 - 2 * k, { 'Python id': 100 * s + k });
    const m = t0 + 10 + PY_FRAMES;
    b.x('python_function', 'nn.Module: Linear_0', CPU_PID, CPU_TID, m + 1, 200);
    b.x('cpu_op', 'aten::linear', CPU_PID, CPU_TID, m + 2, 190, { 'External id': b.ext(), 'Input Dims': [[64, 4096], [4096, 4096], [4096]], 'Input type': ['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16'] });
    b.x('cpu_op', 'aten::addmm', CPU_PID, CPU_TID, m + 4, 180, { 'External id': b.ext(), 'Input Dims': [[4096], [64, 4096], [4096, 4096], [], []], 'Input type': ['c10::BFloat16', 'c10::BFloat16', 'c10::BFloat16', 'Scalar', 'Scalar'] });
    b.kernel(GEMM, m + 10, m + 30, 300, { 'est. achieved occupancy %': 0 });
    // 400 tiny kernels, 1 µs each, 1 µs apart, launched from the top of the stack's last frame.
    for (let i = 0; i < 400; i++) b.kernel(`vectorized_elementwise_kernel_${i % 3}`, m + 300 + i * 4, m + 500 + i * 2, 1);
  }
  const file = join(dir, 'ux_stack.pt.trace.json');
  writeFileSync(file, JSON.stringify(b.doc()));
  return file;
}

export function rankTrace(dir, rank) {
  const b = builder(rank, 2);
  const STEP = 10_000;
  for (let s = 0; s < 4; s++) {
    const t0 = 2_000_000 + s * STEP;
    b.x('user_annotation', `ProfilerStep#${s + 1}`, CPU_PID, CPU_TID, t0, STEP - 10);
    b.x('cpu_op', 'aten::mm', CPU_PID, CPU_TID, t0 + 10, 100, { 'External id': b.ext() });
    // 2 ms of kernels per 10 ms step (rank 1 a bit less): the GPU idle 80% of the time.
    b.kernel(GEMM, t0 + 20, t0 + 40, rank === 1 ? 1500 : 2000);
    b.x('cpu_op', 'aten::item', CPU_PID, CPU_TID, t0 + 3000, 6000, { 'External id': b.ext() });
  }
  const file = join(dir, `rank-${rank}.json`);
  writeFileSync(file, JSON.stringify(b.doc()));
  return file;
}

// A 1,500-character CUTLASS-like kernel name; `arg` is the template argument that changed.
export function templated(arg) {
  const inner = Array.from({ length: 24 }, (_, i) => `cutlass::gemm::GemmShape<${64 + i}, 128, 32>, cutlass::epilogue::thread::LinearCombination<float, 4, float, float>`).join(', ');
  return `void cutlass::Kernel<cutlass::gemm::kernel::GemmUniversal<${arg}, ${inner}>>(cutlass::gemm::kernel::GemmUniversal<${arg}>::Params)`.slice(0, 1500);
}

export function diffPair(dir) {
  const write = (side, arg, names, slow) => {
    const b = builder();
    const STEP = slow ? 5000 : 4000;
    for (let s = 0; s < 3; s++) {
      const t0 = 3_000_000 + s * STEP;
      b.x('user_annotation', `ProfilerStep#${s + 1}`, CPU_PID, CPU_TID, t0, STEP - 10);
      b.kernel(templated(arg), t0 + 10, t0 + 20, slow ? 2400 : 1400);
      names.forEach((n, i) => b.kernel(n, t0 + 30 + i * 5, t0 + 2500 + i * 20, 10));
    }
    const file = join(dir, `${side}.pt.trace.json`);
    writeFileSync(file, JSON.stringify(b.doc()));
    return file;
  };
  const only = (tag) => Array.from({ length: 60 }, (_, i) => `${tag}_only_kernel_${i}<float, ${i}>`);
  return { base: write('base', 'cutlass::bfloat16_t', only('base'), false), test: write('test', 'cutlass::half_t', only('test'), true) };
}
