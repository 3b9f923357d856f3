#!/usr/bin/env python3
"""Write an N-rank job of small synthetic Kineto traces with planted problems, for the fleet.

Built on examples/pathologies/generate.py: its lockstep simulation (every collective ends when
the last rank has arrived, so the other ranks' waits come out of the timing model) and its
Rank, which slows one rank's compute or data loading. Here each rank gets its own settings:

  - one slow GPU:           its kernels take 1.35x (a throttled GPU)
  - one slow node:          all 8 ranks of one node compute 1.15x (a slow or hot node)
  - one data-loader stall:  one rank waits 2.5 ms more for each batch
  - one desynchronized collective: one rank's k-th NCCL kernel is a different collective
    (all-gather where the others all-reduce; written after the simulation, durations kept)

Ranks are grouped 8 to a node; files are named as torch.profiler's tensorboard_trace_handler
names them, HOST_PID.MS.pt.trace.json.gz, so the host comes from the file name. PLANTED (JSON)
says which ranks and node carry which problem.

    python3 examples/fleet/generate.py --ranks 64 --out build/fleet/job64
    python3 examples/fleet/generate.py --ranks 4096 --fleet-json build/fleet/fleet4096.json
      (--fleet-json: no traces, a fleet.json of that many ranks for the page's test)

Standard library only; deterministic for a given --seed.
"""

import argparse
import importlib.util
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# Loaded under its own name: this file is also called generate.py.
_spec = importlib.util.spec_from_file_location(
    "pathologies_generate", os.path.join(HERE, "..", "pathologies", "generate.py"))
path_gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(path_gen)

RANKS_PER_NODE = 8
ALLGATHER = "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"


def planted(n):
    """Which ranks carry which problem: spread over the job, never on the slow node."""
    nodes = n // RANKS_PER_NODE
    slow_node = nodes // 2
    node_ranks = list(range(slow_node * RANKS_PER_NODE, (slow_node + 1) * RANKS_PER_NODE))
    return {"ranks": n, "ranks_per_node": RANKS_PER_NODE,
            "slow_gpu": {"rank": n // 4 + 1, "compute": 1.35},
            "slow_node": {"node": host(slow_node), "ranks": node_ranks, "compute": 1.15},
            "dataloader_stall": {"rank": (3 * n) // 4 + 2, "extra_us": 2500},
            "desync": {"rank": n - 3, "position": 5}}


def host(node):
    return "node%03d" % node


def simulate(plan, seed, steps, layers):
    n = plan["ranks"]
    base = dict(path_gen.BASE)
    base.update({"ddp": "overlap", "world": n, "layers": layers, "steps": steps})
    ranks = []
    for r in range(n):
        cfg = dict(base)
        if r == plan["slow_gpu"]["rank"]:
            cfg.update(slow_rank=r, slow_compute=plan["slow_gpu"]["compute"])
        elif r in plan["slow_node"]["ranks"]:
            cfg.update(slow_rank=r, slow_compute=plan["slow_node"]["compute"])
        elif r == plan["dataloader_stall"]["rank"]:
            cfg.update(slow_rank=r, slow_dataloader_us=plan["dataloader_stall"]["extra_us"])
        ranks.append(path_gen.Rank(cfg, seed, r, path_gen.T0 + 40 + 13 * (r % 97)))

    # The lockstep loop of path_gen.simulate, with per-rank settings.
    def loop(rank):
        for i in range(base["steps"]):
            yield from rank.step(base["first_step"] + i)

    gens = [loop(r) for r in ranks]
    pending = [next(g, None) for g in gens]
    while any(p is not None for p in pending):
        (step, bucket), nbytes = pending[0][1], pending[0][3]
        last = max(p[2] for p in pending)
        rng = random.Random("%d/coll/%d/%d" % (seed, step, bucket))
        transfer = int(round(nbytes * 2 * (n - 1) / n / (base["nccl_algbw_gbps"] * 1e3)
                             * rng.uniform(0.97, 1.03)))
        transfer = max(transfer, 8)
        nxt = []
        for r, g in enumerate(gens):
            exit_skew = random.Random("%d/exit/%d/%d/%d" % (seed, step, bucket, r)).randint(0, 3)
            try:
                nxt.append(g.send(last + transfer + exit_skew))
            except StopIteration:
                nxt.append(None)
        pending = nxt
    return ranks


def desync(doc, position):
    """The position-th NCCL kernel becomes an all-gather (name and collective args)."""
    k = 0
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") == "kernel" and e["name"].startswith("nccl"):
            if k == position:
                e["name"] = ALLGATHER
                if "Collective name" in e.get("args", {}):
                    e["args"]["Collective name"] = "allgather"
                return
            k += 1
    raise SystemExit("desync: rank has fewer than %d NCCL kernels" % (position + 1))


def write_job(out, n, seed, steps, layers):
    plan = planted(n)
    os.makedirs(out, exist_ok=True)
    ranks = simulate(plan, seed, steps, layers)
    total = 0
    for r in ranks:
        doc = r.document("fleet%d" % n, n)
        if r.rank == plan["desync"]["rank"]:
            desync(doc, plan["desync"]["position"])
        name = "%s_%d.%d.pt.trace.json.gz" % (host(r.rank // RANKS_PER_NODE), r.pid,
                                              1718012345000 + r.rank)
        total += path_gen.write_gz(os.path.join(out, name), doc)[1]
    with open(os.path.join(out, "PLANTED"), "w") as f:
        json.dump(plan, f, indent=1)
    return plan, total


def fleet_json(path, n, steps, seed):
    """A kinetoscope.fleet/1 file of n ranks (no traces): the page's 4,096-rank test. The
    shapes are what python3 -m fleet writes; the values are drawn, with the plan's problems."""
    rng = random.Random(seed)
    plan = planted(n)
    numbers = list(range(100, 100 + steps))
    ranks, heat = [], {"steps": numbers, "units": "us", "step_time": [], "collective_wait": [],
                       "compute": [], "dataloader": []}
    for r in range(n):
        node = host(r // RANKS_PER_NODE)
        slow = 1.35 if r == plan["slow_gpu"]["rank"] else 1.15 if r in plan["slow_node"]["ranks"] else 1.0
        dl = 2500 if r == plan["dataloader_stall"]["rank"] else 300
        comp = [int(8000 * slow * rng.uniform(0.98, 1.02)) for _ in numbers]
        loader = [int(dl * rng.uniform(0.9, 1.1)) for _ in numbers]
        wait = [max(0, int(8000 * 1.35 - c + rng.uniform(0, 200))) for c in comp]
        heat["step_time"].append([12000 + rng.randint(0, 300) for _ in numbers])
        heat["compute"].append(comp)
        heat["dataloader"].append(loader)
        heat["collective_wait"].append(wait)
        ranks.append({"rank": r, "rank_source": "distributedInfo", "node": node, "host": node,
                      "file": "%s_%d.%d.pt.trace.json.gz" % (node, 31200 + 97 * r, 1718012345000 + r),
                      "steps": steps, "step_median_us": 12150.0, "compute_us": float(sum(comp)),
                      "dataloader_us": float(sum(loader)), "collective_sum_us": float(sum(wait) + 900 * steps),
                      "wait_us": float(sum(wait)), "transfer_us": 900.0 * steps, "own_findings": []})
    nodes = [{"node": host(k), "ranks": list(range(k * RANKS_PER_NODE, (k + 1) * RANKS_PER_NODE))}
             for k in range(n // RANKS_PER_NODE)]
    f = lambda fid, title, rk, nd: {"id": fid, "severity": "warning", "title": title, "meaning": "",
                                    "fix": "", "evidence": {"ranks": rk, "nodes": nd}}
    findings = [
        f("fleet.slow_compute_node", "Node %s computes longer than the fleet" % plan["slow_node"]["node"],
          plan["slow_node"]["ranks"], [plan["slow_node"]["node"]]),
        f("fleet.slow_compute", "Rank %d computes longer than the fleet" % plan["slow_gpu"]["rank"],
          [plan["slow_gpu"]["rank"]], [host(plan["slow_gpu"]["rank"] // RANKS_PER_NODE)]),
        f("fleet.slow_dataloader", "Rank %d waits for data longer than the fleet" % plan["dataloader_stall"]["rank"],
          [plan["dataloader_stall"]["rank"]], [host(plan["dataloader_stall"]["rank"] // RANKS_PER_NODE)]),
    ]
    doc = {"schema": "kinetoscope.fleet/1", "generator": "examples/fleet/generate.py (synthetic)",
           "inputs": n, "ranks_read": n, "failed": [], "ranks": ranks, "nodes": nodes, "heatmap": heat,
           "collectives": {"counts_match": True, "names_match": True, "matched": 0, "rows": [],
                           "by_name": [], "desync": []},
           "kernels": {"names": 0, "rows": []}, "cpu_ops": {"names": 0, "rows": []}, "findings": findings}
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as fh:
        json.dump(doc, fh, separators=(",", ":"))
    return doc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", type=int, default=64)
    ap.add_argument("--out", default="build/fleet/job")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--fleet-json", help="write a synthetic fleet.json of --ranks ranks instead")
    a = ap.parse_args(argv)
    if a.ranks < 4 * RANKS_PER_NODE or a.ranks % RANKS_PER_NODE:
        ap.error("--ranks: a multiple of %d, at least %d" % (RANKS_PER_NODE, 4 * RANKS_PER_NODE))
    if a.fleet_json:
        fleet_json(a.fleet_json, a.ranks, max(a.steps, 20), a.seed)
        print("wrote %s (%d ranks)" % (a.fleet_json, a.ranks))
        return 0
    plan, total = write_job(a.out, a.ranks, a.seed, a.steps, a.layers)
    print("wrote %d traces (%.1f MB) to %s; planted: %s" % (a.ranks, total / 1e6, a.out, json.dumps(plan)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
