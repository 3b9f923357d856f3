#!/usr/bin/python3
"""Real traces (../shared/traces) rewritten as torch.profiler writes them with the options users
turn on, and what the report must say of each.

Each option adds the args and events PyTorch/Kineto write for it to a capture taken without it:
  profile_memory=True   [memory] instant events (cpu_instant_event: Bytes, Total Allocated...)
  with_stack=True       python_function slices around the ops ("Python id", "Python parent id")
                        and, as older Kineto wrote it, a "Call stack" arg of 600+ bytes per op
  record_shapes=True    "Input Dims", "Input type", "Input Strides", "Concrete Inputs" per op
  with_flops=True       a "flops" arg on matrix multiplies and convolutions
  with_modules=True     python_function slices "nn.Module: Linear_0" around them
  profiler_metrics      (experimental_config) CUPTI range profiler: cuda_profiler_range slices
                        per kernel, metric values as args, in place of the kernel timeline
The capture-mistake finding (capture.diagnostic_flags) must name each option that is on and no
other, and the report's main numbers (metamorphic.fingerprint: steps, GPU busy/idle, kernels,
memcpy, syncs, CPU ops) must not move: the options add work to record, not work that ran.

Usage: /usr/bin/python3 tests/corpus/profiler_options.py --cli build/native/kinetoscope [-v]
"""
import decimal
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402  (the exact-number JSON reader and writer)

D = decimal.Decimal
# Captures of different vintages, none with any of the options on once their shape args are
# taken out (clean()): int ts and ac2g flows (2023), float ts and baseTimeNanoseconds (ROCm),
# NCCL and distributedInfo (DLRM), "Call stack" era (2021, ResNet-50).
CORPUS = [
    "hta__cuda_event_sync__event_sync_trace.json.gz",
    "hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
    "param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json",
    "kineto__resnet50_nw4__worker0.1623212756351.pt.trace.json.gz",
]
SHAPE_ARGS = ("Input Dims", "Input dims", "Input type", "Input Strides", "Concrete Inputs")
OPTION_ARGS = SHAPE_ARGS + ("Call stack", "flops", "Module Hierarchy")
# Everything the diagnostic-flag finding may name, as the report spells each.
ALL_FLAGS = ("with_stack", "record_shapes", "profile_memory", "with_flops", "with_modules",
             "profiler_metrics")
GEMM = ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::matmul", "aten::linear",
        "aten::conv2d", "aten::convolution", "aten::_convolution", "aten::cudnn_convolution")


def clean(doc):
    """The capture without any option: shape/stack args, Python frames and memory events out."""
    doc["traceEvents"] = [e for e in doc["traceEvents"]
                          if e.get("cat") != "python_function" and e.get("name") != "[memory]"]
    for e in doc["traceEvents"]:
        if isinstance(e.get("args"), dict):
            for k in OPTION_ARGS:
                e["args"].pop(k, None)
    for k in ALL_FLAGS:
        doc.pop(k, None)
    return doc


def cpu_slices(doc):
    return [e for e in doc["traceEvents"] if e.get("ph") == "X"
            and e.get("cat") in ("cpu_op", "Operator", "user_annotation")]


def by_thread(events):
    out = {}
    for e in events:
        out.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    for v in out.values():
        v.sort(key=lambda e: (mm.dec(e["ts"]), -mm.dec(e["dur"])))
    return out


def top_level(slices):
    """The slices of one thread (sorted) that no other slice of it encloses."""
    out, end = [], None
    for e in slices:
        b = mm.dec(e["ts"])
        if end is None or b >= end:
            out.append(e)
            end = b + mm.dec(e["dur"])
        else:
            end = max(end, b + mm.dec(e["dur"]))
    return out


def add_memory(doc):
    """profile_memory: an allocation when every 4th op starts and its free when it ends, as
    the caching allocator reports them ([memory] instants on the op's thread)."""
    total, n, ev = 1 << 28, 0, []
    for i, e in enumerate(cpu_slices(doc)):
        if i % 4:
            continue
        size = 4096 * (1 + i % 7)
        for ts, sign in ((mm.dec(e["ts"]), 1), (mm.dec(e["ts"]) + mm.dec(e["dur"]), -1)):
            total += sign * size
            n += 1
            ev.append({"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
                       "pid": e["pid"], "tid": e["tid"], "ts": ts,
                       "args": {"Total Reserved": 1 << 30, "Total Allocated": total,
                                "Bytes": sign * size, "Addr": 140000000000000 + 512 * i,
                                "Device Id": 0, "Device Type": 1, "Ev Idx": 900000 + n}})
    doc["traceEvents"] += ev
    return doc


def add_python_frames(doc):
    """with_stack (torch >= 1.9): python_function slices on each CPU thread with ops: one frame
    over the thread's ops (the script's <module>; from its first op's start to its last op's
    end, so that the capture's span stays as it was) and, around each top-level op, an
    nn.Module call and the module.py frame that makes it (torch 2.x writes nn.Module frames
    with with_stack alone), a little wider than the op where the neighbours leave room."""
    pyid = 0
    ev = []

    def frame(name, pid, tid, ts, dur, parent):
        nonlocal pyid
        pyid += 1
        ev.append({"ph": "X", "cat": "python_function", "name": name, "pid": pid, "tid": tid,
                   "ts": ts, "dur": dur,
                   "args": {"Python parent id": parent, "Python id": pyid, "Ev Idx": pyid}})
        return pyid

    for (pid, tid), slices in by_thread(cpu_slices(doc)).items():
        tops = top_level(slices)
        if len(tops) < 2:
            continue  # the <module> frame would tie with the one op: not a parent
        begin = mm.dec(tops[0]["ts"])
        end = max(mm.dec(e["ts"]) + mm.dec(e["dur"]) for e in tops)
        root = frame("train.py(1): <module>", pid, tid, begin, end - begin, None)
        for k, e in enumerate(tops):
            b, d = mm.dec(e["ts"]), mm.dec(e["dur"])
            before = b - (mm.dec(tops[k - 1]["ts"]) + mm.dec(tops[k - 1]["dur"])) if k else D(0)
            after = (mm.dec(tops[k + 1]["ts"]) - (b + d)) if k + 1 < len(tops) else D(0)
            lo, hi = max(D(0), min(D(1), before / 2)), max(D(0), min(D(1), after / 2))
            if lo <= 0 and hi <= 0:
                continue  # no room: a frame as long as the op would be a tie, not a parent
            call = frame("torch/nn/modules/module.py(1527): _call_impl", pid, tid, b - lo,
                         d + lo + hi, root)
            frame("nn.Module: Linear_%d" % (k % 3), pid, tid, b - lo / 2, d + lo / 2 + hi / 2,
                  call)
    if not ev:
        return None  # one op per thread: no frame can enclose it without a tie
    doc["traceEvents"] += ev
    return doc


def add_call_stacks(doc):
    """with_stack as older Kineto wrote it: a "Call stack" arg on every op, 600+ bytes."""
    frames = ["/opt/conda/lib/python3.10/site-packages/torch/nn/modules/module.py(%d): "
              "_call_impl" % (1500 + k) for k in range(8)] + ["train.py(88): train_step",
                                                             "train.py(120): main"]
    stack = ";".join(frames)
    assert len(stack) > 600
    for e in cpu_slices(doc):
        if e.get("cat") != "user_annotation":
            e.setdefault("args", {})["Call stack"] = stack
    return doc


def add_shapes(doc):
    """record_shapes: the four shape args on every op (the same made-up pair of inputs)."""
    for e in cpu_slices(doc):
        if e.get("cat") == "user_annotation":
            continue
        a = e.setdefault("args", {})
        a["Input Dims"] = [[64, 128], [128, 256], []]
        a["Input type"] = ["float", "float", "Scalar"]
        a["Input Strides"] = [[128, 1], [256, 1], []]
        a["Concrete Inputs"] = ["", "", "1"]
    return doc


def add_flops(doc):
    """with_flops: a "flops" arg on the matrix multiplies and convolutions."""
    n = 0
    for e in cpu_slices(doc):
        if e.get("name") in GEMM:
            e.setdefault("args", {})["flops"] = 2 * 64 * 128 * 256
            n += 1
    return doc if n else None


def cupti_ranges(doc):
    """experimental_config=_ExperimentalConfig(profiler_metrics=[...],
    profiler_measure_per_kernel=True): Kineto's CUPTI range profiler replaces the CUDA activity
    (it refuses to run with it), so the kernels, copies and runtime calls are not traced; one
    cuda_profiler_range slice per kernel, named after it, the capture's span cut in equal
    parts (Kineto says their times do not matter), the metric values as args."""
    ev = doc["traceEvents"]
    kernels = [e for e in ev if e.get("cat") in ("kernel", "Kernel") and e.get("ph") == "X"]
    timed = [e for e in ev if e.get("ph") == "X" and "dur" in e]
    t0 = min(mm.dec(e["ts"]) for e in timed)
    t1 = max(mm.dec(e["ts"]) + mm.dec(e["dur"]) for e in timed)
    gone = ("kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "cuda_runtime",
            "Runtime", "cuda_driver", "ac2g", "cuda_sync", "gpu_user_annotation")
    keep = [e for e in ev if e.get("cat") not in gone]
    step = ((t1 - t0) / len(kernels)).quantize(D("0.001"), rounding=decimal.ROUND_DOWN)
    for i, k in enumerate(kernels):
        keep.append({"ph": "X", "cat": "cuda_profiler_range", "name": k["name"],
                     "pid": k["pid"], "tid": k["tid"], "ts": t0 + i * step, "dur": step,
                     "args": {"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1.5e6,
                              "sm__inst_executed_pipe_tensor.sum": 0.0}})
    doc["traceEvents"] = keep
    return doc


def kernel_metric_args(doc):
    """Kernel args of the kind CUPTI metric collection adds (achieved occupancy, SM
    efficiency): values on the kernels, not new work."""
    for e in doc["traceEvents"]:
        if e.get("cat") in ("kernel", "Kernel") and isinstance(e.get("args"), dict):
            e["args"]["achieved occupancy"] = 0.42
            e["args"]["sm efficiency"] = 87.5
    return doc


def header(**flags):
    """The top-level keys newer Kineto writes for the options (1/0)."""
    def put(doc):
        for k, v in flags.items():
            doc[k] = v
        return doc
    return put


def chain(*fns):
    def run(doc):
        for fn in fns:
            doc = fn(doc)
            if doc is None:
                return None
        return doc
    return run


MATH = ("math.far_below_peak",)
# (label, rewrite, the flags the finding must name, fingerprint keys the rewrite may move)
# A Python frame is a slice: "slices" counts it. The CUPTI range mode has no kernel timeline at
# all: only the finding and the GPU sections' absence are checked there (below).
OPTIONS = [
    ("profile_memory", add_memory, ("profile_memory",), ()),
    ("with_stack (python_function)", add_python_frames, ("with_stack",), ("slices",)),
    ("with_stack (Call stack arg)", add_call_stacks, ("with_stack",), ()),
    # Shapes are what the FLOP count (the math section) reads: its finding may come with them.
    ("record_shapes", add_shapes, ("record_shapes",), MATH),
    ("with_flops", add_flops, ("with_flops",), ()),
    ("with_modules in the header", header(with_modules=1), ("with_modules",), ()),
    ("with_flops in the header only", header(with_flops=1), ("with_flops",), ()),
    ("options off in the header", header(record_shapes=0, profile_memory=0, with_stack=0,
                                         with_flops=0, with_modules=0), (), ()),
    ("kernel metric args", kernel_metric_args, (), ()),
    ("all of them", chain(add_memory, add_python_frames, add_shapes, add_flops,
                          header(with_modules=1)),
     ("with_stack", "record_shapes", "profile_memory", "with_flops", "with_modules"),
     ("slices",) + MATH),
]


def flags_named(rep):
    """The options the diagnostic-flag finding names, in its order; () when it does not fire."""
    for f in rep["findings"]:
        if f["id"] == "capture.diagnostic_flags":
            return tuple(x.strip() for x in f["evidence"]["flags"].split(","))
    return ()


def main():
    args = corpus_cli.arguments(
        mm.TRACES, lambda ap: ap.add_argument("-k", default="", help="only options whose label contains this"))
    if args is None:
        return 0
    c = corpus_cli.Checker(args.v)
    with tempfile.TemporaryDirectory() as tmp:
        def report_of(doc, name="t.json"):
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(mm.dump(doc))
            return corpus_cli.report(args.cli, path)

        for name in CORPUS:
            raw = clean(mm.load(os.path.join(mm.TRACES, name)))
            base = report_of(raw)
            c.check("%s: no diagnostic flag without the options" % name,
                    flags_named(base) == (), str(flags_named(base)))
            for label, fn, want, moves in OPTIONS:
                if args.k not in label:
                    continue
                doc = fn(mm.copy_doc(raw))
                if doc is None:
                    continue
                rep = report_of(doc)
                got = flags_named(rep)
                # Named in the finding's order (ALL_FLAGS), each flag that is on and no other.
                c.check("%s: %s names %s" % (name, label, list(want)),
                        set(got) == set(want), "named %s" % (got,))
                ignore = ("capture.diagnostic_flags",) + tuple(moves)
                d = mm.diff(mm.fingerprint(base, ignore), mm.fingerprint(rep, ignore))
                c.check("%s: %s moves nothing else" % (name, label), not d, "\n    ".join([""] + d))
            if args.k in "profiler_metrics (CUPTI range profiler)":
                rep = report_of(cupti_ranges(mm.copy_doc(raw)))
                ids = [f["id"] for f in rep["findings"]]
                c.check("%s: CUPTI range profiler named" % name,
                        "profiler_metrics" in flags_named(rep), str(flags_named(rep)))
                c.check("%s: CUPTI ranges are not kernels" % name,
                        rep["kernels"]["count"] == 0 and not rep["gpu"]["has_gpu_ops"],
                        str((rep["kernels"]["count"], rep["gpu"]["has_gpu_ops"])))
                f = [x for x in rep["findings"] if x["id"] == "capture.no_gpu_activity"]
                c.check("%s: CUPTI ranges: said to be metrics, not a missing CUDA activity" % name,
                        f and "CUPTI metrics" in f[0]["title"]
                        and "without profiler_metrics" in f[0]["fix"]
                        and "CUDA activity enabled" not in f[0]["fix"], str(f))
    print("profiler options: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
