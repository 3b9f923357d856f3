#!/usr/bin/python3
"""Makes a PyTorch profiler (Kineto) trace into the Nsight Systems SQLite export the same run would
have given under `nsys profile --trace=cuda,nvtx,osrt`, to compare the two readers on real runs.

  /usr/bin/python3 tests/nsys/from_kineto.py TRACE.json[.gz] OUT.sqlite [--step-name 'step %d']

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
  process_name / thread_name   -> PROCESSES, ThreadNames; globalTid = (pid << 24) | tid
  deviceProperties             -> TARGET_INFO_GPU (name, SMs, compute capability, memory)
  distributedInfo              -> RANK / WORLD_SIZE in the recorded environment
                                  (TARGET_INFO_SYSTEM_ENV), as torchrun sets them
What cannot be mapped (an nsys capture does not hold it):
  CPU ops (cpu_op, python_function, user_annotation other than the steps, record_param_comms):
    nsys records them only when the program emits NVTX (torch.autograd.profiler.emit_nvtx),
    which changes the run; left out, so every analysis built on CPU ops has nothing there
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


def convert(trace, step_name='step %d'):
    """Returns the Export (make_exports.Export) holding `trace`'s GPU run as nsys records it."""
    events = [e for e in trace.get('traceEvents', []) if isinstance(e, dict)]
    if is_amd(trace, events):
        raise Skipped('an AMD (ROCm) trace: nsys does not profile it')
    timed = [e for e in events if e.get('ph') == 'X' and isinstance(e.get('ts'), (int, float))]
    cats = {e.get('cat') for e in timed}
    if not cats & {'kernel', 'Kernel'}:
        raise Skipped('no GPU kernels')
    origin = min(e['ts'] for e in timed)

    def ns(us):
        return int(round((us - origin) * 1000))

    runtime = [e for e in timed if e.get('cat') in ('cuda_runtime', 'Runtime', 'cuda_driver')]
    pids = [as_int(e.get('pid')) for e in runtime] or [as_int(e.get('pid')) for e in timed]
    main_pid = max(set(p for p in pids if p is not None), key=pids.count)
    names = {(e.get('pid'), e.get('tid')): e.get('args', {}).get('name') for e in events
             if e.get('ph') == 'M'}
    e = mx.Export(pid=main_pid, process=names.get((main_pid, 0)) or 'python3')
    for (pid, tid), name in names.items():
        if as_int(pid) == main_pid and as_int(tid) and name and (pid, tid) != (main_pid, 0):
            e.thread(as_int(tid), name)
    for d in trace.get('deviceProperties') or []:
        e.gpu(d.get('id', 0), name=d.get('name', 'NVIDIA GPU'), sms=d.get('numSms', 0),
              major=d.get('computeMajor', 0), minor=d.get('computeMinor', 0),
              memory=d.get('totalGlobalMem', 0))
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
        elif cat in ('gpu_memcpy', 'Memcpy'):
            m = re.match(r'Memcpy (\w+)(?: \((\w+) -> (\w+)\))?', name)
            kind = COPY_KINDS.get(m.group(1), 0) if m else 0
            src = MEM_KINDS.get(m.group(2), 7) if m and m.group(2) else 7
            dst = MEM_KINDS.get(m.group(3), 7) if m and m.group(3) else 7
            e.memcpy(corr or 0, kind, src, dst, start, dur, as_int(args.get('bytes')) or 0, dev=dev,
                     stream=stream)
        elif cat in ('gpu_memset', 'Memset'):
            e.memset(corr or 0, start, dur, as_int(args.get('bytes')) or 0, dev=dev, stream=stream)
        elif cat == 'cuda_sync':
            kind = SYNC_KINDS.get(args.get('cuda_sync_kind') or name, 0)
            e.sync(corr, kind, start, dur, dev=dev, stream=stream if stream else -1)
        elif STEP.match(name) and pid is not None and tid is not None:
            # The step range on the thread that ran it (a program's own NVTX range).
            saved, e.pid = e.pid, pid
            e.nvtx(tid & 0xFFFFFF, step_name % int(STEP.match(name).group(1)), start, start + dur)
            e.pid = saved
    e.switch_process(main_pid, e.process)
    # As the real export: PROCESSES lists the machine's other processes too (systemd, kthreadd).
    e.rows['PROCESSES'] += [(mx.gpid(1), 1, 'systemd'), (mx.gpid(2), 2, 'kthreadd')]
    return e


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('trace')
    ap.add_argument('out')
    ap.add_argument('--step-name', default='step %d')
    a = ap.parse_args()
    try:
        e = convert(load(a.trace), a.step_name)
    except Skipped as why:
        print('from_kineto: %s skipped: %s' % (os.path.basename(a.trace), why))
        sys.exit(3)
    e.save(a.out)


if __name__ == '__main__':
    main()
