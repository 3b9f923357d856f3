#!/usr/bin/env bash
# The CLI on the built Nsight Systems exports (tests/nsys/make_exports.py -> build/nsys-cli/):
# each bad file exits 1 with one stderr line naming its error code; each good one exits 0, and
# the four rank exports, and the one export of four processes, make a multi-rank report naming
# rank 2 the straggler. Then
# `kinetoscope stats`: an unknown report name exits 2 listing the known names; a missing file,
# non-SQLite, non-nsys SQLite and damaged/cut-off exports exit 1 with one stderr line; a good
# export prints the asked report. And the exports of make_exports.py SHUFFLED, their rows in a
# random order, give the same report as in order (tests/nsys/same_report.py). And times count
# from the session start (tests/nsys/time_zero.py).
#   KINETOSCOPE_CLI=build/sanitize/kinetoscope bash tests/nsys/check_cli.sh
set -uo pipefail
cd "$(dirname "$0")/../.."
CLI=${KINETOSCOPE_CLI:-build/native/kinetoscope}
DIR=build/nsys-cli
/usr/bin/python3 tests/nsys/make_exports.py "$DIR" >/dev/null || exit 1
pass=0 fail=0
bad() {  # bad FILE CODE
  local err rc lines
  err=$("$CLI" report "$DIR/$1" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | wc -l)
  if [ "$rc" = 1 ] && [ "$lines" = 1 ] && [[ "$err" == "kinetoscope: $DIR/$1: $2 at byte "* ]]; then
    pass=$((pass + 1))
  else
    echo "FAIL $1: exit $rc, $lines lines, expected $2: $err"; fail=$((fail + 1))
  fi
}
good() {  # good FILE... [grep pattern last]
  local pattern=${!#} out rc
  # A time limit: a worst-case input that hangs fails here (exit 124) instead of hanging the run.
  out=$(timeout 300 "$CLI" report "${@:1:$#-1}" 2>&1); rc=$?
  if [ "$rc" = 0 ] && grep -q -- "$pattern" <<<"$out"; then
    pass=$((pass + 1))
  else
    echo "FAIL ${*:1:$#-1}: exit $rc, no '$pattern' in the report"; fail=$((fail + 1))
  fi
}
bad empty_capture.sqlite no_cuda_trace
bad not_an_export.sqlite not_nsys_export
bad not_sqlite.sqlite not_sqlite
bad damaged_truncated.sqlite damaged_database
bad damaged_garbage.sqlite damaged_database
good "$DIR/training_steps.sqlite" "Steps (6)"
# Captured without NVTX: no steps, but the iterations inferred from the repeating launches, and
# their times (the steps of the same loop with NVTX: 1.58-1.60 ms).
good "$DIR/no_nvtx.sqlite" "the GPU work repeats: 5 iterations of 5 GPU ops (100.0% of ops recur one iteration later): min 1.63 ms, median 1.64 ms"
good "$DIR/no_nvtx.sqlite" "No step ranges: the capture is analyzed as one window; the GPU work repeats as 5 iterations"
# The report's critical path and the command's default window are the same inferred iteration.
good "$DIR/no_nvtx.sqlite" "What bounds the step (critical path of inferred iteration 0, as HTA computes it): 1.20 ms"
out=$("$CLI" critical-path "$DIR/no_nvtx.sqlite" 2>&1); rc=$?
if [ "$rc" = 0 ] && grep -q "^Critical path of inferred iteration 0, 2.80 ms window" <<<"$out" &&
   grep -q "path total 1.20 ms" <<<"$out"; then
  pass=$((pass + 1))
else
  echo "FAIL critical-path no_nvtx.sqlite: exit $rc: $(head -2 <<<"$out")"; fail=$((fail + 1))
fi
# Steps by rule: the outermost NVTX range repeated without overlap, whatever its name.
good "$DIR/own_step_name.sqlite" 'steps from the range "fwd_bwd_opt"'
# Steps marked only with nvtxMark: each step from one mark to the next (SQL: 6 "train_step" marks
# 1.627-1.643 ms apart), said to come from the marks; --step-range takes marks of its name too.
good "$DIR/step_marks.sqlite" "Steps (5)"
good "$DIR/step_marks.sqlite" 'steps from the NVTX marks "train_step" (named like a step), each step from one mark to the next: 6 marks, 5 steps'
good "$DIR/step_marks.sqlite" --format json '"source": "nvtx_marks"'
good "$DIR/own_step_marks.sqlite" --step-range next_batch 'steps from the NVTX marks "next_batch" (--step-range)'
good "$DIR/view_named_kernel.sqlite" "nsys_object_ignored"
# No demangledName: the kernels' mangledName, demangled, keeps the cutlass GEMM a GEMM (not
# "Kernel", of no known class, with a false "kernels other than math" finding).
good "$DIR/no_demangled.sqlite" "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm"
gemm_kept() {  # gemm_kept FILE: the JSON report has a gemm class and no overhead_dominant
  local out rc
  out=$("$CLI" report "$DIR/$1" --format json 2>&1); rc=$?
  if [ "$rc" = 0 ] && ! grep -q "overhead_dominant" <<<"$out" && grep -q '"gemm"' <<<"$out"; then
    pass=$((pass + 1))
  else
    echo "FAIL $1: exit $rc, a kernels.overhead_dominant finding or no gemm class"
    fail=$((fail + 1))
  fi
}
gemm_kept no_demangled.sqlite
# Neither demangledName nor mangledName: the shortName, said, and CUTLASS's entry "Kernel" still a
# GEMM (was "Kernels other than math take 48.4% of step time (80% of them ... custom kernels)").
good "$DIR/short_names.sqlite" "nsys_short_kernel_names  *x24 (first in CUPTI_ACTIVITY_KIND_KERNEL row 1)"
gemm_kept short_names.sqlite
# A mangledName too long to demangle (CUTLASS 3 / CuTe names run to KB): the shortName, said as
# a missing one is (was silent), and the GEMM still a GEMM by its class.
good "$DIR/long_mangled.sqlite" "nsys_short_kernel_names  *x6 (first in CUPTI_ACTIVITY_KIND_KERNEL row 3)"
gemm_kept long_mangled.sqlite
# Worst-case mangledNames under the cap: 60 levels of backreferences, each printing the level below
# again (the report did not end: minutes, gigabytes), and 1,500 nested pointers: both left to the
# shortName, said (12 launches); the lambda demangled as libiberty writes it (the page too).
good "$DIR/hostile_mangled.sqlite" "nsys_short_kernel_names  *x12 (first in CUPTI_ACTIVITY_KIND_KERNEL row 1)"
good "$DIR/hostile_mangled.sqlite" --format json "build_field(global_variables&)::{lambda(int, int)#2}>"
# Real-shaped CUB, CUTLASS 3 and PyTorch mangledNames the old bound refused or bounded at ~1 MB:
# each demangled in full (the GEMM's nested closing brackets spelled "> >" as the page writes them),
# no kernel left to its shortName, and the GEMM still a GEMM.
good "$DIR/real_mangled.sqlite" "void cub::DeviceSelectSweepKernel<cub::DeviceSelectPolicy<long, int>::Policy350"
good "$DIR/real_mangled.sqlite" --format json "cute::TiledMMA<cute::MMA_Atom<cute::SM90_64x128x16_F32BF16BF16_SS> > >, cutlass::epilogue"
good "$DIR/real_mangled.sqlite" --format json "div_floor_kernel_cuda(at::TensorIteratorBase&)::{lambda()#1}::operator()() const::{lambda()#3}"
out=$("$CLI" report "$DIR/real_mangled.sqlite" 2>&1)
if ! grep -q "nsys_short_kernel_names" <<<"$out"; then pass=$((pass + 1)); else
  echo "FAIL real_mangled.sqlite: a kernel left to its shortName"; fail=$((fail + 1)); fi
gemm_kept real_mangled.sqlite
# mangledNames only one C++ runtime prints, or prints its own way (a _Float16 kernel, a generic
# lambda's): the shortName in the CLI as in the page, said (12 launches; the CLI had refused the
# _Float16 name and the page printed it); a CUB kernel's name demangled.
good "$DIR/one_sided_mangled.sqlite" "nsys_short_kernel_names  *x12 (first in CUPTI_ACTIVITY_KIND_KERNEL row 1)"
good "$DIR/one_sided_mangled.sqlite" "void cub::DeviceReduceKernel<cub::DeviceReducePolicy<float, float, int, thrus"
# "train_step" marks on the training thread (6) and on the data worker (12, no CUDA calls): the
# steps are the training thread's (were the worker's 11 intervals).
good "$DIR/step_marks_threads.sqlite" "Steps (5)"
good "$DIR/step_marks_threads.sqlite" '6 marks, 5 steps'
# The capture line's facts in the JSON report too, in trace.capture.
good "$DIR/training_steps.sqlite" --format json '"profiler": "Nsight Systems 2024.5.1.113"'
good "$DIR/training_steps.sqlite" --format json '"command": "python3 train.py --epochs=1"'
# An MPI rank without collective kernels: its blocking MPI calls are the step's communication
# (its step range is the step, no CPU work: other, not cpu_exec).
good "$DIR/mpi_rank0.sqlite" "communication 66.5%, runtime 0.5%, dataloader 0.0%, cpu_exec 0.0%, other 0.6%"
# comm.heavy on that MPI time names MPI calls, not collective kernels (the GPU runs none).
good "$DIR/mpi_rank0.sqlite" "Blocking MPI calls (collectives, point-to-point, the waits on them) take a large share"
good "$DIR/old_schema.sqlite" "nsys_column_missing"
# Each absent column named, and where a repair happened as a table and row (not a byte number).
good "$DIR/old_schema.sqlite" "Absent: CUPTI_ACTIVITY_KIND_KERNEL.demangledName, CUPTI_ACTIVITY_KIND_MEMCPY.srcKind"
# Its GPU is named from TARGET_INFO_CUDA_GPU (was "device: none named").
good "$DIR/old_schema.sqlite" "device: NVIDIA H100 80GB HBM3"
good "$DIR/old_schema.sqlite" "unclosed_begin  *x1 (first in NVTX_EVENTS row 2)"
# A newer schema major version with 3.x's tables: read, the version named in the note, and the
# same findings as its 3.x twin.
good "$DIR/schema_major4.sqlite" "nsys_schema_version .*Schema 4.0.0; this reader follows 3.x"
ids() { "$CLI" report "$1" --format json | python3 -c 'import json,sys; print(sorted(f["id"] for f in json.load(sys.stdin)["findings"]))'; }
if [ "$(ids "$DIR/schema_major4.sqlite")" = "$(ids "$DIR/schema_major3_twin.sqlite")" ]; then
  pass=$((pass + 1))
else
  echo "FAIL schema_major4.sqlite: findings differ from its 3.x twin"; fail=$((fail + 1))
fi
# The newest nsys's layout (schema 3.24.14: copyCount, columns in another order, the NVTX enum):
# the same report as its 3.13 twin (kernels, steps, syncs, copies, idle, findings, notes), but
# for the file's name and size and the versions it records.
"$CLI" report "$DIR/newest_layout.sqlite" --format json >"$DIR/newest_layout.json"; rc=$?
"$CLI" report "$DIR/schema_major3_twin.sqlite" --format json >"$DIR/schema_major3_twin.json"
if [ "$rc" = 0 ] && diff_out=$(python3 tests/nsys/same_report.py "$DIR/newest_layout.json" \
     "$DIR/schema_major3_twin.json" trace,file,profiler,json_bytes,schema_version); then
  pass=$((pass + 1))
else
  echo "FAIL newest_layout.sqlite: exit $rc, or its report differs from its 3.x twin's:"
  echo "$diff_out"; fail=$((fail + 1))
fi
good "$DIR/process_start.sqlite" "The capture starts with the process: CUDA context creation (.*), 250 cudaMalloc/cudaFree"
good "$DIR"/trace_rank{0,1,2,3}.sqlite "Rank 2 is the straggler"
# One export of four processes (nsys profile torchrun): four ranks by GPU, rank 2 the straggler.
good "$DIR/torchrun_4procs.sqlite" "Rank 2 is the straggler"
good "$DIR/torchrun_4procs.sqlite" "rank 3 (torchrun_4procs.sqlite pid 6004)"
# Every worker touched GPU 0 before set_device: still 4 ranks and the straggler; ranks 1-3 say
# so (gpu.stray_device), and none reads as splitting its work over 2 GPUs.
# One GPU visible per worker (every deviceId 0): TARGET_INFO_CUDA_DEVICE says whose GPU each is,
# so rank 3's kernels are on GPU 3 (were all on "device 0", the four GPUs read as one).
good "$DIR/torchrun_visible_devices.sqlite" "Rank 2 is the straggler"
good "$DIR/torchrun_visible_devices.sqlite" "device 3 stream 7 "
# Every worker on deviceId 0: its ranks are in pid order, not told apart by GPU (was "(by GPU)").
good "$DIR/torchrun_visible_devices.sqlite" "Ranks were taken from the processes in the export (by GPU, then pid)"
good "$DIR/torchrun_stray_gpu0.sqlite" "Rank 2 is the straggler"
good "$DIR/torchrun_stray_gpu0.sqlite" "This process also touched GPU 0 (1 GPU op, 2.0 µs in all) beside its work on GPU 3"
# Rank 0's work on GPU 0 is not other processes' work on a GPU the others share with it.
stray_uneven=$("$CLI" report "$DIR/torchrun_stray_gpu0.sqlite" | grep -c "gpu.uneven_devices\|idle per device\|ran on the shared GPU")
if [ "$stray_uneven" = 0 ]; then pass=$((pass + 1)); else echo "FAIL torchrun_stray_gpu0: $stray_uneven uneven-device or shared-GPU lines"; fail=$((fail + 1)); fi
# Two nodes' exports of four processes each: one job of eight ranks, the second numbered on.
cp "$DIR/torchrun_4procs.sqlite" "$DIR/torchrun_node1.sqlite"
good "$DIR/torchrun_4procs.sqlite" "$DIR/torchrun_node1.sqlite" "rank 7 (torchrun_node1.sqlite pid 6004)"
good "$DIR/torchrun_4procs.sqlite" "$DIR/torchrun_node1.sqlite" "processes in 2 exports (by GPU, then pid)"
# CUDA graphs: 12 eager launches + 4 cudaGraphLaunch of 12 kernels each are 16 launches, not 60.
good "$DIR/cuda_graphs.sqlite" "Launches: 16; .*launch delay > 100 us 0; .* 44 more GPU ops started by the same launches"
# A graph whose first node is a 1.5 us memset launched 370 us of work: no short kernel (was 4).
good "$DIR/graph_memset.sqlite" "Launches: 16; short kernels 0, .* 48 more GPU ops started by the same launches"
# nsys --cuda-graph-trace=graph: each replay one GPU op, named after its graph; a
# replay also traced node by node counts once (4 of exec 5 here, not 5); a replay whose first node ran on the host (deviceId INT_MAX) is on its stream's GPU.
good "$DIR/graph_trace.sqlite" "6 CUDA graph replays were traced whole: their kernels (72.4% of kernel time) are not listed"
good "$DIR/graph_trace.sqlite" "56.99  *1484.0  *4  *371.0 .* CUDA graph exec 5 (graph 2)"
# A server's start-up: a 20 ms CUDA graph capture whose launches ran nothing; the idle GPU is put
# down to it.
good "$DIR/graph_capture.sqlite" "\[WARNING\] CUDA graph capture takes 85.2% of the GPU span (1 capture, 20.00 ms)"
good "$DIR/graph_capture.sqlite" "\[INFO\] GPU idle 95.4% of the GPU span, mostly while CUDA graphs were being captured"
# Nsight Systems' own warning that it lost events: a finding that quotes it.
good "$DIR/lost_events.sqlite" "\[WARNING\] Nsight Systems reported 2 warnings during the capture: CUPTI buffers overflowed: 1834 CUDA events were lost"
# A kernel with a garbage start (146 years on): left out with its flow, the capture's own span kept.
good "$DIR/stray_times.sqlite" "stray_time  *x2 (first in CUPTI_ACTIVITY_KIND_KERNEL row 13)"
good "$DIR/stray_times.sqlite" "span 24.84 ms"
# --cuda-memory-usage=true: the device's peak from the allocation rows, and the flag named.
good "$DIR/memory_usage.sqlite" "\[WARNING\] Peak reserved memory 76.00 GiB is 95.4% of the GPU's 79.65 GiB"
good "$DIR/memory_usage.sqlite" "Diagnosis flags were on (--cuda-memory-usage=true)"
# The NVTX ranges around the call that issued the copy (a thread's other row) say where it came from.
good "$DIR/memory_usage.sqlite" "issued_by=log_loss > loss.item (NVTX)"
# --cudabacktrace (CUDA_CALLCHAINS): a sync and a DtoH copy name the function that made them, the
# innermost frame outside CUDA's libraries (libcudart, libcuda, a static libcudart's cuda*/cudart::
# frames) and resolved (an unresolved address names none).
good "$DIR/cuda_backtraces.sqlite" "top_call=cudaStreamSynchronize, .*caller=check_step(int) in train_app"
good "$DIR/cuda_backtraces.sqlite" "issued_by=read_loss(float const\*) in train_app"
# NVTX ranges the program named for loading data: the GPU's idle time and the finding say so.
good "$DIR/data_stall.sqlite" "mostly waiting for the DataLoader (98.1% of the idle time)"
good "$DIR/alloc_churn.sqlite" "Device memory allocated and freed in 5 of 5 steps: 10 cudaMalloc/cudaFree calls"
good "$DIR/alloc_churn.sqlite" "mostly waiting for the CPU (85.9% of the idle time): the launching thread was in cudaFree (CUDA API)"
good "$DIR/mixed_node.sqlite" "device: NVIDIA H100 80GB HBM3"
# nsys' own OS runtime rows on thread id 0 (profiling started/finished, 5 ms before the program's
# first row and 1 ms after its last) are no thread and no part of the span (were: 3 threads, the
# first event at 25.00 ms).
good "$DIR/training_steps.sqlite" "2 processes, 2 threads, 1 GPU devices"
good "$DIR/training_steps.sqlite" "the first event is at 30.00 ms"
# The header says which nsys wrote the export, how long the capture ran and the command profiled.
good "$DIR/training_steps.sqlite" "Nsight Systems 2024.5.1.113, capture 75.00 ms: python3 train.py --epochs=1"
good "$DIR/host_stall.sqlite" "the launching thread was in log_metrics (NVTX) > clock_nanosleep (OS runtime)"
# The profiler's own work on the launching thread (PROFILER_OVERHEAD) is said to be the profiler's.
good "$DIR/profiler_stall.sqlite" "the launching thread was in CUDA profiling data flush (profiler overhead)"
good "$DIR/profiler_stall.sqlite" "Nsight Systems' own work took 69.9% of the step time on the threads that launch GPU work"
# cuDNN's and cuBLAS' calls (--trace=cudnn,cublas) are what the launching thread was in.
good "$DIR/library_calls.sqlite" "the launching thread was in cublasCreate_v2 (cuBLAS)"
# MPI calls (--trace=mpi) are what the launching thread was in; in a comparison of the ranks, the
# host-side MPI_Allreduce is communication and rank 1, which waits least, is the straggler.
good "$DIR/mpi_rank0.sqlite" "the launching thread was in MPI_Allreduce (MPI)"
good "$DIR/mpi_rank0.sqlite" "$DIR/mpi_rank1.sqlite" "Rank 1 .*(ranks.straggler)"
# A non-blocking collective's time is its call's plus the MPI_Wait on its request (SQL: rank 0
# 120 us of MPI_Iallreduce + 12.554 ms of MPI_Wait, rank 1 120 us + 554 us).
good "$DIR/mpi_iallreduce_r0.sqlite" "$DIR/mpi_iallreduce_r1.sqlite" \
  "Rank 1 is the straggler: its collectives take 674.0 µs, the others 12.67 ms"
# Point-to-point MPI (Irecv/Isend + MPI_Waitall on rank 0, blocking Recv/Send on rank 1) is
# communication: SQL unions 24 us + 12.938 ms on rank 0, 120 us on rank 1.
good "$DIR/mpi_p2p_rank0.sqlite" "$DIR/mpi_p2p_rank1.sqlite" \
  "Rank 1 is the straggler: its MPI communication takes 120.0 µs, the others 12.96 ms"
# Unified-memory migrations are their own kind; a device memset and a DtoD copy do not sync.
good "$DIR/managed_memory.sqlite" "(memcpy.unified_migrations)"
# Batches copied from pageable memory inside the steps: pin_memory advice, as for a Kineto trace.
good "$DIR/pageable_batches.sqlite" "\[WARNING\] 5 copies from/to pageable host memory: 40.00 MiB at 4.2 GB/s"
good "$DIR/pageable_batches.sqlite" "pin_memory=True"
# Managed memory that ping-pongs (4 of 8 pages a step back to the host, 17% of the step time)
# is a warning that says so, with the page faults and the host function that faulted.
good "$DIR/um_thrash.sqlite" "\[WARNING\] 60 unified-memory page migrations: 3.75 MiB in 1.20 ms (17.1% of step time); 4 of 8 pages moved both ways (thrashing)"
good "$DIR/um_thrash.sqlite" "cpu_fault_site=update_weights (/home/user/train.py:42) (20 of 20 CPU page faults)"
good "$DIR/um_thrash_old.sqlite" "cpu_fault_site=update_weights in python3.10"
good "$DIR/api_variants.sqlite" "6 synchronizing CUDA driver calls"
# Kernels under the NVTX range open at their launch; graph replays launched outside any range.
good "$DIR/cuda_graphs.sqlite" "20.0  360.0 µs       12   30.0 µs  warmup"
good "$DIR/training_steps.sqlite" "100.0    7.14 ms       24  297.5 µs  forward"
# Nothing recorded on the thread: its context switches (SCHED_EVENTS) tell waiting from running.
good "$DIR/gil_wait.sqlite" "the launching thread was off CPU (no call traced)  (gpu.idle)"
good "$DIR/gil_wait.sqlite" "cpu_in_long_host_waits=off CPU (no call traced) 86.1%, on CPU (no call traced) 13.4%"
good "$DIR/python_busy.sqlite" "the launching thread was on CPU (no call traced)  (gpu.idle)"
good "$DIR/data_stall.sqlite" "\[CRITICAL\] Data loading (\"data_loading\" ranges) takes 73.4% of step time"
# --cuda-event-trace=true: the waits on CUDA events lead the critical path through the GPU.
good "$DIR/event_waits.sqlite" "gpu_compute_bound 99.2%"
good "$DIR/training_steps.sqlite" "GPU metrics measured (device 0, nsys --gpu-metrics-devices): SM Active 61.5%"
# The whole Hopper metric set: each share read by its name without the unit, the [Avg] and
# protocol series left out, NVLink RX the sum of its user data; DRAM near peak, issue low.
good "$DIR/metrics_gh100_set.sqlite" "GR Active 95.0% (in steps 95.0%), SM Issue 12.0% (in steps 12.0%), Compute Warps in Flight 40.0% (in steps 40.0%), Unallocated Warps in Active SMs 50.0% (in steps 50.0%), DRAM Read 55.0% (in steps 55.0%), DRAM Write 25.0% (in steps 25.0%), PCIe RX 2.0% (in steps 2.0%), PCIe TX 1.0% (in steps 1.0%), NVLink RX 10.0% (in steps 10.0%), NVLink TX 5.0% (in steps 5.0%)"
good "$DIR/metrics_gh100_set.sqlite" "DRAM bandwidth at 84.2% of its peak while the GPU is busy, SMs issuing in 12.6% of the cycles"
good "$DIR/metrics_gh100_set.sqlite" --format json '"dram_write_steps_pct": 25.00'

# --capture-range=cudaProfilerApi started and stopped mid-step: ProfilerStep#0, pushed before the
# capture's start (a negative time), and ProfilerStep#5, open at the stop, are left out; steps
# 1-4 are the steps (was: 5 steps, ProfilerStep#0 at -0.170 ms with 96.3% GPU idle, the idle
# finding at 39.0% of step time and the critical path of that cut step).
good "$DIR/capture_range_cut.sqlite" "Steps (4)"
good "$DIR/capture_range_cut.sqlite" "the first step (1.58 ms, begun at -170.0 µs) is left out: it began before the capture started (the capture started mid-run, inside it)"
good "$DIR/capture_range_cut.sqlite" "the last step (150.0 µs, begun at 8.01 ms) is left out: its range was still open"
good "$DIR/capture_range_cut.sqlite" "critical path of ProfilerStep#1"
good "$DIR/capture_range_cut.sqlite" --format json '"first_step_left_out": "begun_before_capture"'
# nsys --pytorch=autograd-shapes-nvtx: ops ranked by their name without emit_nvtx's seq / op_id
# / sizes, the steps from the loop's "train_step" ranges (never the per-op ranges), the flag named.
good "$DIR/autograd_shapes.sqlite" 'steps from the range "train_step"'
good "$DIR/autograd_shapes.sqlite" "80.6    1.37 ms    80.6    1.37 ms        3  aten::addmm$"
good "$DIR/autograd_shapes.sqlite" "Diagnosis flags were on (--pytorch=autograd-shapes-nvtx)"
# emit_nvtx's DataLoader range carries its op id ("...__next__, op_id = N"): still the data
# loader (was no data loader time, no finding); the step's own train_step range is the step, not
# CPU work in it (was cpu_exec 42.1%, other 0.0%); the eligible ops are the op ranges (were none).
good "$DIR/autograd_shapes.sqlite" "DataLoader takes 28.5% of step time (282.0 µs per step)  (dataloader.slow)"
good "$DIR/autograd_shapes.sqlite" "dataloader 28.5%, cpu_exec 2.5%, other 11.1%"
good "$DIR/autograd_shapes.sqlite" --format json '"tensor_core_eligible_ops": 12'
# NCCL's own NVTX ranges (its "NCCL" domain: ncclAllReduce, ncclAllGather around each enqueue)
# change neither the communication time per rank nor the straggler, with or without step ranges
# (they are NCCL's, never steps: the iterations are inferred from the launches).
good "$DIR"/nccl_nvtx_rank{0,1,2,3}.sqlite "Rank 2 is the straggler: its collectives take 4.00 ms, the others 8.25 ms"
good "$DIR"/nccl_nvtx_nosteps_rank{0,1,2,3}.sqlite "Rank 2 is the straggler: its collectives take 4.00 ms, the others 8.25 ms"
good "$DIR/nccl_nvtx_nosteps_rank0.sqlite" "No step ranges: the capture is analyzed as one window; the GPU work repeats as 4 iterations"

# Every rank's capture began mid-step (ProfilerStep#0 left out on each), rank 3's three steps
# later: it traced 3 steps' collectives, the others 6. Counted over steps 4-5, which every
# capture holds (SQL: 2 x 0.8 ms on rank 2, 2 x 1.6-1.7 ms on the others), rank 2 is the straggler
# (was rank 3, its 4.65 ms of collectives over 3 steps against 9.90 ms over 6).
good "$DIR"/late_capture_rank{0,1,2,3}.sqlite "Rank 2 is the straggler: its collectives take 1.60 ms, the others 3.30 ms"
good "$DIR"/late_capture_rank{0,1,2,3}.sqlite "counted_over=2 steps every rank's capture holds (the captures hold different steps), from step 4"
# Collectives are paired from step 4 and counted over steps 4-5 (2 per step on every rank): no
# mismatch (was a CRITICAL "different numbers of collectives (6 to 12)", each capture paired from
# its own first). Rank 2 waits for no one in them, the others 0.75-0.9 ms a step (SQL).
good "$DIR"/late_capture_rank{0,1,2,3}.sqlite "^Collectives: 4 matched per communicator by order of issue over the 2 steps every rank's capture holds, from step 4$"
good "$DIR"/late_capture_rank{0,1,2,3}.sqlite "the other totals cover each rank's whole capture; wait covers the collectives of the 2 steps every rank's capture holds, from step 4"
good "$DIR"/late_capture_rank{0,1,2,3}.sqlite "rank 0 wait=1.80 ms, rank 1 wait=1.70 ms, rank 2 wait=0.0 µs, rank 3 wait=1.50 ms"
out=$("$CLI" report "$DIR"/late_capture_rank{0,1,2,3}.sqlite 2>&1); rc=$?
if [ "$rc" = 0 ] && ! grep -q "collective_mismatch" <<<"$out"; then
  pass=$((pass + 1))
else
  echo "FAIL late_capture_rank{0..3}: exit $rc or a collective_mismatch"; fail=$((fail + 1))
fi
# The same with one more all-gather on rank 1 in step 4, a step every capture holds: a real
# mismatch, counted over the shared steps.
# A collective belongs to the step it was launched in: each rank's last all-reduce, launched at
# step 5's end, runs after it on rank 1 alone. Put by GPU start, rank 1 had 4 collectives in the
# shared steps and the others 5 (a false collective_mismatch).
good "$DIR"/late_launch_rank{0,1,2,3}.sqlite "^Collectives: 5 matched per communicator by order of issue over the 2 steps every rank's capture holds, from step 4$"
good "$DIR"/late_launch_rank{0,1,2,3}.sqlite --format json '"shared_steps": \['
# The all-reduce launched by a call that began 3 us before step 5's end and returned after it
# runs 100 us after the step on rank 1: step 5 ends with it (3.885 ms + 130 us), as the
# collective counts in step 5.
good "$DIR/late_launch_rank1.sqlite" "^  ProfilerStep#5  *[0-9.]*  *4\.015 "
good "$DIR"/late_capture_uneven_rank{0,1,2,3}.sqlite "Ranks ran different numbers of collectives (4 to 5) in stream 20"
good "$DIR"/late_capture_uneven_rank{0,1,2,3}.sqlite "counted_over=2 steps every rank's capture holds (the captures hold different steps), from step 4, rank 0 collectives=4, rank 1 collectives=5"
# One GPU visible per rank, one export each: every kernel on deviceId 0 in every export. Four
# ranks, each with its own GPU rows (labelled under its rank), rank 2 the straggler as in
# trace_rank{0..3}.
good "$DIR"/visible_device_rank{0,1,2,3}.sqlite "Rank 2 is the straggler: its collectives take 4.00 ms, the others 8.25 ms"
good "$DIR"/visible_device_rank{0,1,2,3}.sqlite "^---- rank 3 (visible_device_rank3.sqlite)"
good "$DIR"/visible_device_rank{0,1,2,3}.sqlite "^  device 0 stream 7  *5 ops  idle 4.02 ms"
# One rank's export, its process seeing one GPU, no rank in its environment: not "Multi-GPU".
good "$DIR/visible_device_no_rank_env.sqlite" "One GPU's export with collectives but no recorded rank: the rank is unknown"
# Rows in any order (Nsight Systems 2025.6 and later no longer promise time order): the same
# exports with every event table shuffled give the same report, but for the rows its ids name.
for f in "$DIR"/shuffled/*.sqlite; do
  name=$(basename "$f")
  "$CLI" report "$DIR/$name" --format json >"$DIR/ordered.json" 2>/dev/null
  "$CLI" report "$f" --format json >"$DIR/shuffled.json" 2>/dev/null
  if diff_out=$(python3 tests/nsys/same_report.py "$DIR/ordered.json" "$DIR/shuffled.json"); then
    pass=$((pass + 1))
  else
    echo "FAIL $name with its rows shuffled: the report changed"; echo "$diff_out"; fail=$((fail + 1))
  fi
done

# kinetoscope stats
stats_bad() {  # stats_bad FILE CODE
  local err rc lines
  err=$("$CLI" stats "$DIR/$1" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | wc -l)
  if [ "$rc" = 1 ] && [ "$lines" = 1 ] && [[ "$err" == "kinetoscope: $DIR/$1: $2"* ]]; then
    pass=$((pass + 1))
  else
    echo "FAIL stats $1: exit $rc, $lines lines, expected $2: $err"; fail=$((fail + 1))
  fi
}
stats_bad not_an_export.sqlite "not_nsys_export at byte "
stats_bad not_sqlite.sqlite "not_sqlite at byte "
stats_bad damaged_truncated.sqlite "damaged_database at byte "
stats_bad damaged_garbage.sqlite "damaged_database at byte "
stats_bad no_such_file.sqlite ""
err=$("$CLI" stats "$DIR/training_steps.sqlite" --report cuda_gpu_kernsum 2>&1 >/dev/null); rc=$?
known="cuda_gpu_kern_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum cuda_api_sum nvtx_sum osrt_sum cuda_gpu_kern_gb_sum cuda_gpu_trace cuda_kern_exec_sum nvtx_kern_sum cuda_gpu_sum cuda_api_gpu_sum nvtx_pushpop_sum nvtx_startend_sum nvtx_gpu_proj_sum cuda_api_trace cuda_kern_exec_trace nvtx_pushpop_trace um_sum um_total_sum um_cpu_page_faults_sum"
missing=""
for k in $known; do grep -q -- "$k" <<<"$err" || missing="$missing $k"; done
if [ "$rc" = 2 ] && [[ "$err" == *"unknown report 'cuda_gpu_kernsum' (known: "* ]] && [ -z "$missing" ]; then
  pass=$((pass + 1))
else
  echo "FAIL stats unknown report: exit $rc, missing:$missing: $err"; fail=$((fail + 1))
fi
out=$("$CLI" stats "$DIR/training_steps.sqlite" --report nvtx_sum --format csv 2>&1); rc=$?
if [ "$rc" = 0 ] && grep -q "ProfilerStep#0" <<<"$out"; then
  pass=$((pass + 1))
else
  echo "FAIL stats nvtx_sum: exit $rc: $out"; fail=$((fail + 1))
fi
# The unified-memory reports (values by hand: 40 HtoD and 20 DtoH migrations of 64 KiB, 20 CPU
# faults, 40 GPU fault groups of 3, pages 0x7f2000000000 + k * 64 KiB for k = 0..7).
stats_csv() {  # stats_csv FILE REPORT EXPECTED-LINE
  local out rc
  out=$("$CLI" stats "$DIR/$1" --report "$2" --format csv 2>&1); rc=$?
  if [ "$rc" = 0 ] && grep -qF -- "$3" <<<"$out"; then
    pass=$((pass + 1))
  else
    echo "FAIL stats $2 on $1: exit $rc, no '$3' in: $out"; fail=$((fail + 1))
  fi
}
stats_csv um_thrash.sqlite um_total_sum '"2.621440","1.310720","20","120","139775415681024","139775416139776"'
stats_csv um_thrash.sqlite um_cpu_page_faults_sum '"20","update_weights","/home/user/train.py","42"'
stats_csv um_thrash_old.sqlite um_cpu_page_faults_sum '"20","update_weights","",""'
# Pages 0-3 moved both ways (10 migrations, 200 us: 655360 B * (1e9 / 200000) = 3276.8 MB/s).
stats_csv um_thrash.sqlite um_sum '"139775415681024","0.327680","0.327680","5","15","3276.800000"'
stats_csv um_thrash.sqlite um_sum '"139775415943168","0.327680","","","15","3276.800000"'
out=$("$CLI" stats "$DIR/training_steps.sqlite" --report um_sum 2>&1); rc=$?
if [ "$rc" = 0 ] && grep -qF "SKIPPED: no CUDA_UM_CPU_PAGE_FAULT_EVENTS table: capture with --cuda-um-cpu-page-faults=true" <<<"$out"; then
  pass=$((pass + 1))
else
  echo "FAIL stats um_sum without the fault tables: exit $rc: $out"; fail=$((fail + 1))
fi
# Times count from the session start, as Nsight Systems' own: each finding's event at its row's
# start (the real export too, when ../shared has it), and pre-capture NVTX ranges move nothing.
REAL=../shared/nsys/perlmutter-cloverleaf-cuda.sqlite
[ -f "$REAL" ] || { echo "skipped: $REAL absent (the real export's event times)"; REAL=; }
if out=$(/usr/bin/python3 tests/nsys/time_zero.py "$CLI" "$DIR" $REAL); then
  pass=$((pass + 1))
else
  echo "$out"; fail=$((fail + 1))
fi

echo "nsys CLI: $pass passed, $fail failed"
[ "$fail" = 0 ]
