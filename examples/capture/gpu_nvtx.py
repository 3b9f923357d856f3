"""GPU lab: capture a Kineto trace (CPU + CUDA activity) of a small TransformerEncoder on CUDA.

What it captures
    A few training steps of a small nn.TransformerEncoder classifier on one CUDA device,
    profiled with torch.profiler (activities CPU and CUDA, i.e. Kineto + CUPTI) under
    schedule(wait=1, warmup=2, active=3): the first step is skipped, two warm-up steps are
    traced and thrown away, three steps are kept. The phases of each step are marked
    twice: record_function ranges ("## forward ##", ...), which Kineto writes as
    user_annotation slices (and gpu_user_annotation on the GPU rows), and NVTX ranges
    (torch.cuda.nvtx.range_push/pop), which only Nsight Systems records. So the same run
    can be opened in Kinetoscope and, under nsys, in Nsight Systems.

    The pathology switches change one thing each, so a clean run and a sick run differ
    only in that:
      --dataloader-workers 0   load batches in the training process (DataLoader stall)
      --item-per-step          loss.item() every step (DtoH copy + cudaStreamSynchronize)
      --pageable               no pin_memory: HtoD copies from pageable memory
      --fp32                   no bf16 autocast and TF32 off: no tensor-core GEMMs
      --no-schedule            record from the first step, warm-up included
    and one switch changes the program rather than adding a fault:
      --compile [MODE]         torch.compile the model (Triton kernels, many small fused
                               ones); MODE reduce-overhead replays them as CUDA graphs

How to run (needs a CUDA GPU; refuses otherwise; about 20 s including CUDA start-up)
    python3 examples/capture/gpu_nvtx.py --out build/gpu_traces
    python3 examples/capture/gpu_nvtx.py --out build/gpu_traces --name item --item-per-step
    nsys profile -t cuda,nvtx -o build/gpu_nvtx \
        python3 examples/capture/gpu_nvtx.py --out build/gpu_traces

    It writes <name>.<unix-ms>.pt.trace.json.gz into --out and prints the path.
"""

import argparse
import contextlib
import os
import socket
import sys
import time

import torch
from torch import nn
from torch.profiler import ProfilerActivity, profile, record_function, schedule
from torch.utils.data import DataLoader, Dataset

from trace_files import trace_saver

WAIT, WARMUP, ACTIVE = 1, 2, 3


def burn(n):
    """Pure-Python busy work standing in for decoding/augmenting a sample."""
    acc = 0
    for i in range(n):
        acc = (acc * 31 + i) & 0xFFFF
    return acc


def iterations_per_cpu_ms():
    """Calibrate burn() against CPU time (not wall time), so the work per sample stays
    the same when the machine is busy."""
    n, t0 = 200000, time.process_time()
    burn(n)
    return n / max((time.process_time() - t0) * 1000.0, 1e-3)


class SlowTokens(Dataset):
    """Random token embeddings and labels; each item costs `work` iterations of burn()."""

    def __init__(self, n_items, seq_len, d_model, n_classes, work, seed=0):
        gen = torch.Generator().manual_seed(seed)
        self.x = torch.randn(n_items, seq_len, d_model, generator=gen)
        self.y = torch.randint(0, n_classes, (n_items,), generator=gen)
        self.work = work

    def __len__(self):
        return self.x.shape[0]

    def __getitem__(self, i):
        burn(self.work)
        return self.x[i], self.y[i]


class Classifier(nn.Module):
    def __init__(self, d_model, n_heads, n_layers, n_classes):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout=0.1,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):
        return self.head(self.encoder(x).mean(dim=1))


@contextlib.contextmanager
def phase(name):
    """One range in both worlds: record_function for Kineto, NVTX for Nsight Systems."""
    torch.cuda.nvtx.range_push(name)
    try:
        with record_function(name):
            yield
    finally:
        torch.cuda.nvtx.range_pop()


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="output folder for the trace")
    p.add_argument("--name", default=None, help="file name stem (default host_pid)")
    p.add_argument("--steps", type=int, default=None,
                   help="steps to run (default %d with the schedule, 4 with --no-schedule)"
                   % (WAIT + WARMUP + ACTIVE))
    p.add_argument("--record-shapes", action="store_true")
    p.add_argument("--with-stack", action="store_true")
    p.add_argument("--profile-memory", action="store_true")
    p.add_argument("--dataloader-workers", type=int, default=2, metavar="N")
    p.add_argument("--getitem-ms", type=float, default=0.5,
                   help="CPU work per sample in ms of CPU time, like decoding (default 0.5)")
    p.add_argument("--item-per-step", action="store_true")
    p.add_argument("--pageable", action="store_true", help="do not pin host batches")
    p.add_argument("--fp32", action="store_true", help="no autocast, TF32 off")
    p.add_argument("--no-schedule", action="store_true")
    p.add_argument("--compile", nargs="?", const="default", default=None, metavar="MODE",
                   choices=["default", "reduce-overhead", "max-autotune-no-cudagraphs"],
                   help="torch.compile the model (MODE: default, reduce-overhead = CUDA graphs)")
    p.add_argument("--no-gzip", action="store_true")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--seq", type=int, default=128)
    p.add_argument("--d-model", type=int, default=512)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not torch.cuda.is_available():
        sys.stderr.write("gpu_nvtx.py needs a CUDA GPU and a CUDA build of torch "
                         "(torch %s here, torch.cuda.is_available() is False).\n"
                         "On a CPU-only machine use examples/capture/cpu_transformer.py.\n"
                         % torch.__version__)
        sys.exit(2)
    steps = args.steps or (4 if args.no_schedule else WAIT + WARMUP + ACTIVE)
    torch.manual_seed(args.seed)
    dev = torch.device("cuda", 0)
    torch.backends.cuda.matmul.allow_tf32 = not args.fp32
    torch.backends.cudnn.allow_tf32 = not args.fp32

    def amp():
        if args.fp32:
            return contextlib.nullcontext()
        return torch.autocast("cuda", dtype=torch.bfloat16)

    n_classes = 10
    model = Classifier(args.d_model, args.heads, args.layers, n_classes).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    if args.compile:
        # compiled on the first (untraced) step; the warm-up steps absorb any recompile
        model = torch.compile(model, mode=args.compile)
    loss_fn = nn.CrossEntropyLoss()
    data = SlowTokens(steps * args.batch, args.seq, args.d_model, n_classes,
                      int(args.getitem_ms * iterations_per_cpu_ms()), seed=args.seed)
    loader = DataLoader(data, batch_size=args.batch, shuffle=False,
                        num_workers=args.dataloader_workers, pin_memory=not args.pageable)

    stem = args.name or "%s_%d" % (socket.gethostname(), os.getpid())
    save, written = trace_saver(args.out, stem, compress=not args.no_gzip)

    kwargs = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], on_trace_ready=save,
                  record_shapes=args.record_shapes, with_stack=args.with_stack,
                  profile_memory=args.profile_memory)
    if not args.no_schedule:
        kwargs["schedule"] = schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1)

    # the step whose prof.step() saves the trace
    last_traced = steps - 1 if args.no_schedule else min(steps, WAIT + WARMUP + ACTIVE) - 1
    t0 = time.time()
    with profile(**kwargs) as prof:
        batches = None
        for step in range(steps):
            marker = (record_function("ProfilerStep#%d" % step) if args.no_schedule
                      else contextlib.nullcontext())
            with marker:
                with phase("## data ##"):
                    if batches is None:  # inside step 0, like `for x, y in loader:`
                        batches = iter(loader)
                    x, y = next(batches)
                    # non_blocking only overlaps when the source is pinned
                    x = x.to(dev, non_blocking=not args.pageable)
                    y = y.to(dev, non_blocking=not args.pageable)
                with phase("## forward ##"), amp():
                    loss = loss_fn(model(x), y)
                with phase("## backward ##"):
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                with phase("## optimizer ##"):
                    opt.step()
                if args.item_per_step:
                    with phase("## log ##"):
                        loss.item()
                if step == last_traced:
                    # let the last traced step's kernels finish before the trace is saved
                    torch.cuda.synchronize()
            prof.step()
    elapsed = time.time() - t0

    if not written:
        sys.exit("no trace was written (too few --steps for the schedule?)")
    print("torch %s on %s, %d steps in %.1f s" % (torch.__version__, torch.cuda.get_device_name(0),
                                                  steps, elapsed))
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
