#!/usr/bin/python3
"""Kineto ranks whose captures start steps apart, built from the real 8-rank DLRM job
(../shared/traces, param__dlrm_kineto__worker{0..7}: ProfilerStep#10 of each rank, NCCL
all-to-all and all-reduce). Each rank's trace is given a second step: a copy of every event one
trace span later (ProfilerStep#11, ids shifted so none repeats). One rank's capture then starts
at step 11 (its step 10 left out, as a profiler started late on that rank writes it).

Before: collectives were paired from each capture's first, so the late rank's step-11
collectives met the others' step-10 ones and the counts (one step's against two) made a false
CRITICAL ranks.collective_mismatch. They are paired and counted over step 11, the step every
capture holds. A rank that drops one collective in step 11 is still a mismatch. A collective
launched in step 11 whose kernel runs after the step's end still counts in step 11 (it is put
in the step of its launch), and the JSON's shared_steps says step 11 was the one compared.

Usage: /usr/bin/python3 tests/corpus/late_capture_ranks.py --cli build/native/kinetoscope [-v]
"""
import decimal
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402  (the exact-number JSON reader and writer)

# The real 8-rank DLRM set (one file per worker, MANIFEST.json), in worker order.
RANKS = sorted((f for f in (os.listdir(mm.TRACES) if os.path.isdir(mm.TRACES) else [])
                if f.startswith("param__dlrm_kineto__worker")),
               key=lambda f: int(f.split("__worker")[1].split("_")[0]))
LATE_RANK = 3
ID_SHIFT = 10_000_000  # above any correlation / External id / flow id of one step
ID_ARGS = ("correlation", "External id", "Sequence number")
BACKWARD_THREAD = 999999  # a thread id no DLRM trace uses


def is_nccl_kernel(e):
    return e.get("cat") == "kernel" and "nccl" in str(e.get("name", "")).lower()


def two_steps(doc):
    """doc with every event repeated one trace span later, its step renamed ProfilerStep#11."""
    ev = doc["traceEvents"]
    timed = [e for e in ev if e.get("ph") != "M" and "ts" in e]
    lo = min(mm.dec(e["ts"]) for e in timed)
    hi = max(mm.dec(e["ts"]) + mm.dec(e.get("dur", 0)) for e in timed)
    shift = hi - lo + decimal.Decimal(1000)
    copy = []
    for e in timed:
        y = dict(e, ts=mm.dec(e["ts"]) + shift)
        if y.get("name") == "ProfilerStep#10":
            y["name"] = "ProfilerStep#11"
        if "id" in y and y.get("ph") in ("s", "f", "t"):
            y["id"] = int(y["id"]) + ID_SHIFT
        if isinstance(y.get("args"), dict):
            y["args"] = dict(y["args"])
            for k in ID_ARGS:
                if isinstance(y["args"].get(k), int) and y["args"][k] >= 0:
                    y["args"][k] += ID_SHIFT
        copy.append(y)
    doc["traceEvents"] = ev + copy
    doc["_step11_at"] = lo + shift
    return doc


def from_step_11(doc):
    """Only what the copy (step 11) holds: the capture started at its first event."""
    start = doc.pop("_step11_at")
    doc["traceEvents"] = [e for e in doc["traceEvents"]
                          if e.get("ph") == "M" or "ts" not in e or mm.dec(e["ts"]) >= start]
    return doc


def drop_last_nccl(doc):
    """The rank leaves out its last collective (in step 11, the shared one)."""
    ev = doc["traceEvents"]
    last = max((i for i, e in enumerate(ev) if is_nccl_kernel(e)), key=lambda i: mm.dec(ev[i]["ts"]))
    del ev[last]
    return doc


def delay_last_nccl(doc):
    """The rank's last collective is launched from another thread than the step's (as DDP's
    all-reduces are, from autograd's backward thread) by a call that begins 3 us before step 11
    (the shared one) ends and returns after it, and its kernel runs after everything else the
    capture holds, past the step's end: the step's device-adjusted end does not wait for it (only
    calls wholly inside the host step extend it, as the TB plugin's steps). Its flow arrow moves
    with the kernel and the launch."""
    ev = doc["traceEvents"]
    last = max((i for i, e in enumerate(ev) if is_nccl_kernel(e)), key=lambda i: mm.dec(ev[i]["ts"]))
    was = mm.dec(ev[last]["ts"])
    end = max(mm.dec(e["ts"]) + mm.dec(e.get("dur", 0)) for e in ev if e.get("ph") != "M" and "ts" in e)
    step = next(e for e in ev if e.get("name") == "ProfilerStep#11")
    step_end = mm.dec(step["ts"]) + mm.dec(step["dur"])
    corr = (ev[last].get("args") or {}).get("correlation")
    launch = next(e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")
                  and (e.get("args") or {}).get("correlation") == corr)
    thread, launched = launch["tid"], mm.dec(launch["ts"])
    for e in ev:
        if e is ev[last] or (e.get("ph") == "f" and e.get("id") == corr and mm.dec(e["ts"]) == was):
            e["ts"] = end + decimal.Decimal(1000)
        elif e is launch or (e.get("ph") == "s" and e.get("id") == corr and e.get("tid") == thread
                             and mm.dec(e["ts"]) == launched):
            e["tid"] = BACKWARD_THREAD
            e["ts"] = step_end - decimal.Decimal(3)
    launch["dur"] = 10
    return doc


def write_set(tmp, name, late=None, drop=None, delay=None):
    paths = []
    for k, f in enumerate(RANKS):
        doc = two_steps(mm.load(os.path.join(mm.TRACES, f)))
        if k == late:
            doc = from_step_11(doc)
        doc.pop("_step11_at", None)
        if k == drop:
            doc = drop_last_nccl(doc)
        if k == delay:
            doc = delay_last_nccl(doc)
        path = os.path.join(tmp, "%s_rank%d.json" % (name, k))
        with open(path, "wb") as out:
            out.write(mm.dump(doc))
        paths.append(path)
    return paths


def finding(rep, fid):
    return next((f for f in rep["findings"] if f["id"] == fid), None)


def main():
    args, c = corpus_cli.start(mm.TRACES)
    if args is None:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        one = corpus_cli.report(args.cli, [os.path.join(mm.TRACES, f) for f in RANKS])
        per_step = one["collectives"]["matched"]
        c.check("the DLRM job matches collectives", per_step > 0 and one["collectives"]["counts_match"],
                str(one["collectives"]["matched"]))
        both = corpus_cli.report(args.cli, write_set(tmp, "both"))
        c.check("two steps on every rank: twice the collectives, no mismatch",
                both["collectives"]["matched"] == 2 * per_step
                and finding(both, "ranks.collective_mismatch") is None,
                "%d matched, %s" % (both["collectives"]["matched"], corpus_cli.finding_ids(both)))
        late = corpus_cli.report(args.cli, write_set(tmp, "late", late=LATE_RANK))
        c.check("rank %d from step 11: no collective_mismatch" % LATE_RANK,
                finding(late, "ranks.collective_mismatch") is None, str(corpus_cli.finding_ids(late)))
        c.check("rank %d from step 11: step 11's collectives matched, counts equal" % LATE_RANK,
                late["collectives"]["matched"] == per_step and late["collectives"]["counts_match"]
                and late["collectives"]["names_match"],
                str({k: late["collectives"][k] for k in ("matched", "counts_match", "names_match")}))
        # Step 11's collectives pair as step 10's did on the one-step job: the same transfer
        # (the shortest across ranks) for each, the copy's durations being the original's.
        c.check("rank %d from step 11: each collective paired with its own" % LATE_RANK,
                [r["transfer_us"] for r in late["collectives"]["rows"]]
                == [r["transfer_us"] for r in one["collectives"]["rows"]],
                "")
        c.check("rank %d from step 11: the JSON names step 11 as the one compared" % LATE_RANK,
                late.get("shared_steps") == [11], str(late.get("shared_steps")))
        # A collective belongs to the step it was launched in: rank 6's last one, launched at
        # step 11's end from another thread, runs after the step's end. Put by its GPU start it left step 11 on that rank
        # alone (a false CRITICAL: counts differ); by its launch it is compared there.
        behind = corpus_cli.report(args.cli, write_set(tmp, "behind", late=LATE_RANK, delay=6))
        c.check("rank 6's last collective runs after step 11 ends: still compared in step 11",
                finding(behind, "ranks.collective_mismatch") is None
                and behind["collectives"]["matched"] == per_step
                and behind["collectives"]["counts_match"],
                "%d matched, %s" % (behind["collectives"]["matched"], corpus_cli.finding_ids(behind)))
        uneven = corpus_cli.report(args.cli, write_set(tmp, "uneven", late=LATE_RANK, drop=5))
        f = finding(uneven, "ranks.collective_mismatch")
        c.check("rank 5 one collective short in step 11: collective_mismatch",
                f is not None and "counted_over" in str(f.get("evidence")),
                str(f["title"] if f else corpus_cli.finding_ids(uneven)))
    print("late_capture_ranks: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
