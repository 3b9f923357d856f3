// GPU time by HTA kernel type, with overlaps (HTA, hta/analyzers/breakdown_analysis.py,
// _get_gpu_kernel_type_time, memory kernels included): the merged intervals of each type
// (computation, communication, memory) are swept together; every stretch of time goes to the
// set of types running then, e.g. "computation overlapping communication". Percentages are of
// the total listed (time when any GPU op runs), as HTA's pie chart shows them.
#pragma once
#include <string>
#include <vector>

#include "analysis/gpu_intervals.h"

namespace ks {

struct KernelTypeRow {
  std::string label;  // HTA's label in lower case: "computation overlapping communication"
  int64_t ns = 0;
  double percent = 0;
};

struct KernelTypeBreakdown {
  std::vector<KernelTypeRow> rows;  // by time descending, then label
  int64_t total_ns = 0;
};

KernelTypeBreakdown compute_kernel_type_breakdown(const GpuIntervals& gpu);

}  // namespace ks
