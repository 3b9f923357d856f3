#!/usr/bin/python3
"""Parallel-training shapes our 8-rank DLRM set does not have, checked against what is true by
construction: FSDP/ZeRO-3 (all_gather before each layer's forward, reduce_scatter after its
backward, on a side NCCL stream whose number differs by rank), DDP (bucketed all_reduce on a side
stream overlapping backward, one rank's compute slow), tensor parallel (small all_reduces on the
compute stream), pipeline parallel (send/recv between stages, GPipe bubbles) and gradient
accumulation (4 forward/backward per optimizer step, with and without ProfilerStep markers).

Each shape is written over a real rank trace of the DLRM set: its header (deviceProperties,
distributedInfo, with the rank and world size the shape needs), its metadata events, its threads
and its own compute kernel names are kept; the timed events are replaced by a schedule the script
plays out: one host thread launching (runtime calls joined by correlation to their kernels),
streams that run in order, stream waits, and collectives that end when their last member has
arrived plus a transfer time. So every number the report gives has a known answer here.

Usage: /usr/bin/python3 tests/corpus/dist_shapes.py --cli build/native/kinetoscope [-v]
"""
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402
from planted import finding, near  # noqa: E402
from planted_shapes import DLRM, union_us  # noqa: E402

LAUNCH_US = 6  # one cudaLaunchKernel
CPU_GAP_US = 4  # host work between two launches
COMPUTE_STREAM = 7
COLL_ARGS = {"dtype": "Float"}


class Rank:
    """One rank's host thread and streams as the schedule plays out."""

    def __init__(self, rank, template, t0):
        self.rank = rank
        self.template = template
        self.cpu = t0
        self.free = {}
        self.events = []
        self.open = []  # host ranges begun and not yet ended: [name, cat, ts]
        self.pc = 0
        self.pending = None  # a launched collective waiting for its peers
        self.seq = {}
        self.corr = 1000

    def host(self, cat, name, ts, dur, args=None):
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": self.template["pid"],
                            "tid": self.template["tid"], "ts": ts, "dur": dur,
                            "args": args or {}})

    def launch(self, op_name, op_args=None):
        """A CPU op launching one GPU op: returns (correlation, launch end)."""
        self.corr += 1
        t = self.cpu
        self.host("cpu_op", op_name, t, LAUNCH_US + 2,
                  dict(op_args or {}, **{"External id": self.corr}))
        self.host("cuda_runtime", "cudaLaunchKernel", t + 1, LAUNCH_US,
                  {"correlation": self.corr, "External id": self.corr})
        self.cpu = t + LAUNCH_US + 2 + CPU_GAP_US
        return self.corr, t + 1 + LAUNCH_US

    def kernel(self, name, stream, ts, end, corr):
        self.events.append({"ph": "X", "cat": "kernel", "name": name,
                            "pid": self.template["gpu_pid"], "tid": stream, "ts": ts,
                            "dur": end - ts,
                            "args": {"device": self.template["device"], "stream": stream,
                                     "correlation": corr, "External id": corr,
                                     "blocks per SM": 1.0, "grid": [80, 1, 1],
                                     "block": [256, 1, 1], "est. achieved occupancy %": 50}})
        self.free[stream] = max(self.free.get(stream, 0), end)


NCCL_KERNEL = {
    "all_gather": "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "reduce_scatter":
        "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "all_reduce": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "send": "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
    "recv": "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
    # NCCL runs an all-to-all as grouped sends and receives: the same kernel, told apart by the
    # record_param_comms' "Collective name".
    "all_to_all": "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
}


def play(programs, templates, transfer, peers=True, group_ranks=None):
    """Plays each rank's program (a list of ops) out; returns each rank's events.
    ops: ("k", name, us, stream): a compute kernel; ("c", collective, stream, channel, members,
    nelems): a collective (send/recv: members are the pair) that ends `transfer(collective)` after
    its last member started it; ("wait", src, dst): stream dst waits for what src holds now;
    ("sync",): the host waits for the device; ("begin", cat, name) / ("end",): host ranges.
    `peers`: a send's / receive's args name its peer ("Dst Rank" / "Src Rank", PyTorch 2.4+).
    `group_ranks`: channel -> the "Process Group Ranks" text its collectives carry (PyTorch 2.2+),
    written with the group's "Group size" (a group's members may be more than play's `members`:
    the ranks that take part here)."""
    ranks = [Rank(r, templates[r], 1_000_000) for r in range(len(programs))]
    arrived = {}  # (channel, seq) -> {rank: start}
    done = 0
    while done < len(ranks):
        progressed = False
        for rk in ranks:
            prog = programs[rk.rank]
            while rk.pc < len(prog):
                op = prog[rk.pc]
                if op[0] == "c":
                    _, coll, stream, channel, members, nelems = op
                    if rk.pending is None:
                        seq = rk.seq.get(channel, 0)
                        rk.seq[channel] = seq + 1
                        args = dict(COLL_ARGS, **{
                            "Collective name": coll, "In msg nelems": nelems,
                            "Out msg nelems": nelems, "Group size": len(members)})
                        if channel.startswith("pg "):  # a channel named as a process group
                            args["Process Group Name"] = channel[3:]
                        if group_ranks and channel in group_ranks:
                            args["Process Group Ranks"], args["Group size"] = group_ranks[channel]
                        if peers and coll in ("send", "recv"):
                            other = [m for m in members if m != rk.rank][0]
                            args["Dst Rank" if coll == "send" else "Src Rank"] = other
                        corr, ready = rk.launch("record_param_comms", args)
                        start = max(rk.free.get(stream, 0), ready + 1)
                        rk.pending = ((channel, seq), corr, start)
                        arrived.setdefault((channel, seq), {})[rk.rank] = start
                    key, corr, start = rk.pending
                    if len(arrived[key]) < len(members):
                        break  # blocked until every member has started it
                    end = max(arrived[key].values()) + transfer(coll)
                    rk.kernel(NCCL_KERNEL[coll], stream, start, end, corr)
                    rk.pending = None
                elif op[0] == "k":
                    _, name, us, stream = op
                    corr, ready = rk.launch("aten::mm")
                    start = max(rk.free.get(stream, 0), ready + 1)
                    rk.kernel(name, stream, start, start + us, corr)
                elif op[0] == "wait":
                    _, src, dst = op
                    rk.host("cuda_runtime", "cudaStreamWaitEvent", rk.cpu, 2, {"correlation": 0})
                    rk.cpu += 3
                    rk.free[dst] = max(rk.free.get(dst, 0), rk.free.get(src, 0))
                elif op[0] == "sync":
                    t = rk.cpu
                    rk.cpu = max(t, max(rk.free.values(), default=t)) + 2
                    rk.host("cuda_runtime", "cudaDeviceSynchronize", t, rk.cpu - t,
                            {"correlation": 0})
                elif op[0] == "host":  # host work with no GPU op: ("host", cat, name, us)
                    rk.host(op[1], op[2], rk.cpu, op[3])
                    rk.cpu += op[3] + 1
                elif op[0] == "begin":
                    rk.open.append([op[2], op[1], rk.cpu])
                    rk.cpu += 1
                elif op[0] == "end":
                    name, cat, t = rk.open.pop()
                    rk.cpu += 1
                    rk.host(cat, name, t, rk.cpu - t)
                rk.pc += 1
                progressed = True
            if rk.pc == len(prog) and not getattr(rk, "finished", False):
                rk.finished = True
                done += 1
        if not progressed and done < len(ranks):
            raise RuntimeError("the schedule deadlocks")
    return ranks


def template(rank, world):
    """Rank `rank % 8` of the DLRM set: its header, metadata, host thread and compute kernels."""
    doc = mm.load(os.path.join(mm.TRACES, DLRM[rank % len(DLRM)]))
    main = next(e for e in doc["traceEvents"] if str(e.get("name", "")).startswith("ProfilerStep#"))
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel"]
    names = sorted({e["name"] for e in kernels if "nccl" not in e["name"].lower()})
    gpu = kernels[0]
    head = {k: v for k, v in doc.items() if k != "traceEvents"}
    head["distributedInfo"] = dict(head.get("distributedInfo", {}), rank=rank, world_size=world)
    meta = [e for e in doc["traceEvents"] if e.get("ph") == "M"]
    return {"head": head, "meta": meta, "pid": main["pid"], "tid": main["tid"],
            "gpu_pid": gpu["pid"], "device": gpu["args"].get("device", 0), "names": names}


def write_ranks(tmp, shape, ranks, templates):
    paths = []
    for rk in ranks:
        t = templates[rk.rank]
        streams = sorted({e["tid"] for e in rk.events if e.get("cat") == "kernel"})
        meta = list(t["meta"]) + [{"ph": "M", "name": "thread_name", "pid": t["gpu_pid"], "tid": s,
                                   "args": {"name": "stream %d" % s}} for s in streams]
        doc = dict(t["head"], traceEvents=meta + rk.events)
        path = os.path.join(tmp, "%s_rank%d.pt.trace.json" % (shape, rk.rank))
        with open(path, "w") as f:
            json.dump(doc, f)
        paths.append(path)
    return paths


def truth(rk):
    """HTA's comm/compute overlap of one rank's GPU, from the events played out."""
    ks = [(e["ts"], e["ts"] + e["dur"]) for e in rk.events if e.get("cat") == "kernel"
          and "nccl" not in e["name"].lower()]
    cs = [(e["ts"], e["ts"] + e["dur"]) for e in rk.events if e.get("cat") == "kernel"
          and "nccl" in e["name"].lower()]
    comp, comm = union_us(ks), union_us(cs)
    both = comp + comm - union_us(ks + cs)
    return {"compute": comp, "comm": comm, "overlap": both}


def fsdp(world, layers, steps):
    """FSDP / ZeRO-3: all_gather each layer's shard before its forward (the compute stream waits
    for it), and again before its backward; reduce_scatter its gradient after, on a stream of its
    own. The comm streams' numbers differ by rank (streams are numbered per process), and rank r
    computes (1 + r / 10) times as long, so the faster ranks wait in the collectives."""
    progs = []
    members = list(range(world))
    for r in range(world):
        comm, scatter, f = 20 + 4 * r, 21 + 4 * r, 1 + r / 10
        p = []
        for s in range(steps):
            p.append(("begin", "user_annotation", "ProfilerStep#%d" % (s + 1)))
            p.append(("c", "all_gather", comm, "dp", members, 1 << 20))
            for i in range(layers):  # forward: prefetch the next layer's shard
                p.append(("wait", comm, COMPUTE_STREAM))
                if i + 1 < layers:
                    p.append(("c", "all_gather", comm, "dp", members, 1 << 20))
                p += [("k", "fwd", 400 * f, COMPUTE_STREAM)] * 2
            p.append(("c", "all_gather", comm, "dp", members, 1 << 20))
            for i in range(layers):  # backward
                p.append(("wait", comm, COMPUTE_STREAM))
                if i + 1 < layers:
                    p.append(("c", "all_gather", comm, "dp", members, 1 << 20))
                p += [("k", "bwd", 700 * f, COMPUTE_STREAM)] * 2
                p.append(("wait", COMPUTE_STREAM, scatter))
                p.append(("c", "reduce_scatter", scatter, "rs", members, 1 << 20))
            p.append(("wait", scatter, COMPUTE_STREAM))
            p += [("k", "opt", 100, COMPUTE_STREAM)]
            p.append(("sync",))
            p.append(("end",))
        progs.append(p)
    return progs


def ddp(world, buckets, steps, slow_rank, factor):
    """DDP: forward, then backward whose gradients all_reduce bucket by bucket on a side stream
    as they are ready (overlapping the rest of backward); the optimizer waits for the last
    bucket. Rank `slow_rank` computes `factor` times slower: the others wait for it."""
    progs = []
    members = list(range(world))
    for r in range(world):
        f = factor if r == slow_rank else 1.0
        p = []
        for s in range(steps):
            p.append(("begin", "user_annotation", "ProfilerStep#%d" % (s + 1)))
            p += [("k", "fwd", 300 * f, COMPUTE_STREAM)] * 6
            for b in range(buckets):
                p += [("k", "bwd", 500 * f, COMPUTE_STREAM)] * 2
                p.append(("wait", COMPUTE_STREAM, 30))
                p.append(("c", "all_reduce", 30, "dp", members, 1 << 22))
            p.append(("wait", 30, COMPUTE_STREAM))
            p += [("k", "opt", 100 * f, COMPUTE_STREAM)]
            p.append(("sync",))
            p.append(("end",))
        progs.append(p)
    return progs


def tensor_parallel(world, layers, steps):
    """Tensor parallel (Megatron): each layer's row-parallel matmul ends in a small all_reduce
    on the compute stream itself: nothing overlaps it."""
    members = list(range(world))
    progs = []
    for r in range(world):
        p = []
        for s in range(steps):
            p.append(("begin", "user_annotation", "ProfilerStep#%d" % (s + 1)))
            for i in range(2 * layers):  # forward, then backward
                p += [("k", "mm", 150, COMPUTE_STREAM)] * 2
                p.append(("c", "all_reduce", COMPUTE_STREAM, "tp", members, 1 << 16))
            p += [("k", "opt", 100, COMPUTE_STREAM)]
            p.append(("sync",))
            p.append(("end",))
        progs.append(p)
    return progs


def pipeline(stages, micro, steps):
    """Pipeline parallel (GPipe): stage k receives each micro-batch's activations from stage
    k-1, runs its forward and sends to k+1; backward the other way. Send/recv run on a side
    stream; the compute stream waits for each recv. The stages idle in the fill and drain
    bubbles, waiting on communication."""
    progs = []
    for k in range(stages):
        comm = 40
        p = []
        for s in range(steps):
            p.append(("begin", "user_annotation", "ProfilerStep#%d" % (s + 1)))
            for m in range(micro):
                if k > 0:
                    p.append(("c", "recv", comm, "p2p%d" % (k - 1), [k - 1, k], 1 << 18))
                    p.append(("wait", comm, COMPUTE_STREAM))
                p += [("k", "fwd", 400, COMPUTE_STREAM)] * 2
                if k + 1 < stages:
                    p.append(("wait", COMPUTE_STREAM, comm))
                    p.append(("c", "send", comm, "p2p%d" % k, [k, k + 1], 1 << 18))
            for m in range(micro):
                if k + 1 < stages:
                    p.append(("c", "recv", comm, "p2p%d" % k, [k, k + 1], 1 << 18))
                    p.append(("wait", comm, COMPUTE_STREAM))
                p += [("k", "bwd", 800, COMPUTE_STREAM)] * 2
                if k > 0:
                    p.append(("wait", COMPUTE_STREAM, comm))
                    p.append(("c", "send", comm, "p2p%d" % (k - 1), [k - 1, k], 1 << 18))
            p += [("k", "opt", 100, COMPUTE_STREAM)]
            p.append(("sync",))
            p.append(("end",))
        progs.append(p)
    return progs


def two_d(slow, factor, steps=3, layers=4):
    """Tensor x data parallel on 2x2 ranks, groups named as Kineto writes them ("Process Group
    Name": every rank creates every group, so the names are the same everywhere): tensor groups
    {0,1} "1" and {2,3} "2" (all_reduce on the compute stream after each layer), data groups
    {0,2} "3" and {1,3} "4" (one gradient all_reduce on a side stream). Rank `slow` computes
    `factor` times as long: its tensor peer waits for it, and the others for that peer."""
    progs = []
    for r in range(4):
        tp, tp_members = "pg %d" % (1 + r // 2), [2 * (r // 2), 2 * (r // 2) + 1]
        dp, dp_members = "pg %d" % (3 + r % 2), [r % 2, r % 2 + 2]
        f = factor if r == slow else 1.0
        p = []
        for s in range(steps):
            p.append(("begin", "user_annotation", "ProfilerStep#%d" % (s + 1)))
            for i in range(2 * layers):
                p += [("k", "mm", 200 * f, COMPUTE_STREAM)] * 2
                p.append(("c", "all_reduce", COMPUTE_STREAM, tp, tp_members, 1 << 16))
            p.append(("wait", COMPUTE_STREAM, 30 + r))
            p.append(("c", "all_reduce", 30 + r, dp, dp_members, 1 << 22))
            p.append(("wait", 30 + r, COMPUTE_STREAM))
            p += [("k", "opt", 100, COMPUTE_STREAM)]
            p.append(("sync",))
            p.append(("end",))
        progs.append(p)
    return progs


def write_two_d(tmp):
    """The 2x2 shape main() checks, rank 1 slow, for tests/fleet: its rank files."""
    return write_shape(tmp, "tp_dp", two_d(1, 1.5), lambda coll: 50, 4)[1]


def grad_accum(world, accum, steps, markers):
    """Gradient accumulation: `accum` forward/backward passes, then one all_reduce of the
    gradients and the optimizer step (an Optimizer.step#SGD.step range) per step; with or
    without ProfilerStep markers."""
    members = list(range(world))
    progs = []
    for r in range(world):
        p = []
        for s in range(steps):
            if markers:
                p.append(("begin", "user_annotation", "ProfilerStep#%d" % (s + 1)))
            for a in range(accum):
                p += [("k", "fwd", 300, COMPUTE_STREAM)] * 3
                p += [("k", "bwd", 600, COMPUTE_STREAM)] * 3
            p.append(("wait", COMPUTE_STREAM, 30))
            p.append(("c", "all_reduce", 30, "dp", members, 1 << 22))
            p.append(("wait", 30, COMPUTE_STREAM))
            p.append(("begin", "user_annotation", "Optimizer.step#SGD.step"))
            p += [("k", "opt", 200, COMPUTE_STREAM)] * 2
            p.append(("end",))
            p.append(("sync",))
            if markers:
                p.append(("end",))
        progs.append(p)
    return progs


def name_kernels(progs, templates):
    """Compute kernels take the template rank's own kernel names: the j-th kernel of a run of
    one kind ("fwd", "bwd", ...) the same name every time, as a loop launches the same kernels
    each layer, micro-batch and step."""
    out = []
    for r, p in enumerate(progs):
        names, q, prev, j = templates[r]["names"], [], None, 0
        for op in p:
            if op[0] == "k":
                j = j + 1 if prev == op[1] else 0
                prev = op[1]
                base = sum(map(ord, op[1])) * 7
                op = ("k", names[(base + j) % len(names)]) + op[2:]
            else:
                prev = None
            q.append(op)
        out.append(q)
    return out


def write_shape(tmp, shape, progs, transfer, world, peers=True, group_ranks=None):
    """Plays the programs out and writes one trace per rank: (ranks played, paths)."""
    templates = [template(r, world) for r in range(world)]
    ranks = play(name_kernels(progs, templates), templates, transfer, peers, group_ranks)
    return ranks, write_ranks(tmp, shape, ranks, templates)


def write_pipeline(tmp):
    """The pipeline shape main() checks, for tests/fleet: its rank files."""
    return write_shape(tmp, "pp", pipeline(4, 4, 2), lambda coll: 60, 4)[1]


def run_shape(c, tmp, cli, shape, progs, transfer, world, peers=True):
    ranks, paths = write_shape(tmp, shape, progs, transfer, world, peers)
    return ranks, corpus_cli.report(cli, paths)


def check_overlap(c, shape, ranks, rep):
    for rk, row in zip(ranks, rep["ranks"]):
        t = truth(rk)
        c.check("%s rank %d: communication_us" % (shape, rk.rank),
                near(row["communication_us"], t["comm"], 0.01),
                "%s vs %s" % (row["communication_us"], t["comm"]))
        c.check("%s rank %d: overlap_us" % (shape, rk.rank),
                near(row["overlap_us"], t["overlap"], 0.01),
                "%s vs %s" % (row["overlap_us"], t["overlap"]))
        own = rk_report(rep, rk.rank)["comm_overlap"]
        c.check("%s rank %d: own comm_overlap.overlap_pct" % (shape, rk.rank),
                near(own["overlap_pct"], 100.0 * t["overlap"] / t["comm"], 0.01),
                "%s vs %.2f" % (own["overlap_pct"], 100.0 * t["overlap"] / t["comm"]))


def comm_waits(ranks):
    """Each rank's wait in its collectives (send/recv left out): the i-th collective is the same
    on every rank; its shortest duration is the transfer, the rest waiting for peers."""
    comm = [[e for e in rk.events if e.get("cat") == "kernel" and "nccl" in e["name"].lower()
             and "SendRecv" not in e["name"]] for rk in ranks]
    waits = [0] * len(ranks)
    for row in zip(*comm):
        lo = min(e["dur"] for e in row)
        for k, e in enumerate(row):
            waits[k] += e["dur"] - lo
    return waits


def comm_waits_by_stream(ranks):
    """comm_waits, matching the i-th collective of each rank's k-th communication stream (by
    first use): the streams' numbers differ by rank."""
    waits = [0] * len(ranks)
    per_rank = []
    for rk in ranks:
        comm = [e for e in sorted(rk.events, key=lambda e: e["ts"]) if e.get("cat") == "kernel"
                and "nccl" in e["name"].lower()]
        order = []
        for e in comm:
            if e["tid"] not in order:
                order.append(e["tid"])
        per_rank.append([[e for e in comm if e["tid"] == s] for s in order])
    for k in range(len(per_rank[0])):
        for row in zip(*(streams[k] for streams in per_rank)):
            lo = min(e["dur"] for e in row)
            for r, e in enumerate(row):
                waits[r] += e["dur"] - lo
    return waits


def check_ddp(c, ranks, rep, slow):
    f = finding(rep, "ranks.straggler")
    c.check("ddp: straggler fires", f is not None)
    if f is not None:
        c.check("ddp: straggler is rank %d" % slow, ("Rank %d " % slow) in f["title"], f["title"])
    for rk, row, want in zip(ranks, rep["ranks"], comm_waits(ranks)):
        c.check("ddp rank %d: wait_us" % rk.rank, abs(row["wait_us"] - want) <= 1,
                "%s vs %s" % (row["wait_us"], want))
    check_overlap(c, "ddp", ranks, rep)
    # The straggler's cause: its kernels take longer (compute), nothing on its host.
    if f is not None:
        cause = f.get("evidence", {}).get("likely_cause")
        c.check("ddp: straggler's likely cause is compute", str(cause).startswith("compute"),
                str(cause))


def check_tp(c, ranks, rep):
    """All-reduces on the compute stream: exposed communication, none of it GPU idle."""
    check_overlap(c, "tp", ranks, rep)
    f = finding(rep["reports"][0], "comm.not_overlapped")
    c.check("tp: comm.not_overlapped fires", f is not None)
    for rk, row in zip(ranks, rep["ranks"]):
        c.check("tp rank %d: exposed communication is not idle" % rk.rank,
                row["idle_us"] < 0.01 * row["gpu_span_us"], str(row["idle_us"]))
        c.check("tp rank %d: no gpu.idle" % rk.rank,
                finding(rk_report(rep, rk.rank), "gpu.idle") is None)


def p2p_waits(ranks):
    """Each rank's wait in its sends and receives, per step: the i-th send of rank a to b is the
    i-th receive on b from a (the peers are in the record_param_comms args); the shorter of the
    two is the transfer, the longer side waits the difference. A transfer is in the step its
    launch (cudaLaunchKernel, by correlation) lies in. Also the number of pairs."""
    kernels = {}  # (from, to, "send"/"recv") -> [(duration, rank, step)]
    for rk in ranks:
        steps = host_steps(rk)
        args = {e["args"]["External id"]: e["args"] for e in rk.events
                if e["name"] == "record_param_comms"}
        launch = {e["args"]["correlation"]: e["ts"] for e in rk.events
                  if e["name"] == "cudaLaunchKernel"}
        for e in sorted(rk.events, key=lambda e: e["ts"]):
            if e.get("cat") != "kernel" or "nccl" not in e["name"].lower():
                continue
            a = args[e["args"]["correlation"]]
            t = launch[e["args"]["correlation"]]
            step = [k for k, (b, d) in enumerate(steps) if b <= t < b + d][0]
            if a["Collective name"] == "send":
                key = (rk.rank, a["Dst Rank"], "send")
            else:
                key = (a["Src Rank"], rk.rank, "recv")
            kernels.setdefault(key, []).append((e["dur"], rk.rank, step))
    waits = [[0] * len(host_steps(ranks[0])) for _ in ranks]
    pairs = 0
    for (a, b, kind), sends in kernels.items():
        if kind != "send":
            continue
        for s, r in zip(sends, kernels[(a, b, "recv")]):
            pairs += 1
            lo = min(s[0], r[0])
            for dur, rank, step in (s, r):
                waits[rank][step] += dur - lo
    return waits, pairs


def check_pp_waits(c, ranks, rep):
    """The bubbles measured: each stage's wait in its sends and receives, in all and per step,
    and one row per pair (durations on the two stages only)."""
    waits, pairs = p2p_waits(ranks)
    for rk, row in zip(ranks, rep["ranks"]):
        want = sum(waits[rk.rank])
        c.check("pp rank %d: wait_us of its sends and receives" % rk.rank,
                abs(row["wait_us"] - want) <= 1, "%s vs %s" % (row["wait_us"], want))
        got = rep["heatmap"]["collective_wait_us"][rk.rank]
        c.check("pp rank %d: wait per step" % rk.rank,
                all(abs(g - w) <= 1 for g, w in zip(got, waits[rk.rank])) and len(got) == len(waits[rk.rank]),
                "%s vs %s" % (got, waits[rk.rank]))
    coll = rep["collectives"]
    c.check("pp: every send/recv pair compared", coll.get("p2p_pairs") == pairs
            and coll.get("p2p_unmatched") == 0, "%s vs %s" % (coll.get("p2p_pairs"), pairs))
    c.check("pp: a pair's row has durations on its two stages only",
            len(coll.get("rows", [])) > 0 and all(sum(d is not None for d in r["dur_us"]) == 2
                                                for r in coll["rows"]))


def check_pp_without_peers(c, ranks, rep):
    """Kineto before PyTorch 2.4 names no peer: the sends and receives are said not measured,
    never matched by guess."""
    coll = rep["collectives"]
    n = sum(1 for rk in ranks for e in rk.events if e.get("cat") == "kernel" and "nccl" in e["name"].lower())
    c.check("pp without peers: sends and receives not measured",
            coll.get("p2p_pairs") == 0 and coll.get("p2p_unmatched") == n,
            "%s pairs, %s unmatched vs %d" % (coll.get("p2p_pairs"), coll.get("p2p_unmatched"), n))
    for row in rep["ranks"]:
        c.check("pp without peers rank %d: no wait guessed" % row["rank"], row["wait_us"] == 0)


def check_pp(c, ranks, rep):
    """Stages issue different numbers of sends and receives by design: no mismatch; the bubbles
    are waits on communication, never data loading or a host stall."""
    c.check("pp: no collective mismatch", finding(rep, "ranks.collective_mismatch") is None,
            (finding(rep, "ranks.collective_mismatch") or {}).get("title", ""))
    c.check("pp: no straggler from send/recv", finding(rep, "ranks.straggler") is None)
    for rk, row in zip(ranks, rep["ranks"]):
        own = rk_report(rep, rk.rank)
        for fid in ("dataloader.slow", "gpu.idle", "ranks.idle_gap_straggler"):
            c.check("pp rank %d: no %s" % (rk.rank, fid), finding(own, fid) is None
                    and finding(rep, fid) is None)
        c.check("pp rank %d: no data-loading time" % rk.rank, row["dataloader_us"] == 0)
        c.check("pp rank %d: bubbles are not GPU idle" % rk.rank,
                row["idle_us"] < 0.01 * row["gpu_span_us"], str(row["idle_us"]))
        f = finding(own, "comm.not_overlapped")
        c.check("pp rank %d: exposed send/recv read as the pipeline's, not DDP's" % rk.rank,
                f is not None and "DistributedDataParallel" not in f["fix"]
                and "pipeline" in f["title"], (f or {}).get("fix", "no finding"))
    check_overlap(c, "pp", ranks, rep)


def group_waits(ranks):
    """Each rank's wait in the collectives of its process groups, each group compared among its
    own members: the i-th collective of group g is the same on every rank that has g; its
    shortest duration there is the transfer, the rest waiting. Also the number of collectives
    compared, and per group the members. The group is the launching record_param_comms' "Process
    Group Name" (joined by correlation)."""
    per_group = {}  # name -> {rank: [durations in order]}
    for rk in ranks:
        group_of = {e["args"]["External id"]: e["args"].get("Process Group Name")
                    for e in rk.events if e["name"] == "record_param_comms"}
        for e in sorted(rk.events, key=lambda e: e["ts"]):
            if e.get("cat") == "kernel" and "nccl" in e["name"].lower():
                g = group_of[e["args"]["correlation"]]
                per_group.setdefault(g, {}).setdefault(rk.rank, []).append(e["dur"])
    waits, rows = [0] * len(ranks), 0
    for members in per_group.values():
        for row in zip(*members.values()):
            rows += 1
            lo = min(row)
            for r, d in zip(members, row):
                waits[r] += d - lo
    return waits, rows, {g: sorted(m) for g, m in per_group.items()}


def check_two_d(c, ranks, rep, slow):
    """No group holds every rank: each is compared among its own members (not a mismatch), so
    the waits are real: the slow rank's tensor peer waits for it, the other data-parallel pair
    for that peer; the slow rank is still the straggler, its collectives the shortest."""
    c.check("tp_dp: no collective mismatch", finding(rep, "ranks.collective_mismatch") is None)
    waits, n_rows, members = group_waits(ranks)
    for rk, row, want in zip(ranks, rep["ranks"], waits):
        c.check("tp_dp rank %d: wait_us" % rk.rank, abs(row["wait_us"] - want) <= 1,
                "%s vs %s" % (row["wait_us"], want))
    coll = rep["collectives"]
    c.check("tp_dp: every group's collectives compared", coll["matched"] == n_rows,
            "%s vs %s" % (coll["matched"], n_rows))
    rows = coll.get("rows", [])
    c.check("tp_dp: a row has a duration for its group's members only",
            len(rows) > 0 and all([k for k, d in enumerate(r["dur_us"]) if d is not None]
                                  == members[r["channel"][len("group "):]] for r in rows),
            str(rows[:1]))
    f = finding(rep, "ranks.straggler")
    c.check("tp_dp: straggler is rank %d" % slow,
            f is not None and ("Rank %d " % slow) in f["title"], (f or {}).get("title", "none"))
    check_overlap(c, "tp_dp", ranks, rep)


def host_steps(rk):
    return sorted((e["ts"], e["dur"]) for e in rk.events if e["name"].startswith("ProfilerStep#"))


def check_accum(c, ranks, rep, markers):
    shape = "accum" if markers else "accum_nomarks"
    for rk in ranks:
        st = rk_report(rep, rk.rank)["steps"]
        want = [d for _, d in host_steps(ranks[0] if markers else rk)]
        c.check("%s rank %d: step count" % (shape, rk.rank), st["count"] == len(want),
                "%s vs %s" % (st["count"], len(want)))
        c.check("%s rank %d: step times" % (shape, rk.rank),
                [r["dur_us"] for r in st["rows"]] == want,
                "%s vs %s" % ([r["dur_us"] for r in st["rows"]], want))


def check_accum_unmarked(c, ranks, rep, marked):
    """Without ProfilerStep the steps are inferred from the repeating launches: one iteration
    per optimizer step (all its micro-batches), never one per micro-batch; the capture's first
    iteration is left out as partial (it has no launch before it: iterations.h)."""
    per_step = [sum(1 for e in rk.events if e.get("cat") == "kernel") // len(host_steps(rk))
                for rk in marked]
    want = host_steps(marked[0])[1][1]  # a whole step's length, from the marked twin
    for rk in ranks:
        it = rk_report(rep, rk.rank)["steps"].get("inferred_iterations") or {}
        c.check("accum_nomarks rank %d: iterations inferred" % rk.rank, it.get("found") is True)
        if not it.get("found"):
            continue
        c.check("accum_nomarks rank %d: one iteration per optimizer step" % rk.rank,
                it["ops_per_iteration"] == per_step[rk.rank],
                "%s vs %s" % (it["ops_per_iteration"], per_step[rk.rank]))
        c.check("accum_nomarks rank %d: iteration count" % rk.rank,
                it["count"] == len(host_steps(marked[rk.rank])) - 1, str(it["count"]))
        c.check("accum_nomarks rank %d: iteration times" % rk.rank,
                all(near(r["dur_us"], want, 0.001) for r in it["rows"]),
                "%s vs %s" % ([r["dur_us"] for r in it["rows"]], want))


def rk_report(rep, rank):
    return rep["reports"][[r["rank"] for r in rep["ranks"]].index(rank)]


SHAPES = {}


def main():
    args, c = corpus_cli.start(mm.TRACES)
    if args is None:
        return 0
    tmp = tempfile.mkdtemp(prefix="ks_dist_")
    try:
        world = 4
        ranks, rep = run_shape(c, tmp, args.cli, "fsdp", fsdp(world, 6, 3),
                               lambda coll: 250, world)
        if args.v:
            print(json.dumps({k: rep[k] for k in ("ranks", "findings")}, indent=1)[:6000])
        check_overlap(c, "fsdp", ranks, rep)
        for rk, row, want in zip(ranks, rep["ranks"], comm_waits_by_stream(ranks)):
            c.check("fsdp rank %d: wait_us" % rk.rank, abs(row["wait_us"] - want) <= 1,
                    "%s vs %s" % (row["wait_us"], want))
        f = finding(rep, "ranks.straggler")
        c.check("fsdp: the slowest rank is the straggler",
                f is not None and ("Rank %d " % (world - 1)) in f["title"], (f or {}).get("title"))
        c.check("fsdp: no collective mismatch", finding(rep, "ranks.collective_mismatch") is None,
                str(rep["collectives"].get("mismatch_channel")))
        c.check("fsdp: collectives matched", rep["collectives"]["counts_match"]
                and rep["collectives"]["names_match"])
        for shape, progs, xfer, w in [
                ("ddp", ddp(4, 4, 3, 2, 1.5), lambda coll: 300, 4),
                ("tp", tensor_parallel(2, 8, 3), lambda coll: 40, 2),
                ("pp", pipeline(4, 4, 2), lambda coll: 60, 4),
                ("tp_dp", two_d(1, 1.5), lambda coll: 50, 4),
                ("accum", grad_accum(2, 4, 5, True), lambda coll: 500, 2),
                ("accum_nomarks", grad_accum(2, 4, 5, False), lambda coll: 500, 2)]:
            ranks, rep = run_shape(c, tmp, args.cli, shape, progs, xfer, w)
            SHAPES[shape] = (ranks, rep)
            if args.v:
                print("=====", shape)
                for row in rep["ranks"]:
                    print({k: row[k] for k in ("rank", "steps", "step_median_us",
                                               "communication_us", "overlap_us", "idle_us",
                                               "host_wait_us", "wait_us", "idle_gap_us")})
                for rr in [rep] + rep["reports"][:1]:
                    for f in rr["findings"]:
                        print("  ", f["id"], f.get("severity"), f.get("title", "")[:150])
        check_ddp(c, *SHAPES["ddp"], slow=2)
        check_tp(c, *SHAPES["tp"])
        check_pp(c, *SHAPES["pp"])
        check_pp_waits(c, *SHAPES["pp"])
        check_pp_without_peers(c, *run_shape(c, tmp, args.cli, "pp_nopeers", pipeline(4, 4, 2),
                                             lambda coll: 60, 4, peers=False))
        check_two_d(c, *SHAPES["tp_dp"], slow=1)
        check_accum(c, *SHAPES["accum"], markers=True)
        check_accum_unmarked(c, *SHAPES["accum_nomarks"], SHAPES["accum"][0])
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failure(s)" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
