"""Capture one torch.profiler trace per rank of a DistributedDataParallel training loop.

What it captures
    Each rank trains the same small MLP under DistributedDataParallel on its shard of a
    synthetic dataset (DistributedSampler) and profiles steps with
    schedule(wait=1, warmup=2, active=3). Each rank writes its own
    trace_rank<RANK>.pt.trace.json.gz, so a multi-rank analysis (stragglers, time spent
    waiting in collectives) can line the ranks up by step.

    Backend: nccl when CUDA is available (one GPU per local rank), gloo on the CPU.
    --backend gloo on CUDA runs more ranks than GPUs (ranks share GPUs round-robin; nccl
    refuses two ranks on one GPU), e.g. four ranks on a one-GPU machine.
    --slow-rank R --slow-ms M makes rank R do M ms of extra work per step, before its
    backward pass, so it becomes a straggler and its peers wait in the all-reduce.

How to run
    torchrun --standalone --nproc_per_node=2 examples/capture/ddp_per_rank.py --out build/ddp
    torchrun --standalone --nproc_per_node=8 examples/capture/ddp_per_rank.py --out build/ddp \
        --slow-rank 5 --slow-ms 20
    (python3 -m torch.distributed.run works where the torchrun command is not installed.)

    It writes <out>/trace_rank<RANK>.pt.trace.json.gz per rank (--no-gzip: .json).
    With Kineto the traces carry distributedInfo (rank, world_size, backend); Debian's
    torch 1.13 (no Kineto) writes the legacy bare array, where only the file name tells
    the rank.
"""

import argparse
import gzip
import os
import shutil
import sys
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.profiler import ProfilerActivity, profile, record_function, schedule
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

WAIT, WARMUP, ACTIVE = 1, 2, 3


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True, help="output folder (shared by all ranks)")
    p.add_argument("--steps", type=int, default=WAIT + WARMUP + ACTIVE)
    p.add_argument("--record-shapes", action="store_true")
    p.add_argument("--with-stack", action="store_true")
    p.add_argument("--profile-memory", action="store_true")
    p.add_argument("--dataloader-workers", type=int, default=0, metavar="N")
    p.add_argument("--item-per-step", action="store_true", help="call loss.item() every step")
    p.add_argument("--no-schedule", action="store_true",
                   help="record every step from the first one (warm-up included)")
    p.add_argument("--slow-rank", type=int, default=-1, help="rank that does extra work")
    p.add_argument("--slow-ms", type=float, default=20.0, help="extra work per step, ms")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--width", type=int, default=256)
    p.add_argument("--no-gzip", action="store_true")
    p.add_argument("--backend", choices=["nccl", "gloo"], default=None,
                   help="process group backend (default: nccl on CUDA, gloo on the CPU)")
    return p.parse_args(argv)


def busy_wait(ms):
    """Burn CPU for ms milliseconds (a stand-in for slow preprocessing)."""
    end = time.perf_counter() + ms / 1000.0
    x = 0
    while time.perf_counter() < end:
        x += 1
    return x


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if "RANK" not in os.environ:
        sys.exit("run me under torchrun, e.g. torchrun --standalone --nproc_per_node=2 %s --out DIR"
                 % sys.argv[0])
    use_cuda = torch.cuda.is_available()
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    backend = args.backend or ("nccl" if use_cuda else "gloo")
    gpu = local_rank % torch.cuda.device_count() if use_cuda else 0
    if use_cuda:
        torch.cuda.set_device(gpu)
    dist.init_process_group(backend=backend)
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", gpu) if use_cuda else torch.device("cpu")
    if not use_cuda:
        torch.set_num_threads(1)  # ranks share the cores

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(args.width, 2 * args.width), nn.ReLU(),
                          nn.Linear(2 * args.width, 2 * args.width), nn.ReLU(),
                          nn.Linear(2 * args.width, 10)).to(device)
    ddp = DDP(model, device_ids=[gpu] if use_cuda else None)
    opt = torch.optim.SGD(ddp.parameters(), lr=1e-2, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()

    n = args.steps * args.batch * world
    gen = torch.Generator().manual_seed(1)
    data = TensorDataset(torch.randn(n, args.width, generator=gen),
                         torch.randint(0, 10, (n,), generator=gen))
    loader = DataLoader(data, batch_size=args.batch, sampler=DistributedSampler(data, world, rank),
                        num_workers=args.dataloader_workers, pin_memory=use_cuda)

    suffix = ".pt.trace.json" + ("" if args.no_gzip else ".gz")
    path = os.path.join(args.out, "trace_rank%d%s" % (rank, suffix))

    def save(prof):
        os.makedirs(args.out, exist_ok=True)
        plain = path[:-3] if path.endswith(".gz") else path
        prof.export_chrome_trace(plain)  # the legacy exporter never compresses: do it here
        if plain != path:
            with open(plain, "rb") as src, gzip.open(path, "wb", compresslevel=9) as dst:
                shutil.copyfileobj(src, dst)
            os.remove(plain)

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if use_cuda else [])
    kwargs = dict(activities=activities, on_trace_ready=save, record_shapes=args.record_shapes,
                  with_stack=args.with_stack, profile_memory=args.profile_memory)
    if not args.no_schedule:
        kwargs["schedule"] = schedule(wait=WAIT, warmup=WARMUP, active=ACTIVE, repeat=1)

    batches = iter(loader)
    with profile(**kwargs) as prof:
        for step in range(args.steps):
            marker = record_function("ProfilerStep#%d" % step) if args.no_schedule else None
            if marker:
                marker.__enter__()
            x, y = next(batches)
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            loss = loss_fn(ddp(x), y)
            if rank == args.slow_rank:
                with record_function("slow_rank_extra_work"):
                    busy_wait(args.slow_ms)
            opt.zero_grad(set_to_none=True)
            loss.backward()  # DDP all-reduces gradient buckets during backward
            opt.step()
            if args.item_per_step:
                loss.item()
            if marker:
                marker.__exit__(None, None, None)
            prof.step()

    dist.barrier()
    if rank == 0:
        print("torch %s, backend %s, world %d: traces in %s"
              % (torch.__version__, dist.get_backend(), world, args.out))
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
