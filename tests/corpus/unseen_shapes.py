#!/usr/bin/python3
"""Kineto shapes no other corpus script builds, played from a real capture so the truth is known
by construction: hta__step_based_trace (../shared/traces: a small MLP trained with SGD, one host
thread launching, the autograd thread launching the backward, a copy and a stream sync per
iteration). One steady iteration of it (from one Optimizer.zero_grad to the next: its host
events on both threads, the GPU ops of its launches, their flows) is the template; a capture is
that template played N times, one after the other, each copy with its own correlation, External
and flow ids and a ProfilerStep#i range over it.

  long_capture   240 steps, a host stall (a checkpoint or an eval: nothing the profiler names)
                 at the start of every 25th step from step 12, making it 3x the others. The
                 report must count 240 steps, call the step time unstable, name the slowest
                 step, and say that the slow steps are 10 and recur every 25 steps (before: it
                 named step 12 alone, as if one step were slow).
  clock_skew     20 steps with the GPU clock 10 us behind the CPU's (every GPU op 10 us
                 earlier), as on systems whose clocks Kineto did not align: ops whose launch
                 delay was under 10 us now start before their launch call began. The GPU's own
                 numbers (kernels, busy time) must not move, launch delays must not go
                 negative (no negative time anywhere in the report), and capture.clock_oddities
                 must count exactly the ops that start before their launch. A skew of 3 us
                 (ops start inside their launch call, before it returns: real, and not an
                 oddity) must raise nothing.
  torch_compile  the template as an Inductor-compiled step: every kernel a Triton kernel
                 (triton_poi_fused_*, triton_red_fused_*), launched with cuLaunchKernel
                 ("cat": "cuda_driver"), the forward in "Torch-Compiled Region" and
                 "CompiledFunction", the backward in "CompiledFunctionBackward" on the autograd
                 thread. Launches, kernels, steps and GPU busy must be the eager capture's.
  cuda_graph_steps  the template as a CUDA-graph-captured step: one cudaGraphLaunch per step
                 whose correlation every kernel of the step shares (with "graph id"/"graph node
                 id" args). Kernels, GPU busy and steps as eager; launches one per step (and per
                 copy), the rest graph ops; the eager capture is launch-bound, the graphed one
                 is not (its kernels pay no launch each).
  memory         profile_memory=True on an OOM-shaped run: 10 GiB held before the capture,
                 activations allocated and freed in each step, and 256 MiB kept after every
                 step (a leak) until the 16 GB GPU is 97% full. memory.peak_high must give the
                 peak, and memory.grows_per_step the leak: 256 MiB per step over 20 steps, and
                 how many more steps fit (before: nothing said the memory grows every step).
                 The same run without the leak raises neither.

  newer_kinds    20 steps as PyTorch 2.5-2.8 writes them, every newer kind in one file
                 (docs/kineto-versions.md, "All of it in one file"): cuLaunchKernelEx launches,
                 python_function frames, shape args, Ev Idx, cuda_sync slices, window markers,
                 distributedInfo, new deviceProperties fields, ts relative to
                 baseTimeNanoseconds. Everything the GPU did, the steps, launches, top kernels
                 and findings must be the eager capture's, plus capture.diagnostic_flags.
  inference_server  40 steps of a serving loop (no ProfilerStep, no optimizer): each an
                 "execute_model" (or "LLMEngine.step") range; 8 of them, the first among them,
                 prefill steps doing 4 templates' GPU work, the rest decode steps of tiny
                 kernels. The steps come from the range; steps.two_kinds names the 8 long and
                 32 short steps, their medians and the 4x GPU work; no steps.unstable and no
                 warm-up step (before: "First captured step execute_model #0 is 4.0x slower",
                 and "Step time varies ... CV 75.8%"). The same loop with host stalls in those
                 steps (same GPU work) is unstable, not two kinds.
  two_gpus       10 steps of a model split over two GPUs in one process: the main thread runs
                 the first half on device 0, a peer copy ("Memcpy PtoP") to device 1, the
                 second half on device 1 and a "Memcpy DtoD" there. Each device's busy time and
                 idle share (JSON gpu.devices; before: in the text only), its kernels, every
                 copy once, the PtoP row, GPU busy as any device busy.
  pipeline_groups  4 ranks of dist_shapes' GPipe pipeline, send/recv without peer args, a
                 world all_reduce (group 0) and Megatron's embedding group 5 of the first and
                 last stage, each collective with "Process Group Ranks". When the last stage
                 skips group 5's all_reduce, ranks.group_member_silent names rank 3, group 5,
                 its members and the 2 collectives (before: nothing; the group was compared on
                 rank 0 alone and dropped). When it joins, or without the ranks args, nothing.
                 A stage computing 1.5x as long (stage 2, 0 or 3; send/recv with and without
                 their peers) is named by ranks.slow_pipeline_stage with its compute per step
                 and the others' median, and not also by ranks.compute_skew (before: that alone,
                 with a GPU's fix, not the pipeline's split); the stages alike name nothing.
  user_steps     20 ProfilerStep#N steps with the program's own record_function("train_step")
                 range in each (oumi-ai/oumi#333 annotates steps and micro-steps so), nested, or
                 straddling them (prof.step() called inside the range: the two overlap without
                 nesting). The steps, their times and the findings are the plain capture's; the
                 user's range is no second step source. (Right before this session too.)
  grad_accum     10 optimizer steps of 4 micro-batches each (gradient accumulation: zero_grad in
                 the first, the optimizer step in the last, a "micro_step" range over each), under
                 ProfilerStep#N ranges, or under "train_step" ranges without them: 10 steps of 4
                 micro-batches' length, never 40, every kernel, no unstable or two-kind steps.
                 (Right before this session too.)
  pipeline_replicas  2 replicas of a 2-stage pipeline (PP x DP: send/recv within a replica, each
                 stage's all_reduce with its twin), stage 1 (or 0) 1.5x slow in both: one
                 ranks.slow_pipeline_stage names the slowest, slow_ranks both, and neither is
                 also a ranks.compute_skew (before: the twin was a compute skew).
  fsdp           dist_shapes' 4-rank FSDP job over a fast (250 us a collective) and a slow (1.5 ms)
                 network: where a rank's report says its communication is heavy or exposed, the
                 fix is FSDP's (prefetch, larger wrapped blocks, reshard_after_forward, HSDP),
                 never DDP's buckets (before: "larger buckets" on every rank).
  moe            4 ranks of expert parallelism (dist_shapes' player): per layer an all_to_all to
                 the experts and one back, on the compute stream; rank 1's expert gets 2x the
                 tokens (databricks/megablocks#100). Balanced: nothing. Imbalanced: rank 1 is the
                 straggler, caused by compute, and the fix says to balance the experts' load
                 (before: "sequence lengths, load imbalance" or a throttled GPU); the
                 all-to-alls are no sends and receives (no slow pipeline stage).
  cpu_offload    20 steps with the optimizer offloaded to the CPU (torchao's CPUOffloadOptimizer,
                 DeepSpeed's ZeRO-Offload; pytorch/ao#584): each gradient copied to pinned host
                 memory with non_blocking=True (4 MiB "Memcpy DtoH (Device -> Pinned)" on a side
                 stream), Adam on the CPU, the parameters copied back. When no call waits for
                 the copies (the main thread loads the next batch meanwhile) they are no sync
                 (no sync.dtoh_in_step) and no pageable copy; every copy is counted. When a
                 cudaStreamSynchronize waits for them, sync.dtoh_in_step counts 60 copies of
                 4 MiB (evidence bytes_per_copy) and reads them as tensors moved to the host, an
                 offload, with the fix to overlap them with the backward and wait once (before:
                 the .item() advice, "keep values on the GPU ... loss.item()").

Usage: /usr/bin/python3 tests/corpus/unseen_shapes.py --cli build/native/kinetoscope [-v] [--only a,b]
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import dist_shapes as ds  # noqa: E402
import metamorphic as mm  # noqa: E402
from planted_shapes import union_us  # noqa: E402
from planted import finding, fires, write  # noqa: E402

BASE = "hta__step_based_trace_2543932.json.gz"
ID_STRIDE = 1000000  # each copy's ids: the template's + i * ID_STRIDE (the template's are < 10^6 apart)
GPU_PID = 0
STALL_EVERY, STALL_FIRST, STALL_X = 25, 12, 2  # the stall: STALL_X template lengths


def template(doc):
    """The second iteration (a steady one): (events, start, length, host pid, host tid)."""
    ev = doc["traceEvents"]
    zg = sorted((int(mm.dec(e["ts"])), e["pid"], e["tid"]) for e in ev
                if e.get("cat") == "user_annotation" and str(e.get("name")).startswith("Optimizer.zero_grad"))
    (a, pid, tid), (b, _, _) = zg[1], zg[2]
    host = [e for e in ev if e.get("ph") == "X" and e.get("pid") == pid and a <= mm.dec(e["ts"]) < b]
    corr = {e["args"]["correlation"] for e in host if "correlation" in e.get("args", {})}
    ext = {e["args"].get("External id") for e in host if isinstance(e.get("args"), dict)}
    gpu = [e for e in ev if e.get("ph") == "X" and e.get("pid") == GPU_PID and isinstance(e.get("args"), dict)
           and (e["args"].get("correlation") in corr
                or (e.get("cat") == "gpu_user_annotation" and e["args"].get("External id") in ext))]
    flows = [e for e in ev if e.get("cat") == "ac2g" and e.get("id") in corr]
    return host + gpu + flows, a, b - a, pid, tid


def play(doc, steps, stall_steps=(), gpu_shift=0, edit=None, copies=None, marker="ProfilerStep#%d",
         marker_cat="user_annotation"):
    """The template played `steps` times from its own start; a stall of STALL_X template lengths
    opens each step in stall_steps (the step's range covers it; every later event moves by it).
    GPU ops move by gpu_shift (us, a GPU clock behind the CPU's when negative). `copies[i]`
    plays step i as that many templates one after the other (a long step doing that much more
    work); `marker` names each step's range ("%d" its number; None: no range)."""
    events, t0, length, pid, tid = template(doc)
    if edit:
        events = edit(copy.deepcopy(events))
        if isinstance(events, tuple):  # an edit that makes the template longer says how long
            events, length = events
    out = [e for e in doc["traceEvents"] if e.get("ph") == "M"]
    at, n = 0, 0
    for i in range(steps):
        stall = STALL_X * length if i in stall_steps else 0
        k = copies[i] if copies else 1
        if marker:
            out.append({"ph": "X", "cat": marker_cat, "name": marker % i if "%d" in marker else marker,
                        "pid": pid, "tid": tid, "ts": t0 + at, "dur": k * length + stall,
                        "args": {"External id": 900000 + i}})
        for j in range(k):
            n += 1
            for e in events:
                c = copy.deepcopy(e)
                c["ts"] = (mm.dec(e["ts"]) + at + stall + j * length
                           + (gpu_shift if e.get("pid") == GPU_PID else 0))
                if "id" in c:
                    c["id"] = e["id"] + n * ID_STRIDE
                a = c.get("args")
                if isinstance(a, dict):
                    for key in ("correlation", "External id"):
                        if isinstance(a.get(key), int) and a[key] > 0:
                            a[key] += n * ID_STRIDE
                    a.pop("Ev Idx", None)
                out.append(c)
        at += k * length + stall
    d = {k: v for k, v in doc.items() if k != "traceEvents"}
    d["traceEvents"] = out
    return d


def launch_truth(doc):
    """(launches that have a GPU op, GPU ops that start before their launch call began)."""
    launch = {e["args"]["correlation"]: mm.dec(e["ts"]) for e in doc["traceEvents"]
              if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    ops = [e for e in doc["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    before = sum(1 for e in ops if mm.dec(e["ts"]) < launch[e["args"]["correlation"]])
    return len(ops), before


def negatives(node, path=""):
    """Every number under a key ending in _us (or a latency/gap/delay) that is below zero."""
    out = []
    if isinstance(node, dict):
        for k, v in node.items():
            p = path + "." + k
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v < 0 and (
                    k.endswith("_us") or any(w in k for w in ("delay", "gap", "latency", "len"))):
                if not k.endswith("start_us"):  # a capture that starts before its zero
                    out.append((p, v))
            else:
                out += negatives(v, p)
    elif isinstance(node, list):
        for i, v in enumerate(node[:2000]):
            out += negatives(v, "%s[%d]" % (path, i))
    return out


def gpu_numbers(rep):
    """What the GPU did, which no CPU clock changes."""
    k = rep["kernels"]
    return {"kernels": k.get("count"), "kernel_us": round(k.get("total_us", 0), 3),
            "busy_us": round(rep["gpu"].get("busy_us", 0), 3), "steps": rep["steps"].get("count")}


def check_long_capture(c, cli, base, tmp):
    steps = 240
    slow = [i for i in range(steps) if i % STALL_EVERY == STALL_FIRST]
    rep = corpus_cli.report(cli, write(play(base, steps, slow), os.path.join(tmp, "long.json")))
    st = rep["steps"]
    c.check("long_capture: 240 steps", st.get("count") == steps, str(st.get("count")))
    f = fires(c, rep, "steps.unstable", "long_capture")
    if f is None:
        return
    ev = f["evidence"]
    c.check("long_capture: slowest step is a stalled one", ev.get("slowest_step") in slow,
            str(ev.get("slowest_step")))
    c.check("long_capture: %d slow steps counted" % len(slow), ev.get("slow_steps") == len(slow),
            str(ev.get("slow_steps")))
    c.check("long_capture: slow every %d steps" % STALL_EVERY, ev.get("slow_every") == STALL_EVERY,
            str(ev.get("slow_every")))
    c.check("long_capture: the title says the period", "every %d steps" % STALL_EVERY in f["title"],
            f["title"])
    c.check("long_capture: no warm-up step", finding(rep, "steps.warmup_in_window") is None)
    # The same capture without stalls: steady, nothing to say about the steps.
    steady = corpus_cli.report(cli, write(play(base, steps), os.path.join(tmp, "steady.json")))
    c.check("long_capture steady: no steps.unstable", finding(steady, "steps.unstable") is None)
    # One stalled step alone is not periodic: no period claimed.
    one = corpus_cli.report(cli, write(play(base, 60, [30]), os.path.join(tmp, "one.json")))
    f1 = finding(one, "steps.unstable")
    c.check("long_capture one stall: step 30 named, no period",
            f1 is not None and f1["evidence"].get("slowest_step") == 30
            and "slow_every" not in f1["evidence"], str(f1 and f1["evidence"]))


def check_clock_skew(c, cli, base, tmp):
    steps = 20
    plain_doc = play(base, steps)
    plain = corpus_cli.report(cli, write(plain_doc, os.path.join(tmp, "plain.json")))
    c.check("clock_skew unskewed: no clock finding", finding(plain, "capture.clock_oddities") is None)
    for skew in (3, 10):
        doc = play(base, steps, gpu_shift=-skew)
        ops, before = launch_truth(doc)
        what = "clock_skew %d us" % skew
        rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "skew%d.json" % skew)))
        c.check("%s: GPU numbers unchanged" % what, gpu_numbers(rep) == gpu_numbers(plain),
                "%s vs %s" % (gpu_numbers(rep), gpu_numbers(plain)))
        neg = negatives(rep)
        c.check("%s: no negative time in the report" % what, not neg, str(neg[:5]))
        ls = rep.get("launch_stats", {})
        c.check("%s: launches %d" % (what, ops), ls.get("launches") == ops, str(ls.get("launches")))
        c.check("%s: %d ops before their launch" % (what, before), ls.get("before_launch") == before,
                str(ls.get("before_launch")))
        f = finding(rep, "capture.clock_oddities")
        if before:
            c.check("%s: clock_oddities counts them" % what,
                    f is not None and f["evidence"].get("ops_before_launch") == before,
                    str(f and f["evidence"]))
        else:
            c.check("%s: ops inside their launch call are no oddity" % what, f is None)


TRITON = ("triton_poi_fused_add_mul_%d", "triton_red_fused_sum_%d")


def compiled(events):
    """The template as torch.compile runs it (see the head)."""
    launches = {}
    for e in events:
        if e.get("cat") == "cuda_runtime" and e.get("name") == "cudaLaunchKernel":
            e["cat"], e["name"] = "cuda_driver", "cuLaunchKernel"
            launches[e["args"]["correlation"]] = e
    n = 0
    for e in events:
        if e.get("cat") == "kernel":
            e["name"] = TRITON[n % 2] % n
            n += 1
    host = [e for e in events if e.get("ph") == "X" and e.get("pid") != GPU_PID]
    by_tid = {}
    for e in host:
        by_tid.setdefault(e["tid"], []).append(e)
    extra = []
    for tid, evs in by_tid.items():
        b = min(mm.dec(e["ts"]) for e in evs)
        end = max(mm.dec(e["ts"]) + mm.dec(e.get("dur", 0)) for e in evs)
        names = ["CompiledFunctionBackward"] if tid != host[0]["tid"] and len(by_tid) > 1 else \
            ["Torch-Compiled Region", "CompiledFunction"]
        for k, name in enumerate(names):
            extra.append({"ph": "X", "cat": "cpu_op" if name.startswith("Compiled") else "user_annotation",
                          "name": name, "pid": evs[0]["pid"], "tid": tid, "ts": b - 2 + k, "dur": end - b + 4 - 2 * k,
                          "args": {"External id": 800000 + len(extra)}})
    return extra + events


def check_torch_compile(c, cli, base, tmp):
    steps = 20
    eager = corpus_cli.report(cli, write(play(base, steps), os.path.join(tmp, "eager.json")))
    doc = play(base, steps, edit=compiled)
    rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "compiled.json")))
    c.check("torch_compile: kernels, busy and steps as eager", gpu_numbers(rep) == gpu_numbers(eager),
            "%s vs %s" % (gpu_numbers(rep), gpu_numbers(eager)))
    le, lc = eager.get("launch_stats", {}), rep.get("launch_stats", {})
    c.check("torch_compile: launches as eager", lc.get("launches") == le.get("launches"),
            "%s vs %s" % (lc.get("launches"), le.get("launches")))
    apis = {a.get("name"): a.get("launches") for a in lc.get("apis", [])}
    eager_kernels = {a.get("name"): a.get("launches") for a in le.get("apis", [])}.get("cudaLaunchKernel")
    c.check("torch_compile: cuLaunchKernel launches every kernel", apis.get("cuLaunchKernel") == eager_kernels,
            str(apis))
    c.check("torch_compile: no launch on the runtime's cudaLaunchKernel", "cudaLaunchKernel" not in apis, str(apis))
    neg = negatives(rep)
    c.check("torch_compile: no negative time in the report", not neg, str(neg[:5]))
    ids = set(corpus_cli.finding_ids(rep))
    c.check("torch_compile: no capture mistake the eager capture lacks",
            {i for i in ids if i.startswith("capture.")} <= set(corpus_cli.finding_ids(eager)),
            str(sorted(ids)))


def graphed(events):
    """The template as a CUDA-graph-captured step (torch.cuda.graphs, whole-step capture): the
    step's first kernel launch on the launching thread becomes its cudaGraphLaunch, the other
    kernel launches (both threads') and their flow starts go, and every kernel carries the
    graph launch's correlation and, as PyTorch 2.5+ writes them, "graph id"/"graph node id"."""
    host = [e for e in events if e.get("ph") == "X" and e.get("pid") != GPU_PID]
    main_tid = min(host, key=lambda e: mm.dec(e["ts"]))["tid"]
    kl = sorted((e for e in host if e.get("name") == "cudaLaunchKernel"), key=lambda e: mm.dec(e["ts"]))
    first = next(e for e in kl if e["tid"] == main_tid)
    first["name"] = "cudaGraphLaunch"
    g = first["args"]["correlation"]
    gone = {e["args"]["correlation"] for e in kl if e is not first}
    out = []
    node = 0
    for e in events:
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        if e.get("name") == "cudaLaunchKernel" and a.get("correlation") in gone:
            continue
        if e.get("cat") == "ac2g" and e.get("id") in gone:
            if e.get("ph") == "s":
                continue
            e["id"] = g
        if e.get("cat") == "kernel":
            a["correlation"] = a["External id"] = g
            node += 1
            a["graph id"], a["graph node id"] = 1, node
        out.append(e)
    return out


def check_cuda_graph_steps(c, cli, base, tmp):
    steps = 20
    eager = corpus_cli.report(cli, write(play(base, steps), os.path.join(tmp, "eager.json")))
    doc = play(base, steps, edit=graphed)
    kernels = sum(1 for e in doc["traceEvents"] if e.get("cat") == "kernel")
    copies = sum(1 for e in doc["traceEvents"] if e.get("cat") == "gpu_memcpy")
    path = write(doc, os.path.join(tmp, "graphed.json"))
    rep = corpus_cli.report(cli, path)
    text = subprocess.run([cli, "report", path], capture_output=True, text=True).stdout
    c.check("cuda_graph_steps: kernels, busy and steps as eager", gpu_numbers(rep) == gpu_numbers(eager),
            "%s vs %s" % (gpu_numbers(rep), gpu_numbers(eager)))
    ls = rep.get("launch_stats", {})
    c.check("cuda_graph_steps: one launch per step and per copy (%d)" % (steps + copies),
            ls.get("launches") == steps + copies, str(ls.get("launches")))
    want = "%d more GPU ops started by the same launches" % (kernels - steps)
    c.check("cuda_graph_steps: the other %d kernels are graph ops" % (kernels - steps),
            ls.get("graph_ops") == kernels - steps and want in text,
            "JSON graph_ops %s; %s" % (ls.get("graph_ops"),
                                       next((x for x in text.splitlines() if x.strip().startswith("Launches:")), "")))
    c.check("cuda_graph_steps: eager has no graph ops", eager.get("launch_stats", {}).get("graph_ops") == 0,
            str(eager.get("launch_stats", {}).get("graph_ops")))
    c.check("cuda_graph_steps: eager is launch-bound", finding(eager, "kernels.launch_bound") is not None)
    c.check("cuda_graph_steps: graphed kernels pay no launch: no kernels.launch_bound",
            finding(rep, "kernels.launch_bound") is None, str(corpus_cli.finding_ids(rep)))
    neg = negatives(rep)
    c.check("cuda_graph_steps: no negative time in the report", not neg, str(neg[:5]))


MIB = 1 << 20
ACTIVATIONS, ACTIVATION_BYTES = 8, 64 * MIB  # allocated in the forward, freed in the backward
BEFORE = 10 << 30  # held before the capture (weights, optimizer state, the allocator's cache)


def add_memory(doc, leak):
    """profile_memory=True: [memory] instants on the launching thread, as the caching allocator
    reports them ("Total Allocated" after each event). Each step allocates ACTIVATIONS tensors
    in its first half and frees them in its second, and keeps `leak` bytes to its end and
    beyond (a loss kept with its graph, a list that grows): the OOM-shaped run."""
    steps = sorted((mm.dec(e["ts"]), mm.dec(e["dur"]), e["pid"], e["tid"]) for e in doc["traceEvents"]
                   if str(e.get("name", "")).startswith("ProfilerStep#"))
    total, n, ev = BEFORE, 0, []

    def mem(ts, pid, tid, size):
        nonlocal total, n
        total += size
        n += 1
        ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": pid,
                   "tid": tid, "ts": ts, "args": {"Total Reserved": (total // (2 * MIB) + 1) * 2 * MIB,
                                                  "Total Allocated": total, "Bytes": size,
                                                  "Addr": 140000000000000 + 4096 * n, "Device Id": 0,
                                                  "Device Type": 1}})
    for ts, dur, pid, tid in steps:
        for k in range(ACTIVATIONS):
            mem(ts + 10 + k, pid, tid, ACTIVATION_BYTES)
        for k in range(ACTIVATIONS):
            mem(ts + dur / 2 + k, pid, tid, -ACTIVATION_BYTES)
        if leak:
            mem(ts + dur - 5, pid, tid, leak)
    doc["traceEvents"] += ev
    return total + ACTIVATIONS * ACTIVATION_BYTES - leak if leak else BEFORE + ACTIVATIONS * ACTIVATION_BYTES


def check_memory(c, cli, base, tmp):
    steps, leak = 20, 256 * MIB
    device = int(base["deviceProperties"][0]["totalGlobalMem"])
    doc = play(base, steps)
    peak = add_memory(doc, leak)  # the last step's activations on top of 19 steps' leaks
    rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "leak.json")))
    f = fires(c, rep, "memory.peak_high", "memory leak")
    if f:
        c.check("memory leak: peak %d bytes" % peak, f["evidence"].get("peak_allocated_bytes") == peak,
                str(f["evidence"]))
    g = fires(c, rep, "memory.grows_per_step", "memory leak")
    if g:
        e = g["evidence"]
        c.check("memory leak: %d bytes more after every step" % leak, e.get("growth_per_step_bytes") == leak, str(e))
        c.check("memory leak: over %d steps" % steps, e.get("steps") == steps, str(e))
        left = (device - peak) // leak
        c.check("memory leak: full in about %d more steps" % left, e.get("steps_to_full") == left, str(e))
    flat_doc = play(base, steps)
    add_memory(flat_doc, 0)
    flat = corpus_cli.report(cli, write(flat_doc, os.path.join(tmp, "flat.json")))
    c.check("memory flat: no memory.grows_per_step", finding(flat, "memory.grows_per_step") is None,
            str(corpus_cli.finding_ids(flat)))
    c.check("memory flat: no memory.peak_high", finding(flat, "memory.peak_high") is None)


def step_ranges_of(doc, name="ProfilerStep#"):
    return sorted((mm.dec(e["ts"]), mm.dec(e["dur"]), e["pid"], e["tid"]) for e in doc["traceEvents"]
                  if e.get("ph") == "X" and str(e.get("name", "")).startswith(name))


def add_user_steps(doc, straddle):
    """A record_function("train_step") range per step beside the ProfilerStep#N ranges, as
    training loops annotate their steps (oumi-ai/oumi#333: a range per step and micro-step).
    Nested: each inside its ProfilerStep (prof.step() after the range closes). `straddle`: the
    loop calls prof.step() inside its range, so each train_step begins 10 us before its
    ProfilerStep and ends 10 us before the next one begins: the two overlap without nesting."""
    shift = 10 if straddle else 0
    for k, (ts, dur, pid, tid) in enumerate(step_ranges_of(doc)):
        doc["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": "train_step", "pid": pid,
                                   "tid": tid, "ts": ts - shift, "dur": dur - (0 if straddle else 5),
                                   "args": {"External id": 950000 + k}})
    return doc


def check_user_steps(c, cli, base, tmp):
    steps = 20
    eager_doc = play(base, steps)
    eager = corpus_cli.report(cli, write(eager_doc, os.path.join(tmp, "eager.json")))
    want = [d for _, d, _, _ in step_ranges_of(eager_doc)]
    for straddle in (False, True):
        what = "user_steps%s" % (" (prof.step() inside train_step)" if straddle else "")
        rep = corpus_cli.report(cli, write(add_user_steps(play(base, steps), straddle),
                                           os.path.join(tmp, "user%d.json" % straddle)))
        st = rep["steps"]
        # No "source": the steps are ProfilerStep's (docs/report-schema.md, steps).
        c.check("%s: %d steps from ProfilerStep" % (what, steps), st.get("count") == steps
                and "source" not in st, "%s %s" % (st.get("count"), st.get("source")))
        c.check("%s: the ProfilerStep times" % what, [r["dur_us"] for r in st.get("rows", [])] == want,
                str([r["dur_us"] for r in st.get("rows", [])][:5]))
        c.check("%s: GPU numbers as without the ranges" % what, gpu_numbers(rep) == gpu_numbers(eager),
                "%s vs %s" % (gpu_numbers(rep), gpu_numbers(eager)))
        new = set(corpus_cli.finding_ids(rep)) - set(corpus_cli.finding_ids(eager))
        c.check("%s: no finding the plain capture lacks" % what, not new,
                str([(f["id"], f["title"]) for f in rep["findings"] if f["id"] in new]))
        neg = negatives(rep)
        c.check("%s: no negative time in the report" % what, not neg, str(neg[:5]))
        if "-v" in sys.argv:
            print(json.dumps({"steps": {k: v for k, v in st.items() if k != "rows"},
                              "diagnostics": rep.get("diagnostics")}, indent=1)[:3000])


ACCUM = 4  # micro-batches per optimizer step


def grad_accumulation(doc, steps, markers):
    """Gradient accumulation from the template played steps x ACCUM times: each micro-batch a
    forward and backward in a record_function("micro_step") range; zero_grad only in the first
    micro-batch of a step and the optimizer step only in the last (the other copies lose those
    ranges, their launches, kernels and flows). `markers`: a ProfilerStep#N range over each
    step's micro-batches; else a record_function("train_step") range over them."""
    _, t0, length, pid, tid = template(doc)
    out = play(doc, steps * ACCUM, marker=None)
    ev = out["traceEvents"]
    drop_ext, drop_corr = set(), set()
    for e in ev:
        n = str(e.get("name", ""))
        if e.get("cat") != "user_annotation" or not n.startswith(("Optimizer.step", "Optimizer.zero_grad")):
            continue
        k = int((mm.dec(e["ts"]) - t0) // length)
        if (n.startswith("Optimizer.step") and k % ACCUM != ACCUM - 1) or \
                (n.startswith("Optimizer.zero_grad") and k % ACCUM != 0):
            b, d = mm.dec(e["ts"]), mm.dec(e["dur"])
            drop_ext.add(e["args"]["External id"])
            drop_corr |= {x["args"]["correlation"] for x in ev if x.get("cat") == "cuda_runtime"
                          and x["tid"] == tid and b <= mm.dec(x["ts"]) < b + d}
    keep = []
    for e in ev:
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        if e.get("cat") in ("user_annotation", "gpu_user_annotation") and a.get("External id") in drop_ext:
            continue
        if a.get("correlation") in drop_corr or (e.get("cat") == "ac2g" and e.get("id") in drop_corr):
            continue
        keep.append(e)
    for i in range(steps * ACCUM):
        keep.append({"ph": "X", "cat": "user_annotation", "name": "micro_step", "pid": pid, "tid": tid,
                     "ts": t0 + i * length, "dur": length - 5, "args": {"External id": 960000 + i}})
    for s in range(steps):
        keep.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % s if markers else "train_step",
                     "pid": pid, "tid": tid, "ts": t0 + s * ACCUM * length, "dur": ACCUM * length,
                     "args": {"External id": 970000 + s}})
    out["traceEvents"] = keep
    return out, len(drop_corr)


def check_grad_accum(c, cli, base, tmp):
    steps = 10
    for markers in (True, False):
        what = "grad_accum%s" % ("" if markers else " (train_step ranges, no ProfilerStep)")
        doc, dropped = grad_accumulation(base, steps, markers)
        kernels = sum(1 for e in doc["traceEvents"] if e.get("cat") == "kernel")
        rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "accum%d.json" % markers)))
        st = rep["steps"]
        c.check("%s: %d steps, one per optimizer step (not %d micro-batches)" % (what, steps, steps * ACCUM),
                st.get("count") == steps, "%s %s" % (st.get("count"), st.get("source")))
        length = template(base)[2]
        c.check("%s: each step %d micro-batches long" % (what, ACCUM),
                all(abs(r["dur_us"] - ACCUM * length) < 0.01 for r in st.get("rows", [])),
                str([r["dur_us"] for r in st.get("rows", [])][:5]))
        c.check("%s: every kernel (%d)" % (what, kernels), rep["kernels"].get("count") == kernels,
                str(rep["kernels"].get("count")))
        for fid in ("steps.unstable", "steps.two_kinds", "steps.warmup_in_window"):
            c.check("%s: no %s" % (what, fid), finding(rep, fid) is None, (finding(rep, fid) or {}).get("title", ""))
        if "-v" in sys.argv:
            print(what, dropped, [(f["id"], f["title"]) for f in rep["findings"]])


def moe(world, layers, steps, hot, factor):
    """Expert parallelism (one expert per rank): each layer's attention, an all_to_all sending
    the tokens to their experts, the expert's MLP, an all_to_all bringing them back; the
    backward the other way; a dense all_reduce. All on the compute stream, as an all-to-all
    blocks the layer. The router sends rank `hot`'s expert `factor` times the tokens of the
    others (its expert MLP runs that much longer: the imbalance databricks/megablocks#100
    describes, "one GPU would receive all the work"): the others wait for it in the
    all-to-alls that bring the tokens back."""
    members = list(range(world))
    progs = []
    for r in range(world):
        f = factor if r == hot else 1.0
        p = []
        for s in range(steps):
            p.append(("begin", "user_annotation", "ProfilerStep#%d" % (s + 1)))
            for i in range(layers):
                p.append(("k", "attn", 300, ds.COMPUTE_STREAM))
                p.append(("c", "all_to_all", ds.COMPUTE_STREAM, "pg 1", members, 1 << 18))
                p.append(("k", "expert", 400 * f, ds.COMPUTE_STREAM))
                p.append(("c", "all_to_all", ds.COMPUTE_STREAM, "pg 1", members, 1 << 18))
            for i in range(layers):
                p.append(("c", "all_to_all", ds.COMPUTE_STREAM, "pg 1", members, 1 << 18))
                p.append(("k", "expert_bwd", 800 * f, ds.COMPUTE_STREAM))
                p.append(("c", "all_to_all", ds.COMPUTE_STREAM, "pg 1", members, 1 << 18))
                p.append(("k", "attn_bwd", 600, ds.COMPUTE_STREAM))
            p.append(("c", "all_reduce", ds.COMPUTE_STREAM, "pg 0", members, 1 << 22))
            p.append(("k", "opt", 100, ds.COMPUTE_STREAM))
            p.append(("sync",))
            p.append(("end",))
        progs.append(p)
    return progs


def check_fsdp(c, cli, base, tmp):
    """dist_shapes' FSDP job (all_gather before each layer's forward and backward, prefetching
    the next, reduce_scatter after its backward on a stream of its own) over a fast network
    (250 us a collective: overlapped) and a slow one (1.5 ms: each layer waits for its
    all-gather). Where a rank's report says its communication is exposed or heavy, the fix is
    FSDP's (prefetch, larger wrapped blocks, reshard_after_forward, HSDP), never DDP's buckets
    (before: "larger buckets", DistributedDataParallel(bucket_cap_mb=25))."""
    world = 4
    for xfer in (250, 1500):
        what = "fsdp (%d us a collective)" % xfer
        ranks, paths = ds.write_shape(tmp, "fsdp%d" % xfer, ds.fsdp(world, 6, 3), lambda coll: xfer, world)
        rep = corpus_cli.report(cli, paths)
        said = [(r["rank"], f) for r, rr in zip(rep["ranks"], rep["reports"])
                for f in rr["findings"] if f["id"] in ("comm.not_overlapped", "comm.heavy")]
        if "-v" in sys.argv:
            print(what, [(r, f["id"], f["title"]) for r, f in said])
        if xfer > 250:
            c.check("%s: the exposed all-gathers are said" % what, len(said) > 0, str(said))
        for r, f in said:
            c.check("%s rank %d: %s gives FSDP's fix, not DDP's" % (what, r, f["id"]),
                    "all-gather" in f["fix"] and "bucket" not in f["fix"] + f.get("fix_code", "")
                    and "DistributedDataParallel" not in f["fix"] + f.get("fix_code", ""),
                    f["fix"] + " | " + f.get("fix_code", ""))


def write_moe(tmp, factor=2.0):
    """The imbalanced moe shape check_moe checks, for tests/fleet: its rank files."""
    return ds.write_shape(tmp, "moe%d" % factor, moe(4, 4, 3, 1, factor), lambda coll: 80, 4)[1]


def check_moe(c, cli, base, tmp):
    world, hot = 4, 1
    for factor in (1.0, 2.0):
        what = "moe%s" % ("" if factor == 1.0 else " (rank %d's expert %.0fx the tokens)" % (hot, factor))
        ranks, paths = ds.write_shape(tmp, "moe%d" % factor, moe(world, 4, 3, hot, factor), lambda coll: 80,
                                      world)
        rep = corpus_cli.report(cli, paths)
        if "-v" in sys.argv:
            print(what, [(f["id"], f["title"], f["evidence"].get("likely_cause")) for f in rep["findings"]])
        c.check("%s: no collective mismatch" % what, finding(rep, "ranks.collective_mismatch") is None,
                (finding(rep, "ranks.collective_mismatch") or {}).get("title", ""))
        c.check("%s: all-to-alls are no pipeline's sends and receives" % what,
                finding(rep, "ranks.slow_pipeline_stage") is None and rep["collectives"].get("p2p_unmatched") == 0,
                str(rep["collectives"].get("p2p_unmatched")))
        f = finding(rep, "ranks.straggler")
        if factor == 1.0:
            c.check("%s: balanced, no straggler" % what, f is None, (f or {}).get("title", ""))
            continue
        c.check("%s: the hot expert's rank %d is the straggler" % (what, hot),
                f is not None and ("Rank %d " % hot) in f["title"], (f or {}).get("title", "none"))
        if f:
            c.check("%s: its cause is compute" % what, str(f["evidence"].get("likely_cause")).startswith("compute"),
                    str(f["evidence"].get("likely_cause")))
            c.check("%s: the fix says the experts' load, all-to-all" % what,
                    "expert" in f["fix"] and "load" in f["fix"], f["fix"])


MIB_COPY = 4 * MIB  # one gradient or parameter moved to or from the host
COPY_US = 170  # 4 MiB over PCIe at about 25 GB/s
OFFLOAD_STREAM = 20
OFFLOADED = 3  # parameters (and their gradients) that live on the host


def offloaded_optimizer(waited):
    """An edit of the template (play's `edit`): the optimizer offloaded to the CPU, as torchao's
    CPUOffloadOptimizer and DeepSpeed's ZeRO-Offload run it (pytorch/ao#584). The GPU's SGD step
    goes; after the backward the main thread copies each gradient to pinned host memory
    (.to("cpu", non_blocking=True): aten::to > aten::_to_copy > aten::copy_ >
    cudaMemcpyAsync, "Memcpy DtoH (Device -> Pinned)" on a side stream), runs Adam on the CPU
    (an Optimizer.step#Adam.step range with no GPU work) and copies the parameters back
    (non_blocking, "Memcpy HtoD (Pinned -> Device)"), all after the template's own host work.
    `waited`: a cudaStreamSynchronize right
    after the gradients' copies waits for them (the CPU needs them: torchao calls
    torch.cuda.synchronize() there); else the main thread does 600 us of other host work (the
    next batch) first, so the copies have ended when it synchronizes and it waits for nothing."""
    def edit(events):
        _, a, length, pid, tid = TEMPLATE_INFO
        b0, b1 = [(mm.dec(e["ts"]), mm.dec(e["ts"]) + mm.dec(e["dur"])) for e in events
                  if e.get("cat") == "user_annotation" and e["name"].startswith("Optimizer.step")][0]
        gone = {e["args"]["correlation"] for e in events if e.get("cat") == "cuda_runtime"
                and e["tid"] == tid and b0 <= mm.dec(e["ts"]) < b1}
        out = [e for e in events if not e.get("name", "").startswith("Optimizer.step")
               and not (isinstance(e.get("args"), dict) and e["args"].get("correlation") in gone)
               and not (e.get("cat") == "ac2g" and e.get("id") in gone)]
        corr = [870001]

        def copy_op(ts, name, nbytes, gpu_free):
            c = corr[0]
            corr[0] += 1
            start = max(ts + 10, gpu_free)
            out.extend([
                {"ph": "X", "cat": "cpu_op", "name": "aten::to", "pid": pid, "tid": tid, "ts": ts, "dur": 24,
                 "args": {"External id": c}},
                {"ph": "X", "cat": "cpu_op", "name": "aten::_to_copy", "pid": pid, "tid": tid, "ts": ts + 1,
                 "dur": 22, "args": {"External id": c + 100000}},
                {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": pid, "tid": tid, "ts": ts + 2,
                 "dur": 20, "args": {"External id": c + 200000}},
                {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": pid, "tid": tid, "ts": ts + 4,
                 "dur": 8, "args": {"External id": c + 200000, "cbid": 41, "correlation": c}},
                {"ph": "s", "id": c, "pid": pid, "tid": tid, "ts": ts + 4, "cat": "ac2g", "name": "ac2g"},
                {"ph": "X", "cat": "gpu_memcpy", "name": name, "pid": GPU_PID, "tid": OFFLOAD_STREAM, "ts": start,
                 "dur": COPY_US, "args": {"External id": c + 200000, "device": 0, "context": 1,
                                          "stream": OFFLOAD_STREAM, "correlation": c, "bytes": nbytes,
                                          "memory bandwidth (GB/s)": nbytes / COPY_US / 1e3}},
                {"ph": "f", "id": c, "pid": GPU_PID, "tid": OFFLOAD_STREAM, "ts": start, "cat": "ac2g",
                 "name": "ac2g", "bp": "e"}])
            return start + COPY_US

        def host(ts, cat, name, dur, args=None):
            out.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
                        "args": dict(args or {}, **({"correlation": 0} if cat == "cuda_runtime" else {}))})

        # After the template's last host event on the main thread (its loss copies)
        t = max(mm.dec(e["ts"]) + mm.dec(e.get("dur", 0)) for e in out
                if e.get("ph") == "X" and e.get("tid") == tid) + 5
        free = 0
        for k in range(OFFLOADED):
            free = copy_op(t + 30 * k, "Memcpy DtoH (Device -> Pinned)", MIB_COPY, free)
        t += 30 * OFFLOADED
        if not waited:
            host(t, "user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 600)
            t += 610
        sync_end = max(t + 3, free + 2)
        host(t, "cuda_runtime", "cudaStreamSynchronize", sync_end - t)
        t = sync_end + 5
        host(t, "user_annotation", "Optimizer.step#Adam.step", 300)
        t += 310
        for k in range(OFFLOADED):
            free = copy_op(t + 30 * k, "Memcpy HtoD (Pinned -> Device)", MIB_COPY, free)
        end = max(t + 30 * OFFLOADED, free) + 20
        return out, end - a
    return edit


def check_cpu_offload(c, cli, base, tmp):
    global TEMPLATE_INFO
    TEMPLATE_INFO = template(base)
    steps = 20
    for waited in (False, True):
        what = "cpu_offload%s" % (" (a sync waits for the copies)" if waited else "")
        doc = play(base, steps, edit=offloaded_optimizer(waited))
        rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "offload%d.json" % waited)))
        c.check("%s: %d steps" % (what, steps), rep["steps"].get("count") == steps, str(rep["steps"].get("count")))
        rows = rep.get("memory_ops", {}).get("rows", [])
        dtoh = sum(r.get("count", 0) for r in rows if "DtoH" in json.dumps(r))
        c.check("%s: every gradient's copy counted (%d)" % (what, OFFLOADED * steps), dtoh == OFFLOADED * steps,
                str(rows))
        c.check("%s: pinned copies are no pageable ones" % what, finding(rep, "memcpy.pageable") is None
                or "Pinned" not in json.dumps(finding(rep, "memcpy.pageable")),
                json.dumps(finding(rep, "memcpy.pageable"))[:300])
        f = finding(rep, "sync.dtoh_in_step")
        if not waited:
            c.check("%s: copies no call waited for are no sync" % what, f is None, (f or {}).get("title", ""))
            continue
        if "-v" in sys.argv:
            print(json.dumps(f, indent=1)[:3000])
        c.check("%s: the waited copies are read as syncs" % what, f is not None, str(corpus_cli.finding_ids(rep)))
        if f:
            c.check("%s: %d copies of %d bytes each" % (what, OFFLOADED * steps, MIB_COPY),
                    f["evidence"].get("copies") == OFFLOADED * steps
                    and f["evidence"].get("bytes_per_copy") == MIB_COPY, str(f["evidence"]))
            c.check("%s: tensors moved, not a scalar read: no .item() advice" % what,
                    ".item()" not in f["fix"] + f.get("fix_code", "") and "offload" in f["meaning"],
                    f["fix"] + " | " + f.get("fix_code", ""))


MATH_OPS = ("aten::mm", "aten::addmm", "aten::bmm", "aten::matmul", "aten::linear", "aten::conv")


def newer_kinds_events(events):
    """The template's events as PyTorch 2.5-2.8 writes them (see newer_kinds)."""
    host = [e for e in events if e.get("ph") == "X" and e.get("pid") != GPU_PID]
    n = 0
    for e in events:
        a = e.get("args") if isinstance(e.get("args"), dict) else None
        if e.get("cat") == "cuda_runtime" and e.get("name") == "cudaLaunchKernel":
            if n % 2:  # every other kernel through the driver, as Triton and cuBLASLt launch
                e["cat"], e["name"], a["cbid"] = "cuda_driver", "cuLaunchKernelEx", 652
            n += 1
        if e.get("cat") == "cpu_op" and a is not None:
            a["Record function id"] = 0
            if not e["name"].startswith(MATH_OPS):  # math ops' shapes would add FLOPs: kept out
                a.update({"Input Dims": [[64, 128], []], "Input type": ["float", "Scalar"],
                          "Input Strides": [[128, 1], []], "Concrete Inputs": ["", "1"]})
        if e.get("cat") == "kernel" and a is not None:
            a.setdefault("queued", 0)
            a["priority"] = 0
    # with_stack: Python frames over each thread's host events ("Python id" / "Python parent id").
    extra = []
    by_tid = {}
    for e in host:
        by_tid.setdefault(e["tid"], []).append(e)
    for tid, evs in sorted(by_tid.items()):
        b = min(mm.dec(e["ts"]) for e in evs)
        end = max(mm.dec(e["ts"]) + mm.dec(e.get("dur", 0)) for e in evs)
        for k, name in enumerate(("train.py(57): train_step", "torch/nn/modules/module.py(1747): _call_impl")):
            extra.append({"ph": "X", "cat": "python_function", "name": name, "pid": evs[0]["pid"], "tid": tid,
                          "ts": b - 2 + k, "dur": end - b + 4 - 2 * k,
                          "args": {"Python parent id": None if k == 0 else 700000 + len(extra) - 1,
                                   "Python id": 700000 + len(extra), "Python thread": 0}})
    # GPU-side syncs (torch >= 2.3): a "Stream Sync" on the GPU row under each stream sync call.
    for e in host:
        if e.get("name") == "cudaStreamSynchronize":
            extra.append({"ph": "X", "cat": "cuda_sync", "name": "Stream Sync", "pid": GPU_PID, "tid": 7,
                          "ts": e["ts"], "dur": e["dur"],
                          "args": {"cuda_sync_kind": "Stream Sync", "device": 0, "context": 1, "stream": 7,
                                   "correlation": e["args"]["correlation"]}})
    return extra + events


def newer_kinds(doc):
    """A capture as PyTorch 2.5-2.8 writes it, every newer kind in one file: the template with
    newer_kinds_events, then Ev Idx on every host event, the profiler's window markers, a
    full distributedInfo block, deviceProperties with fields older readers never saw, the
    capture settings, displayTimeUnit "ms", and ts relative to baseTimeNanoseconds."""
    pid = next(e["pid"] for e in doc["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#"))
    idx = 0
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("pid") != GPU_PID and isinstance(e.get("args"), dict):
            e["args"]["Ev Idx"] = idx
            idx += 1
    t0 = min(mm.dec(e["ts"]) for e in doc["traceEvents"] if "ts" in e and e.get("ph") != "M")
    t1 = max(mm.dec(e["ts"]) + mm.dec(e.get("dur", 0)) for e in doc["traceEvents"] if "ts" in e)
    doc["traceEvents"] += [
        {"ph": "X", "cat": "Trace", "ts": t0 - 50, "dur": t1 - t0 + 100, "pid": "Spans", "tid": "PyTorch Profiler",
         "name": "PyTorch Profiler (0)", "args": {"Op count": 0}},
        {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces",
         "tid": "Trace PyTorch Profiler", "ts": t0 - 50},
        {"name": "Record Window End", "ph": "i", "s": "g", "pid": pid, "tid": "", "ts": t1 + 50}]
    doc["deviceProperties"] = [dict(p, uuid="GPU-5f2b0c1e-%04d" % p.get("id", 0), clockRate=1442500,
                                    memoryClockRate=715000, memoryBusWidth=4096, l2CacheSize=4194304,
                                    maxSharedMemoryPerMultiprocessor=65536)
                               for p in doc.get("deviceProperties", [])]
    doc["distributedInfo"] = {"backend": "nccl", "rank": 0, "world_size": 1, "pg_count": 1,
                              "pg_config": [{"pg_name": "0", "pg_desc": "default_pg",
                                             "backend_config": "cuda:nccl", "pg_size": 1, "ranks": [0]}],
                              "nccl_version": "2.21.5"}
    doc.update({"cuda_runtime_version": 12040, "cuda_driver_version": 12090, "cupti_version": 22,
                "record_shapes": 1, "with_stack": 1, "profile_memory": 0, "with_flops": 0, "with_modules": 0,
                "trace_id": "B4826447790147448E9C459AADE9641D", "traceName": "/tmp/rank0.pt.trace.json",
                "displayTimeUnit": "ms"})
    doc.pop("baseTimeNanoseconds", None)
    mm.rw_relative_ts(doc)
    return doc


def check_newer_kinds(c, cli, base, tmp):
    steps = 20
    eager = corpus_cli.report(cli, write(play(base, steps), os.path.join(tmp, "eager.json")))
    doc = newer_kinds(play(base, steps, edit=newer_kinds_events))
    path = os.path.join(tmp, "newer.json")
    with open(path, "wb") as f:
        f.write(mm.dump(doc, mm.Spelling("float3")))
    rep = corpus_cli.report(cli, path)
    what = "newer_kinds"
    c.check("%s: kernels, busy and steps as eager" % what, gpu_numbers(rep) == gpu_numbers(eager),
            "%s vs %s" % (gpu_numbers(rep), gpu_numbers(eager)))
    le, ln = eager.get("launch_stats", {}), rep.get("launch_stats", {})
    for k in ("launches", "gpu_us", "graph_ops", "before_launch"):
        c.check("%s: launch_stats.%s as eager" % (what, k), ln.get(k) == le.get(k), "%s vs %s" % (ln.get(k), le.get(k)))
    apis = {a.get("name"): a.get("launches") for a in ln.get("apis", [])}
    eager_apis = {a.get("name"): a.get("launches") for a in le.get("apis", [])}
    c.check("%s: cuLaunchKernelEx and cudaLaunchKernel share the kernels" % what,
            apis.get("cuLaunchKernelEx", 0) + apis.get("cudaLaunchKernel", 0) == eager_apis.get("cudaLaunchKernel")
            and apis.get("cuLaunchKernelEx", 0) > 0, "%s vs %s" % (apis, eager_apis))
    c.check("%s: the same top kernels" % what,
            [(k["name"], k["total_us"]) for k in rep["kernels"]["rows"][:5]]
            == [(k["name"], k["total_us"]) for k in eager["kernels"]["rows"][:5]])
    c.check("%s: the same step times" % what,
            [r["dur_us"] for r in rep["steps"]["rows"]] == [r["dur_us"] for r in eager["steps"]["rows"]])
    c.check("%s: the same GPU idle" % what, rep["gpu"].get("idle_pct") == eager["gpu"].get("idle_pct"),
            "%s vs %s" % (rep["gpu"].get("idle_pct"), eager["gpu"].get("idle_pct")))
    c.check("%s: one GPU" % what, rep["trace"].get("gpu_devices") == eager["trace"].get("gpu_devices"),
            "%s vs %s" % (rep["trace"].get("gpu_devices"), eager["trace"].get("gpu_devices")))
    neg = negatives(rep)
    c.check("%s: no negative time in the report" % what, not neg, str(neg[:5]))
    new_ids = set(corpus_cli.finding_ids(rep)) - set(corpus_cli.finding_ids(eager))
    gone = set(corpus_cli.finding_ids(eager)) - set(corpus_cli.finding_ids(rep))
    # The capture settings it records (with_stack, record_shapes) make its step times slower
    # than the run's: that one note, nothing else the eager capture lacks.
    c.check("%s: the eager capture's findings, and the diagnosis flags' note" % what,
            new_ids == {"capture.diagnostic_flags"} and not gone,
            "new %s, gone %s" % (sorted(new_ids), sorted(gone)))
    f = finding(rep, "capture.diagnostic_flags")
    c.check("%s: the flags named" % what, f is not None and f["evidence"].get("flags") == "with_stack, record_shapes",
            str(f and f["evidence"]))
    if "-v" in sys.argv:
        print(json.dumps({"new": [f for f in rep["findings"] if f["id"] in new_ids]}, indent=1)[:3000])


PREFILL = (0, 5, 6, 13, 21, 22, 30, 37)  # the steps that prefill new requests (irregular: arrivals)
PREFILL_X = 4  # a prefill step does 4 templates' GPU work (the prompt's tokens at once)


def no_training_ranges(events):
    """An inference loop has no optimizer: the template without its Optimizer.* ranges."""
    return [e for e in events if e.get("cat") not in ("user_annotation", "gpu_user_annotation")]


def check_inference_server(c, cli, base, tmp):
    steps = 40
    copies = [PREFILL_X if i in PREFILL else 1 for i in range(steps)]
    for marker in ("execute_model", "LLMEngine.step"):
        what = "inference_server %s" % marker
        doc = play(base, steps, edit=no_training_ranges, copies=copies, marker=marker)
        rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "serve.json")))
        st = rep["steps"]
        c.check("%s: %d steps from the range" % (what, steps), st.get("count") == steps
                and st.get("source") == "nvtx_range", "%s %s" % (st.get("count"), st.get("source")))
        c.check("%s: no warm-up step (the first step is a prefill)" % what,
                finding(rep, "steps.warmup_in_window") is None,
                (finding(rep, "steps.warmup_in_window") or {}).get("title", ""))
        c.check("%s: prefill and decode are not unstable steps" % what, finding(rep, "steps.unstable") is None,
                (finding(rep, "steps.unstable") or {}).get("title", ""))
        f = fires(c, rep, "steps.two_kinds", what)
        if f:
            ev = f["evidence"]
            c.check("%s: %d long steps, %d short" % (what, len(PREFILL), steps - len(PREFILL)),
                    ev.get("long_steps") == len(PREFILL) and ev.get("short_steps") == steps - len(PREFILL), str(ev))
            short = [r["dur_us"] for r in st["rows"] if r["number"] not in PREFILL]
            c.check("%s: the short steps' median" % what, ev.get("short_median_us") == sorted(short)[len(short) // 2],
                    "%s vs %s" % (ev.get("short_median_us"), sorted(short)[len(short) // 2]))
            c.check("%s: long steps do %dx the GPU work" % (what, PREFILL_X),
                    abs(ev.get("gpu_work_ratio", 0) - PREFILL_X) < 0.05, str(ev.get("gpu_work_ratio")))
    # The same loop with a host stall in some steps (the GPU work the same in every step) is
    # unstable: two lengths, but not two kinds of work.
    doc = play(base, steps, edit=no_training_ranges, stall_steps=PREFILL, marker="execute_model")
    rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "stall.json")))
    c.check("inference_server stalls: steps.unstable", finding(rep, "steps.unstable") is not None,
            str(corpus_cli.finding_ids(rep)))
    c.check("inference_server stalls: not two kinds of steps", finding(rep, "steps.two_kinds") is None)


PEER_OFFSET = 500000  # device 1's ids in a copy: device 0's + this (a copy's ids span < 10^5)
PEER_BYTES = 8 << 20


def gpu_ops(events):
    return [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]


def two_gpus(events):
    """The template as a model split over two GPUs in one process (a naive pipeline): the main
    thread runs the first half on device 0 (the template), copies its activations to device 1
    (cudaMemcpyAsync: a "Memcpy PtoP" on device 0's stream, as CUPTI records a peer copy), then
    runs the second half on device 1 (the template again, its GPU ops on GPU pid 1 with
    "device": 1), which copies them once more on device 1 ("Memcpy DtoD"). One host thread
    launches on both devices. Returns (events, the longer step's length)."""
    _, a, length, pid, tid = TEMPLATE_INFO
    t_end = max([mm.dec(e["ts"]) + mm.dec(e.get("dur", 0)) for e in events if e.get("ph") == "X"])
    at = max(t_end, a + length) + 2  # the copies begin when both the host and device 0 are done
    out = list(events)
    corr = [880001, 880002]

    def copy_op(ts, name, device, dur):
        c = corr.pop(0)
        out.extend([
            {"ph": "X", "cat": "cpu_op", "name": "aten::copy_", "pid": pid, "tid": tid, "ts": ts, "dur": 30,
             "args": {"External id": c}},
            {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemcpyAsync", "pid": pid, "tid": tid, "ts": ts + 2,
             "dur": 10, "args": {"External id": c, "cbid": 41, "correlation": c}},
            {"ph": "s", "id": c, "pid": pid, "tid": tid, "ts": ts + 2, "cat": "ac2g", "name": "ac2g"},
            {"ph": "X", "cat": "gpu_memcpy", "name": name, "pid": GPU_PID + device, "tid": 7, "ts": ts + 10,
             "dur": dur, "args": {"External id": c, "device": device, "context": 1, "stream": 7, "correlation": c,
                                  "bytes": PEER_BYTES, "memory bandwidth (GB/s)": PEER_BYTES / dur / 1e3}},
            {"ph": "f", "id": c, "pid": GPU_PID + device, "tid": 7, "ts": ts + 10, "cat": "ac2g", "name": "ac2g",
             "bp": "e"}])
    copy_op(at, "Memcpy PtoP (Device -> Device)", 0, 40)
    second = at + 60 - a  # device 1's half starts when the peer copy is done
    for e in events:
        c = copy.deepcopy(e)
        c["ts"] = mm.dec(e["ts"]) + second
        on_gpu = e.get("pid") == GPU_PID
        if on_gpu:
            c["pid"] = GPU_PID + 1
        if "id" in c:
            c["id"] = e["id"] + PEER_OFFSET
        ca = c.get("args")
        if isinstance(ca, dict):
            for key in ("correlation", "External id"):
                if isinstance(ca.get(key), int) and ca[key] > 0:
                    ca[key] += PEER_OFFSET
            if on_gpu and "device" in ca:
                ca["device"] = 1
        out.append(c)
    copy_op(second + t_end + 2, "Memcpy DtoD (Device -> Device)", 1, 20)
    return out, second + t_end + 60 - a


TEMPLATE_INFO = None


def union_of(ops):
    """The GPU busy time of `ops` (Kineto events): the union of their spans, in microseconds."""
    return float(union_us((mm.dec(e["ts"]), mm.dec(e["ts"]) + mm.dec(e["dur"])) for e in ops))


def check_two_gpus(c, cli, base, tmp):
    global TEMPLATE_INFO
    TEMPLATE_INFO = template(base)
    steps = 10
    one = corpus_cli.report(cli, write(play(base, steps), os.path.join(tmp, "one.json")))
    doc = play(base, steps, edit=two_gpus)
    doc["deviceProperties"] = [dict(p, id=i) for i, p in enumerate(base["deviceProperties"][:1] * 2)]
    rep = corpus_cli.report(cli, write(doc, os.path.join(tmp, "two.json")))
    what = "two_gpus"
    ops = gpu_ops(doc["traceEvents"])
    c.check("%s: 2 GPU devices" % what, rep["trace"].get("gpu_devices") == 2, str(rep["trace"].get("gpu_devices")))
    c.check("%s: %d steps" % (what, steps), rep["steps"].get("count") == steps, str(rep["steps"].get("count")))
    k = rep["kernels"]
    n_kernels = sum(1 for e in ops if e["cat"] == "kernel")
    c.check("%s: every kernel once (%d)" % (what, n_kernels), k.get("count") == n_kernels
            and k.get("count") == 2 * one["kernels"]["count"], str(k.get("count")))
    devices = {d.get("device"): d for d in rep["gpu"].get("devices", [])}
    window = rep["gpu"]["window_us"]
    for dev in (0, 1):
        mine = [e for e in ops if e["pid"] == GPU_PID + dev]
        busy = union_of(mine)
        got = devices.get(dev, {})
        c.check("%s device %d: busy %.3f us, its own ops and copy (JSON gpu.devices)" % (what, dev, busy),
                abs(got.get("busy_us", -1) - busy) < 0.01, str(rep["gpu"]))
        c.check("%s device %d: idle %.2f%% of the steps" % (what, dev, 100 * (1 - busy / window)),
                abs(got.get("idle_pct", -1) - 100 * (1 - busy / window)) < 0.01, str(got))
        c.check("%s device %d: its %d kernels" % (what, dev, sum(1 for e in mine if e["cat"] == "kernel")),
                {d["device"]: d["kernels"] for d in rep["gpu_metrics"]["devices"]}.get(dev)
                == sum(1 for e in mine if e["cat"] == "kernel"), str(rep["gpu_metrics"]["devices"]))
    mem = {r["kind"] if "kind" in r else r.get("name"): r for r in rep.get("memory_ops", {}).get("rows", [])}
    if "-v" in sys.argv:
        print(json.dumps({"gpu": rep["gpu"], "devices": rep["gpu_metrics"]["devices"],
                          "memory_ops": rep.get("memory_ops"),
                          "findings": [(f["id"], f["title"]) for f in rep["findings"]]}, indent=1)[:6000])
    peer = [r for r in rep.get("memory_ops", {}).get("rows", []) if "PtoP" in json.dumps(r)]
    c.check("%s: %d peer copies, once" % (what, steps), len(peer) == 1 and peer[0].get("count") == steps, str(peer))
    n_copies = sum(1 for e in ops if e["cat"] == "gpu_memcpy")
    total = sum(r.get("count", 0) for r in rep.get("memory_ops", {}).get("rows", []))
    c.check("%s: every copy once (%d)" % (what, n_copies), total == n_copies, "%s of %s" % (total, mem))
    # Each device is idle while the other runs its half: per-device idle, not one GPU's.
    c.check("%s: GPU busy is any device busy, no copy counted twice" % what,
            abs(rep["gpu"]["busy_us"] - union_of(ops)) < 0.01, "%s vs %s" % (rep["gpu"], union_of(ops)))


def pipeline_groups(stages, micro, steps, last_joins):
    """dist_shapes' GPipe pipeline (send/recv without peer args, as before PyTorch 2.4) with two
    process groups each step: the world group "0" (a loss all_reduce on every stage) and
    Megatron's embedding group "5" of the first and the last stage (the tied embeddings'
    gradient all_reduce). The last stage joins group 5 only when `last_joins` (a stage that
    skips it leaves its peer waiting: a hang in a real job, or a rank whose code took another
    path)."""
    progs = ds.pipeline(stages, micro, steps)
    out = []
    for k, p in enumerate(progs):
        q = []
        for op in p:
            if op == ("end",) and q and q[-1] == ("sync",):
                q.insert(len(q) - 1, ("c", "all_reduce", 30, "pg 0", list(range(stages)), 1))
                if k == 0 or (k == stages - 1 and last_joins):
                    q.insert(len(q) - 1, ("c", "all_reduce", 30, "pg 5",
                                          [0, stages - 1] if last_joins else [0], 1 << 20))
            q.append(op)
        out.append(q)
    return out


PP_STAGES, PP_STEPS = 4, 2


def slower_stage(progs, slow, factor=1.5):
    """Stage `slow` of the programs computing `factor` times as long (every kernel it runs)."""
    return [[(op[0], op[1], op[2] * factor, op[3]) if k == slow and op[0] == "k" else op for op in p]
            for k, p in enumerate(progs)]


def write_pipeline_groups(tmp, last_joins=True, slow=None, peers=False):
    """The pipeline_groups shape main() checks, for tests/fleet: (ranks played, rank files)."""
    stages = PP_STAGES
    progs = pipeline_groups(stages, 4, PP_STEPS, last_joins)
    if slow is not None:
        progs = slower_stage(progs, slow)
    ranks_text = {"pg 0": ("[0, 1, 2, 3]", stages), "pg 5": ("[0, %d]" % (stages - 1), 2)}
    return ds.write_shape(tmp, "ppg%s%s%s" % (int(last_joins), "" if slow is None else "_slow%d" % slow,
                                               "_peers" if peers else ""),
                          progs, lambda coll: 60, stages, peers=peers, group_ranks=ranks_text)


def pipeline_replicas(stages, replicas, slow, peers=True):
    """Pipeline x data parallel: `replicas` copies of dist_shapes' GPipe pipeline of `stages`
    stages, replica r on ranks r * stages ... (each its own send/recv pairs), then each stage's
    gradients all-reduced with its twins in the other replicas (a process group per stage).
    Stage `slow` computes 1.5x as long in every replica, as an uneven layer split makes it."""
    base = slower_stage(ds.pipeline(stages, 4, PP_STEPS), slow)
    progs = []
    for r in range(replicas):
        for k in range(stages):
            q = []
            for op in base[k]:
                if op[0] == "c":
                    _, coll, stream, channel, members, nelems = op
                    op = ("c", coll, stream, "%s_r%d" % (channel, r), [m + r * stages for m in members], nelems)
                if op == ("sync",):
                    q.append(("c", "all_reduce", ds.COMPUTE_STREAM, "pg %d" % (10 + k),
                              [k + x * stages for x in range(replicas)], 1 << 20))
                q.append(op)
            progs.append(q)
    return progs


def write_pipeline_replicas(tmp, slow=1):
    """2 replicas of a 2-stage pipeline, stage `slow` slow in both, for tests/fleet: rank files."""
    return ds.write_shape(tmp, "pprep%d" % slow, pipeline_replicas(2, 2, slow), lambda coll: 60, 4)[1]


def check_pipeline_replicas(c, cli, base, tmp):
    for slow in (1, 0):
        what = "pipeline_replicas (stage %d slow in both)" % slow
        rep = corpus_cli.report(cli, write_pipeline_replicas(tmp, slow))
        want = [slow, slow + 2]
        f = fires(c, rep, "ranks.slow_pipeline_stage", what)
        if f:
            c.check("%s: ranks %s named, the slowest in the title" % (what, want),
                    f["evidence"].get("rank") in want and f["evidence"].get("slow_ranks") == "%d, %d" % tuple(want),
                    str(f["evidence"]))
        c.check("%s: no compute skew besides" % what, finding(rep, "ranks.compute_skew") is None,
                str(corpus_cli.finding_ids(rep)))
        c.check("%s: no collective mismatch" % what, finding(rep, "ranks.collective_mismatch") is None,
                (finding(rep, "ranks.collective_mismatch") or {}).get("title", ""))


def check_pipeline_groups(c, cli, base, tmp):
    stages, steps = PP_STAGES, PP_STEPS
    for joins in (False, True):
        what = "pipeline_groups%s" % ("" if not joins else " (all join)")
        ranks, paths = write_pipeline_groups(tmp, joins)
        rep = corpus_cli.report(cli, paths)
        c.check("%s: no collective mismatch" % what, finding(rep, "ranks.collective_mismatch") is None,
                (finding(rep, "ranks.collective_mismatch") or {}).get("title", ""))
        coll = rep["collectives"]
        sr = sum(1 for rk in ranks for e in rk.events if "SendRecv" in e["name"])
        c.check("%s: sends and receives not measured" % what, coll.get("p2p_unmatched") == sr,
                "%s vs %d" % (coll.get("p2p_unmatched"), sr))
        c.check("%s: the pipeline's drain is no straggler" % what, finding(rep, "ranks.straggler") is None,
                (finding(rep, "ranks.straggler") or {}).get("title", ""))
        c.check("%s: the stages alike, no slow stage" % what, finding(rep, "ranks.slow_pipeline_stage") is None
                and finding(rep, "ranks.compute_skew") is None, str(corpus_cli.finding_ids(rep)))
        f = finding(rep, "ranks.group_member_silent")
        if joins:
            c.check("%s: no silent member" % what, f is None, (f or {}).get("title", ""))
            continue
        c.check("%s: the silent member flagged" % what, f is not None, str(corpus_cli.finding_ids(rep)))
        if f:
            ev = f["evidence"]
            c.check("%s: rank %d of group 5, %d collectives" % (what, stages - 1, steps),
                    ev.get("rank") == stages - 1 and ev.get("process_group") == "5"
                    and ev.get("group_collectives") == steps and ev.get("members") == "0, %d" % (stages - 1),
                    str(ev))
            c.check("%s: the title names them" % what, "Rank %d" % (stages - 1) in f["title"]
                    and "group 5" in f["title"], f["title"])
    # A stage computing 1.5x as long sets the pipeline's pace: ranks.slow_pipeline_stage names it
    # (before: nobody; the straggler rule reads no send/recv waits, and named rank 0 before
    # that, which only ended its backward last, by the schedule). In the middle, first or last,
    # with or without the peers in the send/recv args (PyTorch 2.4+).
    for slow, peers in ((2, False), (0, True), (3, False)):
        what = "pipeline_groups slow stage %d%s" % (slow, " (peers)" if peers else "")
        ranks, paths = write_pipeline_groups(tmp, True, slow, peers)
        rep = corpus_cli.report(cli, paths)
        f = finding(rep, "ranks.straggler")
        c.check("%s: no other stage the straggler" % what,
                f is None or ("Rank %d " % slow) in f["title"], (f or {}).get("title", "none"))
        f = fires(c, rep, "ranks.slow_pipeline_stage", what)
        if f is None:
            continue
        ev = f["evidence"]
        compute = [union_of([e for e in rk.events if e.get("cat") == "kernel" and "nccl" not in e["name"].lower()])
                   / steps for rk in ranks]
        others = sorted(x for k, x in enumerate(compute) if k != slow)
        c.check("%s: rank %d named, its compute per step %.3f us, the others' %.3f us" % (
            what, slow, compute[slow], others[len(others) // 2]),
            ev.get("rank") == slow and ("Rank %d " % slow) in f["title"]
            and abs(ev.get("compute_per_step_us", 0) - compute[slow]) < 0.01
            and abs(ev.get("others_median_compute_per_step_us", 0) - others[len(others) // 2]) < 0.01
            and abs(ev.get("compute_ratio", 0) - 1.5) < 0.005, str(ev))
        c.check("%s: said once (no ranks.compute_skew for the same rank)" % what,
                finding(rep, "ranks.compute_skew") is None, str(corpus_cli.finding_ids(rep)))
    # Without "Process Group Ranks" (PyTorch before 2.2) nobody can know rank 3 belongs to group 5.
    ranks, paths = ds.write_shape(tmp, "ppg_old", pipeline_groups(stages, 4, steps, False),
                                  lambda coll: 60, stages, peers=False)
    rep = corpus_cli.report(cli, paths)
    c.check("pipeline_groups without group ranks: nothing guessed", finding(rep, "ranks.group_member_silent") is None)


CHECKS = ("pipeline_replicas", "fsdp", "moe", "user_steps", "grad_accum", "cpu_offload", "newer_kinds", "inference_server", "two_gpus",
          "pipeline_groups", "long_capture", "clock_skew", "torch_compile", "cuda_graph_steps", "memory")


def main():
    args, c = corpus_cli.start(mm.TRACES, lambda ap: ap.add_argument(
        "--only", default="", help="comma-separated shapes to check (default: all): " + ", ".join(CHECKS)))
    if args is None:
        return 0
    base = mm.load(os.path.join(mm.TRACES, BASE))
    only = [x for x in args.only.split(",") if x] or CHECKS
    with tempfile.TemporaryDirectory() as tmp:
        for name in only:
            globals()["check_" + name](c, args.cli, base, tmp)
    print("unseen_shapes: %d failure(s)" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
