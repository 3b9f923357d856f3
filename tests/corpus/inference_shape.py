#!/usr/bin/python3
"""Inference-shaped traces (vLLM, HF generate with CUDA graphs), built from a real trace
(../shared/traces): no ProfilerStep, and the kernel launches replaced by cudaGraphLaunch calls,
as CUPTI records a graph replay: one runtime call, and every kernel of the graph carrying that
call's correlation id (each node's activity record holds the launch's correlationId; Kineto
writes it as the kernel's "correlation" and one ac2g flow end per kernel).

The rewrite: each run of 40 consecutive kernel launches of a thread becomes one graph launch
(the first call, renamed; the others, and their flow starts, removed; their kernels' ids and
flow ends moved to the first call's id). Kernel times are kept.

What a user must see: no step finding but the note that there are no steps; launches counted
once per graph; the same top kernels; and on the same rewrite of a launch-bound plant (every
kernel 2 us, planted_shapes.plant_tiny_kernels) no kernels.launch_bound that counts the graphs'
kernels as kernels paying a launch each (it said "1465 of 1465 kernels run 4 us or less", 1028
of them graph nodes, and advised CUDA graphs).

Usage: /usr/bin/python3 tests/corpus/inference_shape.py --cli build/native/kinetoscope [-v]
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpus_cli  # noqa: E402
import metamorphic as mm  # noqa: E402
from planted import GPU_CATS, RUNTIME_CATS, write  # noqa: E402
from planted_shapes import plant_tiny_kernels  # noqa: E402

BASE = "tracelens__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"  # 1 step, 1465 kernels
LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "hipLaunchKernel",
            "hipExtModuleLaunchKernel")
GROUP = 40


def graph_replays(doc, group=GROUP):
    """doc without ProfilerStep markers, its kernel launches made graph launches of `group`.
    Returns (doc, launch calls removed, graph launches, kernels in graphs)."""
    ev = [e for e in doc["traceEvents"] if not str(e.get("name", "")).startswith("ProfilerStep#")]
    calls = sorted((e for e in ev if e.get("cat") in RUNTIME_CATS and e.get("name") in LAUNCHES
                    and "correlation" in (e.get("args") or {})),
                   key=lambda e: (str(e["pid"]), str(e["tid"]), mm.dec(e["ts"])))
    remap, drop, graphs = {}, set(), 0
    for i in range(0, len(calls), group):
        g = calls[i:i + group]
        if len(g) < 2:
            continue
        graphs += 1
        g[0]["name"] = "cudaGraphLaunch"
        for x in g:
            remap[x["args"]["correlation"]] = g[0]["args"]["correlation"]
        drop.update(id(x) for x in g[1:])
    out, in_graphs = [], 0
    for e in ev:
        if id(e) in drop or (e.get("ph") == "s" and e.get("id") in remap
                             and remap[e["id"]] != e["id"]):
            continue
        a = e.get("args")
        if e.get("cat") in GPU_CATS and isinstance(a, dict) and a.get("correlation") in remap:
            e["args"] = dict(a, correlation=remap[a["correlation"]])
            in_graphs += e.get("cat") in ("kernel", "Kernel")
        if e.get("ph") == "f" and e.get("id") in remap:
            e = dict(e, id=remap[e["id"]])
        out.append(e)
    doc["traceEvents"] = out
    return doc, len(drop), graphs, in_graphs


ids = corpus_cli.finding_ids


def top(r, n=5):
    return [(k["name"], k["total_us"]) for k in r["kernels"]["rows"][:n]]


def main():
    args, c = corpus_cli.start(mm.TRACES)
    if args is None:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        base = mm.load(os.path.join(mm.TRACES, BASE))
        clean = corpus_cli.report(args.cli, [write(mm.copy_doc(base), os.path.join(tmp, "b.json"))])
        doc, removed, graphs, in_graphs = graph_replays(mm.copy_doc(base))
        r = corpus_cli.report(args.cli, [write(doc, os.path.join(tmp, "g.json"))])
        c.check("graphs: the rewrite made graphs", graphs > 10 and in_graphs > 400,
                "%d graphs, %d kernels" % (graphs, in_graphs))
        c.check("graphs: no steps", r["steps"]["count"] == 0, str(r["steps"].get("count")))
        c.check("graphs: no step finding but steps.none",
                [x for x in ids(r) if x.startswith("steps.")] == ["steps.none"], str(ids(r)))
        c.check("graphs: one launch per graph",
                r["launch_stats"]["launches"] == clean["launch_stats"]["launches"] - removed,
                "%s vs %s - %d" % (r["launch_stats"]["launches"],
                                   clean["launch_stats"]["launches"], removed))
        c.check("graphs: the same GPU time launched",
                r["launch_stats"]["gpu_us"] == clean["launch_stats"]["gpu_us"],
                str(r["launch_stats"]["gpu_us"]))
        c.check("graphs: the same top kernels", top(r) == top(clean), str(top(r)))

        # The launch-bound plant, then the same rewrite: the graphs' kernels pay no launch.
        tiny = plant_tiny_kernels(mm.copy_doc(base))
        t = corpus_cli.report(args.cli, [write(tiny, os.path.join(tmp, "t.json"))])
        c.check("tiny: kernels.launch_bound fires", "kernels.launch_bound" in ids(t), str(ids(t)))
        doc, removed, graphs, in_graphs = graph_replays(mm.copy_doc(tiny))
        r = corpus_cli.report(args.cli, [write(doc, os.path.join(tmp, "tg.json"))])
        kernels = sum(1 for e in doc["traceEvents"] if e.get("cat") in ("kernel", "Kernel"))
        f = next((x for x in r["findings"] if x["id"] == "kernels.launch_bound"), None)
        if f:
            ev = f["evidence"]
            c.check("tiny graphs: launch_bound counts no graph kernel",
                    ev.get("kernels") == kernels - in_graphs
                    and ev.get("graph_kernels_left_out") == in_graphs,
                    "%s; %d kernels, %d in graphs" % (ev, kernels, in_graphs))
    print("inference_shape: %d checks failed" % len(c.failures))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
