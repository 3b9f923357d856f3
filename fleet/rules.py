"""Findings across a fleet of ranks.

Two sets, each finding naming what it accuses in `ranks` and `nodes`:
- the seed's rules (ids `ranks.*`), ported from src/findings/multi_rank_rules.cpp with the same
  thresholds, so a small job gets the in-process report's findings: the straggler (shortest
  communication time), a pipeline's slowest stage (GPU compute per step, with NCCL send/recv),
  data-loader and compute skew against the median of the other ranks, extra GPU idle gaps,
  collectives that do not match, guessed rank identities, a process group's member that issued
  none of its collectives, and HTA's late-start rule (the rank that reaches the most variable
  collective last in most steps).
- the fleet's rules (ids `fleet.*`): robust outliers by the median absolute deviation (MAD), so
  one slow node among 64 stands out and the ranks of that node are told as one node, not as
  eight ranks; and the ranks whose collectives leave the majority's sequence (a desync).

Robust outlier: x is high when (x - median) > 3.5 x 1.4826 x MAD (the usual "modified z-score"
cut of Iglewicz and Hoaglin) and by more than 5% of the median. The
MAD's scale is floored at 1% of the median, so ranks that agree to the nanosecond (synthetic
jobs) do not turn noise into outliers.
"""

import bisect

# A rank that is one process of an Nsight Systems export (src/analysis/rank_identity.cpp).
EXPORT_PROCESS = "process in the export (by GPU, then pid)"
# A rank that is one launching process of a Kineto file holding several nodes' ranks on one GPU
# pid (src/analysis/merged_ranks.h): its digest's file is "FILE pid P", as an export process's.
FILE_PROCESS = "launching process in the file"
FROM_ONE_FILE = (EXPORT_PROCESS, FILE_PROCESS)
# The host time in steps outside any of their child ranges (src/analysis/step_ranges.h).
OUTSIDE_ANY_OP = "(outside any op)"


def export_of(file):
    """The export a process's digest came from: its file without " pid P"
    (src/analysis/multi_rank.cpp: export_of)."""
    return file.rsplit(" pid ", 1)[0]


Z_CUT = 3.5
MAD_SCALE = 1.4826


def median(v):
    v = sorted(v)
    n = len(v)
    if not n:
        return 0.0
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2.0


def _fmt(ns):
    """A duration as src/util/format.cpp's format_duration writes it (from whole nanoseconds,
    truncated as the C++ casts do)."""
    n = int(ns)
    a = abs(n)
    if a >= 1000000000:
        return "%.2f s" % (n / 1e9)
    if a >= 1000000:
        return "%.2f ms" % (n / 1e6)
    return "%.1f \u00b5s" % (n / 1e3)


def _finding(fid, severity, title, meaning, fix, ranks=(), nodes=(), **evidence):
    ev = {"ranks": list(ranks), "nodes": list(nodes)}
    ev.update(evidence)
    return {"id": fid, "severity": severity, "title": title, "meaning": meaning, "fix": fix,
            "evidence": ev}


def robust_high(values, floor_rel=0.01):
    """Indexes of robust high outliers in `values`, with the median and the scale used."""
    med = median(values)
    mad = median([abs(x - med) for x in values])
    scale = max(MAD_SCALE * mad, floor_rel * abs(med), 1.0)
    return [k for k, x in enumerate(values) if (x - med) / scale > Z_CUT and x - med > 0.05 * abs(med)], med, scale


# -- the seed's rules ---------------------------------------------------------------------------

_SORTED = {}  # (id(rows), key) -> the key's values over all ranks, sorted (one fleet at a time)


def _others(rows, skip, key):
    """The median of a per-rank value over every rank but `skip` (multi_rank_rules.cpp's
    median_of_others), from the sorted values of all ranks: O(log n) a rank, not O(n log n), so
    the per-rank rules stay linear at thousands of ranks."""
    cache_key = (id(rows), key)
    v = _SORTED.get(cache_key)
    if v is None:
        _SORTED.clear() if len(_SORTED) > 64 else None
        v = _SORTED[cache_key] = sorted(r["_ns"][key] for r in rows)
    m = len(v) - 1
    if m <= 0:
        return 0.0
    p = bisect.bisect_left(v, rows[skip]["_ns"][key])  # one occurrence of its value, removed

    def at(i):  # the i-th of the others, in order
        return v[i] if i < p else v[i + 1]
    return float(at(m // 2)) if m % 2 else (at(m // 2 - 1) + at(m // 2)) / 2.0


def _typical_step(rows):
    return median([r["_ns"]["step_median_ns"] for r in rows if r["_ns"]["steps"]])


def _vs_others(its, others):
    return "%s vs %s on the others" % (_fmt(its), _fmt(others))


def _range_excess(rows, s, outside):
    """multi_rank_rules.cpp's largest_range_excess: (name, its ns, others' median) of the host
    range rank s spends longest in beyond the others' median; outside: only OUTSIDE_ANY_OP."""
    best = ("", 0.0, 0.0)
    for name, ns in rows[s]["_ns"]["step_ranges"].items():
        if (name == OUTSIDE_ANY_OP) != outside:
            continue
        o = median([r["_ns"]["step_ranges"].get(name, 0) for k, r in enumerate(rows) if k != s])
        if ns - o > best[1] - best[2]:
            best = (name, float(ns), o)
    return best


def _mostly_all_to_all(result):
    """multi_rank_rules.cpp's mostly_all_to_all: most of the matched collectives' time (transfer
    and wait) in all-to-alls (a mixture of experts, sharded embedding tables)."""
    a2a = total = 0.0
    for g in result["collectives"]["by_name"]:
        t = g["transfer_us"] + g["wait_us"]
        total += t
        if (g["collective"] or "").replace("_", "").lower().startswith("alltoall"):
            a2a += t
    return total > 0 and 2 * a2a > total


def _straggler_cause(rows, s, clear, result):
    """multi_rank_rules.cpp's straggler_cause: (likely cause, fix)."""
    row = rows[s]["_ns"]
    loader, loader_o = row["dataloader_ns"], _others(rows, s, "dataloader_ns")
    compute, compute_o = row["compute_ns"], _others(rows, s, "compute_ns")
    gaps, gaps_o = row["idle_gap_ns"], _others(rows, s, "idle_gap_ns")
    named = _range_excess(rows, s, False)
    outside = _range_excess(rows, s, True)
    if loader - loader_o > clear:
        return ("data loading (%s)" % _vs_others(loader, loader_o),
                "Give this rank's DataLoader more workers, check its storage/network path and input "
                "sharding (uneven shards make one rank read more).")
    by_named = named[1] - named[2] if named[1] - named[2] > clear else 0
    by_compute = compute - compute_o if compute > 1.1 * compute_o else 0
    by_gaps = gaps - gaps_o if gaps - gaps_o > clear else 0
    if by_named > 0 and by_named >= by_compute and by_named >= by_gaps:
        return ("host range %s: %s" % (named[0], _vs_others(named[1], named[2])),
                "Look at what %s does on this rank and not on the others (uneven work, a task only "
                "this rank runs, a slower host); move it off the step or spread it over the ranks."
                % named[0])
    if by_compute > 0 and by_compute >= by_gaps:
        fix = ("Look for uneven work (sequence lengths, load imbalance) or a slower/throttled GPU on "
               "this rank (nvidia-smi -q -d CLOCK,PERFORMANCE).")
        if _mostly_all_to_all(result):
            fix = ("The ranks exchange their work by all-to-all (a mixture of experts' tokens, sharded "
                   "embedding tables): this rank holds more of the routed work, hot experts or tables. "
                   "Balance the load: the router's load-balancing loss or capacity factor, hot experts "
                   "replicated or moved (vLLM's EPLB, Megatron's --moe-router-load-balancing-type), a "
                   "sharding plan that balances the tables' cost; else check this rank's GPU "
                   "(nvidia-smi -q -d CLOCK,PERFORMANCE).")
        return ("compute (%s of kernels vs %s on the others)" % (_fmt(compute), _fmt(compute_o)), fix)
    if by_gaps > 0:
        cpu = ""
        if by_named > 0:
            cpu = "; on its CPU: %s %s vs %s" % (named[0], _fmt(named[1]), _fmt(named[2]))
        elif outside[1] - outside[2] > clear:
            cpu = "; on its CPU: outside any op %s vs %s" % (_fmt(outside[1]), _fmt(outside[2]))
        return ("GPU idle gaps in its steps (%d gaps, %s idle)%s" % (rows[s]["idle_gaps"], _fmt(gaps), cpu),
                "See what this rank's CPU does during its GPU idle gaps (a sync, GC, logging): the "
                "idle-gap finding and the stacked timelines show where.")
    if outside[1] - outside[2] > clear:
        return ("CPU time outside any traced op: %s" % _vs_others(outside[1], outside[2]),
                "Profile this rank's Python between ops (py-spy, or record_function ranges around data "
                "handling, logging and checkpoints) and compare it with a fast rank's.")
    return ("unknown from the traces (look at its timeline against another rank's)",
            "Compare this rank's timeline with a fast rank's in the same step.")


def shared_steps_text(shared):
    """multi_rank_rules.cpp's shared_steps_text."""
    return ("%d steps every rank's capture holds (the captures hold different steps), from step %d"
            % (len(shared), shared[0]))


def _slow_pipeline_stage(rows, step):
    """multi_rank_rules.cpp's slow_pipeline_stage_of: with NCCL send/recv (pipeline parallel),
    (the index of the slowest rank whose GPU compute per step is above 1.2x the others' median
    and by 5% of the typical step, or None; every such rank's index)."""
    if len(rows) < 2 or step <= 0 or not any(x["_ns"].get("p2p_sum_ns", 0) > 0 for x in rows):
        return None, []
    for x in rows:
        n = max(1.0, x["_ns"]["steps"])
        x["_ns"]["compute_per_step"] = x["_ns"]["compute_ns"] / n
        x["_ns"]["send_recv_per_step"] = x["_ns"].get("p2p_sum_ns", 0) / n
    slow, best = [], None
    for k, x in enumerate(rows):
        compute = x["_ns"]["compute_per_step"]
        others = _others(rows, k, "compute_per_step")
        if others <= 0 or compute <= 1.2 * others or compute - others < 0.05 * step:
            continue
        slow.append(k)
        if best is None or compute > rows[best]["_ns"]["compute_per_step"]:
            best = k
    return best, slow


def _slow_stage_finding(rows, k, slow):
    """ranks.slow_pipeline_stage, as multi_rank_rules.cpp words it."""
    row = rows[k]
    compute = row["_ns"]["compute_per_step"]
    others = _others(rows, k, "compute_per_step")
    per_rank = {"rank %d send_recv_per_step_us" % x["rank"]: round(x["_ns"]["send_recv_per_step"] / 1e3, 3)
                for x in rows}
    return _finding(
        "ranks.slow_pipeline_stage", "warning",
        "Rank %d is the pipeline's slowest stage: %.2fx the other stages' GPU compute per step (%s vs %s)"
        % (row["rank"], compute / others, _fmt(compute), _fmt(others)),
        "The ranks send and receive activations and gradients to each other (NCCL send/recv: pipeline "
        "parallel), and every micro-batch passes through every stage, so the pipeline goes no faster "
        "than its slowest stage: the stages after it wait in their receives for its activations, the "
        "stages before it for its gradients. Their wait is in their send/recv time, which the "
        "straggler rule leaves out (a stage waits there by the schedule too).",
        "Move layers off this stage: split the model unevenly (an embedding, a head, a loss or more "
        "layers on one stage weigh as layers do); if its layers are the same as the others', its GPU "
        "is slower: check its clocks (nvidia-smi -q -d CLOCK,PERFORMANCE).",
        ranks=[row["rank"]], nodes=[row["node"]], rank=row["rank"],
        compute_per_step_us=round(compute / 1e3, 3), others_median_compute_per_step_us=round(others / 1e3, 3),
        compute_ratio=round(compute / others, 2),
        its_send_recv_per_step_us=round(row["_ns"]["send_recv_per_step"] / 1e3, 3),
        others_median_send_recv_per_step_us=round(_others(rows, k, "send_recv_per_step") / 1e3, 3),
        rule="GPU compute per step above 1.2x the other ranks' median, by 5% of the typical step, in a "
             "job with NCCL send/recv",
        **({"slow_ranks": ", ".join(str(rows[j]["rank"]) for j in slow)} if len(slow) > 1 else {}),
        **per_rank)


def seed_rules(result, rows):
    out = []
    coll = result["collectives"]
    if not (coll["counts_match"] and coll["names_match"]):
        counts = [r["_ns"]["compared_collectives"] for r in rows]
        if not coll["counts_match"]:
            title = "Ranks ran different numbers of collectives (%d to %d)" % (min(counts), max(counts))
        else:
            title = "Ranks ran different collectives at position %d" % coll["first_mismatch"]
        out.append(_finding(
            "ranks.collective_mismatch", "critical", title,
            "Every rank of a data-parallel job must issue the same collectives in the same order; "
            "when they do not, the job hangs or silently desynchronizes (or the traces cover "
            "different windows of the run).",
            "Check that every rank takes the same code path (no rank-dependent branches around "
            "collectives) and that the traces were captured over the same steps.",
            ranks=[d["rank"] for d in coll["desync"]],
            **({"counted_over": shared_steps_text(result["shared_steps"])} if result.get("shared_steps") else {})))
    step = _typical_step(rows)
    shared = result.get("shared_steps")
    for x in rows:
        # NCCL send/recv left out, as multi_rank_rules.cpp: pipeline stages wait by design.
        # Captures holding different steps: over the steps they share (multi_rank_rules.cpp).
        x["_ns"]["straggler_comm_ns"] = (x["_ns"]["shared_steps_collective_ns"] if shared else
                                         x["_ns"]["collective_sum_ns"] - x["_ns"].get("p2p_sum_ns", 0))
    # Any collective time, matched or not: groups that each hold some of the ranks (tensor x data
    # parallel) match none, and the slow rank still waits least (multi_rank_rules.cpp).
    if len(rows) >= 2 and any(x["_ns"]["straggler_comm_ns"] > 0 for x in rows):
        s = min(range(len(rows)), key=lambda k: (rows[k]["_ns"]["straggler_comm_ns"], k))
        row = rows[s]
        comm = row["_ns"]["straggler_comm_ns"]
        others = _others(rows, s, "straggler_comm_ns")
        steps = max(1.0, len(shared) if shared else row["_ns"]["steps"])
        # A pipeline stage that waited most in its sends and receives only reached the collectives
        # last (multi_rank_rules.cpp): with NCCL send/recv it must wait less in all of them too.
        waits_most = False
        if not shared and any(x["_ns"].get("p2p_sum_ns", 0) > 0 for x in rows):
            for x in rows:
                x["_ns"]["all_comm_ns"] = x["_ns"]["collective_sum_ns"] + x["_ns"].get("mpi_p2p_ns", 0)
            waits_most = row["_ns"]["all_comm_ns"] >= _others(rows, s, "all_comm_ns")
        if (others > 0 and comm <= 0.6 * others and not (step > 0 and (others - comm) / steps < 0.05 * step)
                and not waits_most):
            cause, fix = _straggler_cause(rows, s, 0.05 * step * steps, result)
            out.append(_finding(
                "ranks.straggler", "warning",
                "Rank %d is the straggler: its collectives take %s, the others %s" % (row["rank"], _fmt(comm), _fmt(others)),
                "The other ranks reach each collective first and wait inside it for this rank, so their "
                "communication kernels run long and its run short: the whole job moves at this rank's pace.",
                fix,
                ranks=[row["rank"]], nodes=[row["node"]], rank=row["rank"],
                its_communication_us=round(comm / 1e3, 3), others_median_us=round(others / 1e3, 3),
                rule="shortest communication time (TB plugin: the rank that waits least)", likely_cause=cause,
                **({"counted_over": shared_steps_text(shared)} if shared else {})))
            ls = result.get("late_start", {})
            if ls.get("computed"):
                out[-1]["evidence"]["late_start_flags"] = ls["flagged_steps"][s]
    slow_stage, slow_stages = _slow_pipeline_stage(rows, step)
    if slow_stage is not None:
        out.append(_slow_stage_finding(rows, slow_stage, slow_stages))
    ls = result.get("late_start", {})
    if ls.get("computed") and ls["flagged_steps"]:
        fl = ls["flagged_steps"]
        best = 0
        for k in range(1, len(fl)):
            if fl[k] > fl[best]:
                best = k
        steps = rows[best]["_ns"]["steps"]
        if all(k == best or fl[k] * 2 <= fl[best] for k in range(len(fl))) and steps and fl[best] * 2 >= steps:
            row = rows[best]
            out.append(_finding(
                "ranks.late_start", "info",
                "Rank %d starts its collectives last (HTA's late-start rule)" % row["rank"],
                "In most steps this rank reaches the most variable collective later than the others "
                "(start time relative to its step), which is what a straggler does.",
                "Read together with the straggler finding; the rank's timeline before the collective "
                "shows what delays it.", ranks=[row["rank"]], nodes=[row["node"]], kernel=ls["kernel"],
                rank=row["rank"], steps_flagged=fl[best], steps=steps))
    if len(rows) >= 2:
        for k, row in enumerate(rows):
            ns = row["_ns"]
            steps = max(1.0, ns["steps"])
            loader_o = _others(rows, k, "dataloader_ns")
            if step > 0 and (ns["dataloader_ns"] - loader_o) / steps > 0.05 * step:
                out.append(_finding(
                    "ranks.dataloader_skew", "warning",
                    "Rank %d waits for data longer than the others (%s vs %s)" % (row["rank"], _fmt(ns["dataloader_ns"]), _fmt(loader_o)),
                    "One rank's input pipeline is slower, and every collective waits for it.",
                    "More DataLoader workers on that rank; check its storage path and the sharding.",
                    ranks=[row["rank"]], nodes=[row["node"]], rank=row["rank"],
                    dataloader_us=round(ns["dataloader_ns"] / 1e3, 3), others_median_us=round(loader_o / 1e3, 3)))
            compute_o = _others(rows, k, "compute_ns")
            if k not in slow_stages and compute_o > 0 and ns["compute_ns"] > 1.2 * compute_o and (ns["compute_ns"] - compute_o) / steps > 0.05 * step:
                out.append(_finding(
                    "ranks.compute_skew", "warning",
                    "Rank %d computes longer than the others (%s vs %s of kernels)" % (row["rank"], _fmt(ns["compute_ns"]), _fmt(compute_o)),
                    "The same model step takes this rank's GPU longer: uneven work (batch shapes) or a "
                    "slower, throttled or shared GPU.",
                    "Balance the work per rank; check the GPU's clocks and temperature.",
                    ranks=[row["rank"]], nodes=[row["node"]], rank=row["rank"],
                    compute_us=round(ns["compute_ns"] / 1e3, 3), others_median_us=round(compute_o / 1e3, 3)))
        if step > 0:
            for k, row in enumerate(rows):
                ns = row["_ns"]
                steps = max(1.0, ns["steps"])
                idle_o = _others(rows, k, "idle_gap_ns")
                gaps_o = _others(rows, k, "idle_gaps")
                idle = ns["idle_gap_ns"]
                if idle <= 2 * idle_o or (idle - idle_o) / steps < 0.05 * step or ns["idle_gaps"] <= gaps_o:
                    continue
                out.append(_finding(
                    "ranks.idle_gap_straggler", "warning",
                    "Rank %d has extra GPU idle gaps inside its steps (%d gaps, %s idle; the others' "
                    "median %.0f gaps, %s)" % (row["rank"], ns["idle_gaps"], _fmt(idle), gaps_o, _fmt(idle_o)),
                    "Between two GPU ops of the same step this rank's GPU waits for its host more often "
                    "and longer than the other ranks' do, and the collectives after each stall wait for it.",
                    "Open this rank's timeline at a gap and see what its CPU does there.",
                    ranks=[row["rank"]], nodes=[row["node"]], rank=row["rank"],
                    idle_gaps=ns["idle_gaps"], idle_gap_us=round(idle / 1e3, 3)))
    dup = len({r["rank"] for r in rows}) != len(rows)
    if rows and (dup or any(r["rank_source"] != "distributedInfo" for r in rows)):
        # As src/findings/multi_rank_rules.cpp (rank_source) words it.
        exports = []
        for r in rows:
            e = export_of(r["file"])
            if r["rank_source"] == EXPORT_PROCESS and e not in exports:
                exports.append(e)
        file_processes = any(r["rank_source"] == FILE_PROCESS for r in rows)
        if dup:
            title = "Two files claim the same rank"
        elif file_processes:
            title = "Ranks were taken from the processes that launched the GPU work in the file"
        elif len(exports) > 1:
            title = ("Ranks were taken from the processes in %d exports (by GPU, then pid), "
                     "numbered on in the order the files were given" % len(exports))
        elif exports:
            title = "Ranks were taken from the processes in the export (by GPU, then pid)"
        else:
            title = "Some ranks were taken from the file name or load order"
        if file_processes and not dup:
            meaning = ("The file holds several ranks' traces merged into one (their GPU work on one GPU "
                       "process, as each node numbers its GPUs from 0, or on GPU processes of their "
                       "own), so each rank is read as the process whose runtime calls launched its "
                       "kernels, numbered in pid order; the file does not say which rank each process "
                       "was.")
            fix = ("Keep one trace file per rank (each with Kineto's distributedInfo) instead of "
                   "merging them, or give the merged files in node order.")
        elif exports:
            meaning = ("An Nsight Systems export does not record the rank each process was given, so "
                       "the ranks follow the GPU each process worked on most, then its pid where "
                       "processes share a GPU or each sees its own as device 0 (and the order of the "
                       "exports); a wrong guess misaligns the comparison.")
            fix = ("Give the exports in node order, or write one report per rank (nsys profile -o "
                   "report_%q{RANK} inside the command torchrun runs).")
        else:
            meaning = ("The traces do not all carry distributedInfo.rank, so ranks were guessed; a wrong "
                       "guess misaligns the comparison.")
            fix = "Profile with torch.distributed initialized (Kineto then writes distributedInfo), or name files rank-N."
        out.append(_finding("ranks.identity", "warning" if dup else "info", title, meaning, fix))
    missing = result.get("missing_ranks")
    if missing:
        # As multi_rank_rules.cpp (missing_ranks) words it; the fleet lists the first ranks.
        which = ", ".join(str(k) for k in missing["ranks"][:8])
        if missing["count"] > 8:
            which += ", ... (%d in all)" % missing["count"]
        world, given = missing["world_size"], missing["world_size"] - missing["count"]
        out.append(_finding(
            "ranks.missing", "warning",
            "%d of %d ranks given (world_size %d): rank%s %s missing" % (
                given, world, world, "s" if missing["count"] > 1 else "", which),
            "The traces record a larger world than the files given. The comparison covers only the "
            "ranks given: a straggler among the others shows only as every given rank waiting for "
            "it in its collectives.",
            "Give every rank's trace (or a sample that includes the slowest rank).",
            world_size=world, ranks_given=given, missing_ranks=which))
    silent = result.get("silent_members") or []
    if silent:
        # As multi_rank_rules.cpp (silent_group_members) words it.
        m = silent[0]
        title = "Rank %d issued none of process group %s's %d collectives (members %s)" % (
            m["rank"], m["process_group"], m["group_collectives"], m["members"])
        if len(silent) > 1:
            title += "; %d such members in all" % len(silent)
        also = {"also_%d" % k: "rank %d, group %s" % (x["rank"], x["process_group"])
                for k, x in enumerate(silent[1:8], 1)}
        node = {r["rank"]: r["node"] for r in rows}
        out.append(_finding(
            "ranks.group_member_silent", "warning", title,
            "Kineto lists the group's members (\"Process Group Ranks\") and this rank is one, yet it "
            "issued none of the group's collectives while the other members issued them. A collective "
            "completes only when every member joins: the others wait for it (a hang, ended by the NCCL "
            "watchdog's timeout), or this rank's code took another path than theirs.",
            "Check the code path that issues this group's collectives on that rank (a condition on the "
            "rank or the pipeline stage, an exception swallowed); every member must call each "
            "collective of the group, in the same order.",
            ranks=sorted({x["rank"] for x in silent}), nodes=sorted({node[x["rank"]] for x in silent}),
            rank=m["rank"], process_group=m["process_group"], members=m["members"],
            group_collectives=m["group_collectives"], silent_members=len(silent), **also))
    return out


# -- the fleet's rules --------------------------------------------------------------------------

_METRICS = (
    ("compute_ns", "compute", "fleet.slow_compute",
     "computes longer than the fleet", "a slower, throttled or shared GPU, or more work on it",
     "Check the GPU's clocks, temperature and ECC state (nvidia-smi -q -d CLOCK,PERFORMANCE); "
     "balance the work per rank."),
    ("dataloader_ns", "data loading", "fleet.slow_dataloader",
     "waits for data longer than the fleet", "a slower input pipeline: storage, network or sharding",
     "More DataLoader workers; check the storage path and the shard sizes."),
)


def fleet_rules(result, rows):
    out = []
    if len(rows) < 3:
        return out
    nodes = {}
    for row in rows:
        nodes.setdefault(row["node"], []).append(row)
    for key, label, fid, verb, cause, fix in _METRICS:
        flagged_nodes = set()
        if len(nodes) >= 3:
            names = sorted(nodes)
            vals = [median([r["_ns"][key] for r in nodes[n]]) for n in names]
            hi, med, scale = robust_high(vals)
            for k in hi:
                n = names[k]
                flagged_nodes.add(n)
                rks = [r["rank"] for r in nodes[n]]
                out.append(_finding(
                    fid + "_node", "warning",
                    "Node %s %s: %s of %s per rank vs %s (median of nodes), its %d ranks" % (
                        n, verb, _fmt(vals[k]), label, _fmt(med), len(rks)),
                    "Every rank of this node is slow the same way, so the cause is the node: %s." % cause,
                    fix, ranks=rks, nodes=[n], value_us=round(vals[k] / 1e3, 3),
                    fleet_median_us=round(med / 1e3, 3), robust_z=round((vals[k] - med) / scale, 1)))
        vals = [r["_ns"][key] for r in rows]
        hi, med, scale = robust_high(vals)
        for k in hi:
            row = rows[k]
            steps = max(1.0, row["_ns"]["steps"])
            if row["node"] in flagged_nodes:
                # Told as its node; named alone only when it stands out among its node's ranks too.
                peers = [r["_ns"][key] for r in nodes[row["node"]] if r is not row]
                pm = median(peers) if peers else 0
                if not peers or vals[k] - pm <= 0.1 * pm or (vals[k] - pm) / steps < 0.05 * step:
                    continue
            out.append(_finding(
                fid, "warning",
                "Rank %d %s: %s of %s vs %s (fleet median)" % (row["rank"], verb, _fmt(vals[k]), label, _fmt(med)),
                "One rank is slow and every collective waits for it: %s." % cause,
                fix, ranks=[row["rank"]], nodes=[row["node"]], value_us=round(vals[k] / 1e3, 3),
                fleet_median_us=round(med / 1e3, 3), robust_z=round((vals[k] - med) / scale, 1)))
    desync = result["collectives"]["desync"]
    if desync:
        first = desync[0]
        out.append(_finding(
            "fleet.collective_desync", "critical",
            "%d rank%s left the collective sequence of the others (rank %d at position %d: %s, "
            "the others %s)" % (len(desync), "" if len(desync) == 1 else "s", first["rank"],
                                first["position"], first["found"], first["expected"]),
            "A rank issued a different collective than its peers at the same point: the job hangs "
            "there, or it pairs the wrong buffers and silently computes garbage.",
            "Look for a rank-dependent branch around collectives; run with "
            "TORCH_DISTRIBUTED_DEBUG=DETAIL to have it checked at run time.",
            ranks=[d["rank"] for d in desync], nodes=sorted({r["node"] for r in rows if r["rank"] in {d["rank"] for d in desync}}),
            positions=[d["position"] for d in desync]))
    return out


_ORDER = {"critical": 0, "warning": 1, "info": 2}


def run(result, ranks_internal):
    rows = ranks_internal
    _SORTED.clear()
    found = fleet_rules(result, rows) + seed_rules(result, rows)
    found.sort(key=lambda f: _ORDER.get(f["severity"], 3))  # stable: rule order within a severity
    return found
