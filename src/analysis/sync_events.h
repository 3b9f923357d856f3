// Where the CPU waits for the GPU: synchronizing runtime and driver calls (the families of
// sync_names.h: cudaDeviceSynchronize, cuStreamSynchronize, synchronous cudaMemcpy2D,
// hipMemcpy, ...), and
// device-to-host copies inside steps (what `.item()` / `.cpu()` / printing a tensor cause; without
// steps, inside the iterations inferred from the repeating launches: iterations.h),
// each with the CPU ops that issued it (in an Nsight Systems export, the NVTX ranges open
// around the call: nvtx_context.h). Nsight Systems' "synchronization APIs" expert rule.
#pragma once
#include <string>
#include <vector>

#include "analysis/iterations.h"
#include "analysis/launch_join.h"
#include "analysis/nvtx_context.h"
#include "analysis/steps.h"
#include "analysis/sync_names.h"

namespace ks {

struct SyncCallRow {
  StringId name = 0;
  uint64_t count = 0;
  int64_t total_ns = 0;
  int64_t max_ns = 0;
  std::vector<uint32_t> longest;  // up to 5 slices, longest first
  // The CPU ops (in an Nsight Systems export, the NVTX ranges) around the longest call,
  // outermost first ("train > log_metrics"); "" when none.
  std::string called_from;
};

struct CopyOrigin {     // DtoH copies grouped by the CPU ops that issued them
  std::string cpu_ops;  // "aten::item > aten::_local_scalar_dense > aten::copy_"
  uint64_t count = 0;
  int64_t bytes = 0;
  int64_t gpu_ns = 0;
  std::vector<uint32_t> examples;  // up to 5 GPU copy slices
};

struct SyncResult {
  std::vector<SyncCallRow> calls;  // by total time
  int64_t total_ns = 0;
  uint64_t count = 0;
  // Of the time the CPU was blocked in them (their union), how much the GPU was running work
  // meanwhile: near all of it in a GPU-bound loop, where the CPU waits for queued work and the
  // block costs nothing.
  int64_t blocked_ns = 0;
  int64_t gpu_busy_while_blocked_ns = 0;
  // Of that union, the part inside the steps (all of it without steps): what a share of step
  // time counts. The calls' summed time is not: calls on two threads at once, or one after the
  // last step (a final synchronize), made a share of 118% of step time.
  int64_t blocked_in_steps_ns = 0;
  std::vector<CopyOrigin> dtoh_in_steps;  // by count
  uint64_t dtoh_in_steps_count = 0;
  uint64_t dtoh_not_waited_for = 0;  // in the windows, but no CPU call waited for them
  uint64_t steps_with_dtoh = 0;
  uint64_t windows = 0;  // the steps (or inferred iterations) the copies were looked for in
  bool in_inferred_iterations = false;  // no steps: the windows are inferred iterations
};

// `inferred`: the iterations used as the windows for device-to-host copies when there are no
// steps (ignored when there are; nullptr: none).
// `nvtx`: as group_kernels takes it (kernel_groups.h), built with a depth of at least 4.
SyncResult find_sync_events(const Trace& trace, const LaunchJoin& join, const StepsResult& steps,
                            const IterationsResult* inferred = nullptr,
                            const EnclosingNvtxRanges* nvtx = nullptr);

}  // namespace ks
