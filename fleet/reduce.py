"""The reducer: digests (kinetoscope.digest/1) in, the fleet result (kinetoscope.fleet/1) out.

Digests arrive in any order, one at a time, and are folded in as they come: a rank keeps its
totals, its steps and three compact columns per collective (name, duration, step), so memory
grows with ranks x (steps + collectives), never with the size of the traces. Kernel and CPU-op
statistics merge into one table as they arrive (moments add, sketches add bucket by bucket).

The per-rank numbers, the matched collectives and the seed's straggler rules are the in-process
multi-rank report's (src/analysis/multi_rank.cpp, src/findings/multi_rank_rules.cpp), computed
the same way from the same integers, so a small job gives the same numbers either way
(tests/fleet checks it on the 8-rank set). The fleet's own rules are in rules.py.
"""

import bisect
import math
from array import array

from . import FLEET_SCHEMA, DIGEST_SCHEMA
from . import rules

# src/analysis/multi_rank.h kCpuCollectiveStream: the stream of a collective that ran on the CPU
# (a gloo:* range), labelled "gloo (CPU)" as match_channels labels it.
CPU_COLLECTIVE_STREAM = -2

# c10::ScalarType names and C++ type names -> bytes (src/analysis/multi_rank.cpp: dtype_size).
_DTYPE_SIZES = {
    "Byte": 1, "Char": 1, "Bool": 1, "Float8_e4m3fn": 1, "Float8_e5m2": 1,
    "Float8_e4m3fnuz": 1, "Float8_e5m2fnuz": 1, "QInt8": 1, "QUInt8": 1, "Short": 2, "Half": 2,
    "BFloat16": 2, "ComplexHalf": 4, "Int": 4, "Float": 4, "QInt32": 4, "UInt16": 2,
    "UInt32": 4, "UInt64": 8, "Long": 8, "Double": 8, "ComplexFloat": 8, "ComplexDouble": 16,
    "float": 4, "double": 8, "int": 4, "long int": 8, "long": 8, "short int": 2, "short": 2,
    "signed char": 1, "unsigned char": 1, "bool": 1, "c10::Half": 2, "c10::BFloat16": 2,
}

STEP_FIELDS = ("number", "begin_ns", "end_ns", "busy_ns", "compute_ns", "communication_ns",
               "overlap_ns", "host_wait_ns", "dataloader_ns", "memcpy_ns")
TOTALS = ("steps", "step_total_ns", "gpu_span_ns", "busy_ns", "compute_ns", "communication_ns",
          "overlap_ns", "dataloader_ns", "memcpy_ns", "host_wait_ns", "start_ns", "idle_gaps",
          "idle_gap_ns")


# Rank sources that are the rank the run gave (src/analysis/rank_identity.cpp rank_source_name):
# distributedInfo, or the rank an Nsight Systems export recorded in the process's environment.
RECORDED_RANK = ("distributedInfo", "process environment")
# Past this many ranks "[first, ..., last]" is read as its two ends alone (multi_rank.h).
MAX_GROUP_EXPANDED = 1 << 24


def parse_group_ranks(text, group_size):
    """src/analysis/multi_rank.cpp parse_group_ranks: the members a "Process Group Ranks" text
    lists ("[0, 1, 2, 3]"; past 30 ranks "[0, ..., 63]": every rank between when `group_size`
    ranks fill the range, else the two ends); None when the text is not of that form."""
    t = text.strip(" \t")
    if len(t) < 2 or t[0] != "[" or t[-1] != "]":
        return None
    t = t[1:-1].strip(" \t")
    listed, ellipsis_at = [], None
    while t:
        comma = t.find(",")
        item = (t if comma < 0 else t[:comma]).strip(" \t")
        t = "" if comma < 0 else t[comma + 1:]
        if item == "...":
            if ellipsis_at is not None:
                return None
            ellipsis_at = len(listed)
            continue
        if not item or len(item) > 18 or any(ch < "0" or ch > "9" for ch in item):
            return None
        listed.append(int(item))
    if ellipsis_at is None:
        return listed or None
    if ellipsis_at != 1 or len(listed) != 2 or listed[1] < listed[0]:
        return None
    first, last = listed
    if group_size != -1 and last - first + 1 == group_size and group_size <= MAX_GROUP_EXPANDED:
        return list(range(first, last + 1))
    return listed


def dtype_size(dtype):
    return _DTYPE_SIZES.get(dtype, 0)


def is_point_to_point(collective):
    """src/analysis/multi_rank.cpp is_point_to_point: send, recv, recvAnySource."""
    return collective.replace("_", "").lower() in ("send", "recv", "recvanysource")


def bus_factor(collective, n):
    """nccl-tests' bus-bandwidth factor (src/analysis/multi_rank.cpp: bus_factor), -1 if none."""
    if n is None or n < 1:
        return -1
    c = collective.replace("_", "").lower()
    if c.startswith("allreduce"):
        return 2.0 * (n - 1) / n
    if c.startswith(("allgather", "reducescatter", "alltoall")):
        return (n - 1) / n
    if c in ("broadcast", "reduce"):
        return 1.0
    return -1


def us(ns):
    """Microseconds with three decimals, as the C++ JsonWriter::micros writes them."""
    return round(ns / 1000.0, 3)


class Sketch:
    """The digest's log-bucket quantile sketch (src/analysis/quantile_sketch.h), merged."""

    __slots__ = ("a", "zero", "buckets")

    def __init__(self, a=0.01):
        self.a = a
        self.zero = 0
        self.buckets = {}

    def merge_json(self, s):
        self.a = s["a"]
        self.zero += s["zero"]
        i = 0
        for k, (d, n) in enumerate(zip(s["i"], s["n"])):
            i = d if k == 0 else i + d
            self.buckets[i] = self.buckets.get(i, 0) + n

    def count(self):
        return self.zero + sum(self.buckets.values())

    def quantile(self, q):
        n = self.count()
        if n == 0:
            return 0.0
        rank = int(min(max(q, 0.0), 1.0) * (n - 1))
        if rank < self.zero:
            return 0.0
        gamma = (1 + self.a) / (1 - self.a)
        seen = self.zero
        keys = sorted(self.buckets)
        for i in keys:
            seen += self.buckets[i]
            if seen > rank:
                return 2 * gamma ** i / (gamma + 1)
        return 2 * gamma ** keys[-1] / (gamma + 1)


class Moments:
    __slots__ = ("count", "sum", "min", "max", "sum_sq", "sketch", "ranks")

    def __init__(self):
        self.count = self.sum = self.sum_sq = self.ranks = 0
        self.min = None
        self.max = None
        self.sketch = Sketch()

    def merge_row(self, row):
        _, count, total, lo, hi, sum_sq, sketch = row
        self.count += count
        self.sum += total
        self.min = lo if self.min is None else min(self.min, lo)
        self.max = hi if self.max is None else max(self.max, hi)
        self.sum_sq += sum_sq  # Python integers: exact
        self.sketch.merge_json(sketch)
        self.ranks += 1

    def row(self, name):
        n = self.count
        mean = self.sum / n if n else 0.0
        var = (self.sum_sq - self.sum * self.sum / n) / (n - 1) if n > 1 else 0.0
        return {"name": name, "count": n, "ranks": self.ranks, "total_us": us(self.sum),
                "mean_us": round(mean / 1e3, 3), "median_us": round(self.sketch.quantile(0.5) / 1e3, 3),
                "p99_us": round(self.sketch.quantile(0.99) / 1e3, 3),
                "min_us": us(self.min), "max_us": us(self.max),
                "stddev_us": round(math.sqrt(max(var, 0.0)) / 1e3, 3)}


def _number_export_processes(ranks):
    """Processes of several exports (`nsys profile torchrun` on each node), or of several merged
    Kineto files, each rank from 0: they are numbered on across the files in input order (src/analysis/multi_rank.cpp:
    number_export_processes)."""
    exports, count = [], {}
    for r in ranks:
        if r.rank_source in rules.FROM_ONE_FILE:
            e = rules.export_of(r.file)
            if e not in count:
                exports.append(e)
                count[e] = 0
            count[e] = max(count[e], r.rank + 1)
    if len(exports) < 2:
        return
    offset, at = {}, 0
    for e in exports:
        offset[e], at = at, at + count[e]
    for r in ranks:
        if r.rank_source in rules.FROM_ONE_FILE:
            r.rank += offset[rules.export_of(r.file)]


class _Rank:
    """What the reducer keeps of one rank after its digest is folded in."""

    __slots__ = ("index", "file", "path", "host", "host_source", "rank", "rank_source",
                 "step_median_2ns", "totals", "steps", "coll_name", "coll_dur", "coll_step",
                 "coll_msg", "coll_sum", "p2p_sum", "p2p", "coll_stream", "coll_off", "coll_ts", "coll_group", "coll_peer",
                 "coll_launch_step", "group_ranks", "findings",
                 "digest_bytes", "step_ranges",
                 "file_bytes", "world_size")


def _step_finder(steps):
    """ns -> the index of the first step holding it, -1 if none (multi_rank.cpp StepFinder).
    Sorted, disjoint steps (the usual case) by a binary search, which finds the same step."""
    begins = [s[1] for s in steps]
    disjoint = all(steps[j][2] <= steps[j + 1][1] for j in range(len(steps) - 1))

    def at(ts):
        if disjoint:
            j = bisect.bisect_right(begins, ts) - 1
            return j if j >= 0 and ts < steps[j][2] else -1
        for j, s in enumerate(steps):
            if s[1] <= ts < s[2]:
                return j
        return -1
    return at


def _shared_steps(ranks):
    """The step numbers every rank holds, sorted, when the ranks do not all hold the same ones
    (src/analysis/multi_rank.cpp: count_shared_steps); None when they do, or share none."""
    numbers = [sorted(s[0] for s in r.steps) for r in ranks]
    if len(ranks) < 2 or all(v == numbers[0] for v in numbers):
        return None
    shared = set(numbers[0])
    for v in numbers[1:]:
        shared &= set(v)
    return sorted(shared) or None


# The ranks below the world size the traces record that no digest holds (multi_rank.cpp
# find_missing_ranks): None when no trace records it, or traces of different runs disagree. A
# world of more than 100,000 ranks is not believed (a hostile number). The first kMaxListed are
# listed with the count: a job of 10^5 ranks given one file would list them all.
_MAX_WORLD = 100000
_MAX_LISTED = 1000


def _missing_ranks(ranks):
    sizes = {r.world_size for r in ranks if r.world_size is not None}
    if len(sizes) != 1:
        return None
    world = sizes.pop()
    if world > _MAX_WORLD:
        return None
    given = {r.rank for r in ranks if 0 <= r.rank < world}
    missing = [k for k in range(world) if k not in given]
    if not missing:
        return None
    return {"world_size": world, "count": len(missing), "ranks": missing[:_MAX_LISTED]}


class _InSharedSteps:
    """A rank's collectives that started in one of the shared steps, in the columns
    _match_collectives reads (keep_shared_step_collectives), and their time without NCCL
    send/recv (the straggler's count over those steps). A collective is placed by its launch
    where the digest has one, by its start otherwise, as the report does."""
    COLUMNS = ("coll_name", "coll_msg", "coll_dur", "coll_step", "coll_off", "coll_stream", "coll_ts",
               "coll_group", "coll_launch_step", "coll_peer")

    def __init__(self, r, shared):
        shared = set(shared)
        keep = [i for i, k in enumerate(r.coll_launch_step) if k >= 0 and r.steps[k][0] in shared]
        self.rank = r.rank
        self.p2p = r.p2p
        for c in self.COLUMNS:
            column = getattr(r, c)
            setattr(self, c, [column[i] for i in keep])
        self.comm_ns = sum(r.coll_dur[i] for i in keep if r.coll_msg[i] < 0 or r.coll_msg[i] not in r.p2p)


def _is_p2p(r, i):
    """Whether rank r's i-th collective is an NCCL send or recv (is_point_to_point)."""
    return r.coll_msg[i] >= 0 and r.coll_msg[i] in r.p2p


class Reducer:
    def __init__(self, top_kernels=50):
        self._ranks = []
        self._errors = []
        self._names = {}       # collective kernel name -> id
        self._name_list = []
        self._msgs = {}        # (collective, dtype, in, out, group) -> id
        self._msg_list = []
        self._groups = {}      # process group name -> id
        self._group_list = []
        self._kernels = {}
        self._cpu_ops = {}
        self._top = top_kernels
        self.inputs = 0

    # -- folding in ---------------------------------------------------------------------------
    def add_error(self, index, path, message):
        self._errors.append({"input": index, "path": path, "error": message.strip()})

    def add(self, index, path, d, digest_bytes=0):
        if d.get("schema") != DIGEST_SCHEMA:
            self.add_error(index, path, "not a %s digest (schema %r)" % (DIGEST_SCHEMA, d.get("schema")))
            return
        r = _Rank()
        r.index, r.path, r.file = index, path, d["file"]
        r.host, r.host_source = d.get("host", ""), d.get("host_source", "none")
        r.rank, r.rank_source = d["rank"], d["rank_source"]
        # The trace's own world size where it records one (ranks.missing); digests before it: none.
        w = d.get("world_size")
        r.world_size = w if isinstance(w, int) and not isinstance(w, bool) and w > 0 else None
        r.step_median_2ns = d["step_median_2ns"]
        r.totals = array("q", (d[k] for k in TOTALS))
        r.steps = [tuple(s) for s in d["step_spans"]]
        r.step_ranges = {name: ns for name, ns in d.get("step_ranges", [])}
        r.digest_bytes, r.file_bytes = digest_bytes, d.get("file_bytes", 0)
        c = d["collectives"]
        ids = []
        for n in c["names"]:
            if n not in self._names:
                self._names[n] = len(self._name_list)
                self._name_list.append(n)
            ids.append(self._names[n])
        mids = []
        for m in c["messages"]:
            m = tuple(m)
            if m not in self._msgs:
                self._msgs[m] = len(self._msg_list)
                self._msg_list.append(m)
            mids.append(self._msgs[m])
        r.coll_name = array("i", (ids[i] for i in c["name"]))
        r.coll_msg = array("i", (mids[i] if i >= 0 else -1 for i in c["message"]))
        r.coll_dur = array("q", c["dur_ns"])
        r.coll_sum = sum(r.coll_dur)
        # NCCL send/recv (multi_rank.h is_point_to_point): the straggler rule leaves them out.
        p2p = {self._msgs[tuple(m)] for m in c["messages"] if is_point_to_point(m[0])}
        r.p2p = p2p
        r.p2p_sum = sum(d for d, m in zip(r.coll_dur, r.coll_msg) if m >= 0 and m in p2p)
        # The step each collective started in (src/analysis/multi_rank.cpp: StepFinder), and the
        # one it was launched in (CommKernel::step_time_ns: by the launch where the digest has
        # one): the heat map places by start, the shared steps and step waits by launch.
        steps_at = array("i")
        launch_steps = array("i")
        offsets = array("q")  # start - its step's start (0 outside steps)
        starts = array("q")
        step_at = _step_finder(r.steps)
        leads = c.get("launch_lead_ns") or [None] * len(r.coll_dur)
        ts = 0
        for delta, lead in zip(c["start_delta_ns"], leads):
            ts += delta
            k = step_at(ts)
            steps_at.append(k)
            launch_steps.append(k if lead is None else step_at(ts - lead))
            starts.append(ts)
            offsets.append(ts - r.steps[k][1] if k >= 0 else 0)
        r.coll_step = steps_at
        r.coll_launch_step = launch_steps
        r.coll_off = offsets
        r.coll_stream = array("q", c["stream"])
        r.coll_ts = starts
        # The communicator's "Process Group Name" where the digest has it (interned), else -1.
        gnames = c.get("groups", [])
        r.coll_group = array("i", (self._group_id(gnames[g]) if g >= 0 else -1
                                   for g in c.get("group", [-1] * len(r.coll_dur))))
        # Each group's members as Kineto wrote them ("Process Group Ranks") with the "Group size"
        # beside them, where the digest has them (digests before them have none): name -> (text,
        # size).
        r.group_ranks = {gnames[g]: (text, size) for g, (text, size) in enumerate(c.get("group_ranks", []))
                         if text}
        # A send's / receive's peer rank where the digest has it, else -1 (CommKernel::peer).
        r.coll_peer = array("q", c.get("peer", [-1] * len(r.coll_dur)))
        r.findings = [{"id": f["id"], "severity": f["severity"], "title": f["title"]}
                      for f in d.get("findings", [])]
        for table, rows in ((self._kernels, d.get("kernels", [])), (self._cpu_ops, d.get("cpu_ops", []))):
            for row in rows:
                m = table.get(row[0])
                if m is None:
                    m = table[row[0]] = Moments()
                m.merge_row(row)
        self._ranks.append(r)

    def _group_id(self, name):
        if name not in self._groups:
            self._groups[name] = len(self._group_list)
            self._group_list.append(name)
        return self._groups[name]

    # -- the result ---------------------------------------------------------------------------
    def result(self, inputs=None):
        ranks = sorted(self._ranks, key=lambda r: r.index)
        # Load-order ranks count the files read, in input order, as the CLI does.
        for k, r in enumerate(ranks):
            if r.rank_source == "load order":
                r.rank = k
        _number_export_processes(ranks)
        ranks.sort(key=lambda r: (r.rank, r.index))  # stable, as std::stable_sort
        rows = [self._row(r) for r in ranks]
        # Captures that hold different steps are compared over the steps they all hold (a rank
        # whose capture began later traced fewer collectives), as the in-process report.
        shared = _shared_steps(ranks)
        compared = ranks if shared is None else [_InSharedSteps(r, shared) for r in ranks]
        for row, c in zip(rows, compared):
            row["_ns"]["compared_collectives"] = sum(1 for i in range(len(c.coll_dur))
                                                     if not _is_p2p(c, i))
            if shared is not None:
                row["_ns"]["shared_steps_collective_ns"] = c.comm_ns
        silent = self._silent_members(ranks, compared)
        missing = _missing_ranks(ranks)
        coll = self._match_collectives(compared, rows)
        late = self._late_start(ranks, rows)
        nodes = self._nodes(ranks, rows)
        heat = self._heatmap(ranks, rows)
        out = {
            "schema": FLEET_SCHEMA,
            "generator": "kinetoscope fleet",
            "inputs": inputs if inputs is not None else len(ranks) + len(self._errors),
            "ranks_read": len(ranks),
            "failed": sorted(self._errors, key=lambda e: e["input"]),
            "ranks": rows,
            "nodes": nodes,
            "heatmap": heat,
            "collectives": coll,
            "shared_steps": shared,
            "silent_members": silent,
            "missing_ranks": missing,
            "late_start": late,
            "kernels": self._stats(self._kernels),
            "cpu_ops": self._stats(self._cpu_ops),
            "digest_bytes": sum(r.digest_bytes for r in ranks),
            "trace_bytes": sum(r.file_bytes for r in ranks),
        }
        out["findings"] = rules.run(out, ranks_internal=rows)
        return out

    def _row(self, r):
        t = dict(zip(TOTALS, r.totals))
        step_ns = [s[2] - s[1] for s in r.steps]
        row = {
            "rank": r.rank, "rank_source": r.rank_source, "file": r.file, "path": r.path,
            "host": r.host, "host_source": r.host_source,
            "steps": t["steps"], "step_median_us": round(r.step_median_2ns / 2 / 1e3, 3),
            "gpu_span_us": us(t["gpu_span_ns"]), "busy_us": us(t["busy_ns"]),
            "compute_us": us(t["compute_ns"]), "communication_us": us(t["communication_ns"]),
            "overlap_us": us(t["overlap_ns"]),
            "overlap_pct": round(100.0 * t["overlap_ns"] / t["communication_ns"], 2) if t["communication_ns"] else 0.0,
            "idle_us": us(t["gpu_span_ns"] - t["busy_ns"]), "host_wait_us": us(t["host_wait_ns"]),
            "dataloader_us": us(t["dataloader_ns"]), "memcpy_us": us(t["memcpy_ns"]),
            "collectives": len(r.coll_dur), "collective_sum_us": us(r.coll_sum),
            "transfer_us": 0.0, "wait_us": 0.0,
            "idle_gaps": t["idle_gaps"], "idle_gap_us": us(t["idle_gap_ns"]),
            "own_findings": r.findings,
        }
        # Integers the rules and the heat map use; dropped before writing.
        row["_ns"] = dict(t, step_median_ns=r.step_median_2ns / 2, collective_sum_ns=r.coll_sum,
                          p2p_sum_ns=r.p2p_sum,
                          transfer_ns=0, wait_ns=0, step_ns=step_ns, step_wait_ns=[0] * len(r.steps),
                          step_ranges=r.step_ranges)
        return row

    def _channels(self, ranks, out):
        """The communicators every rank has, as src/analysis/multi_rank.cpp's match_channels: a
        kernel's process group ("group NAME") where the digest names it, "gloo (CPU)" for a gloo:*
        CPU range (stream CPU_COLLECTIVE_STREAM), else its stream ("stream
        N" when every rank has the same set of communication streams, else "stream #k", the
        stream's order of first use on the rank). Returns [(label, [per-rank index lists])];
        sets counts_match / mismatch_channel in `out`."""
        streams = []
        for r in ranks:
            seen = []
            for i in range(len(r.coll_dur)):
                if r.coll_group[i] < 0 and not _is_p2p(r, i) and r.coll_stream[i] not in seen:
                    seen.append(r.coll_stream[i])
            streams.append(seen)
        same = all(sorted(s) == sorted(streams[0]) for s in streams[1:])
        chans, is_group = {}, {}
        for k, r in enumerate(ranks):
            order = {st: j for j, st in enumerate(streams[k])}
            for i in range(len(r.coll_dur)):
                if _is_p2p(r, i):
                    continue  # one peer each: not matched across ranks (match_channels)
                g = r.coll_group[i]
                if g >= 0:
                    label = "group " + self._group_list[g]
                elif r.coll_stream[i] == CPU_COLLECTIVE_STREAM:
                    label = "gloo (CPU)"
                elif same:
                    label = "stream %d" % r.coll_stream[i]
                else:
                    label = "stream #%d" % (order[r.coll_stream[i]] + 1)
                if label not in chans:
                    chans[label] = [[] for _ in ranks]
                    is_group[label] = g >= 0
                chans[label][k].append(i)
        kept = []
        for label, per in chans.items():
            everywhere = all(per)
            if not everywhere and is_group[label]:
                # A group of some of the ranks (tensor x data parallel): compared among its
                # members, the ranks that issued it, which must agree on the count.
                members = [v for v in per if v]
                if any(len(v) != len(members[0]) for v in members):
                    if out["counts_match"]:
                        out["mismatch_channel"] = label
                    out["counts_match"] = False
                if len(members) >= 2:
                    kept.append((label, per))
                continue
            if not everywhere or any(len(v) != len(per[0]) for v in per):
                if out["counts_match"]:
                    out["mismatch_channel"] = label
                out["counts_match"] = False
            if everywhere:
                kept.append((label, per))
        return kept

    def _silent_members(self, ranks, compared):
        """Members of a process group (its "Process Group Ranks") that issued none of its
        collectives while other members issued some, as src/analysis/multi_rank.cpp's
        find_silent_members: only when every rank is recorded by its trace (a guessed rank is
        no global rank to compare the list with); sends and receives are no collectives; a
        member no file given holds is not silent (it is missing). `compared`: the ranks'
        collectives over the shared steps where the captures hold different steps."""
        if any(r.rank_source not in RECORDED_RANK for r in ranks):
            return []
        groups = {}  # name -> [text, size, {rank: collectives issued}]
        for r, c in zip(ranks, compared):
            for i in range(len(c.coll_dur)):
                if c.coll_group[i] < 0 or _is_p2p(c, i):
                    continue
                name = self._group_list[c.coll_group[i]]
                g = groups.setdefault(name, ["", -1, {}])
                if not g[0] and name in r.group_ranks:
                    g[0], g[1] = r.group_ranks[name]
                g[2][r.rank] = g[2].get(r.rank, 0) + 1
        held = {r.rank for r in ranks}
        out = []
        for name in sorted(groups, key=lambda n: n.encode("utf-8")):  # as std::map orders them
            text, size, issued = groups[name]
            members = parse_group_ranks(text, size)
            if not members:
                continue
            most = max(issued.get(m, 0) for m in members)
            if most == 0:
                continue
            for m in members:
                if m not in issued and m in held:
                    out.append({"process_group": name, "rank": m, "members": text[1:-1],
                                "group_collectives": most})
        return out

    def _p2p_pairs(self, ranks, pending):
        """NCCL sends and receives paired as compare_ranks pairs them: the i-th send of rank a to
        b with the i-th receive on b from a (by the peer args; ranks by number, none when two
        files claim one rank), each appended to `pending` as a row on a and b only. Returns
        (pairs, sends and receives not matched)."""
        n = len(ranks)
        index_of = {}
        for k, r in enumerate(ranks):
            index_of.setdefault(r.rank, k)
        duplicate = len(index_of) != n
        sends, recvs = {}, {}
        unmatched = 0
        for k, r in enumerate(ranks):
            for i in range(len(r.coll_dur)):
                if not _is_p2p(r, i):
                    continue
                coll = self._msg_list[r.coll_msg[i]][0]
                peer = index_of.get(r.coll_peer[i]) if r.coll_peer[i] >= 0 else None
                if duplicate or peer is None or peer == k or coll not in ("send", "recv"):
                    unmatched += 1
                elif coll == "send":
                    sends.setdefault((k, peer), []).append(i)
                else:
                    recvs.setdefault((peer, k), []).append(i)
        pairs = 0
        for (a, b) in sorted(sends):  # as std::map iterates
            ss, rs = sends[(a, b)], recvs.get((a, b), [])
            m = min(len(ss), len(rs))
            unmatched += len(ss) - m
            for i in range(m):
                at = [None] * n
                at[a], at[b] = ss[i], rs[i]
                label = "p2p %d->%d" % (ranks[a].rank, ranks[b].rank)
                pending.append((ranks[a].coll_ts[ss[i]], label, i, ranks[a].coll_name[ss[i]], at, False))
            pairs += m
        for key, rs in recvs.items():  # receives no send of the files given matches
            unmatched += len(rs) - min(len(rs), len(sends.get(key, [])))
        return pairs, unmatched

    def _match_collectives(self, ranks, rows):
        """Collectives matched per communicator, by order of issue within it, then listed in
        order of issue on the first rank (src/analysis/multi_rank.cpp: compare_ranks)."""
        n = len(ranks)
        out = {"counts_match": True, "names_match": True, "first_mismatch": None,
               "mismatch_channel": "", "matched": 0, "p2p_pairs": 0, "p2p_unmatched": 0, "rows": [],
               "by_name": [], "desync": []}
        if not n:
            return out
        channels = self._channels(ranks, out)
        pending = []
        for label, per in channels:
            # Its members: every rank, or those of a group of some of the ranks (None in `at`
            # for the others).
            members = [k for k in range(n) if per[k]]
            first = members[0]
            shortest = min(len(per[k]) for k in members)
            for i in range(shortest):
                at = [per[k][i] if per[k] else None for k in range(n)]
                name = ranks[first].coll_name[at[first]]
                differ = any(ranks[k].coll_name[at[k]] != name for k in members)
                pending.append((ranks[first].coll_ts[at[first]], label, i, name, at, differ))
        p2p_pairs, p2p_unmatched = self._p2p_pairs(ranks, pending)
        out["p2p_pairs"], out["p2p_unmatched"] = p2p_pairs, p2p_unmatched
        pending.sort(key=lambda p: p[0])  # stable, as std::stable_sort
        out["matched"] = len(pending)
        groups = {}
        for idx, (_, label, seq, name_id, at, differ) in enumerate(pending):
            if differ and out["names_match"]:
                out["names_match"] = False
                out["first_mismatch"] = idx
                if not out["mismatch_channel"]:
                    out["mismatch_channel"] = label
            durs = [r.coll_dur[at[k]] if at[k] is not None else None for k, r in enumerate(ranks)]
            lo = min(d for d in durs if d is not None)
            waits = 0
            latest = next(k for k in range(n) if durs[k] is not None)
            for k, r in enumerate(ranks):
                if durs[k] is None:
                    continue
                w = durs[k] - lo
                waits += w
                ns = rows[k]["_ns"]
                ns["transfer_ns"] += lo
                ns["wait_ns"] += w
                s = r.coll_launch_step[at[k]]
                if s >= 0:
                    ns["step_wait_ns"][s] += w
                if durs[k] < durs[latest]:
                    latest = k
            msg = None
            for k, r in enumerate(ranks):
                if at[k] is not None and r.coll_msg[at[k]] >= 0:
                    msg = self._msg_list[r.coll_msg[at[k]]]
                    break
            collective, dtype, in_n, out_n, group = msg if msg else ("", "", -1, -1, -1)
            nbytes = -1
            algbw = busbw = -1.0
            nelems = max(in_n, out_n)
            size = dtype_size(dtype)
            if nelems >= 0 and size and nelems <= (2 ** 63 - 1) // 16:
                nbytes = nelems * size
                if lo > 0:
                    algbw = nbytes / lo
                    f = bus_factor(collective, group)
                    if f >= 0:
                        busbw = algbw * f
            name = self._name_list[name_id]
            out["rows"].append({"index": idx, "channel": label, "sequence": seq, "name": name, "collective": collective, "dtype": dtype,
                                "bytes": nbytes if nbytes >= 0 else None, "transfer_us": us(lo),
                                "wait_sum_us": us(waits), "wait_max_us": us(max(d for d in durs if d is not None) - lo),
                                "last_rank": ranks[latest].rank,
                                "algbw_gbps": round(algbw, 3) if algbw >= 0 else None,
                                "busbw_gbps": round(busbw, 3) if busbw >= 0 else None})
            g = groups.get((name, collective))
            if g is None:
                g = groups[(name, collective)] = {"name": name, "collective": collective, "count": 0,
                                                  "sized": 0, "bytes": 0, "transfer_ns": 0, "wait_ns": 0,
                                                  "bus_bytes": 0.0, "bus_time": 0.0, "bus_ok": True}
            g["count"] += 1
            g["transfer_ns"] += lo
            g["wait_ns"] += waits
            if nbytes >= 0:
                g["bytes"] += nbytes
                g["sized"] += 1
            if busbw >= 0:
                g["bus_bytes"] += busbw * lo
                g["bus_time"] += lo
            else:
                g["bus_ok"] = False
        for g in groups.values():
            bw = g["bus_bytes"] / g["bus_time"] if g["bus_ok"] and g["bus_time"] > 0 else None
            out["by_name"].append({"name": g["name"], "collective": g["collective"], "count": g["count"],
                                   "sized": g["sized"], "bytes": g["bytes"],
                                   "transfer_us": us(g["transfer_ns"]), "wait_us": us(g["wait_ns"]),
                                   "busbw_gbps": round(bw, 3) if bw is not None else None})
        out["desync"] = self._desync(ranks, channels)
        for row in rows:
            row["transfer_us"] = us(row["_ns"]["transfer_ns"])
            row["wait_us"] = us(row["_ns"]["wait_ns"])
        return out

    def _late_start(self, ranks, rows):
        """HTA's late-start rule, as src/analysis/multi_rank.cpp computes it: over NCCL kernels of
        at least 1% of the mean step time, the last one per (rank, stream, step, name); the
        (stream, name) whose duration varies most across ranks; in each step the two ranks that
        start it latest (relative to their step start, over the mean step time) are flagged."""
        out = {"computed": False, "kernel": "", "flagged_steps": []}
        if len(ranks) < 3:
            return out
        mean_step = 0.0
        n_steps = 0
        for row in rows:
            mean_step += float(row["_ns"]["step_total_ns"])
            n_steps += row["_ns"]["steps"]
        if n_steps == 0:
            return out
        mean_step /= n_steps
        table = {}  # (stream, name) -> {rank index: {step number: (norm_start, dur)}}
        for k, r in enumerate(ranks):
            for i in range(len(r.coll_dur)):
                d = r.coll_dur[i]
                if d < 0.01 * mean_step or r.coll_step[i] < 0:
                    continue
                key = (r.coll_stream[i], self._name_list[r.coll_name[i]])
                number = r.steps[r.coll_step[i]][0]
                table.setdefault(key, {}).setdefault(k, {})[number] = (r.coll_off[i] / mean_step, d)
        best, spread = None, -1.0
        for key in sorted(table, key=lambda x: (x[0], x[1].encode("utf-8"))):
            durs = [v[1] for per in table[key].values() for v in per.values()]
            if durs and float(max(durs) - min(durs)) > spread:
                spread, best = float(max(durs) - min(durs)), key
        if best is None:
            return out
        flagged = [0] * len(ranks)
        by_step = {}
        for k, per in table[best].items():
            for number, (norm, _) in per.items():
                by_step.setdefault(number, []).append((norm, k))
        for v in by_step.values():
            v.sort(key=lambda x: (-x[0], x[1]))
            for norm, k in v[:2]:
                flagged[k] += 1
        return {"computed": True, "kernel": best[1], "stream": best[0], "flagged_steps": flagged}

    def _desync(self, ranks, channels):
        """Ranks whose sequence of collectives on a communicator differs from the majority's: at
        the first position where a rank's collective is not the one most ranks issued there (or
        where it has more or fewer collectives than most). One entry per deviating rank, at its
        first such position over the communicators (positions count within the communicator)."""
        if len(ranks) < 3:
            return []
        from collections import Counter
        found = {}
        for label, per in channels:
            # Among the ranks that have the communicator: every rank, or the members of a group
            # of some of the ranks (_channels keeps no other).
            seqs = {k: [ranks[k].coll_name[i] for i in per[k]] for k in range(len(ranks)) if per[k]}
            count_major = Counter(len(q) for q in seqs.values()).most_common(1)[0][0]
            longest = max(len(q) for q in seqs.values())
            majority = [Counter(q[i] for q in seqs.values() if i < len(q)).most_common(1)[0][0]
                        for i in range(longest)]
            for k, q in seqs.items():
                if k in found:
                    continue
                pos = None
                for i in range(min(len(q), count_major)):
                    if q[i] != majority[i]:
                        pos = i
                        break
                if pos is None and len(q) != count_major:
                    pos = min(len(q), count_major)
                if pos is not None:
                    found[k] = {"rank": ranks[k].rank, "channel": label, "position": pos,
                                "collectives": len(q),
                                "expected": self._name_list[majority[pos]] if pos < len(majority) else None,
                                "found": self._name_list[q[pos]] if pos < len(q) else None}
        out = [found[k] for k in sorted(found)]
        # When most ranks deviate there is no majority to judge by: say nothing per rank.
        return out if len(out) * 2 < len(ranks) else []

    def _nodes(self, ranks, rows):
        by = {}
        for r, row in zip(ranks, rows):
            node = r.host or "(unknown)"
            row["node"] = node
            by.setdefault(node, []).append(row)
        out = []
        for node, rs in sorted(by.items()):
            def med(key):
                v = sorted(x["_ns"][key] for x in rs)
                m = len(v)
                return (v[m // 2] if m % 2 else (v[m // 2 - 1] + v[m // 2]) / 2) if m else 0
            out.append({"node": node, "ranks": [x["rank"] for x in rs],
                        "step_median_us": round(med("step_median_ns") / 1e3, 3),
                        "compute_us": round(med("compute_ns") / 1e3, 3),
                        "collective_sum_us": round(med("collective_sum_ns") / 1e3, 3),
                        "wait_us": round(med("wait_ns") / 1e3, 3),
                        "dataloader_us": round(med("dataloader_ns") / 1e3, 3)})
        return out

    def _heatmap(self, ranks, rows):
        """Rank x step, every step number any rank has; null where a rank lacks the step.
        Integer microseconds (rounded): a 4,096 x 100 map stays a few MB."""
        numbers = sorted({s[0] for r in ranks for s in r.steps})
        col = {n: j for j, n in enumerate(numbers)}
        heat = {"steps": numbers, "units": "us", "step_time": [], "collective_wait": [],
                "compute": [], "dataloader": []}
        for r, row in zip(ranks, rows):
            vals = {k: [None] * len(numbers) for k in ("step_time", "collective_wait", "compute", "dataloader")}
            for k, s in enumerate(r.steps):
                j = col[s[0]]
                if vals["step_time"][j] is not None:
                    continue  # a number the rank has twice: its first step's (multi_rank_report.cpp)
                vals["step_time"][j] = round((s[2] - s[1]) / 1e3)
                vals["collective_wait"][j] = round(row["_ns"]["step_wait_ns"][k] / 1e3)
                vals["compute"][j] = round(s[4] / 1e3)
                vals["dataloader"][j] = round(s[8] / 1e3)
            for k, v in vals.items():
                heat[k].append(v)
        return heat

    def _stats(self, table):
        names = sorted(table, key=lambda n: (-table[n].sum, n))[: self._top]
        return {"names": len(table), "rows": [table[n].row(n) for n in names]}


def finish(result):
    """Drops the reducer's working integers from the rows (after the rules ran)."""
    for row in result["ranks"]:
        row.pop("_ns", None)
    return result
