#!/usr/bin/python3
"""One process driving 8 GPUs (single-process DataParallel, a model or pipeline split in one
process), built from real one-GPU traces (../shared/traces): one CPU pid, 8 GPU device pids.

The rewrite gives the process 7 more devices that do what device 0 did, at the same times:
each replica's CPU ops and launches on a thread of its own (DataParallel's parallel_apply runs
a thread per device), its kernels, copies and flows on GPU pid 0 + d with "device": d and
correlation ids of its own. It is one rank using 8 GPUs, not 8 ranks, so the report must say 8
devices, each with device 0's utilization, the same GPU idle, no rank or straggler finding,
and no share of the step that sums 8 devices' kernel time over one device's window (it read
"Kernels other than math take 12.4% of step time" where each device had 1.6%).

Usage: /usr/bin/python3 tests/corpus/one_process_gpus.py --cli build/native/kinetoscope [-v]
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402  (the exact-number JSON reader and writer)

CORPUS = [
    "hta__cuda_event_sync__event_sync_trace.json.gz",
    "tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz",
]
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync")
HOST_CATS = ("cpu_op", "cuda_runtime", "cuda_driver")
# Shares of the step that add GPU op time over devices: each must be a share of every device's
# window, so with 8 devices doing device 0's work it is device 0's share.
SUMMED_SHARES = {"kernels.overhead_dominant": "overhead_pct_of_window",
                 "kernels.no_tensor_cores": "gemm_conv_pct_of_window"}


def one_process_gpus(doc, n=8):
    ev = doc["traceEvents"]
    gpu_pids = {e["pid"] for e in ev if e.get("cat") in GPU_CATS}
    if not all(isinstance(p, int) for p in gpu_pids):
        return None
    add = []
    for d in range(1, n):
        off = d * 10**7  # above any id of the trace

        def thread(tid):
            return tid * 100 + d if isinstance(tid, int) else "%s replica %d" % (tid, d)

        for e in ev:
            c = e.get("cat")
            if e.get("ph") == "M":
                if e.get("pid") in gpu_pids:
                    add.append(dict(e, pid=e["pid"] + d))
                continue
            y = dict(e)
            a = y["args"] = dict(e.get("args") or {})
            if c in GPU_CATS:
                y["pid"] = e["pid"] + d
                if "device" in a:
                    a["device"] = d
            elif c in HOST_CATS:
                y["tid"] = thread(e["tid"])
            elif c == "ac2g":
                y["id"] = e["id"] + off
                if e["pid"] in gpu_pids:
                    y["pid"] = e["pid"] + d
                else:
                    y["tid"] = thread(e["tid"])
            else:
                continue
            if "correlation" in a:
                a["correlation"] += off
            add.append(y)
    ev += add
    if doc.get("deviceProperties"):
        doc["deviceProperties"] = [dict(doc["deviceProperties"][0], id=d) for d in range(n)]
    return doc


def main():
    args, c = corpus_cli.start(mm.TRACES)
    if args is None:
        return 0
    check = c.check

    with tempfile.TemporaryDirectory() as tmp:
        for name in CORPUS:
            raw = mm.load(os.path.join(mm.TRACES, name))
            paths = []
            for label, doc in (("one", mm.copy_doc(raw)), ("eight", one_process_gpus(raw))):
                paths.append(os.path.join(tmp, label + ".json"))
                with open(paths[-1], "wb") as f:
                    f.write(mm.dump(doc))
            one, eight = corpus_cli.report(args.cli, paths[0]), corpus_cli.report(args.cli, paths[1])
            check("%s: 8 GPU devices" % name, eight["trace"]["gpu_devices"] == 8,
                  str(eight["trace"]["gpu_devices"]))
            util = [d["utilization_pct"] for d in eight["gpu_metrics"]["devices"]]
            base_util = one["gpu_metrics"]["devices"][0]["utilization_pct"]
            check("%s: each device has device 0's utilization" % name,
                  util == [base_util] * 8, "%s vs %s" % (util, base_util))
            check("%s: the same GPU busy and idle" % name,
                  (eight["gpu"]["busy_us"], eight["gpu"]["idle_pct"])
                  == (one["gpu"]["busy_us"], one["gpu"]["idle_pct"]),
                  "%s vs %s" % (eight["gpu"], one["gpu"]))
            ids = {f["id"] for f in eight["findings"]}
            check("%s: one rank, no rank findings" % name,
                  not any(i.startswith("ranks.") or "shared" in i for i in ids), str(sorted(ids)))
            for fid, key in SUMMED_SHARES.items():
                base = {f["id"]: f for f in one["findings"]}.get(fid)
                got = {f["id"]: f for f in eight["findings"]}.get(fid)
                check("%s: %s as for one device" % (name, fid),
                      (base is None) == (got is None) and
                      (base is None or base["evidence"][key] == got["evidence"][key]),
                      "one: %s, eight: %s" % (base and base["evidence"].get(key),
                                              got and (got["title"], got["evidence"].get(key))))
    print("one process, 8 GPUs: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
