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

Usage: /usr/bin/python3 tests/corpus/merged_ranks.py --cli build/native/kinetoscope [-v]
       /usr/bin/python3 tests/corpus/merged_ranks.py --write FILE [--straggler]  (the merged
       file alone, for the page's test: tests/browser/ranks.mjs)
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402  (the exact-number JSON reader and writer)

BASE = "param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json"
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync")
HOST_PID_SHIFT = 100000


def merged(doc, straggler_nccl=False):
    """doc with a second node's copy of every event; its GPU events on the same pids."""
    ev = doc["traceEvents"]
    gpu_pids = {e["pid"] for e in ev if e.get("cat") in GPU_CATS}
    add = []
    for e in ev:
        if not isinstance(e.get("pid"), int) or e["pid"] in gpu_pids:
            if e.get("ph") == "M" or not isinstance(e.get("pid"), int):
                continue  # the GPU pids' metadata is there once already
            y = dict(e)
        else:
            y = dict(e, pid=e["pid"] + HOST_PID_SHIFT)
        if "ts" in y and y.get("ph") != "M":
            y["ts"] = mm.dec(y["ts"]) - 30
        if (straggler_nccl and y.get("cat") == "kernel"
                and "nccl" in str(y.get("name", "")).lower()):
            y["dur"] = mm.dec(y["dur"]) / 5
        add.append(y)
    doc["traceEvents"] = ev + add
    return doc


ids = corpus_cli.finding_ids


def main():
    def extra(ap):
        ap.add_argument("--write", help="write the merged file to WRITE and stop")
        ap.add_argument("--straggler", action="store_true", help="with rank 1 the straggler")

    args = corpus_cli.arguments(mm.TRACES, extra)
    if args is None:
        return 0
    if args.write:
        with open(args.write, "wb") as f:
            f.write(mm.dump(merged(mm.load(os.path.join(mm.TRACES, BASE)), args.straggler)))
        return 0
    c = corpus_cli.Checker(args.v)
    with tempfile.TemporaryDirectory() as tmp:
        one_path = os.path.join(mm.TRACES, BASE)
        one = corpus_cli.report(args.cli, [one_path])
        for straggler in (False, True):
            what = "merged%s" % (" (rank 1 straggles)" if straggler else "")
            path = os.path.join(tmp, "merged.json")
            with open(path, "wb") as f:
                f.write(mm.dump(merged(mm.load(one_path), straggler)))
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
    print("merged_ranks: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
