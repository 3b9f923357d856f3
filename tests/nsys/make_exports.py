#!/usr/bin/python3
"""Builds small Nsight Systems SQLite exports for the tests, into build/nsys/ (or the folder given).

THESE FILES ARE BUILT, NOT CAPTURED: no nsys binary runs here. They follow NVIDIA's documented
export schema (https://docs.nvidia.com/nsight-systems/UserGuide/ "Export Formats: SQLite Schema
Reference") with the tables and columns of the real export in ../shared/nsys/
(perlmutter-cloverleaf-cuda.sqlite, Nsight Systems 2024.5, schema 3.13.2) as the model: times in
integer ns since the session start, names in StringIds, globalTid = (pid << 24) | tid in the low
48 bits, the ENUM_* tables' values. What the real file lacks (NVTX, GPU metrics, several ranks) is
built to the documentation: NVTX_EVENTS eventType 59 = push/pop range, 60 = start/end range,
34 = mark; GPU_METRICS rows keyed by (typeId, metricId) with the GPU in typeId & 0xFF.

Run with Debian's Python (standard sqlite3 module): /usr/bin/python3 tests/nsys/make_exports.py [DIR]
  --seeds DIR: small versions (512-byte pages, few rows) as the fuzzer's seed corpus
Files (deterministic: same bytes every run):
  training_steps.sqlite      NVTX ProfilerStep#N push/pop ranges with kernels, a DtoH copy and a
                             cudaStreamSynchronize inside each step; NVTX marks and a start/end
                             range; OS runtime rows; GPU metrics (SM Active, Tensor Active, ...)
  train_step_ranges.sqlite   the same run with NVTX ranges named train_step (no step number)
  process_start.sqlite       a capture from process start: driver init, context creation, a
                             cudaMalloc storm, then a few kernels and a memset
  empty_capture.sqlite       --capture-range=cudaProfilerApi whose range never opened: no CUDA
                             tables at all, only the process, threads and OS runtime rows
  trace_rank{0..3}.sqlite    four ranks of one job: ProfilerStep#N ranges, compute kernels and
                             NCCL all-reduce/all-gather kernels; rank 2 computes longest, so it
                             arrives last at every collective and its NCCL kernels are the
                             shortest (the straggler); DeviceEnvironment has RANK/WORLD_SIZE
  old_schema.sqlite          an older export: schema 2.x, kernels without demangledName, memcpys
                             without srcKind/dstKind, no ENUM tables
  view_named_kernel.sqlite   an export whose CUPTI_ACTIVITY_KIND_KERNEL is a VIEW over another
                             table (must be ignored and noted), runtime rows real
  not_an_export.sqlite       a SQLite database that is not an export (an app's tables)
  damaged_truncated.sqlite   training_steps.sqlite cut off at 55% of its bytes
  damaged_garbage.sqlite     training_steps.sqlite with pages in its middle overwritten by noise
  not_sqlite.sqlite          a text file named .sqlite
"""
import os
import random
import sqlite3
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), '..', '..', 'build', 'nsys')

SESSION_START = 1733000000000000000  # utcEpochNs of the built sessions

# Table definitions: column lists of the real export (schema 3.13.2), types as documented.
TABLES = {
    'StringIds': 'id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL',
    'META_DATA_EXPORT': 'name TEXT NOT NULL, value TEXT',
    'TARGET_INFO_SESSION_START_TIME': 'utcEpochNs INTEGER, utcTime TEXT, localTime TEXT',
    'PROCESSES': 'globalPid INTEGER, pid INTEGER, name TEXT',
    'ThreadNames': 'nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER',
    'TARGET_INFO_GPU': ('vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT, '
                        'isDiscrete INTEGER, l2CacheSize INTEGER, totalMemory INTEGER, '
                        'memoryBandwidth INTEGER, clockRate INTEGER, smCount INTEGER, '
                        'pwGpuId INTEGER, uuid TEXT, luid INTEGER, chipName TEXT, cuDevice INTEGER, '
                        'computeMajor INTEGER, computeMinor INTEGER'),
    'TARGET_INFO_SYSTEM_ENV': ('globalVid INTEGER, devStateName TEXT NOT NULL, name TEXT NOT NULL, '
                               'nameEnum INTEGER NOT NULL, value TEXT NOT NULL'),
    'ENUM_NSYS_EVENT_CLASS': 'id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT',
    'ENUM_CUDA_MEMCPY_OPER': 'id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT',
    'ENUM_CUDA_MEM_KIND': 'id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT',
    'ENUM_CUPTI_SYNC_TYPE': 'id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT',
    'CUPTI_ACTIVITY_KIND_RUNTIME': ('start INTEGER NOT NULL, end INTEGER NOT NULL, '
                                    'eventClass INTEGER NOT NULL, globalTid INTEGER, '
                                    'correlationId INTEGER, nameId INTEGER NOT NULL, '
                                    'returnValue INTEGER NOT NULL, callchainId INTEGER'),
    'CUPTI_ACTIVITY_KIND_KERNEL': ('start INTEGER NOT NULL, end INTEGER NOT NULL, '
                                   'deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, '
                                   'greenContextId INTEGER, streamId INTEGER NOT NULL, '
                                   'correlationId INTEGER, globalPid INTEGER, '
                                   'demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, '
                                   'mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, '
                                   'registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, '
                                   'gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, '
                                   'blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, '
                                   'blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, '
                                   'dynamicSharedMemory INTEGER NOT NULL, '
                                   'localMemoryPerThread INTEGER NOT NULL, '
                                   'localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, '
                                   'sharedMemoryExecuted INTEGER, graphNodeId INTEGER, '
                                   'sharedMemoryLimitConfig INTEGER'),
    'CUPTI_ACTIVITY_KIND_MEMCPY': ('start INTEGER NOT NULL, end INTEGER NOT NULL, '
                                   'deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, '
                                   'greenContextId INTEGER, streamId INTEGER NOT NULL, '
                                   'correlationId INTEGER, globalPid INTEGER, '
                                   'bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, '
                                   'deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, '
                                   'srcDeviceId INTEGER, srcContextId INTEGER, dstDeviceId INTEGER, '
                                   'dstContextId INTEGER, migrationCause INTEGER, '
                                   'graphNodeId INTEGER, virtualAddress INTEGER'),
    'CUPTI_ACTIVITY_KIND_MEMSET': ('start INTEGER NOT NULL, end INTEGER NOT NULL, '
                                   'deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, '
                                   'greenContextId INTEGER, streamId INTEGER NOT NULL, '
                                   'correlationId INTEGER, globalPid INTEGER, '
                                   'value INTEGER NOT NULL, bytes INTEGER NOT NULL, '
                                   'graphNodeId INTEGER, memKind INTEGER'),
    'CUPTI_ACTIVITY_KIND_SYNCHRONIZATION': ('start INTEGER NOT NULL, end INTEGER NOT NULL, '
                                            'deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, '
                                            'greenContextId INTEGER, streamId INTEGER NOT NULL, '
                                            'correlationId INTEGER, globalPid INTEGER, '
                                            'syncType INTEGER NOT NULL, eventId INTEGER NOT NULL'),
    'NVTX_EVENTS': ('start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, '
                    'rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, '
                    'globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, '
                    'uint64Value INTEGER, int64Value INTEGER, doubleValue REAL, '
                    'uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, '
                    'jsonText TEXT'),
    'OSRT_API': ('start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, '
                 'globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, '
                 'nestingLevel INTEGER, callchainId INTEGER NOT NULL'),
    'TARGET_INFO_GPU_METRICS': ('typeId INTEGER NOT NULL, sourceId INTEGER NOT NULL, '
                                'typeName TEXT NOT NULL, metricId INTEGER NOT NULL, '
                                'metricName TEXT NOT NULL'),
    'GPU_METRICS': ('typeId INTEGER NOT NULL, timestamp INTEGER, metricId INTEGER NOT NULL, '
                    'value INTEGER NOT NULL'),
}

MEMCPY_OPER = ['UNKNOWN', 'HTOD', 'DTOH', 'HTOA', 'ATOH', 'ATOA', 'ATOD', 'DTOA', 'DTOD', 'HTOH',
               'PTOP', 'UVM_HTOD', 'UVM_DTOH', 'UVM_DTOD']
MEM_KIND = ['Pageable', 'Pinned', 'Device', 'Array', 'Managed', 'Device Static', 'Managed Static',
            'Unknown']
SYNC_TYPE = ['UNKNOWN', 'EVENT_SYNCHRONIZE', 'STREAM_WAIT_EVENT', 'STREAM_SYNCHRONIZE',
             'CONTEXT_SYNCHRONIZE']
HTOD, DTOH, DTOD = 1, 2, 8
PAGEABLE, PINNED, DEVICE = 0, 1, 2
STREAM_SYNC, EVENT_SYNC = 3, 1
RUNTIME, DRIVER = 0, 1
PUSHPOP, STARTEND, MARK = 59, 60, 34


def gtid(pid, tid):
    return (pid << 24) | tid


def gpid(pid):
    return pid << 24


class Export:
    """One export being built: rows collected in memory, written by save()."""

    def __init__(self, pid=4242, process='python', schema='3.13.2', with_enums=True):
        self.pid = pid
        self.strings = {}
        self.rows = {name: [] for name in TABLES}
        self.corr = 0
        self.schema = schema
        self.with_enums = with_enums
        self.process = process
        self.env = {}
        self.rows['PROCESSES'].append((gpid(pid), pid, process))

    def sid(self, text):
        if text not in self.strings:
            self.strings[text] = len(self.strings)
        return self.strings[text]

    def thread(self, tid, name):
        self.rows['ThreadNames'].append((self.sid(name), 0, gtid(self.pid, tid)))

    def gpu(self, dev, name='NVIDIA H100 80GB HBM3', sms=132, major=9, minor=0,
            memory=85520809984):
        self.rows['TARGET_INFO_GPU'].append(
            (0, dev, name, '0000:%02x:00.0' % (0x18 + dev), 1, 52428800, memory, 3352320000000,
             1980000000, sms, dev, 'GPU-%08d' % dev, 0, 'GH100', dev, major, minor))

    def api(self, tid, name, start, dur, driver=False):
        """A CUDA API call; returns its correlation id."""
        self.corr += 1
        self.rows['CUPTI_ACTIVITY_KIND_RUNTIME'].append(
            (start, start + dur, DRIVER if driver else RUNTIME, gtid(self.pid, tid), self.corr,
             self.sid(name), 0, None))
        return self.corr

    def kernel(self, corr, name, start, dur, dev=0, stream=7, grid=(128, 1, 1), block=(256, 1, 1),
               short=None):
        short = short or name.split('<')[0].split('(')[0].split(' ')[-1].split('::')[-1]
        self.rows['CUPTI_ACTIVITY_KIND_KERNEL'].append(
            (start, start + dur, dev, 1, None, stream, corr, gpid(self.pid), self.sid(name),
             self.sid(short), None, 1, 0, 32, grid[0], grid[1], grid[2], block[0], block[1],
             block[2], 0, 0, 0, 0, corr, 0, None, 0))

    def memcpy(self, corr, kind, src, dst, start, dur, nbytes, dev=0, stream=7):
        self.rows['CUPTI_ACTIVITY_KIND_MEMCPY'].append(
            (start, start + dur, dev, 1, None, stream, corr, gpid(self.pid), nbytes, kind, None, src,
             dst, dev, 1, dev, 1, 0, None, None))

    def memset(self, corr, start, dur, nbytes, dev=0, stream=7):
        self.rows['CUPTI_ACTIVITY_KIND_MEMSET'].append(
            (start, start + dur, dev, 1, None, stream, corr, gpid(self.pid), 0, nbytes, None,
             DEVICE))

    def sync(self, corr, sync_type, start, dur, dev=0, stream=7):
        self.rows['CUPTI_ACTIVITY_KIND_SYNCHRONIZATION'].append(
            (start, start + dur, dev, 1, None, stream, corr, gpid(self.pid), sync_type,
             0xFFFFFFFF))

    def nvtx(self, tid, text, start, end, kind=PUSHPOP, by_id=False):
        self.rows['NVTX_EVENTS'].append(
            (start, end, kind, None, None, None, None if by_id else text, gtid(self.pid, tid),
             gtid(self.pid, tid) if kind == STARTEND else None, self.sid(text) if by_id else None,
             0, None, None, None, None, None, None, None, None))

    def osrt(self, tid, name, start, dur):
        self.rows['OSRT_API'].append((start, start + dur, 27, gtid(self.pid, tid), self.sid(name),
                                      0, 0, 1))

    def metric(self, dev, metric_id, name, ts, value):
        type_id = 0x10000 | dev
        if not any(r[0] == type_id and r[3] == metric_id for r in self.rows['TARGET_INFO_GPU_METRICS']):
            self.rows['TARGET_INFO_GPU_METRICS'].append(
                (type_id, 0, 'GPU Metrics for GPU %d' % dev, metric_id, name))
        self.rows['GPU_METRICS'].append((type_id, ts, metric_id, value))

    def save(self, path, drop_columns=None, extra_sql=None, skip_tables=(), page_size=None):
        """Writes the tables that have rows (as nsys does), plus the fixed ones."""
        drop_columns = drop_columns or {}
        if os.path.exists(path):
            os.remove(path)
        db = sqlite3.connect(path)
        if page_size:
            db.execute('PRAGMA page_size=%d' % page_size)
        major, minor, micro = self.schema.split('.')
        meta = [('EXPORT_PRODUCT_NAME', 'NVIDIA Nsight Systems'),
                ('EXPORT_PRODUCT_VERSION', '2024.5.1.113'),
                ('EXPORT_SCHEMA_VERSION', self.schema),
                ('EXPORT_SCHEMA_VERSION_MAJOR', major),
                ('EXPORT_SCHEMA_VERSION_MINOR', minor),
                ('EXPORT_SCHEMA_VERSION_MICRO', micro),
                ('EXPORT_PARAM_TIME_NORMALIZE', 'false')]
        self.rows['META_DATA_EXPORT'] = meta
        self.rows['TARGET_INFO_SESSION_START_TIME'] = [
            (SESSION_START, '2024-11-30T21:33:20', '2024-11-30T21:33:20')]
        if self.env:
            env = ';'.join('%s=%s' % kv for kv in sorted(self.env.items()))
            self.rows['TARGET_INFO_SYSTEM_ENV'] = [(0, 'Default', 'DeviceEnvironment', 20, env)]
        if self.with_enums:
            self.rows['ENUM_NSYS_EVENT_CLASS'] = [
                (0, 'TRACE_PROCESS_EVENT_CUDA_RUNTIME', 'CUDA runtime'),
                (1, 'TRACE_PROCESS_EVENT_CUDA_DRIVER', 'CUDA driver'),
                (27, 'TRACE_PROCESS_EVENT_OS_RUNTIME', 'OS runtime libraries')]
            self.rows['ENUM_CUDA_MEMCPY_OPER'] = [
                (i, 'CUDA_MEMCPY_KIND_' + n, n) for i, n in enumerate(MEMCPY_OPER)]
            self.rows['ENUM_CUDA_MEM_KIND'] = [
                (i, 'CUDA_MEMOPR_MEMORY_KIND_' + n.upper().replace(' ', '_'), n)
                for i, n in enumerate(MEM_KIND)]
            self.rows['ENUM_CUPTI_SYNC_TYPE'] = [
                (i, 'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_' + n, n.title()) for i, n in enumerate(SYNC_TYPE)]
        self.rows['StringIds'] = [(i, s) for s, i in sorted(self.strings.items(), key=lambda kv: kv[1])]
        for name, cols in TABLES.items():
            rows = self.rows[name]
            if not rows or name in skip_tables:
                continue
            defs = [c.strip() for c in cols.split(', ')]
            keep = [i for i, d in enumerate(defs) if d.split()[0] not in drop_columns.get(name, ())]
            db.execute('CREATE TABLE %s (%s)' % (name, ', '.join(defs[i] for i in keep)))
            marks = ', '.join('?' * len(keep))
            db.executemany('INSERT INTO %s VALUES (%s)' % (name, marks),
                           [tuple(r[i] for i in keep) for r in rows])
        if extra_sql:
            db.executescript(extra_sql)
        db.commit()
        db.close()


def training(step_name='ProfilerStep#%d', steps=6):
    """A PyTorch-like loop under nsys: NVTX step ranges, kernels, a DtoH copy and a sync per step."""
    e = Export(pid=4242, process='python3')
    e.thread(4242, 'python3')
    e.thread(4250, 'pt_data_worker')
    e.gpu(0)
    t = 50_000_000
    kernels = [('ampere_sgemm_128x64_tn', 420_000, (256, 2, 1)),
               ('void at::native::vectorized_elementwise_kernel<4, at::native::GeluCUDAKernelImpl>'
                '(int, at::native::GeluCUDAKernelImpl, at::detail::Array<char *, 2>)', 95_000,
                (1024, 1, 1)),
               ('void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>'
                '(cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4::Params)', 610_000,
                (128, 4, 1)),
               ('void at::native::reduce_kernel<512, 1>(at::native::ReduceOp<float>)', 55_000,
                (64, 1, 1))]
    e.nvtx(4242, 'setup', t - 20_000_000, t - 1_000_000, by_id=True)
    e.nvtx(4242, 'epoch 0', t - 500_000, None, kind=STARTEND)  # never ended: open at the end
    for s in range(steps):
        name = step_name % s if '%d' in step_name else step_name
        step_start = t
        e.osrt(4250, 'read', t + 10_000, 300_000 + 10_000 * s)  # the data worker reads a batch
        e.osrt(4242, 'pthread_cond_wait', t + 5_000, 120_000)
        t += 150_000
        gpu_t = t + 30_000
        for i, (kname, kdur, grid) in enumerate(kernels):
            corr = e.api(4242, 'cudaLaunchKernel_v7000', t, 6_000)
            gpu_t = max(gpu_t, t + 12_000)
            e.kernel(corr, kname, gpu_t, kdur + 1_000 * s, grid=grid)
            gpu_t += kdur + 1_000 * s + 2_000
            t += 9_000
        # The loss goes back to the host inside the step: a pageable DtoH copy, then a sync.
        corr = e.api(4242, 'cudaMemcpyAsync_v3020', t, 15_000)
        e.memcpy(corr, DTOH, DEVICE, PAGEABLE, gpu_t, 4_000, 4096)
        gpu_t += 5_000
        t += 16_000
        corr = e.api(4242, 'cudaStreamSynchronize_v3020', t, max(gpu_t - t, 0) + 3_000)
        e.sync(corr, STREAM_SYNC, t, max(gpu_t - t, 0) + 2_000)
        t = max(gpu_t, t) + 4_000
        e.nvtx(4242, 'loss %d' % s, t, None, kind=MARK)
        t += 200_000  # optimizer and Python between the GPU work
        e.nvtx(4242, name, step_start, t)
        e.nvtx(4242, 'forward', step_start + 150_000, step_start + 150_000 + 4 * 9_000)
        for k in range(4):  # GPU metrics sampled every 10 us of the step's first 40 us
            ts = step_start + 10_000 * k
            e.metric(0, 1, 'SM Active', ts, 60 + k)
            e.metric(0, 2, 'Tensor Active', ts, 20 + k)
            e.metric(0, 3, 'DRAM Bandwidth', ts, 35)
        t += 50_000
    return e


def process_start():
    e = Export(pid=777, process='train.py')
    e.thread(777, 'python')
    e.gpu(0)
    t = 1_000_000
    e.api(777, 'cuInit', t, 180_000_000, driver=True)
    t += 180_000_000
    e.api(777, 'cuDevicePrimaryCtxRetain', t, 350_000_000, driver=True)
    t += 350_000_000
    e.api(777, 'cudaGetDeviceCount_v3020', t, 2_000)
    t += 10_000
    for i in range(200):  # the caching allocator warming up
        e.api(777, 'cudaMalloc_v3020', t, 40_000 + (i % 7) * 5_000)
        t += 60_000
    for i in range(20):
        corr = e.api(777, 'cudaMemsetAsync_v3020', t, 5_000)
        e.memset(corr, t + 8_000, 3_000, 1 << 20)
        t += 10_000
        corr = e.api(777, 'cudaLaunchKernel_v7000', t, 7_000)
        e.kernel(corr, 'void at::native::fill_kernel<float>(float*, float, int)', t + 9_000, 20_000)
        t += 40_000
    for i in range(50):
        e.api(777, 'cudaFree_v3020', t, 20_000)
        t += 25_000
    return e


def empty_capture():
    e = Export(pid=9001, process='python3')
    e.thread(9001, 'python3')
    e.gpu(0)
    for i in range(5):
        e.osrt(9001, 'poll', 1_000_000 + i * 100_000, 50_000)
    return e


def rank(r, world=4, steps=5):
    """One rank of a data-parallel job; rank 2 computes longest and arrives last at collectives."""
    e = Export(pid=5000 + r, process='python3')
    e.thread(5000 + r, 'python3')
    e.gpu(r)
    e.env = {'RANK': str(r), 'WORLD_SIZE': str(world), 'LOCAL_RANK': str(r),
             'MASTER_ADDR': 'node001'}
    tid = 5000 + r
    t = 100_000_000
    compute = 2_000_000 + (900_000 if r == 2 else 50_000 * r)
    for s in range(steps):
        step_start = t
        t += 100_000
        # Everybody's all-reduce ends when the last rank (rank 2) arrives, plus the transfer.
        slowest = 2_000_000 + 900_000
        corr = e.api(tid, 'cudaLaunchKernel_v7000', t, 8_000)
        e.kernel(corr, 'ampere_sgemm_128x128_nn', t + 20_000, compute, dev=r, stream=7)
        ar_start = t + 20_000 + compute + 5_000
        ar_end = t + 20_000 + slowest + 5_000 + 600_000
        corr = e.api(tid, 'cudaLaunchKernel_v7000', t + 12_000, 8_000)
        e.kernel(corr, 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm *, unsigned long, '
                 'ncclWork *)', ar_start, ar_end - ar_start, dev=r, stream=20, grid=(24, 1, 1),
                 block=(640, 1, 1), short='ncclDevKernel_AllReduce_Sum_f32_RING_LL')
        ag_start = ar_end + 10_000
        corr = e.api(tid, 'cudaLaunchKernel_v7000', t + 24_000, 8_000)
        e.kernel(corr, 'ncclDevKernel_AllGather_RING_LL(ncclDevComm *, unsigned long, ncclWork *)',
                 ag_start, 200_000, dev=r, stream=20, grid=(24, 1, 1), block=(640, 1, 1),
                 short='ncclDevKernel_AllGather_RING_LL')
        corr = e.api(tid, 'cudaStreamSynchronize_v3020', t + 40_000, ag_start + 200_000 - t - 40_000)
        e.sync(corr, STREAM_SYNC, t + 40_000, ag_start + 200_000 - t - 40_000, dev=r, stream=20)
        t = ag_start + 250_000
        e.nvtx(tid, 'ProfilerStep#%d' % s, step_start, t)
        t += 20_000
    return e


def seeds(out):
    """Small exports for the fuzzer (-max_len 64 KiB): 512-byte pages, few rows."""
    os.makedirs(out, exist_ok=True)
    p = lambda name: os.path.join(out, name)
    training(steps=1).save(p('training_steps'), page_size=512)
    rank(2, steps=1).save(p('rank'), page_size=512)
    e = process_start()
    for table in ('CUPTI_ACTIVITY_KIND_RUNTIME',):
        e.rows[table] = e.rows[table][:30]
    e.save(p('process_start'), page_size=512)
    empty_capture().save(p('empty_capture'), page_size=512)
    training(steps=1).save(p('old_schema'), page_size=512,
                           drop_columns={'CUPTI_ACTIVITY_KIND_KERNEL': ('demangledName',)},
                           skip_tables=('ENUM_CUDA_MEMCPY_OPER', 'ENUM_CUDA_MEM_KIND'))
    print('make_exports: wrote %d seeds into %s' % (len(os.listdir(out)), out))


def main():
    if len(sys.argv) > 2 and sys.argv[1] == '--seeds':
        seeds(sys.argv[2])
        return
    os.makedirs(OUT, exist_ok=True)
    p = lambda name: os.path.join(OUT, name)
    training().save(p('training_steps.sqlite'))
    training('train_step').save(p('train_step_ranges.sqlite'))
    process_start().save(p('process_start.sqlite'))
    empty_capture().save(p('empty_capture.sqlite'))
    for r in range(4):
        rank(r).save(p('trace_rank%d.sqlite' % r))
    training(steps=2).save(
        p('old_schema.sqlite'),
        drop_columns={'CUPTI_ACTIVITY_KIND_KERNEL': ('demangledName', 'greenContextId'),
                      'CUPTI_ACTIVITY_KIND_MEMCPY': ('srcKind', 'dstKind')},
        skip_tables=('ENUM_CUDA_MEMCPY_OPER', 'ENUM_CUDA_MEM_KIND', 'ENUM_CUPTI_SYNC_TYPE'))
    old = p('old_schema.sqlite')
    db = sqlite3.connect(old)
    db.execute("UPDATE META_DATA_EXPORT SET value = '2.7.1' WHERE name = 'EXPORT_SCHEMA_VERSION'")
    db.execute("UPDATE META_DATA_EXPORT SET value = '2' WHERE name = 'EXPORT_SCHEMA_VERSION_MAJOR'")
    db.commit()
    db.close()
    # A view under the kernel table's name, over a table of made-up kernels: must not be read.
    view = training(steps=2)
    view.save(p('view_named_kernel.sqlite'), skip_tables=('CUPTI_ACTIVITY_KIND_KERNEL',),
              extra_sql=('CREATE TABLE evil (start INTEGER, end INTEGER, deviceId INTEGER, '
                         'streamId INTEGER, demangledName INTEGER, shortName INTEGER);'
                         'INSERT INTO evil VALUES (0, 999999999999, 0, 1, 0, 0);'
                         'CREATE VIEW CUPTI_ACTIVITY_KIND_KERNEL AS SELECT * FROM evil;'))
    db = sqlite3.connect(p('not_an_export.sqlite.tmp'))
    db.executescript('CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT);'
                     'CREATE TABLE orders (id INTEGER PRIMARY KEY, user INTEGER, total REAL);'
                     "INSERT INTO users VALUES (1, 'ada'), (2, 'grace');"
                     'INSERT INTO orders VALUES (1, 1, 9.5);')
    db.commit()
    db.close()
    os.replace(p('not_an_export.sqlite.tmp'), p('not_an_export.sqlite'))
    data = open(p('training_steps.sqlite'), 'rb').read()
    open(p('damaged_truncated.sqlite'), 'wb').write(data[:int(len(data) * 0.55)])
    page = int.from_bytes(data[16:18], 'big') or 65536
    rng = random.Random(7)
    damaged = bytearray(data)
    pages = len(data) // page
    for k in range(max(2, pages // 3), max(3, pages // 3 + pages // 3)):  # the middle third
        damaged[k * page:(k + 1) * page] = bytes(rng.getrandbits(8) for _ in range(page))
    open(p('damaged_garbage.sqlite'), 'wb').write(bytes(damaged))
    open(p('not_sqlite.sqlite'), 'w').write('<html><body>502 Bad Gateway</body></html>\n')
    print('make_exports: wrote %d files into %s' % (len(os.listdir(OUT)), os.path.normpath(OUT)))


if __name__ == '__main__':
    main()
