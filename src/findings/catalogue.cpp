#include "findings/catalogue.h"

#include <algorithm>

#include "findings/rules.h"

namespace ks {

namespace {
// The reading order users follow: captures with nothing to analyze; step boundaries and step
// time; GPU idle gaps and their causes; the CPU/GPU relationship (synchronizations); what the
// kernels are; memory copies; the GPU metrics; data loading, communication, the multi-GPU
// strategy and memory; then how the trace was captured.
const Rule kRules[] = {
    rule_empty_trace,
    rule_no_gpu_activity,
    rule_no_cpu_activity,
    rule_gpu_events_lost,
    rule_file_cut_off,
    rule_no_steps,
    rule_warmup_step,
    rule_unstable_steps,
    rule_few_steps,
    rule_gpu_idle,
    rule_long_gpu_gaps,
    rule_dtoh_in_steps,
    rule_sync_calls,
    rule_item_per_step,
    rule_critical_path_bound,
    rule_math_share,
    rule_launch_bound,
    rule_no_tensor_cores,
    rule_slow_math,
    rule_pageable_copies,
    rule_unified_migrations,
    rule_low_utilization,
    rule_uneven_devices,
    rule_devices_idle,
    rule_stray_devices,
    rule_low_sm_efficiency,
    rule_low_tensor_active,
    rule_memory_bound,
    rule_low_occupancy,
    rule_dataloader,
    rule_communication,
    rule_data_parallel,
    rule_peak_memory,
    rule_memory_growth,
    rule_warmup_ops,
    rule_graph_capture,
    rule_torch_compile,
    rule_diagnostic_flags,
    rule_capture_too_long,
    rule_errors_visible,
    rule_missing_distributed_info,
    rule_clock_oddities,
    rule_nsys_empty_capture,
    rule_nsys_from_process_start,
    rule_nsys_long_capture,
    rule_nsys_emit_nvtx,
    rule_nsys_metrics_sampling,
    rule_nsys_graph_trace,
    rule_nsys_profiler_warnings,
    rule_nsys_profiler_overhead,
};
}  // namespace

std::vector<Finding> run_findings(const Trace& trace, const Analyses& analyses) {
  RuleInput in{trace, analyses};
  std::vector<Finding> out;
  for (Rule rule : kRules) rule(in, &out);
  temper_after_lost_gpu_events(&out);
  word_fixes_for_vendor(trace, analyses, &out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
  return out;
}

}  // namespace ks
