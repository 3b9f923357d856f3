// Idle time per GPU stream, split by cause (HTA, hta/analyzers/breakdown_analysis.py,
// get_idle_time_breakdown; ANALYSES.md "Idle time categories"). Over the kernels, memcpys and
// memsets of one stream sorted by start, each op after the first opens a gap
//   gap = op start - previous op's end
// which is
//   host wait   when the runtime call that launched the op (joined by correlation) started
//               after the previous op had ended: the CPU was late, the queue ran dry;
//   kernel wait otherwise, when gap < 30 us: the ordinary cost of back-to-back launches;
//   other       otherwise (e.g. waiting on an event or another stream).
// As in HTA, "previous op" is the previous one in start order and gaps are summed as they are
// (a negative gap, from overlapping ops, lowers the sum). With gap-length statistics per cause.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/duration_stats.h"
#include "analysis/gpu_intervals.h"

namespace ks {

enum class IdleCause { kHostWait = 0, kKernelWait = 1, kOther = 2 };
constexpr int kIdleCauses = 3;
const char* idle_cause_name(IdleCause c);
constexpr int64_t kKernelWaitThresholdNs = 30000;  // HTA's consecutive_kernel_delay, 30 us

struct StreamIdle {
  TrackId track = 0;
  int64_t device = kNoValue;
  int64_t stream = kNoValue;
  uint64_t ops = 0;
  int64_t begin_ns = 0, end_ns = 0;  // first op start, last op end
  int64_t idle_ns[kIdleCauses] = {0, 0, 0};
  DurationStats gaps[kIdleCauses];  // gap lengths per cause
  int64_t idle_total_ns() const { return idle_ns[0] + idle_ns[1] + idle_ns[2]; }
};

struct IdleBreakdown {
  std::vector<StreamIdle> streams;  // by device, then stream
  int64_t idle_ns[kIdleCauses] = {0, 0, 0};
};

IdleBreakdown compute_idle_breakdown(const Trace& trace, const LaunchJoin& join,
                                     const std::vector<bool>* included);

}  // namespace ks
