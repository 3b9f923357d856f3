"""Capture a CPU trace of a tiny nn.TransformerEncoder training loop with torch.profiler.

What it captures
    A few training steps (forward, cross-entropy loss, backward, SGD-momentum step) of a small
    TransformerEncoder classifier on the CPU. Batches come from a torch DataLoader over a
    synthetic dataset whose __getitem__ burns a little CPU per sample (standing in for
    decoding), so the loader is visible in the trace. The profiler runs with
    schedule(wait=1, warmup=2, active=3) and calls prof.step() every iteration, so the
    saved trace holds three active steps marked ProfilerStep#3..#5.

    With a profiler built with Kineto (pip wheels) the output is the Kineto JSON object
    ({"traceEvents": [...], ...}). Debian's python3-torch 1.13 has no Kineto: the output is
    the legacy bare JSON array (pid "CPU functions", no "cat", empty "args").

How to run (a few seconds on 2 cores, most of it importing torch)
    python3 examples/capture/cpu_transformer.py --out build/traces
    python3 examples/capture/cpu_transformer.py --out build/traces --dataloader-workers 0
    python3 examples/capture/cpu_transformer.py --out build/traces --item-per-step
    python3 examples/capture/cpu_transformer.py --out build/traces --no-schedule
    python3 examples/capture/cpu_transformer.py --out build/traces \
        --record-shapes --with-stack --profile-memory

    It writes <name>.<unix-ms>.pt.trace.json.gz into --out (--no-gzip keeps plain JSON) and
    prints the path. --name sets <name> (default: host_pid, like tensorboard_trace_handler).
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
    def __init__(self, d_model, n_heads, d_ff, n_layers, n_classes):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, n_heads, d_ff, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(d_model, n_classes)

    def forward(self, x):
        return self.head(self.encoder(x).mean(dim=1))


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="output folder for the trace")
    p.add_argument("--name", default=None, help="file name stem (default host_pid)")
    p.add_argument("--steps", type=int, default=None,
                   help="training steps to run (default %d with the schedule, 4 with --no-schedule)"
                   % (WAIT + WARMUP + ACTIVE))
    p.add_argument("--record-shapes", action="store_true")
    p.add_argument("--with-stack", action="store_true")
    p.add_argument("--profile-memory", action="store_true")
    p.add_argument("--dataloader-workers", type=int, default=2, metavar="N",
                   help="DataLoader num_workers (0 loads in the training process)")
    p.add_argument("--getitem-ms", type=float, default=3.0,
                   help="CPU work per sample in ms of CPU time, like decoding (default 3)")
    p.add_argument("--item-per-step", action="store_true",
                   help="call loss.item() every step (a host sync on GPU)")
    p.add_argument("--no-schedule", action="store_true",
                   help="no profiler schedule: record from the first step, warm-up included")
    p.add_argument("--no-gzip", action="store_true", help="write plain .json")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=64)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--heads", type=int, default=2)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    steps = args.steps or (4 if args.no_schedule else WAIT + WARMUP + ACTIVE)
    torch.manual_seed(args.seed)
    n_classes = 10

    model = Classifier(args.d_model, args.heads, 2 * args.d_model, args.layers, n_classes)
    # SGD, not Adam: torch's single-tensor Adam/AdamW calls .item() on every step counter,
    # which would put aten::item in every trace and hide --item-per-step.
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    data = SlowTokens(steps * args.batch, args.seq, args.d_model, n_classes,
                      int(args.getitem_ms * iterations_per_cpu_ms()), seed=args.seed)
    loader = DataLoader(data, batch_size=args.batch, shuffle=False,
                        num_workers=args.dataloader_workers)

    stem = args.name or "%s_%d" % (socket.gethostname(), os.getpid())
    handler, written = trace_saver(args.out, stem, compress=not args.no_gzip)
    prof_kwargs = dict(activities=[ProfilerActivity.CPU], on_trace_ready=handler,
                       record_shapes=args.record_shapes, with_stack=args.with_stack,
                       profile_memory=args.profile_memory)
    if not args.no_schedule:
        prof_kwargs["schedule"] = schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1)

    t0 = time.time()
    running = 0.0
    with profile(**prof_kwargs) as prof:
        batches = None
        for step in range(steps):
            # torch adds ProfilerStep#N markers only when a schedule is set; add the same
            # markers by hand otherwise so the steps stay visible.
            marker = (record_function("ProfilerStep#%d" % step) if args.no_schedule
                      else contextlib.nullcontext())
            with marker:
                if batches is None:  # inside step 0, like `for x, y in loader:`
                    batches = iter(loader)
                x, y = next(batches)
                loss = loss_fn(model(x), y)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                if args.item_per_step:
                    running += loss.item()
            prof.step()
    elapsed = time.time() - t0

    if not written:
        sys.exit("no trace was written (too few --steps for the schedule?)")
    print("torch %s, %d steps in %.1f s%s" % (torch.__version__, steps, elapsed,
                                              ", mean loss %.3f" % (running / steps)
                                              if args.item_per_step else ""))
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
