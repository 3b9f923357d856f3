#!/usr/bin/env python3
"""The fleet benchmark (docs/fleet.md): files per second and total time for N-rank jobs
(examples/fleet/generate.py) digested on a Dask LocalCluster of 1 and 2 workers, against the
CLI run serially on the same files (one `kinetoscope digest FILE -o -` process per file, what each
Dask task runs, and one `kinetoscope digest DIR -o OUT` process for all); and the reducer's peak
memory (tracemalloc) as ranks, steps and trace size change.

    /usr/bin/python3 bench/fleet.py [--ranks 64,512] [--workers 1,2]   # prints a Markdown table
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tracemalloc

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "examples", "fleet"))
from fleet import graph, reduce  # noqa: E402
import generate  # noqa: E402

EXE = os.path.join(ROOT, "build", "native", "kinetoscope")


def job(n, steps=4, layers=2):
    d = os.path.join(ROOT, "build", "fleet", "bench_%d_s%d_l%d" % (n, steps, layers))
    if not os.path.exists(os.path.join(d, "PLANTED")):
        generate.write_job(d, n, seed=7, steps=steps, layers=layers)
    return d


def serial(paths):
    t = time.monotonic()
    for p in paths:
        subprocess.run([EXE, "digest", p, "-o", "-"], stdout=subprocess.DEVNULL, check=True)
    return time.monotonic() - t


def serial_one_process(d):
    out = tempfile.mkdtemp(prefix="ks_bench_")
    try:
        t = time.monotonic()
        subprocess.run([EXE, "digest", d, "-o", out], check=True)
        return time.monotonic() - t
    finally:
        shutil.rmtree(out, ignore_errors=True)


def on_dask(paths, workers):
    from distributed import Client, LocalCluster
    t0 = time.monotonic()
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None)
    client = Client(cluster)
    start = time.monotonic() - t0
    try:
        r = reduce.Reducer()
        facts = graph.run(paths, r, exe=EXE, progress=False, client=client)
        doc = r.result(inputs=len(paths))
        return facts["seconds"], start, doc
    finally:
        client.close()
        cluster.close()


def reducer_peak(paths):
    """Digests made once (serially), then folded into a fresh reducer under tracemalloc."""
    texts = [subprocess.run([EXE, "digest", p, "-o", "-"], stdout=subprocess.PIPE, check=True).stdout
             for p in paths]
    tracemalloc.start()
    r = reduce.Reducer()
    for k, (p, t) in enumerate(zip(paths, texts)):
        r.add(k, p, json.loads(t), len(t))
        del t
    r.result()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak, sum(len(t) for t in texts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ranks", default="64,512")
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--memory", action="store_true", help="also the reducer's peak memory table")
    ap.add_argument("--reducer-ranks", type=int, default=0,
                    help="instead: the reducer alone on this many ranks (the 512-rank job's digests "
                         "repeated with new ranks and hosts): time and peak memory")
    ap.add_argument("--big-mb", type=int, default=0,
                    help="instead: the 8-rank DLRM set of ../shared/traces grown to this many MB a "
                         "rank (bench/make_big_trace.py), serial vs Dask")
    a = ap.parse_args()
    if a.big_mb:
        return big(a.big_mb, list(map(int, a.workers.split(","))))
    if a.reducer_ranks:
        return reducer_scale(a.reducer_ranks)
    rows = []
    for n in map(int, a.ranks.split(",")):
        d = job(n)
        paths = graph.expand([d])
        size = sum(os.path.getsize(p) for p in paths)
        s = serial(paths)
        s1 = serial_one_process(d)
        rows.append((n, "CLI serially, a process per file", s, None, size))
        rows.append((n, "CLI serially, one process", s1, None, size))
        for w in map(int, a.workers.split(",")):
            t, start, _ = on_dask(paths, w)
            rows.append((n, "Dask LocalCluster, %d worker%s" % (w, "" if w == 1 else "s"), t, start, size))
        base = s
        print("| ranks | how | total s | files/s | vs serial (process per file) | cluster start s |", flush=True)
        print("|---|---|---|---|---|---|")
        for r in rows:
            if r[0] != n:
                continue
            print("| %d | %s | %.2f | %.1f | %.2fx | %s |" % (
                r[0], r[1], r[2], r[0] / r[2], base / r[2], "%.1f" % r[3] if r[3] is not None else "-"), flush=True)
    if a.memory:
        print("\n| ranks | steps | layers | trace MB (gz) | digests KB | reducer peak KB |")
        print("|---|---|---|---|---|---|")
        for n, steps, layers in ((64, 4, 2), (64, 4, 8), (64, 16, 2), (512, 4, 2)):
            d = job(n, steps, layers)
            paths = graph.expand([d])
            size = sum(os.path.getsize(p) for p in paths)
            peak, dig = reducer_peak(paths)
            print("| %d | %d | %d | %.1f | %.0f | %.0f |" % (n, steps, layers, size / 1e6, dig / 1e3, peak / 1e3), flush=True)


def reducer_scale(n):
    paths = graph.expand([job(512)])
    texts = [subprocess.run([EXE, "digest", p, "-o", "-"], stdout=subprocess.PIPE, check=True).stdout
             for p in paths]
    def fold():
        r = reduce.Reducer()
        t = time.monotonic()
        for k in range(n):
            d = json.loads(texts[k % 512])
            d["rank"] += 512 * (k // 512)
            d["host"] = "%s-%d" % (d["host"], k // 512)
            r.add(k, paths[k % 512], d, len(texts[k % 512]))
        t_add = time.monotonic() - t
        doc = reduce.finish(r.result())
        return doc, t_add, time.monotonic() - t - t_add

    doc, t_add, t_result = fold()  # times without tracemalloc, which slows Python down
    tracemalloc.start()
    fold()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    out = json.dumps(doc, separators=(",", ":"))
    print("| ranks | fold in s | result s | reducer peak MB | fleet.json MB | findings |")
    print("|---|---|---|---|---|---|")
    print("| %d | %.2f | %.2f | %.1f | %.1f | %d |" % (n, t_add, t_result, peak / 1e6, len(out) / 1e6,
                                                     len(doc["findings"])))


def big(mb, workers):
    """Ranks of real size: each DLRM rank repeated to `mb` MB (more steps of the same job)."""
    import glob
    src = sorted(glob.glob(os.path.join(ROOT, "..", "shared", "traces", "param__dlrm_kineto__worker*.json")))
    d = os.path.join(ROOT, "build", "fleet", "big8_%dmb" % mb)
    os.makedirs(d, exist_ok=True)
    for k, p in enumerate(src):
        out = os.path.join(d, "rank-%d.json" % k)
        if not os.path.exists(out):
            subprocess.run([sys.executable, os.path.join(ROOT, "bench", "make_big_trace.py"), p, out,
                            "--target-mb", str(mb)], check=True, stdout=subprocess.DEVNULL)
    paths = graph.expand([d])
    size = sum(os.path.getsize(p) for p in paths)
    s = serial(paths)
    print("| ranks x MB | how | total s | MB/s | vs serial |")
    print("|---|---|---|---|---|")
    print("| %d x %d | CLI serially, a process per file | %.2f | %.0f | 1.00x |" % (len(paths), mb, s, size / 1e6 / s), flush=True)
    for w in workers:
        t, _, doc = on_dask(paths, w)
        print("| %d x %d | Dask LocalCluster, %d worker%s | %.2f | %.0f | %.2fx |" % (
            len(paths), mb, w, "" if w == 1 else "s", t, size / 1e6 / t, s / t), flush=True)
    print("\ndigests: %d KB for %.0f MB of traces (%.3f%%)" % (doc["digest_bytes"] / 1e3, size / 1e6,
                                                            100.0 * doc["digest_bytes"] / size))


if __name__ == "__main__":
    main()
