#!/usr/bin/env python3
"""Writes one of the benchmark's trace shapes (issue #19) as Kineto JSON of about a target size.

  resnet       (a) the real ResNet-50 training trace repeated (kineto__resnet50_nw0...): the
               classic GPU-bound shape, ~9 k kernels per step.
  pystack      (b) CPU-heavy with Python stacks and shapes: a real with_stack + record_shapes
               trace (tracelens__h100__facebook_timesformer...: 42 k python_function events and
               3.5 k cpu_ops with Input Dims per step) repeated, each cpu_op also given the
               "Call stack" arg older with_stack wrote, from its enclosing python_function events
               (cpu_op events then average >= 600 bytes).
  nccl         (c) the peers' generator (../shared/peers/gen_big_trace.py): data-parallel
               training with NCCL on a comm stream, several streams, ac2g and fwdbwd flows.
  tiny_kernels (d) many tiny kernels: a real vLLM decode (graph execution, 425 kernels of a few
               microseconds in 19 ms: tracelens__vllm_decode_full__graph_execution) repeated,
               every 50 copies one ProfilerStep (~21 k kernels per step).
  amd          (e) a real AMD MI300 training trace (tracelens__mi300__resnet_act_checkpoint,
               roctracer) repeated.

Repetition shifts ts by the source's span, keeps ids, correlations, flow ids and Python ids unique
per copy (bench/make_big_trace.py) and writes valid JSON.

  python3 bench/shapes/make_shape.py --shape pystack --target-mb 200 --out /tmp/x.json
  python3 bench/shapes/make_shape.py --list
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import make_big_trace  # noqa: E402  (bench/make_big_trace.py)

# shape -> (source trace in ../shared/traces, repeat() options); nccl has no source (generator).
SHAPES = {
    "resnet": ("kineto__resnet50_nw0__worker0.1623143089861.pt.trace.json.gz", {}),
    "pystack": ("tracelens__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz", {"call_stacks": True}),
    "nccl": (None, {}),
    "tiny_kernels": ("tracelens__vllm_decode_full__graph_execution.json.gz", {"steps_every": 50}),
    "amd": ("tracelens__mi300__resnet_act_checkpoint.json.gz", {}),
}


def source_path(shared, shape):
    name = SHAPES[shape][0]
    return os.path.join(shared, "traces", name) if name else os.path.join(shared, "peers", "gen_big_trace.py")


# --smoke (tests/bench/shapes_smoke.sh): the first few ms of each source, 3 copies: ~1-2 MB that
# still repeat (ts shift, fresh ids) the way the big files do.
# (start, length) in ms from the source's first event: pystack's first cpu_op comes 215 ms in.
SMOKE_WINDOW_MS = {"resnet": (0, 60), "pystack": (215, 10), "tiny_kernels": (0, 19.2), "amd": (0, 2.5)}


def make(shape, target_mb, out, shared, window_ms=None, copies=None, window_start_ms=0.0):
    src = source_path(shared, shape)
    if not os.path.exists(src):
        raise SystemExit("make_shape: %s needs %s, which is missing" % (shape, src))
    if shape == "nccl":
        # The generator prints its summary (and writes OUT.meta.json); keep its stdout off ours.
        r = subprocess.run([sys.executable, src, "--out", out, "--target-mb", str(target_mb)],
                           stdout=subprocess.PIPE, check=True)
        meta = out + ".meta.json"
        if os.path.exists(meta):
            os.remove(meta)
        return {"source": "gen_big_trace.py", "out": out, "json_bytes": os.path.getsize(out),
                "generator_summary_bytes": len(r.stdout)}
    return make_big_trace.repeat(src, out, target_mb, window_ms=window_ms, copies=copies,
                                 window_start_ms=window_start_ms, **SHAPES[shape][1])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shape", choices=sorted(SHAPES))
    ap.add_argument("--target-mb", type=float)
    ap.add_argument("--out")
    ap.add_argument("--shared", default=os.environ.get("KS_SHARED_DIR", os.path.join(HERE, "..", "..", "..", "shared")),
                    help="the shared folder with traces/ and peers/ (default ../shared next to the repository)")
    ap.add_argument("--list", action="store_true", help="print the shapes and their sources")
    ap.add_argument("--window-ms", type=float, help="repeat only WINDOW_MS of the source's events")
    ap.add_argument("--window-start-ms", type=float, default=0.0, help="where that window starts (ms after the first event)")
    ap.add_argument("--copies", type=int, help="write exactly COPIES copies (--target-mb is then ignored)")
    ap.add_argument("--smoke", action="store_true", help="a ~2 MB file: a short window of the source, 3 copies")
    args = ap.parse_args()
    if args.list:
        for s in SHAPES:
            print(s, source_path(args.shared, s))
        return 0
    if args.smoke:
        args.target_mb = args.target_mb or 2
        if args.shape in SMOKE_WINDOW_MS:
            (args.window_start_ms, args.window_ms), args.copies = SMOKE_WINDOW_MS[args.shape], args.copies or 3
    if not (args.shape and args.target_mb and args.out):
        ap.error("--shape, --target-mb and --out are required")
    summary = make(args.shape, args.target_mb, args.out, args.shared, args.window_ms, args.copies,
                   args.window_start_ms)
    summary["shape"] = args.shape
    print(json.dumps(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
