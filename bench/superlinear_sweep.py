#!/usr/bin/python3
"""A sweep for superlinear work on degenerate shapes (docs/hardening.md, session hostile15).

Each shape is written at N and 4N into a scratch folder and run through the native CLI (the
report as JSON to /dev/null, or the subcommand the shape names); the time is the child's user +
system CPU, best of REPS. Linear or N log N work gives a ratio near 4-5; the bound of the
[scaling] tests is 6.25; a quadratic walk gives ~16. Not part of `make test` (a few minutes).

  /usr/bin/python3 bench/superlinear_sweep.py [--cli build/native/kinetoscope] [--reps 2]
      [--scale 1.0] [SHAPE_SUBSTRING...]

Prints one line per shape: N, seconds at N, at 4N, the ratio, and SUPERLINEAR past 6.25.
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "nsys"))
import make_exports as mx  # noqa: E402  (the export writer of the nsys tests)

BOUND = 6.25


# ---- Nsight Systems exports -------------------------------------------------------------------

def nsys_base(pid=4242):
    e = mx.Export(pid=pid, process="python3")
    e.thread(pid, "python3")
    e.gpu(0)
    return e


def nsys_many_threads(n):
    """n threads, each one launch; the kernels on one stream."""
    e = nsys_base()
    for i in range(n):
        tid = 5000 + i
        e.thread(tid, "worker%d" % i)
        c = e.api(tid, "cudaLaunchKernel_v7000", 1_000_000 + 10_000 * i, 2_000)
        e.kernel(c, "k", 1_003_000 + 10_000 * i, 5_000)
    return e


def nsys_many_streams(n):
    e = nsys_base()
    for i in range(n):
        c = e.api(4242, "cudaLaunchKernel_v7000", 1_000_000 + 10_000 * i, 2_000)
        e.kernel(c, "k", 1_003_000 + 10_000 * i, 5_000, stream=8 + i)
    return e


def nsys_many_devices(n):
    e = nsys_base()
    for g in range(1, n):
        e.gpu(g)
    for i in range(n):
        c = e.api(4242, "cudaLaunchKernel_v7000", 1_000_000 + 10_000 * i, 2_000)
        e.kernel(c, "k", 1_003_000 + 10_000 * i, 5_000, dev=i)
    return e


def _kernels(e, n, every=10_000):
    for i in range(n):
        c = e.api(4242, "cudaLaunchKernel_v7000", 1_000_000 + every * i, 2_000)
        e.kernel(c, "k", 1_003_000 + every * i, 5_000)


def nsys_nvtx_domains(n):
    """n NVTX domains (domain-create rows), one range in each."""
    e = nsys_base()
    rows = e.rows["NVTX_EVENTS"]
    for d in range(n):
        rows.append((0, None, 75, None, None, None, "domain%d" % d, mx.gtid(4242, 4242), None,
                     None, d + 1, None, None, None, None, None, None, None, None))
        t = 1_000_000 + 10_000 * d
        rows.append((t, t + 8_000, mx.PUSHPOP, None, None, None, None, mx.gtid(4242, 4242), None,
                     e.sid("range%d" % d), d + 1, None, None, None, None, None, None, None, None))
    _kernels(e, n)
    return e


def nsys_nvtx_distinct_names(n):
    e = nsys_base()
    for i in range(n):
        t = 1_000_000 + 10_000 * i
        e.nvtx(4242, "range_%d" % i, t, t + 8_000)
    _kernels(e, n)
    return e


def nsys_nvtx_deep(n):
    """n push/pop ranges nested in one another, kernels launched at the bottom."""
    e = nsys_base()
    span = 100 * n + 10_000_000
    for i in range(n):
        e.nvtx(4242, "level", 1_000_000 + 10 * i, 1_000_000 + span - 10 * i)
    base = 1_000_000 + 10 * n + 1_000
    for i in range(n // 10):
        c = e.api(4242, "cudaLaunchKernel_v7000", base + 1_000 * i, 200)
        e.kernel(c, "k", base + 1_000 * i + 300, 500)
    return e


def nsys_nvtx_open(n):
    """n start/end ranges that never end (end NULL), and n kernels."""
    e = nsys_base()
    for i in range(n):
        e.nvtx(4242, "open", 1_000_000 + 10 * i, None, kind=mx.STARTEND)
    _kernels(e, n)
    return e


def nsys_graphs(n):
    """n graph launches, each a distinct graph of 4 nodes traced node by node."""
    e = nsys_base()
    t, g = 1_000_000, 1_000_000
    for i in range(n // 4):
        c = e.api(4242, "cudaGraphLaunch_v10000", t, 2_000)
        for k in range(4):
            e.kernel(c, "gk%d" % k, g + 3_000 * k, 2_000)
            row = e.rows["CUPTI_ACTIVITY_KIND_KERNEL"][-1]
            e.rows["CUPTI_ACTIVITY_KIND_KERNEL"][-1] = row[:26] + (4 * i + k, i)
        t += 20_000
        g = max(g + 20_000, t + 3_000)
    return e


def nsys_memcpy_kinds(n):
    """n copies of every kind (0..12) and odd ones (kinds past the enum)."""
    e = nsys_base()
    for i in range(n):
        t = 1_000_000 + 10_000 * i
        c = e.api(4242, "cudaMemcpyAsync_v3020", t, 2_000)
        e.memcpy(c, i % 20, i % 5, (i // 5) % 5, t + 3_000, 4_000, 4096 + i)
    return e


def nsys_osrt_one_call(n):
    """n OS runtime rows of one call (pthread_cond_wait) on one thread, and n/10 kernels."""
    e = nsys_base()
    for i in range(n):
        e.osrt(4242, "pthread_cond_wait", 1_000_000 + 1_000 * i, 900)
    _kernels(e, n // 10, every=10_000)
    return e


def nsys_processes_nvtx_step(n):
    """n processes, each one NVTX step range around one launch, 4 GPUs."""
    e = mx.Export(pid=1, process="launcher")
    for g in range(4):
        e.gpu(g)
    t = 1_000_000
    for i in range(n):
        pid = 100 + i
        e.switch_process(pid, "worker")
        e.thread(pid, "worker")
        e.nvtx(pid, "ProfilerStep#%d" % i, t, t + 9_000)
        c = e.api(pid, "cudaLaunchKernel_v7000", t + 500, 2_500)
        e.kernel(c, "k", t + 3_000, 5_000, dev=i % 4)
        t += 10_000
    return e


def nsys_rank_processes(n):
    """30 processes with a GPU each (rank-like: RANK below the 32 limit), n/30 kernels each."""
    e = mx.Export(pid=100, process="python3")
    for g in range(30):
        e.gpu(g)
    per = max(1, n // 30)
    for r in range(30):
        pid = 100 + r
        e.switch_process(pid, "python3")
        e.thread(pid, "python3")
        t = 1_000_000
        for j in range(per):
            if j % 50 == 0:
                e.nvtx(pid, "ProfilerStep#%d" % (j // 50), t, t + 50 * 10_000 - 100)
            c = e.api(pid, "cudaLaunchKernel_v7000", t, 2_000)
            e.kernel(c, "k" if j % 7 else "ncclKernel_AllReduce_RING_LL_Sum_float", t + 3_000,
                     5_000, dev=r)
            t += 10_000
    return e


def nsys_event_waits_one_event(n):
    """n cudaEventRecord of one event handle on stream 7 and n cudaStreamWaitEvent on it from
    stream 13 (an event reused every iteration), with the kernels between."""
    e = nsys_base()
    t = 1_000_000
    for i in range(n):
        c = e.api(4242, "cudaLaunchKernel_v7000", t, 2_000)
        e.kernel(c, "k", t + 3_000, 5_000)
        c = e.api(4242, "cudaEventRecord_v3020", t + 2_500, 500)
        e.event_record(c, t + 2_500, event=5, stream=7)
        c = e.api(4242, "cudaStreamWaitEvent_v3020", t + 3_100, 500)
        e.sync(c, mx.STREAM_WAIT_EVENT, t + 3_100, 300, stream=13, event=5)
        t += 10_000
    return e


def nsys_memory_one_address(n):
    """n device allocations at one address, freed and allocated again, and n allocations never
    freed at distinct addresses."""
    e = nsys_base()
    t = 1_000_000
    for i in range(n):
        c = e.api(4242, "cudaMalloc_v3020", t, 2_000)
        e.memory(c, t + 1_000, 1 << 20, address=0x7f0000000000)
        c = e.api(4242, "cudaFree_v3020", t + 3_000, 2_000)
        e.memory(c, t + 4_000, 1 << 20, free=True, address=0x7f0000000000)
        c = e.api(4242, "cudaMalloc_v3020", t + 6_000, 2_000)
        e.memory(c, t + 7_000, 4096, address=0x7e0000000000 + 4096 * i)
        t += 10_000
    _kernels(e, n // 10, every=100_000)
    return e


def nsys_off_cpu(n):
    """n scheduling switches of the main thread, n/10 kernels."""
    e = nsys_base()
    for i in range(n):
        e.off_cpu(4242, 1_000_000 + 1_000 * i, 500)
    _kernels(e, n // 10)
    return e


def nsys_distinct_callchains(n):
    """n launches, each with its own 8-frame backtrace."""
    e = nsys_base()
    for i in range(n):
        t = 1_000_000 + 10_000 * i
        frames = [("f%d_%d" % (i, d), "/app/lib%d.so" % (d % 3)) for d in range(8)]
        c = e.api(4242, "cudaLaunchKernel_v7000", t, 2_000, chain=frames)
        e.kernel(c, "k", t + 3_000, 5_000)
    return e


# ---- Kineto traces ----------------------------------------------------------------------------

def x(cat, name, pid, tid, ts, dur, args=None):
    e = {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur}
    if args:
        e["args"] = args
    return e


def kineto(events, **top):
    d = {"traceEvents": events}
    d.update(top)
    return d


def kin_launches(n, pid=1, t0=0, dev=0, corr0=0, name="k", extra=None):
    ev = []
    for i in range(n):
        at = t0 + 10 * i
        ev.append(x("cuda_runtime", "cudaLaunchKernel", pid, 1, at, 2, {"correlation": corr0 + i}))
        a = {"correlation": corr0 + i, "stream": 7, "device": dev}
        if extra:
            a.update(extra(i))
        ev.append(x("kernel", name, dev, 7, at + 3, 5, a))
    return ev


def kin_merged_ranks(n, ranks=64):
    """`ranks` ranks merged in one file, each its own pid, n/ranks launches each, all ids
    counting from 1, each rank on its own GPU."""
    ev = []
    per = max(1, n // ranks)
    for r in range(ranks):
        ev.append({"ph": "M", "name": "process_name", "pid": 1000 + r, "args": {"name": "rank%d" % r}})
        for j in range(per):
            at = 100 * j + r
            ev.append(x("cuda_runtime", "cudaLaunchKernel", 1000 + r, 1, at, 2, {"correlation": j + 1}))
            ev.append(x("kernel", "k", r, 7, at + 3, 5, {"correlation": j + 1, "stream": 7, "device": r}))
    return kineto(ev, distributedInfo={"rank": 0, "world_size": ranks, "backend": "nccl"})


def kin_process_groups(n):
    """n collectives, each in a distinct process group (distinct names and rank lists)."""
    def extra(i):
        return {"Collective name": "allreduce", "Process Group Name": "pg_%d" % i,
                "Process Group Ranks": "[0, %d]" % (i + 1), "Group size": 2, "In msg nelems": 1024,
                "Out msg nelems": 1024, "dtype": "Float"}
    ev = kin_launches(n, name="ncclKernel_AllReduce_RING_LL_Sum_float", extra=extra)
    for i in range(0, n, 100):
        ev.append(x("user_annotation", "ProfilerStep#%d" % (i // 100), 1, 1, 10 * i, 1000))
    return kineto(ev, distributedInfo={"rank": 0, "world_size": n + 1, "backend": "nccl"})


def kin_flows_one_slice(n):
    """n flows (ac2g-like, and fwdbwd) all ending on one slice."""
    ev = [x("cpu_op", "target", 1, 1, 0, 10 * n + 100)]
    for i in range(n):
        ev.append(x("cpu_op", "src%d" % (i % 10), 1, 2, 10 * i, 5))
        ev.append({"ph": "s", "cat": "fwdbwd", "name": "fwdbwd", "id": i, "pid": 1, "tid": 2,
                   "ts": 10 * i})
        ev.append({"ph": "f", "bp": "e", "cat": "fwdbwd", "name": "fwdbwd", "id": i, "pid": 1,
                   "tid": 1, "ts": 50})
    ev += kin_launches(n // 10, t0=0)
    return kineto(ev)


def kin_step_markers(n):
    """one ProfilerStep holding n user annotations and n ProfilerStep-like markers (named like
    steps: train_step, iteration)."""
    ev = [x("user_annotation", "ProfilerStep#1", 1, 1, 0, 20 * n + 100)]
    for i in range(n):
        ev.append(x("user_annotation", "train_step" if i % 2 else "iteration", 1, 1, 10 + 20 * i, 15))
    ev += kin_launches(n // 4, t0=10)
    return kineto(ev)


def kin_gpu_annotations_overlap(n):
    """n GPU user annotations overlapping one another (each starts before the last ends)."""
    ev = []
    for i in range(n):
        ev.append(x("gpu_user_annotation", "ann%d" % (i % 50), 0, 7, 10 * i, 10 * n - 5 * i + 50))
    ev += kin_launches(n, t0=0)
    ev.append(x("user_annotation", "ProfilerStep#1", 1, 1, 0, 10 * n + 100))
    return kineto(ev)


def kin_cpu_ops(n, names=100):
    ev = [x("user_annotation", "ProfilerStep#%d" % s, 1, 1, s * 10 * n // 8, 10 * n // 8)
          for s in range(8)]
    for i in range(n):
        ev.append(x("cpu_op", "op%d" % (i % names), 1, 1, 10 * i + 1, 5))
    ev += kin_launches(n, t0=0)
    return kineto(ev)


def kin_distinct_names(n):
    return kin_cpu_ops(n, names=n)


def kin_waits_one_record(n):
    """n cudaEventRecord launches and n cuda_sync waits, all on the record of correlation 1."""
    ev = kin_launches(n)
    for i in range(n):
        ev.append(x("cuda_runtime", "cudaStreamWaitEvent", 1, 1, 10 * i + 6, 1,
                    {"correlation": 10 * n + i}))
        ev.append(x("cuda_sync", "Wait Event", 0, 13, 10 * i + 7, 1,
                    {"correlation": 10 * n + i, "stream": 13, "device": 0,
                     "wait_on_stream": 7, "wait_on_cuda_event_record_corr_id": 1}))
    ev.append(x("user_annotation", "ProfilerStep#1", 1, 1, 0, 10 * n + 100))
    return kineto(ev)


def kin_memory_events(n):
    """n [memory] instants: allocations at one address freed again, and ones never freed."""
    ev = []
    for i in range(n):
        for addr, size in ((1000, 4096), (1000, -4096), (2000 + 8 * i, 512)):
            ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                       "pid": 1, "tid": 1, "ts": 10 * i + (0 if size > 0 else 5),
                       "args": {"Addr": addr, "Bytes": size, "Total Allocated": 0,
                                "Total Reserved": 0, "Device Type": 1, "Device Id": 0}})
    ev += kin_launches(n // 10, t0=0)
    ev.append(x("user_annotation", "ProfilerStep#1", 1, 1, 0, 10 * n + 100))
    return kineto(ev)


def kin_deep_ops(n):
    """n CPU ops nested in one another, a launch from the bottom of each tenth."""
    ev = [x("user_annotation", "ProfilerStep#1", 1, 1, 0, 30 * n + 100)]
    for i in range(n):
        ev.append(x("cpu_op", "aten::op%d" % (i % 10), 1, 1, 1 + i, 30 * n - 2 * i,
                    {"Input Dims": [[16, 32], [32, 16]], "Input type": ["float", "float"]}))
    for i in range(n // 10):
        at = n + 5 + 20 * i
        ev.append(x("cuda_runtime", "cudaLaunchKernel", 1, 1, at, 2, {"correlation": i}))
        ev.append(x("kernel", "k", 0, 7, at + 3, 5, {"correlation": i, "stream": 7, "device": 0}))
    return kineto(ev)


def kin_many_threads(n):
    """n CPU threads, one op and one launch each."""
    ev = [x("user_annotation", "ProfilerStep#1", 1, 1, 0, 10 * n + 100)]
    for i in range(n):
        ev.append(x("cpu_op", "aten::mm", 1, 10 + i, 10 * i, 8))
        ev.append(x("cuda_runtime", "cudaLaunchKernel", 1, 10 + i, 10 * i + 1, 2, {"correlation": i}))
        ev.append(x("kernel", "k", 0, 7, 10 * i + 4, 5, {"correlation": i, "stream": 7, "device": 0}))
    return kineto(ev)


def kin_steps_cross(n, what):
    """n/2 ProfilerSteps, each with one launch whose kernel runs on its own stream, its own
    device, or whose launch is on its own thread (work over steps x streams is quadratic)."""
    ev = []
    for i in range(n // 2):
        at = 100 * i
        ev.append(x("user_annotation", "ProfilerStep#%d" % i, 1, 1, at, 90))
        tid = 10 + i if what == "thread" else 1
        ev.append(x("cuda_runtime", "cudaLaunchKernel", 1, tid, at + 5, 2, {"correlation": i}))
        dev = i if what == "device" else 0
        stream = 8 + i if what == "stream" else 7
        name = "ncclKernel_AllReduce_RING_LL_Sum_float" if what == "group" else "k"
        a = {"correlation": i, "stream": stream, "device": dev}
        if what == "group":
            a.update({"Collective name": "allreduce", "Process Group Name": "pg%d" % i,
                      "Process Group Ranks": "[0, %d]" % (i + 1), "Group size": 2,
                      "In msg nelems": 1024, "dtype": "Float"})
        ev.append(x("kernel", name, dev, stream, at + 8, 50, a))
    top = {}
    if what == "group":
        top["distributedInfo"] = {"rank": 0, "world_size": n, "backend": "nccl"}
    return kineto(ev, **top)


def nsys_steps_cross(n, what):
    e = nsys_base()
    for g in range(1, n // 2 if what == "device" else 1):
        e.gpu(g)
    for i in range(n // 2):
        t = 1_000_000 + 100_000 * i
        tid = 5000 + i if what == "thread" else 4242
        if what == "thread":
            e.thread(tid, "w%d" % i)
        e.nvtx(4242, "ProfilerStep#%d" % i, t, t + 90_000)
        c = e.api(tid, "cudaLaunchKernel_v7000", t + 5_000, 2_000)
        e.kernel(c, "k", t + 8_000, 50_000, dev=i if what == "device" else 0,
                 stream=8 + i if what == "stream" else 7)
    return e


# ---- runners ----------------------------------------------------------------------------------

def cpu_of(cmd, out=subprocess.DEVNULL):
    p = subprocess.Popen(cmd, stdout=out, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0,):
        raise RuntimeError("%s: exit %d: %s" % (" ".join(cmd[:3]), code, err[-300:]))
    return ru.ru_utime + ru.ru_stime


def write_shape(kind, gen, n, folder):
    if kind == "nsys":
        path = os.path.join(folder, "s%d.sqlite" % n)
        gen(n).save(path)
        return [path]
    if kind == "kineto":
        path = os.path.join(folder, "s%d.json" % n)
        with open(path, "w") as f:
            json.dump(gen(n), f)
        return [path]
    return gen(n, folder)  # a list of files


def many_small_files(n, folder):
    """n small rank files (1,000 ranks): distributedInfo rank r, 20 launches and an all-reduce."""
    d = os.path.join(folder, "ranks%d" % n)
    os.makedirs(d, exist_ok=True)
    for r in range(n):
        def extra(i):
            return {"Collective name": "allreduce", "Process Group Name": "0",
                    "In msg nelems": 1024, "dtype": "Float", "Group size": n}
        ev = [x("user_annotation", "ProfilerStep#%d" % s, 1, 1, 100 * s, 100) for s in range(2)]
        ev += kin_launches(10, t0=r % 7, dev=0, name="ncclKernel_AllReduce_RING_LL_Sum_float",
                           extra=extra)
        with open(os.path.join(d, "rank%d.json" % r), "w") as f:
            json.dump(kineto(ev, distributedInfo={"rank": r, "world_size": n, "backend": "nccl"}), f)
    return [d]


SHAPES = [
    # name, kind, generator, N, how it is run
    ("nsys many threads", "nsys", nsys_many_threads, 5000, "report"),
    ("nsys many streams", "nsys", nsys_many_streams, 5000, "report"),
    ("nsys many devices", "nsys", nsys_many_devices, 2000, "report"),
    ("nsys many NVTX domains", "nsys", nsys_nvtx_domains, 5000, "report"),
    ("nsys distinct NVTX names", "nsys", nsys_nvtx_distinct_names, 10000, "report"),
    ("nsys NVTX ranges nested deep", "nsys", nsys_nvtx_deep, 20000, "report"),
    ("nsys open NVTX ranges", "nsys", nsys_nvtx_open, 10000, "report"),
    ("nsys CUDA graphs / nodes", "nsys", nsys_graphs, 10000, "report"),
    ("nsys memcpy kinds", "nsys", nsys_memcpy_kinds, 10000, "report"),
    ("nsys OSRT rows of one call", "nsys", nsys_osrt_one_call, 20000, "report"),
    ("nsys processes with one NVTX step", "nsys", nsys_processes_nvtx_step, 2000, "report"),
    ("nsys 30 rank-like processes", "nsys", nsys_rank_processes, 6000, "report"),
    ("nsys stats on many threads", "nsys", nsys_many_threads, 5000, "stats"),
    ("nsys stats on OSRT rows", "nsys", nsys_osrt_one_call, 20000, "stats"),
    ("nsys stats on memcpy kinds", "nsys", nsys_memcpy_kinds, 10000, "stats"),
    ("nsys stats on distinct NVTX names", "nsys", nsys_nvtx_distinct_names, 10000, "stats"),
    ("nsys diff, NVTX nested deep", "nsys", nsys_nvtx_deep, 20000, "diff"),
    ("kineto merged ranks (64 pids)", "kineto", kin_merged_ranks, 12800, "report"),
    ("kineto distinct process groups", "kineto", kin_process_groups, 5000, "report"),
    ("kineto flows to one slice", "kineto", kin_flows_one_slice, 20000, "report"),
    ("kineto step holding markers", "kineto", kin_step_markers, 20000, "report"),
    ("kineto overlapping GPU annotations", "kineto", kin_gpu_annotations_overlap, 20000, "report"),
    ("kineto diff, distinct names", "kineto", kin_distinct_names, 20000, "diff"),
    ("kineto aggregate, distinct names", "kineto", kin_distinct_names, 20000, "aggregate"),
    ("kineto aggregate, 100 names", "kineto", kin_cpu_ops, 20000, "aggregate"),
    ("nsys event waits on one event", "nsys", nsys_event_waits_one_event, 10000, "report"),
    ("nsys memory at one address", "nsys", nsys_memory_one_address, 10000, "report"),
    ("nsys off-CPU switches", "nsys", nsys_off_cpu, 20000, "report"),
    ("nsys distinct backtraces", "nsys", nsys_distinct_callchains, 5000, "report"),
    ("kineto waits on one record", "kineto", kin_waits_one_record, 20000, "report"),
    ("kineto memory events", "kineto", kin_memory_events, 20000, "report"),
    ("kineto deep CPU ops", "kineto", kin_deep_ops, 20000, "report"),
    ("kineto critical path, deep ops", "kineto", kin_deep_ops, 20000, "critical-path"),
    ("kineto math, deep ops", "kineto", kin_deep_ops, 20000, "math"),
    ("kineto many threads", "kineto", kin_many_threads, 20000, "report"),
    ("kineto steps x streams", "kineto", lambda n: kin_steps_cross(n, "stream"), 20000, "report"),
    ("kineto steps x devices", "kineto", lambda n: kin_steps_cross(n, "device"), 5000, "report"),
    ("kineto steps x threads", "kineto", lambda n: kin_steps_cross(n, "thread"), 20000, "report"),
    ("kineto steps x groups", "kineto", lambda n: kin_steps_cross(n, "group"), 20000, "report"),
    ("nsys steps x streams", "nsys", lambda n: nsys_steps_cross(n, "stream"), 10000, "report"),
    ("nsys steps x devices", "nsys", lambda n: nsys_steps_cross(n, "device"), 4000, "report"),
    ("nsys steps x threads", "nsys", lambda n: nsys_steps_cross(n, "thread"), 10000, "report"),
    ("kineto merged ranks (N/10 pids)", "kineto", lambda n: kin_merged_ranks(n, n // 10), 20000, "report"),
    ("multi-file report, many ranks", "files", many_small_files, 64, "report"),
    ("fleet reducer on digests", "files", many_small_files, 100, "fleet"),
]


def command(cli, how, files, folder):
    if how == "report":
        return [cli, "report"] + files + ["--format", "json", "-o", "/dev/null"]
    if how == "stats":
        return [cli, "stats", files[0], "--format", "json"]
    if how == "diff":
        return [cli, "diff", files[0], files[0], "--format", "json", "-o", "/dev/null"]
    if how == "aggregate":
        return [cli, "aggregate", files[0], "--from-us", "0", "--to-us", "100000000"]
    if how in ("critical-path", "math"):
        return [cli, how, files[0], "--format", "json"]
    raise ValueError(how)


def time_fleet(cli, files, folder, reps):
    """Digests once (not timed), then the reducer alone (python3 -m fleet on *.digest.json)."""
    d = files[0]
    dig = d + "_digests"
    if not os.path.isdir(dig):
        paths = sorted(os.path.join(d, f) for f in os.listdir(d))
        cpu_of([cli, "digest"] + paths + ["-o", dig])
    digs = sorted(os.path.join(dig, f) for f in os.listdir(dig))
    out = os.path.join(folder, "fleet.json")
    cmd = [sys.executable, "-m", "fleet"] + digs + ["--scheduler", "local:1", "--no-progress",
                                                    "-o", out]
    return min(cpu_of(cmd) for _ in range(reps))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build/native/kinetoscope"))
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every N")
    ap.add_argument("only", nargs="*")
    a = ap.parse_args()
    os.chdir(ROOT)
    worst = 0
    for name, kind, gen, n, how in SHAPES:
        if a.only and not any(s in name for s in a.only):
            continue
        n = max(1, int(n * a.scale))
        with tempfile.TemporaryDirectory(prefix="ks_sweep_") as folder:
            times = []
            try:
                for size in (n, 4 * n):
                    files = write_shape(kind, gen, size, folder)
                    if how == "fleet":
                        times.append(time_fleet(a.cli, files, folder, a.reps))
                    else:
                        cmd = command(a.cli, how, files, folder)
                        times.append(min(cpu_of(cmd) for _ in range(a.reps)))
            except RuntimeError as e:
                print("%-40s FAILED %s" % (name, e), flush=True)
                continue
        ratio = times[1] / max(times[0], 1e-3)
        worst = max(worst, ratio)
        print("%-40s N=%-7d %7.3f s  4N %7.3f s  ratio %5.2f%s" %
              (name, n, times[0], times[1], ratio, "  SUPERLINEAR" if ratio > BOUND else ""),
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
