#!/usr/bin/env python3
"""Write synthetic, GPU-shaped PyTorch profiler (Kineto) traces, one planted pathology each.

Each trace is a small training loop (8 blocks of Linear + LayerNorm + GELU, a head, AdamW,
bf16 autocast on an H100) simulated event by event: a CPU main thread that runs the
Python loop, an autograd thread for backward, a compute stream and, for DDP, an NCCL
stream. Every launch is a cuda_runtime slice inside its cpu_op, joined to its GPU op by
`correlation` and an `ac2g` flow; GPU ops start when both the launch and the stream
allow, so waits, gaps and overlap come out of the timing model rather than being drawn.
Fields, categories and value shapes follow real Kineto traces (torch 2.x, CUDA 12).

Every pathology has a clean twin that differs only in that pathology: the same seed
drives per-phase random streams, so all other durations match.

    python3 examples/pathologies/generate.py                 # all, into examples/pathologies/gpu
    python3 examples/pathologies/generate.py --only gpu_item_sync --out build/gen
    python3 examples/pathologies/generate.py --list

Standard library only; the output is byte-for-byte deterministic for a given --seed.
It prints each trace's parameters and the facts measured back from the written events
(the numbers quoted in examples/pathologies/README.md).
"""

import argparse
import contextlib
import gzip
import io
import json
import math
import os
import random
import sys

# --------------------------------------------------------------------------- constants

COMPUTE, NCCL = 7, 20  # stream ids as Kineto numbers them on a typical run
T0 = 1718012345000000  # epoch microseconds (June 2024), the older Kineto style
N_SMS = 132
H100 = {
    "name": "NVIDIA H100 80GB HBM3", "totalGlobalMem": 85018279936, "computeMajor": 9,
    "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
    "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": N_SMS,
    "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448,
    "sharedMemPerMultiprocessor": 233472,
}
CBID = {"cudaLaunchKernel": 211, "cudaLaunchKernelExC": 430, "cudaMemcpyAsync": 41,
        "cudaMemsetAsync": 51, "cudaStreamSynchronize": 131, "cudaEventRecord": 135,
        "cudaStreamWaitEvent": 147}
DL_NAME = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"
ADAM_OPS = ["lerp_", "mul_", "addcmul_", "sqrt", "div_", "add_", "addcdiv_"]
BPE = {"lerp_": 12, "mul_": 8, "addcmul_": 16, "sqrt": 8, "div_": 8, "add_": 8,
       "addcdiv_": 16}  # fp32 bytes moved per element by each AdamW pass
HBM_BYTES_PER_US = 2.8e6  # ~2.8 TB/s achieved


def ew(fn, dt, arity=2):
    return ("void at::native::vectorized_elementwise_kernel<4, %s, std::array<char*, %dul> >"
            "(int, %s, std::array<char*, %dul>)" % (fn % {"t": dt}, arity, fn % {"t": dt}, arity))


def mta(functor, depth):
    meta = "at::native::(anonymous namespace)::TensorListMetadata<%d>" % depth
    return ("void at::native::(anonymous namespace)::multi_tensor_apply_kernel<%s, %s, float>"
            "(%s, %s, float)" % (meta, functor, meta, functor))


def kernel_names(dt):
    """Kernel names by role; dt is the activation dtype as CUDA templates spell it."""
    return {
        "ln": "void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<%s, float>"
              "(int, float, %s const*, %s const*, %s const*, float*, float*, %s*)" % ((dt,) * 5),
        "ln_bwd_in": "void at::native::(anonymous namespace)::layer_norm_grad_input_kernel_"
                     "vectorized<%s, float>(%s const*, %s const*, float const*, float const*, "
                     "%s const*, %s*, int)" % ((dt,) * 5),
        "ln_bwd_gb": "void at::native::(anonymous namespace)::GammaBetaBackwardCUDAKernel_32x32"
                     "<%s, float>(long, long, %s const*, %s const*, float const*, float const*, "
                     "%s*, %s*)" % ((dt,) * 5),
        "gelu": ew("at::native::GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::GeluType)"
                   "::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::"
                   "{lambda(%(t)s)#1}", dt),
        "gelu_bwd": ew("at::native::GeluBackwardCUDAKernelImpl(at::TensorIteratorBase&, "
                       "at::native::GeluType)::{lambda()#2}::operator()() const::{lambda()#2}::"
                       "operator()() const::{lambda(%(t)s, %(t)s)#1}", dt, 3),
        "bias_sum": "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<%s, "
                    "at::native::func_wrapper_t<float, at::native::sum_functor<%s, float, %s>::"
                    "operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
                    "%s, 4> >(at::native::ReduceOp<%s, at::native::func_wrapper_t<float, "
                    "at::native::sum_functor<%s, float, %s>::operator()(at::TensorIterator&)::"
                    "{lambda(float, float)#1}>, unsigned int, %s, 4>)" % ((dt,) * 8),
        "fill": ew("at::native::FillFunctor<%(t)s>", "float", 1),
        "log_softmax": "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, "
                       "float, float, at::native::(anonymous namespace)::"
                       "LogSoftMaxForwardEpilogue>(float*, float const*, int)",
        "log_softmax_bwd": "void at::native::(anonymous namespace)::cunn_SoftMaxBackward<4, "
                           "float, float, float, at::native::(anonymous namespace)::"
                           "LogSoftMaxBackwardEpilogue>(float*, float const*, float const*, "
                           "long)",
        "nll": "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d"
               "<float, long>(float*, float*, float const*, long const*, float const*, bool, "
               "long, long, long, long)",
        "nll_bwd": "void at::native::(anonymous namespace)::nll_loss_backward_reduce_cuda_"
                   "kernel_2d<float, long>(float*, float const*, long const*, float const*, "
                   "float const*, bool, int, int, long, long)",
    }


GEMM_TC = {  # bf16 tensor-core kernels as cuBLAS 12 picks them on sm_90
    "fwd": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_"
           "execute_segment_k_off_kernel__5x_cublas",
    "dgrad": "nvjet_tst_256x128_64x4_2x1_v_bz_coopA_NNN",
    "wgrad": "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x256x64_warpgroupsize2x1x1_"
             "execute_segment_k_off_kernel__5x_cublas",
}
GEMM_FP32 = {  # fp32 SIMT kernels: what runs with autocast off and TF32 disabled
    "fwd": "ampere_sgemm_128x64_tn",
    "dgrad": "ampere_sgemm_128x64_nn",
    "wgrad": "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x64_8x5_nt_align1>"
             "(cutlass_80_simt_sgemm_128x64_8x5_nt_align1::Params)",
}
ADAM_SINGLE = {  # one small elementwise kernel per parameter per pass
    "lerp_": ew("at::native::lerp_kernel_scalar_weight(at::TensorIteratorBase&, c10::Scalar "
                "const&)::{lambda()#1}::operator()() const::{lambda()#2}::operator()() const::"
                "{lambda(%(t)s, %(t)s)#1}", "float", 3),
    "mul_": ew("at::native::AUnaryFunctor<%(t)s, %(t)s, %(t)s, "
               "at::native::binary_internal::MulFunctor<%(t)s> >", "float"),
    "addcmul_": ew("at::native::addcmul_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)"
                   "::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::"
                   "{lambda(%(t)s, %(t)s, %(t)s)#1}", "float", 4),
    "sqrt": ew("at::native::sqrt_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()"
               "() const::{lambda()#2}::operator()() const::{lambda(%(t)s)#1}", "float"),
    "div_": ew("at::native::AUnaryFunctor<%(t)s, %(t)s, %(t)s, "
               "at::native::binary_internal::DivFunctor<%(t)s> >", "float"),
    "add_": ew("at::native::CUDAFunctorOnSelf_add<%(t)s>", "float"),
    "addcdiv_": ew("at::native::addcdiv_cuda_kernel(at::TensorIteratorBase&, c10::Scalar const&)"
                   "::{lambda()#1}::operator()() const::{lambda()#4}::operator()() const::"
                   "{lambda(%(t)s, %(t)s, %(t)s)#1}", "float", 4),
}
ADAM_FOREACH = {  # multi_tensor_apply kernels of the foreach implementation
    "lerp_": mta("at::native::(anonymous namespace)::TernaryOpScalarFunctor<float, 2, 2, 0>, "
                 "at::native::LerpFunctor<float>", 2),
    "mul_": mta("at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, "
                "std::multiplies<float>", 1),
    "addcmul_": mta("at::native::(anonymous namespace)::PointwiseOpScalarFunctor<float, 3, 3, 0>,"
                    " std::multiplies<float>", 3),
    "sqrt": mta("at::native::(anonymous namespace)::UnaryOpFunctor<float, 2, 1, 1>, "
                "at::native::Sqrt<float>", 2),
    "div_": mta("at::native::(anonymous namespace)::BinaryOpScalarListFunctor<float, 1, 1, 0>, "
                "std::divides<float>", 1),
    "add_": mta("at::native::(anonymous namespace)::BinaryOpScalarFunctor<float, 1, 1, 0>, "
                "std::plus<float>", 1),
    "addcdiv_": mta("at::native::(anonymous namespace)::PointwiseOpScalarFunctor<float, 3, 3, 0>,"
                    " std::divides<float>", 3),
}
NCCL_KERNEL = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"

# launch geometry by role: grid, block, registers, shared memory, max resident blocks per SM
GEOM = {
    "gemm_tc": ([128, 1, 1], [384, 1, 1], 168, 231424, 1),
    "gemm_fp32": ([32, 16, 1], [128, 1, 1], 122, 12544, 4),
    "ew": ([16384, 1, 1], [128, 1, 1], 26, 0, 16),
    "ew_tiny": ([2, 1, 1], [128, 1, 1], 24, 0, 16),
    "norm": ([4096, 1, 1], [256, 1, 1], 40, 0, 8),
    "reduce": ([256, 1, 1], [512, 1, 1], 32, 16, 4),
    "softmax": ([4096, 1, 1], [1024, 1, 1], 36, 0, 2),
    "mta": ([320, 1, 1], [512, 1, 1], 32, 0, 4),
    "nccl": ([24, 1, 1], [640, 1, 1], 96, 41744, 1),
}

# ------------------------------------------------------------------------ configuration

BASE = {
    "steps": 6, "first_step": 10, "layers": 8, "d_model": 2048,
    "py_gap_us": 55,            # Python time between top-level ops of the loop
    "engine_gap_us": 6,         # autograd engine time between backward nodes
    "launch_us": (4, 7),        # cudaLaunchKernel duration range
    "dataloader_us": 120,       # _MultiProcessingDataLoaderIter.__next__, workers keep up
    "dataloader_share": None,   # when set: __next__ sized to this share of the host step
    "batch_bytes": 16 << 20, "label_bytes": 32 << 10,
    "pinned": True, "pinned_gbps": 48.0, "pageable_gbps": 5.5,
    "tensor_cores": True, "fp32_gemm_factor": 4.0,
    "gemm_us": {"fwd": 150, "dgrad": 150, "wgrad": 140, "head": 40},
    "ew_us": {"ln": 20, "gelu": 16, "ln_bwd_in": 30, "ln_bwd_gb": 14, "gelu_bwd": 20,
              "bias_sum": 10},
    "foreach": True,
    "item_per_step": False,
    "ddp": None,                # None | "overlap" | "after"
    "world": 1, "nccl_algbw_gbps": 150.0,
    "slow_rank": None, "slow_compute": 1.0, "slow_dataloader_us": 0,
    "slow_stall_us": 0,         # slow rank: after each of the first layers' forward, a
                                # loss.item()-style sync, then host work this long
    "slow_stalls": 0,           # how many such stalls per step
}

SINGLE = {
    "gpu_dataloader_stall": ("gpu_clean", {"dataloader_share": 0.30}),
    "gpu_item_sync": ("gpu_clean", {"item_per_step": True}),
    "gpu_launch_bound": ("gpu_clean_foreach", {"foreach": False}),
    "gpu_pageable_htod": ("gpu_clean", {"pinned": False}),
    "gpu_nccl_not_overlapped": ("gpu_clean_ddp_overlap", {"ddp": "after"}),
    "gpu_no_tensor_cores": ("gpu_clean", {"tensor_cores": False}),
}
CLEAN = {
    "gpu_clean": {},
    "gpu_clean_foreach": {"layers": 16, "steps": 5},
    "gpu_clean_ddp_overlap": {"ddp": "overlap", "world": 8},
}
MULTI = {
    "straggler_clean": {"ddp": "overlap", "world": 8, "layers": 4, "steps": 5},
    "straggler_compute": {"ddp": "overlap", "world": 8, "layers": 4, "steps": 5,
                          "slow_rank": 5, "slow_compute": 1.35},
    "straggler_dataloader": {"ddp": "overlap", "world": 8, "layers": 4, "steps": 5,
                             "slow_rank": 5, "slow_dataloader_us": 2500},
    "straggler_idle_gaps": {"ddp": "overlap", "world": 8, "layers": 4, "steps": 5,
                            "slow_rank": 5, "slow_stall_us": 400, "slow_stalls": 3},
}
PATHOLOGY_TEXT = {
    "gpu_dataloader_stall": "DataLoader __next__ ~30% of each step; the GPU idles meanwhile",
    "gpu_item_sync": "loss.item() each step: DtoH copy of 4 B + cudaStreamSynchronize",
    "gpu_launch_bound": "AdamW(foreach=False): thousands of 2-4 us kernels, host-wait gaps",
    "gpu_pageable_htod": "batch copied from pageable memory: slow, blocking HtoD",
    "gpu_nccl_not_overlapped": "gradient all-reduce after backward, not overlapped",
    "gpu_no_tensor_cores": "fp32 SIMT sgemm on sm_90: no tensor-core kernels",
}


def config(name):
    cfg = dict(BASE)
    if name in SINGLE:
        base, delta = SINGLE[name]
        cfg.update(CLEAN[base])
        cfg.update(delta)
    elif name in CLEAN:
        cfg.update(CLEAN[name])
    else:
        cfg.update(MULTI[name])
    return cfg


# ------------------------------------------------------------------------- simulation


class Thread:
    """A CPU thread: a cursor in microseconds and a stack of open ops."""

    def __init__(self, sim, tid, t):
        self.sim, self.tid, self.t, self.stack = sim, tid, t, []

    @contextlib.contextmanager
    def op(self, name, cat="cpu_op", pre=3, post=2, args=None):
        start = self.t
        self.t += pre
        ext = self.sim.next_ext()
        self.stack.append(ext)
        try:
            yield ext
        finally:
            self.stack.pop()
            self.t += post
            a = {"External id": ext}
            a.update(args or {})
            self.sim.x(cat, name, self.sim.pid, self.tid, start, self.t - start, a)

    def busy(self, us):
        self.t += max(0, int(round(us)))

    def ext(self):
        return self.stack[-1] if self.stack else 0


class Rank:
    """One process: its CPU threads, its GPU streams and the events they produce."""

    def __init__(self, cfg, seed, rank, t0):
        self.cfg, self.seed, self.rank = cfg, seed, rank
        self.pid = 31200 + 97 * rank
        self.device = rank
        self.events = []
        self._ext = 0
        self._corr = 1000 + 500000 * rank
        self.main = Thread(self, self.pid, t0)
        self.bwd = Thread(self, self.pid + 211, t0)
        self.free = {COMPUTE: t0, NCCL: t0}
        self.rng = random.Random(0)
        self.slow = rank == cfg["slow_rank"]
        dt = "c10::BFloat16" if cfg["tensor_cores"] else "float"
        self.k = kernel_names(dt)
        self.gemm = GEMM_TC if cfg["tensor_cores"] else GEMM_FP32
        self.step_no = 0

    # ids and jitter
    def next_ext(self):
        self._ext += 1
        return self._ext

    def next_corr(self):
        self._corr += 1
        return self._corr

    def phase(self, step, name):
        """Reseed per (rank, step, phase) so twins share every duration they have in common."""
        self.rng = random.Random("%d/%d/%d/%s" % (self.seed, self.rank, step, name))

    @contextlib.contextmanager
    def side_rng(self, key):
        """A separate random stream for optional work (collectives), so adding or moving it
        leaves the phase's other durations unchanged."""
        saved = self.rng
        self.rng = random.Random("%d/%d/%s" % (self.seed, self.rank, key))
        try:
            yield
        finally:
            self.rng = saved

    def j(self, us, pct=0.05):
        return max(1, int(round(us * (1.0 + self.rng.uniform(-pct, pct)))))

    def gap(self, th, scale=1.0):
        th.busy(self.j(self.cfg["py_gap_us"] * scale, 0.3))

    # event writers
    def x(self, cat, name, pid, tid, ts, dur, args):
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid,
                            "ts": ts, "dur": dur, "args": args})

    def flow(self, corr, cpu_tid, cpu_ts, stream, gpu_ts):
        self.events.append({"ph": "s", "id": corr, "pid": self.pid, "tid": cpu_tid,
                            "ts": cpu_ts, "cat": "ac2g", "name": "ac2g"})
        self.events.append({"ph": "f", "id": corr, "pid": self.device, "tid": stream,
                            "ts": gpu_ts, "cat": "ac2g", "name": "ac2g", "bp": "e"})

    def runtime(self, th, name, dur, corr=None):
        corr = corr or self.next_corr()
        self.x("cuda_runtime", name, self.pid, th.tid, th.t, dur,
               {"External id": th.ext(), "cbid": CBID[name], "correlation": corr})
        th.t += dur
        return corr

    def kernel_args(self, th, corr, stream, role):
        grid, block, regs, smem, max_blocks = GEOM[role]
        blocks = grid[0] * grid[1] * grid[2] / float(N_SMS)
        warps_per_block = math.ceil(block[0] * block[1] * block[2] / 32.0)
        occ = min(100, int(round(min(blocks, max_blocks) * warps_per_block / 64.0 * 100)))
        return {"External id": th.ext(), "queued": 0, "device": self.device, "context": 1,
                "stream": stream, "correlation": corr, "registers per thread": regs,
                "shared memory": smem, "blocks per SM": round(blocks, 6),
                "warps per SM": round(blocks * warps_per_block, 6), "grid": grid,
                "block": block, "est. achieved occupancy %": occ}

    def launch(self, th, name, dur, role, stream=COMPUTE, api="cudaLaunchKernel", extra=None):
        """cudaLaunchKernel on th, kernel on stream; returns (start, end) of the kernel."""
        rt = self.j(sum(self.cfg["launch_us"]) / 2.0, 0.25)
        call = th.t
        corr = self.runtime(th, api, rt)
        start = max(call + rt + 1, self.free[stream])
        args = self.kernel_args(th, corr, stream, role)
        args.update(extra or {})
        self.x("kernel", name, self.device, stream, start, dur, args)
        self.flow(corr, th.tid, call, stream, start)
        self.free[stream] = start + dur
        return start, start + dur

    def compute(self, th, name, us, role):
        f = self.cfg["slow_compute"] if self.slow else 1.0
        return self.launch(th, name, self.j(us * f), role)

    def memcpy(self, th, kind, nbytes, gbps, blocking):
        call = th.t
        corr = self.next_corr()
        dur = max(1, int(round(nbytes / (gbps * 1e3))))
        start = max(call + 4, self.free[COMPUTE])
        end = start + dur
        rt = (end + 3 - call) if blocking else self.j(9, 0.2)
        self.runtime(th, "cudaMemcpyAsync", rt, corr)
        self.x("gpu_memcpy", "Memcpy " + kind, self.device, COMPUTE, start, dur,
               {"External id": th.ext(), "device": self.device, "context": 1,
                "stream": COMPUTE, "correlation": corr, "bytes": nbytes,
                "memory bandwidth (GB/s)": nbytes / (dur * 1e3)})
        self.flow(corr, th.tid, call, COMPUTE, start)
        self.free[COMPUTE] = end

    def memset(self, th, nbytes):
        call = th.t
        corr = self.runtime(th, "cudaMemsetAsync", self.j(5, 0.2))
        start = max(call + 6, self.free[COMPUTE])
        self.x("gpu_memset", "Memset (Device)", self.device, COMPUTE, start, 1,
               {"External id": th.ext(), "device": self.device, "context": 1,
                "stream": COMPUTE, "correlation": corr, "bytes": nbytes,
                "memory bandwidth (GB/s)": nbytes / 1e3})
        self.flow(corr, th.tid, call, COMPUTE, start)
        self.free[COMPUTE] = start + 1

    def stream_wait(self, th, waiter, on):
        """cudaEventRecord on `on`, cudaStreamWaitEvent on `waiter`."""
        ready = self.free[on]
        self.runtime(th, "cudaEventRecord", self.j(3, 0.3))
        self.runtime(th, "cudaStreamWaitEvent", self.j(3, 0.3))
        self.free[waiter] = max(self.free[waiter], ready)

    # collectives (generators: the driver answers with the end time)
    def all_reduce(self, th, step, bucket, nbytes):
        cfg = self.cfg
        ranks = "[%s]" % ", ".join(str(r) for r in range(cfg["world"]))
        nelems = nbytes // 4
        coll = {"Collective name": "allreduce", "In msg nelems": nelems,
                "Out msg nelems": nelems, "Group size": cfg["world"], "dtype": "Float",
                "In split size": "[]", "Out split size": "[]", "Process Group Name": "0",
                "Process Group Description": "default_pg", "Process Group Ranks": ranks}
        rpc = dict(coll, Rank=self.rank)
        with self.side_rng("allreduce/%d/%d" % (step, bucket)), th.op("c10d::allreduce_"):
            th.busy(self.j(8))
            with th.op("record_param_comms", args=rpc):
                with th.op("nccl:all_reduce", "user_annotation"):
                    self.stream_wait(th, NCCL, COMPUTE)
                    rt = self.j(9, 0.2)
                    call = th.t
                    corr = self.runtime(th, "cudaLaunchKernelExC", rt)
                    start = max(call + rt + 1, self.free[NCCL])
                    end = yield ("all_reduce", (step, bucket), start, nbytes)
                    args = self.kernel_args(th, corr, NCCL, "nccl")
                    args.update(coll)
                    self.x("kernel", NCCL_KERNEL, self.device, NCCL, start, end - start, args)
                    self.flow(corr, th.tid, call, NCCL, start)
                    self.free[NCCL] = end
                th.busy(self.j(6))
            th.busy(self.j(10))

    # ------------------------------------------------------------------ the training step

    def params(self):
        """(name, elements) for every parameter, backward order is the reverse."""
        d = self.cfg["d_model"]
        out = []
        for i in range(self.cfg["layers"]):
            out += [("blocks.%d.fc.weight" % i, d * d), ("blocks.%d.fc.bias" % i, d),
                    ("blocks.%d.norm.weight" % i, d), ("blocks.%d.norm.bias" % i, d)]
        out += [("head.weight", d * 16), ("head.bias", 16)]
        return out

    def step(self, n):
        cfg, m = self.cfg, self.main
        self.phase(n, "loop")
        with m.op("ProfilerStep#%d" % n, "user_annotation"):
            self.gap(m)
            self.phase(n, "data")
            dl = cfg["dataloader_us"]
            if self.slow:
                dl += cfg["slow_dataloader_us"]
            with m.op(DL_NAME, "user_annotation"):
                m.busy(self.j(dl, 0.15))
            self.gap(m)
            self.copy_batch(m)
            self.phase(n, "forward")
            with m.op("Optimizer.zero_grad#AdamW.zero_grad", "user_annotation"):
                m.busy(self.j(25))
            self.gap(m)
            self.forward(m)
            self.phase(n, "backward")
            yield from self.backward(n)
            self.phase(n, "comm")
            if cfg["ddp"] == "after":
                for b, nbytes in enumerate(self.bucket_bytes()):
                    yield from self.all_reduce(m, n, b, nbytes)
                    self.gap(m, 0.3)
                with self.side_rng("finalize/%d" % n):
                    self.stream_wait(m, COMPUTE, NCCL)
            self.phase(n, "optimizer")
            self.gap(m)
            self.optimizer(m)
            if cfg["item_per_step"]:
                self.phase(n, "item")
                self.gap(m)
                self.item(m)
            self.phase(n, "tail")
            self.gap(m)

    def copy_batch(self, m):
        cfg = self.cfg
        src = "Pinned" if cfg["pinned"] else "Pageable"
        gbps = cfg["pinned_gbps"] if cfg["pinned"] else cfg["pageable_gbps"]
        for nbytes in (cfg["batch_bytes"], cfg["label_bytes"]):
            with m.op("aten::to"):
                with m.op("aten::_to_copy"):
                    with m.op("aten::empty_strided"):
                        m.busy(self.j(6))
                    with m.op("aten::copy_"):
                        m.busy(self.j(4))
                        # pageable sources make cudaMemcpyAsync wait for the copy (and for the
                        # stream ahead of it); pinned + non_blocking returns at once
                        self.memcpy(m, "HtoD (%s -> Device)" % src, nbytes, gbps,
                                    blocking=not cfg["pinned"])
            self.gap(m, 0.5)

    def forward(self, m):
        cfg, k, g = self.cfg, self.k, self.gemm
        gm = 1.0 if cfg["tensor_cores"] else cfg["fp32_gemm_factor"]
        us = cfg["ew_us"]
        for layer in range(cfg["layers"]):
            with m.op("aten::linear"):
                with m.op("aten::t"):
                    m.busy(self.j(4))
                with m.op("aten::addmm"):
                    m.busy(self.j(10))
                    self.compute(m, g["fwd"], cfg["gemm_us"]["fwd"] * gm,
                                 "gemm_tc" if cfg["tensor_cores"] else "gemm_fp32")
            self.gap(m)
            with m.op("aten::layer_norm"):
                with m.op("aten::native_layer_norm"):
                    m.busy(self.j(9))
                    self.compute(m, k["ln"], us["ln"], "norm")
            self.gap(m)
            with m.op("aten::gelu"):
                m.busy(self.j(6))
                self.compute(m, k["gelu"], us["gelu"], "ew")
            self.gap(m)
            if self.slow and layer < cfg["slow_stalls"]:
                # the GPU drains at the sync, then idles while the host works
                self.item(m)
                m.busy(self.j(cfg["slow_stall_us"], 0.1))
        with m.op("aten::linear"):
            with m.op("aten::t"):
                m.busy(self.j(4))
            with m.op("aten::addmm"):
                m.busy(self.j(10))
                self.compute(m, g["fwd"], cfg["gemm_us"]["head"] * gm,
                             "gemm_tc" if cfg["tensor_cores"] else "gemm_fp32")
        self.gap(m)
        with m.op("aten::cross_entropy_loss"):
            with m.op("aten::log_softmax"):
                with m.op("aten::_log_softmax"):
                    m.busy(self.j(6))
                    self.compute(m, k["log_softmax"], 6, "softmax")
            with m.op("aten::nll_loss_nd"):
                with m.op("aten::nll_loss"):
                    with m.op("aten::nll_loss_forward"):
                        with m.op("aten::zeros"):
                            with m.op("aten::zero_"):
                                self.memset(m, 4)
                        m.busy(self.j(5))
                        self.compute(m, k["nll"], 4, "reduce")
        self.gap(m)

    def bucket_bytes(self):
        """DDP buckets of fp32 gradients in the order backward fills them: parameters in
        reverse, a bucket closes once it reaches its cap (1 MiB for the first, 25 MiB after),
        as DistributedDataParallel assigns them."""
        out, acc = [], 0
        for _, elems in reversed(self.params()):
            acc += 4 * elems
            if acc >= (1 << 20 if not out else 25 << 20):
                out.append(acc)
                acc = 0
        if acc:
            out.append(acc)
        return out

    def backward(self, n):
        cfg, k, g, m, b = self.cfg, self.k, self.gemm, self.main, self.bwd
        gm = 1.0 if cfg["tensor_cores"] else cfg["fp32_gemm_factor"]
        role = "gemm_tc" if cfg["tensor_cores"] else "gemm_fp32"
        us = cfg["ew_us"]
        with m.op("aten::ones_like"):
            with m.op("aten::fill_"):
                m.busy(self.j(4))
                self.compute(m, k["fill"], 2, "ew_tiny")
        self.gap(m, 0.5)
        b.t = max(b.t, m.t) + self.j(15)

        def node(name, work):
            with b.op("autograd::engine::evaluate_function: " + name, pre=5, post=3):
                with b.op(name):
                    work()
            b.busy(self.j(cfg["engine_gap_us"], 0.3))

        def accumulate():
            node("torch::autograd::AccumulateGrad", lambda: b.busy(self.j(5)))

        def addmm_bwd(dgrad_us, wgrad_us):
            with b.op("aten::t"):
                b.busy(self.j(3))
            with b.op("aten::mm"):
                b.busy(self.j(8))
                self.compute(b, g["dgrad"], dgrad_us * gm, role)
            with b.op("aten::t"):
                b.busy(self.j(3))
            with b.op("aten::mm"):
                b.busy(self.j(8))
                self.compute(b, g["wgrad"], wgrad_us * gm, role)
            with b.op("aten::sum"):
                b.busy(self.j(7))
                self.compute(b, k["bias_sum"], us["bias_sum"], "reduce")

        def nll():
            with b.op("aten::nll_loss_backward"):
                with b.op("aten::zero_"):
                    b.busy(self.j(3))
                    self.compute(b, k["fill"], 2, "ew_tiny")
                self.compute(b, k["nll_bwd"], 3, "reduce")

        def lsm():
            with b.op("aten::_log_softmax_backward_data"):
                b.busy(self.j(5))
                self.compute(b, k["log_softmax_bwd"], 6, "softmax")

        node("NllLossBackward0", nll)
        node("LogSoftmaxBackward0", lsm)
        node("AddmmBackward0", lambda: addmm_bwd(cfg["gemm_us"]["head"],
                                                 cfg["gemm_us"]["head"]))
        accumulate()
        accumulate()

        buckets = self.bucket_bytes()
        grads = [4 * e for _, e in reversed(self.params())]
        acc, gi, bucket = sum(grads[:2]), 2, 0  # the head's two gradients are ready
        for _ in range(cfg["layers"]):
            def gelu_bwd():
                with b.op("aten::gelu_backward"):
                    b.busy(self.j(5))
                    self.compute(b, k["gelu_bwd"], us["gelu_bwd"], "ew")

            def ln_bwd():
                with b.op("aten::native_layer_norm_backward"):
                    b.busy(self.j(8))
                    self.compute(b, k["ln_bwd_in"], us["ln_bwd_in"], "norm")
                    self.compute(b, k["ln_bwd_gb"], us["ln_bwd_gb"], "reduce")

            node("GeluBackward0", gelu_bwd)
            node("NativeLayerNormBackward0", ln_bwd)
            accumulate()
            accumulate()
            node("AddmmBackward0", lambda: addmm_bwd(cfg["gemm_us"]["dgrad"],
                                                     cfg["gemm_us"]["wgrad"]))
            accumulate()
            accumulate()
            acc += sum(grads[gi:gi + 4])
            gi += 4
            # DDP: a bucket is all-reduced as soon as its last gradient is ready
            while (cfg["ddp"] == "overlap" and bucket < len(buckets)
                   and acc >= buckets[bucket]):
                acc -= buckets[bucket]
                yield from self.all_reduce(b, n, bucket, buckets[bucket])
                bucket += 1
        if cfg["ddp"] == "overlap":
            while bucket < len(buckets):  # a last, partly filled bucket
                yield from self.all_reduce(b, n, bucket, buckets[bucket])
                bucket += 1
            # Reducer finalize: the compute stream waits for the last all-reduce
            with self.side_rng("finalize/%d" % n):
                self.stream_wait(b, COMPUTE, NCCL)
        m.t = max(m.t, b.t) + self.j(12)

    def optimizer(self, m):
        cfg = self.cfg
        params = self.params()
        with m.op("Optimizer.step#AdamW.step", "user_annotation"):
            m.busy(self.j(30))
            if cfg["foreach"]:
                total = sum(e for _, e in params)
                chunks = max(1, int(math.ceil(total / float(320 * 65536))))
                for opname in ADAM_OPS:
                    with m.op("aten::_foreach_" + opname, pre=6, post=4):
                        m.busy(self.j(25))
                        per = total * BPE[opname] / HBM_BYTES_PER_US / chunks
                        for _ in range(chunks):
                            self.launch(m, ADAM_FOREACH[opname], self.j(per + 3), "mta")
                            m.busy(self.j(4))
                    m.busy(self.j(8))
            else:
                for _, elems in params:
                    for opname in ADAM_OPS:
                        with m.op("aten::" + opname, pre=4, post=2):
                            m.busy(self.j(7))
                            dur = 2 + elems * BPE[opname] / HBM_BYTES_PER_US
                            role = "ew_tiny" if elems < 65536 else "ew"
                            if elems < 65536:
                                dur = self.rng.choice((2, 3, 3, 4))
                            self.launch(m, ADAM_SINGLE[opname], self.j(dur), role)
                        m.busy(self.j(5, 0.3))  # the Python loop body between ops
            m.busy(self.j(15))

    def item(self, m):
        with m.op("aten::item"):
            with m.op("aten::_local_scalar_dense"):
                m.busy(self.j(4))
                self.memcpy(m, "DtoH (Device -> Pageable)", 4, 0.002, blocking=False)
                wait = max(self.free[COMPUTE] + 4, m.t + self.j(4)) - m.t
                self.runtime(m, "cudaStreamSynchronize", wait)

    # ------------------------------------------------------------------------ output

    def document(self, name, world):
        cfg = self.cfg
        meta = []
        ts0 = min(e["ts"] for e in self.events) - 20

        def m(pid, tid, key, args):
            meta.append({"name": key, "ph": "M", "ts": ts0, "pid": pid, "tid": tid,
                         "args": args})

        m(self.pid, 0, "process_name", {"name": "python3"})
        m(self.pid, 0, "process_labels", {"labels": "CPU"})
        m(self.pid, 0, "process_sort_index", {"sort_index": self.pid})
        m(self.device, 0, "process_name", {"name": "python3"})
        m(self.device, 0, "process_labels", {"labels": "GPU %d" % self.device})
        m(self.device, 0, "process_sort_index", {"sort_index": 16777216 + self.device})
        streams = sorted({e["tid"] for e in self.events if e["pid"] == self.device})
        for s in streams:
            m(self.device, s, "thread_name", {"name": "stream %d " % s})
            m(self.device, s, "thread_sort_index", {"sort_index": s})
        for tid in (self.main.tid, self.bwd.tid):
            m(self.pid, tid, "thread_name", {"name": "thread %d (python3)" % tid})
            m(self.pid, tid, "thread_sort_index", {"sort_index": tid})
        m("Spans", 0, "process_sort_index", {"sort_index": 536870912})
        body = sorted(self.events, key=lambda e: (e["ts"], 0 if e["ph"] == "X" else 1,
                                                  -e.get("dur", 0)))
        end = max(e["ts"] + e.get("dur", 0) for e in body)
        tail = [
            {"ph": "X", "cat": "Trace", "ts": ts0, "dur": end - ts0 + 10, "pid": "Spans",
             "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)",
             "args": {"Op count": 0}},
            {"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g",
             "pid": "Traces", "tid": "Trace PyTorch Profiler", "ts": ts0},
            {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "",
             "ts": end + 10},
        ]
        devices = [dict([("id", i)] + list(H100.items())) for i in range(world)]
        if world > 1:
            dist = {"backend": "nccl", "rank": self.rank, "world_size": world,
                    "pg_count": 1, "nccl_version": "2.21.5"}
        else:
            dist = {"rank": 0}
        return {"schemaVersion": 1, "deviceProperties": devices, "distributedInfo": dist,
                "cuda_runtime_version": 12040, "cuda_driver_version": 12040,
                "traceEvents": meta + body + tail,
                "traceName": "generated/%s/rank%d.pt.trace.json" % (name, self.rank)}


def simulate(cfg, seed):
    """Run all ranks in lockstep; collectives end when the last rank has arrived."""
    world = cfg["world"]
    ranks = [Rank(cfg, seed, r, T0 + 40 + 13 * r) for r in range(world)]

    def loop(rank):
        for i in range(cfg["steps"]):
            yield from rank.step(cfg["first_step"] + i)

    gens = [loop(r) for r in ranks]
    pending = [next(g, None) for g in gens]
    while any(p is not None for p in pending):
        assert all(p is not None for p in pending), "ranks out of step"
        keys = {p[1] for p in pending}
        assert len(keys) == 1, "ranks disagree on the collective: %r" % keys
        (step, bucket), nbytes = pending[0][1], pending[0][3]
        last = max(p[2] for p in pending)
        rng = random.Random("%d/coll/%d/%d" % (seed, step, bucket))
        # ring all-reduce moves 2(n-1)/n of the buffer over the slowest link
        transfer = int(round(nbytes * 2 * (world - 1) / world
                             / (cfg["nccl_algbw_gbps"] * 1e3) * rng.uniform(0.97, 1.03)))
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


# ------------------------------------------------------------------------ measurement


def measure(doc):
    """Facts a reader should find, computed from the written events only."""
    ev = doc["traceEvents"]
    steps = sorted((e for e in ev if e.get("cat") == "user_annotation"
                    and e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])
    gpu = [e for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    by_corr = {e["args"]["correlation"]: e for e in gpu}
    runtime = [e for e in ev if e.get("cat") == "cuda_runtime"]
    out = {"steps": len(steps)}
    host = [s["dur"] for s in steps]
    out["host_step_ms"] = sum(host) / len(host) / 1e3
    # device-adjusted step bounds (TB plugin): host start/end stretched to the GPU work
    adj, prev_end = [], None
    for s in steps:
        a, b = s["ts"], s["ts"] + s["dur"]
        last = b
        for r in runtime:
            if a <= r["ts"] < b and r["args"]["correlation"] in by_corr:
                g = by_corr[r["args"]["correlation"]]
                last = max(last, g["ts"] + g["dur"])
        start = a if prev_end is None else max(prev_end, a)
        adj.append((start, last))
        prev_end = last
    out["step_ms"] = sum(b - a for a, b in adj) / len(adj) / 1e3
    lo, hi = adj[0][0], adj[-1][1]

    def union(ivals):
        tot, cur_a, cur_b = 0, None, None
        for a, b in sorted(ivals):
            if cur_b is None or a > cur_b:
                if cur_b is not None:
                    tot += cur_b - cur_a
                cur_a, cur_b = a, b
            else:
                cur_b = max(cur_b, b)
        if cur_b is not None:
            tot += cur_b - cur_a
        return tot

    def clip(e):
        return max(lo, e["ts"]), min(hi, e["ts"] + e["dur"])

    busy = union([clip(e) for e in gpu if e["ts"] < hi and e["ts"] + e["dur"] > lo])
    out["gpu_busy_pct"] = 100.0 * busy / (hi - lo)
    dls = [e for e in ev if e.get("name", "").startswith("enumerate(DataLoader)")]
    out["dataloader_pct"] = 100.0 * sum(
        sum(d["dur"] for d in dls if s["ts"] <= d["ts"] < s["ts"] + s["dur"]) / s["dur"]
        for s in steps) / len(steps)
    out["dataloader_ms"] = sum(d["dur"] for d in dls) / len(dls) / 1e3
    # GPU idle while the loader runs
    idle = 0
    for d in dls:
        a, b = d["ts"], d["ts"] + d["dur"]
        idle += (b - a) - union([(max(a, e["ts"]), min(b, e["ts"] + e["dur"])) for e in gpu
                                 if e["ts"] < b and e["ts"] + e["dur"] > a])
    out["gpu_idle_during_dataloader_pct"] = 100.0 * idle / sum(d["dur"] for d in dls)
    dtoh = [e for e in gpu if e["name"].startswith("Memcpy DtoH")]
    out["dtoh_per_step"] = len(dtoh) / float(len(steps))
    out["dtoh_bytes"] = sorted({e["args"]["bytes"] for e in dtoh})
    syncs = [e["dur"] for e in runtime if e["name"] == "cudaStreamSynchronize"]
    out["stream_sync_ms"] = sum(syncs) / len(syncs) / 1e3 if syncs else 0.0
    kernels = [e for e in gpu if e.get("cat") == "kernel"]
    tiny = sorted((e for e in kernels if e["dur"] <= 4), key=lambda e: e["ts"])
    out["kernels"] = len(kernels)
    out["tiny_kernels"] = len(tiny)
    waits = []
    comp = sorted((e for e in gpu if e["args"]["stream"] == COMPUTE), key=lambda e: e["ts"])
    launch_ts = {r["args"]["correlation"]: r["ts"] for r in runtime}
    for p, q in zip(comp, comp[1:]):
        gap = q["ts"] - (p["ts"] + p["dur"])
        if gap > 0 and launch_ts.get(q["args"]["correlation"], 0) > p["ts"] + p["dur"]:
            waits.append(gap)
    out["host_wait_gaps"] = len(waits)
    out["host_wait_ms_per_step"] = sum(waits) / 1e3 / len(steps)
    htod = [e for e in gpu if e["name"].startswith("Memcpy HtoD") and e["args"]["bytes"] > 1e6]
    if htod:
        out["htod_kind"] = htod[0]["name"]
        out["htod_mib"] = htod[0]["args"]["bytes"] / 2.0 ** 20
        out["htod_gbps"] = sum(e["args"]["memory bandwidth (GB/s)"] for e in htod) / len(htod)
        out["htod_ms"] = sum(e["dur"] for e in htod) / len(htod) / 1e3
        calls = [r["dur"] for r in runtime if r["name"] == "cudaMemcpyAsync"
                 and by_corr.get(r["args"]["correlation"]) in htod]
        out["htod_call_ms"] = sum(calls) / len(calls) / 1e3
    comm = [e for e in kernels if e["name"].startswith("nccl")]
    calc = [e for e in kernels if not e["name"].startswith("nccl")]
    if comm:
        cu = union([(e["ts"], e["ts"] + e["dur"]) for e in comm])
        both = union([(e["ts"], e["ts"] + e["dur"]) for e in comm] +
                     [(e["ts"], e["ts"] + e["dur"]) for e in calc])
        xu = union([(e["ts"], e["ts"] + e["dur"]) for e in calc])
        out["nccl_ms_per_step"] = sum(e["dur"] for e in comm) / 1e3 / len(steps)
        out["nccl_overlap_pct"] = 100.0 * (cu + xu - both) / cu
    gemms = [e for e in kernels if any(t in e["name"] for t in ("gemm", "nvjet", "xmma"))]
    tc_tokens = ("xmma_gemm", "sm90_xmma", "nvjet", "wgmma", "cutlass3x", "s1688", "h1688",
                 "s884", "h884", "16816", "hmma")
    tc = [e for e in gemms if any(t in e["name"] for t in tc_tokens)]
    out["gemm_kernels"] = len(gemms)
    out["tensor_core_gemm_pct"] = 100.0 * len(tc) / len(gemms) if gemms else 0.0
    out["gemm_ms_per_step"] = sum(e["dur"] for e in gemms) / 1e3 / len(steps)
    out["compute_capability"] = "%d.%d" % (doc["deviceProperties"][0]["computeMajor"],
                                          doc["deviceProperties"][0]["computeMinor"])
    return out


# ---------------------------------------------------------------------------- writing


def write_gz(path, doc):
    buf = io.StringIO()
    buf.write("{\n")
    keys = [k for k in doc if k != "traceEvents"]
    for k in keys:
        if k == "traceName":
            continue
        buf.write('  "%s": %s,\n' % (k, json.dumps(doc[k])))
    buf.write('  "traceEvents": [\n')
    evs = doc["traceEvents"]
    for i, e in enumerate(evs):
        buf.write("  " + json.dumps(e) + (",\n" if i + 1 < len(evs) else "\n"))
    buf.write("  ],\n")
    buf.write('  "traceName": %s\n}\n' % json.dumps(doc["traceName"]))
    raw = buf.getvalue().encode("utf-8")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as z:
            z.write(raw)
    return len(raw), os.path.getsize(path)


def fmt(facts):
    keep = ["step_ms", "host_step_ms", "gpu_busy_pct", "dataloader_pct",
            "gpu_idle_during_dataloader_pct", "dtoh_per_step", "stream_sync_ms", "kernels",
            "tiny_kernels", "host_wait_ms_per_step", "htod_kind", "htod_gbps", "htod_ms",
            "htod_call_ms", "nccl_ms_per_step", "nccl_overlap_pct", "tensor_core_gemm_pct",
            "gemm_ms_per_step"]
    parts = []
    for k in keep:
        if k in facts:
            v = facts[k]
            parts.append("%s=%s" % (k, ("%.2f" % v) if isinstance(v, float) else v))
    return " ".join(parts)


def generate(name, out_dir, seed, report):
    cfg = config(name)
    ranks = simulate(cfg, seed)
    delta = {k: v for k, v in cfg.items() if v != BASE.get(k)}
    if name in MULTI:
        folder = os.path.join(out_dir, name)
        per_rank = []
        for r in ranks:
            doc = r.document(name, cfg["world"])
            raw, gz = write_gz(os.path.join(folder, "rank-%d.json.gz" % r.rank), doc)
            facts = measure(doc)
            per_rank.append(facts)
            report.append((os.path.join(name, "rank-%d.json.gz" % r.rank), raw, gz))
        nccl = [f["nccl_ms_per_step"] for f in per_rank]
        steps = [f["step_ms"] for f in per_rank]
        print("%s: params %s" % (name, json.dumps(delta, sort_keys=True)))
        print("  NCCL kernel ms/step by rank: %s" % ", ".join("%d:%.2f" % x
                                                             for x in enumerate(nccl)))
        print("  device step ms by rank:     %s" % ", ".join("%d:%.2f" % x
                                                           for x in enumerate(steps)))
        lo = min(range(len(nccl)), key=lambda i: nccl[i])
        print("  shortest NCCL time: rank %d (%.2f ms/step vs peers' median %.2f)"
              % (lo, nccl[lo], sorted(nccl)[len(nccl) // 2]))
        return {"name": name, "ranks": per_rank, "params": delta}
    doc = ranks[0].document(name, cfg["world"])
    path = os.path.join(out_dir, name + ".pt.trace.json.gz")
    raw, gz = write_gz(path, doc)
    report.append((name + ".pt.trace.json.gz", raw, gz))
    facts = measure(doc)
    print("%s: params %s" % (name, json.dumps(delta, sort_keys=True)))
    print("  " + fmt(facts))
    return {"name": name, "facts": facts, "params": delta}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    p.add_argument("--out", default=os.path.join(here, "gpu"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--only", nargs="*", help="names to generate (default: all)")
    p.add_argument("--list", action="store_true")
    args = p.parse_args(argv)
    names = list(SINGLE) + list(CLEAN) + list(MULTI)
    if args.list:
        for n in names:
            print("%-26s %s" % (n, PATHOLOGY_TEXT.get(n, "clean twin" if n in CLEAN
                                                        else "8 ranks, DDP")))
        return
    chosen = args.only or names
    for n in chosen:
        if n not in names:
            sys.exit("unknown trace %r (see --list)" % n)
    report = []
    results = {}
    for n in chosen:
        # the stall is sized from its twin's step time so the share lands on target
        if n == "gpu_dataloader_stall":
            size_dataloader_stall(args.seed)
        results[n] = generate(n, args.out, args.seed, report)
    print("\nfile                                   json bytes   gz bytes")
    for path, raw, gz in report:
        print("%-38s %10d %10d" % (path, raw, gz))
    if not args.only:
        print("\nREADME table rows (examples/pathologies/README.md):\n")
        for row in table_rows(results):
            print(row)


def table_rows(res):
    """Markdown rows for the pathologies README, filled from the measured facts."""
    f = {n: r["facts"] for n, r in res.items() if "facts" in r}
    c, fe, dd = f["gpu_clean"], f["gpu_clean_foreach"], f["gpu_clean_ddp_overlap"]
    rows = []

    def row(file, what, evidence, twin):
        rows.append("| `%s` | %s | %s | %s |" % (file, what, evidence, twin))

    s = f["gpu_dataloader_stall"]
    row("gpu/gpu_dataloader_stall.pt.trace.json.gz", "DataLoader stall (workers too slow)",
        "`enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__` %.1f ms = %.0f%% of "
        "each host step; the GPU is idle %.0f%% of that time; GPU busy %.0f%% (twin %.0f%%); "
        "step %.2f ms (twin %.2f)" % (s["dataloader_ms"], s["dataloader_pct"],
                                      s["gpu_idle_during_dataloader_pct"], s["gpu_busy_pct"],
                                      c["gpu_busy_pct"], s["step_ms"], c["step_ms"]),
        "`gpu_clean`: `__next__` %.0f us (%.0f%%)" % (c["dataloader_ms"] * 1e3,
                                                     c["dataloader_pct"]))
    s = f["gpu_item_sync"]
    row("gpu/gpu_item_sync.pt.trace.json.gz", "`loss.item()` every step",
        "%d `Memcpy DtoH (Device -> Pageable)` of %s B per step under `aten::item` > "
        "`aten::_local_scalar_dense`, then `cudaStreamSynchronize` %.2f ms; GPU busy %.0f%% "
        "(twin %.0f%%); step %.2f ms (twin %.2f)"
        % (s["dtoh_per_step"], "/".join(str(b) for b in s["dtoh_bytes"]), s["stream_sync_ms"],
           s["gpu_busy_pct"], c["gpu_busy_pct"], s["step_ms"], c["step_ms"]),
        "`gpu_clean`: no `aten::item`, no DtoH copy, no sync")
    s = f["gpu_launch_bound"]
    row("gpu/gpu_launch_bound.pt.trace.json.gz", "launch-bound optimizer "
        "(`AdamW(foreach=False)`)",
        "%d kernels of <= 4 us (%d kernels in %d steps), one per parameter per "
        "`aten::lerp_`/`mul_`/`addcmul_`/`sqrt`/`div_`/`add_`/`addcdiv_`; host-wait GPU gaps "
        "%.1f ms per step; GPU busy %.0f%% (twin %.0f%%); step %.2f ms (twin %.2f)"
        % (s["tiny_kernels"], s["kernels"], s["steps"], s["host_wait_ms_per_step"],
           s["gpu_busy_pct"], fe["gpu_busy_pct"], s["step_ms"], fe["step_ms"]),
        "`gpu_clean_foreach`: `aten::_foreach_*` launching `multi_tensor_apply_kernel`, "
        "%d kernels, %d of them <= 4 us" % (fe["kernels"], fe["tiny_kernels"]))
    s = f["gpu_pageable_htod"]
    row("gpu/gpu_pageable_htod.pt.trace.json.gz", "HtoD copies from pageable memory",
        "`%s` of %.0f MiB per step at %.1f GB/s (%.2f ms); its `cudaMemcpyAsync` blocks the "
        "CPU %.2f ms; step %.2f ms (twin %.2f)"
        % (s["htod_kind"], s["htod_mib"], s["htod_gbps"], s["htod_ms"], s["htod_call_ms"],
           s["step_ms"], c["step_ms"]),
        "`gpu_clean`: `%s` at %.1f GB/s (%.2f ms), `cudaMemcpyAsync` %.0f us"
        % (c["htod_kind"], c["htod_gbps"], c["htod_ms"], c["htod_call_ms"] * 1e3))
    s = f["gpu_nccl_not_overlapped"]
    row("gpu/gpu_nccl_not_overlapped.pt.trace.json.gz", "all-reduce not overlapped "
        "(rank 0 of 8)",
        "`ncclDevKernel_AllReduce_Sum_f32_RING_LL` on stream 20, %.2f ms per step, %.0f%% "
        "overlapped with compute: `c10d::allreduce_` runs on the main thread after backward; "
        "step %.2f ms (twin %.2f)" % (s["nccl_ms_per_step"], s["nccl_overlap_pct"],
                                      s["step_ms"], dd["step_ms"]),
        "`gpu_clean_ddp_overlap`: the same buckets all-reduced from the autograd thread "
        "during backward, %.0f%% overlapped" % dd["nccl_overlap_pct"])
    s = f["gpu_no_tensor_cores"]
    row("gpu/gpu_no_tensor_cores.pt.trace.json.gz", "fp32 GEMMs, no tensor cores",
        "compute capability %s, `aten::linear`/`aten::addmm`/`aten::mm` ran, %d GEMM kernels "
        "all fp32 SIMT (`ampere_sgemm_*`, `cutlass_80_simt_sgemm_*`), %.0f%% tensor-core; GEMM "
        "%.1f ms per step (twin %.1f); step %.2f ms (twin %.2f)"
        % (s["compute_capability"], s["gemm_kernels"], s["tensor_core_gemm_pct"],
           s["gemm_ms_per_step"], c["gemm_ms_per_step"], s["step_ms"], c["step_ms"]),
        "`gpu_clean`: bf16 `sm90_xmma_gemm_*` / `nvjet_*` kernels")
    clean_r = [r["nccl_ms_per_step"] for r in res["straggler_clean"]["ranks"]]
    for name, why in (("straggler_compute", "rank 5 computes %.2fx slower"
                       % res["straggler_compute"]["params"]["slow_compute"]),
                      ("straggler_dataloader", "rank 5 loads data %.1f ms longer per step"
                       % (res["straggler_dataloader"]["params"]["slow_dataloader_us"] / 1e3)),
                      ("straggler_idle_gaps", "rank 5 stalls its GPU %d times per step (sync, "
                       "then %.1f ms of host work)"
                       % (res["straggler_idle_gaps"]["params"]["slow_stalls"],
                          res["straggler_idle_gaps"]["params"]["slow_stall_us"] / 1e3))):
        nccl = [r["nccl_ms_per_step"] for r in res[name]["ranks"]]
        peers = [v for i, v in enumerate(nccl) if i != 5]
        row("gpu/%s/rank-{0..7}.json.gz" % name, "straggler: " + why,
            "NCCL kernel time per step: rank 5 %.2f ms (the shortest), the 7 others %.2f-%.2f "
            "ms (they wait for rank 5)" % (nccl[5], min(peers), max(peers)),
            "`straggler_clean/`: %.2f-%.2f ms on every rank" % (min(clean_r), max(clean_r)))
    return rows


def size_dataloader_stall(seed):
    """Set dataloader_us so __next__ takes dataloader_share of the stalled host step."""
    base, delta = SINGLE["gpu_dataloader_stall"]
    cfg = config(base)
    doc = simulate(cfg, seed)[0].document(base, 1)
    facts = measure(doc)
    rest_us = facts["host_step_ms"] * 1e3 - facts["dataloader_ms"] * 1e3
    share = delta["dataloader_share"]
    SINGLE["gpu_dataloader_stall"] = (base, dict(delta, dataloader_us=int(
        round(share / (1 - share) * rest_us))))


if __name__ == "__main__":
    main()
