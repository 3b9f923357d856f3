"""GPU lab: capture Kineto traces of program shapes that gpu_nvtx.py's training loop does not have.

What it captures
    One CUDA program per --shape, profiled with torch.profiler (activities CPU and CUDA) under
    schedule(wait=1, warmup=2, active=3) unless said otherwise:
      decode      autoregressive generation with a KV cache, batch 1: each profiler step is
                  one token of a small decoder (hundreds of tiny kernels a step, launch-bound)
      convnet     a small residual conv net training in bf16 autocast, channels_last
                  (cuDNN convolution kernels, batch norm)
      prefetch    the transformer step with the next batch copied on a side stream while the
                  current one computes (copies that overlap compute: not a fault)
      nocache     the caching allocator off (PYTORCH_NO_CUDA_MEMORY_CACHING=1): cudaMalloc and
                  cudaFree in every step, and cudaFree waits for the device
      foreach_off Adam with foreach=False over many small parameters: a tail of tiny
                  optimizer kernels, one set per parameter
      lockstep    torch.cuda.synchronize() after every phase (the CPU never runs ahead)
      nosteps     no schedule and no prof.step(): the whole loop in one profile() block, no
                  ProfilerStep markers (users who profile "the loop" write this)
      long        the transformer step for --steps (default 40) active steps: a capture far
                  longer than a diagnosis needs
    and a switch that adds the fault of the decode loop users hit most:
      --item-per-step   decode: next_token.item() each token (a stop check); other shapes:
                        loss.item() each step

How to run (needs a CUDA GPU; refuses otherwise)
    python3 examples/capture/gpu_shapes.py --shape decode --out build/gpu_traces
    python3 examples/capture/gpu_shapes.py --shape decode --item-per-step --out build/gpu_traces

    It writes <name>.<unix-ms>.pt.trace.json.gz into --out and prints the path.
    --allow-cpu runs the same program on the CPU (CPU activity only): for checking the script
    on a machine without a GPU, not for traces.
"""

import argparse
import contextlib
import os
import sys
import time

if "--shape" in sys.argv and "nocache" in sys.argv:
    # read by the allocator when CUDA starts: must be set before torch initializes it
    os.environ["PYTORCH_NO_CUDA_MEMORY_CACHING"] = "1"

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.nn import functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402

from gpu_nvtx import Classifier  # noqa: E402  (the same transformer classifier)
from trace_files import trace_saver  # noqa: E402

WAIT, WARMUP, ACTIVE = 1, 2, 3
SHAPES = ("decode", "convnet", "prefetch", "nocache", "foreach_off", "lockstep", "nosteps",
          "long")


def attention(q, k, v, causal):
    if hasattr(F, "scaled_dot_product_attention"):  # torch >= 2.0: the fused kernels
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    scores = q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5
    if causal:
        scores = scores.masked_fill(torch.ones_like(scores, dtype=torch.bool).triu(1), -1e9)
    return scores.softmax(dim=-1) @ v


class DecoderBlock(nn.Module):
    """Pre-norm attention + MLP; attends over a KV cache grown one token at a time."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.up, self.down = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, cache):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        att = attention(q, k, v, causal=cache is None and t > 1)
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, d))
        x = x + self.down(F.gelu(self.up(self.norm2(x))))
        return x, (k, v)


class Decoder(nn.Module):
    def __init__(self, vocab, d, heads, layers):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList(DecoderBlock(d, heads) for _ in range(layers))
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens, caches):
        x = self.embed(tokens)
        new = []
        for block, cache in zip(self.blocks, caches):
            x, c = block(x, cache)
            new.append(c)
        return self.head(x[:, -1]), new


def conv_bn(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(conv_bn(c, c, 1), nn.Conv2d(c, c, 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(c))

    def forward(self, x):
        return F.relu(x + self.body(x))


def convnet(classes=100):
    return nn.Sequential(conv_bn(3, 64, 1), Residual(64), conv_bn(64, 128, 2), Residual(128),
                         conv_bn(128, 256, 2), Residual(256), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(256, classes))


class ManyParams(nn.Module):
    """Many small layers: what a model with hundreds of parameter tensors looks like to an
    optimizer that walks them one at a time."""

    def __init__(self, d, layers):
        super().__init__()
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(d, d), nn.LayerNorm(d))
                                    for _ in range(layers))

    def forward(self, x):
        for layer in self.layers:
            x = x + F.gelu(layer(x))
        return x.mean()


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--shape", required=True, choices=SHAPES)
    p.add_argument("--out", required=True, help="output folder for the trace")
    p.add_argument("--name", default=None, help="file name stem (default the shape)")
    p.add_argument("--steps", type=int, default=None, help="iterations (default: the schedule's 6; "
                   "long: 1 + 2 + 40; decode: tokens)")
    p.add_argument("--item-per-step", action="store_true")
    p.add_argument("--record-shapes", action="store_true")
    p.add_argument("--allow-cpu", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--no-gzip", action="store_true")
    return p.parse_args(argv)


def make_step(args, dev):
    """The program of one step for args.shape, as a function of the step index, plus whatever
    it needs built once."""
    amp = (torch.autocast(dev.type, dtype=torch.bfloat16) if dev.type == "cuda"
           else contextlib.nullcontext())
    shape = args.shape
    if shape == "decode":
        model = Decoder(vocab=8192, d=512, heads=8, layers=6).to(dev).eval()
        state = {}

        def step(i):
            with torch.no_grad(), torch.autocast(dev.type, dtype=torch.bfloat16,
                                                 enabled=dev.type == "cuda"):
                if i == 0 or "caches" not in state:  # the prompt: 128 tokens at once
                    prompt = torch.randint(0, 8192, (1, 128), device=dev)
                    logits, state["caches"] = model(prompt, [None] * len(model.blocks))
                else:
                    logits, state["caches"] = model(state["token"], state["caches"])
                state["token"] = logits.argmax(dim=-1, keepdim=True)
                if args.item_per_step and state["token"].item() == -1:  # the stop check
                    raise SystemExit("unreachable")
        return step

    if shape == "convnet":
        model = convnet().to(dev).to(memory_format=torch.channels_last)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        x = torch.randn(64, 3, 64, 64, pin_memory=dev.type == "cuda")
        y = torch.randint(0, 100, (64,))

        def step(i):
            xb = x.to(dev, non_blocking=True).to(memory_format=torch.channels_last)
            yb = y.to(dev, non_blocking=True)
            with amp:
                loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            if args.item_per_step:
                loss.item()
        return step

    if shape == "foreach_off":
        model = ManyParams(256, 48).to(dev)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
        x = torch.randn(256, 256, device=dev)

        def step(i):
            with record_function("## forward+backward ##"):
                opt.zero_grad(set_to_none=True)
                model(x).backward()
            with record_function("## optimizer ##"):
                opt.step()
            if args.item_per_step:
                model.layers[0][0].weight.sum().item()
        return step

    # the transformer classifier step, with the shape's twist
    model = Classifier(512, 8, 4, 10).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)
    pinned = dev.type == "cuda"
    host = [torch.randn(32, 128, 512, pin_memory=pinned) for _ in range(2)]
    labels = torch.randint(0, 10, (32,))
    side = torch.cuda.Stream() if dev.type == "cuda" and shape == "prefetch" else None
    sync = (torch.cuda.synchronize if dev.type == "cuda" else (lambda: None))
    state = {}

    def fetch(i):
        return host[i % 2].to(dev, non_blocking=True), labels.to(dev, non_blocking=True)

    def step(i):
        if side is not None:
            # the batch copied during the previous step; start the next one's copy now
            if "next" not in state:
                state["next"] = fetch(i)
            torch.cuda.current_stream().wait_stream(side)
            x, y = state["next"]
            with torch.cuda.stream(side):
                state["next"] = fetch(i + 1)
        else:
            x, y = fetch(i)
        with record_function("## forward ##"), amp:
            loss = F.cross_entropy(model(x), y)
        if shape == "lockstep":
            sync()
        with record_function("## backward ##"):
            opt.zero_grad(set_to_none=True)
            loss.backward()
        if shape == "lockstep":
            sync()
        with record_function("## optimizer ##"):
            opt.step()
        if shape == "lockstep":
            sync()
        if args.item_per_step:
            loss.item()
    return step


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if not torch.cuda.is_available() and not args.allow_cpu:
        sys.stderr.write("gpu_shapes.py needs a CUDA GPU and a CUDA build of torch "
                         "(torch %s here, torch.cuda.is_available() is False).\n" % torch.__version__)
        sys.exit(2)
    dev = torch.device("cuda", 0) if torch.cuda.is_available() else torch.device("cpu")
    torch.manual_seed(0)
    scheduled = args.shape != "nosteps"
    active = 40 if args.shape == "long" else (12 if args.shape == "decode" else ACTIVE)
    if args.steps:
        active = max(1, args.steps - WAIT - WARMUP)
    steps = WAIT + WARMUP + active
    step = make_step(args, dev)

    stem = args.name or args.shape
    save, written = trace_saver(args.out, stem, compress=not args.no_gzip)

    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dev.type == "cuda" else [])
    kwargs = dict(activities=activities, on_trace_ready=save, record_shapes=args.record_shapes)
    if scheduled:
        kwargs["schedule"] = schedule(wait=WAIT, warmup=WARMUP, active=active, repeat=1)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    t0 = time.time()
    if not scheduled:
        for i in range(WAIT + WARMUP):  # warm up outside the capture, as a careful user would
            step(i)
        sync()
        with profile(**kwargs):
            for i in range(WAIT + WARMUP, steps):
                step(i)
            sync()
    else:
        with profile(**kwargs) as prof:
            for i in range(steps):
                step(i)
                if i == steps - 1:
                    sync()  # the last traced step's kernels finish before the trace is saved
                prof.step()
    elapsed = time.time() - t0
    if not written:
        sys.exit("no trace was written")
    print("torch %s on %s, shape %s, %d steps in %.1f s" % (
        torch.__version__, torch.cuda.get_device_name(0) if dev.type == "cuda" else "CPU",
        args.shape, steps, elapsed))
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
