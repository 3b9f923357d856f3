#include "analysis/analyze.h"

#include <algorithm>
#include <climits>

#include "analysis/cpu_op_summary_export.h"

namespace ks {

namespace {
bool is_launch_call(std::string_view n) {
  return n.find("LaunchKernel") != std::string_view::npos ||
         n.find("MemcpyAsync") != std::string_view::npos ||
         n.find("GraphLaunch") != std::string_view::npos;
}
}  // namespace

std::vector<bool> hta_launched_before(const Trace& t, const LaunchJoin& join, int64_t cutoff_ns,
                                      bool inclusive) {
  const SliceTable& s = t.slices;
  std::vector<bool> kept(s.size(), true);
  for (uint32_t g : join.gpu_ops_by_ts) {
    int32_t launcher = join.partner[g];
    if (launcher < 0) {
      kept[g] = false;  // HTA's inner join drops GPU ops whose launch is not in the trace
      continue;
    }
    int64_t ts = s.ts[static_cast<uint32_t>(launcher)];
    kept[g] = inclusive ? ts <= cutoff_ns : ts < cutoff_ns;
  }
  return kept;
}

Analyses analyze(const Trace& t, const AnalysisOptions& options) {
  Analyses a;
  a.options = options;
  a.join = build_launch_join(t);
  a.steps = find_steps(t, a.join, options.drop_last_step, options.step_range);
  if (a.steps.found == 0) a.iterations = infer_iterations(t, a.join);
  std::vector<bool> kept;
  const std::vector<bool>* included = nullptr;
  if (a.steps.dropped_last && a.steps.found >= 2) {
    // The dropped step is the last one found: its host start is the cut-off.
    kept = hta_launched_before(t, a.join, a.steps.last_host_begin, false);
    included = &kept;
  }
  a.kernels = summarize_kernels(t, included);
  a.memory_ops = summarize_memory_ops(t, included);
  a.gpu_idle = compute_gpu_idle(t, a.join, a.steps);
  a.graph_captures = find_graph_captures(t, a.join, a.steps, a.gpu_idle);
  // The export's NVTX ranges by thread, sorted once for the analyses that ask what was open at
  // a launch (an emit_nvtx export has one per op call: millions).
  const EnclosingNvtxRanges nvtx(t, a.steps, 4);
  a.sync = find_sync_events(t, a.join, a.steps, &a.iterations, &nvtx);
  {
    GpuIntervals gpu = collect_gpu_intervals(t, a.join, included);
    a.temporal = compute_temporal_breakdown(gpu);
    a.kernel_types = compute_kernel_type_breakdown(gpu);
    a.comm_overlap = compute_comm_overlap(gpu);
  }
  a.idle = compute_idle_breakdown(t, a.join, included);
  a.launches = compute_launch_stats(t, a.join, included);
  a.idle_causes = compute_idle_causes(t, a.join, a.steps, a.gpu_idle);
  a.step_breakdown = compute_step_breakdown(t, a.steps);
  a.gpu_metrics = compute_gpu_metrics(t, a.steps);
  a.memory = compute_memory_usage(t);
  a.kernel_groups = group_kernels(t, included, a.join, a.steps, &nvtx);
  a.gpu_by_op = gpu_time_by_op(t, a.join, a.steps, included, &nvtx);
  a.api_calls = summarize_api_calls(t);
  a.annotations = summarize_annotations(t);
  a.cpu_ops = summarize_cpu_ops(t, &nvtx);
  a.math = compute_math_efficiency(t, a.join, a.steps, &nvtx);
  CriticalPathOptions path_options;
  path_options.max_window_slices = 1'000'000;
  set_default_window(a.steps, a.iterations, &path_options);
  a.critical_path = critical_path(t, a.join, path_options);
  for (uint32_t g : a.join.gpu_ops_by_ts)
    a.last_gpu_op_end_ns = std::max(a.last_gpu_op_end_ns, t.slices.end(g));
  for (uint32_t i : a.join.runtime_by_ts) {
    if (!is_launch_call(t.str(t.slices.name[i]))) continue;
    ++a.launch_calls;
    // A launch while a CUDA graph is being captured is recorded into the graph, not run.
    if (a.join.partner[i] < 0 && t.slices.ts[i] > a.last_gpu_op_end_ns &&
        length_within(a.graph_captures.windows, t.slices.ts[i], t.slices.ts[i] + 1) == 0) {
      ++a.launches_after_gpu_events;
      a.last_unmatched_launch_ns = std::max(a.last_unmatched_launch_ns, t.slices.ts[i]);
    }
  }
  a.gpu_expected = !t.devices.empty() || a.launch_calls > 0 || !a.join.gpu_ops_by_ts.empty();
  return a;
}

}  // namespace ks
