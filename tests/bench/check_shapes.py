#!/usr/bin/env python3
"""Smoke test of the benchmark's trace shapes (bench/shapes/make_shape.py; make bench uses them at
200 MB and 1 GB): each shape at ~1-2 MB, read by the CLI. For the repeated real traces, one copy
and three copies of the same source window are written and compared:
  - the file is valid JSON and the CLI reads it (exit 0), with every event;
  - the three copies add no diagnostic code the single copy lacks (repetition breaks nothing);
  - ids stay unique per copy: 3x the distinct correlations, External ids, flow ids, Python ids;
  - ts moves on: the span of 3 copies is more than twice the span of one;
  - shape-specific facts: pystack's cpu_ops carry "Call stack" and Input Dims and average >= 600
    bytes (the CLI says call_stacks_seen and input_shapes_seen); tiny_kernels has a ProfilerStep.
The peers' generator (nccl) is checked for: valid JSON, read with info-level diagnostics only, NCCL
kernels and ac2g flows present.
  python3 tests/bench/check_shapes.py [--cli build/native/kinetoscope]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench"))
sys.path.insert(0, os.path.join(ROOT, "bench", "shapes"))
import make_big_trace  # noqa: E402
import make_shape  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("  FAIL:", what)


def report(cli, path):
    r = subprocess.run([cli, "report", "--format", "json", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        failures.append("%s: CLI exit %d: %s" % (path, r.returncode, r.stderr.decode()[:300]))
        return None
    return json.loads(r.stdout)


def distinct(events):
    """Distinct values of each kind of id, and the cpu_op facts of pystack."""
    out = {k: set() for k in ("correlation", "External id", "Python id", "flow")}
    for e in events:
        a = e.get("args") or {}
        for k in ("correlation", "External id", "Python id"):
            if isinstance(a.get(k), int):
                out[k].add(a[k])
        if e.get("ph") in ("s", "f") and "id" in e:
            out["flow"].add((e.get("cat"), e["id"], e.get("ph")))
    return {k: len(v) for k, v in out.items()}


def check_repeated(shape, cli, shared, tmp):
    name, opts = make_shape.SHAPES[shape]
    src = make_big_trace.load(os.path.join(shared, "traces", name))
    start, length = make_shape.SMOKE_WINDOW_MS[shape]
    files = {}
    for copies in (1, 3):
        out = os.path.join(tmp, "%s_x%d.json" % (shape, copies))
        summary = make_big_trace.repeat(src, out, 2, window_ms=length, window_start_ms=start, copies=copies, **opts)
        with open(out) as f:
            data = json.load(f)  # valid JSON
        rep = report(cli, out)
        files[copies] = (summary, data, rep)
        if rep is None:
            return
        check(rep["trace"]["events_total"] == summary["events"] == len(data["traceEvents"]),
              "%s x%d: the CLI read %d events, the generator wrote %d" % (shape, copies, rep["trace"]["events_total"], summary["events"]))
    (s1, d1, r1), (s3, d3, r3) = files[1], files[3]
    print("  %s: 3 copies %d bytes, %d events, diagnostics %s" % (shape, s3["json_bytes"], s3["events"],
          sorted(x["code"] for x in r3["diagnostics"])))
    codes1 = {x["code"] for x in r1["diagnostics"]}
    new = {x["code"] for x in r3["diagnostics"]} - codes1
    check(not new, "%s: 3 copies add diagnostics %s" % (shape, sorted(new)))
    n1, n3 = distinct(d1["traceEvents"]), distinct(d3["traceEvents"])
    for k in n1:
        check(n3[k] == 3 * n1[k], "%s: %s: %d distinct in 3 copies, %d in one" % (shape, k, n3[k], n1[k]))
    check(r3["trace"]["span_us"] > 2 * r1["trace"]["span_us"], "%s: 3 copies span %s us, one %s us" % (
        shape, r3["trace"]["span_us"], r1["trace"]["span_us"]))
    if shape == "pystack":
        cap = r3["trace"]["capture"]
        check(cap.get("call_stacks_seen") and cap.get("input_shapes_seen"), "pystack: capture %s" % cap)
        ops = [e for e in d3["traceEvents"] if e.get("cat") == "cpu_op"]
        avg = sum(len(json.dumps(e, separators=(",", ":"))) for e in ops) / max(1, len(ops))
        check(avg >= 600, "pystack: cpu_op events average %.0f bytes (< 600)" % avg)
        check(sum(1 for e in d3["traceEvents"] if e.get("cat") == "python_function") > 2 * len(ops),
              "pystack: python_function events do not dominate")
    if shape == "tiny_kernels":
        check(r3["steps"]["count"] >= 1, "tiny_kernels: no ProfilerStep in the report")
        kernels = r3["trace"]["categories"].get("kernel", 0)
        check(kernels >= 1000, "tiny_kernels: only %d kernels in 3 copies" % kernels)


def check_nccl(cli, shared, tmp):
    out = os.path.join(tmp, "nccl.json")
    make_shape.make("nccl", 1.5, out, shared)
    with open(out) as f:
        data = json.load(f)
    rep = report(cli, out)
    if rep is None:
        return
    print("  nccl: %d bytes, %d events, diagnostics %s" % (os.path.getsize(out), rep["trace"]["events_total"],
          sorted(x["code"] for x in rep["diagnostics"])))
    check(rep["trace"]["events_total"] == len(data["traceEvents"]), "nccl: the CLI read %d of %d events" % (
        rep["trace"]["events_total"], len(data["traceEvents"])))
    check(all(x["severity"] == "info" for x in rep["diagnostics"]), "nccl: diagnostics above info: %s" % rep["diagnostics"])
    check(any("nccl" in e.get("name", "").lower() for e in data["traceEvents"] if e.get("cat") == "kernel"), "nccl: no NCCL kernel")
    check(rep["trace"]["categories"].get("ac2g", 0) > 0, "nccl: no ac2g flows")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default=os.path.join(ROOT, "build", "native", "kinetoscope"))
    ap.add_argument("--shared", default=os.environ.get("KS_SHARED_DIR", os.path.join(ROOT, "..", "shared")))
    args = ap.parse_args()
    if not os.path.isdir(os.path.join(args.shared, "traces")):
        print("skipped: no %s/traces" % args.shared)
        return 0
    with tempfile.TemporaryDirectory(prefix="ks-shapes-") as tmp:
        for shape in make_shape.SHAPES:
            if shape == "nccl":
                check_nccl(args.cli, args.shared, tmp)
            else:
                check_repeated(shape, args.cli, args.shared, tmp)
    print("bench shapes: %d shapes, %s" % (len(make_shape.SHAPES), "%d failures" % len(failures) if failures else "all pass"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
