#!/usr/bin/env python3
"""Builds a real-derived big trace by repeating the events of a real trace.

Each copy of the source's events is shifted in time by the source's span (plus a gap) and gets
fresh ids (correlation, External id, flow ids, Python ids), so the result reads like a long
capture of the same job: same kernels, same launch pattern, many more steps (ProfilerStep numbers
continue). Metadata events (ph M) are written once. Output streams out copy by copy (constant
memory). bench/shapes/make_shape.py builds the benchmark's trace shapes with repeat().

  python3 bench/make_big_trace.py SOURCE.json[.gz] OUT.json --target-mb 1024
"""
import argparse
import gzip
import json
import os
import re
import sys

STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")
# Integer args that identify an event or link two: each copy adds a stride larger than any of
# them, so no id of one copy meets an id of another (correlations, flows and Python parents stay
# within their copy). "cid" is roctracer's correlation on AMD traces.
ID_ARGS = ("correlation", "External id", "Ev Idx", "Record function id", "Python id", "Python parent id", "cid")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    if isinstance(data, list):
        return {}, data
    return {k: v for k, v in data.items() if k != "traceEvents"}, data["traceEvents"]


def add_call_stacks(events):
    """Gives each cpu_op the "Call stack" arg that older torch.profiler(with_stack=True) wrote
    (innermost frame first, ';'-separated), from the python_function events that enclose it on its
    thread: the same frames the trace already holds, in the other form with_stack produces."""
    by_thread = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("python_function", "cpu_op") and "ts" in e:
            by_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    for evs in by_thread.values():
        evs.sort(key=lambda e: (float(e["ts"]), -float(e.get("dur", 0) or 0)))
        open_frames = []  # (end, name) of the enclosing python_function events, outermost first
        for e in evs:
            ts = float(e["ts"])
            while open_frames and open_frames[-1][0] <= ts:
                open_frames.pop()
            if e["cat"] == "python_function":
                open_frames.append((ts + float(e.get("dur", 0) or 0), e.get("name", "")))
            elif open_frames:
                args = dict(e.get("args") or {})
                args["Call stack"] = ";".join(name for _, name in reversed(open_frames))
                e["args"] = args


def main_thread(events):
    """(pid, tid) of the thread with the most CPU ops: where torch.profiler puts ProfilerStep."""
    counts = {}
    for e in events:
        if e.get("cat") in ("cpu_op", "user_annotation", "python_function"):
            k = (e.get("pid"), e.get("tid"))
            counts[k] = counts.get(k, 0) + 1
    return max(counts, key=counts.get) if counts else (0, 0)


def repeat(source, out_path, target_mb, steps_every=0, call_stacks=False, window_ms=None, copies=None,
           window_start_ms=0.0):
    """Writes copies of source's events to out_path until target_mb MiB of JSON; returns a summary.
    steps_every=N (for a source without ProfilerStep): every N copies are one step, a
    ProfilerStep#k user_annotation on the main thread around them. call_stacks: add_call_stacks().
    window_ms: only the source's events that start in window_ms from window_start_ms after its
    first (the smoke test's small files); copies: exactly that many copies, whatever the size.
    With steps_every and no copies, the last step is filled (the file may pass target_mb)."""
    # source: a path, or what load() returned for it (the smoke test reads each source once)
    top, events = load(source) if isinstance(source, str) else source
    if call_stacks:
        add_call_stacks(events)
    meta = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
    t0 = min(float(e["ts"]) for e in timed)
    if window_ms is not None:
        lo = t0 + window_start_ms * 1000.0
        timed = [e for e in timed if lo <= float(e["ts"]) < lo + window_ms * 1000.0]
        t0 = min(float(e["ts"]) for e in timed)
    t1 = max(float(e["ts"]) + float(e.get("dur", 0) or 0) for e in timed)
    span = (t1 - t0) * 1.001 + 100.0
    steps = sorted({int(m.group(1)) for e in timed for m in [STEP_RE.match(str(e.get("name", "")))] if m})
    step_stride = (max(steps) - min(steps) + 1) if steps else 0
    id_stride = 1
    for e in timed:
        a = e.get("args") or {}
        for k in ID_ARGS:
            v = a.get(k)
            if isinstance(v, int):
                id_stride = max(id_stride, v + 1)
        if isinstance(e.get("id"), int):
            id_stride = max(id_stride, e["id"] + 1)
    if steps_every and steps:
        raise SystemExit("%s has ProfilerStep events: steps_every is for sources without" % source)
    step_pid, step_tid = main_thread(timed)

    # Serialize each event once with placeholders for the shifted fields; copies only format.
    templates = []
    for e in timed:
        e = dict(e)
        a = dict(e.get("args") or {})
        shifted = {"ts": float(e["ts"]) - t0}
        e["ts"] = "@TS@"
        for k in ID_ARGS:
            if isinstance(a.get(k), int):
                shifted[k] = a[k]
                a[k] = "@" + k + "@"
        if isinstance(e.get("id"), int):
            shifted["id"] = e["id"]
            e["id"] = "@ID@"
        m = STEP_RE.match(str(e.get("name", "")))
        if m:
            shifted["step"] = int(m.group(1))
            e["name"] = "@STEP@"
        if a:
            e["args"] = a
        text = json.dumps(e, separators=(",", ":"))
        templates.append((text, shifted))

    target = target_mb * 1024 * 1024
    written = 0
    want, n = copies, 0  # n: copies written so far
    extra_events = 0
    opener = gzip.open if out_path.endswith(".gz") else open
    with opener(out_path, "wt") as out:
        head = dict(top)
        out.write(json.dumps(head)[:-1] + (", " if head else "") + '"traceEvents": [\n')
        first = True
        for e in meta:
            out.write(("" if first else ",\n") + json.dumps(e, separators=(",", ":")))
            first = False
        while (written < target or (steps_every and n % steps_every)) if want is None else (n < want):
            base = t0 + n * span
            if steps_every and n % steps_every == 0:
                in_step = steps_every if want is None else min(steps_every, want - n)
                step = {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (n // steps_every),
                        "pid": step_pid, "tid": step_tid, "ts": round(base - 1.0, 3),
                        "dur": round(in_step * span - 50.0, 3), "args": {}}
                line = ("" if first else ",\n") + json.dumps(step, separators=(",", ":"))
                first = False
                out.write(line)
                written += len(line)
                extra_events += 1
            for text, s in templates:
                t = text.replace('"@TS@"', "%.3f" % (base + s["ts"]))
                for k in ID_ARGS:
                    if k in s:
                        t = t.replace('"@' + k + '@"', str(s[k] + n * id_stride))
                if "id" in s:
                    t = t.replace('"@ID@"', str(s["id"] + n * id_stride))
                if "step" in s:
                    t = t.replace('"@STEP@"', '"ProfilerStep#%d"' % (s["step"] + n * step_stride))
                line = ("" if first else ",\n") + t
                first = False
                out.write(line)
                written += len(line)
            n += 1
        out.write("\n]}\n")
    return {"source": os.path.basename(source) if isinstance(source, str) else "(loaded)", "out": out_path, "copies": n,
            "events": len(meta) + n * len(timed) + extra_events, "json_bytes": written}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("--target-mb", type=float, required=True)
    args = ap.parse_args()
    print(json.dumps(repeat(args.source, args.out, args.target_mb)))


if __name__ == "__main__":
    sys.exit(main())
