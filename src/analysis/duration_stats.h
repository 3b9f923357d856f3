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

// A duration that occurs `count` times in a row.
struct RepeatedDuration {
  int64_t ns = 0;
  uint64_t count = 0;
};

// compute_duration_stats of the durations these repeats spell out, in their order, without
// spelling them out: the same numbers to the last bit (the deviations are summed one instance at
// a time, as there). Reorders `repeats`.
DurationStats compute_duration_stats(std::vector<RepeatedDuration>& repeats);

}  // namespace ks
