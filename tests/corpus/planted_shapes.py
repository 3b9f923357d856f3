#!/usr/bin/python3
"""Planted problems on trace shapes planted.py does not use (its base is one V100 trace):
A100 (2023 Kineto, graphs, a warm-up first step), MI300X (ROCm: hip* calls), H100 (newer
Kineto, float ns timestamps), V100 without DataLoader workers, and the real 8-rank DLRM set.
Each plant is a general edit of the events (never keyed on a kernel or file name), and checks
the finding that must fire, with its number, and the ones that must not.

Plants: a host stall inside one step (one slow step), host stalls before steps with nothing
named (not the DataLoader), loss.item() in every step on ROCm, tiny kernels (launch-bound),
pinned copies made pageable, a straggler rank whose compute is late at each collective.

Usage: /usr/bin/python3 tests/corpus/planted_shapes.py --cli build/native/kinetoscope [-v]
"""
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402
from corpus_cli import Checker  # noqa: E402
from planted import (D, GPU_CATS, RUNTIME_CATS, finding, fires, gpu_track, near, span,  # noqa: E402
                     steps_of, vocab, widest_gap, write)

A100 = "hta__negative_queue_length__rank0.json.gz"  # 5 steps, first one a warm-up
MI300X = "tracelens__mi300__resnet_act_checkpoint.json.gz"  # 3 steps, hip* runtime
V100 = "kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz"  # 6 steps, no workers
H100 = "tracelens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"  # 1 step, 1465 kernels
DLRM = ["param__dlrm_kineto__worker%d_step_12.%s.pt.trace.json" % (i, t) for i, t in enumerate(
    ["1694128201545", "1694128201556", "1694128201554", "1694128201557", "1694128201547",
     "1694128201549", "1694128201553", "1694128201553"])]


def launch_times(doc):
    """correlation -> (ts, end) of the runtime call that launched it."""
    out = {}
    for e in doc["traceEvents"]:
        a = e.get("args")
        if e.get("cat") in RUNTIME_CATS and isinstance(a, dict) and "correlation" in a:
            t = mm.dec(e["ts"])
            out[a["correlation"]] = (t, t + mm.dec(e.get("dur", 0)))
    return out


def host_stall(doc, times, us):
    """The launching host thread stops for `us` at each host time in `times` (a GIL holder, a
    blocking file read, a checkpoint write: nothing the profiler names). Host events after a
    stall move later; GPU work moves with its launch, so work queued before the stall still
    runs during it; host events the stall falls inside grow."""
    launch = launch_times(doc)
    for e in doc["traceEvents"]:
        if e.get("ph") == "M" or "ts" not in e:
            continue
        t = mm.dec(e["ts"])
        a = e.get("args") if isinstance(e.get("args"), dict) else {}
        when = t
        if e.get("cat") in GPU_CATS:
            if a.get("correlation") not in launch:
                continue  # queued before the capture began: it runs when it ran
            when = launch[a["correlation"]][0]
        elif e.get("ph") == "f":
            when = launch.get(e.get("id"), (t, t))[0]
        before = sum(1 for s in times if s <= when)
        if before:
            e["ts"] = t + before * us
        if "dur" in e and e.get("cat") not in GPU_CATS:
            inside = sum(1 for s in times if t < s < t + mm.dec(e["dur"]))
            if inside:
                e["dur"] = mm.dec(e["dur"]) + inside * us
    return doc


def stall_in_step(doc, index, us):
    """One slow step: a stall halfway through step `index`'s host range. (A stall at the very
    end of a step's host range, while the GPU still runs that step's queued work, shows in the
    next step's device-adjusted time: ANALYSES.md's step bounds.)"""
    b, e = span(steps_of(doc)[index][1])
    return host_stall(doc, [b + (e - b) / 2], us)


def warmup_steps(doc, k, factor):
    """A schedule with too short a warm-up: the first `k` captured steps each take `factor`
    times as long (a stall halfway through each, as autotuning or allocator growth would)."""
    for i in reversed(range(k)):  # from the last, so the earlier steps' times stay put
        b, e = span(steps_of(doc)[i][1])
        host_stall(doc, [b + (e - b) / 2], (factor - 1) * (e - b))
    return doc


def stall_before_steps(doc, us):
    """Every step after the first opens with a host stall that no event names."""
    return host_stall(doc, [mm.dec(st["ts"]) + 1 for _, st in steps_of(doc)[1:]], us)


def asap(doc, since):
    """GPU ops launched at host time `since` or later start when their launch returns and
    their stream is free, as a queue emptied by a sync refills: none runs ahead of its launch
    by a backlog that is no longer there."""
    launch = launch_times(doc)
    ops = sorted((e for e in doc["traceEvents"] if e.get("cat") in GPU_CATS
                  and e.get("ph") == "X"), key=lambda e: mm.dec(e["ts"]))
    free = {}
    for e in ops:
        track = (e.get("pid"), e.get("tid"))
        t = mm.dec(e["ts"])
        corr = (e.get("args") or {}).get("correlation")
        if corr in launch and launch[corr][0] >= since:
            t = max(launch[corr][1] + 5, free.get(track, D(0)))
        e["ts"] = t
        free[track] = max(free.get(track, D(0)), t + mm.dec(e.get("dur", 0)))


def plant_lockstep(doc):
    """A device synchronize at the end of each step's host range (a torch.cuda.synchronize()
    for timing): the CPU waits there until the GPU has run everything launched before, so it
    no longer runs ahead. Returns the total wait, us."""
    api, v = runtime_prefix(doc), vocab(doc)
    total = D(0)
    for i in range(len(steps_of(doc))):
        _, st = steps_of(doc)[i]
        b, e = span(st)
        t = e - 20
        launch = launch_times(doc)
        done = max((mm.dec(x["ts"]) + mm.dec(x.get("dur", 0)) for x in doc["traceEvents"]
                    if x.get("cat") in GPU_CATS and x.get("ph") == "X"
                    and launch.get((x.get("args") or {}).get("correlation"), (e, e))[0] < t),
                   default=t)
        wait = max(done - t, D(0)) + 5
        # The stall first, then the work launched after the sync re-timed from its moved
        # launches: re-timed first, it was packed behind the backlog the sync drains and then
        # moved by the stall too, so every later step carried the previous step's wait as a
        # backlog again (steps 16/17 of the MI300X trace 47 ms where the GPU needs 23 ms).
        host_stall(doc, [t], wait)
        asap(doc, t + wait)
        doc["traceEvents"].append({"ph": "X", "cat": v["runtime"], "name": api + "DeviceSynchronize",
                                   "pid": st["pid"], "tid": st["tid"], "ts": t, "dur": wait,
                                   "args": {}})
        total += wait
    return doc, total


def runtime_prefix(doc):
    names = (str(e.get("name", "")) for e in doc["traceEvents"] if e.get("cat") in RUNTIME_CATS)
    return "hip" if any(n.startswith("hip") for n in names) else "cuda"


def plant_item(doc):
    """loss.item() in every step, in the trace's own runtime's names (hip* on ROCm): the op,
    its memcpy call, a 4-byte DtoH copy joined by correlation, then the stream sync."""
    pid, tid, dev = gpu_track(doc)
    v, api = vocab(doc), runtime_prefix(doc)
    corr = 10**9
    for _, st in steps_of(doc):
        b, e = widest_gap(doc, st)
        t = b + (e - b) / 2 - 30
        cpu = {"pid": st["pid"], "tid": st["tid"], "ph": "X"}
        doc["traceEvents"] += [
            dict(cpu, cat=v["cpu_op"], name="aten::item", ts=t, dur=D(60)),
            dict(cpu, cat=v["cpu_op"], name="aten::_local_scalar_dense", ts=t + 1, dur=D(58)),
            dict(cpu, cat=v["runtime"], name=api + "MemcpyAsync", ts=t + 2, dur=D(20),
                 args={"correlation": corr}),
            dict(cpu, cat=v["runtime"], name=api + "StreamSynchronize", ts=t + 23, dur=D(30),
                 args={}),
            {"ph": "X", "cat": v["memcpy"], "name": "Memcpy DtoH (Device -> Pageable)",
             "pid": pid, "tid": tid, "ts": t + 5, "dur": D(2),
             "args": {"device": dev, "stream": 0, "correlation": corr, "bytes": 4,
                      "kind": "DtoH"}},
        ]
        corr += 1
    return doc


TINY_US = D(2)


def plant_tiny_kernels(doc):
    """A model too small for its GPU: every kernel runs 2 us, starting as soon as its launch
    returns (plus the launch delay it had, up to 5 us) and its stream is free. Returns the
    count of kernels shrunk."""
    launch = launch_times(doc)
    kernel = vocab(doc)["kernel"]
    ops = sorted((e for e in doc["traceEvents"] if e.get("cat") in GPU_CATS and e.get("ph") == "X"),
                 key=lambda e: mm.dec(e["ts"]))
    free = {}
    for e in ops:
        a = e.get("args", {})
        track = (e.get("pid"), e.get("tid"))
        t = mm.dec(e["ts"])
        if a.get("correlation") in launch:
            _, end = launch[a["correlation"]]
            t = end + min(max(t - end, D(0)), D(5))
        t = max(t, free.get(track, t))
        e["ts"] = t
        if e.get("cat") == kernel:
            e["dur"] = TINY_US
        free[track] = t + mm.dec(e.get("dur", 0))
    return doc


def plant_pageable(doc):
    """The input batch comes from unpinned memory (pin_memory=False): every pinned copy is a
    pageable one. Returns the doc."""
    for e in doc["traceEvents"]:
        n = str(e.get("name", ""))
        if e.get("cat") in GPU_CATS and "Pinned" in n:
            e["name"] = n.replace("Pinned", "Pageable")
    return doc


def is_comm(e):
    return e.get("cat") in ("kernel", "Kernel") and "nccl" in str(e.get("name", "")).lower()


def late_rank(docs, late, us):
    """Rank `late` computes `us` longer before each collective (a slower GPU, more data): the
    last compute kernel before each of its collectives runs longer and the rest of its GPU
    work moves later; every other rank's collective waits that much longer for it, and their
    GPU work after it moves later. Host events stay: the CPUs ran ahead."""
    for rank, doc in enumerate(docs):
        ops = sorted((e for e in doc["traceEvents"] if e.get("cat") in GPU_CATS
                      and e.get("ph") == "X"), key=lambda e: mm.dec(e["ts"]))
        comm = [e for e in ops if is_comm(e)]
        starts = [mm.dec(e["ts"]) for e in comm]
        ends = [mm.dec(e["ts"]) + mm.dec(e["dur"]) for e in comm]
        if rank == late:
            for c0 in starts:
                before = [e for e in ops if not is_comm(e) and mm.dec(e["ts"]) < c0]
                if before:
                    last = max(before, key=lambda e: mm.dec(e["ts"]) + mm.dec(e["dur"]))
                    last["dur"] = mm.dec(last["dur"]) + us
        for e in ops:
            t = mm.dec(e["ts"])
            if rank == late:
                moved = sum(1 for c0 in starts if c0 <= t)
                # its own stretched kernel moved only by the earlier collectives
            else:
                moved = sum(1 for c1 in ends if c1 <= t)
            e["ts"] = t + moved * us
        if rank != late:
            for e in comm:
                e["dur"] = mm.dec(e["dur"]) + us
    return docs


def median(xs):
    xs = sorted(xs)
    return (xs[(len(xs) - 1) // 2] + xs[len(xs) // 2]) / 2


def union_us(spans):
    """The length of the union of [begin, end) spans (ints, or Decimal microseconds)."""
    total, end = 0, None
    for b, e in sorted(spans):
        if end is None or b > end:
            total += e - b
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def hta_temporal(doc):
    """HTA's temporal breakdown (ANALYSES.md), computed here from the planted events: span of
    the GPU ops, idle = span - their union, compute = union of the non-communication kernels."""
    ops = [(mm.dec(e["ts"]), mm.dec(e["ts"]) + mm.dec(e.get("dur", 0)), e)
           for e in doc["traceEvents"] if e.get("cat") in GPU_CATS and e.get("ph") == "X"]
    span_us = max(e for _, e, _ in ops) - min(b for b, _, _ in ops)
    idle = span_us - union_us([(b, e) for b, e, _ in ops])
    compute = union_us([(b, e) for b, e, x in ops
                        if x.get("cat") in ("kernel", "Kernel") and not is_comm(x)])
    return {"span_us": float(span_us), "idle_us": float(idle), "compute_us": float(compute)}


HOST_TABLES = ("NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API")


def nsys_stall(db, t, ns):
    """host_stall on an Nsight Systems export: every row from time `t` (ns) on moves `ns`
    later, and host ranges the stall falls inside grow, in every table with times."""
    tables = [r[0] for r in db.execute("select name from sqlite_master where type='table'")]
    for table in tables:
        cols = [r[1] for r in db.execute("pragma table_info(%s)" % table)]
        if "start" in cols and "end" in cols:
            if table in HOST_TABLES:
                db.execute("update %s set end = end + ? where start < ? and end > ?" % table,
                           (ns, t, t))
            db.execute("update %s set start = start + ?, end = end + ? where start >= ?" % table,
                       (ns, ns, t))
        elif "timestamp" in cols:
            db.execute("update %s set timestamp = timestamp + ? where timestamp >= ?" % table,
                       (ns, t))


def nsys_warmup(path, k, factor):
    """The first `k` NVTX ProfilerStep ranges of the export each `factor` times as long."""
    db = sqlite3.connect(path)
    for i in reversed(range(k)):
        b, e = db.execute("select start, end from NVTX_EVENTS where text = ?",
                          ("ProfilerStep#%d" % i,)).fetchone()
        nsys_stall(db, b + (e - b) // 2, (factor - 1) * (e - b))
    db.commit()
    db.close()
    return path


# ----- checks ---------------------------------------------------------------------------------

ids = corpus_cli.finding_ids


def none_of(c, r, banned, what):
    for fid in banned:
        c.check("%s: no %s" % (what, fid), finding(r, fid) is None, str(ids(r)))


def check_slow_step(c, tmp, cli, name, doc, clean, index, us):
    """One step `us` slower: steps.unstable names it with max = its clean time + us."""
    what = "slow step (%s)" % name.split("__")[1][:12]
    rows = clean["steps"]["rows"]
    r = corpus_cli.report(cli, [write(stall_in_step(mm.copy_doc(doc), index, us), os.path.join(tmp, "s.json"))])
    f = fires(c, r, "steps.unstable", what)
    if f:
        ev = f["evidence"]
        want = rows[index]["number"]
        c.check("%s: names step %d" % (what, want), ev.get("slowest_step") == want, str(ev))
        got = [x["dur_us"] for x in r["steps"]["rows"]]
        c.check("%s: that step %d us longer, the others unchanged" % (what, us),
                all(near(g, x["dur_us"] + (us if i == index else 0), 0.02)
                    for i, (g, x) in enumerate(zip(got, rows))), str(got))
    none_of(c, r, [x for x in ("dataloader.slow", "steps.warmup_in_window")
                   if finding(clean, x) is None], what)
    return r


def main():
    args = corpus_cli.arguments(mm.TRACES)
    if args is None:
        return 0
    c = Checker(args.v)
    cli = args.cli
    with tempfile.TemporaryDirectory() as tmp:
        def load_clean(name):
            doc = mm.load(os.path.join(mm.TRACES, name))
            return doc, corpus_cli.report(cli, [write(doc, os.path.join(tmp, "clean.json"))])

        a100, a100_clean = load_clean(A100)
        v100, v100_clean = load_clean(V100)
        mi300, mi300_clean = load_clean(MI300X)
        h100, h100_clean = load_clean(H100)
        c.check("A100 clean: no steps.unstable", finding(a100_clean, "steps.unstable") is None,
                str(ids(a100_clean)))
        c.check("V100 clean: no steps.unstable", finding(v100_clean, "steps.unstable") is None,
                str(ids(v100_clean)))

        # One slow step: A100 (its warm-up first step is left out), V100 (6 steps).
        check_slow_step(c, tmp, cli, A100, a100, a100_clean, 2, 150000)
        check_slow_step(c, tmp, cli, V100, v100, v100_clean, 3, 120000)

        # Two and three warm-up steps captured, each 3x a steady step: one finding names them
        # all and compares them with the steady steps only; steps.unstable leaves them out.
        for name, doc, clean, k in ((V100, v100, v100_clean, 2), (A100, a100, a100_clean, 3)):
            what = "%d warm-up steps (%s)" % (k, name.split("__")[1][:12])
            r = corpus_cli.report(cli, [write(warmup_steps(mm.copy_doc(doc), k, 3), os.path.join(tmp, "w.json"))])
            rows, crows = r["steps"]["rows"], clean["steps"]["rows"]
            steady = [x["dur_us"] for x in crows[k:]]
            f = fires(c, r, "steps.warmup_in_window", what)
            if f:
                ev = f["evidence"]
                c.check("%s: names steps %d..%d" % (what, rows[0]["number"], rows[k - 1]["number"]),
                        ev.get("warmup_steps") == k and ev.get("first_step") == rows[0]["number"]
                        and ev.get("last_warmup_step") == rows[k - 1]["number"], str(ev))
                c.check("%s: against the steady steps' median" % what,
                        near(ev.get("others_median_us"), median(steady), 0.001) and ev.get("ratio") >= 2.5,
                        str(ev))
            u = finding(r, "steps.unstable")
            c.check("%s: steps.unstable does not blame a warm-up step" % what,
                    u is None or u["evidence"].get("slowest_step") > rows[k - 1]["number"],
                    str(u and u["evidence"]))

        # The same on an Nsight Systems export (NVTX ProfilerStep ranges, 6 steps 0..5).
        nsys_dir = os.path.join(tmp, "nsys")
        subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                     "..", "nsys", "make_exports.py"), nsys_dir],
                       check=True, capture_output=True)
        base = os.path.join(nsys_dir, "training_steps.sqlite")
        clean = corpus_cli.report(cli, [base])
        c.check("nsys clean: no warm-up", finding(clean, "steps.warmup_in_window") is None,
                str(ids(clean)))
        planted = shutil.copy(base, os.path.join(tmp, "warm.sqlite"))
        r = corpus_cli.report(cli, [nsys_warmup(planted, 2, 3)])
        f = fires(c, r, "steps.warmup_in_window", "2 warm-up steps (nsys)")
        if f:
            ev = f["evidence"]
            c.check("2 warm-up steps (nsys): steps 0..1 against the steady median",
                    ev.get("warmup_steps") == 2 and ev.get("last_warmup_step") == 1
                    and near(ev.get("others_median_us"),
                             median([x["dur_us"] for x in clean["steps"]["rows"][2:]]), 0.001)
                    and ev.get("ratio") >= 2.5, str(ev))
        none_of(c, r, ["steps.unstable"], "2 warm-up steps (nsys)")

        # Unnamed host stalls before each step but the first: the GPU idles waiting for the
        # CPU, and nothing says it was the DataLoader.
        for name, doc, clean in ((MI300X, mi300, mi300_clean), (A100, a100, a100_clean)):
            what = "unnamed stall (%s)" % name.split("__")[1][:12]
            r = corpus_cli.report(cli, [write(stall_before_steps(mm.copy_doc(doc), 50000),
                                os.path.join(tmp, "u.json"))])
            g = fires(c, r, "gpu.idle", what)
            if g:
                c.check("%s: gpu.idle does not blame the DataLoader" % what,
                        "DataLoader" not in g["title"], g["title"])
                c.check("%s: idle grows by the stalls" % what,
                        g["evidence"]["idle_pct"] > (finding(clean, "gpu.idle") or {"evidence": {
                            "idle_pct": 0}})["evidence"]["idle_pct"], str(g["evidence"]))
            none_of(c, r, ["dataloader.slow"], what)

        # A device synchronize closing each step: the CPU waits for the GPU every step.
        for name, doc, clean in ((MI300X, mi300, mi300_clean), (V100, v100, v100_clean)):
            what = "lockstep sync (%s)" % name.split("__")[1][:12]
            d, wait = plant_lockstep(mm.copy_doc(doc))
            r = corpus_cli.report(cli, [write(d, os.path.join(tmp, "l.json"))])
            f = fires(c, r, "sync.runtime_calls", what)
            before = finding(clean, "sync.runtime_calls")
            n = len(clean["steps"]["rows"])
            if f:
                ev, ev0 = f["evidence"], before["evidence"] if before else {"calls": 0,
                                                                          "total_us": 0}
                c.check("%s: one more call per step" % what, ev["calls"] == ev0["calls"] + n,
                        str(ev))
                c.check("%s: their wait added" % what,
                        near(ev["total_us"], ev0["total_us"] + float(wait), 0.01),
                        "%s vs %s + %s" % (ev["total_us"], ev0["total_us"], wait))
            # Each step now takes its host time plus the GPU's tail after its last launch,
            # alike from step to step (MI300X: 24.4 and 23.5 ms, and step 15's own 21.3 ms once
            # its 27.8 ms backlog from before the capture is taken off): steady, not unstable.
            none_of(c, r, ["steps.unstable"], what)

        # loss.item() per step on ROCm.
        r = corpus_cli.report(cli, [write(plant_item(mm.copy_doc(mi300)), os.path.join(tmp, "i.json"))])
        n = len(mi300_clean["steps"]["rows"])
        f = fires(c, r, "sync.dtoh_in_step", "item (MI300X)")
        if f:
            c.check("item (MI300X): one copy per step", f["evidence"].get("copies") == n,
                    str(f["evidence"]))
        c.check("item (MI300X): sync counts them", r["sync"]["dtoh_in_steps"] == n,
                str(r["sync"]))
        c.check("item (MI300X): clean has none", finding(mi300_clean, "sync.dtoh_in_step") is None)

        # Tiny kernels: launch-bound on three shapes.
        # (Not A100: its GPU idles on a blocking pageable copy each step, not on launches.)
        for name, doc, clean in ((MI300X, mi300, mi300_clean), (H100, h100, h100_clean)):
            what = "tiny kernels (%s)" % name.split("__")[1][:12]
            c.check("%s: clean is not launch-bound" % what,
                    finding(clean, "kernels.launch_bound") is None, str(ids(clean)))
            d = plant_tiny_kernels(mm.copy_doc(doc))
            r = corpus_cli.report(cli, [write(d, os.path.join(tmp, "t.json"))])
            want, got = hta_temporal(d), r["temporal_breakdown"]
            c.check("%s: HTA's temporal breakdown of the planted events" % what,
                    all(abs(got[k] - want[k]) <= 0.01 + 1e-6 * want["span_us"] for k in want),
                    "%s vs %s" % (got, want))
            f = fires(c, r, "kernels.launch_bound", what)
            if f:
                ev = f["evidence"]
                c.check("%s: every kernel in the steps is tiny" % what,
                        ev.get("kernels_le_4us") == ev.get("kernels") and ev["kernels"] > 50,
                        str(ev))

        # Pinned copies made pageable (A100: 5 MiB of pinned HtoD input batches).
        c.check("pageable: A100 clean has none", finding(a100_clean, "memcpy.pageable") is None)
        r = corpus_cli.report(cli, [write(plant_pageable(mm.copy_doc(a100)), os.path.join(tmp, "p.json"))])
        f = fires(c, r, "memcpy.pageable", "pageable (A100)")
        if f:
            htod = next(x for x in r["memory_ops"]["rows"] if x["kind"] == "HtoD")
            c.check("pageable (A100): every HtoD copy is pageable now",
                    f["evidence"].get("htod") == htod["count"], str(f["evidence"]))

        # The real 8-rank DLRM set: rank 7 is its straggler (shortest collectives). Rank 1 (the
        # longest) made 5 ms late at each of its 8 collectives becomes it.
        docs = [mm.load(os.path.join(mm.TRACES, n)) for n in DLRM]
        for late in (1, 4):
            paths = [write(d, os.path.join(tmp, "rank%d.json" % i))
                     for i, d in enumerate(late_rank([mm.copy_doc(d) for d in docs], late,
                                                     D(5000)))]
            r = corpus_cli.report(cli, paths)
            what = "late rank %d of 8" % late
            f = fires(c, r, "ranks.straggler", what)
            if f:
                c.check("%s: named the straggler" % what,
                        f["title"].startswith("Rank %d " % late), f["title"])
            none_of(c, r, ["ranks.missing", "ranks.collective_mismatch"], what)
    print("planted_shapes: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
