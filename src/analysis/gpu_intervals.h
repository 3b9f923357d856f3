// The GPU ops (kernels, memcpys, memsets) of a trace as merged intervals, by HTA kernel type
// (hta/utils/utils.py get_kernel_type: communication, memory, computation). Built once and
// shared by the temporal breakdown, the kernel-type breakdown and the comm/compute overlap.
// `included` (one flag per slice, may be null) limits the ops, for HTA's step filter.
#pragma once
#include <vector>

#include "analysis/intervals.h"
#include "analysis/launch_join.h"
#include "model/trace.h"

namespace ks {

inline bool op_counted(const std::vector<bool>* included, uint32_t slice) {
  return !included || (*included)[slice];
}

struct GpuIntervals {
  uint64_t ops = 0;
  std::vector<Interval> all;            // every GPU op, merged
  std::vector<Interval> computation;    // HTA COMPUTATION kernels, merged
  std::vector<Interval> communication;  // HTA COMMUNICATION kernels (nccl/rccl/hccl), merged
  std::vector<Interval> memory;         // HTA MEMORY ops (memcpy/memset), merged
};

GpuIntervals collect_gpu_intervals(const Trace& trace, const LaunchJoin& join,
                                   const std::vector<bool>* included);

// How much of `merged` (merged intervals) some GPU op of the trace was running in: the part of a
// CPU wait (a synchronization, a blocking copy's launch) that the GPU spent on queued work.
int64_t gpu_busy_within(const Trace& trace, const LaunchJoin& join,
                        const std::vector<Interval>& merged);

}  // namespace ks
