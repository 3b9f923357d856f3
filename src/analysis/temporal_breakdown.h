// Temporal breakdown of one rank (HTA, hta/analyzers/breakdown_analysis.py,
// get_temporal_breakdown; ANALYSES.md "Temporal breakdown"):
//   span        = end of the last GPU op - start of the first, over all streams (HTA calls it
//                 "kernel_time");
//   idle        = span - |union of all GPU ops|;
//   compute     = |union of computation kernels| (HTA type COMPUTATION);
//   non-compute = span - compute - idle (communication and memory ops not under compute).
// GPU ops are kernels, memcpys and memsets. One trace file is one rank.
#pragma once
#include <cstdint>

#include "analysis/gpu_intervals.h"

namespace ks {

struct TemporalBreakdown {
  bool has_gpu_ops = false;
  int64_t begin_ns = 0, end_ns = 0;  // first GPU op start, last GPU op end
  int64_t span_ns = 0, idle_ns = 0, compute_ns = 0, non_compute_ns = 0;
  double idle_pct = 0, compute_pct = 0, non_compute_pct = 0;
};

TemporalBreakdown compute_temporal_breakdown(const GpuIntervals& gpu);

}  // namespace ks
