#!/usr/bin/env python3
"""Where a page load's time goes, stage by stage, from the page's own clocks (web/app.js timings,
web/worker/job.js marks) and each browser thread's CPU time (bench/ingest_browser.mjs thread_cpu_s).

Runs bench/ingest_browser.mjs on each FILE in each MODE, interleaved (rep 1: every file in every
mode, then rep 2, ...), appends the rows to OUT (JSON lines) and prints the median of each stage per
file and mode. Modes: cold, warm, revisit, and any of them with a URL query after a colon
(warm:split=on reads a plain file with two workers, warm:workers=3 with three).
Wall time on a loaded machine measures the load: read the CPU columns and the proportions there.

  python3 bench/page_stages.py [--reps N] [--modes cold,warm] [--out F] [--table-only] FILE...
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# (name, what it is): the stages, in load order; their sum is the page's clock, file to paint.
STAGES = [
    ("to_begin", "file input's change event to the load's begin() (app.js: fleet check, gzip probe)"),
    ("queue", "begin() to the loader taking the open message (a warm-up stage still running)"),
    ("module", "the loader's module (compiled and instantiated, cold; ready, warm)"),
    ("to_read", "module to the first chunk (the File's first read, the split probes, Session)"),
    ("read_idle", "waiting for the File's chunks, less the prefault done meanwhile"),
    ("prefault", "page faults of the model's memory, taken in the read waits (prefault.js)"),
    ("feed", "inside the module: parsing the chunks"),
    ("split_wait", "the loader waiting for its helpers' parts and merging them (split reads only)"),
    ("read_other", "the rest of the read (progress messages, yields, stream setup)"),
    ("finish", "finish(): pairing, sorting, the model"),
    ("report_json", "the report's analyses and JSON (reportJson)"),
    ("markdown", "the report's Markdown"),
    ("post", "after the Markdown to the report's postMessage (GPU processes probe)"),
    ("transfer", "the report message to the page's main thread"),
    ("parse", "JSON.parse of the report on the main thread"),
    ("dom_sections", "the report's sections built (views/report.js renderReport)"),
    ("dom_attach", "the head built, sections into the page (show())"),
    ("dom_other", "the timeline tab, the export bar and history (timeline.loaded, reportShown, enter)"),
    ("paint", "style, layout and paint of the report, to the next frame's end"),
]


def stages_of(row):
    t = row.get("timings_ms") or {}
    w = t.get("worker") or {}
    if t.get("painted") is None or w.get("fed") is None or t.get("worker_start") is None:
        return None
    ws = t["worker_start"]
    s = {}
    s["to_begin"] = row.get("given_to_begin_ms") or 0
    s["queue"] = ws
    s["module"] = w.get("module", 0)
    s["to_read"] = w.get("first_chunk", w["fed"]) - w.get("module", 0)
    s["prefault"] = w.get("prefault_ms", 0)
    s["read_idle"] = max(0, w.get("read_wait_ms", 0) - w.get("prefault_ms", 0))
    s["feed"] = w.get("feed_ms", 0)
    # The loader's own reads are in read/feed; the wait for the helpers' parts and their merge.
    split = w.get("part_wait_ms", 0) + w.get("merge_ms", 0)
    s["split_wait"] = split
    read_span = w["fed"] - w.get("first_chunk", w["fed"])
    s["read_other"] = max(0, read_span - s["read_idle"] - s["prefault"] - s["feed"] - split)
    s["finish"] = w["finished"] - w["fed"]
    s["report_json"] = w["report_json"] - w["finished"]
    s["markdown"] = w.get("markdown", w["report_json"]) - w["report_json"]
    s["post"] = w.get("posted", w.get("markdown", w["report_json"])) - w.get("markdown", w["report_json"])
    s["transfer"] = t["received"] - (ws + w.get("posted", w.get("markdown", w["report_json"])))
    s["parse"] = t["parsed"] - t["received"]
    s["dom_sections"] = t.get("sections", t["shown"]) - t["parsed"]
    s["dom_attach"] = t.get("attached", t["shown"]) - t.get("sections", t["shown"])
    s["dom_other"] = t["shown"] - t.get("attached", t["shown"])
    s["paint"] = t["painted"] - t["shown"]
    return s


def run_one(path, mode):
    base, _, query = mode.partition(":")
    args = ["node", os.path.join(ROOT, "bench/ingest_browser.mjs"), path]
    if base == "warm":
        args.append("--warm")
    elif base == "revisit":
        args.append("--revisit")
    for q in filter(None, query.split("&")):
        args.append("--" + q)
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, timeout=1800)
    if r.returncode != 0:
        return {"ok": False, "error": r.stderr.decode(errors="replace")[-500:]}
    row = json.loads(r.stdout.decode().strip().splitlines()[-1])
    row["ok"] = row.get("state") == "ready"
    return row


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def table(rows):
    groups = {}
    for r in rows:
        if r.get("ok") and stages_of(r):
            groups.setdefault((r["file"], r["mode"]), []).append(r)
    out = []
    for (f, mode), rs in sorted(groups.items()):
        st = [stages_of(r) for r in rs]
        out.append("\n%s, %s: %d runs, load average %s; page %s s (%s MB/s), browser CPU %s s"
                   % (f, mode, len(rs), "-".join(sorted({str(r.get("loadavg")) for r in rs})),
                      "/".join("%.2f" % r["page_s"] for r in rs), "/".join("%.0f" % r["page_mb_per_s"] for r in rs),
                      "/".join("%.2f" % r["browser_cpu_s"] for r in rs)))
        out.append("| stage | median ms | runs, ms | share |")
        out.append("|---|---:|---|---:|")
        total = med([r["page_s"] * 1000 for r in rs])
        for name, _ in STAGES:
            v = med([s[name] for s in st])
            out.append("| %s | %.0f | %s | %.0f%% |" % (name, v, ", ".join("%.0f" % s[name] for s in st), 100 * v / total if total else 0))
        summed = med([sum(s.values()) for s in st])
        out.append("| (sum) | %.0f | | |" % summed)
        out.append("| page clock, file to paint | %.0f | %s | |" % (total, ", ".join("%.0f" % (r["page_s"] * 1000) for r in rs)))
        # CPU by thread, the busiest names
        names = {}
        for r in rs:
            for k, v in (r.get("thread_cpu_s") or {}).get("threads", {}).items():
                names.setdefault(k, []).append(v)
        busiest = sorted(names.items(), key=lambda kv: -sum(kv[1]))[:8]
        out.append("CPU s by thread (median): " + ", ".join("%s %.2f" % (k, statistics.median(v)) for k, v in busiest))
        workers = [(r.get("thread_cpu_s") or {}).get("workers", []) for r in rs]
        out.append("CPU s by worker, busiest first: " + " | ".join(", ".join("%.2f" % x for x in w) for w in workers))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="*")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--modes", default="cold,warm")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "page_stages.jsonl"))
    ap.add_argument("--table-only", action="store_true")
    a = ap.parse_args()
    if not a.table_only:
        os.makedirs(os.path.dirname(a.out), exist_ok=True)
        with open(a.out, "a") as out:
            for rep in range(1, a.reps + 1):
                for f in a.files:
                    for mode in a.modes.split(","):
                        t0 = time.time()
                        row = run_one(f, mode)
                        row.update({"mode": mode, "rep": rep, "path": f, "at": t0, "file": os.path.basename(f)})
                        out.write(json.dumps(row) + "\n")
                        out.flush()
                        print("[stages %s] rep %d %s %s: %s" % (time.strftime("%H:%M:%S"), rep, os.path.basename(f), mode,
                              "%.2f s" % row["page_s"] if row.get("ok") else "failed %s" % row.get("error")), file=sys.stderr)
    rows = [json.loads(l) for l in open(a.out)]
    if a.files:
        names = {os.path.basename(f) for f in a.files}
        rows = [r for r in rows if r.get("file") in names]
    print(table(rows))


if __name__ == "__main__":
    main()
