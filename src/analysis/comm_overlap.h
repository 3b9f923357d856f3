// Communication/computation overlap of one rank (HTA, hta/analyzers/communication_analysis.py,
// get_comm_comp_overlap; ANALYSES.md): computation and communication kernels are merged
// separately; overlap = |comp ∩ comm|; overlap % = overlap / |union of comm|. A rank without
// communication kernels has no overlap value (HTA writes NaN).
#pragma once
#include <cstdint>

#include "analysis/gpu_intervals.h"

namespace ks {

struct CommOverlap {
  bool has_communication = false;
  int64_t communication_ns = 0;  // |union of comm kernels|
  int64_t computation_ns = 0;    // |union of comp kernels|
  int64_t overlap_ns = 0;
  double overlap_pct = 0;  // of communication time; meaningful only with communication
};

CommOverlap compute_comm_overlap(const GpuIntervals& gpu);

}  // namespace ks
