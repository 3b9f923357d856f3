#!/usr/bin/env python3
"""The table of make bench (bench/run_shapes.py) from build/bench/results.jsonl: per shape, size and
tool the median MB/s of JSON over the repetitions (min-max), CPU-time MB/s where the tool gives its
CPU time (it stays comparable under load), peak memory and its ratio to the JSON size, and for the
peers how many times faster Kinetoscope's page is (peer seconds / page seconds, cold, on the
harness's clock as for the peers: ratio > 1, Kinetoscope is faster). Then the reference readings
(slow periods) and the targets of issue #19 each row misses, with the largest stage of each miss.
  python3 bench/summarize_shapes.py [build/bench/results.jsonl]
"""
import json
import statistics
import sys
from collections import OrderedDict, defaultdict

PAGE_MBPS, NATIVE_MBPS, MEM_RATIO, COLD_SLACK, SLOW = 300, 500, 0.35, 0.20, 0.15
PEERS = ("devtools", "speedscope")
TOOL_NOTE = {
    "native_cli": "CLI report, whole run; peak RSS",
    "wasm_node": "WASM in Node, 1 MiB chunks + report; WASM heap",
    "wasm_node_warm": "the same after the page's warm-up (--warm); WASM heap",
    "native_stages": "native read + feed + finish + report from memory, one thread",
    "page_cold": "page clock, file given at load; browser RSS growth",
    "page_warm": "page clock, spare loader warm; browser RSS growth",
    "page_revisit": "page clock, file given at load, a returning visitor (cached optimized code)",
    "devtools": "DevTools trace engine (Node): read + JSON.parse + model; RSS",
    "speedscope": "speedscope: file to first flame graph; browser RSS",
}

rows = [json.loads(l) for l in open(sys.argv[1] if len(sys.argv) > 1 else "build/bench/results.jsonl") if l.strip()]
run = next((r for r in rows if r.get("tool") == "run"), {})
refs = [r for r in rows if r.get("tool") == "reference"]
data = [r for r in rows if r.get("tool") not in ("run", "reference")]

groups = OrderedDict()
for r in data:
    groups.setdefault((r["shape"], r["size_mb"]), OrderedDict()).setdefault(r["tool"], []).append(r)


def med(xs):
    return statistics.median(xs) if xs else None


def fmt(x, f="%.0f"):
    return f % x if x is not None else "-"


def summary(rs):
    """median/min/max MB/s, CPU MB/s, median seconds and peak bytes over a tool's successful runs."""
    ok = [r for r in rs if r.get("ok") and r.get("seconds")]
    if not ok:
        return None
    b = ok[0]["json_bytes"]
    mbps = [b / 1e6 / r["seconds"] for r in ok]
    cpu = [b / 1e6 / r["cpu_s"] for r in ok if r.get("cpu_s")]
    peaks = [r["peak_bytes"] for r in ok if r.get("peak_bytes")]
    stages, cpu_stages = defaultdict(list), defaultdict(list)
    for r in ok:
        for k, v in (r.get("stages_s") or {}).items():
            stages[k].append(v)
        for k, v in (r.get("stages_cpu_s") or {}).items():
            cpu_stages[k].append(v)
    return {"n": len(ok), "of": len(rs), "mbps": med(mbps), "min": min(mbps), "max": max(mbps),
            "cpu_mbps": med(cpu), "seconds": med([r["seconds"] for r in ok]),
            "harness_seconds": med([r["harness_seconds"] for r in ok if r.get("harness_seconds")]),
            "peak": max(peaks) if peaks else None, "json_bytes": b,
            "stages": {k: med(v) for k, v in stages.items()},
            "cpu_stages": {k: med(v) for k, v in cpu_stages.items()}}


print("make bench, started %s, %s reps, %s CPUs, load average at start %s" % (
    run.get("started", "?"), run.get("reps", "?"), run.get("nproc", "?"),
    " ".join("%.1f" % x for x in run.get("loadavg_start", []))))
print()
print("| shape | JSON MB | tool | median MB/s | min-max MB/s | CPU-time MB/s | peak MB | peak / JSON | Kinetoscope page is x faster | runs | what is timed |")
print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|")
summaries = {}
for (shape, mb), tools in groups.items():
    page = summary(tools.get("page_cold", []))
    page_s = page and (page["harness_seconds"] or page["seconds"])
    for tool, rs in tools.items():
        s = summary(rs)
        summaries[(shape, mb, tool)] = s
        jmb = rs[0]["json_bytes"] / 1e6
        if not s:
            err = str(rs[0].get("error"))
            why = rs[0].get("skipped") or ("failed: " + err[:80].replace("|", "/").replace("\n", " "))
            bound = "-"
            if err.startswith("timeout"):  # the peer was stopped at the limit: a lower bound
                limit = run.get("speedscope_timeout_s", 120)
                why = "stopped at the %d s limit (did not draw)" % limit
                bound = "> %.0f" % (limit / page_s) if page_s else "-"
            print("| %s | %.0f | %s | - | - | - | - | - | %s | 0/%d | %s |" % (shape, jmb, tool, bound, len(rs), why))
            continue
        ratio = "%.1f" % (s["seconds"] / page_s) if tool in PEERS and page_s else "-"
        peak_mb = s["peak"] / 1e6 if s["peak"] else None
        print("| %s | %.0f | %s | %s | %s-%s | %s | %s | %s | %s | %d/%d | %s |" % (
            shape, jmb, tool, fmt(s["mbps"]), fmt(s["min"]), fmt(s["max"]), fmt(s["cpu_mbps"]),
            fmt(peak_mb), fmt(s["peak"] / s["json_bytes"] if s["peak"] else None, "%.2fx"), ratio,
            s["n"], s["of"], TOOL_NOTE.get(tool, "")))

print()
print("Reference workload (simdjson walk, WASM in Node, fixed file; median of 3 walks per reading):")
print()
ref_mbps = [r["mb_per_s"] for r in refs if r.get("mb_per_s")]
ref_med = med(ref_mbps)
print("| reading | wall MB/s | CPU-time MB/s | off the run's median |")
print("|---|---:|---:|---:|")
slow = []
for r in refs:
    if not r.get("mb_per_s"):
        print("| %s | failed | - | - |" % r.get("label"))
        continue
    off = r["mb_per_s"] / ref_med - 1
    flag = " **> 15% off**" if abs(off) > SLOW else ""
    if flag:
        slow.append(r["label"])
    print("| %s | %d | %d | %+.0f%%%s |" % (r["label"], r["mb_per_s"], r.get("cpu_mb_per_s", 0), off * 100, flag))
if ref_mbps:
    spread = (max(ref_mbps) - min(ref_mbps)) / ref_med
    print()
    print("Reference spread over the run: %.0f%% (%s)." % (
        spread * 100, "flagged: " + ", ".join(slow) + " — the repetitions next to these ran while the machine's speed changed"
        if slow else "no reading more than 15% off the median"))

print()
print("Targets (issue #19): page warm >= %d MB/s, page cold within %d%% of warm, native CLI >= %d MB/s, memory <= %.2fx the JSON." % (
    PAGE_MBPS, COLD_SLACK * 100, NATIVE_MBPS, MEM_RATIO))
print()
misses = 0
for (shape, mb), tools in groups.items():
    warm, cold, nat = (summaries.get((shape, mb, t)) for t in ("page_warm", "page_cold", "native_cli"))
    top = None
    if warm and warm["stages"]:
        k = max(warm["stages"], key=warm["stages"].get)
        top = "%s %.2f s of %.2f s" % (k, warm["stages"][k], warm["seconds"])
    label = "%s %d MB" % (shape, mb)
    if warm and warm["mbps"] < PAGE_MBPS:
        misses += 1
        print("- %s: page warm %.0f MB/s, %.0f%% short of %d; largest stage: %s (stages: %s)" % (
            label, warm["mbps"], (1 - warm["mbps"] / PAGE_MBPS) * 100, PAGE_MBPS, top,
            ", ".join("%s %.2f" % kv for kv in sorted(warm["stages"].items(), key=lambda kv: -kv[1]))))
    if warm and cold and cold["seconds"] > warm["seconds"] * (1 + COLD_SLACK):
        misses += 1
        print("- %s: page cold %.2f s vs warm %.2f s (+%.0f%%, allowed +%d%%)" % (
            label, cold["seconds"], warm["seconds"], (cold["seconds"] / warm["seconds"] - 1) * 100, COLD_SLACK * 100))
    if nat and nat["mbps"] < NATIVE_MBPS:
        misses += 1
        w = summaries.get((shape, mb, "wasm_node"))
        split = ""
        if w and w["stages"]:
            total = sum(w["stages"].values())  # medians of each stage: shares of their sum
            split = "; in the WASM build the same file spends %.0f%% in read+feed+finish, %.0f%% in the report" % (
                100 * w["stages"].get("read+feed+finish", 0) / total, 100 * w["stages"].get("report", 0) / total)
        ns = summaries.get((shape, mb, "native_stages"))
        if ns and ns["cpu_stages"]:
            cs = ns["cpu_stages"]
            split = "; native stages in CPU seconds (bench/stages_native): " + ", ".join(
                "%s %.2f" % kv for kv in sorted(cs.items(), key=lambda kv: -kv[1]))
        print("- %s: native CLI %.0f MB/s wall (%s MB/s of CPU time), %.0f%% short of %d%s" % (
            label, nat["mbps"], fmt(nat["cpu_mbps"]), (1 - nat["mbps"] / NATIVE_MBPS) * 100, NATIVE_MBPS, split))
    for t in ("native_cli", "page_warm", "page_cold", "wasm_node", "wasm_node_warm"):
        s = summaries.get((shape, mb, t))
        if s and s["peak"] and s["peak"] / s["json_bytes"] > MEM_RATIO:
            misses += 1
            print("- %s: %s peak memory %.2fx the JSON (target %.2fx)" % (label, t, s["peak"] / s["json_bytes"], MEM_RATIO))
if not misses:
    print("- none missed")
