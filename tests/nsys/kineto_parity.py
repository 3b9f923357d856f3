#!/usr/bin/python3
"""Both readers on the same real runs: every CUDA trace with kernels in ../shared/traces, made into
the Nsight Systems export that run would have given (tests/nsys/from_kineto.py), and each pair of
reports (`kinetoscope report X --format json`) compared on what both formats hold: steps and their
times, GPU busy/idle, idle causes, top kernels, copies (kinds, bytes, DtoH in steps), syncs,
launches, the step breakdown's GPU parts, and the finding ids. The DLRM ranks are also compared
as 8 exports in one multi-rank report (straggler, collectives).

What an export cannot hold (docs/nsys-versions.md, "Kineto trace and nsys export of one run"):
CPU ops, so the numbers built on them are left out here, each named in FORMAT_ONLY with why.
Each run is compared a second time as a real capture holds it, with rows no trace gives
(from_kineto.add_capture_extras: the process's start, nsys' threads and diagnostics, OS runtime
calls, NCCL's NVTX ranges): the same facts, and only what those rows say moves (compare_extras).
And a third time under `nsys profile --pytorch=autograd-shapes-nvtx` (from_kineto --pytorch: the CPU
ops as emit_nvtx's NVTX ranges): then what the CPU ops give is compared too (compare_ops).
And the DLRM ranks and a few traces (SAMPLED) a fourth time with GPU metrics and context switches
besides the extras (from_kineto --gpu-metrics --cpuctxsw): the measured SM Active must agree with
the trace's est. SM efficiency, and only what those rows say moves (compare_sampled).
  /usr/bin/python3 tests/nsys/kineto_parity.py --cli build/native/kinetoscope [--traces DIR]
      [--only SUBSTR...]
Exit 1 on a difference not listed; skips (exit 0, a message) when the traces are absent."""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import from_kineto  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# Findings only a Kineto trace can give: they read CPU ops (absent from an nsys capture without
# emit_nvtx), input shapes, or Kineto's own metadata.
FORMAT_ONLY = {
    'dataloader.slow': 'the DataLoader\'s enumerate(DataLoader)#...__next__ CPU op',
    # Every critical_path.* finding: its graph's CPU side is the CPU ops in a trace and only the
    # CUDA calls in an export, so the path and what bounds it differ.
    'critical_path.': 'the critical path walks CPU op -> launch -> kernel edges',
    # A trace whose CPU side is CPU ops only (no launch recorded) has none left in the export:
    # true of the export.
    'capture.no_cpu_activity': 'CPU ops are the only CPU rows of such a trace',
    'math.far_below_peak': 'FLOPs from the CPU ops\' input shapes (record_shapes)',
    'math.low_mfu': 'the same',
    'kernels.no_tensor_cores': 'the tensor-core eligible ops are CPU ops (aten::mm, ...)',
    'capture.diagnostic_flags': 'Kineto\'s trace metadata (its profiler options)',
    'cpu.python_overhead': 'python_function events',
    'gpu.op_hotspot': 'kernels grouped by the CPU op that launched them',
}
# Findings each format names its own way for one fact: an export captured from the process start
# says so in nsys.from_process_start, which replaces capture.warmup_ops (nsys_capture_rules.cpp).
SAME_FACT = {'nsys.from_process_start': 'capture.warmup_ops'}


def report(cli, path, extra=()):
    out = subprocess.run([cli, 'report', path, '--format', 'json'] + list(extra),
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError('%s: exit %d: %s' % (path, out.returncode, out.stderr.strip()))
    return json.loads(out.stdout)


def facts(r):
    """What both formats hold, rounded to the microsecond both readers round to."""
    steps = r['steps']
    idle = r['idle_causes']
    parts = r['step_breakdown']['parts']
    return {
        'step count': steps['count'],
        'step numbers': [row['number'] for row in steps['rows']],
        'step durations us': [row['dur_us'] for row in steps['rows']],
        'gpu window': r['gpu']['window'],
        'gpu busy us': r['gpu']['busy_us'],
        'gpu idle %': r['gpu']['idle_pct'],
        'idle us': idle['idle_us'],
        'idle sync us': idle['sync_us'],
        # The data loader's gaps are found by its CPU op (enumerate(DataLoader)#...__next__):
        # without it each is a host wait or other, by whether its next op's launch came after
        # the gap began.
        'idle host wait + data loader + other us': round(
            idle['host_wait_us'] + idle['dataloader_us'] + idle['other_us'], 3),
        'idle host wait us': idle['host_wait_us'],
        'idle other us': idle['other_us'],
        'top kernels': [(k['name'], k['count'], k['total_us']) for k in r['kernels']['rows'][:10]],
        'copies': [(m['kind'], m['count'], m['bytes'], m['pageable'])
                   for m in r['memory_ops']['rows']],
        'DtoH in steps': r['sync']['dtoh_in_steps'],
        'sync calls': [(c['name'], c['count'], c['total_us']) for c in r['sync']['calls']],
        'launches': (r['launch_stats']['launches'], r['launch_stats']['short_kernels']),
        'step kernel/memcpy/memset us': (parts['kernel_us'], parts['memcpy_us'],
                                         parts['memset_us']),
        'findings': finding_ids(r),
    }


# The critical path of each pair, measured, not checked (docs/nsys-versions.md, "critical path"):
# an export's graph has the CUDA calls (and emit_nvtx's op ranges) for a CPU side, a trace's the
# CPU ops, so the two paths differ by construction; how close they come is printed at the end.
CRITICAL_PATHS = []


def critical_path_of(r):
    """(path total us, dominant bound, cpu-bound %) of a report's default window, or None."""
    cp = r.get('critical_path') or {}
    if not cp.get('ok'):
        return None
    return cp['path_total_us'], cp['dominant'], cp['bound_by_pct'].get('cpu_bound', 0.0)


def note_critical_paths(name, kin, nsys, ops):
    CRITICAL_PATHS.append((name, critical_path_of(kin), critical_path_of(nsys), critical_path_of(ops)))


def print_critical_paths():
    if not CRITICAL_PATHS:
        return
    print('critical path (measured, not compared): trace / export / export with emit_nvtx ops')
    for label, k in (('export', 2), ('export with op ranges', 3)):
        pairs = [(row[1], row[k]) for row in CRITICAL_PATHS if row[1] and row[k]]
        same = sum(1 for a, b in pairs if a[1] == b[1])
        close = sum(1 for a, b in pairs if abs(a[0] - b[0]) <= 0.1 * a[0])
        cpu = [abs(a[2] - b[2]) for a, b in pairs]
        print('  %s: %d of %d traces with a path in both; dominant bound the same in %d, path '
              'total within 10%% in %d, cpu-bound share apart by %.1f points at the median' % (
                  label, len(pairs), len(CRITICAL_PATHS), same, close,
                  sorted(cpu)[len(cpu) // 2] if cpu else 0.0))
    for name, a, b, c in CRITICAL_PATHS:
        print('   %-60s %s / %s / %s' % (name[:60], a and '%.0f us %s' % a[:2], b and '%.0f us %s' % b[:2],
                                        c and '%.0f us %s' % c[:2]))


def finding_ids(r):
    return sorted(set(SAME_FACT.get(f['id'], f['id']) for f in r['findings']
                      if not any(f['id'].startswith(k) for k in FORMAT_ONLY)))


def compare(name, kin, nsys):
    a, b = facts(kin), facts(nsys)
    if kin['idle_causes']['dataloader_gaps']:  # compared in their sum only
        for k in ('idle host wait us', 'idle other us'):
            del a[k], b[k]
    diffs = ['%s: trace %s, export %s' % (k, a[k], b[k]) for k in a if a[k] != b[k]]
    print('%s %s' % ('same' if not diffs else 'DIFFERENT', name))
    for d in diffs:
        print('   ' + d[:400])
    return not diffs


# With emit_nvtx's op ranges (from_kineto --pytorch=autograd-shapes-nvtx) an export holds the CPU
# ops, so only these stay findings of a trace alone (docs/nsys-versions.md, "With emit_nvtx").
FORMAT_ONLY_WITH_OPS = {k: v for k, v in FORMAT_ONLY.items() if k in (
    'critical_path.', 'capture.diagnostic_flags', 'cpu.python_overhead')}


def op_facts(r):
    """What a trace's CPU ops give, which an export holds as emit_nvtx's ranges."""
    idle, parts = r['idle_causes'], r['step_breakdown']['parts']
    g, m = r['gpu_metrics'], r['math']
    return {
        'idle data loader / host wait / other us': (idle['dataloader_us'], idle['host_wait_us'],
                                                    idle['other_us']),
        # Without steps the window is the whole trace, whose span is the format's (a trace's
        # Python frames and profiler spans, the export's rows): its "other" differs with it.
        'step breakdown parts': (parts if r['step_breakdown']['window'] == 'steps' else
                                 {k: v for k, v in parts.items() if k != 'other_us'}),
        # The CPU side of the chain a DtoH copy came from; an export says it read NVTX.
        'DtoH origins': [(o['cpu_ops'].replace(' (NVTX)', ''), o['count'], o['bytes'])
                         for o in r['sync']['dtoh_origins']],
        # The collectives' GPU time by op: a trace joins an NCCL kernel to record_param_comms by
        # the launch's flow, an export to the innermost op range open at the launch, which is
        # the same op once emit_nvtx's bare-named ops (record_param_comms) are ops.
        'GPU time by op, collectives': sorted(
            (row['name'], row['gpu_ops'], row['self_us'], row['total_us'])
            for row in r['gpu_by_op']['rows'] if row['name'] == 'record_param_comms'
            or row['name'].startswith(('c10d::', 'nccl:'))),
        'tensor-core eligible ops': (g['tensor_core_eligible_ops'], g['tensor_core_eligible_us'],
                                     g['top_eligible_op']),
        # The ops counted and their FLOPs (a trace without counted ops has no math to compare).
        'math': ((m['totals']['counted_ops'], m['totals']['flops'], m['totals']['math_kernel_us'],
                  [(row.get('step'), row.get('flops'), row.get('mfu_pct'))
                   for row in m.get('steps') or []])
                 if (m.get('totals') or {}).get('counted_ops') else 'none counted'),
        'findings': sorted(set(SAME_FACT.get(f['id'], f['id']) for f in r['findings']
                               if not any(f['id'].startswith(k) for k in FORMAT_ONLY_WITH_OPS)
                               and f['id'] != 'nsys.emit_nvtx')),
    }


def without_concrete_inputs(cli, path, tmp):
    """The report of the trace at `path` without its ops' "Concrete Inputs" (a scalar argument's
    value: is_causal, a convolution's stride), which emit_nvtx's ranges do not hold (sizes only);
    None when the trace has none."""
    trace = from_kineto.load(path)
    found = False
    for ev in trace.get('traceEvents', []):
        if isinstance(ev, dict) and 'Concrete Inputs' in (ev.get('args') or {}):
            del ev['args']['Concrete Inputs']
            found = True
    if not found:
        return None
    out = os.path.join(tmp, 'no_concrete_inputs.json')
    with open(out, 'w') as f:
        json.dump(trace, f)
    return report(cli, out)


def compare_ops(name, kin, ops, sizes_only=None):
    """`ops`: the export with emit_nvtx's op ranges. Every fact compared without them stays, and
    what a trace's CPU ops give (op_facts) is the same. `sizes_only()`: the trace's report
    without the ops' concrete inputs (without_concrete_inputs), asked for when the FLOPs
    differ: the math must then be that report's."""
    a, b = facts(kin), facts(ops)
    del a['findings'], b['findings']  # op_facts' with fewer format-only ids
    a.update(op_facts(kin))
    b.update(op_facts(ops))
    if a['math'] != b['math'] and sizes_only:
        plain = sizes_only()
        if plain and op_facts(plain)['math'] == b['math']:
            print('   %s with emit_nvtx: FLOPs as the trace\'s without its concrete inputs (%s, '
                  'trace %s)' % (name, str(b['math'])[:60], str(a['math'])[:60]))
            a['math'] = b['math']
    diffs = ['%s: trace %s, export %s' % (k, a[k], b[k]) for k in a if a[k] != b[k]]
    # Each op both list: as many calls, the same self time within a microsecond (the trace's
    # rounding) and 1% (the converter's 1 ns shifts of nested ranges). The export's CUDA calls
    # are their innermost op's children, as a trace's runtime events are (cpu_op_summary_export.h).
    rows = [{r['name']: r for r in rep['cpu_ops']['rows']} for rep in (kin, ops)]
    for op in sorted(set(rows[0]) & set(rows[1])):
        x, y = rows[0][op], rows[1][op]
        if x['count'] != y['count'] or abs(x['self_us'] - y['self_us']) > 1 + 0.01 * x['self_us']:
            diffs.append('cpu_ops %s: trace %s calls, %s us self; export %s calls, %s us self' % (
                op, x['count'], x['self_us'], y['count'], y['self_us']))
    print('%s %s with emit_nvtx' % ('same' if not diffs else 'DIFFERENT', name))
    for d in diffs:
        print('   ' + d[:400])
    return not diffs


def host_activity(r):
    """What the launching thread did in the long host waits, by innermost call ("poll (OS
    runtime)"; the NVTX ranges around it, "ncclAllReduce (NVTX) > ...", left out)."""
    out = {}
    for a in r['idle_causes'].get('long_host_wait_activity', []):
        what = a['activity'].split(' > ')[-1]
        out[what] = round(out.get(what, 0) + a['dur_us'], 3)
    return out


def compare_extras(name, kin, nsys, full):
    """`full`: the export with a real capture's extra rows (from_kineto.add_capture_extras).
    Every fact compared with the trace stays, but for one finding that must come: the capture
    starts with the process (CUDA's context creation), nsys.from_process_start. In the long host
    waits, the OS runtime calls put on the launching threads (poll in a DataLoader wait, ioctl in
    a CUDA call waiting for the GPU) may take time from what held it without them, nothing else
    (the profiler's threads and the others' pthread_cond_wait are on no launching thread), and no
    finding names Nsight Systems' own threads."""
    bad = []
    ids = [f['id'] for f in full['findings']]
    # (the context is made in a process's first CUDA call: a trace with none has none)
    if 'nsys.from_process_start' not in ids and nsys['api_calls']['rows']:
        bad.append('no nsys.from_process_start: the capture starts with the process')
    if 'capture.warmup_ops' not in finding_ids(kin):
        full = dict(full, findings=[f for f in full['findings']
                                    if f['id'] != 'nsys.from_process_start'])
    ok = compare(name + ' with extras', kin, full)
    plain, extra = host_activity(nsys), host_activity(full)
    leads = [r['idle_causes'].get('long_host_wait_lead') for r in (nsys, full)]
    if leads[0] != leads[1]:
        print('   %s with extras: the long host waits\' lead: %r, %r without the extras'
              % (name, leads[1], leads[0]))
    for what, us in extra.items():
        if what.endswith('(OS runtime)'):
            if what not in ('poll (OS runtime)', 'ioctl (OS runtime)'):
                bad.append('%s: not one of the extras\' calls on a launching thread' % what)
        elif us > plain.get(what, 0) + 1:
            bad.append('%s: %s us, %s us without the extras' % (what, us, plain.get(what, 0)))
    waits = [r['idle_causes'].get('long_host_wait_us') for r in (nsys, full)]
    if waits[0] != waits[1]:
        bad.append('long host waits: %s us, %s us without the extras' % (waits[1], waits[0]))
    names = json.dumps(full['findings'])
    for own in from_kineto.PROFILER_THREADS + ('CUPTI: Buffer flush', 'pthread_cond_wait'):
        if own in names:
            bad.append('a finding names %s' % own)
    for b in bad:
        print('   %s with extras: %s' % (name, b))
    return ok and not bad


# The traces compared with GPU metrics and context switches too (besides the DLRM ranks): a
# DataLoader run, one with tensor-core kernels, a short one; kept few for the script's time.
SAMPLED = ('kineto__resnet50_nw4__', 'tracelens__h100__Qwen_', 'tracelens__h100__gaunernst_bert',
           'kineto__gpu_metrics_input')
# Findings the sampled rows may add: nsys says the capture sampled GPU metrics (a must), and the
# measured tensor-core activity may be low (gpu_metric_rules.cpp, checked in compare_sampled).
SAMPLED_FINDINGS = ('nsys.metrics_sampling', 'gpu.low_tensor_active', 'gpu.memory_bound',
                    'gpu.low_occupancy')
# The further series (from_kineto.MORE_METRICS, a model) by the report's key: the mean the
# export's samples give, read back by the report (measured `<key>_pct`).
MORE_KEYS = (('sm_issue', ('SM Issue',)), ('warps_in_flight', ('Compute Warps in Flight',)),
             ('unallocated_warps', ('Unallocated Warps in Active SMs',)),
             ('dram_read', ('DRAM Read Bandwidth',)), ('dram_write', ('DRAM Write Bandwidth',)),
             ('pcie_rx', ('PCIe RX Throughput',)), ('pcie_tx', ('PCIe TX Throughput',)),
             ('nvlink_rx', ('NVLink RX Responses User Data',)),
             ('nvlink_tx', ('NVLink TX Responses User Data',)), ('gr_active', ('GR Active',)))


def sample_means(path):
    """{(device, series name without its unit): mean of all its samples} of an export, read by
    SQL, apart from the CLI's reading."""
    import sqlite3
    db = sqlite3.connect(path)
    names = {(t, m): n.split(' [')[0] for t, m, n in
             db.execute('SELECT typeId, metricId, metricName FROM TARGET_INFO_GPU_METRICS')}
    out = {}
    for t, m, mean in db.execute('SELECT typeId, metricId, AVG(value) FROM GPU_METRICS '
                                 'GROUP BY typeId, metricId'):
        out[(t & 0xFF, names[(t, m)])] = mean
    db.close()
    return out


def check_more_metrics(d, means, findings):
    """The further measured series of one device: each the mean the export holds (the reading
    path: names without units, the device, NVLink's sum); Unallocated + Warps in Flight = SMs
    Active within the samples' rounding; gpu.memory_bound and gpu.low_occupancy where their
    thresholds (gpu_sampled_rules.cpp) say, on the report's own numbers, and nowhere else."""
    bad, m, dev = [], d.get('measured') or {}, d['device']
    for key, series in MORE_KEYS:
        want = [means[(dev, s)] for s in series if (dev, s) in means]
        got = m.get(key + '_pct')
        if not want and got is None:
            continue
        if got is None or not want or abs(got - sum(want)) > 0.006:
            bad.append('%s: %s%% in the report, %s%% in the export' % (key, got, sum(want)))
    steps = lambda k: m.get(k + '_steps_pct')
    sm, warps, unalloc = steps('sm_active'), steps('warps_in_flight'), steps('unallocated_warps')
    if None not in (sm, warps, unalloc) and warps + unalloc < sm - 0.5:
        bad.append('warps in flight %s%% + unallocated %s%% short of SM Active %s%%' % (
            warps, unalloc, sm))
    busy = steps('gr_active')
    if busy and busy > 0:
        of = lambda v: min(100.0, 100.0 * (v or 0) / busy)
        dram, issue = of((steps('dram_read') or 0) + (steps('dram_write') or 0)), of(steps('sm_issue'))
        slots = (warps or 0) + (unalloc or 0)
        occ = 100.0 * (warps or 0) / slots if slots else 100.0
        want = {'gpu.memory_bound': busy >= 30 and dram >= 60 and issue < 25,
                'gpu.low_occupancy': busy >= 30 and of(slots) >= 50 and occ < 25 and
                issue < 30 and dram < 40 and of(steps('tensor_active')) < 30}
        for fid, expect in want.items():
            # Near a threshold the report's unrounded means decide: only a clear miss counts.
            fired = any(f['id'] == fid and f['evidence'].get('device') == dev for f in findings)
            if fired != expect:
                bad.append('%s %s (busy %.1f%%, DRAM %.1f%%, issue %.1f%%, occupancy %.1f%% of '
                           'the busy time)' % (fid, 'fires' if fired else 'is missing', busy,
                                               dram, issue, occ))
        print('   device %s: busy %.1f%%, DRAM %.1f%%, SM Issue %.1f%%, occupancy %.1f%% (model)%s'
              % (dev, busy, dram, issue, occ, ''.join(
                  ', ' + f['id'] for f in findings if f['id'] in SAMPLED_FINDINGS[2:])))
    return bad


def metrics_tolerance_pct(r):
    """How far a sampled mean over the steps may be from the trace's exact one, in points: the
    steps' edges cut a 100 us sample at each end of the window, and each sample is rounded to an
    integer percent (0.5 points, which averages out), so 0.5 + 2 periods of the window."""
    window = r['gpu_metrics']['window_us']
    return 0.5 + (100.0 * 2 * from_kineto.SAMPLE_NS / 1000.0 / window if window else 100.0)


def compare_sampled(name, kin, full, sampled, path):
    """`sampled`: the export with extras plus GPU_METRICS and SCHED_EVENTS. Every fact compared
    with the trace stays (findings but SAMPLED_FINDINGS); nsys.metrics_sampling fires; each
    device's measured SM Active in the steps is the trace's est. SM efficiency within
    metrics_tolerance_pct (both count a kernel's SMs as min(blocks / SMs, 1)); the report uses the
    measured value where it has it; gpu.low_tensor_active only under its threshold; in the long
    host waits only off/on CPU time may take time from "nothing recorded", and the lead stays
    what it is with the extras or, where nothing recorded led, becomes the CPU state; the further
    series as check_more_metrics says (`path`: the sampled export)."""
    bad = []
    means = sample_means(path)
    ids = [f['id'] for f in sampled['findings']]
    if 'nsys.metrics_sampling' not in ids:
        bad.append('no nsys.metrics_sampling')
    kept = dict(sampled, findings=[f for f in sampled['findings']
                                   if f['id'] not in SAMPLED_FINDINGS and
                                   (f['id'] != 'nsys.from_process_start' or
                                    'capture.warmup_ops' in finding_ids(kin))])
    ok = compare(name + ' with GPU metrics', kin, kept)
    tol = metrics_tolerance_pct(kin)
    est = {d['device']: d for d in kin['gpu_metrics']['devices']}
    for d in sampled['gpu_metrics']['devices']:
        m, e = d.get('measured') or {}, est.get(d['device'])
        if not m or e is None:
            bad.append('device %s: no measured metrics' % d['device'])
            continue
        sm, sm_est = m.get('sm_active_steps_pct'), e.get('sm_efficiency_pct')
        if sm is None or sm_est is None or abs(sm - sm_est) > tol:
            bad.append('device %s: SM Active %s%% measured, est. SM efficiency %s%% (tolerance '
                       '%.2f)' % (d['device'], sm, sm_est, tol))
        bad += ['device %s: %s' % (d['device'], b)
                for b in check_more_metrics(d, means, sampled['findings'])]
        tc = m.get('tensor_active_steps_pct')
        low = [f for f in sampled['findings'] if f['id'] == 'gpu.low_tensor_active' and
               f['evidence'].get('device') == d['device']]
        # By construction Tensor Active is the tensor-core kernels' coverage: where they take
        # 10% of the kernel time or more (the rule's threshold), the tensor cores were not idle.
        if low and e['tensor_core_pct'] >= 10:
            bad.append('gpu.low_tensor_active (Tensor Active %s%% in the steps) while tensor-core '
                       'kernels take %s%% of kernel time' % (tc, e['tensor_core_pct']))
        print('   %s with GPU metrics: device %s SM Active %.2f%% measured, est. SM efficiency '
              '%.2f%% (tolerance %.2f), Tensor Active %s%%, tensor-core kernels %s%% of kernel '
              'time%s' % (name, d['device'], sm or 0, sm_est or 0, tol, tc, e['tensor_core_pct'],
                          ', gpu.low_tensor_active' if low else ''))
    for f in sampled['findings']:
        if f['id'] == 'gpu.low_sm_efficiency' and 'measured' not in f['title']:
            bad.append('gpu.low_sm_efficiency says the estimate: %s' % f['title'])
    plain, now = host_activity(full), host_activity(sampled)
    for what, us in now.items():
        if what not in ('off CPU (no call traced)', 'on CPU (no call traced)') and \
                us > plain.get(what, 0) + 1:
            bad.append('%s: %s us, %s us without the samples' % (what, us, plain.get(what, 0)))
    # The lead may only become the thread's CPU state where nothing recorded held it.
    leads = [r['idle_causes'].get('long_host_wait_lead') for r in (full, sampled)]
    if leads[0] != leads[1] and not (leads[0] in (None, 'nothing recorded') and leads[1] in (
            'off CPU (no call traced)', 'on CPU (no call traced)')):
        bad.append('the long host waits\' lead: %r, %r without the samples' % (leads[1], leads[0]))
    for b in bad:
        print('   %s with GPU metrics: %s' % (name, b))
    return ok and not bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--traces', default=os.path.join(HERE, '..', '..', '..', 'shared', 'traces'))
    ap.add_argument('--only', nargs='+', metavar='SUBSTR',
                    help='only the traces whose file name holds one of these (no plants)')
    a = ap.parse_args()
    if not os.path.isdir(a.traces):
        print('SKIPPED: %s is absent (the real traces)' % os.path.normpath(a.traces))
        return 0
    manifest = json.load(open(os.path.join(a.traces, 'MANIFEST.json')))
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        ranks = []
        for entry in manifest['files']:
            if not entry.get('has_gpu_kernels') or entry.get('device_type') != 'CUDA':
                continue
            if a.only and not any(k in entry['file'] for k in a.only):
                continue
            path = os.path.join(a.traces, entry['file'])
            try:
                e = from_kineto.convert(from_kineto.load(path))
            except from_kineto.Skipped as why:  # a CUDA trace with kernels must convert
                print('FAILED %s: %s' % (entry['file'], why))
                ok = False
                continue
            out = os.path.join(tmp, entry['file'].split('.json')[0] + '.sqlite')
            e.save(out)
            kin = report(a.cli, path)
            # A single-step run's one NVTX step range holds most of its capture: read as its
            # step with no flag, as its one ProfilerStep is.
            nsys = report(a.cli, out, [])
            ok &= compare(entry['file'], kin, nsys)
            # The same run as the real capture holds it (from_kineto.add_capture_extras): the
            # facts must not move, only what the extra rows say.
            full = out.replace('.sqlite', '.full.sqlite')
            from_kineto.convert(from_kineto.load(path), extras=True).save(full)
            full_report = report(a.cli, full)
            ok &= compare_extras(entry['file'], kin, nsys, full_report)
            dlrm = entry['file'].startswith('param__dlrm_kineto__worker')
            if dlrm or entry['file'].startswith(SAMPLED):
                # With GPU metrics and context switches besides (compare_sampled).
                sampled = out.replace('.sqlite', '.sampled.sqlite')
                from_kineto.convert(from_kineto.load(path), extras=True, gpu_metrics=True,
                                    cpuctxsw=True).save(sampled)
                ok &= compare_sampled(entry['file'], kin, full_report, report(a.cli, sampled),
                                      sampled)
            # The same run under nsys profile --pytorch=autograd-shapes-nvtx: the CPU ops too.
            with_ops = out.replace('.sqlite', '.ops.sqlite')
            from_kineto.convert(from_kineto.load(path),
                                pytorch='autograd-shapes-nvtx').save(with_ops)
            ops_report = report(a.cli, with_ops)
            ok &= compare_ops(entry['file'], kin, ops_report,
                              lambda: without_concrete_inputs(a.cli, path, tmp))
            note_critical_paths(entry['file'], kin, nsys, ops_report)
            if dlrm:
                ranks.append((path, out, full, sampled))
        if ranks:
            ok &= compare_ranks(a.cli, [(p, o) for p, o, _, _ in sorted(ranks)])
            ok &= compare_ranks(a.cli, [(p, f) for p, _, f, _ in sorted(ranks)], 'with extras')
            ok &= compare_ranks(a.cli, [(p, s) for p, _, _, s in sorted(ranks)],
                                'with GPU metrics')
        if not a.only:
            ok &= compare_plants(a.cli, a.traces, tmp)
    print_critical_paths()
    print('kineto_parity: %s' % ('every difference is a format difference' if ok else 'FAILED'))
    return 0 if ok else 1


def compare_plants(cli, traces, tmp):
    """tests/corpus/planted.py's problems planted into the real ResNet-50 trace, then converted:
    each planted finding in both reports, or (the data loader's, found by its CPU op) in neither
    export, its gaps host waits there."""
    sys.path.insert(0, os.path.join(HERE, '..', 'corpus'))
    import metamorphic as mm
    import planted
    ok = True
    base = mm.load(os.path.join(traces, planted.BASE))
    for plant, fid in ((planted.plant_dtoh, 'sync.dtoh_in_step'),
                       (planted.plant_warmup, 'steps.warmup_in_window'),
                       (planted.plant_dataloader, 'dataloader.slow')):
        path = planted.write(plant(mm.copy_doc(base)), os.path.join(tmp, 'planted.json'))
        out = os.path.join(tmp, 'planted.sqlite')
        from_kineto.convert(from_kineto.load(path)).save(out)
        kin, nsys = report(cli, path), report(cli, out)
        name = '%s planted' % plant.__name__
        same = compare(name, kin, nsys)
        fired = [fid in (f['id'] for f in r['findings']) for r in (kin, nsys)]
        want = [True, fid not in FORMAT_ONLY]
        if fired != want:
            print('   %s: %s fires in trace %s, export %s' % (name, fid, *fired))
        ok &= same and fired == want
        # With a real capture's extra rows, the same; and the DataLoader's waits, "nothing
        # recorded" on the launching thread without them, are now the poll the host waited in.
        full = from_kineto.convert(from_kineto.load(path), extras=True)
        full.save(out)
        full = report(cli, out)
        ok &= compare_extras(name, kin, nsys, full)
        lead = full['idle_causes'].get('long_host_wait_lead')
        if plant is planted.plant_dataloader and lead != 'in poll (OS runtime)':
            print('   %s with extras: the long host waits\' lead is %r, not the DataLoader\'s '
                  'poll (without the extras: %r)' % (name, lead,
                                                      nsys['idle_causes'].get('long_host_wait_lead')))
            ok = False
    return ok


def collective(name):
    """A collective's kind as both formats can say it. A trace names it by its CPU op (all_reduce
    in the nccl:* annotations before PyTorch 2.2, allreduce after), an export by its NCCL kernel
    (allreduce): compared without case and '_'. NCCL runs all-to-all as SendRecv kernels, as it
    runs send/recv: an export cannot tell them apart."""
    key = name.replace('_', '').lower()
    return 'sendrecv or alltoall' if key in ('sendrecv', 'alltoall') else key


def compare_ranks(cli, ranks, label=''):
    """The 8 DLRM ranks as one multi-rank report: Kineto traces vs exports."""
    kin = report(cli, ranks[0][0], [p for p, _ in ranks[1:]])
    nsys = report(cli, ranks[0][1], [p for _, p in ranks[1:]])

    def rank_facts(r):
        ranks = ('rank', 'steps', 'step_median_us', 'gpu_span_us', 'busy_us', 'compute_us',
                 'communication_us', 'overlap_us', 'collectives', 'collective_sum_us',
                 'transfer_us', 'wait_us')
        c = r['collectives']
        straggler = [f['evidence'] for f in r['findings'] if f['id'] == 'ranks.straggler']
        return {
            'ranks': [tuple(row.get(k) for k in ranks) for row in r['ranks']],
            'step times us': r['heatmap']['step_time_us'],
            'collective wait us': r['heatmap']['collective_wait_us'],
            'collectives matched': (c['counts_match'], c['names_match'], c['matched']),
            # dtype, element counts and bytes come from the record_param_comms CPU op.
            'collectives': [(row['name'], collective(row['collective']), row['dur_us'],
                             row['transfer_us']) for row in c['rows']],
            'late start': r['late_start'],
            'straggler': [(e['rank'], e['its_communication_us'], e['others_median_us'])
                          for e in straggler],
            'findings': finding_ids(r),
        }
    a, b = rank_facts(kin), rank_facts(nsys)
    diffs = ['%s: traces %s, exports %s' % (k, a[k], b[k]) for k in a if a[k] != b[k]]
    print('%s DLRM 8 ranks %s' % ('same' if not diffs else 'DIFFERENT', label))
    for d in diffs:
        print('   ' + d[:400])
    return not diffs


if __name__ == '__main__':
    sys.exit(main())
