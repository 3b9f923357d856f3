#!/usr/bin/python3
"""More Kineto shapes nobody tuned on, each with ONE planted problem, played from the same real
capture as unseen_shapes.py (hta__step_based_trace: a small MLP trained with SGD on a Quadro
GP100, one steady iteration as the template, its metadata, pids/tids, field order and id forms
kept). Each check reads the CLI's JSON: the planted problem is named (its finding, cause and
numbers, computed here from the events written), and the same capture without the plant names
nothing of it.

  alloc_thrash   20 steps, each opening with torch.cuda.empty_cache()'s two cudaFree calls and
                 the caching allocator's cudaMalloc for the next batch (inside aten::empty):
                 memory.alloc_every_step counts 60 calls in 20 of 20 steps and their time; the
                 plain capture raises nothing of the allocator.
  fp32_gemm      the capture on an A100 (compute capability 8.0, deviceProperties as Kineto
                 writes them) with its GEMMs named as cuBLAS names fp32 SIMT kernels
                 (ampere_sgemm_*, sm80_xmma_gemm_f32f32_..._ffma_...): kernels.no_tensor_cores
                 names the GEMM count and time and says TF32/bf16; the same run with bf16
                 tensor-core names (sm80_xmma_gemm_bf16bf16_..., ampere_bf16_s16816gemm_...)
                 and the GP100 original (no tensor cores to use) raise nothing.
  kv_growth      40 decode steps of an inference loop (no optimizer) whose attention kernel
                 (flash_fwd_splitkv_kernel) reads a KV cache one token longer each step: its time
                 grows 40 us a step and the host waits for it, so each step is 40 us longer than
                 the last. That is growth, not instability: steps.growing gives the first and
                 last step, the growth per step and that the GPU work grows with it, and no
                 steps.unstable calls it intermittent stalls (before: "Step time varies ...
                 CV 18.5%" and the stall advice). A training loop whose host walks a history
                 that grows (torch.stack over every loss kept) grows as much, and the finding
                 says the GPU work does not. The loop with a fixed cache length raises neither.
  heavy_one_step one step captured with profile_memory=True, with_stack=True and
                 record_shapes=True: capture.diagnostic_flags names the three, no step rule
                 reads one step as unstable, warm-up or two kinds, and the GPU numbers are the
                 plain step's.
  xpu            the capture as Kineto's XPU plugin (PTI) writes an Intel GPU run: xpu_runtime
                 urEnqueueKernelLaunch / urEnqueueUSMMemcpy / urQueueFinish, kernels with
                 "sycl queue" in place of a CUDA stream, "Memcpy M2D" copies, an Intel device:
                 kernels, copies, launches and GPU busy as the CUDA capture's, and no fix
                 names CUDA (torch.cuda.*, cudaMalloc, CUDA graphs, Nsight).
  slow_host_rank 4 ranks of a data-parallel job (dist_shapes' DDP player, its ranks written from
                 the DLRM captures) where rank 2 waits 3 ms for its batch at the start of each
                 step (a slow host: its GPU work is the others'): ranks.straggler names rank 2
                 with data loading as the cause and the DataLoader's fix, ranks.dataloader_skew
                 its 12 ms, and no ranks.compute_skew blames a GPU; the same job with every
                 host alike names no straggler. (Right before this session too.)

Usage: /usr/bin/python3 tests/corpus/unseen_shapes2.py --cli build/native/kinetoscope [-v] [--only a,b]
"""
import copy
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import dist_shapes as ds  # noqa: E402
import metamorphic as mm  # noqa: E402
import profiler_options as po  # noqa: E402
import unseen_shapes as us  # noqa: E402
from planted import finding, fires, write  # noqa: E402

EXTRA_CORR = 990000  # the planted calls' correlation ids (the template's are 225416..225810)


def play_each(doc, steps, edit, marker="ProfilerStep#%d"):
    """The template played `steps` times, step i edited by edit(events, i) -> (events, length):
    unseen_shapes.play with an edit per step (a step that grows, a step that differs)."""
    events, t0, length, pid, tid = us.template(doc)
    out = [e for e in doc["traceEvents"] if e.get("ph") == "M"]
    at = 0
    for i in range(steps):
        evs, n_len = edit(copy.deepcopy(events), i) if edit else (events, length)
        if marker:
            out.append({"ph": "X", "cat": "user_annotation", "name": marker % i, "pid": pid, "tid": tid,
                        "ts": t0 + at, "dur": n_len, "args": {"External id": 900000 + i}})
        n = i + 1
        for e in evs:
            c = copy.deepcopy(e)
            c["ts"] = mm.dec(e["ts"]) + at
            if "id" in c:
                c["id"] = e["id"] + n * us.ID_STRIDE
            a = c.get("args")
            if isinstance(a, dict):
                for key in ("correlation", "External id"):
                    if isinstance(a.get(key), int) and a[key] > 0:
                        a[key] += n * us.ID_STRIDE
                a.pop("Ev Idx", None)
            out.append(c)
        at += n_len
    d = {k: v for k, v in doc.items() if k != "traceEvents"}
    d["traceEvents"] = out
    return d


def prepend(events, t0, length, extra, x):
    """The step's events x us later, `extra` (ts relative to the step's start) before them."""
    for e in events:
        e["ts"] = mm.dec(e["ts"]) + x
    for e in extra:
        e["ts"] = t0 + e["ts"]
    return events + extra, length + x


def host(pid, tid, cat, name, ts, dur, args=None):
    return {"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
            "args": dict(args or {})}


def launched(pid, tid, corr, ts, name, kts, kdur, launch="cudaLaunchKernel"):
    """A launch call, its kernel on stream 7 of device 0 and their flow, as the template has them."""
    return [host(pid, tid, "cuda_runtime", launch, ts, 8,
                 {"External id": corr, "cbid": 211, "correlation": corr}),
            {"ph": "X", "cat": "kernel", "name": name, "pid": us.GPU_PID, "tid": 7, "ts": kts, "dur": kdur,
             "args": {"External id": corr, "queued": 0, "device": 0, "context": 1, "stream": 7,
                      "correlation": corr, "registers per thread": 128, "shared memory": 49152,
                      "blocks per SM": 2.0, "warps per SM": 8.0, "grid": [112, 1, 1], "block": [128, 1, 1],
                      "est. achieved occupancy %": 25}},
            {"ph": "s", "id": corr, "pid": pid, "tid": tid, "ts": ts, "cat": "ac2g", "name": "ac2g"},
            {"ph": "f", "id": corr, "pid": us.GPU_PID, "tid": 7, "ts": kts, "cat": "ac2g", "name": "ac2g", "bp": "e"}]


# --- alloc_thrash -----------------------------------------------------------------------------

FREE_US, MALLOC_US = 120, 80


def check_alloc_thrash(c, cli, base, tmp):
    steps = 20
    _, t0, length, pid, tid = us.template(base)

    def thrash(events, i):
        # empty_cache() gives the cached blocks back (a cudaFree each), and the next batch's
        # first allocation takes memory from the driver again (cudaMalloc inside aten::empty).
        extra = [host(pid, tid, "cuda_runtime", "cudaFree", 2, FREE_US, {"cbid": 22, "correlation": EXTRA_CORR + 1}),
                 host(pid, tid, "cuda_runtime", "cudaFree", 4 + FREE_US, FREE_US,
                      {"cbid": 22, "correlation": EXTRA_CORR + 2}),
                 host(pid, tid, "cpu_op", "aten::empty", 6 + 2 * FREE_US, MALLOC_US + 6,
                      {"External id": EXTRA_CORR + 3}),
                 host(pid, tid, "cuda_runtime", "cudaMalloc", 8 + 2 * FREE_US, MALLOC_US,
                      {"cbid": 20, "correlation": EXTRA_CORR + 4})]
        return prepend(events, t0, length, extra, 20 + 2 * FREE_US + MALLOC_US)

    rep = corpus_cli.report(cli, write(play_each(base, steps, thrash), os.path.join(tmp, "thrash.json")))
    what = "alloc_thrash"
    f = fires(c, rep, "memory.alloc_every_step", what)
    if f:
        ev = f["evidence"]
        c.check("%s: 60 calls in 20 of 20 steps, %d us" % (what, steps * (2 * FREE_US + MALLOC_US)),
                ev.get("calls") == 3 * steps and ev.get("steps_with_calls") == steps and ev.get("steps") == steps
                and abs(ev.get("total_us", 0) - steps * (2 * FREE_US + MALLOC_US)) < 0.01, str(ev))
        c.check("%s: the fix takes empty_cache() out of the loop" % what, "empty_cache" in f.get("fix", ""), f.get("fix"))
        c.check("%s: a warning (the calls are %.0f%% of the step)" % (
            what, 100.0 * (2 * FREE_US + MALLOC_US) / (length + 340)), f.get("severity") == "warning", f.get("severity"))
    c.check("%s: no warm-up reading (the calls are in every step)" % what,
            finding(rep, "capture.warmup_ops") is None, (finding(rep, "capture.warmup_ops") or {}).get("title", ""))
    c.check("%s: steps steady" % what, finding(rep, "steps.unstable") is None)
    rep = corpus_cli.report(cli, write(play_each(base, steps, None), os.path.join(tmp, "plain.json")))
    c.check("alloc_thrash plain: no allocator finding", finding(rep, "memory.alloc_every_step") is None,
            str(corpus_cli.finding_ids(rep)))


# --- fp32_gemm --------------------------------------------------------------------------------

A100 = {"id": 0, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85097971712, "computeMajor": 8,
        "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
        "regsPerBlock": 65536, "regsPerMultiprocessor": 65536, "warpSize": 32, "sharedMemPerBlock": 49152,
        "sharedMemPerMultiprocessor": 167936, "numSms": 108, "sharedMemPerBlockOptin": 166912}
FP32_NAMES = ("ampere_sgemm_128x64_tn",
              "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_"
              "alignc4_execute_kernel__5x_cublas")
BF16_NAMES = ("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn",
              "sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_"
              "execute_kernel__5x_cublas")


def is_gemm(name):
    return "gemv" in name or "gemmk1" in name


def renamed_gemms(base, names, device=A100):
    doc = us.play(base, 20)
    k = 0
    for e in doc["traceEvents"]:
        if e.get("cat") == "kernel" and is_gemm(e["name"]):
            e["name"] = names[k % len(names)]
            k += 1
    if device:
        doc["deviceProperties"] = [dict(device, id=0), dict(device, id=1)]
    return doc, k


def check_fp32_gemm(c, cli, base, tmp):
    doc, n = renamed_gemms(base, FP32_NAMES)
    gemm_us = sum(mm.dec(e["dur"]) for e in doc["traceEvents"] if e.get("name") in FP32_NAMES)
    rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "fp32.json")))
    what = "fp32_gemm"
    f = fires(c, rep, "kernels.no_tensor_cores", what)
    if f:
        ev = f["evidence"]
        c.check("%s: %d fp32 GEMMs, %s us, on compute capability 8.0" % (what, n, gemm_us),
                ev.get("gemm_conv_kernels") == n and abs(ev.get("gemm_conv_us", 0) - float(gemm_us)) < 0.01
                and ev.get("compute_capability") == "8.0", str(ev))
        fix = f.get("fix", "") + f.get("fix_code", "")
        c.check("%s: the fix says TF32 and bf16" % what, "tf32" in fix.lower() and "bf16" in fix.lower(), fix)
    for label, names, device in (("bf16 names", BF16_NAMES, A100), ("GP100 original", None, None)):
        d, _ = renamed_gemms(base, names, device) if names else (us.play(base, 20), 0)
        r = corpus_cli.report(cli, write(d, os.path.join(tmp, "tc.json")))
        c.check("fp32_gemm %s: no tensor-core finding" % label, finding(r, "kernels.no_tensor_cores") is None,
                (finding(r, "kernels.no_tensor_cores") or {}).get("title", ""))


# --- kv_growth --------------------------------------------------------------------------------

ATTN = ("void flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t, "
        "Flash_kernel_traits<128, 64, 128, 4, cutlass::bfloat16_t> >, false, false, false, false, true, false, "
        "true, false>(Flash_fwd_params)")
ATTN_US, GROW_US = 200, 40


def decode_loop(base, steps, grow):
    """An inference loop (no optimizer): each step first runs the attention over the KV cache
    and waits for it (the next token goes to the host), then the template's work."""
    _, t0, length, pid, tid = us.template(base)

    def step(events, i):
        events = us.no_training_ranges(events)
        attn = ATTN_US + (GROW_US * i if grow else 0)
        extra = launched(pid, tid, EXTRA_CORR + 1, 2, ATTN, 12, attn)
        extra.append(host(pid, tid, "cuda_runtime", "cudaStreamSynchronize", 11, attn + 3,
                          {"cbid": 131, "correlation": EXTRA_CORR + 2}))
        return prepend(events, t0, length, extra, attn + 20)

    return play_each(base, steps, step), length


def check_kv_growth(c, cli, base, tmp):
    steps = 40
    doc, length = decode_loop(base, steps, True)
    rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "kv.json")))
    what = "kv_growth"
    durs = [r["dur_us"] for r in rep["steps"].get("rows", [])]
    c.check("%s: %d steps" % (what, steps), len(durs) == steps, str(len(durs)))
    f = finding(rep, "steps.unstable")
    c.check("%s: growth is not instability" % what, f is None, (f or {}).get("title", ""))
    f = fires(c, rep, "steps.growing", what)
    if f and durs:
        ev = f["evidence"]
        c.check("%s: first and last step, %d us a step" % (what, GROW_US),
                abs(ev.get("first_us", 0) - durs[0]) < 0.01 and abs(ev.get("last_us", 0) - durs[-1]) < 0.01
                and abs(ev.get("growth_per_step_us", 0) - GROW_US) < 0.5, str(ev))
        c.check("%s: the GPU work grows with it" % what, ev.get("gpu_work_grows") == "yes", str(ev))
        c.check("%s: the title says it grows" % what, "grows" in f["title"], f["title"])
    # A training loop whose host walks a history that grows (torch.stack over every loss kept so
    # far, each step): the same growth, the GPU work unchanged.
    _, t0, length, pid, tid = us.template(base)

    def kept(events, i):
        extra = [host(pid, tid, "cpu_op", "aten::stack", 2, ATTN_US + GROW_US * i, {"External id": EXTRA_CORR + 1})]
        return prepend(events, t0, length, extra, ATTN_US + GROW_US * i + 4)

    rep = corpus_cli.report(cli, write(play_each(base, steps, kept), os.path.join(tmp, "kept.json")))
    f = fires(c, rep, "steps.growing", "kv_growth host history")
    if f:
        c.check("kv_growth host history: the GPU work does not grow, the host's time does",
                f["evidence"].get("gpu_work_grows") == "no" and "host" in f["title"]
                and abs(f["evidence"].get("growth_per_step_us", 0) - GROW_US) < 0.5, str(f["evidence"]))
    c.check("kv_growth host history: not unstable", finding(rep, "steps.unstable") is None)
    doc, _ = decode_loop(base, steps, False)
    rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "kv_fixed.json")))
    c.check("kv_growth fixed length: neither growing nor unstable",
            finding(rep, "steps.growing") is None and finding(rep, "steps.unstable") is None,
            str(corpus_cli.finding_ids(rep)))


# --- heavy_one_step ---------------------------------------------------------------------------

def check_heavy_one_step(c, cli, base, tmp):
    plain = us.play(base, 1)
    heavy = po.chain(po.add_memory, po.add_python_frames, po.add_shapes)(copy.deepcopy(plain))
    rp = corpus_cli.report(cli, write(plain, os.path.join(tmp, "one.json")))
    rep = corpus_cli.report(cli, write(heavy, os.path.join(tmp, "one_heavy.json")))
    what = "heavy_one_step"
    c.check("%s: one step" % what, rep["steps"].get("count") == 1, str(rep["steps"].get("count")))
    f = fires(c, rep, "capture.diagnostic_flags", what)
    if f:
        named = po.flags_named(rep)
        c.check("%s: names profile_memory, with_stack, record_shapes" % what,
                set(named) == {"profile_memory", "with_stack", "record_shapes"}, str(named))
    for fid in ("steps.unstable", "steps.warmup_in_window", "steps.two_kinds", "steps.few_active", "steps.growing"):
        c.check("%s: no %s from one step" % (what, fid), finding(rep, fid) is None)
    c.check("%s: the GPU numbers are the plain step's" % what, us.gpu_numbers(rep) == us.gpu_numbers(rp),
            "%s vs %s" % (us.gpu_numbers(rep), us.gpu_numbers(rp)))


# --- xpu --------------------------------------------------------------------------------------

INTEL = {"id": 0, "name": "Intel(R) Data Center GPU Max 1550", "totalGlobalMem": 68719476736}
XPU_NAMES = {"cudaLaunchKernel": "urEnqueueKernelLaunch", "cudaMemcpyAsync": "urEnqueueUSMMemcpy",
             "cudaStreamSynchronize": "urQueueFinish"}


def as_xpu(doc):
    """The capture as Kineto's XPU plugin writes it (libkineto/src/plugin/xpupti): runtime calls
    under "xpu_runtime" with Unified Runtime names, device ops with a "sycl queue" (their tid)
    and a hex "context", copies named "Memcpy M2D", no CUDA occupancy calls."""
    out = []
    for e in doc["traceEvents"]:
        e = copy.deepcopy(e)
        if e.get("cat") == "cuda_runtime":
            if e["name"] not in XPU_NAMES:
                continue  # cudaOccupancy*: CUDA only
            e["cat"], e["name"] = "xpu_runtime", XPU_NAMES[e["name"]]
            e["args"].pop("cbid", None)
        elif e.get("cat") in ("kernel", "gpu_memcpy"):
            a = e["args"]
            for k in ("stream", "queued", "registers per thread", "shared memory", "blocks per SM",
                      "warps per SM", "grid", "block", "est. achieved occupancy %"):
                a.pop(k, None)
            a["context"] = "0x000055d0c1a4e2b0"
            a["sycl queue"] = 7
            a["l0 queue"] = "0x000055d0c1b7f100"
            if e["cat"] == "gpu_memcpy":
                e["name"] = "Memcpy M2D"
            else:
                e["name"] = e["name"].replace("at::native::", "at::native::xpu::")
        out.append(e)
    doc["traceEvents"] = out
    doc["deviceProperties"] = [dict(INTEL, id=0), dict(INTEL, id=1)]
    return doc


def check_xpu(c, cli, base, tmp):
    cuda = us.play(base, 20)
    rc = corpus_cli.report(cli, write(cuda, os.path.join(tmp, "cuda.json")))
    rep = corpus_cli.report(cli, write(as_xpu(copy.deepcopy(cuda)), os.path.join(tmp, "xpu.json")))
    what = "xpu"
    c.check("%s: the GPU numbers are the CUDA capture's" % what, us.gpu_numbers(rep) == us.gpu_numbers(rc),
            "%s vs %s" % (us.gpu_numbers(rep), us.gpu_numbers(rc)))
    copies = lambda r: (r.get("memory_ops") or {}).get("count")  # noqa: E731
    c.check("%s: every copy counted" % what, copies(rep) == copies(rc), "%s vs %s" % (copies(rep), copies(rc)))
    launches = lambda r: (r.get("launch_stats") or {}).get("launches")  # noqa: E731
    c.check("%s: every launch joined" % what, launches(rep) == launches(rc), "%s vs %s" % (launches(rep), launches(rc)))
    c.check("%s: the same findings" % what, corpus_cli.finding_ids(rep) == corpus_cli.finding_ids(rc),
            "%s vs %s" % (corpus_cli.finding_ids(rep), corpus_cli.finding_ids(rc)))
    for f in rep["findings"]:
        text = " ".join(str(f.get(k, "")) for k in ("fix", "fix_code", "meaning"))
        bad = [w for w in ("torch.cuda", "cudaMalloc", "CUDA graph", "Nsight", "cuda_") if w in text]
        c.check("%s: %s names nothing of CUDA" % (what, f["id"]), not bad, "%s: %s" % (bad, text))


# --- slow_host_rank ---------------------------------------------------------------------------

LOADER = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"
LOADER_US = 3000


def slow_host(world, slow, steps=4):
    """dist_shapes' DDP job, every rank computing alike; rank `slow` (None: none) waits
    LOADER_US for its batch at the start of each step, its host alone."""
    progs = ds.ddp(world, 4, steps, None, 1.0)
    if slow is not None:
        out = []
        for op in progs[slow]:
            out.append(op)
            if op[0] == "begin":
                out.append(("host", "user_annotation", LOADER, LOADER_US))
        progs[slow] = out
    return progs


def check_slow_host_rank(c, cli, base, tmp):
    world, slow, steps = 4, 2, 4
    _, paths = ds.write_shape(tmp, "slowhost", slow_host(world, slow, steps), lambda coll: 60, world)
    rep = corpus_cli.report(cli, paths)
    what = "slow_host_rank"
    f = fires(c, rep, "ranks.straggler", what)
    if f:
        ev = f["evidence"]
        c.check("%s: rank %d named, caused by data loading (%d us)" % (what, slow, steps * LOADER_US),
                ev.get("rank") == slow and str(ev.get("likely_cause", "")).startswith("data loading")
                and "DataLoader" in f.get("fix", ""), "%s / %s" % (ev, f.get("fix")))
    f = fires(c, rep, "ranks.dataloader_skew", what)
    if f:
        c.check("%s: the skew is rank %d's %d us" % (what, slow, steps * LOADER_US),
                f["evidence"].get("rank") == slow and f["evidence"].get("dataloader_us") == steps * LOADER_US,
                str(f["evidence"]))
    c.check("%s: no GPU blamed (no compute skew)" % what, finding(rep, "ranks.compute_skew") is None,
            str(corpus_cli.finding_ids(rep)))
    _, paths = ds.write_shape(tmp, "evenhost", slow_host(world, None, steps), lambda coll: 60, world)
    rep = corpus_cli.report(cli, paths)
    c.check("slow_host_rank even: no straggler, no skew",
            finding(rep, "ranks.straggler") is None and finding(rep, "ranks.dataloader_skew") is None,
            str(corpus_cli.finding_ids(rep)))


CHECKS = ("alloc_thrash", "fp32_gemm", "kv_growth", "heavy_one_step", "xpu", "slow_host_rank")


def main():
    args, c = corpus_cli.start(mm.TRACES, lambda ap: ap.add_argument(
        "--only", default="", help="comma-separated shapes to check (default: all): " + ", ".join(CHECKS)))
    if args is None:
        return 0
    base = mm.load(os.path.join(mm.TRACES, us.BASE))
    only = [x for x in args.only.split(",") if x] or CHECKS
    with tempfile.TemporaryDirectory() as tmp:
        for name in only:
            globals()["check_" + name](c, args.cli, base, tmp)
    print("unseen_shapes2: %d failure(s)" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
