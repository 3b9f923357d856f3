// The nsys summary columns for a set of durations: Instances, Total, Avg, Med, Min, Max, StdDev.
// StdDev is the sample standard deviation (n - 1), as nsys reports it; 0 for one instance.
#pragma once
#include <cstdint>
#include <vector>

namespace ks {

struct DurationStats {
  uint64_t count = 0;
  int64_t total_ns = 0;
  double avg_ns = 0;
  double median_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
  double stddev_ns = 0;
};

// Reorders `durations` (the median is found in place).
DurationStats compute_duration_stats(std::vector<int64_t>& durations);

}  // namespace ks
