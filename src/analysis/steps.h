// Steps from `ProfilerStep#N` slices on the CPU (torch.profiler's prof.step()), with
// device-adjusted bounds as the TB plugin computes them:
//   start = max(previous step's end, host start)
//   end   = max(host end, end of the last GPU op launched by runtime calls inside the host step)
// With no step markers there are no steps; analyses then use the whole trace as one window.
// HTA drops the last step by default (its GPU work is often cut off); `drop_last` does the same.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/duration_stats.h"
#include "analysis/launch_join.h"
#include "model/trace.h"

namespace ks {

struct Step {
  int64_t number = 0;
  uint32_t slice = 0;  // the ProfilerStep slice
  int64_t host_begin = 0, host_end = 0;
  int64_t begin = 0, end = 0;  // device-adjusted
  int64_t dur() const { return end - begin; }
};

struct StepsResult {
  std::vector<Step> steps;  // in time order, after drop_last when asked
  bool dropped_last = false;
  uint64_t found = 0;           // ProfilerStep markers found, before dropping
  int64_t last_host_begin = 0;  // host start of the last step found (dropped or not)
  int64_t last_host_end = 0;    // host end of the last step found
  DurationStats stats;          // over the device-adjusted durations
  double spread_pct = 0;        // (max - min) / median * 100
  double cv_pct = 0;            // stddev / mean * 100
};

StepsResult find_steps(const Trace& trace, const LaunchJoin& join, bool drop_last);

// Parses "ProfilerStep#123"; false for other names.
bool parse_profiler_step(std::string_view name, int64_t* number);

}  // namespace ks
