#!/usr/bin/env python3
"""Builds a real-derived big trace by repeating the events of a real trace.

Each copy of the source's events is shifted in time by the source's span (plus a gap) and gets
fresh ids (correlation, External id, flow ids), so the result reads like a long capture of the
same job: same kernels, same launch pattern, many more steps (ProfilerStep numbers continue).
Metadata events (ph M) are written once. Output streams out copy by copy (constant memory).

  python3 bench/make_big_trace.py SOURCE.json[.gz] OUT.json --target-mb 1024
"""
import argparse
import gzip
import json
import os
import re
import sys

STEP_RE = re.compile(r"^ProfilerStep#(\d+)$")
ID_ARGS = ("correlation", "External id", "Ev Idx", "Record function id")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        data = json.load(f)
    if isinstance(data, list):
        return {}, data
    return {k: v for k, v in data.items() if k != "traceEvents"}, data["traceEvents"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("source")
    ap.add_argument("out")
    ap.add_argument("--target-mb", type=float, required=True)
    args = ap.parse_args()

    top, events = load(args.source)
    meta = [e for e in events if e.get("ph") == "M"]
    timed = [e for e in events if e.get("ph") != "M" and "ts" in e]
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

    target = args.target_mb * 1024 * 1024
    written = 0
    copies = 0
    opener = gzip.open if args.out.endswith(".gz") else open
    with opener(args.out, "wt") as out:
        head = dict(top)
        out.write(json.dumps(head)[:-1] + (", " if head else "") + '"traceEvents": [\n')
        first = True
        for e in meta:
            out.write(("" if first else ",\n") + json.dumps(e, separators=(",", ":")))
            first = False
        while written < target:
            base = t0 + copies * span
            for text, s in templates:
                t = text.replace('"@TS@"', "%.3f" % (base + s["ts"]))
                for k in ID_ARGS:
                    if k in s:
                        t = t.replace('"@' + k + '@"', str(s[k] + copies * id_stride))
                if "id" in s:
                    t = t.replace('"@ID@"', str(s["id"] + copies * id_stride))
                if "step" in s:
                    t = t.replace('"@STEP@"', '"ProfilerStep#%d"' % (s["step"] + copies * step_stride))
                line = ("" if first else ",\n") + t
                first = False
                out.write(line)
                written += len(line)
            copies += 1
        out.write("\n]}\n")
    summary = {"source": os.path.basename(args.source), "out": args.out, "copies": copies,
               "events": len(meta) + copies * len(timed), "json_bytes": written}
    print(json.dumps(summary))


if __name__ == "__main__":
    sys.exit(main())
