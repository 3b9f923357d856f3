#!/usr/bin/python3
"""Nsight Systems exports of workloads our converters never wrote: the NVTX and CUDA rows a real
`nsys profile` of each holds, built with make_exports.Export's table writers (no nsys runs here),
and the CLI's JSON report checked against what a user of each must see. Every check prints what
the user would see wrong; exit 1 on any failure. Each shape's source says where its rows' names
and order come from.

  jax_xla        a JAX training loop (jit_train_step) under `nsys profile --trace=cuda,nvtx`. XLA
                 pushes its own NVTX ranges in the domain "TSL": "XlaModule:#hlo_module=NAME,
                 program_id=N#" around a module's execution and "Thunk:#hlo_op=OP#" around each
                 thunk (xla/service/gpu/gpu_executable.cc, ScopedAnnotation; NVIDIA JAX-Toolbox's
                 nsys-jax parses exactly these names: data_loaders.py module_re). JAX's own
                 StepTraceAnnotation("train", step_num=N) is a TraceMe
                 (xla/python/profiler/internal/traceme_wrapper.h), which JAX's profiler records,
                 not NVTX: no step range reaches nsys. Kernels are launched with the driver API
                 (cuLaunchKernel) and named by XLA (loop_add_fusion, input_reduce_fusion, fusion_12)
                 or by cuBLAS (sm90_xmma_gemm_*, nvjet_*); dispatch is asynchronous, so a module's
                 range on the host covers its launches, not its GPU work; the loss is read back
                 every 4 steps (cuMemcpyDtoHAsync + cuStreamSynchronize).
  megatron_pp    one rank (pipeline stage 0 of 2, tensor parallel 2) of a Megatron-LM style GPT
                 run: "iterationN" ranges (range_push("iteration{}".format(i)), with "forward",
                 "backward" and "opt.step" inside: the pattern of PyTorch's dev-discuss "Using Nsight
                 Systems to profile GPU workload") inside an outer "train" range; 1F1B over 4
                 micro-batches: GEMMs, tensor-parallel all-reduces (ncclDevKernel_AllReduce_Sum_bf16)
                 on one stream, the pipeline's activations and gradients sent and received by
                 ncclDevKernel_SendRecv on another, a grad-norm .item() (DtoH + sync) per
                 iteration before the optimizer (clip_grad_norm).
  megatron_cut   megatron_pp under --capture-range=cudaProfilerApi, cudaProfilerStart called in
                 the middle of iteration 10 (NeMo's nsys callback, torch.cuda.cudart() from a
                 callback) and cudaProfilerStop in iteration 14: "train" and "iteration10" pushed
                 before the capture (negative starts, as precapture_nvtx's), "iteration14" and
                 "train" open at the stop; the kernels still running at the start whose launches
                 were before it (kernel rows whose correlationId has no CUDA API row).
  vllm_graphs    a vLLM-like server under `nsys profile --trace=cuda --cuda-graph-trace=node`
                 (vLLM writes no NVTX by default): each decode step ONE cudaGraphLaunch whose
                 correlationId its graph's kernels carry (graphNodeId set), every 8th step a
                 prefill run eagerly (flash attention, GEMMs), each step ending with the sampled
                 tokens copied to the host (cudaMemcpyAsync DtoH, pinned) and a
                 cudaStreamSynchronize, and the scheduler's Python between steps.

Usage: /usr/bin/python3 tests/nsys/unseen_exports.py --cli build/native/kinetoscope [-v] [--only a,b]
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, '..', 'corpus'))
import corpus_cli  # noqa: E402
import make_exports as mx  # noqa: E402
from unseen_shapes import negatives  # noqa: E402

DOMAIN_CREATE = 75  # NVTX_EVENTS eventType of a domain's creation (its name in text)


def nvtx_in(e, domain, tid, text, start, end, kind=mx.PUSHPOP):
    """An NVTX range of `domain` (an id), its name registered in StringIds (textId), as a
    library's nvtxDomainRangePushEx with a registered string writes it."""
    e.rows['NVTX_EVENTS'].append(
        (start, end, kind, None, None, None, None, mx.gtid(e.pid, tid), None, e.sid(text), domain,
         None, None, None, None, None, None, None, None))


def create_domain(e, tid, domain, name):
    e.rows['NVTX_EVENTS'].append(
        (0, None, DOMAIN_CREATE, None, None, None, name, mx.gtid(e.pid, tid), None, None, domain,
         None, None, None, None, None, None, None, None))


def finding(rep, fid):
    return next((f for f in rep['findings'] if f['id'] == fid), None)


def ids(rep):
    return [f['id'] for f in rep['findings']]


def top_kernels(rep, n):
    return [r['name'] for r in rep['kernels']['rows'][:n]]


# --- jax_xla -------------------------------------------------------------------------------------

JAX_STEPS = 8
JAX_LOG_EVERY = 4
# (XLA's thunk op, kernel name, GPU ns): a transformer block's forward and backward as XLA fuses it.
JAX_THUNKS = [
    ('loop_convert_fusion.1', 'loop_convert_fusion_1', 40_000),
    ('custom-call.5', 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1'
     '_execute_segment_k_off_kernel__5x_cublas', 420_000),
    ('input_reduce_fusion', 'input_reduce_fusion', 60_000),
    ('loop_add_fusion', 'loop_add_fusion', 45_000),
    ('custom-call.6', 'nvjet_tst_128x256_64x4_2x1_v_bz_coopB_NTN', 380_000),
    ('fusion.12', 'fusion_12', 90_000),
    ('custom-call.7', 'nvjet_tst_192x192_64x5_1x2_h_bz_coopA_NNT', 510_000),
    ('loop_multiply_fusion.3', 'loop_multiply_fusion_3', 35_000),
]


def jax_xla(scan=False):
    """Returns the export and its truth: kernel ns by name, the DtoH copies, the steps' GPU spans.
    `scan`: the loop written as one jitted call (jax.lax.scan over the steps): one XlaModule range
    around all of it, the thunks repeating inside, no range per step."""
    e = mx.Export(pid=7100, process='python3')
    tid = 7100
    e.thread(tid, 'python3')
    e.gpu(0)
    create_domain(e, tid, 1, 'TSL')
    t = 30_000_000
    gpu_t = t
    truth = {'kernel_ns': {}, 'dtoh': 0, 'modules': 0}
    for s in range(JAX_STEPS):
        # The host enqueues the step's input batch, then dispatches the module: a launch per
        # thunk, each inside its Thunk range, all inside the module's range.
        corr = e.api(tid, 'cuMemcpyHtoDAsync_v2', t, 12_000, driver=True)
        e.memcpy(corr, mx.HTOD, mx.PINNED, mx.DEVICE, max(gpu_t, t + 15_000), 20_000, 4 << 20)
        gpu_t = max(gpu_t, t + 15_000) + 21_000
        t += 20_000
        module_start = t
        t += 8_000
        for op, kname, kns in JAX_THUNKS:
            nvtx_in(e, 1, tid, 'Thunk:#hlo_op=%s#' % op, t, t + 9_000)
            corr = e.api(tid, 'cuLaunchKernel', t + 1_000, 6_000, driver=True)
            start = max(gpu_t, t + 10_000)
            e.kernel(corr, kname, start, kns, grid=(132, 1, 1), block=(384, 1, 1))
            truth['kernel_ns'][kname] = truth['kernel_ns'].get(kname, 0) + kns
            gpu_t = start + kns + 2_000
            t += 11_000
        t += 5_000
        if scan:
            loop_start = loop_start if s else module_start
            if s == JAX_STEPS - 1:
                nvtx_in(e, 1, tid, 'XlaModule:#hlo_module=jit_train_loop,program_id=18#',
                        loop_start, t)
            continue
        nvtx_in(e, 1, tid, 'XlaModule:#hlo_module=jit_train_step,program_id=17#', module_start, t)
        truth['modules'] += 1
        t += 30_000  # Python between dispatches: the next batch, metrics bookkeeping
        if s % JAX_LOG_EVERY == JAX_LOG_EVERY - 1:
            # float(loss): the scalar back to the host, and the host waits for the GPU.
            corr = e.api(tid, 'cuMemcpyDtoHAsync_v2', t, 10_000, driver=True)
            e.memcpy(corr, mx.DTOH, mx.DEVICE, mx.PINNED, max(gpu_t, t + 12_000), 3_000, 4)
            gpu_t = max(gpu_t, t + 12_000) + 4_000
            truth['dtoh'] += 1
            t += 11_000
            wait = max(gpu_t - t, 0) + 5_000
            corr = e.api(tid, 'cuStreamSynchronize', t, wait, driver=True)
            e.sync(corr, mx.STREAM_SYNC, t, wait - 1_000)
            t += wait + 60_000  # logging
    return e, truth


def check_jax(c, cli, tmp):
    e, truth = jax_xla()
    path = os.path.join(tmp, 'jax_xla.sqlite')
    e.save(path)
    rep = corpus_cli.report(cli, path)
    k = rep['kernels']
    want_kernels = JAX_STEPS * len(JAX_THUNKS)
    c.check('jax_xla: every XLA kernel counted (%d)' % want_kernels, k['count'] == want_kernels,
            str(k['count']))
    top = top_kernels(rep, 3)
    want_top = sorted(truth['kernel_ns'], key=lambda n: -truth['kernel_ns'][n])[:3]
    c.check('jax_xla: the top kernels are the cuBLAS GEMMs', top == want_top, '%s vs %s' % (top, want_top))
    by_class = {r['class']: r for r in rep['kernel_groups']['by_class']}
    gemm_ns = sum(v for n, v in truth['kernel_ns'].items() if 'gemm' in n or 'nvjet' in n)
    got = by_class.get('gemm', {}).get('total_us')
    c.check('jax_xla: the GEMMs (xmma, nvjet) are the gemm class',
            got is not None and abs(got - gemm_ns / 1000) < 1, '%s vs %s' % (got, gemm_ns / 1000))
    apis = {r['name']: r['launches'] for r in rep['launch_stats']['apis']}
    c.check('jax_xla: the driver API\'s cuLaunchKernel calls are the launches (%d)' % want_kernels,
            apis.get('cuLaunchKernel') == want_kernels, str(apis))
    st = rep['steps']
    # Each jit_train_step execution is a step: its range is the only repeated outermost range of
    # the program, 8 of them, each the dispatch of one step's GPU work.
    # (Before: no steps, "steps.none": the ranges cover 0.8 ms of the 13 ms capture on the host.)
    c.check('jax_xla: %d steps, one per jit_train_step execution' % JAX_STEPS,
            st.get('count') == JAX_STEPS and st.get('source') == 'nvtx_range',
            'steps %s (source %s); findings: %s' % (st.get('count'), st.get('source'), ids(rep)))
    step_gpu_us = (sum(n for _, _, n in JAX_THUNKS) + 20_000) / 1000
    c.check('jax_xla: a step lasts its GPU work (%.0f us), not its dispatch' % step_gpu_us,
            st.get('count') and abs(st['median_us'] - step_gpu_us) < 0.05 * step_gpu_us,
            str(st.get('median_us')))
    c.check('jax_xla: no steps.none', finding(rep, 'steps.none') is None, str(ids(rep)))
    # The host waits every 4 steps for work it queued: the GPU stays busy, so no warning.
    f = finding(rep, 'sync.runtime_calls')
    c.check('jax_xla: the loss reads cost the GPU little: no sync warning',
            f is None or f['severity'] != 'warning', f and f['title'])
    dtoh = rep['sync'].get('dtoh_in_steps')
    c.check('jax_xla: the loss copies (%d DtoH) are read' % truth['dtoh'],
            sum(r['count'] for r in rep['memory_ops']['rows'] if r['kind'] == 'DtoH') == truth['dtoh'],
            str([(r['kind'], r['count']) for r in rep['memory_ops']['rows']]))
    c.check('jax_xla: no finding about PyTorch names (op hotspots, DataLoader)',
            not any(f in ids(rep) for f in ('gpu.op_hotspot', 'dataloader.slow')), str(ids(rep)))
    return rep


def check_jax_scan(c, cli, tmp):
    """The JAX loop as one jitted lax.scan: no step range, so the report's advice on marking
    steps must be JAX's (an NVTX range per step), not PyTorch's torch.cuda.nvtx.range."""
    e, _ = jax_xla(scan=True)
    path = os.path.join(tmp, 'jax_scan.sqlite')
    e.save(path)
    rep = corpus_cli.report(cli, path)
    f = finding(rep, 'steps.none')
    words = f and (f.get('fix', '') + f.get('fix_code', ''))
    c.check('jax_scan: no steps, said with JAX\'s advice (an NVTX range per step), not torch\'s',
            f is not None and 'nvtx.annotate' in words and 'torch' not in words,
            f and words or str(ids(rep)))
    text = subprocess.run([cli, 'report', path], capture_output=True, text=True).stdout
    c.check('jax_scan: the text report names no torch call', 'torch.' not in text,
            [ln for ln in text.splitlines() if 'torch.' in ln][:2])


# --- megatron_pp / megatron_cut ------------------------------------------------------------------

MEG_FIRST, MEG_ITERS, MEG_MICRO = 10, 5, 4
COMPUTE, TP, PP = 7, 20, 24  # streams
GEMM = 'sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas'
FLASH = 'void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>, false, false, false, false, true, true, false>(Flash_fwd_params)'
FLASH_BWD = 'void flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2, false, false, cutlass::bfloat16_t>, false, false, false, false, false, false>(Flash_bwd_params)'
ALLREDUCE = 'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm *, unsigned long, ncclWork *)'
SENDRECV = 'ncclDevKernel_SendRecv(ncclDevComm *, unsigned long, ncclWork *)'
ADAM = 'void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, float, adamMode_t, float>(long, int volatile*, TensorListMetadata<4>, AdamFunctor<float>, float, float, float, float, float, float, adamMode_t, float)'
NORM = 'void multi_tensor_apply_kernel<TensorListMetadata<1>, L2NormFunctor<float, float, float>, float*, float*, bool, int>(long, int volatile*, TensorListMetadata<1>, L2NormFunctor<float, float, float>, float*, float*, bool, int)'


def megatron(cut=False):
    """One rank's export and its truth: per iteration its host range and the NCCL kernel ns."""
    e = mx.Export(pid=8800, process='python3')
    tid = 8800
    e.thread(tid, 'python3')
    e.gpu(0)
    e.env = {'RANK': '0', 'WORLD_SIZE': '4', 'LOCAL_RANK': '0', 'MASTER_ADDR': 'node001'}
    t = 20_000_000
    gpu = {COMPUTE: t, TP: t, PP: t}
    truth = {'iters': [], 'nccl_ns': 0, 'dtoh': 0, 'kernels': 0}
    train_start = t - 1_000_000

    def launch(name, stream, ns, after=None, grid=(132, 1, 1), block=(256, 1, 1)):
        nonlocal t
        corr = e.api(tid, 'cudaLaunchKernel_v7000', t, 7_000)
        start = max(gpu[stream], t + 9_000, after or 0)
        e.kernel(corr, name, start, ns, stream=stream, grid=grid, block=block)
        gpu[stream] = start + ns + 1_500
        if 'nccl' in name:
            truth['nccl_ns'] += ns
        truth['kernels'] += 1
        t += 10_000
        return start + ns

    for i in range(MEG_FIRST, MEG_FIRST + MEG_ITERS):
        it_start = t
        fwd_start = t
        for m in range(MEG_MICRO):  # forwards: TP all-reduce after attention and MLP, send
            end = launch(GEMM, COMPUTE, 300_000)
            end = launch(FLASH, COMPUTE, 220_000, after=end)
            end = launch(ALLREDUCE, TP, 60_000, after=end, grid=(24, 1, 1), block=(640, 1, 1))
            end = launch(GEMM, COMPUTE, 450_000, after=end)
            end = launch(ALLREDUCE, TP, 60_000, after=end, grid=(24, 1, 1), block=(640, 1, 1))
            gpu[COMPUTE] = max(gpu[COMPUTE], end)
            launch(SENDRECV, PP, 80_000, after=end, grid=(1, 1, 1), block=(640, 1, 1))
        e.nvtx(tid, 'forward', fwd_start, t)
        bwd_start = t
        for m in range(MEG_MICRO):  # backwards: receive the gradient (waits on stage 1), compute
            end = launch(SENDRECV, PP, 700_000 if m == 0 else 120_000, after=gpu[COMPUTE],
                         grid=(1, 1, 1), block=(640, 1, 1))
            end = launch(FLASH_BWD, COMPUTE, 480_000, after=end)
            end = launch(ALLREDUCE, TP, 60_000, after=end, grid=(24, 1, 1), block=(640, 1, 1))
            end = launch(GEMM, COMPUTE, 700_000, after=end)
            end = launch(ALLREDUCE, TP, 60_000, after=end, grid=(24, 1, 1), block=(640, 1, 1))
            gpu[COMPUTE] = max(gpu[COMPUTE], end)
        e.nvtx(tid, 'backward', bwd_start, t)
        # clip_grad_norm: the norm's kernels, then total_norm.item() (DtoH + the host waits).
        opt_start = t
        end = launch(NORM, COMPUTE, 90_000, after=max(gpu.values()))
        corr = e.api(tid, 'cudaMemcpyAsync_v3020', t, 9_000)
        copy_start = max(gpu[COMPUTE], t + 10_000)
        e.memcpy(corr, mx.DTOH, mx.DEVICE, mx.PAGEABLE, copy_start, 3_000, 4)
        gpu[COMPUTE] = copy_start + 4_000
        truth['dtoh'] += 1
        t += 10_000
        wait = max(gpu[COMPUTE] - t, 0) + 4_000
        corr = e.api(tid, 'cudaStreamSynchronize_v3020', t, wait)
        e.sync(corr, mx.STREAM_SYNC, t, wait - 1_000)
        t += wait + 5_000
        launch(ADAM, COMPUTE, 350_000, grid=(320, 1, 1), block=(512, 1, 1))
        e.nvtx(tid, 'opt.step', opt_start, t)
        t += 150_000  # Python: logging, the next iteration's schedule
        e.nvtx(tid, 'iteration%d' % i, it_start, t)
        truth['iters'].append((it_start, t))
    e.nvtx(tid, 'train', train_start, t + 500_000)
    if cut:
        cut_capture(e, truth)
    return e, truth


def cut_capture(e, truth):
    """The capture from the middle of the first iteration to the middle of the last: rows outside
    it dropped (the kernels running at the start kept without their launches), NVTX ranges pushed
    before it kept with their start, ranges open at the stop without an end, times from its start."""
    first, last = truth['iters'][0], truth['iters'][-1]
    cut0 = first[0] + (first[1] - first[0]) // 2
    cut1 = last[0] + (last[1] - last[0]) // 2
    runtime = e.rows['CUPTI_ACTIVITY_KIND_RUNTIME']
    kept = {r[4] for r in runtime if cut0 <= r[0] and r[1] <= cut1}
    truth['orphans'] = 0
    for table in ('CUPTI_ACTIVITY_KIND_KERNEL', 'CUPTI_ACTIVITY_KIND_MEMCPY',
                  'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION'):
        rows = []
        for r in e.rows[table]:
            if r[6] in kept:
                rows.append(r)
            elif table == 'CUPTI_ACTIVITY_KIND_KERNEL' and r[0] < cut0 < r[1]:
                rows.append((cut0,) + r[1:])  # running at the start: traced from it, no launch
                truth['orphans'] += 1
        e.rows[table] = rows
    e.rows['CUPTI_ACTIVITY_KIND_RUNTIME'] = [r for r in runtime if r[4] in kept]
    nvtx = []
    for r in e.rows['NVTX_EVENTS']:
        if r[2] == DOMAIN_CREATE:
            nvtx.append(r)
            continue
        if r[0] > cut1 or (r[1] is not None and r[1] < cut0):
            continue  # all before the start (not recorded) or pushed after the stop
        if r[1] is not None and r[1] > cut1:
            r = (r[0], None) + r[2:]
        nvtx.append(r)
    e.rows['NVTX_EVENTS'] = nvtx
    for table in ('CUPTI_ACTIVITY_KIND_RUNTIME', 'CUPTI_ACTIVITY_KIND_KERNEL',
                  'CUPTI_ACTIVITY_KIND_MEMCPY', 'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION', 'NVTX_EVENTS'):
        e.rows[table] = [(r[0] - cut0, None if r[1] is None else r[1] - cut0) + r[2:]
                         for r in e.rows[table]]
    truth['whole'] = [(a - cut0, b - cut0) for a, b in truth['iters'] if a >= cut0 and b <= cut1]


def check_megatron(c, cli, tmp):
    e, truth = megatron()
    path = os.path.join(tmp, 'megatron_pp.sqlite')
    e.save(path)
    rep = corpus_cli.report(cli, path)
    st = rep['steps']
    names = [r['name'] for r in st.get('rows', [])]
    want = ['iteration%d' % i for i in range(MEG_FIRST, MEG_FIRST + MEG_ITERS)]
    # The last step is dropped by default (drop_last_step), as for every capture.
    c.check('megatron_pp: the steps are the iterationN ranges inside "train"',
            names == want[:len(names)] and len(names) >= MEG_ITERS - 1, str(names))
    c.check('megatron_pp: step numbers from the names (10, 11, ...)',
            [r['number'] for r in st.get('rows', [])] == list(range(MEG_FIRST, MEG_FIRST + len(names))),
            str([r.get('number') for r in st.get('rows', [])]))
    nccl = sum(r['total_us'] for r in rep['kernels']['rows'] if r['name'].startswith('ncclDevKernel'))
    c.check('megatron_pp: NCCL kernels (all-reduce and pipeline send/recv) all counted',
            abs(nccl - truth['nccl_ns'] / 1000) < 1, '%s vs %s us' % (nccl, truth['nccl_ns'] / 1000))
    co = rep['comm_overlap']
    c.check('megatron_pp: communication time is the NCCL kernels\'',
            abs(co['communication_us'] - truth['nccl_ns'] / 1000) < 1,
            '%s vs %s' % (co['communication_us'], truth['nccl_ns'] / 1000))
    f = finding(rep, 'sync.dtoh_in_step')
    c.check('megatron_pp: the grad-norm .item() is a DtoH copy in every step',
            f is not None and rep['sync'].get('dtoh_in_steps') == len(names),
            '%s, %s' % (rep['sync'].get('dtoh_in_steps'), ids(rep)))
    f = finding(rep, 'comm.not_overlapped')
    # Pipeline sends/receives (and all-to-all: NCCL runs both as ncclDevKernel_SendRecv) are most
    # of the communication: DistributedDataParallel's buckets are no answer to them.
    c.check('megatron_pp: exposed send/recv read as sends and receives, not as DDP\'s all-reduce',
            f is not None and 'DistributedDataParallel' not in f['fix'] and 'receive' in f['title'],
            f and '%s / %s' % (f['title'], f['fix']))
    c.check('megatron_pp: no steps.warmup / unstable on identical iterations',
            not any(x in ids(rep) for x in ('steps.unstable', 'steps.warmup_in_window')), str(ids(rep)))
    return rep


def check_megatron_cut(c, cli, tmp):
    e, truth = megatron(cut=True)
    path = os.path.join(tmp, 'megatron_cut.sqlite')
    e.save(path)
    rep = corpus_cli.report(cli, path)
    st = rep['steps']
    names = [r['name'] for r in st.get('rows', [])]
    whole = len(truth['whole'])
    c.check('megatron_cut: the whole iterations are the steps (11-13), the cut ones left out',
            names == ['iteration%d' % i for i in range(MEG_FIRST + 1, MEG_FIRST + 1 + whole)],
            '%s (whole %d)' % (names, whole))
    k = rep['kernels']
    kept = sum(1 for r in e.rows['CUPTI_ACTIVITY_KIND_KERNEL'])
    c.check('megatron_cut: every kernel row counted, those launched before the capture too',
            k['count'] == kept, '%s vs %s' % (k['count'], kept))
    f = finding(rep, 'comm.not_overlapped')
    ev = f and f.get('evidence', {})
    # The shares are of the three whole steps; the cut iterations' communication is no part of
    # them (before: 24.9% of step time exposed beside a communication part of 18.7%).
    c.check('megatron_cut: exposed communication within the steps, at most their communication',
            f is not None and ev['exposed_pct'] <= ev['communication_pct'] + 0.1
            and abs(ev['comm_kernel_us_per_step'] - truth['nccl_ns'] / MEG_ITERS / 1000) < 1,
            str(ev))
    neg = [(p, v) for p, v in negatives(rep) if not p.endswith('first_event_us')]
    c.check('megatron_cut: no negative time (launches before the capture, ranges pushed before it)',
            not neg, str(neg[:5]))
    c.check('megatron_cut: no steps.warmup / unstable on identical iterations',
            not any(x in ids(rep) for x in ('steps.unstable', 'steps.warmup_in_window')), str(ids(rep)))
    return rep


# --- vllm_graphs ---------------------------------------------------------------------------------

VLLM_STEPS, VLLM_PREFILL_EVERY = 24, 8
DECODE = ['void vllm::rms_norm_kernel<c10::BFloat16, 8, 1>(c10::BFloat16*, c10::BFloat16 const*, c10::BFloat16 const*, float, int, int)',
          'nvjet_tst_64x8_64x16_4x1_v_bz_TNT',
          'void flash::flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>, false, true, false, false, true, true, false, false>(flash::Flash_fwd_params)',
          'void vllm::act_and_mul_kernel<c10::BFloat16, &vllm::silu_kernel<c10::BFloat16>, true>(c10::BFloat16*, c10::BFloat16 const*, int)',
          'nvjet_tst_64x8_64x16_4x1_v_bz_TNT']


def vllm_graphs():
    e = mx.Export(pid=9100, process='python3')
    tid = 9100
    e.thread(tid, 'python3')
    e.gpu(0)
    t = 15_000_000
    truth = {'graph_kernels': 0, 'eager_kernels': 0, 'dtoh': 0, 'steps': [], 'launches': 0}
    for s in range(VLLM_STEPS):
        step_start = t
        gpu_t = t
        if s % VLLM_PREFILL_EVERY == 0:  # a prefill: eager, long GEMMs and attention
            for layer in range(4):
                for name, ns in ((DECODE[0], 30_000), ('nvjet_tst_256x128_64x4_2x1_v_bz_coopA_NNT', 900_000),
                                 (DECODE[2].replace('splitkv_', ''), 700_000), (DECODE[3], 60_000),
                                 ('nvjet_tst_256x128_64x4_2x1_v_bz_coopA_NNT', 1_100_000)):
                    corr = e.api(tid, 'cudaLaunchKernel_v7000', t, 6_000)
                    start = max(gpu_t, t + 8_000)
                    e.kernel(corr, name, start, ns)
                    gpu_t = start + ns + 1_500
                    truth['eager_kernels'] += 1
                    truth['launches'] += 1
                    t += 9_000
        else:  # a decode: one graph replay of 4 layers
            corr = e.api(tid, 'cudaGraphLaunch_v10000', t, 12_000)
            truth['launches'] += 1
            gpu_t = max(gpu_t, t + 15_000)
            node = 0
            for layer in range(4):
                for k, name in enumerate(DECODE):
                    ns = (40_000, 25_000, 35_000, 10_000, 25_000)[k]
                    e.kernel(corr, name, gpu_t, ns)
                    row = e.rows['CUPTI_ACTIVITY_KIND_KERNEL'][-1]
                    e.rows['CUPTI_ACTIVITY_KIND_KERNEL'][-1] = row[:26] + (100 + node, 0)
                    node += 1
                    gpu_t += ns + 1_000
                    truth['graph_kernels'] += 1
            t += 13_000
        # sampling: the sampled token ids to the host, the host waits for them
        corr = e.api(tid, 'cudaMemcpyAsync_v3020', t, 8_000)
        start = max(gpu_t, t + 9_000)
        e.memcpy(corr, mx.DTOH, mx.DEVICE, mx.PINNED, start, 3_000, 4 * 64)
        gpu_t = start + 3_000
        truth['dtoh'] += 1
        t += 9_000
        wait = max(gpu_t - t, 0) + 4_000
        corr = e.api(tid, 'cudaStreamSynchronize_v3020', t, wait)
        e.sync(corr, mx.STREAM_SYNC, t, wait - 1_000)
        t += wait
        truth['steps'].append((step_start, gpu_t))
        t += 400_000  # the scheduler: detokenize, next batch, prepare inputs (Python)
    return e, truth


def check_vllm(c, cli, tmp):
    e, truth = vllm_graphs()
    path = os.path.join(tmp, 'vllm_graphs.sqlite')
    e.save(path)
    rep = corpus_cli.report(cli, path)
    k = rep['kernels']
    want = truth['graph_kernels'] + truth['eager_kernels']
    c.check('vllm_graphs: graph and eager kernels counted (%d)' % want, k['count'] == want, str(k['count']))
    ls = rep['launch_stats']
    apis = {r['name']: r['launches'] for r in ls['apis']}
    c.check('vllm_graphs: one launch per graph replay, one per eager kernel',
            apis.get('cudaGraphLaunch') == VLLM_STEPS - VLLM_STEPS // VLLM_PREFILL_EVERY
            and apis.get('cudaLaunchKernel') == truth['eager_kernels'], str(apis))
    # The kernel table counts kernels, and says which came from graph launches (before: "480
    # launches", read as 480 launch calls).
    text = subprocess.run([cli, 'report', path], capture_output=True, text=True).stdout
    graphs = VLLM_STEPS - VLLM_STEPS // VLLM_PREFILL_EVERY
    want = ' names, %d kernels (%d CUDA graph launches started %d GPU ops)' % (
        k['count'], graphs, truth['graph_kernels'])
    got = [ln for ln in text.splitlines() if ln.startswith('Kernels:')]
    c.check('vllm_graphs: the kernels line counts graph launches as calls', any(want in ln for ln in got),
            '%s vs %s' % (got, want))
    c.check('vllm_graphs: no launch-bound finding on graph replays',
            not any(x.startswith('launch') and 'bound' in x for x in ids(rep)), str(ids(rep)))
    # Idle: after each step's sampled tokens reach the host, the GPU waits while the scheduler
    # runs (400 us a step): the sync drained the queue, so the idle is the sync's (vLLM's async
    # scheduling overlaps exactly this), and it costs 18% of the GPU: a warning.
    ic = rep['idle_causes']
    c.check('vllm_graphs: the idle between steps follows the token syncs',
            ic['sync_us'] >= 0.95 * ic['idle_us'] and abs(ic['sync_us'] - (VLLM_STEPS - 1) * 440) < 0.1 * ic['sync_us'],
            'idle %s sync %s' % (ic['idle_us'], ic['sync_us']))
    f = finding(rep, 'sync.runtime_calls')
    c.check('vllm_graphs: the per-step syncs are a warning (they cost the GPU)',
            f is not None and f['severity'] == 'warning', f and f['title'])
    st = rep['steps']
    c.check('vllm_graphs: no step ranges (no NVTX): said so, no invented steps from a range',
            (st.get('count') or 0) == 0 or st.get('source') == 'inferred', str(st.get('count')))
    return rep


SHAPES = {'jax_xla': check_jax, 'jax_scan': check_jax_scan, 'megatron_pp': check_megatron, 'megatron_cut': check_megatron_cut,
          'vllm_graphs': check_vllm}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', default='build/native/kinetoscope')
    ap.add_argument('-v', action='store_true')
    ap.add_argument('--only', default='')
    ap.add_argument('--keep', default='', help='write the exports into this folder')
    args = ap.parse_args()
    c = corpus_cli.Checker(args.v)
    only = [s for s in args.only.split(',') if s]
    with tempfile.TemporaryDirectory() as tmp:
        out = args.keep or tmp
        os.makedirs(out, exist_ok=True)
        for name, check in SHAPES.items():
            if only and not any(o in name for o in only):
                continue
            check(c, args.cli, out)
    print('unseen exports: %d failed' % len(c.failures))
    return 1 if c.failures else 0


if __name__ == '__main__':
    sys.exit(main())
