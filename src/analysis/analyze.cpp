#include "analysis/analyze.h"

#include <climits>

namespace ks {

namespace {
bool is_launch_call(std::string_view n) {
  return n.find("LaunchKernel") != std::string_view::npos ||
         n.find("MemcpyAsync") != std::string_view::npos ||
         n.find("GraphLaunch") != std::string_view::npos;
}
}  // namespace

Analyses analyze(const Trace& t, const AnalysisOptions& options) {
  Analyses a;
  a.options = options;
  a.join = build_launch_join(t);
  a.steps = find_steps(t, a.join, options.drop_last_step);
  // With the last step dropped, GPU ops from its start on are left out, as HTA does.
  int64_t window_end = INT64_MAX;
  if (a.steps.dropped_last) {
    window_end = a.steps.steps.empty() ? INT64_MIN : a.steps.steps.back().end;
  }
  a.kernels = summarize_kernels(t, INT64_MIN, window_end);
  a.memory_ops = summarize_memory_ops(t, INT64_MIN, window_end);
  a.gpu_idle = compute_gpu_idle(t, a.join, a.steps);
  a.sync = find_sync_events(t, a.join, a.steps);
  for (uint32_t i : a.join.runtime_by_ts)
    if (is_launch_call(t.str(t.slices.name[i]))) ++a.launch_calls;
  a.gpu_expected = !t.devices.empty() || a.launch_calls > 0 || !a.join.gpu_ops_by_ts.empty();
  return a;
}

}  // namespace ks
