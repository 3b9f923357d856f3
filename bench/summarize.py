#!/usr/bin/env python3
"""Summarizes build/bench/results.jsonl (written by bench/run.sh) as a Markdown table: per file
and tool, MB/s of JSON and peak memory, and Kinetoscope-in-Chromium's speed as a ratio to each
other tool on the same file (ratio > 1: Kinetoscope is faster)."""
import json
import sys
from collections import defaultdict

rows = [json.loads(l) for l in open(sys.argv[1] if len(sys.argv) > 1 else "build/bench/results.jsonl") if l.strip()]


def seconds_and_memory(r):
    """(seconds, peak MB, note) for one result row, whatever tool wrote it."""
    tool = r.get("tool")
    if tool == "native_cli":
        return r.get("seconds"), r.get("peak_rss_kb", 0) / 1024, "read + model + report, 1 thread"
    if tool == "wasm_node":
        return r.get("ingest_s", 0) + r.get("report_s", 0), r.get("wasm_heap_bytes", 0) / 1e6, "WASM heap"
    if tool == "chromium_page":
        growth = r.get("browser_rss_peak_bytes", 0) - r.get("browser_rss_base_bytes", 0)
        return r.get("to_report_s"), growth / 1e6, "file input to report shown (harness clock, as for the peers); browser RSS growth"
    if tool == "chromium_page_clock":
        return r.get("page_s"), None, "the same load on the page's own clock (change event to report painted)"
    if tool == "chromium_page_warm":
        growth = r.get("browser_rss_peak_bytes", 0) - r.get("browser_rss_base_bytes", 0)
        return r.get("page_s"), growth / 1e6, "page clock, file given once the page's spare loader is warm"
    if tool == "devtools_trace_engine":
        t = r.get("timings_s", {})
        s = sum(t.get(k, 0) for k in ("read", "json_parse", "engine_parse")) if r.get("ok") else None
        return s, (r.get("time_v") or {}).get("max_rss_mb"), "read + JSON.parse + engine (node)"
    if tool == "speedscope":
        t = r.get("timings_s", {})
        return t.get("to_rendered"), r.get("peak_browser_tree_rss_mb"), "file to first flame graph"
    return None, None, ""


by_file = defaultdict(dict)
sizes = {}
walk = {}
for r in rows:
    f = r.get("file", "?").split("/")[-1]
    by_file[f][r["tool"]] = r
    if r.get("json_bytes"):
        sizes[f] = r["json_bytes"]
    if r.get("walk_mb_per_s"):
        walk[f] = r["walk_mb_per_s"]

print("| file | JSON MB | tool | seconds | MB/s | peak MB | Kinetoscope (page) is x faster | note |")
print("|---|---:|---|---:|---:|---:|---:|---|")
for f, tools in by_file.items():
    mb = sizes.get(f, 0) / 1e6
    page = tools.get("chromium_page")
    page_s = seconds_and_memory(page)[0] if page else None
    for tool, r in tools.items():
        s, mem, note = seconds_and_memory(r)
        mbps = mb / s if s else None
        ratio = (s / page_s) if (s and page_s and not tool.startswith("chromium_page")) else None
        print("| %s | %.0f | %s | %s | %s | %s | %s | %s |" % (
            f, mb, tool, "%.2f" % s if s else "failed", "%.0f" % mbps if mbps else "-",
            "%.0f" % mem if mem else "-", "%.2f" % ratio if ratio else "-", note))
    if f in walk:
        print("| %s | %.0f | simdjson walk (WASM, node) | %.2f | %.0f | - | %s | the ceiling: whole file in memory, no model |" % (
            f, mb, mb / walk[f], walk[f], "%.2f" % ((mb / walk[f]) / page_s) if page_s else "-"))
