#!/usr/bin/python3
"""Makes a PyTorch profiler (Kineto) trace into the Nsight Systems SQLite export the same run would
have given under `nsys profile --trace=cuda,nvtx,osrt`, to compare the two readers on real runs.

  /usr/bin/python3 tests/nsys/from_kineto.py TRACE.json[.gz] OUT.sqlite [--step-name 'step %d']
      [--extras]   (also what a real capture holds besides: add_capture_extras)
      [--pytorch autograd-nvtx|autograd-shapes-nvtx]   (the CPU ops as emit_nvtx's ranges)
      [--gpu-metrics]   (nsys profile --gpu-metrics-devices=all: add_gpu_metrics)
      [--cpuctxsw]   (context switches around the host's long waits: add_context_switches)

The tables and columns are make_exports.py's (the real 2024.5 export's, schema 3.13.2), written by
its Export class. Times: integer ns since the trace's first event (Kineto's microseconds x 1000).
What is mapped:
  kernel / Kernel              -> CUPTI_ACTIVITY_KIND_KERNEL: deviceId, streamId, correlationId,
                                  grid/block, the name as demangledName (Kineto's names are
                                  demangled), a shortName
  cuda_runtime / Runtime       -> CUPTI_ACTIVITY_KIND_RUNTIME eventClass 0, named as nsys names
                                  the runtime's entry points ("cudaLaunchKernel_v7000")
  cuda_driver                  -> the same table, eventClass 1 (driver names have no suffix)
  gpu_memcpy / Memcpy          -> CUPTI_ACTIVITY_KIND_MEMCPY: copyKind, srcKind/dstKind from the
                                  name ("Memcpy DtoH (Device -> Pinned)"), bytes
  gpu_memset / Memset          -> CUPTI_ACTIVITY_KIND_MEMSET (bytes, memKind Device)
  cuda_sync                    -> CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (stream, event, context)
  ProfilerStep#N               -> an NVTX push/pop range on the same thread named "step N", as a
                                  program wrapping its step in torch.cuda.nvtx.range(f"step {n}")
                                  writes it (--step-name: another printf-style name)
  cpu_op / Operator,           -> only with --pytorch (nsys profile --pytorch=autograd-nvtx or
  user_annotation                 autograd-shapes-nvtx, i.e. torch.autograd.profiler.emit_nvtx):
                                  an NVTX push/pop range per op call on its thread, named as
                                  PyTorch names it (emit_nvtx_name), the sizes from "Input Dims"
  process_name / thread_name   -> PROCESSES, ThreadNames; globalTid = (pid << 24) | tid
  deviceProperties             -> TARGET_INFO_GPU (name, SMs, compute capability, memory);
  (computeProperties)             computeProperties in Kineto before 2021
  distributedInfo              -> RANK / WORLD_SIZE in the recorded environment
                                  (TARGET_INFO_SYSTEM_ENV), as torchrun sets them
What cannot be mapped (an nsys capture does not hold it):
  CPU ops without --pytorch: nsys records them only when the program emits NVTX
    (torch.autograd.profiler.emit_nvtx), which changes the run; left out, so every analysis
    built on CPU ops has nothing there. python_function events never (emit_nvtx has none)
  gpu_user_annotation (Kineto's GPU-side ranges), flows (nsys joins by correlationId instead),
    counters, memory events, Kineto's input shapes
  AMD traces (ROCm: hip* calls, an AMD device): nsys does not profile them; skipped (exit 3)
"""
import argparse
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_exports as mx  # noqa: E402  (the table definitions and the row writers)

# The runtime entry points nsys names with the CUDA version that introduced their ABI; every
# other runtime call carries _v3020 (CUDA 3.2's ABI), as in the real export (cudaMalloc_v3020).
RUNTIME_ABI = {
    'cudaLaunchKernel': 7000, 'cudaLaunchKernelExC': 11060, 'cudaLaunchCooperativeKernel': 9000,
    'cudaGraphLaunch': 10000, 'cudaStreamIsCapturing': 10000, 'cudaStreamBeginCapture': 10000,
    'cudaStreamEndCapture': 10000, 'cudaGraphInstantiate': 10000,
    'cudaStreamGetCaptureInfo': 10010, 'cudaThreadExchangeStreamCaptureMode': 10010,
    'cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags': 7000,
    'cudaStreamCreateWithPriority': 5050, 'cudaDeviceGetStreamPriorityRange': 5050,
    'cudaFuncGetAttributes': 3020, 'cudaMallocAsync': 11020, 'cudaFreeAsync': 11020,
}
# Kineto's per-thread-stream names already end in _ptsz / _ptds: nsys writes the suffix after.
COPY_KINDS = {'HtoD': mx.HTOD, 'DtoH': mx.DTOH, 'DtoD': mx.DTOD, 'HtoH': 9, 'PtoP': 10}
MEM_KINDS = {'Pageable': mx.PAGEABLE, 'Pinned': mx.PINNED, 'Device': mx.DEVICE, 'Array': 3,
             'Managed': mx.MANAGED}
SYNC_KINDS = {'Event Sync': mx.EVENT_SYNC, 'Stream Sync': mx.STREAM_SYNC,
              'Stream Wait Event': mx.STREAM_WAIT_EVENT, 'Context Sync': 4}
STEP = re.compile(r'ProfilerStep#(\d+)$')
# The CPU op categories of Kineto (Operator before 2021) and the program's record_function
# ranges: what PyTorch's RecordFunction observers see, so what emit_nvtx pushes a range for.
OP_CATS = ('cpu_op', 'Operator', 'user_annotation')
PYTORCH_NVTX = ('autograd-nvtx', 'autograd-shapes-nvtx')


class Skipped(Exception):
    """A trace nsys could not have captured (an AMD run, no GPU work)."""


def nsys_runtime_name(name):
    base = name
    for suffix in ('_ptsz', '_ptds'):
        if base.endswith(suffix):
            base = base[:-len(suffix)]
    return '%s_v%d%s' % (base, RUNTIME_ABI.get(base, 3020), name[len(base):])


def load(path):
    with (gzip.open(path, 'rb') if path.endswith('.gz') else open(path, 'rb')) as f:
        data = json.load(f)
    return data if isinstance(data, dict) else {'traceEvents': data}


def as_int(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def is_amd(trace, events):
    names = ' '.join(d.get('name', '') for d in trace.get('deviceProperties') or [])
    if re.search(r'AMD|Instinct|Radeon', names):
        return True
    return any(e.get('name', '').startswith('hip') for e in events
               if e.get('cat') in ('cuda_runtime', 'Runtime'))


def shapes_text(dims):
    """Kineto's "Input Dims" ([[16], [16, 32], []], a tensor list a list of shapes) as PyTorch's
    shapesToStr / variantShapesToStr write them: "[[16], [16, 32], []]"."""
    if isinstance(dims, list):
        return '[' + ', '.join(shapes_text(d) for d in dims) + ']'
    return str(as_int(dims) if as_int(dims) is not None else 0)


def emit_nvtx_name(name, args, op_id, shapes):
    """The range emit_nvtx pushes around an op call (torch/csrc/profiler/util.cpp getNvtxStr,
    PyTorch 2.x): "name[, seq = N], op_id = N[, sizes = [...][, input_op_ids = [(id, 0)]]]".
    `op_id`: the call's RecordFunction handle (a per-process counter; Kineto does not keep it);
    `shapes`: record_shapes (autograd-shapes-nvtx). The input's producer is not in the trace:
    the op before it on its thread stands for it."""
    seq = as_int(args.get('Sequence number'))
    text = '%s, seq = %d' % (name, seq) if seq is not None and seq >= 0 else name
    text += ', op_id = %d' % op_id
    dims = args.get('Input Dims', args.get('Input dims'))  # "Input dims" in Kineto's first traces
    if shapes and isinstance(dims, list) and dims:
        text += ', sizes = ' + shapes_text(dims)
        if any(isinstance(d, list) and d for d in dims):
            text += ', input_op_ids = [(%d, 0)]' % max(op_id - 1, 1)
    return text


def convert(trace, step_name='step %d', extras=False, pytorch=None, gpu_metrics=False,
            cpuctxsw=False):
    """Returns the Export (make_exports.Export) holding `trace`'s GPU run as nsys records it;
    `extras`: with what the real capture holds besides (add_capture_extras); `pytorch`: one of
    PYTORCH_NVTX (nsys profile --pytorch=...): the CPU ops as emit_nvtx's NVTX ranges;
    `gpu_metrics`: with GPU_METRICS samples (add_gpu_metrics); `cpuctxsw`: with SCHED_EVENTS
    around the host's long waits (add_context_switches)."""
    events = [e for e in trace.get('traceEvents', []) if isinstance(e, dict)]
    if is_amd(trace, events):
        raise Skipped('an AMD (ROCm) trace: nsys does not profile it')
    timed = [e for e in events if e.get('ph') == 'X' and isinstance(e.get('ts'), (int, float))]
    cats = {e.get('cat') for e in timed}
    if not cats & {'kernel', 'Kernel'}:
        raise Skipped('no GPU kernels')
    origin = min(e['ts'] for e in timed)
    lead = LEAD_NS if extras else 0
    waits = []
    # (device, start ns, end ns, SM share, tensor core, kind, warp share) of each kernel, copy and
    # memset: add_gpu_metrics' inputs (`kind`: work_kind's for a kernel, the copy's kind,
    # 'memset'; warp share: the kernel's resident warps over all of the GPU's warp slots).
    gpu_work = []
    ops = []  # (pid, tid, start ns, -dur ns, name, args) of the CPU ops, for add_op_ranges

    def ns(us):
        return int(round((us - origin) * 1000)) + lead

    runtime = [e for e in timed if e.get('cat') in ('cuda_runtime', 'Runtime', 'cuda_driver')]
    pids = [as_int(e.get('pid')) for e in runtime] or [as_int(e.get('pid')) for e in timed]
    main_pid = max(set(p for p in pids if p is not None), key=pids.count)
    names = {(e.get('pid'), e.get('tid')): e.get('args', {}).get('name') for e in events
             if e.get('ph') == 'M'}
    e = mx.Export(pid=main_pid, process=names.get((main_pid, 0)) or 'python3')
    for (pid, tid), name in names.items():
        if as_int(pid) == main_pid and as_int(tid) and name and (pid, tid) != (main_pid, 0):
            e.thread(as_int(tid), name)
    # Kineto before 2021 wrote the GPUs as computeProperties, with CUDA's property names.
    sms, warp_slots = {}, {}
    for d in trace.get('deviceProperties') or trace.get('computeProperties') or []:
        sms[as_int(d.get('id', 0)) or 0] = as_int(d.get('numSms', d.get('multiProcessorCount')))
        # 64 warps per SM from Volta to Hopper (2048 threads) where the trace does not say.
        warp_slots[as_int(d.get('id', 0)) or 0] = (sms[as_int(d.get('id', 0)) or 0] or 0) * (
            (as_int(d.get('maxThreadsPerMultiProcessor')) or 2048) // 32)
        e.gpu(d.get('id', 0), name=d.get('name', 'NVIDIA GPU'),
              sms=d.get('numSms', d.get('multiProcessorCount', 0)),
              major=d.get('computeMajor', d.get('major', 0)),
              minor=d.get('computeMinor', d.get('minor', 0)), memory=d.get('totalGlobalMem', 0))
    dist = trace.get('distributedInfo') or {}
    if 'rank' in dist and 'world_size' in dist:
        e.env = {'RANK': str(dist['rank']), 'WORLD_SIZE': str(dist['world_size'])}

    for ev in sorted(timed, key=lambda x: x['ts']):
        cat, name, args = ev.get('cat'), ev.get('name', ''), ev.get('args') or {}
        start, dur = ns(ev['ts']), int(round(ev.get('dur', 0) * 1000))
        corr = as_int(args.get('correlation'))
        dev, stream = as_int(args.get('device')) or 0, as_int(args.get('stream')) or 0
        pid, tid = as_int(ev.get('pid')), as_int(ev.get('tid'))
        if cat in ('cuda_runtime', 'Runtime', 'cuda_driver'):
            if pid is None or tid is None:
                continue
            if pid != e.pid:
                e.switch_process(pid, names.get((ev.get('pid'), 0)) or 'python3')
            driver = cat == 'cuda_driver' or not name.startswith('cuda')
            # Export.api numbers the calls itself: it is given Kineto's (CUPTI's) id instead.
            e.corr = (corr if corr is not None else e.corr + 1) - 1
            e.api(tid & 0xFFFFFF, name if driver else nsys_runtime_name(name), start, dur,
                  driver=driver)
        elif cat in ('kernel', 'Kernel'):
            grid, block = args.get('grid') or [1, 1, 1], args.get('block') or [1, 1, 1]
            e.kernel(corr or 0, name, start, dur, dev=dev, stream=stream, grid=tuple(grid),
                     block=tuple(block))
            blocks = 1
            for g in grid:
                blocks *= max(as_int(g) or 1, 1)
            share = min(blocks / sms[dev], 1.0) if sms.get(dev) else 1.0
            gpu_work.append((dev, start, start + dur, share, is_tensor_core_kernel(name),
                             work_kind(name), warp_share(args, grid, block, share,
                                                         warp_slots.get(dev))))
        elif cat in ('gpu_memcpy', 'Memcpy'):
            m = re.match(r'Memcpy (\w+)(?: \((\w+) -> (\w+)\))?', name)
            kind = COPY_KINDS.get(m.group(1), 0) if m else 0
            src = MEM_KINDS.get(m.group(2), 7) if m and m.group(2) else 7
            dst = MEM_KINDS.get(m.group(3), 7) if m and m.group(3) else 7
            e.memcpy(corr or 0, kind, src, dst, start, dur, as_int(args.get('bytes')) or 0, dev=dev,
                     stream=stream)
            gpu_work.append((dev, start, start + dur, 0.0, False, m.group(1) if m else 'copy', 0.0))
        elif cat in ('gpu_memset', 'Memset'):
            e.memset(corr or 0, start, dur, as_int(args.get('bytes')) or 0, dev=dev, stream=stream)
            gpu_work.append((dev, start, start + dur, 0.0, False, 'memset', 0.0))
        elif cat == 'cuda_sync':
            kind = SYNC_KINDS.get(args.get('cuda_sync_kind') or name, 0)
            e.sync(corr, kind, start, dur, dev=dev, stream=stream if stream else -1)
        elif STEP.match(name) and cat in OP_CATS and pid is not None and tid is not None:
            # The step range on the thread that ran it (a program's own NVTX range).
            saved, e.pid = e.pid, pid
            e.nvtx(tid & 0xFFFFFF, step_name % int(STEP.match(name).group(1)), start, start + dur)
            e.pid = saved
        elif pid is not None and tid is not None:
            if name.startswith('enumerate(DataLoader)'):
                waits.append((pid, tid & 0xFFFFFF, start, start + dur))
            if pytorch and cat in OP_CATS:
                ops.append((pid, tid & 0xFFFFFF, start, -dur, name, args))
    if ops:
        add_op_ranges(e, ops, pytorch == 'autograd-shapes-nvtx')
    e.switch_process(main_pid, e.process)
    # As the real export: PROCESSES lists the machine's other processes too (systemd, kthreadd).
    e.rows['PROCESSES'] += [(mx.gpid(1), 1, 'systemd'), (mx.gpid(2), 2, 'kthreadd')]
    if extras:
        add_capture_extras(e, waits)
    if gpu_metrics:
        add_gpu_metrics(e, gpu_work)
    if cpuctxsw:
        add_context_switches(e, waits)
    return e


def add_op_ranges(e, ops, shapes):
    """emit_nvtx's push/pop range around each CPU op call, on its thread, in start order (the op
    ids count up per process). A trace's microseconds can give an op and the op it calls the
    same start (aten::to and its aten::_to_copy); a real capture's nanoseconds never do (the
    outer range is pushed first), so such an inner range starts 1 ns after its parent."""
    op_ids, open_ranges = {}, {}
    saved = e.pid
    for pid, tid, start, neg_dur, name, args in sorted(ops, key=lambda o: o[:4]):
        end = start - neg_dur
        stack = open_ranges.setdefault((pid, tid), [])
        while stack and stack[-1][1] <= start:
            stack.pop()
        if stack and stack[-1][0] >= start and stack[-1][1] >= end and end > stack[-1][0] + 1:
            start = stack[-1][0] + 1
        stack.append((start, end))
        op_ids[pid] = op_ids.get(pid, 0) + 1
        e.pid = pid
        e.nvtx(tid, emit_nvtx_name(name, args, op_ids[pid], shapes), start, end)
    e.pid = saved


# What a real `nsys profile --trace=cuda,nvtx,osrt` capture holds beyond the rows convert() maps
# from the trace (docs/nsys-versions.md, "What a real capture holds beyond the converted rows").
# The capture starts with the process: CUDA's context is made inside the first cudaMalloc, before
# the trace's first event, so the converted times move LEAD_NS later.
LEAD_NS = 400_000_000
CONTEXT_NS = 240_000_000  # the real export's first cudaMalloc_v3020: 234 ms
NCCL_RANGES = (('AllReduce', 'ncclAllReduce'), ('AllGather', 'ncclAllGather'),
               ('ReduceScatter', 'ncclReduceScatter'), ('Broadcast', 'ncclBroadcast'),
               ('Reduce', 'ncclReduce'), ('SendRecv', 'ncclSend'), ('AllToAll', 'ncclSend'))
NVTX_DOMAIN_CREATE = 75
# As the real export writes them: severity 1 info, 2 warning. Neither warning is about the CUDA
# trace: nsys' reader leaves both out of nsys.profiler_warnings.
DIAGNOSTICS = ((1, 'Profiling has started.'),
               (2, 'Unable to collect CPU kernel IP samples and backtraces. perf event paranoid '
                   'level is 2. \nChange the paranoid level to 1 to enable kernel sample '
                   'collection.'),
               (1, 'OS runtime libraries injection initialized successfully.'),
               (1, 'CUDA injection initialized successfully.'),
               (2, 'No OpenGL events collected. Does the process use OpenGL?'))
PROFILER_THREADS = ('[NSys]', '[NSys Comms]', 'CUPTI worker thread', 'cuda-EvtHandlr')


def add_capture_extras(e, waits):
    """Adds to a converted Export (convert(..., extras=True)) what the real capture of the same
    run holds and the trace cannot give: Nsight Systems' diagnostics, its own threads with their
    OS runtime calls and overhead, CUDA's context creation in the first cudaMalloc, NCCL's NVTX
    ranges around each collective's launch, and OS runtime calls where the host waits: poll
    inside each DataLoader wait (`waits`: (pid, tid, start ns, end ns) of the trace's
    enumerate(DataLoader)#... ops: the main process polls its workers' queue), ioctl inside each
    CUDA call that waits for the GPU, pthread_cond_wait on the threads that run no CUDA call."""
    runtime = e.rows['CUPTI_ACTIVITY_KIND_RUNTIME']
    texts = {i: s for s, i in e.strings.items()}
    end = max(r[1] for t in ('CUPTI_ACTIVITY_KIND_RUNTIME', 'CUPTI_ACTIVITY_KIND_KERNEL')
              for r in e.rows[t])

    def osrt(g, name, start, stop):
        e.rows['OSRT_API'].append((start, stop, 27, g, e.sid(name), 0, 0, 1))

    def chunks(g, name, start, stop, every):
        for t in range(start, stop, every):
            osrt(g, name, t, min(t + every - 1_000, stop))

    for i, (severity, text) in enumerate(DIAGNOSTICS):  # during the profiler's start-up
        e.diagnostic(i * 10_000_000, severity, text)
    calls = {}  # each thread's CUDA calls: the main thread is the one with the most
    for row in runtime:
        calls.setdefault(row[3], []).append(row)
    named = {row[2] for row in e.rows['ThreadNames']}
    for pid in sorted({g >> 24 for g in calls}):
        threads = [g for g in calls if g >> 24 == pid]
        main = max(threads, key=lambda g: len(calls[g]))
        tid = max(g & 0xFFFFFF for g in set(threads) | named if g >> 24 == pid)
        own = {}
        for i, name in enumerate(PROFILER_THREADS):
            own[name] = mx.gtid(pid, tid + 1 + i)
            e.rows['ThreadNames'].append((e.sid(name), 0, own[name]))
        chunks(own['cuda-EvtHandlr'], 'poll', LEAD_NS // 8, end, 100_000_000)
        chunks(own['[NSys Comms]'], 'sem_timedwait', LEAD_NS // 8, end, 50_000_000)
        for t in range(LEAD_NS // 8, end, 200_000_000):
            e.rows['PROFILER_OVERHEAD'].append(
                (t, t + 12_000, own['CUPTI worker thread'], e.sid('CUPTI: Buffer flush'), 0))
        # CUDA's context: made inside the process's first CUDA call, a cudaMalloc, after the
        # driver's first entry point; it opens, maps and talks to the driver's device files.
        start = LEAD_NS - CONTEXT_NS - 30_000_000
        e.corr += 1
        runtime.append((start - 5_000, start - 4_000, mx.DRIVER, main, 10**9 + e.corr,
                        e.sid('cuModuleGetLoadingMode'), 0, None))
        runtime.append((start, start + CONTEXT_NS, mx.RUNTIME, main, 10**9 + e.corr + 1,
                        e.sid('cudaMalloc_v3020'), 0, None))
        for i, name in enumerate(('open64', 'mmap64', 'ioctl', 'ioctl', 'munmap')):
            osrt(main, name, start + 1_000_000 + i * 40_000_000, start + 31_000_000 + i * 40_000_000)
        # Threads of the process that make no CUDA call (autograd, pin memory) wait on a
        # condition variable whenever they have no work.
        for g in named - set(threads) - set(own.values()):
            if g >> 24 == pid:
                chunks(g, 'pthread_cond_wait', LEAD_NS // 8, end, 50_000_000)
    for row in list(runtime):
        name = texts.get(row[5], '')
        if row[1] - row[0] > 20_000 and 'Synchronize' in name:
            osrt(row[3], 'ioctl', row[0] + 5_000, row[1] - 5_000)
    for pid, tid, start, stop in waits:
        if stop - start > 20_000:
            osrt(mx.gtid(pid, tid), 'poll', start + 5_000, stop - 5_000)
    # NCCL's NVTX (NCCL_NVTX_DISABLE unset): its domain, and a push/pop range around the enqueue
    # of each collective on the thread that launched it.
    kernel_names = {(r[7] >> 24, r[6]): texts.get(r[8], '') for r in
                    e.rows['CUPTI_ACTIVITY_KIND_KERNEL']}
    made = set()
    for row in runtime:
        kernel = kernel_names.get((row[3] >> 24, row[4]), '')
        if 'nccl' not in kernel.lower():
            continue
        text = next((r for k, r in NCCL_RANGES if k.lower() in kernel.lower()), 'ncclGroupEnd')
        if row[3] >> 24 not in made:
            made.add(row[3] >> 24)
            nvtx_row(e, LEAD_NS // 2, None, NVTX_DOMAIN_CREATE, 'NCCL', row[3], 1)
        nvtx_row(e, row[0] - 3_000, row[1] + 2_000, mx.PUSHPOP, text, row[3], 1)


# GPU metrics (nsys profile --gpu-metrics-devices=all): nsys samples each GPU's counters at 10 kHz
# by default (--gpu-metrics-frequency=10000), from the capture's start to its end, one row per
# (sample, metric), the value an integer percent of the sample period. The names as nsys 2023 and
# later write them (make_exports.NEW_METRICS; "GR Active": the graphics/compute engine busy).
SAMPLE_NS = 100_000
METRICS = ((0, 'GR Active [Throughput %]'), (1, 'SMs Active [Throughput %]'),
           (2, 'Tensor Active [Throughput %]'))
# The further series of the Hopper set (nsys 2024-2025 names), each (metric id, name, the value
# a kernel, copy or memset `w` gives while it runs, of the series' peak): a MODEL, no
# measurement. SM Issue: the SMs the kernel fills times how often a warp issues in its kind
# (tensor-core GEMMs issue little, the tensor pipes doing the work; CUDA-core GEMMs much;
# memory-bound kernels stall on loads); Compute Warps in Flight: the kernel's warps over the
# GPU's warp slots (warp_share); DRAM read/write: the SMs it fills times its kind's share of
# peak bandwidth (streaming kernels near it, GEMMs reusing tiles far below), copies within the
# device at half of peak each way, memsets writing; PCIe RX/TX: host-to-device / device-to-host
# copies at 80% of the link; NVLink user data: NCCL kernels at 30% of the links each way, peer
# copies at 80%.
ISSUE = {'tc': 0.10, 'gemm': 0.45, 'memory': 0.15, 'nccl': 0.05, 'other': 0.30}
DRAM = {'tc': (0.25, 0.08), 'gemm': (0.25, 0.08), 'memory': (0.50, 0.30), 'nccl': (0.10, 0.10),
        'other': (0.20, 0.10), 'DtoD': (0.5, 0.5), 'memset': (0.0, 0.6), 'HtoD': (0.0, 0.03),
        'DtoH': (0.03, 0.0)}
KERNEL_KINDS = ('tc', 'gemm', 'memory', 'nccl', 'other')
WARPS_ID = 4
MORE_METRICS = (
    (3, 'SM Issue [Throughput %]', lambda w: w[3] * ISSUE.get(w[5], 0.0)),
    (WARPS_ID, 'Compute Warps in Flight [Throughput %]', lambda w: w[6]),
    (6, 'DRAM Read Bandwidth [Throughput %]',
     lambda w: (w[3] if w[5] in KERNEL_KINDS else 1.0) * DRAM.get(w[5], (0, 0))[0]),
    (7, 'DRAM Write Bandwidth [Throughput %]',
     lambda w: (w[3] if w[5] in KERNEL_KINDS else 1.0) * DRAM.get(w[5], (0, 0))[1]),
    (8, 'PCIe RX Throughput [Throughput %]', lambda w: 0.8 if w[5] == 'HtoD' else 0.0),
    (9, 'PCIe TX Throughput [Throughput %]', lambda w: 0.8 if w[5] == 'DtoH' else 0.0),
    (10, 'NVLink RX Responses User Data [Throughput %]',
     lambda w: 0.3 if w[5] == 'nccl' else 0.8 if w[5] == 'PtoP' else 0.0),
    (11, 'NVLink TX Responses User Data [Throughput %]',
     lambda w: 0.3 if w[5] == 'nccl' else 0.8 if w[5] == 'PtoP' else 0.0))
UNALLOCATED = (5, 'Unallocated Warps in Active SMs [Throughput %]')
MEMORY_BOUND = ('elementwise', 'reduce', 'copy', 'fill', 'index', 'embedding', 'gather',
                'scatter', 'cat', 'softmax', 'norm', 'dropout', 'adam', 'sgd', 'multi_tensor')


def work_kind(name):
    """A kernel's kind for the model above, by its name."""
    low = name.lower()
    if 'nccl' in low:
        return 'nccl'
    if is_tensor_core_kernel(name):
        return 'tc'
    if 'gemm' in low or 'conv' in low or 'gemv' in low:
        return 'gemm'
    return 'memory' if any(k in low for k in MEMORY_BOUND) else 'other'


def warp_share(args, grid, block, share, slots):
    """A kernel's resident warps over all of the GPU's warp slots: Kineto's `est. achieved
    occupancy %` (of the SMs it runs on) times the SMs it fills where the trace has it, else its
    warps (blocks x ceil(threads / 32)) over the slots, at most the SMs it fills."""
    occupancy = args.get('est. achieved occupancy %')
    if isinstance(occupancy, (int, float)) and occupancy >= 0:
        return share * min(occupancy, 100) / 100.0
    if not slots:
        return share * 0.5
    threads = 1
    for b in block:
        threads *= max(as_int(b) or 1, 1)
    blocks = 1
    for g in grid:
        blocks *= max(as_int(g) or 1, 1)
    return min(blocks * -(-threads // 32) / slots, share)


# kernel_class.cpp is_tensor_core_kernel: the names that say the math runs on the tensor cores.
CUDA_CORES = ('ffma', 'hfma', 'simt')
TENSOR_CORES = ('h884', 's884', 'h1688', 's1688', 'hmma', 'i8816', '16816', 'xmma_gemm',
                'xmma_implicit_gemm', 'xmma_sparse_gemm', 'c1688', 'wgmma', 'sm90_xmma', 'nvjet',
                'cutlass3x', 'tcgen05', 'tensorop', 'tf32')


def is_tensor_core_kernel(name):
    if any(p in name for p in CUDA_CORES):
        return False
    return (name.startswith('triton_tem_') or any(p in name for p in TENSOR_CORES)
            or ('xmma' in name and 'gemm' in name))


def sampled(intervals, first, last):
    """{sample start: covered ns} over the SAMPLE_NS periods [first, last]: `intervals` (start,
    end, weight) add up where they overlap, capped at 1 (a GPU cannot be more than fully busy)."""
    edges = sorted([(a, w) for a, b, w in intervals if b > a and w > 0] +
                   [(b, -w) for a, b, w in intervals if b > a and w > 0])
    area, level = {}, 0.0
    for (t, d), (t2, _) in zip(edges, edges[1:]):
        level += d
        if level <= 1e-9 or t2 <= t:
            continue
        k = t // SAMPLE_NS
        while k * SAMPLE_NS < t2:
            lo, hi = max(t, k * SAMPLE_NS), min(t2, (k + 1) * SAMPLE_NS)
            if first <= k <= last:
                area[k] = area.get(k, 0.0) + min(level, 1.0) * (hi - lo)
            k += 1
    return area


def add_gpu_metrics(e, work):
    """GPU_METRICS samples for each GPU that ran work (`work`: as convert's gpu_work), derived
    from the converted run's GPU time as the hardware would count it: GR Active = the share of
    each sample period any kernel, copy or memset ran; SMs Active = the kernels' coverage
    weighted by the share of the SMs their grid fills (min(blocks / SMs, 1), concurrent kernels
    adding up to 1: what the trace's est. SM efficiency assumes); Tensor Active = the coverage of
    the tensor-core kernels (by name, as kernel_class.cpp), an upper bound of the tensor pipes'
    real activity. The further series are a MODEL (MORE_METRICS says each one's formula): a
    trace holds no bandwidth or issue counts, so the values are plausible, not measured, and
    serve to check that the export's reading path (names, devices, means) gives back what was
    written; Unallocated Warps in Active SMs = SMs Active - Compute Warps in Flight, per sample,
    as nsys derives it."""
    if not work:
        return
    end = max(r[1] for t in ('CUPTI_ACTIVITY_KIND_RUNTIME', 'CUPTI_ACTIVITY_KIND_KERNEL')
              for r in e.rows[t])
    first, last = 0, end // SAMPLE_NS  # the capture's start to its end
    for dev in sorted({w[0] for w in work}):
        mine = [w for w in work if w[0] == dev]
        series = {0: sampled([(a, b, 1.0) for _, a, b, *_ in mine], first, last),
                  1: sampled([(w[1], w[2], w[3]) for w in mine], first, last),
                  2: sampled([(w[1], w[2], 1.0) for w in mine if w[4]], first, last)}
        more = {}
        for metric_id, name, weight in MORE_METRICS:
            more[metric_id] = sampled([(w[1], w[2], weight(w)) for w in mine], first, last)
        # NVLink's series only where the GPU talked to a peer (NCCL, peer copies): a GPU without
        # NVLink samples none.
        linked = any(w[5] in ('nccl', 'PtoP') for w in mine)
        for k in range(first, last + 1):
            values = {}
            for metric_id, name in METRICS:
                values[metric_id] = int(round(100.0 * series[metric_id].get(k, 0.0) / SAMPLE_NS))
                e.metric(dev, metric_id, name, k * SAMPLE_NS, values[metric_id])
            for metric_id, name, _ in MORE_METRICS:
                if 'NVLink' in name and not linked:
                    continue
                values[metric_id] = int(round(100.0 * more[metric_id].get(k, 0.0) / SAMPLE_NS))
                e.metric(dev, metric_id, name, k * SAMPLE_NS, values[metric_id])
            e.metric(dev, UNALLOCATED[0], UNALLOCATED[1], k * SAMPLE_NS,
                     max(0, values[1] - values[WARPS_ID]))


def add_context_switches(e, waits):
    """SCHED_EVENTS (--cpuctxsw=process-tree, the default on Linux): the thread switched out of
    its core soon after it began a long blocking wait and back in as the wait ended, as the kernel
    deschedules a thread that blocks: each CUDA call named *Synchronize* longer than 20 us (the
    driver's ioctl sleeps) and each DataLoader wait (`waits`, as add_capture_extras has them: the
    main process polls its workers' queue). Short runs between waits stay on the CPU."""
    texts = {i: s for s, i in e.strings.items()}
    spans = [(r[3], r[0], r[1]) for r in e.rows['CUPTI_ACTIVITY_KIND_RUNTIME']
             if r[1] - r[0] > 20_000 and 'Synchronize' in texts.get(r[5], '')]
    spans += [(mx.gtid(pid, tid), start, stop) for pid, tid, start, stop in waits
              if stop - start > 20_000]
    for g, start, stop in sorted(spans):
        cpu = g % 8
        e.rows['SCHED_EVENTS'] += [(start + 8_000, cpu, 0, g, 0, None),
                                   (stop - 4_000, cpu, 1, g, 0, None)]


def nvtx_row(e, start, stop, kind, text, g, domain):
    e.rows['NVTX_EVENTS'].append((start, stop, kind, None, None, None, text, g, None, None, domain,
                                  None, None, None, None, None, None, None, None))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('out')
    ap.add_argument('--step-name', default='step %d')
    ap.add_argument('--extras', action='store_true',
                    help='add what a real capture holds besides (add_capture_extras)')
    ap.add_argument('--pytorch', choices=PYTORCH_NVTX,
                    help='the CPU ops as emit_nvtx\'s NVTX ranges (nsys profile --pytorch=...)')
    ap.add_argument('--gpu-metrics', action='store_true',
                    help='GPU_METRICS samples from the run\'s GPU time (add_gpu_metrics)')
    ap.add_argument('--cpuctxsw', action='store_true',
                    help='SCHED_EVENTS around the host\'s long waits (add_context_switches)')
    a = ap.parse_args()
    try:
        e = convert(load(a.trace), a.step_name, a.extras, a.pytorch, a.gpu_metrics, a.cpuctxsw)
    except Skipped as why:
        print('from_kineto: %s skipped: %s' % (os.path.basename(a.trace), why))
        sys.exit(3)
    e.save(a.out)


if __name__ == '__main__':
    main()
