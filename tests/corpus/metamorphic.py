#!/usr/bin/python3
"""Metamorphic test of the Kineto importer on real traces (../shared/traces).

Each trace is rewritten in ways real PyTorch profiler traces differ from one another WITHOUT
changing what happened (number spelling, event order, metadata, id spelling, B/E pairs instead
of X, flow spelling, newer torch names, gzip members), and the report's main numbers and
findings must stay the same: step rows, GPU busy/idle, kernels, memcpy counts, sync, finding ids.

Numbers are kept exact: floats in the JSON are parsed with their text (RawFloat) and ts/dur are
rewritten as decimal text, never through a double (epoch microseconds as doubles lose ns).

Usage: /usr/bin/python3 tests/corpus/metamorphic.py --cli build/native/kinetoscope [-v] [-k NAME]
Exit status 0 when every rewrite of every trace gives the same report numbers.
"""
import argparse
import decimal
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TRACES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "traces"))

# Small real traces of different vintages and shapes (GPU, steps, flows, float/int ts,
# baseTimeNanoseconds, distributedInfo, ROCm), together a few seconds of CLI time.
CORPUS = [
    "hta__cuda_event_sync__event_sync_trace.json.gz",  # int ts, 1 step, DtoH + syncs, ac2g
    "hta__step_based_trace_2543932.json.gz",  # int ts, ac2g, memcpy
    "hta__mi250_minitoy_train_ROCm6_2_kineto.json.gz",  # float ts, baseTime, ROCm, 2 steps
    "tracelens__h100__gaunernst_bert-small-uncased__1016001.json.gz",  # float ts ns, baseTime
    "param__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json",  # distributedInfo, NCCL
    "kineto__gpu_metrics_input.json",  # old torch: no ac2g, "async" flows
    "hta__trace_compare__base.json.gz",  # no flows at all, 2 steps
]


class RawFloat(float):
    """A JSON float that remembers how it was written."""

    def __new__(cls, text):
        f = float.__new__(cls, text)
        f.text = text
        return f


def num_text(v):
    """Exact decimal text of a ts/dur value as read (int, RawFloat, Decimal or string)."""
    if isinstance(v, bool):
        raise ValueError("bool time")
    if isinstance(v, int):
        return str(v)
    if isinstance(v, RawFloat):
        return v.text
    if isinstance(v, decimal.Decimal):
        return format(v, "f")
    if isinstance(v, str):
        return v
    return repr(v)


def dec(v):
    return decimal.Decimal(num_text(v))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    doc = json.loads(data, parse_float=RawFloat)
    if isinstance(doc, list):
        doc = {"traceEvents": doc}
    return doc


TIME_KEYS = ("ts", "dur")


class Spelling:
    """How to write ts/dur: 'keep', 'float3' (123.000), 'string' ("123.456")."""

    def __init__(self, mode="keep", ascii=False):
        self.mode = mode
        self.ascii = ascii

    def write(self, v):
        if self.mode == "keep":
            return num_text(v) if not isinstance(v, str) else json.dumps(v)
        d = dec(v)
        if self.mode == "float3":
            return format(d.quantize(decimal.Decimal("0.001")), "f")
        if self.mode == "string":
            return json.dumps(format(d.normalize(), "f") if d != d.to_integral() else str(int(d)))
        raise ValueError(self.mode)


def event_text(ev, spelling):
    times = [(k, ev[k]) for k in TIME_KEYS if k in ev and not isinstance(ev[k], (dict, list))]
    rest = {k: v for k, v in ev.items() if k not in dict(times)}
    body = json.dumps(rest, ensure_ascii=spelling.ascii, separators=(",", ":"))
    if spelling.ascii:  # as Go's encoder writes <, >, & (and some writers /): only in strings
        body = (body.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
                .replace("/", "\\/"))
    if not times:
        return body
    parts = ",".join('"%s":%s' % (k, spelling.write(v)) for k, v in times)
    return "{" + parts + ("," + body[1:] if body != "{}" else "}")


def dump(doc, spelling=None, members=1):
    """The document as bytes; `members` > 1 writes a gzip of that many members; a document
    of only traceEvents and "_bare": true is written as a bare array of events."""
    spelling = spelling or Spelling()
    if doc.get("_bare"):
        data = ("[\n" + ",\n".join(event_text(e, spelling) for e in doc["traceEvents"]) +
                "]\n").encode("utf-8")
        return data if members <= 1 else gzip.compress(data)
    out = ["{"]
    first = True
    for k, v in doc.items():
        if k == "traceEvents":
            continue
        out.append(("" if first else ",") + json.dumps(k) + ":" + json.dumps(v))
        first = False
    out.append(("" if first else ",") + '"traceEvents":[\n')
    out.append(",\n".join(event_text(e, spelling) for e in doc["traceEvents"]))
    out.append("]}\n")
    data = "".join(out).encode("utf-8")
    if members <= 1:
        return data
    step = len(data) // members + 1
    return b"".join(gzip.compress(data[i:i + step]) for i in range(0, len(data), step))


# ----- what a rewrite must not change ---------------------------------------------------------

def r3(x):
    return None if x is None else round(float(x), 3)


def fingerprint(rep, ignore=()):
    """The report's main numbers; `ignore`: finding ids and keys a rewrite may change."""
    fp = {}
    fp["findings"] = sorted(f["id"] for f in rep["findings"] if f["id"] not in ignore)
    s = rep["steps"]
    fp["steps"] = [s["count"]] + [(row["number"], r3(row["start_us"]), r3(row["end_us"]),
                                   r3(row["host_start_us"]), r3(row["host_end_us"]))
                                  for row in s["rows"]]
    g = rep["gpu"]
    fp["gpu"] = (g["has_gpu_ops"], g["window"], r3(g["window_us"]), r3(g["busy_us"]),
                 g["idle_pct"])
    k = rep["kernels"]
    fp["kernels"] = [k["count"], r3(k["total_us"])] + [(row["name"], row["count"],
                                                        r3(row["total_us"]))
                                                       for row in k["rows"][:10]]
    fp["memory_ops"] = [(row["kind"], row["count"], row["bytes"], r3(row["total_us"]),
                         row["pageable"]) for row in rep["memory_ops"]["rows"]]
    sy = rep["sync"]
    fp["sync"] = (sy["count"], r3(sy["total_us"]), sy["dtoh_in_steps"])
    # Which op nests in which (self times, a sync's origin chain) shows an order of tied slices.
    fp["dtoh_origins"] = json.dumps(sy.get("dtoh_origins"), sort_keys=True)
    fp["cpu_ops"] = [(row["name"], row["count"], r3(row["self_us"]))
                     for row in rep["cpu_ops"]["rows"][:20]]
    t = rep["trace"]
    fp["trace"] = (r3(t["span_us"]), t["gpu_devices"], t["gpu_streams"])
    fp["slices"] = t["slices"]
    ic = rep["idle_causes"]
    if ic:
        fp["idle_causes"] = {k: v for k, v in ic.items() if not isinstance(v, (list, dict))}
    ls = rep["launch_stats"]
    if ls:
        fp["launch_stats"] = (ls.get("launches"), ls.get("short_kernels"))
    for key in ignore:
        fp.pop(key, None)
    return fp


def diff(a, b):
    out = []
    for key in a:
        if a[key] != b.get(key):
            out.append("%s: %s -> %s" % (key, str(a[key])[:300], str(b.get(key))[:300]))
    return out


def report(cli, path):
    p = subprocess.run([cli, "report", path, "--format", "json"], capture_output=True)
    if p.returncode != 0:
        raise RuntimeError("kinetoscope failed on %s: %s" % (path, p.stderr.decode()[:500]))
    return json.loads(p.stdout)


# ----- rewrites -------------------------------------------------------------------------------
# Each takes the parsed document (a fresh copy) and returns (doc, spelling, gzip members) or None
# when it does not apply to this trace.

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "Kernel", "Memcpy",
            "Memset"}


def is_meta(e):
    return e.get("ph") == "M"


def ts_key(e):
    try:
        return dec(e["ts"])
    except (KeyError, decimal.InvalidOperation, ValueError):
        return decimal.Decimal(0)


def rw_float3(doc):
    return doc, Spelling("float3"), 1


def rw_string_times(doc):
    return doc, Spelling("string"), 1


def rw_display_unit(doc):
    doc["displayTimeUnit"] = "ns"
    return doc, None, 1


def rw_display_unit_ms(doc):
    doc["displayTimeUnit"] = "ms"
    return doc, None, 1


def rw_drop_base_time(doc):
    if "baseTimeNanoseconds" not in doc:
        return None
    del doc["baseTimeNanoseconds"]
    return doc, None, 1


def min_ts(doc):
    return min(ts_key(e) for e in doc["traceEvents"] if "ts" in e and not is_meta(e))


def rw_add_base_time(doc):
    """Absolute ts plus a baseTimeNanoseconds (newer Kineto writes both)."""
    if "baseTimeNanoseconds" in doc:
        return None
    doc["baseTimeNanoseconds"] = int(min_ts(doc)) * 1000
    return doc, None, 1


def rw_relative_ts(doc):
    """ts relative to baseTimeNanoseconds (the offset moved into the header)."""
    base_us = int(min_ts(doc)) - 1000
    if base_us <= 10**12:  # not an epoch trace: nothing to move
        return None
    doc["baseTimeNanoseconds"] = doc.get("baseTimeNanoseconds", 0) + base_us * 1000
    for e in doc["traceEvents"]:
        if "ts" in e:
            e["ts"] = dec(e["ts"]) - base_us
    return doc, None, 1


def rw_sorted(doc):
    doc["traceEvents"].sort(key=ts_key)
    return doc, None, 1


def rw_reversed(doc):
    doc["traceEvents"].reverse()
    return doc, None, 1


def rw_shuffled_ties_swapped(doc):
    """Events shuffled, and CPU slices that tie on (pid, tid, ts, dur) (an op and the op it calls,
    both within one clock tick) put in the reverse of the file's order: child before parent."""
    ev = doc["traceEvents"]
    random.Random(1).shuffle(ev)
    ties = {}
    for i, e in enumerate(ev):
        if e.get("ph") == "X" and e.get("cat") not in GPU_CATS:
            key = (str(e.get("pid")), str(e.get("tid")), str(e.get("ts")), str(e.get("dur")))
            ties.setdefault(key, []).append(i)
    swapped = 0
    for places in ties.values():
        if len(places) > 1:
            # The members in the order Kineto wrote them (External id, parent first), reversed.
            members = sorted((ev[i] for i in places),
                             key=lambda e: -(e.get("args") or {}).get("External id", 0))
            for i, e in zip(places, members):
                ev[i] = e
            swapped += 1
    return (doc, None, 1) if swapped else None


def rw_grouped(doc):
    groups = {}
    for e in doc["traceEvents"]:
        groups.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
    doc["traceEvents"] = [e for k in sorted(groups) for e in groups[k]]
    return doc, None, 1


def rw_meta_last(doc):
    ev = doc["traceEvents"]
    doc["traceEvents"] = [e for e in ev if not is_meta(e)] + [e for e in ev if is_meta(e)]
    return doc, None, 1


def rw_no_names(doc):
    ev = doc["traceEvents"]
    kept = [e for e in ev if not (is_meta(e) and e.get("name") in ("process_name", "thread_name"))]
    if len(kept) == len(ev):
        return None
    doc["traceEvents"] = kept
    return doc, None, 1


def rw_string_ids(doc):
    for e in doc["traceEvents"]:
        for k in ("pid", "tid"):
            if isinstance(e.get(k), int):
                e[k] = str(e[k])
    return doc, None, 1


def gpu_pids(doc):
    return {e.get("pid") for e in doc["traceEvents"] if e.get("cat") in GPU_CATS}


def rw_stream_tids(doc):
    """Kineto's "stream 7" tids on GPU processes (metadata too)."""
    pids = gpu_pids(doc)
    changed = False
    for e in doc["traceEvents"]:
        if e.get("pid") in pids and isinstance(e.get("tid"), int) and e["tid"] >= 0:
            e["tid"] = "stream %d" % e["tid"]
            changed = True
    return (doc, None, 1) if changed else None


def rw_gpu_pid_device(doc):
    """Kineto writes a GPU's events under pid = device id; other exporters use another number.
    Where the pid is the device id it becomes device + 1000, else the device id."""
    pids = gpu_pids(doc)
    mapping = {}
    for e in doc["traceEvents"]:
        if e.get("cat") in GPU_CATS and isinstance(e.get("args"), dict):
            dev = e["args"].get("device")
            if isinstance(dev, int) and e.get("pid") not in mapping:
                mapping[e["pid"]] = dev + 1000 if e["pid"] == dev else dev
    taken = {e.get("pid") for e in doc["traceEvents"]} - pids
    if not mapping or set(mapping.values()) & taken or len(set(mapping.values())) < len(mapping):
        return None
    for e in doc["traceEvents"]:
        if e.get("pid") in mapping:
            e["pid"] = mapping[e["pid"]]
    return doc, None, 1


CPU_SLICE_CATS = {"cpu_op", "user_annotation", "python_function", "Operator"}


def rw_begin_end(doc):
    """CPU ops as B/E pairs instead of X (args on B), sorted per thread so nesting holds."""
    other, per_thread = [], {}
    n = 0
    for e in doc["traceEvents"]:
        if e.get("ph") == "X" and e.get("cat") in CPU_SLICE_CATS and "dur" in e and dec(e["dur"]) > 0:
            t0, d = dec(e["ts"]), dec(e["dur"])
            b = dict(e)
            b["ph"] = "B"
            del b["dur"]
            end = {"ph": "E", "name": e.get("name"), "pid": e.get("pid"), "tid": e.get("tid"),
                   "ts": t0 + d}
            if "cat" in e:
                end["cat"] = e["cat"]
            key = (str(e.get("pid")), str(e.get("tid")))
            # At one time: ends before begins; inner ends (later begin) first; outer begins first.
            per_thread.setdefault(key, []).append(((t0, 1, -d, n), b))
            per_thread[key].append(((t0 + d, 0, -t0, -n), end))
            n += 1
        else:
            other.append(e)
    if not n:
        return None
    be = []
    for key in sorted(per_thread):
        be.extend(e for _, e in sorted(per_thread[key], key=lambda p: p[0]))
    doc["traceEvents"] = other + be
    return doc, None, 1


def flows(doc):
    return [e for e in doc["traceEvents"] if e.get("ph") in ("s", "f", "t")]


def rw_flow_bp(doc):
    """Flow ends with bp:e dropped where present, added where absent."""
    fs = [e for e in flows(doc) if e["ph"] == "f"]
    if not fs:
        return None
    for e in fs:
        if e.get("bp") == "e":
            del e["bp"]
        else:
            e["bp"] = "e"
    return doc, None, 1


def rw_no_ac2g(doc):
    """Older torch: no ac2g flows; launches join kernels by args.correlation only."""
    ev = doc["traceEvents"]
    kept = [e for e in ev if not (e.get("ph") in ("s", "f", "t") and e.get("cat") == "ac2g")]
    if len(kept) == len(ev):
        return None
    doc["traceEvents"] = kept
    return doc, None, 1


def rw_driver_launch(doc):
    """Newer torch: kernel launches through the driver API (cuda_driver cuLaunchKernel[Ex])."""
    n = 0
    for e in doc["traceEvents"]:
        if e.get("cat") == "cuda_runtime" and e.get("name") == "cudaLaunchKernel":
            e["cat"] = "cuda_driver"
            e["name"] = "cuLaunchKernelEx" if n % 2 else "cuLaunchKernel"
            n += 1
    return (doc, None, 1) if n else None


def rw_runtime_cat(doc, cats):
    n = 0
    for e in doc["traceEvents"]:
        if e.get("cat") in cats:
            e["cat"] = cats[e["cat"]]
            n += 1
    return (doc, None, 1) if n else None


LAUNCHES = {"cudaLaunchKernel", "cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel",
            "hipExtModuleLaunchKernel"}


def rw_graph_launch(doc):
    """CUDA graphs: every 4 consecutive kernel launches of a thread become one cudaGraphLaunch
    (the first's slice), whose correlation all 4 kernels carry; flows follow. The GPU did the
    same work at the same times; only the host-side launch calls differ."""
    ev = doc["traceEvents"]
    kernels = {}
    for e in ev:
        a = e.get("args")
        if e.get("cat") in ("kernel", "Kernel") and isinstance(a, dict) and "correlation" in a:
            kernels.setdefault(a["correlation"], []).append(e)
    per_thread = {}
    for e in ev:
        a = e.get("args")
        if (e.get("ph") == "X" and e.get("name") in LAUNCHES and isinstance(a, dict)
                and a.get("correlation") in kernels):
            per_thread.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
    renamed = {}  # old correlation -> graph launch's
    dropped = set()
    for launches in per_thread.values():
        launches.sort(key=ts_key)
        for i in range(0, len(launches) - 3, 4):
            head = launches[i]
            head["name"] = "cudaGraphLaunch"
            for other in launches[i + 1:i + 4]:
                renamed[other["args"]["correlation"]] = head["args"]["correlation"]
                dropped.add(id(other))
    if not renamed:
        return None
    out = []
    for e in ev:
        if id(e) in dropped:
            continue
        if e.get("ph") == "s" and e.get("cat") == "ac2g" and e.get("id") in renamed:
            continue
        if e.get("ph") == "f" and e.get("cat") == "ac2g" and e.get("id") in renamed:
            e["id"] = renamed[e["id"]]
        a = e.get("args")
        if e.get("cat") in ("kernel", "Kernel") and isinstance(a, dict) and a.get(
                "correlation") in renamed:
            a["correlation"] = renamed[a["correlation"]]
        out.append(e)
    doc["traceEvents"] = out
    return doc, None, 1


def rw_xpu(doc):
    """An XPU build of torch: xpu_runtime / xpu_driver (same kernels, memcpy, flows)."""
    return rw_runtime_cat(doc, {"cuda_runtime": "xpu_runtime", "cuda_driver": "xpu_driver"})


def rw_privateuse1(doc):
    """An out-of-tree backend (PrivateUse1): privateuse1_runtime / privateuse1_driver."""
    return rw_runtime_cat(doc, {"cuda_runtime": "privateuse1_runtime",
                                "cuda_driver": "privateuse1_driver"})


def rw_gpu_user_annotation(doc):
    """gpu_user_annotation slices over each user annotation's GPU work, as newer torch writes:
    annotations on the GPU timeline are not GPU work and must not change busy time."""
    kernels = [e for e in doc["traceEvents"] if e.get("cat") == "kernel" and e.get("ph") == "X"]
    if not kernels or any(e.get("cat") == "gpu_user_annotation" for e in doc["traceEvents"]):
        return None
    k0 = kernels[0]
    t0 = min(dec(k["ts"]) for k in kernels)
    t1 = max(dec(k["ts"]) + dec(k["dur"]) for k in kernels)
    doc["traceEvents"].append({"ph": "X", "cat": "gpu_user_annotation", "name": "forward",
                               "pid": k0["pid"], "tid": k0["tid"], "ts": t0, "dur": t1 - t0,
                               "args": {"device": k0.get("args", {}).get("device", 0)}})
    return doc, None, 1


def rw_toggle_distributed(doc):
    if "distributedInfo" in doc:
        del doc["distributedInfo"]
    else:
        doc["distributedInfo"] = {"backend": "nccl", "rank": 0, "world_size": 1}
    return doc, None, 1


def rw_all_spellings(doc):
    """Several at once, as one exporter might: string pid/tid, 'stream N' GPU tids, metadata
    last without names, reversed order... (ts as strings), gzip of 3 members."""
    for fn in (rw_stream_tids, rw_no_names, rw_string_ids, rw_reversed, rw_meta_last):
        res = fn(doc)
        if res is not None:
            doc = res[0]
    return doc, Spelling("string"), 3


def rw_external_id_case(doc):
    """Kineto 2021 wrote "external id", later ones "External id"; swap them."""
    n = 0
    for e in doc["traceEvents"]:
        a = e.get("args")
        if isinstance(a, dict):
            for old, new in (("External id", "external id"), ("external id", "External id")):
                if old in a:
                    a[new] = a.pop(old)
                    n += 1
                    break
    return (doc, None, 1) if n else None


def rw_ascii(doc):
    """Strings with escapes: non-ASCII as \\uXXXX (Python's json default), <, >, & as
    \\u003c... (Go's encoding/json), / as \\/ (allowed by JSON, written by some)."""
    return doc, Spelling("keep", ascii=True), 1


def rw_bare_array(doc):
    """The JSON Array Format (a bare list of events), when nothing else is in the object."""
    if set(doc) - {"traceEvents", "displayTimeUnit", "schemaVersion", "traceName",
                   "distributedInfo"}:
        return None
    return {"traceEvents": doc["traceEvents"], "_bare": True}, None, 1


def rw_stray_times(doc):
    """A copy of a kernel and of a CPU slice 35 days after the capture (a corrupt timestamp, as
    CUPTI sometimes writes one): both are left out (diagnostic stray_time), the report is as it was."""
    slices = [e for e in doc["traceEvents"] if e.get("ph") == "X" and "ts" in e and "dur" in e]
    kernels = [e for e in slices if e.get("cat") in ("kernel", "Kernel")]
    if not kernels:
        return None
    far = decimal.Decimal(35 * 86400 * 10**6)
    for e in (kernels[len(kernels) // 2], slices[0]):
        copy = dict(e)
        copy["ts"] = dec(e["ts"]) + far
        doc["traceEvents"].append(copy)
    return doc, None, 1


def rw_gzip_members(doc):
    return doc, None, 3


REWRITES = [
    ("ts/dur as floats with 3 decimals", rw_float3),
    ("ts/dur as strings", rw_string_times),
    ("displayTimeUnit ns", rw_display_unit),
    ("displayTimeUnit ms", rw_display_unit_ms),
    ("baseTimeNanoseconds removed", rw_drop_base_time),
    ("baseTimeNanoseconds added, ts absolute", rw_add_base_time),
    ("ts relative to baseTimeNanoseconds", rw_relative_ts),
    ("events sorted by ts", rw_sorted),
    ("events reversed", rw_reversed),
    ("events grouped per thread", rw_grouped),
    ("events shuffled, tied CPU slices child first", rw_shuffled_ties_swapped),
    ("metadata at the end", rw_meta_last),
    ("no process_name/thread_name", rw_no_names),
    ("pid/tid as strings", rw_string_ids),
    ("GPU tids as 'stream N'", rw_stream_tids),
    ("GPU pids as device ids (or not)", rw_gpu_pid_device),
    ("CPU ops as B/E pairs", rw_begin_end),
    ("flow ends with/without bp:e", rw_flow_bp),
    ("no ac2g flows (join by correlation)", rw_no_ac2g),
    ("cuda_driver cuLaunchKernel[Ex]", rw_driver_launch),
    # Host-side launch calls change (fewer, other names, kernels 2-4 launched earlier): their
    # tables and what depends on launch times (launch delays, idle causes and so the info-level
    # sync.runtime_calls, which fires on GPU idle after a sync, the critical path) may change;
    # not the GPU's work, the steps, the copies or the other findings. The ops that made the
    # launches lose those children, so their self times (cpu_ops) change too.
    ("cudaGraphLaunch for 4 kernels per correlation", rw_graph_launch,
     {"slices", "launch_stats", "cpu_ops", "idle_causes", "critical_path.cpu_bound",
      "critical_path.gpu_overhead", "kernels.launch_bound", "sync.runtime_calls"}),
    ("xpu_runtime/xpu_driver categories", rw_xpu),
    ("privateuse1_runtime/driver categories", rw_privateuse1),
    # One slice more, on the GPU, that is not GPU work.
    ("gpu_user_annotation added", rw_gpu_user_annotation, {"slices"}),
    # The advice to record distributedInfo is about that header, so it may come and go.
    ("distributedInfo toggled", rw_toggle_distributed, {"capture.no_distributed_info"}),
    ("gzip of 3 members", rw_gzip_members),
    ("a kernel and a CPU slice 35 days late", rw_stray_times),
    ("bare array of events", rw_bare_array, {"capture.no_distributed_info"}),
    ("'External id' / 'external id'", rw_external_id_case),
    ("strings with \\u and \\/ escapes", rw_ascii),
    ("all spellings at once", rw_all_spellings),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/native/kinetoscope")
    ap.add_argument("-v", action="store_true")
    ap.add_argument("-k", default="", help="only rewrites whose name contains this")
    ap.add_argument("--trace", action="append", help="trace file names (default: the corpus)")
    args = ap.parse_args()
    if not os.path.isdir(TRACES):
        print("SKIP: %s is absent" % TRACES)
        return 0
    failures, checked = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.trace or CORPUS:
            path = os.path.join(TRACES, name)
            base_report = report(args.cli, path)
            raw = load(path)
            # The control: a rewrite that does change what happened (one kernel fewer) must be
            # seen, or the comparison could not fail.
            control = copy_doc(raw)
            ks = [e for e in control["traceEvents"] if e.get("cat") in ("kernel", "Kernel")]
            if ks:
                control["traceEvents"].remove(ks[len(ks) // 2])
                out = os.path.join(tmp, "control.json")
                with open(out, "wb") as f:
                    f.write(dump(control))
                if not diff(fingerprint(base_report), fingerprint(report(args.cli, out))):
                    failures.append((name, "control", ["dropping a kernel was not seen"]))
                    print("FAIL %s: the control (one kernel fewer) changed nothing" % name)
            for label, fn, *ignore in REWRITES:
                ignore = ignore[0] if ignore else ()
                base = fingerprint(base_report, ignore)
                if args.k and args.k not in label:
                    continue
                res = fn(copy_doc(raw))
                if res is None:
                    continue
                doc, spelling, members = res
                out = os.path.join(tmp, "t.json" + (".gz" if members > 1 else ""))
                with open(out, "wb") as f:
                    f.write(dump(doc, spelling, members))
                checked += 1
                got = fingerprint(report(args.cli, out), ignore)
                d = diff(base, got)
                if d:
                    failures.append((name, label, d))
                    print("FAIL %s: %s" % (name, label))
                    for line in d:
                        print("    " + line)
                elif args.v:
                    print("ok   %s: %s" % (name, label))
    print("metamorphic: %d rewrites checked, %d changed the report" % (checked, len(failures)))
    return 1 if failures else 0


def copy_doc(doc):
    """A deep copy that keeps RawFloat texts (copy.deepcopy would too, but slower)."""
    def c(v):
        if isinstance(v, dict):
            return {k: c(x) for k, x in v.items()}
        if isinstance(v, list):
            return [c(x) for x in v]
        return v
    return c(doc)


if __name__ == "__main__":
    sys.exit(main())
