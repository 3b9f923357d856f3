#!/usr/bin/env python3
"""make bench: every trace shape (bench/shapes/make_shape.py) at every size through every reader,
interleaved, with a fixed reference workload read before, between and after the repetitions.

For each repetition, for each file (shape x size), each tool runs once in turn (A B C A B C ...):
  native_cli   build/native/kinetoscope report --format json (wall, peak RSS, user+sys)
  native_stages  (not in the default TOOLS) the CLI's stages from memory, wall and CPU (bench/stages_native.cpp)
  wasm_node    the WASM build in Node, fed in 1 MiB chunks as the page's worker does (bench/ingest_node.cjs)
  wasm_node_warm  the same after the page's warm-up on the module (ingest_node.cjs --warm), as the page's
               spare loader reads; the report's one-shot analyses then run optimized code
  page_cold    the page in headless Chromium, the file given as soon as the page is loaded
  page_warm    the same once the page's spare loader is warm (bench/ingest_browser.mjs --warm)
  page_revisit (not in the default TOOLS) a returning visitor's cold load: a first browser reads the
               file and closes, a second on the same profile reads it cold, with the optimized code
               Chromium kept beside the cached .wasm (bench/ingest_browser.mjs --revisit)
  devtools     the Chrome DevTools trace engine in Node (../shared/peers; files < 537 MB: V8's string limit)
  speedscope   speedscope in Chromium (../shared/peers; files <= SPEEDSCOPE_MAX_MB, first SPEEDSCOPE_REPS reps)
The reference: the bare simdjson walk (WASM, Node; fixed code) over one fixed file (the real
ResNet-50 trace, 30 MB), 3 walks per reading; a reading more than 15% off the run's median flags the
repetitions next to it (the machine's speed changed). Raw rows: build/bench/results.jsonl (one per run,
plus the reference readings); the table: bench/summarize_shapes.py, printed at the end.

Environment: SIZES="200 1024" (MB), REPS=3, SHAPES="resnet pystack nccl tiny_kernels amd" (SHAPES_1024="..."
for one size only; REPS_1024=2: fewer repetitions at that size),
TOOLS="native_cli wasm_node wasm_node_warm page_cold page_warm devtools speedscope", PEERS=1 (0: no peers),
SPEEDSCOPE_MAX_MB=250, SPEEDSCOPE_REPS=1, SPEEDSCOPE_TIMEOUT_S=900, BENCH_DATA=/tmp/kinetoscope-bench,
KS_SHARED_DIR=../shared, CLEAN=1 (delete the generated files at the end), RESULTS=build/bench/results.jsonl.
"""
import json
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
os.chdir(ROOT)
env = os.environ.get
SIZES = [int(s) for s in env("SIZES", "200 1024").split()]
REPS = int(env("REPS", "3"))
SHAPES = env("SHAPES", "resnet pystack nccl tiny_kernels amd").split()
TOOLS = env("TOOLS", "native_cli wasm_node wasm_node_warm page_cold page_warm devtools speedscope").split()
if env("PEERS", "1") == "0":
    TOOLS = [t for t in TOOLS if t not in ("devtools", "speedscope")]
SPEEDSCOPE_MAX_MB = float(env("SPEEDSCOPE_MAX_MB", "250"))
SPEEDSCOPE_REPS = int(env("SPEEDSCOPE_REPS", "1"))
SPEEDSCOPE_TIMEOUT_S = int(env("SPEEDSCOPE_TIMEOUT_S", "900"))
DATA = env("BENCH_DATA", "/tmp/kinetoscope-bench")
SHARED = env("KS_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
OUT = os.path.join(ROOT, "build", "bench")
RESULTS = env("RESULTS", os.path.join(OUT, "results.jsonl"))
V8_STRING_LIMIT = 0x1FFFFFE8  # the DevTools engine reads the file as one string
CLI = os.path.join(ROOT, "build", "native", "kinetoscope")


def log(*a):
    print("[bench %s]" % time.strftime("%H:%M:%S"), *a, file=sys.stderr, flush=True)


def last_json(text):
    """The last JSON object in a tool's output (the peers print logs, then a pretty-printed object)."""
    t = text.strip()
    if t.startswith("{") and t.endswith("}"):
        try:
            return json.loads(t)
        except ValueError:
            pass
    for line in reversed(t.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                break
    return json.loads(t[t.index("{"):])


def run(cmd, timeout=None):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return r.returncode, r.stdout.decode(errors="replace"), r.stderr.decode(errors="replace")


def ensure_files():
    files = []
    os.makedirs(os.path.join(DATA, "shapes"), exist_ok=True)
    for mb in SIZES:
        for shape in env("SHAPES_%d" % mb, " ".join(SHAPES)).split():
            f = os.path.join(DATA, "shapes", "%s_%dmb.json" % (shape, mb))
            if not os.path.exists(f):
                log("generating", f)
                rc, out, err = run([sys.executable, "bench/shapes/make_shape.py", "--shape", shape,
                                    "--target-mb", str(mb), "--out", f + ".part", "--shared", SHARED])
                if rc != 0:
                    sys.exit("make_shape failed for %s: %s" % (shape, err[-2000:]))
                os.rename(f + ".part", f)
            files.append((shape, mb, f))
    return files


def reference_reading(label):
    """The fixed workload: 3 simdjson walks over the fixed file; MB/s of wall and of CPU time."""
    f = os.path.join(DATA, "reference_resnet50.json")
    if not os.path.exists(f):
        src = os.path.join(SHARED, "traces", "kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz")
        subprocess.run("gunzip -c '%s' > '%s'" % (src, f), shell=True, check=True)
    rc, out, err = run(["node", "bench/reference.cjs", f, "3"])
    row = {"tool": "reference", "label": label, "at": time.time()}
    try:
        row.update(json.loads(out))
    except ValueError:
        row["error"] = (err or out)[-500:]
    log("reference %s: %s MB/s wall, %s MB/s CPU" % (label, row.get("mb_per_s"), row.get("cpu_mb_per_s")))
    return row


def native_cli(f, first):
    rep = os.path.join(OUT, "native_report.json")
    rc, out, err = run(["/usr/bin/time", "-f", "TIME %e %M %U %S", CLI, "report", "--format", "json", f, "-o", rep])
    t = [l for l in err.splitlines() if l.startswith("TIME ")][-1].split()
    row = {"ok": rc == 0, "seconds": float(t[1]), "peak_bytes": int(t[2]) * 1024, "cpu_s": float(t[3]) + float(t[4])}
    if first and rc == 0:
        with open(rep) as h:
            r = json.load(h)
        row["diagnostics"] = {d["code"]: d["count"] for d in r.get("diagnostics", [])}
        row["events"] = r["trace"]["events_total"]
    if rc != 0:
        row["error"] = err[-500:]
    return row


def native_stages(f, first):
    """The native stages (read, feed, finish, report) in wall and CPU seconds (bench/stages_native.cpp)."""
    exe = os.path.join(OUT, "stages_native")
    if not os.path.exists(exe):
        subprocess.run(["g++", "-std=c++17", "-O2", "-march=native", "-Isrc", "bench/stages_native.cpp",
                        "build/native/libks_core.a", "-lsimdjson", "-lz", "-lsqlite3", "-o", exe], check=True)
    rc, out, err = run([exe, f])
    if rc != 0:
        return {"ok": False, "error": err[-500:]}
    d = json.loads(out)
    st = d["stages"]
    return {"ok": d["ok"], "seconds": sum(v["wall_s"] for v in st.values()),
            "cpu_s": sum(v["cpu_s"] for v in st.values()),
            "stages_s": {k: v["wall_s"] for k, v in st.items()},
            "stages_cpu_s": {k: v["cpu_s"] for k, v in st.items()}}


def wasm_node(f, first, warm=False):
    rc, out, err = run(["node", "--max-old-space-size=8192", "bench/ingest_node.cjs", f, "--no-walk"] +
                       (["--warm"] if warm else []))
    if rc != 0:
        return {"ok": False, "error": err[-500:]}
    d = json.loads(out)
    return {"ok": d["ok"], "seconds": d["ingest_s"] + d["report_s"], "peak_bytes": d["wasm_heap_bytes"],
            "cpu_s": d["cpu_s"], "stages_s": {"read+feed+finish": d["ingest_s"], "report": d["report_s"]}}


def page(f, warm, revisit=False):
    mode = ["--warm"] if warm else ["--revisit"] if revisit else []
    rc, out, err = run(["node", "bench/ingest_browser.mjs", f] + mode, timeout=3600)
    if rc != 0:
        return {"ok": False, "error": err[-500:]}
    d = json.loads(out.strip().splitlines()[-1])
    t = d.get("timings_ms") or {}
    w = t.get("worker") or {}
    row = {"ok": d["state"] == "ready", "seconds": d["page_s"], "harness_seconds": d["to_report_s"],
           # with what the warm loader wrote before the file (pretouched): it is the load's memory
           "peak_bytes": d["browser_rss_peak_bytes"] - d["browser_rss_base_bytes"] + d.get("pretouched_bytes", 0),
           "timings_ms": t,
           "cpu_s": d.get("browser_cpu_s")}
    if w.get("finished") is not None and t.get("painted") is not None:
        # read: waiting for the File's chunks; feed: inside the module; finish: the model;
        # report: report JSON + Markdown in the worker, then transfer, layout and paint.
        stages = {"read": w.get("read_wait_ms", 0), "feed": w.get("feed_ms", 0),
                  "finish": w["finished"] - w.get("fed", w["finished"]),
                  "report": (w.get("markdown", w["finished"]) - w["finished"]) + (t["painted"] - t.get("received", t["painted"]))}
        stages["other"] = max(0.0, d["page_s"] * 1000 - sum(stages.values()))
        row["stages_s"] = {k: round(v / 1000, 3) for k, v in stages.items()}
    return row


def devtools(f, first):
    if os.path.getsize(f) >= V8_STRING_LIMIT:
        return {"ok": False, "skipped": "past V8's string limit (0x1fffffe8 characters): the engine cannot read it"}
    rc, out, err = run(["bash", os.path.join(SHARED, "peers", "peer_trace_engine.sh"), f])
    d = last_json(out)
    t = d.get("timings_s", {})
    ok = bool(d.get("ok"))
    return {"ok": ok, "seconds": sum(t.get(k, 0) for k in ("read", "json_parse", "engine_parse")) if ok else None,
            "peak_bytes": ((d.get("time_v") or {}).get("max_rss_mb") or 0) * 2**20,
            "cpu_s": ((d.get("time_v") or {}).get("user_s") or 0) + ((d.get("time_v") or {}).get("sys_s") or 0),
            "error": None if ok else str(d.get("error"))[:300]}


def speedscope(f, rep):
    if os.path.getsize(f) > SPEEDSCOPE_MAX_MB * 2**20 or rep > SPEEDSCOPE_REPS:
        return None
    e = dict(os.environ, PEER_TIMEOUT_S=str(SPEEDSCOPE_TIMEOUT_S))
    r = subprocess.run(["bash", os.path.join(SHARED, "peers", "peer_speedscope.sh"), f, "--sanitize"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
    d = last_json(r.stdout.decode(errors="replace"))
    s = (d.get("timings_s") or {}).get("to_rendered")
    error = d.get("error") or (d.get("errors") or {}).get("failure")
    return {"ok": bool(s), "seconds": s, "peak_bytes": (d.get("peak_browser_tree_rss_mb") or 0) * 2**20,
            "error": None if s else str(error)[:300]}


def main():
    os.makedirs(OUT, exist_ok=True)
    if not os.path.exists(CLI) or not os.path.exists("build/wasm/kinetoscope_wasm.wasm"):
        sys.exit("build first: make native wasm")
    if not os.path.exists("build/bench/simdjson_walk.js"):
        subprocess.run(["bash", "bench/simdjson_walk/build.sh"], check=True, stdout=subprocess.DEVNULL)
    files = ensure_files()
    if any(t in TOOLS for t in ("devtools", "speedscope")):
        subprocess.run(["bash", os.path.join(SHARED, "peers", "install.sh"), "all"], check=False)
    log("files:", ", ".join("%s %d MB" % (s, mb) for s, mb, _ in files), "| reps:", REPS, "| tools:", " ".join(TOOLS))
    results = open(RESULTS, "w")

    def emit(row):
        results.write(json.dumps(row) + "\n")
        results.flush()

    emit({"tool": "run", "started": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "sizes": SIZES,
          "reps": REPS, "shapes": SHAPES, "tools": TOOLS, "nproc": os.cpu_count(), "speedscope_timeout_s": SPEEDSCOPE_TIMEOUT_S,
          "loadavg_start": os.getloadavg()})
    emit(reference_reading("before"))
    for rep in range(1, REPS + 1):
        for shape, mb, f in files:
            if rep > int(env("REPS_%d" % mb, str(REPS))):
                continue
            size = os.path.getsize(f)
            for tool in TOOLS:
                t0 = time.time()
                try:
                    if tool == "native_cli":
                        row = native_cli(f, rep == 1)
                    elif tool == "native_stages":
                        row = native_stages(f, rep == 1)
                    elif tool == "wasm_node":
                        row = wasm_node(f, rep == 1)
                    elif tool == "wasm_node_warm":
                        row = wasm_node(f, rep == 1, warm=True)
                    elif tool == "page_cold":
                        row = page(f, False)
                    elif tool == "page_warm":
                        row = page(f, True)
                    elif tool == "page_revisit":
                        row = page(f, False, revisit=True)
                    elif tool == "devtools":
                        row = devtools(f, rep == 1)
                    elif tool == "speedscope":
                        row = speedscope(f, rep)
                    else:
                        sys.exit("unknown tool " + tool)
                except Exception as e:  # a tool that fails is a row, not the end of the run
                    row = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
                if row is None:
                    continue
                row.update({"tool": tool, "shape": shape, "size_mb": mb, "file": os.path.basename(f),
                            "json_bytes": size, "rep": rep, "at": t0, "loadavg": os.getloadavg()[0]})
                mbps = size / 1e6 / row["seconds"] if row.get("ok") and row.get("seconds") else None
                log("rep %d %s %d MB %s: %s" % (rep, shape, mb, tool, "%.0f MB/s" % mbps if mbps else
                                               (row.get("skipped") or "failed: %s" % row.get("error"))))
                emit(row)
        emit(reference_reading("after rep %d" % rep))
    results.close()
    if env("CLEAN", "0") == "1":
        for _, _, f in files:
            os.remove(f)
    subprocess.run([sys.executable, "bench/summarize_shapes.py", RESULTS])


if __name__ == "__main__":
    main()
