#!/usr/bin/python3
"""Two nodes' ranks merged into one Kineto file, both ranks' GPU on the same device pid 0, built
from a real one-rank trace (../shared/traces): DLRM worker0 (NCCL all-to-all) and a copy of it
as the second node's rank, as a tool that concatenates two nodes' traces writes it. Each node
numbers its own processes and GPUs, so the copy keeps GPU pid 0, its stream tids, "device": 0
and its correlation and flow ids (each rank's CUPTI counts from 1); only its host pid differs
(+100000) and its clock runs 30 us ahead.

Before: one GPU track held both ranks' kernels, rank 1's kernels were joined to rank 0's
launches (launch GPU time doubled) and a false kernels.overhead_dominant fired. Each rank's
kernels must stay with its own launches: the report compares two ranks, each with one rank's
kernels, launches and findings, and with rank 1's NCCL kernels a fifth as long (it arrives last
at every collective, so it waits least) names rank 1 the straggler.

Each rank's part reads like the one-rank file: the same events by phase, slices, categories and
span (its metadata events: the file's idle GPU processes, which the merge copied and no rank
launched onto, are in every part), and no overlap diagnostic of the shared stream. Its
diagnostics are its own, counted as the one-rank file counts them, not marked "Counted over the
whole file": flows paired again in the part, its slices' order, and an X without "dur" planted in
rank 1's copy is rank 1's alone. (Before: every part showed the file's counts, each marked as
the whole file's.)

The twin (--own-gpu): the copy's GPU events on GPU pid 1 ("device": 1), as when two ranks'
traces each kept their own GPU pid: one host process launching only onto pid 0, another only
onto pid 1. Before: one report of one process driving two GPUs; two ranks now, as above.
(tests/corpus/one_process_gpus.py: ONE process driving 8 GPUs stays one rank.)

Usage: /usr/bin/python3 tests/corpus/merged_ranks.py --cli build/native/kinetoscope [-v]
       /usr/bin/python3 tests/corpus/merged_ranks.py --write FILE [--straggler] [--own-gpu]
       (the merged file alone, for the page's test tests/browser/ranks.mjs and the fleet's)
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402  (the exact-number JSON reader and writer)

BASE = "param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json"
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync")
HOST_PID_SHIFT = 100000


def merged(doc, straggler_nccl=False, own_gpu=False, plant=False):
    """doc with a second node's copy of every event; its GPU events on the same pids (own_gpu:
    on the next pid, with that device). plant: the copy's middle CPU op loses its "dur" (a
    complete_without_dur that is rank 1's alone)."""
    ev = doc["traceEvents"]
    gpu_pids = {e["pid"] for e in ev if e.get("cat") in GPU_CATS}
    add = []
    for e in ev:
        if not isinstance(e.get("pid"), int) or e["pid"] in gpu_pids:
            if e.get("ph") == "M" or not isinstance(e.get("pid"), int):
                continue  # the GPU pids' metadata is there once already
            y = dict(e)
            if own_gpu:
                y["pid"] = e["pid"] + 1  # the file's idle "GPU 1" process: named already
                if isinstance(e.get("args"), dict) and "device" in e["args"]:
                    y["args"] = dict(e["args"], device=e["args"]["device"] + 1)
        else:
            y = dict(e, pid=e["pid"] + HOST_PID_SHIFT)
        if "ts" in y and y.get("ph") != "M":
            y["ts"] = mm.dec(y["ts"]) - 30
        if (straggler_nccl and y.get("cat") == "kernel"
                and "nccl" in str(y.get("name", "")).lower()):
            y["dur"] = mm.dec(y["dur"]) / 5
        add.append(y)
    if plant:
        ops = [y for y in add if y.get("cat") == "cpu_op" and y.get("ph") == "X"]
        del ops[len(ops) // 2]["dur"]
    doc["traceEvents"] = ev + add
    return doc


ids = corpus_cli.finding_ids


def rank_metadata(doc, rank, own_gpu):
    """The metadata events rank `rank`'s part holds: all but those of the other rank's host
    process (and, own_gpu, its GPU process). The file's idle processes (its GPU 1-7, copied with
    the host pid shift) were launched onto by no rank: every part has them."""
    ev = doc["traceEvents"]
    host = next(e["pid"] for e in ev if e.get("cat") == "cuda_runtime")
    other = [{host + HOST_PID_SHIFT, 1}, {host, 0}][rank] if own_gpu else \
        [{host + HOST_PID_SHIFT}, {host}][rank]
    return sum(1 for e in ev if e.get("ph") == "M" and e.get("pid") not in other)


def check_counts(c, what, rep, one, metadata, k):
    """A rank's part counts its own events, as the one-rank file it came from; its diagnostics
    are its own where their events are known: rank 1 alone has the planted X without dur."""
    t, o = rep["trace"], one["trace"]
    want = dict(o["events_by_phase"], M=metadata)
    total = o["events_total"] - o["events_by_phase"].get("M", 0) + metadata
    c.check("%s: its own events by phase" % what, t["events_by_phase"] == want,
            "%s vs %s" % (t["events_by_phase"], want))
    c.check("%s: its own event count" % what, t["events_total"] == total,
            "%s vs %s" % (t["events_total"], total))
    for key in ("slices", "categories", "span_us", "threads", "gpu_streams"):
        c.check("%s: the one-rank file's %s" % (what, key), t[key] == o[key],
                "%s vs %s" % (t[key], o[key]))
    codes = {d["code"]: d for d in rep["diagnostics"]}
    want = {d["code"]: d for d in one["diagnostics"]}
    if k == 1:
        want["complete_without_dur"] = {"count": 1}
    c.check("%s: the one-rank file's diagnostics (no overlap of the shared stream)" % what,
            sorted(codes) == sorted(want), "%s vs %s" % (sorted(codes), sorted(want)))
    for code, d in codes.items():
        if code in want:
            c.check("%s: %s counted in this part alone" % (what, code),
                    d["count"] == want[code]["count"] and "whole file" not in d["message"],
                    "%s vs %s: %s" % (d["count"], want[code]["count"], d["message"]))


def check_digests(c, what, cli, path, tmp, straggler):
    """kinetoscope digest writes one digest per rank of the merged file, as the report splits it."""
    out = os.path.join(tmp, "digests")
    shutil.rmtree(out, ignore_errors=True)
    p = subprocess.run([cli, "digest", path, "-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    names = sorted(os.listdir(out)) if p.returncode == 0 else []
    c.check("%s: digest writes one digest per rank" % what,
            names == ["merged.rank0.digest.json", "merged.rank1.digest.json"],
            "%s %s %s" % (p.returncode, names, p.stderr[-300:]))
    for k, name in enumerate(names):
        with open(os.path.join(out, name)) as f:
            d = json.load(f)
        c.check("%s: digest %d is rank %d of the file" % (what, k, k),
                d["rank"] == k and d["rank_source"] == "launching process in the file",
                "%s %s" % (d["rank"], d["rank_source"]))


def main():
    def extra(ap):
        ap.add_argument("--write", help="write the merged file to WRITE and stop")
        ap.add_argument("--straggler", action="store_true", help="with rank 1 the straggler")
        ap.add_argument("--own-gpu", action="store_true", help="rank 1's GPU on a pid of its own")

    args = corpus_cli.arguments(mm.TRACES, extra)
    if args is None:
        return 0
    if args.write:
        with open(args.write, "wb") as f:
            f.write(mm.dump(merged(mm.load(os.path.join(mm.TRACES, BASE)), args.straggler,
                                   args.own_gpu)))
        return 0
    c = corpus_cli.Checker(args.v)
    with tempfile.TemporaryDirectory() as tmp:
        one_path = os.path.join(mm.TRACES, BASE)
        one = corpus_cli.report(args.cli, [one_path])
        for straggler, own_gpu in ((False, False), (True, False), (False, True), (True, True)):
            what = "merged%s%s" % (" on GPU pids of their own" if own_gpu else "",
                                   " (rank 1 straggles)" if straggler else "")
            path = os.path.join(tmp, "merged.json")
            doc = merged(mm.load(one_path), straggler, own_gpu, plant=True)
            with open(path, "wb") as f:
                f.write(mm.dump(doc))
            r = corpus_cli.report(args.cli, [path])
            reports = r.get("reports") or []
            c.check("%s: a report of 2 ranks" % what,
                    r.get("schema", "").startswith("kinetoscope.multirank") and len(reports) == 2,
                    str(r.get("schema")))
            if len(reports) != 2:
                continue
            for k, rep in enumerate(reports):
                c.check("%s: rank %d has one rank's kernels" % (what, k),
                        rep["trace"]["categories"].get("kernel")
                        == one["trace"]["categories"]["kernel"],
                        str(rep["trace"]["categories"]))
                c.check("%s: rank %d's launches joined to its own kernels" % (what, k),
                        rep["launch_stats"]["launches"] == one["launch_stats"]["launches"]
                        and (straggler or rep["launch_stats"]["gpu_us"]
                             == one["launch_stats"]["gpu_us"]),
                        str({x: rep["launch_stats"][x] for x in ("launches", "gpu_us")}))
                check_counts(c, "%s: rank %d" % (what, k), rep, one, rank_metadata(doc, k, own_gpu),
                             k)
                c.check("%s: rank %d: no overhead_dominant" % (what, k),
                        "kernels.overhead_dominant" not in ids(rep), str(ids(rep)))
                if not straggler:
                    c.check("%s: rank %d has the one rank's findings" % (what, k),
                            sorted(ids(rep)) == sorted(ids(one)),
                            "%s vs %s" % (ids(rep), ids(one)))
            strag = next((f for f in r["findings"] if f["id"] == "ranks.straggler"), None)
            if straggler:
                c.check("%s: ranks.straggler names rank 1" % what,
                        strag is not None and strag["title"].startswith("Rank 1 "),
                        str(ids(r)))
            else:
                c.check("%s: no ranks.straggler" % what, strag is None, str(ids(r)))
            check_digests(c, what, args.cli, path, tmp, straggler)
    print("merged_ranks: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
