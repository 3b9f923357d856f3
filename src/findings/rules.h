// The finding rules. Each looks at the analyses (never the JSON) and appends what it finds.
// They are listed, in the users' reading order, in catalogue.cpp.
#pragma once
#include <vector>

#include "analysis/analyze.h"
#include "findings/finding.h"
#include "findings/rule_helpers.h"
#include "util/format.h"

namespace ks {

struct RuleInput {
  const Trace& trace;
  const Analyses& analyses;
};
using Rule = void (*)(const RuleInput&, std::vector<Finding>*);

// capture_rules.cpp: captures with nothing (or no GPU side) to analyze
void rule_empty_trace(const RuleInput&, std::vector<Finding>*);
void rule_no_gpu_activity(const RuleInput&, std::vector<Finding>*);
void rule_no_cpu_activity(const RuleInput&, std::vector<Finding>*);
void rule_gpu_events_lost(const RuleInput&, std::vector<Finding>*);
void rule_file_cut_off(const RuleInput&, std::vector<Finding>*);
// After every rule: with capture.gpu_events_lost, the GPU's measures drop to information.
void temper_after_lost_gpu_events(std::vector<Finding>* out);
// The fixes in the words of the trace's device API (vendor_wording.cpp): Intel XPU's, not CUDA's.
void word_fixes_for_vendor(const Trace& t, const Analyses& a, std::vector<Finding>* out);
// step_rules.cpp
void rule_no_steps(const RuleInput&, std::vector<Finding>*);
void rule_warmup_step(const RuleInput&, std::vector<Finding>*);
void rule_unstable_steps(const RuleInput&, std::vector<Finding>*);
void rule_few_steps(const RuleInput&, std::vector<Finding>*);
// gpu_idle_rules.cpp
void rule_gpu_idle(const RuleInput&, std::vector<Finding>*);
void rule_long_gpu_gaps(const RuleInput&, std::vector<Finding>*);
// sync_rules.cpp
void rule_dtoh_in_steps(const RuleInput&, std::vector<Finding>*);
void rule_sync_calls(const RuleInput&, std::vector<Finding>*);
void rule_item_per_step(const RuleInput&, std::vector<Finding>*);
// kernel_rules.cpp
void rule_math_share(const RuleInput&, std::vector<Finding>*);
void rule_launch_bound(const RuleInput&, std::vector<Finding>*);
void rule_no_tensor_cores(const RuleInput&, std::vector<Finding>*);
// math_rules.cpp: math efficiency from recorded shapes
void rule_slow_math(const RuleInput&, std::vector<Finding>*);
// critical_path_rules.cpp: what bounds the step, when one side dominates its critical path
void rule_critical_path_bound(const RuleInput&, std::vector<Finding>*);
// memcpy_rules.cpp
void rule_pageable_copies(const RuleInput&, std::vector<Finding>*);
void rule_unified_migrations(const RuleInput&, std::vector<Finding>*);
// gpu_metric_rules.cpp
void rule_low_utilization(const RuleInput&, std::vector<Finding>*);
void rule_uneven_devices(const RuleInput&, std::vector<Finding>*);
void rule_devices_idle(const RuleInput&, std::vector<Finding>*);
void rule_stray_devices(const RuleInput&, std::vector<Finding>*);
void rule_low_sm_efficiency(const RuleInput&, std::vector<Finding>*);
void rule_low_tensor_active(const RuleInput&, std::vector<Finding>*);
// gpu_sampled_rules.cpp: nsys' sampled DRAM, SM Issue and warps
void rule_memory_bound(const RuleInput&, std::vector<Finding>*);
void rule_low_occupancy(const RuleInput&, std::vector<Finding>*);
// workload_rules.cpp
void rule_dataloader(const RuleInput&, std::vector<Finding>*);
void rule_communication(const RuleInput&, std::vector<Finding>*);
void rule_data_parallel(const RuleInput&, std::vector<Finding>*);
void rule_peak_memory(const RuleInput&, std::vector<Finding>*);
void rule_memory_growth(const RuleInput&, std::vector<Finding>*);
// capture_mistake_rules.cpp: how the trace was taken
void rule_warmup_ops(const RuleInput&, std::vector<Finding>*);
// graph_capture_rules.cpp: a trace of CUDA graph capture, and the share of the GPU idle time
// spent in it (0..1) with what to say of it, for the rules that read idle time
void rule_graph_capture(const RuleInput&, std::vector<Finding>*);
// torch_compile_rules.cpp: torch.compile compiling (or recompiling) inside the capture
void rule_torch_compile(const RuleInput&, std::vector<Finding>*);
double graph_capture_idle_share(const Analyses& a);
extern const char* const kGraphCaptureIdleFix;
void rule_diagnostic_flags(const RuleInput&, std::vector<Finding>*);
void rule_capture_too_long(const RuleInput&, std::vector<Finding>*);
void rule_errors_visible(const RuleInput&, std::vector<Finding>*);
void rule_missing_distributed_info(const RuleInput&, std::vector<Finding>*);
void rule_clock_oddities(const RuleInput&, std::vector<Finding>*);
// nsys_capture_rules.cpp: how an Nsight Systems capture was taken (exports only)
void rule_nsys_empty_capture(const RuleInput&, std::vector<Finding>*);
void rule_nsys_from_process_start(const RuleInput&, std::vector<Finding>*);
void rule_nsys_long_capture(const RuleInput&, std::vector<Finding>*);
void rule_nsys_emit_nvtx(const RuleInput&, std::vector<Finding>*);
void rule_nsys_metrics_sampling(const RuleInput&, std::vector<Finding>*);
void rule_nsys_graph_trace(const RuleInput&, std::vector<Finding>*);
void rule_nsys_profiler_warnings(const RuleInput&, std::vector<Finding>*);
void rule_nsys_profiler_overhead(const RuleInput&, std::vector<Finding>*);

// The GPU time of CUDA graph replays traced whole (nsys --cuda-graph-trace=graph): kernels of
// unknown names, which the kernel-mix rule must not judge.
int64_t graph_trace_ns(const Trace& t);

}  // namespace ks
