#!/usr/bin/python3
"""Events that Kineto writes in some versions or builds and not others (docs/kineto-versions.md),
added to a real capture (../shared/traces) where they would appear, and what the report must do
with each: the capture's numbers unchanged where the events say nothing about GPU work, or the
right number where they do.

  overhead             CUPTI's own overhead ranges (CUPTI_ACTIVITY_KIND_OVERHEAD, "Activity
                       Buffer Request", "Instrumentation"), on Kineto's pid -1
  cuda_profiler_range  CUPTI range-profiler ranges over kernels (kineto's CUDA_PROFILER_RANGE)
  newer host categories  mtia_ccp_events, mtia_insight, collective_comm, hpu_op, cuda_event,
                       xpu_scope_profiler, glow_runtime, external_correlation slices on a host
                       thread of their own
  Record Window End    the instant Kineto writes at the end of the collection window
  distributedInfo      with backend and world size but no rank, as a one-process run writes it

Each must leave the GPU's busy and idle time, kernels, copies, syncs, steps and findings as the
capture had them. (tests/corpus/metamorphic.py covers spellings: float/string ts, display units,
base time, B/E pairs, xpu_/privateuse1_ runtimes, driver launches, gpu_user_annotation;
tests/corpus/profiler_options.py the options' args; inference_shape.py CUDA graphs.)

Usage: /usr/bin/python3 tests/corpus/kineto_versions.py --cli build/native/kinetoscope [-v]
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402

BASES = ("param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json",
         "kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz")
HOST_CATS = ("mtia_ccp_events", "mtia_insight", "collective_comm", "hpu_op", "cuda_event",
             "xpu_scope_profiler", "glow_runtime", "external_correlation")


def kernels(doc):
    return [e for e in doc["traceEvents"] if e.get("cat") in ("kernel", "Kernel")
            and e.get("ph") == "X"]


def host_pid(doc):
    return next(e["pid"] for e in doc["traceEvents"]
                if e.get("cat") in ("cuda_runtime", "Runtime"))


def span(doc):
    ts = [mm.dec(e["ts"]) for e in doc["traceEvents"] if "ts" in e and e.get("ph") != "M"]
    return min(ts), max(ts)


def add_overhead(doc):
    """CUPTI overhead ranges where Kineto writes them: process -1, named by a process_name
    event (output_json.cpp, handleOverheadInfo), long enough to cover idle gaps. Not GPU work."""
    lo, hi = span(doc)
    step = (hi - lo) / 8
    ev = doc["traceEvents"]
    ev.append({"name": "process_name", "ph": "M", "ts": lo, "pid": -1, "tid": 0,
               "args": {"name": "CUPTI Overhead"}})
    for k in range(8):
        name = ("Activity Buffer Request", "Instrumentation")[k % 2]
        ev.append({"ph": "X", "cat": "overhead", "name": name, "pid": -1, "tid": 0,
                   "ts": lo + k * step, "dur": step * 9 / 10, "args": {}})
    return doc


def add_profiler_ranges(doc):
    """Range-profiler ranges around every tenth kernel, on the kernel's own row."""
    for e in kernels(doc)[::10]:
        doc["traceEvents"].append(dict(e, cat="cuda_profiler_range",
                                       name="range_" + str(e["name"])[:20],
                                       ts=mm.dec(e["ts"]) - 1, dur=mm.dec(e["dur"]) + 2,
                                       args={}))
    return doc


def add_host_categories(doc):
    """One slice of each newer host category, every tenth of the capture, on a thread of their
    own in the host process."""
    pid = host_pid(doc)
    lo, hi = span(doc)
    for k, cat in enumerate(HOST_CATS * 10):
        doc["traceEvents"].append({"ph": "X", "cat": cat, "name": cat + "_event", "pid": pid,
                                   "tid": 987654, "ts": lo + (hi - lo) * k / 80,
                                   "dur": (hi - lo) / 200, "args": {}})
    return doc


def add_window_end(doc):
    _, hi = span(doc)
    doc["traceEvents"].append({"ph": "i", "cat": "", "name": "Record Window End",
                               "pid": host_pid(doc), "tid": 0, "ts": hi, "s": "p"})
    return doc


def add_rankless_distributed(doc):
    doc["distributedInfo"] = {"backend": "nccl", "world_size": 1}
    return doc


VARIANTS = (("overhead", add_overhead, ("slices",)),
            ("cuda_profiler_range", add_profiler_ranges, ("slices",)),
            ("newer host categories", add_host_categories, ("slices", "trace", "cpu_ops")),
            ("Record Window End", add_window_end, ("slices",)),
            ("distributedInfo without rank", add_rankless_distributed, ()))


def main():
    args, c = corpus_cli.start(mm.TRACES)
    if args is None:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        for base in BASES:
            path = os.path.join(mm.TRACES, base)
            one = corpus_cli.report(args.cli, [path])
            # The control: a kernel fewer must show, or no comparison below could fail.
            doc = mm.load(path)
            doc["traceEvents"].remove(kernels(doc)[len(kernels(doc)) // 2])
            out = os.path.join(tmp, "t.json")
            with open(out, "wb") as f:
                f.write(mm.dump(doc))
            c.check("%s: the control (a kernel fewer) is seen" % base,
                    mm.diff(mm.fingerprint(one), mm.fingerprint(corpus_cli.report(args.cli, out))))
            for label, fn, ignore in VARIANTS:
                doc = fn(mm.load(path))
                with open(out, "wb") as f:
                    f.write(mm.dump(doc))
                rep = corpus_cli.report(args.cli, [out])
                d = mm.diff(mm.fingerprint(one, ignore), mm.fingerprint(rep, ignore))
                c.check("%s: %s leaves the report's numbers" % (base, label), not d,
                        "\n    " + "\n    ".join(d))
    print("kineto_versions: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
