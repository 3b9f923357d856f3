#!/usr/bin/env python3
"""Sanity test for the example traces: load each with the json module, check its shape,
and assert the fact each pathology was made to show.

    python3 examples/pathologies/check_generated.py          # exit status 0 when all hold
    python3 examples/pathologies/check_generated.py -v       # also print the measured numbers

GPU traces (gpu/, written by generate.py): every launch joins one GPU op by correlation,
flows pair up, CPU slices nest, GPU ops on a stream never overlap, and each pathology
differs from its clean twin in the planted way only. CPU captures (cpu/, real torch 1.13
runs): legacy array shape and the loose facts that hold for any rerun of capture_cpu.sh.
Standard library only.
"""

import collections
import glob
import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GPU = os.path.join(HERE, "gpu")
CPU = os.path.join(HERE, "cpu")
DEMO = os.path.join(HERE, "..", "demo", "cpu_transformer.pt.trace.json.gz")
TC_TOKENS = ("xmma_gemm", "sm90_xmma", "nvjet", "wgmma", "cutlass3x", "s1688", "h1688", "s884",
             "h884", "16816", "hmma", "i8816", "c1688", "tcgen05")
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")

VERBOSE = "-v" in sys.argv[1:]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
    return cond


def note(name, **facts):
    if VERBOSE:
        print("  %-28s %s" % (name, "  ".join("%s=%s" % (k, ("%.3g" % v) if isinstance(v, float)
                                                          else v) for k, v in facts.items())))


def load(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


# ------------------------------------------------------------------------- helpers


class Trace:
    def __init__(self, path):
        self.path = path
        self.doc = load(path)
        self.ev = self.doc["traceEvents"]
        self.x = [e for e in self.ev if e.get("ph") == "X"]
        self.gpu = [e for e in self.x if e.get("cat") in GPU_CATS]
        self.kernels = [e for e in self.x if e.get("cat") == "kernel"]
        self.runtime = [e for e in self.x if e.get("cat") == "cuda_runtime"]
        self.steps = sorted((e for e in self.x if e["name"].startswith("ProfilerStep#")),
                            key=lambda e: e["ts"])

    def named(self, name):
        return [e for e in self.x if e["name"] == name]

    def in_step(self, events, step):
        a, b = step["ts"], step["ts"] + step["dur"]
        return [e for e in events if a <= e["ts"] < b]


def union(ivals):
    total, cur = 0, None
    for a, b in sorted(ivals):
        if cur is None or a > cur[1]:
            if cur:
                total += cur[1] - cur[0]
            cur = [a, b]
        else:
            cur[1] = max(cur[1], b)
    return total + (cur[1] - cur[0] if cur else 0)


def span(e):
    return e["ts"], e["ts"] + e["dur"]


def structure(t):
    """Shape checks shared by every generated GPU trace."""
    name = os.path.relpath(t.path, HERE)
    d = t.doc
    check(d.get("schemaVersion") == 1, name + ": schemaVersion 1")
    check(d["deviceProperties"][0]["computeMajor"] == 9, name + ": H100 deviceProperties")
    for key in ("distributedInfo", "traceName"):
        check(key in d, name + ": top-level " + key)
    meta = [e for e in t.ev if e.get("ph") == "M"]
    check(any(e["name"] == "process_labels" and e["args"]["labels"].startswith("GPU")
              for e in meta), name + ": GPU process label")
    check(any(e["name"] == "thread_name" and e["args"]["name"].startswith("stream")
              for e in meta), name + ": stream thread names")
    check(len(t.steps) >= 5, name + ": ProfilerStep slices")
    # every GPU op has exactly one launching runtime call; flows pair up
    by_corr = collections.Counter(e["args"]["correlation"] for e in t.runtime)
    rt_ts = {e["args"]["correlation"]: e["ts"] for e in t.runtime}
    for g in t.gpu:
        c = g["args"]["correlation"]
        if not check(by_corr[c] == 1, name + ": one runtime call per GPU op"):
            break
        if not check(g["ts"] >= rt_ts[c], name + ": GPU op starts after its launch"):
            break
        for key in ("stream", "device", "External id"):
            check(key in g["args"], name + ": GPU op arg " + key)
    for g in t.kernels:
        for key in ("grid", "block", "blocks per SM", "warps per SM",
                    "est. achieved occupancy %"):
            if not check(key in g["args"], name + ": kernel arg " + key):
                break
    flows = collections.defaultdict(list)
    for e in t.ev:
        if e.get("cat") == "ac2g":
            flows[e["id"]].append(e["ph"])
    check(all(sorted(v) == ["f", "s"] for v in flows.values()), name + ": ac2g s/f pairs")
    check(len(flows) == len(t.gpu), name + ": one flow per GPU op")
    # GPU ops on one stream do not overlap
    per_stream = collections.defaultdict(list)
    for g in t.gpu:
        per_stream[(g["pid"], g["tid"])].append(span(g))
    for ivals in per_stream.values():
        ivals.sort()
        check(all(b[0] >= a[1] for a, b in zip(ivals, ivals[1:])), name + ": stream overlap")
    # CPU slices nest properly on each thread
    per_thread = collections.defaultdict(list)
    for e in t.x:
        if e.get("cat") not in GPU_CATS and e.get("cat") != "Trace":
            per_thread[e["tid"]].append(e)
    for evs in per_thread.values():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []
        for e in evs:
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            if not check(not stack or e["ts"] + e["dur"] <= stack[-1],
                         name + ": CPU slices nest"):
                break
            stack.append(e["ts"] + e["dur"])


def kernel_bag(t, skip=()):
    return sorted((e["name"], e["dur"]) for e in t.kernels
                  if not any(s in e["name"] for s in skip))


def dataloader_share(t):
    dls = [e for e in t.x if e["name"].startswith("enumerate(DataLoader)")]
    return [sum(e["dur"] for e in t.in_step(dls, s)) / float(s["dur"]) for s in t.steps]


def gpu_idle_during(t, slices):
    total = idle = 0
    for s in slices:
        a, b = span(s)
        busy = union([(max(a, g["ts"]), min(b, g["ts"] + g["dur"])) for g in t.gpu
                      if g["ts"] < b and g["ts"] + g["dur"] > a])
        total += b - a
        idle += b - a - busy
    return idle / float(total)


def nccl_overlap(t):
    comm = [span(e) for e in t.kernels if e["name"].startswith("nccl")]
    comp = [span(e) for e in t.kernels if not e["name"].startswith("nccl")]
    cu, xu = union(comm), union(comp)
    return (cu + xu - union(comm + comp)) / float(cu)


# --------------------------------------------------------------------- GPU checks


def gpu_checks():
    def T(name):
        return Trace(os.path.join(GPU, name + ".pt.trace.json.gz"))

    singles = {n: T(n) for n in ("gpu_clean", "gpu_clean_foreach", "gpu_clean_ddp_overlap",
                                 "gpu_dataloader_stall", "gpu_item_sync", "gpu_launch_bound",
                                 "gpu_pageable_htod", "gpu_nccl_not_overlapped",
                                 "gpu_no_tensor_cores")}
    for t in singles.values():
        structure(t)
    clean = singles["gpu_clean"]

    # DataLoader stall: ~30% of each step, GPU mostly idle meanwhile; twin: small share
    t = singles["gpu_dataloader_stall"]
    share, base = dataloader_share(t), dataloader_share(clean)
    dls = [e for e in t.x if e["name"].startswith("enumerate(DataLoader)")]
    idle = gpu_idle_during(t, dls)
    check(all(0.25 <= s <= 0.35 for s in share), "stall: DataLoader 25-35% of every step")
    check(max(base) < 0.05, "clean: DataLoader under 5% of every step")
    check(idle > 0.5, "stall: GPU idle for most of the DataLoader time")
    check(kernel_bag(t) == kernel_bag(clean), "stall: same kernels as the clean twin")
    note("gpu_dataloader_stall", dl_share_min=min(share), dl_share_max=max(share),
         gpu_idle_in_dl=idle, clean_dl_share_max=max(base))

    # item sync: one 4-byte DtoH + one long cudaStreamSynchronize per step
    t = singles["gpu_item_sync"]
    gpu_by_corr = {g["args"]["correlation"]: g for g in t.gpu}
    for s in t.steps:
        dtoh = [gpu_by_corr[r["args"]["correlation"]]
                for r in t.in_step(t.named("cudaMemcpyAsync"), s)
                if gpu_by_corr[r["args"]["correlation"]]["name"].startswith("Memcpy DtoH")]
        syncs = t.in_step(t.named("cudaStreamSynchronize"), s)
        items = t.in_step(t.named("aten::item"), s)
        check(len(items) == 1 and len(syncs) == 1, "item: one aten::item and sync per step")
        check(len(dtoh) == 1 and dtoh[0]["name"] == "Memcpy DtoH (Device -> Pageable)"
              and dtoh[0]["args"]["bytes"] == 4, "item: one 4-byte pageable DtoH per step")
    sync = [e["dur"] for e in t.named("cudaStreamSynchronize")]
    n_dtoh = len([g for g in t.gpu if g["name"].startswith("Memcpy DtoH")])
    check(n_dtoh == len(t.steps), "item: DtoH count equals step count")
    check(min(sync) >= 500, "item: every sync waits at least 0.5 ms")
    check(all(e["name"] != "aten::_local_scalar_dense" for e in clean.x)
          and not clean.named("cudaStreamSynchronize"), "clean: no item/sync")
    check(kernel_bag(t) == kernel_bag(clean), "item: same kernels as the clean twin")
    note("gpu_item_sync", dtoh_per_step=n_dtoh / float(len(t.steps)),
         sync_ms_mean=sum(sync) / len(sync) / 1e3, sync_ms_min=min(sync) / 1e3)

    # launch bound: thousands of <=4 us kernels with host-wait gaps; twin: foreach kernels
    t, twin = singles["gpu_launch_bound"], singles["gpu_clean_foreach"]
    tiny = [k for k in t.kernels if k["dur"] <= 4]
    check(len(tiny) >= 1500, "launch: at least 1500 kernels of <= 4 us")
    check(len([k for k in twin.kernels if k["dur"] <= 4]) < 100, "foreach twin: few tiny kernels")
    launch = {r["args"]["correlation"]: r for r in t.runtime}
    tiny.sort(key=lambda e: e["ts"])
    gaps = [b["ts"] - (a["ts"] + a["dur"]) for a, b in zip(tiny, tiny[1:])
            if launch[b["args"]["correlation"]]["ts"] > a["ts"] + a["dur"]]
    # the first few dozen of each step queue behind backward; the rest wait for the CPU
    check(len(gaps) >= 0.7 * (len(tiny) - 1), "launch: most tiny kernels wait for the host")
    median_gap = sorted(gaps)[len(gaps) // 2]
    check(median_gap >= 8, "launch: median host-wait gap >= 8 us")
    check(kernel_bag(t, ("multi_tensor_apply", "vectorized_elementwise")) ==
          kernel_bag(twin, ("multi_tensor_apply", "vectorized_elementwise")),
          "launch: model kernels equal the foreach twin's")
    note("gpu_launch_bound", tiny=len(tiny), host_wait_share=len(gaps) / float(len(tiny) - 1),
         kernels=len(t.kernels),
         twin_kernels=len(twin.kernels), median_gap_us=median_gap)

    # pageable HtoD: big slow copies and a blocking cudaMemcpyAsync; twin: pinned, fast
    t = singles["gpu_pageable_htod"]
    big = [g for g in t.gpu if g["args"].get("bytes", 0) >= 1 << 20]
    bigc = [g for g in clean.gpu if g["args"].get("bytes", 0) >= 1 << 20]
    calls = {r["args"]["correlation"]: r["dur"] for r in t.runtime}
    ccalls = {r["args"]["correlation"]: r["dur"] for r in clean.runtime}
    check(len(big) == len(t.steps), "pageable: one large HtoD per step")
    check(all(g["name"] == "Memcpy HtoD (Pageable -> Device)" for g in big),
          "pageable: Pageable -> Device")
    check(all(g["args"]["memory bandwidth (GB/s)"] < 10 for g in big), "pageable: < 10 GB/s")
    check(all(calls[g["args"]["correlation"]] >= g["dur"] for g in big),
          "pageable: cudaMemcpyAsync blocks for the copy")
    check(all(g["name"] == "Memcpy HtoD (Pinned -> Device)" and
              g["args"]["memory bandwidth (GB/s)"] > 30 and
              ccalls[g["args"]["correlation"]] < 50 for g in bigc),
          "clean: pinned, fast, non-blocking copies")
    check(kernel_bag(t) == kernel_bag(clean), "pageable: same kernels as the clean twin")
    note("gpu_pageable_htod", mib=big[0]["args"]["bytes"] / 2.0 ** 20,
         gbps=big[0]["args"]["memory bandwidth (GB/s)"],
         copy_ms=sum(g["dur"] for g in big) / len(big) / 1e3,
         call_ms=sum(calls[g["args"]["correlation"]] for g in big) / len(big) / 1e3,
         clean_gbps=bigc[0]["args"]["memory bandwidth (GB/s)"])

    # NCCL not overlapped; twin overlaps the same all-reduces with backward
    t, twin = singles["gpu_nccl_not_overlapped"], singles["gpu_clean_ddp_overlap"]
    ov, ov_twin = nccl_overlap(t), nccl_overlap(twin)
    check(t.doc["distributedInfo"].get("world_size") == 8, "nccl: world_size 8")
    check(ov < 0.05, "nccl: all-reduce not overlapped with compute")
    check(ov_twin > 0.5, "nccl twin: all-reduce mostly overlapped")
    streams = {k["args"]["stream"] for k in t.kernels if k["name"].startswith("nccl")}
    check(len(streams) == 1 and 7 not in streams, "nccl: own stream")
    check(kernel_bag(t, ("nccl",)) == kernel_bag(twin, ("nccl",)),
          "nccl: compute kernels equal the twin's")
    check(sorted(k["args"]["In msg nelems"] for k in t.kernels if k["name"].startswith("nccl"))
          == sorted(k["args"]["In msg nelems"] for k in twin.kernels
                    if k["name"].startswith("nccl")), "nccl: same buckets as the twin")
    note("gpu_nccl_not_overlapped", overlap=ov, twin_overlap=ov_twin)

    # no tensor cores: sm_90 device, TC-eligible ops, fp32 SIMT gemms only
    t = singles["gpu_no_tensor_cores"]
    gemms = [k for k in t.kernels if "gemm" in k["name"]]
    cgemms = [k for k in clean.kernels if any(s in k["name"] for s in ("gemm", "nvjet"))]
    check(len(gemms) > 0 and not any(any(s in k["name"] for s in TC_TOKENS) for k in t.kernels),
          "no-TC: gemms present, no tensor-core kernel names")
    check(all(any(s in k["name"] for s in TC_TOKENS) for k in cgemms),
          "clean: every gemm is a tensor-core kernel")
    check(t.named("aten::addmm") and t.named("aten::mm") and t.named("aten::linear"),
          "no-TC: TC-eligible ops ran")
    check(len(t.kernels) == len(clean.kernels), "no-TC: same kernel count as the twin")
    note("gpu_no_tensor_cores", gemms=len(gemms),
         gemm_ms=sum(k["dur"] for k in gemms) / 1e3 / len(t.steps),
         clean_gemm_ms=sum(k["dur"] for k in cgemms) / 1e3 / len(clean.steps))

    # straggler sets
    for folder in ("straggler_clean", "straggler_compute", "straggler_dataloader",
                   "straggler_idle_gaps"):
        files = sorted(glob.glob(os.path.join(GPU, folder, "rank-*.json.gz")))
        check(len(files) == 8, folder + ": 8 ranks")
        comm, comp, dl = [], [], []
        for r, path in enumerate(sorted(files, key=lambda p: int(p.split("-")[-1][:-8]))):
            t = Trace(path)
            structure(t)
            di = t.doc["distributedInfo"]
            check(di.get("rank") == r and di.get("world_size") == 8 and di.get("backend") ==
                  "nccl", folder + ": distributedInfo of rank %d" % r)
            comm.append(sum(k["dur"] for k in t.kernels if k["name"].startswith("nccl")))
            comp.append(sum(k["dur"] for k in t.kernels if not k["name"].startswith("nccl")))
            dl.append(sum(e["dur"] for e in t.x if e["name"].startswith("enumerate(DataLoader)")))
        med = sorted(comm)[4]
        shortest = min(range(8), key=lambda i: comm[i])
        if folder == "straggler_clean":
            check(max(comm) < 1.6 * min(comm), folder + ": NCCL time even across ranks")
        else:
            check(shortest == 5, folder + ": rank 5 has the shortest NCCL time")
            check(all(comm[i] >= 1.5 * comm[5] for i in range(8) if i != 5),
                  folder + ": peers wait >= 1.5x longer in NCCL than rank 5")
        if folder == "straggler_compute":
            check(all(comp[5] >= 1.25 * comp[i] for i in range(8) if i != 5),
                  folder + ": rank 5 computes >= 1.25x longer")
        if folder == "straggler_dataloader":
            check(all(dl[5] >= 10 * dl[i] for i in range(8) if i != 5),
                  folder + ": rank 5 loads data >= 10x longer")
        if folder == "straggler_idle_gaps":
            check(abs(comp[5] - sorted(comp)[4]) < 0.05 * comp[5],
                  folder + ": rank 5 computes as long as the others")
        note(folder, nccl_ms_by_rank=" ".join("%.1f" % (c / 1e3) for c in comm),
             shortest=shortest, median_ms=med / 1e3)


# --------------------------------------------------------------------- CPU checks


def cpu_checks():
    def legacy(path):
        ev = load(path)
        name = os.path.relpath(path, HERE)
        check(isinstance(ev, list), name + ": legacy bare array")
        check(all(e.get("pid") == "CPU functions" and "cat" not in e for e in ev),
              name + ": pid 'CPU functions', no cat")
        steps = sorted((e for e in ev if e["name"].startswith("ProfilerStep#")),
                       key=lambda e: e["ts"])
        return ev, steps

    def share(ev, steps):
        dls = [e for e in ev if e["name"].startswith("enumerate(DataLoader)")]
        return [sum(d["dur"] for d in dls if s["ts"] <= d["ts"] < s["ts"] + s["dur"])
                / float(s["dur"]) for s in steps]

    def P(n):
        return os.path.join(CPU, n + ".pt.trace.json.gz")

    ev, steps = legacy(DEMO)
    check(len(steps) == 3, "demo: three ProfilerSteps")
    clean_ev, clean_steps = legacy(P("cpu_clean"))
    check(len(clean_steps) == 3, "cpu_clean: three ProfilerSteps")
    check(not any(e["name"] == "aten::item" for e in clean_ev), "cpu_clean: no aten::item")
    base = share(clean_ev, clean_steps)

    ev, steps = legacy(P("cpu_dataloader_no_workers"))
    sh = share(ev, steps)
    check(any("_SingleProcessDataLoaderIter" in e["name"] for e in ev),
          "cpu_dataloader_no_workers: single-process loader")
    check(min(sh) >= 0.15 and min(sh) >= 3 * max(base), "cpu_dataloader_no_workers: share")
    note("cpu_dataloader_no_workers", share_min=min(sh), clean_share_max=max(base))

    ev, steps = legacy(P("cpu_item_per_step"))
    items = [sum(1 for e in ev if e["name"] == "aten::item" and
                 s["ts"] <= e["ts"] < s["ts"] + s["dur"]) for s in steps]
    check(items == [1] * len(steps) and len(steps) == 3, "cpu_item_per_step: one item per step")
    note("cpu_item_per_step", items_per_step=items)

    ev, steps = legacy(P("cpu_warmup_captured"))
    durs = [s["dur"] for s in steps]
    check(steps and steps[0]["name"] == "ProfilerStep#0", "cpu_warmup_captured: starts at #0")
    rest = sorted(durs[1:])
    check(len(durs) >= 3 and durs[0] == max(durs) and durs[0] >= 1.3 * rest[len(rest) // 2],
          "cpu_warmup_captured: first step the slowest, >= 1.3x the median of the others")
    note("cpu_warmup_captured", step_ms=" ".join("%.0f" % (d / 1e3) for d in durs))

    ev, steps = legacy(P("cpu_heavy_flags"))
    check(len(steps) == 3, "cpu_heavy_flags: three ProfilerSteps")
    check(all(e["args"] == {} for e in ev), "cpu_heavy_flags: legacy export drops args")
    note("cpu_heavy_flags", step_ms=" ".join("%.0f" % (s["dur"] / 1e3) for s in steps),
         clean_step_ms=" ".join("%.0f" % (s["dur"] / 1e3) for s in clean_steps))


def main():
    if VERBOSE:
        print("GPU (generated):")
    gpu_checks()
    if VERBOSE:
        print("CPU (captured):")
    cpu_checks()
    if failures:
        print("check_generated: %d FAILED" % len(failures))
        for f in sorted(set(failures)):
            print("  - " + f)
        sys.exit(1)
    print("check_generated: ok")


if __name__ == "__main__":
    main()
