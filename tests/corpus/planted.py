#!/usr/bin/python3
"""Planted problems in real Kineto traces (../shared/traces): each plant edits the events of a
real capture the way the problem shows in a real run, and the right finding must fire, with
the right step and numbers, where it does not fire on the unplanted trace.

Base: kineto__resnet50_nw4 (ResNet-50, 4 DataLoader workers, 6 ProfilerSteps 5..10, V100),
with its record_shapes/with_stack args removed ("clean" for the diagnostic-flag rule).
Straggler: four copies of param__dlrm_kineto worker0 (NCCL all-to-all, 1 step) as ranks 0..3.

Usage: /usr/bin/python3 tests/corpus/planted.py --cli build/native/kinetoscope [-v]
"""
import decimal
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402  (the exact-number JSON reader and writer)

D = decimal.Decimal
BASE = "kineto__resnet50_nw4__worker0.1623212756351.pt.trace.json.gz"
RANKS = "param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json"
# A second base for the warm-up plant: MI300X, RCCL, steps 15..17, a capture begun mid-step (its
# first step opens with GPU ops launched before the capture, with no launch in the trace).
MIDSTEP = "tracelens__mi300__resnet_act_checkpoint.json.gz"
DIAG_ARGS = ("Input Dims", "Input type", "Call stack", "Input Strides", "Concrete Inputs")


def write(doc, path):
    with open(path, "wb") as f:
        f.write(mm.dump(doc))
    return path


def steps_of(doc):
    """ProfilerStep slices: (number, event), by number."""
    out = []
    for e in doc["traceEvents"]:
        n = str(e.get("name", ""))
        # The host markers: a newer trace also names its GPU-side step ranges ProfilerStep#N.
        if (e.get("ph") == "X" and n.startswith("ProfilerStep#")
                and e.get("cat") != "gpu_user_annotation"):
            out.append((int(n.split("#")[1]), e))
    return sorted(out, key=lambda p: p[0])


def span(e):
    t = mm.dec(e["ts"])
    return t, t + mm.dec(e.get("dur", 0))


def vocab(doc):
    """The trace's own category names: Kineto 2021 wrote Operator/Runtime/Kernel/Memcpy."""
    cats = {e.get("cat") for e in doc["traceEvents"]}
    if "Kernel" in cats:
        return {"cpu_op": "Operator", "runtime": "Runtime", "kernel": "Kernel",
                "memcpy": "Memcpy"}
    return {"cpu_op": "cpu_op", "runtime": "cuda_runtime", "kernel": "kernel",
            "memcpy": "gpu_memcpy"}


def gpu_track(doc):
    """(pid, tid, device) of the stream that ran most kernels."""
    counts = {}
    kernel = vocab(doc)["kernel"]
    for e in doc["traceEvents"]:
        if e.get("cat") == kernel:
            a = e.get("args", {})
            k = (e["pid"], e["tid"], a.get("device", 0))
            counts[k] = counts.get(k, 0) + 1
    return max(counts, key=counts.get)


def widest_gap(doc, step):
    """The widest gap between the step's top-level CPU children on its thread: (begin, end)."""
    s0, s1 = span(step)
    kids = sorted(span(e) for e in doc["traceEvents"]
                  if e.get("ph") == "X" and e is not step and e.get("pid") == step["pid"]
                  and e.get("tid") == step["tid"] and s0 <= mm.dec(e["ts"]) < s1)
    best, cursor, covered = (s0, s0), s0, s0
    for b, e in kids:
        if b > covered and b - covered > best[1] - best[0]:
            best = (covered, b)
        covered = max(covered, e)
    if s1 > covered and s1 - covered > best[1] - best[0]:
        best = (covered, s1)
    return best


# ----- plants ---------------------------------------------------------------------------------

def plant_dtoh(doc):
    """loss.item() in every step: aten::item > _local_scalar_dense, its cudaMemcpyAsync and a
    4-byte Memcpy DtoH (Device -> Pageable), then cudaStreamSynchronize, in each step's widest
    CPU gap; the copy joins its launch by correlation, as in this trace's vintage."""
    pid, tid, dev = gpu_track(doc)
    v = vocab(doc)
    corr = 10**7
    for num, st in steps_of(doc):
        b, e = widest_gap(doc, st)
        t = b + (e - b) / 2 - 30
        cpu = {"pid": st["pid"], "tid": st["tid"], "ph": "X"}
        doc["traceEvents"] += [
            dict(cpu, cat=v["cpu_op"], name="aten::item", ts=t, dur=D(60)),
            dict(cpu, cat=v["cpu_op"], name="aten::_local_scalar_dense", ts=t + 1, dur=D(58)),
            dict(cpu, cat=v["runtime"], name="cudaMemcpyAsync", ts=t + 2, dur=D(20),
                 args={"correlation": corr}),
            dict(cpu, cat=v["runtime"], name="cudaStreamSynchronize", ts=t + 23, dur=D(30),
                 args={}),
            {"ph": "X", "cat": v["memcpy"], "name": "Memcpy DtoH (Device -> Pageable)",
             "pid": pid, "tid": tid, "ts": t + 5, "dur": D(2),
             "args": {"device": dev, "stream": 7, "correlation": corr, "bytes": 4,
                      "memory bandwidth (GB/s)": 0.002}},
        ]
        corr += 1
    return doc


def plant_warmup(doc):
    """The first captured step did one-time work: 400 ms of cudnn autotuning (a cpu_op) before
    its own, so the step starts 400 ms earlier."""
    num, st = steps_of(doc)[0]
    t = mm.dec(st["ts"]) - 400000
    st["ts"], st["dur"] = t, mm.dec(st["dur"]) + 400000
    doc["traceEvents"].append({"ph": "X", "cat": vocab(doc)["cpu_op"],
                               "name": "cudnn::find_algorithm",
                               "pid": st["pid"], "tid": st["tid"], "ts": t + 10,
                               "dur": D(399980)})
    return doc


COMPILE = "_compile.compile_inner (dynamo_timed)"  # torch/_dynamo/utils.py dynamo_timed's name
COMPILE_US = 2000000


def plant_compile(doc):
    """torch.compile compiled on the first captured step: 2 s of Dynamo (record_function
    "_compile.compile_inner (dynamo_timed)") holding 1.5 s of Inductor ("compile_fx_inner
    (dynamo_timed)"), before the step's own work, so the step starts 2 s earlier."""
    num, st = steps_of(doc)[0]
    t = mm.dec(st["ts"]) - COMPILE_US
    st["ts"], st["dur"] = t, mm.dec(st["dur"]) + COMPILE_US
    for name, ts, dur in ((COMPILE, t + 10, COMPILE_US - 20),
                          ("compile_fx_inner (dynamo_timed)", t + 400000, 1500000)):
        doc["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": name,
                                   "pid": st["pid"], "tid": st["tid"], "ts": ts, "dur": D(dur)})
    return doc


def plant_recompile(doc):
    """A guard fails every step (a new shape each batch): Dynamo compiles again inside each
    step, in the widest gap between the step's own ops, 30 ms each time."""
    for num, st in steps_of(doc):
        b, e = widest_gap(doc, st)
        doc["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": COMPILE,
                                   "pid": st["pid"], "tid": st["tid"], "ts": b + 1000,
                                   "dur": D(30000)})
    return doc


LOADER = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
LOADER_US = 60000


GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
RUNTIME_CATS = {"cuda_runtime", "Runtime", "cuda_driver"}


def plant_dataloader(doc):
    """The DataLoader workers fall behind: each step starts with a 60 ms __next__ that the
    host thread waits for. Host events after it move 60 ms later per stall; GPU work moves
    with its launch (work queued before the stall still runs during it)."""
    starts = [mm.dec(st["ts"]) + 5 for _, st in steps_of(doc)]
    launch = {}
    for e in doc["traceEvents"]:
        a = e.get("args")
        if e.get("cat") in RUNTIME_CATS and isinstance(a, dict) and "correlation" in a:
            launch[a["correlation"]] = mm.dec(e["ts"])
    for e in doc["traceEvents"]:
        if e.get("ph") == "M" or "ts" not in e:
            continue
        t = mm.dec(e["ts"])
        when = t  # the host time that decides how far the event moves
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        if e.get("cat") in GPU_CATS:
            when = launch.get(a.get("correlation"), t)
        elif e.get("ph") == "f":
            when = launch.get(e.get("id"), t)
        before = sum(1 for s in starts if s <= when)
        if before:
            e["ts"] = t + before * LOADER_US
        if "dur" in e and e.get("cat") not in GPU_CATS:
            inside = sum(1 for s in starts if t < s < t + mm.dec(e["dur"]))
            if inside:
                e["dur"] = mm.dec(e["dur"]) + inside * LOADER_US
    for i, (_, st) in enumerate(steps_of(doc)):
        doc["traceEvents"].append({"ph": "X", "cat": "user_annotation", "name": LOADER,
                                   "pid": st["pid"], "tid": st["tid"],
                                   "ts": starts[i] + i * LOADER_US, "dur": D(LOADER_US)})
    return doc


def plant_flags(doc):
    """record_shapes, with_stack and profile_memory on: Input Dims and Call stack args on the
    CPU ops, [memory] instant events for allocations."""
    n = 0
    cpu_op = vocab(doc)["cpu_op"]
    for e in list(doc["traceEvents"]):
        if e.get("cat") == cpu_op and e.get("ph") == "X":
            a = e.setdefault("args", {})
            a["Input Dims"] = [[32, 3, 224, 224]]
            a["Call stack"] = "train.py(57): train_step;train.py(80): main"
            if n % 10 == 0:
                doc["traceEvents"].append({"ph": "i", "s": "t", "cat": "cpu_instant_event",
                                           "name": "[memory]", "pid": e["pid"], "tid": e["tid"],
                                           "ts": e["ts"],
                                           "args": {"Device Type": 1, "Device Id": 0,
                                                    "Addr": 1000 + n, "Bytes": 4096,
                                                    "Total Allocated": 4096 * (n + 1),
                                                    "Total Reserved": 1 << 30}})
            n += 1
    return doc


def plant_empty(doc):
    """The profiler ran outside the loop: only metadata was written."""
    doc["traceEvents"] = [e for e in doc["traceEvents"] if e.get("ph") == "M"]
    return doc


def plant_too_long(doc):
    """active=30: 24 more steps after the 6, each a copy of the last step's host and GPU
    events moved by one step length."""
    num, last = steps_of(doc)[-1]
    b, e = span(last)
    events = [x for x in doc["traceEvents"] if x.get("ph") == "X" and b <= mm.dec(x["ts"]) < e]
    length = e - b + 1000
    for k in range(1, 25):
        for x in events:
            y = dict(x)
            y["ts"] = mm.dec(x["ts"]) + k * length
            if x is last:
                y["name"] = "ProfilerStep#%d" % (num + k)
            if isinstance(y.get("args"), dict):
                y["args"] = {a: v for a, v in y["args"].items()
                             if a not in ("correlation", "External id")}
            doc["traceEvents"].append(y)
    return doc


def plant_merged_rank(doc):
    """A second rank merged into the file, as tools that merge rank traces write it: a copy of
    every event under its own pids (host pid + 100000, GPU pid and device + 1), its clock 30 us
    ahead, its correlation and flow ids its own (offset by 10**8). Its step boundaries differ a
    little, as two ranks' do: its even steps end 50 us early, its odd ones begin 40 us early."""
    gpu = {e.get("pid") for e in doc["traceEvents"] if e.get("cat") in GPU_CATS}
    steps = steps_of(doc)
    copy = []
    for e in doc["traceEvents"]:
        y = dict(e)
        if isinstance(y.get("pid"), int):
            y["pid"] = y["pid"] + 1 if y["pid"] in gpu else y["pid"] + 100000
        if "ts" in y and y.get("ph") != "M":
            y["ts"] = mm.dec(y["ts"]) - 30
        if isinstance(y.get("args"), dict):
            a = y["args"] = dict(y["args"])
            if isinstance(a.get("device"), int):
                a["device"] += 1
            if isinstance(a.get("correlation"), int):
                a["correlation"] += 10**8
        if y.get("ph") in ("s", "f") and isinstance(y.get("id"), int):
            y["id"] += 10**8
        if any(y is st or e is st for _, st in steps):
            n = int(str(y["name"]).split("#")[1])
            if n % 2 == 0:
                y["dur"] = mm.dec(y["dur"]) - 50
            else:
                y["ts"], y["dur"] = y["ts"] - 40, mm.dec(y["dur"]) + 40
        copy.append(y)
    doc["traceEvents"] += copy
    return doc


# ----- checks ---------------------------------------------------------------------------------

def finding(rep, fid):
    return next((f for f in rep["findings"] if f["id"] == fid), None)


def fires(c, rep, fid, what):
    """The finding `fid` of `rep`, checked to be there ("WHAT: FID fires"), or None."""
    f = finding(rep, fid)
    c.check("%s: %s fires" % (what, fid), f is not None, str([x["id"] for x in rep["findings"]]))
    return f


def near(x, want, rel):
    return x is not None and abs(x - want) <= rel * abs(want)


def main():
    args, c = corpus_cli.start(mm.TRACES)
    if args is None:
        return 0
    base = mm.load(os.path.join(mm.TRACES, BASE))
    for e in base["traceEvents"]:  # the clean base: no diagnostic flags
        if isinstance(e.get("args"), dict):
            for k in DIAG_ARGS:
                e["args"].pop(k, None)
    with tempfile.TemporaryDirectory() as tmp:
        clean = corpus_cli.report(args.cli, [write(base, os.path.join(tmp, "clean.json"))])
        clean_ids = {f["id"] for f in clean["findings"]}
        steps = [r["number"] for r in clean["steps"]["rows"]]
        c.check("clean base has 6 steps 5..10", steps == list(range(5, 11)), str(steps))
        planted_ids = ["sync.dtoh_in_step", "steps.warmup_in_window", "dataloader.slow",
                       "capture.diagnostic_flags", "capture.empty", "capture.too_long",
                       "capture.torch_compile"]
        for fid in planted_ids:
            c.check("clean base: no %s" % fid, fid not in clean_ids, str(sorted(clean_ids)))

        def planted(fn):
            return corpus_cli.report(args.cli, [write(fn(mm.copy_doc(base)), os.path.join(tmp, "p.json"))])

        r = planted(plant_dtoh)
        f = fires(c, r, "sync.dtoh_in_step", "dtoh")
        if f:
            c.check("dtoh: one copy per step", f["evidence"].get("copies") == 6, str(f["evidence"]))
            # One origin for the 6 copies: the step marker (an op in this 2021 trace) is not
            # part of where a copy comes from.
            c.check("dtoh: one origin, aten::item, for all 6",
                    f["evidence"].get("issued_by") == "aten::item > aten::_local_scalar_dense"
                    and f["evidence"].get("issued_by_count") == 6, str(f["evidence"]))
            rows = r["steps"]["rows"]
            c.check("dtoh: its copies lie inside the steps",
                    f["ranges"] and all(any(x["start_us"] <= g["start_us"] <= x["end_us"]
                                            for x in rows) for g in f["ranges"]),
                    str(f["ranges"][:3]))
        c.check("dtoh: 6 DtoH copies of 4 B in memory_ops",
                any(x["kind"] == "DtoH" and x["count"] == 6 and x["bytes"] == 24
                    for x in r["memory_ops"]["rows"]), str(r["memory_ops"]["rows"]))
        c.check("dtoh: sync counts the copies inside steps", r["sync"]["dtoh_in_steps"] == 6,
                str(r["sync"]["dtoh_in_steps"]))

        r = planted(plant_warmup)
        f = fires(c, r, "steps.warmup_in_window", "warmup")
        if f:
            ev = f["evidence"]
            c.check("warmup: names step 5", ev.get("first_step") == 5, str(ev))
            first = clean["steps"]["rows"][0]["dur_us"] + 400000
            c.check("warmup: first step 400 ms longer", near(ev.get("first_step_us"), first, 0.01),
                    str(ev))
        c.check("warmup: step 5 starts 400 ms earlier",
                near(r["steps"]["rows"][0]["dur_us"], clean["steps"]["rows"][0]["dur_us"] + 4e5,
                     0.01))

        r = planted(plant_compile)
        f = fires(c, r, "capture.torch_compile", "compile")
        if f:
            ev = f["evidence"]
            # The nested Inductor phase is inside Dynamo's: 2 s, not 3.5.
            c.check("compile: 2 s in one step, a warning",
                    near(ev.get("compile_us"), COMPILE_US, 0.001)
                    and ev.get("steps_with_compile") == 1 and f["severity"] == "warning", str(f))
            c.check("compile: said to be first-call compilation",
                    "compiled inside the steps" in f["title"], f["title"])
        c.check("compile: steps.warmup_in_window fires too",
                finding(r, "steps.warmup_in_window") is not None)

        r = planted(plant_recompile)
        f = fires(c, r, "capture.torch_compile", "recompile")
        if f:
            ev = f["evidence"]
            c.check("recompile: 30 ms in each of the 6 steps",
                    near(ev.get("compile_us"), 6 * 30000, 0.001)
                    and ev.get("steps_with_compile") == 6, str(ev))
            c.check("recompile: said to be recompilation",
                    f["title"].startswith("torch.compile recompiled in 6 of 6 steps"), f["title"])

        r = planted(plant_dataloader)
        f = fires(c, r, "dataloader.slow", "dataloader")
        if f:
            ev = f["evidence"]
            c.check("dataloader: ~60 ms of __next__ per step",
                    near(ev.get("next_us_per_step"), LOADER_US, 0.05), str(ev))
            c.check("dataloader: GPU idle under __next__ > 90%",
                    (ev.get("gpu_idle_during_next_pct") or 0) > 90, str(ev))
        g = finding(r, "gpu.idle")
        c.check("dataloader: gpu.idle blames the DataLoader",
                g is not None and "DataLoader" in g["title"], g and g["title"])
        def host(row):
            return row["host_end_us"] - row["host_start_us"]

        c.check("dataloader: each host step 60 ms longer",
                all(near(host(a) - host(b), LOADER_US, 0.001)
                    for a, b in zip(r["steps"]["rows"], clean["steps"]["rows"])),
                str([(host(a), host(b)) for a, b in zip(r["steps"]["rows"],
                                                        clean["steps"]["rows"])]))

        # Both: the warm-up step is left out of the DataLoader numbers, and each steady step's
        # __next__ (it opens the host step, while the previous step's GPU work still runs) is
        # counted in it.
        r = planted(lambda d: plant_dataloader(plant_warmup(d)))
        f = finding(r, "dataloader.slow")
        c.check("warm-up + dataloader: both fire",
                f is not None and finding(r, "steps.warmup_in_window") is not None,
                str([x["id"] for x in r["findings"]]))
        if f:
            ev = f["evidence"]
            c.check("warm-up + dataloader: 5 steady steps, ~60 ms of __next__ each",
                    ev.get("steps") == 5 and near(ev.get("next_us_per_step"), LOADER_US, 0.05),
                    str(ev))

        r = planted(plant_flags)
        f = fires(c, r, "capture.diagnostic_flags", "flags")
        if f:
            c.check("flags: all three named",
                    f["evidence"].get("flags") == "with_stack, record_shapes, profile_memory",
                    str(f["evidence"]))

        r = planted(plant_empty)
        ids = [x["id"] for x in r["findings"]]
        c.check("empty: capture.empty, alone", ids == ["capture.empty"], str(ids))

        r = planted(plant_too_long)
        f = fires(c, r, "capture.too_long", "too long")
        if f:
            c.check("too long: 30 steps", f["evidence"].get("steps") == 30, str(f["evidence"]))

        # Two ranks merged into one file, each on GPU pids of its own: read as two ranks (each
        # launching process with its own GPU is one; src/analysis/merged_ranks.h), each with its
        # own steps 5..10, not a mix of both ranks' markers that dropped the overlapping ones and
        # called their numbers missing.
        r = planted(plant_merged_rank)
        parts = r.get("reports", [])
        c.check("merged ranks: two ranks", r.get("schema") == "kinetoscope.multirank/1"
                and len(parts) == 2, str(r.get("schema")) + " " + str(len(parts)))
        for k, part in enumerate(parts):
            ids = [x["id"] for x in part["findings"]]
            c.check("merged ranks: rank %d has the 6 steps 5..10" % k,
                    [x["number"] for x in part["steps"]["rows"]] == steps,
                    str(part["steps"]["rows"][:3]))
            c.check("merged ranks: rank %d has no steps.few_active" % k,
                    "steps.few_active" not in ids, str(ids))

        # Warm-up on the second base: the GPU ops queued before the capture run after the 400 ms
        # of autotuning, with the GPU idle until then, so they are no backlog of the first step.
        mid = mm.load(os.path.join(mm.TRACES, MIDSTEP))
        clean_mid = corpus_cli.report(args.cli, [write(mid, os.path.join(tmp, "mid.json"))])
        c.check("mid-step base: no steps.warmup_in_window",
                finding(clean_mid, "steps.warmup_in_window") is None)
        r = corpus_cli.report(args.cli, [write(plant_warmup(mid), os.path.join(tmp, "mid_warm.json"))])
        f = fires(c, r, "steps.warmup_in_window", "mid-step warm-up")
        if f:
            # Own times: the step less the GPU's busy time on work queued before it.
            st = clean_mid["steps"]
            first = st["rows"][0]["dur_us"] - st.get("first_step_queued_us", 0) + 400000
            c.check("mid-step warm-up: names step 15, its own time 400 ms longer",
                    f["evidence"].get("first_step") == 15
                    and near(f["evidence"].get("first_step_us"), first, 0.01), str(f["evidence"]))

        # Straggler: four identical ranks are clean; rank 2 arriving last at every collective
        # (its NCCL kernels only transfer: a fifth of their time) is the straggler.
        one = mm.load(os.path.join(mm.TRACES, RANKS))

        def ranks(straggler):
            paths = []
            for rank in range(4):
                d = mm.copy_doc(one)
                d["distributedInfo"] = dict(d.get("distributedInfo", {}), rank=rank,
                                            world_size=4)
                if rank == straggler:
                    for e in d["traceEvents"]:
                        if e.get("cat") in ("kernel", "Kernel") and "nccl" in str(e.get("name", "")).lower():
                            e["dur"] = mm.dec(e["dur"]) / 5
                paths.append(write(d, os.path.join(tmp, "rank-%d.json" % rank)))
            return corpus_cli.report(args.cli, paths)

        r = ranks(None)
        ids = [x["id"] for x in r["findings"]]
        c.check("ranks clean: no ranks.straggler", "ranks.straggler" not in ids, str(ids))
        r = ranks(2)
        f = fires(c, r, "ranks.straggler", "ranks")
        if f:
            c.check("ranks: names rank 2", f["title"].startswith("Rank 2 "), f["title"])
    print("planted: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
