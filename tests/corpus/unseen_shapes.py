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

Usage: /usr/bin/python3 tests/corpus/unseen_shapes.py --cli build/native/kinetoscope [-v]
"""
import copy
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402
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


def play(doc, steps, stall_steps=(), gpu_shift=0, edit=None):
    """The template played `steps` times from its own start; a stall of STALL_X template lengths
    opens each step in stall_steps (the step's range covers it; every later event moves by it).
    GPU ops move by gpu_shift (us, a GPU clock behind the CPU's when negative)."""
    events, t0, length, pid, tid = template(doc)
    if edit:
        events = edit(copy.deepcopy(events))
    out = [e for e in doc["traceEvents"] if e.get("ph") == "M"]
    at = 0
    for i in range(steps):
        stall = STALL_X * length if i in stall_steps else 0
        out.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % i, "pid": pid,
                    "tid": tid, "ts": t0 + at, "dur": length + stall, "args": {"External id": 900000 + i}})
        for e in events:
            c = copy.deepcopy(e)
            c["ts"] = mm.dec(e["ts"]) + at + stall + (gpu_shift if e.get("pid") == GPU_PID else 0)
            if "id" in c:
                c["id"] = e["id"] + (i + 1) * ID_STRIDE
            a = c.get("args")
            if isinstance(a, dict):
                for k in ("correlation", "External id"):
                    if isinstance(a.get(k), int) and a[k] > 0:
                        a[k] += (i + 1) * ID_STRIDE
                a.pop("Ev Idx", None)
            out.append(c)
        at += length + stall
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


def main():
    args, c = corpus_cli.start(mm.TRACES)
    if args is None:
        return 0
    base = mm.load(os.path.join(mm.TRACES, BASE))
    with tempfile.TemporaryDirectory() as tmp:
        for check in (check_long_capture, check_clock_skew, check_torch_compile, check_cuda_graph_steps,
                      check_memory):
            check(c, args.cli, base, tmp)
    print("unseen_shapes: %d failure(s)" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
