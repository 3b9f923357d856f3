// Runs every analysis over the model once (never the JSON again) and keeps the results
// together for the findings and the report.
#pragma once
#include <string>

#include "analysis/api_summary.h"
#include "analysis/comm_overlap.h"
#include "analysis/cpu_op_summary.h"
#include "analysis/critical_path.h"
#include "analysis/gpu_idle.h"
#include "analysis/gpu_metrics.h"
#include "analysis/gpu_op_summary.h"
#include "analysis/gpu_time_by_op.h"
#include "analysis/graph_capture.h"
#include "analysis/idle_breakdown.h"
#include "analysis/idle_causes.h"
#include "analysis/iterations.h"
#include "analysis/kernel_groups.h"
#include "analysis/kernel_type_breakdown.h"
#include "analysis/launch_join.h"
#include "analysis/launch_stats.h"
#include "analysis/math_efficiency.h"
#include "analysis/memory_usage.h"
#include "analysis/step_breakdown.h"
#include "analysis/steps.h"
#include "analysis/sync_events.h"
#include "analysis/temporal_breakdown.h"
#include "model/trace.h"

namespace ks {

struct AnalysisOptions {
  // HTA's default: leave out the last ProfilerStep (its GPU work is often cut off). As HTA does
  // it (hta/common/trace.py, _filter_irrelevant_gpu_kernels): with two or more steps, a GPU op
  // counts only when the CPU call that launched it (joined by correlation) started before the
  // last step did; with fewer than two steps nothing is dropped.
  bool drop_last_step = false;
  // Steps from the ranges of this name (NVTX or user annotation) instead of ProfilerStep#N
  // (src/analysis/steps.h); "" = ProfilerStep, else ranges named like a step.
  std::string step_range;
};

// The GPU ops HTA keeps, one flag per slice: launched by a CPU event that started before
// `cutoff_ns` (exclusive) or at/before it (inclusive). CPU-side slices are always kept.
std::vector<bool> hta_launched_before(const Trace& trace, const LaunchJoin& join, int64_t cutoff_ns,
                                      bool inclusive);

struct Analyses {
  AnalysisOptions options;
  LaunchJoin join;
  StepsResult steps;
  // Without steps: the iterations the repeating launch sequence shows (src/analysis/iterations.h);
  // reported beside "no steps", never used as the window.
  IterationsResult iterations;
  KernelSummary kernels;
  MemoryOpSummary memory_ops;
  GpuIdleResult gpu_idle;
  // CUDA graph capture windows: launches recorded, not run (graph_capture.h).
  GraphCaptures graph_captures;
  SyncResult sync;
  // HTA's analyses (over the same op set as `kernels`: HTA's step filter with drop_last_step).
  TemporalBreakdown temporal;
  KernelTypeBreakdown kernel_types;
  IdleBreakdown idle;
  CommOverlap comm_overlap;
  LaunchStats launches;
  // Ours: the cause of each GPU idle gap inside the steps.
  IdleCauses idle_causes;
  // The TB plugin's and nsys' views.
  StepBreakdown step_breakdown;
  GpuMetrics gpu_metrics;
  MemoryUsage memory;
  KernelGroups kernel_groups;
  // The TB plugin's operator view: GPU time by the op that launched it.
  GpuTimeByOp gpu_by_op;
  NamedStatsTable api_calls;
  NamedStatsTable annotations;
  CpuOpSummary cpu_ops;
  // FLOPs, achieved TFLOP/s and MFU from recorded shapes (one pass over kernels without them).
  MathEfficiency math;
  // HTA's critical path of one step (the first ProfilerStep, else the whole trace): what bounds
  // it. One step only, to keep the report's cost low; `kinetoscope critical-path` picks others.
  CriticalPathResult critical_path;
  // A trace of a GPU run: it names a GPU, or the CPU launched work on one.
  bool gpu_expected = false;
  uint64_t launch_calls = 0;
  // Launch calls that found no GPU op and started after the last GPU op read had ended: the
  // GPU's events stop while the CPU goes on launching (a file cut off mid-write, where Kineto
  // wrote the GPU's events last; CUPTI's activity buffers full). last_gpu_op_end_ns is INT64_MIN
  // without GPU ops.
  uint64_t launches_after_gpu_events = 0;
  int64_t last_gpu_op_end_ns = INT64_MIN;
  int64_t last_unmatched_launch_ns = INT64_MIN;
};

Analyses analyze(const Trace& trace, const AnalysisOptions& options);

}  // namespace ks
