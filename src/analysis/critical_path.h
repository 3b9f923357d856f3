// What bounds a step: the critical path of one window of the trace (a step, a named annotation's
// N-th instance, or the whole trace), built as Holistic Trace Analysis'
// `critical_path_analysis` builds it, so that its totals and its `bound_by` split agree with HTA.
//
// The graph (critical_path_graph.cpp): a node at the start and one at the end of every CPU op,
// runtime/driver call and GPU op in the window; edges
//   - operator    : along each CPU thread's call stack, start -> first child's start -> ... ->
//                   end (the time spent in that op), and each GPU op's start -> end;
//   - dependency  : end of a top-level CPU op -> start of the next one on its thread (weight 0:
//                   the gaps between top-level ops are not on any path);
//   - launch delay: runtime call start -> its GPU op start, when the stream was empty both at
//                   the launch and when the op started (else it waited for earlier GPU work);
//   - kernel-kernel delay: previous op on the stream's end -> this op's start;
//   - sync        : GPU op end -> end of the CPU call that waited for it (cudaStreamSynchronize,
//                   cudaDeviceSynchronize, cudaEventSynchronize via the cudaEventRecord the
//                   sync names), and GPU op -> GPU op across streams for cudaStreamWaitEvent
//                   (weight 0);
//   - zero-weight launch edges runtime start -> GPU op start for the launches that are not
//     launch-delay edges (HTA's CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1, as its tests set).
// Blocking calls (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventQuery,
// cudaEventSynchronize, cudaMemcpy) contribute no weight from their last child to their end:
// the wait is the GPU's, reached through the sync edge.
// The path is the longest one in that DAG (topological order + one pass, O(V + E)); each of its
// edges is attributed to an event and labelled by what bounds it, with HTA's names.
// Differences from HTA and why: docs/hta-differences.md ("Critical path").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/iterations.h"
#include "analysis/launch_join.h"
#include "analysis/steps.h"
#include "model/trace.h"

namespace ks {

enum class CpEdgeType : uint8_t {
  kOperator,           // "critical_path_operator"
  kDependency,         // "critical_path_dependency"
  kLaunchDelay,        // "critical_path_kernel_launch_delay"
  kKernelKernelDelay,  // "critical_path_kernel_kernel_delay"
  kSyncDependency,     // "critical_path_sync_dependency"
};

// HTA's bound_by labels; kNone is its "" (dependency and sync edges, all of weight 0).
enum class CpBound : uint8_t {
  kNone,
  kCpu,               // "cpu_bound"
  kGpuCompute,        // "gpu_compute_bound"
  kGpuCommunication,  // "gpu_communication_bound" (NCCL kernels)
  kGpuKernelKernel,   // "gpu_kernel_kernel_overhead"
  kGpuLaunch,         // "gpu_kernel_launch_overhead"
};
constexpr int kCpBoundCount = 6;

const char* cp_edge_type_name(CpEdgeType t);
const char* cp_bound_name(CpBound b);

struct CriticalPathOptions {
  // The window: the `instance`-th (0-based, in time order) slice whose name contains
  // `annotation`, as HTA matches it. Empty annotation with `whole_trace` false: the first
  // ProfilerStep, else the whole trace.
  std::string annotation;
  int64_t instance = 0;
  bool whole_trace = false;
  // An explicit window, this slice's span, when >= 0: the report's first step when its steps
  // come from NVTX / annotation ranges (analysis/steps.h), as it is the first ProfilerStep.
  int64_t window_slice = -1;
  // An explicit time window, [window_begin, window_end) when window_end > window_begin, named
  // `window_name`: the report's first inferred iteration when the trace has no steps
  // (analysis/iterations.h), as the first ProfilerStep is a Kineto trace's window.
  int64_t window_begin = 0, window_end = 0;
  std::string window_name;
  bool zero_weight_launch_edges = true;
  // 0: no limit. The report sets one: its graph costs ~220 bytes per event of the window, so a
  // window of millions of events (a whole trace without ProfilerStep) is left to the command.
  size_t max_window_slices = 0;
};

struct CpPathEdge {
  int32_t slice = -1;  // the event the edge is attributed to (-1: none, e.g. the top of a stack)
  int64_t from_ts = 0, to_ts = 0;
  int64_t weight = 0;  // ns
  CpEdgeType type = CpEdgeType::kOperator;
  CpBound bound = CpBound::kNone;
};

struct CriticalPathResult {
  bool ok = false;
  std::string error;         // why there is no path (no such annotation, a cycle, ...)
  std::string window_label;  // "ProfilerStep#12", "whole trace", or the annotation's name
  std::string annotation;    // as asked (or the default chosen)
  int64_t instance = 0;
  int32_t window_slice = -1;  // the annotation slice, -1 for the whole trace
  int64_t window_begin = 0, window_end = 0;
  int64_t total = 0;                                  // ns, the sum of the path's edge weights
  int64_t bound[kCpBoundCount] = {0, 0, 0, 0, 0, 0};  // total split by CpBound
  std::vector<CpPathEdge> path;                       // in path order
  uint64_t nodes = 0, edges = 0;
  uint64_t blocking_zeroed = 0;   // blocking calls whose wait was left to the sync edge
  uint64_t negative_clamped = 0;  // edges of negative weight (nesting skew) counted as 0
  double share(CpBound b) const {
    return total > 0 ? static_cast<double>(bound[static_cast<int>(b)]) / total : 0;
  }
  // The label holding the largest share of the path (kCpu for an empty path).
  CpBound dominant() const;
};

CriticalPathResult critical_path(const Trace& trace, const LaunchJoin& join,
                                 const CriticalPathOptions& options);

// The report's window, when `options` names none (no annotation, not the whole trace): the first
// step when the steps come from ranges (Nsight Systems exports' NVTX, --step-range), as the first
// ProfilerStep is a Kineto trace's (critical_path finds that one itself); without steps, the
// first iteration inferred from the repeating launches (its CPU start to the end of its GPU
// work: a whole capture from process start would measure its start-up). When the first step is
// a warm-up (analysis/warmup.h), the second step instead: one-time work does not bound the loop.
// The report and the
// critical-path command both take it, so the command shows the path the report summarized.
void set_default_window(const StepsResult& steps, const IterationsResult& iterations,
                        CriticalPathOptions* options);

// ---- pieces, exposed for tests ----

struct CpNode {
  int64_t ts = 0;
  uint32_t slice = 0;
  bool is_start = false;
};
struct CpEdge {
  uint32_t from = 0, to = 0;
  int64_t weight = 0;
  CpEdgeType type = CpEdgeType::kOperator;
  int32_t attributed = -1;  // slice, for operator and kernel-kernel edges
};
struct CpGraph {
  std::vector<CpNode> nodes;
  std::vector<CpEdge> edges;
  uint64_t blocking_zeroed = 0;
  // The slices the builder kept a row for (node, queue length): those with nodes, the window's,
  // not every slice of the trace (issue #19).
  uint64_t table_rows = 0;
};

// Builds the graph of the slices in [begin, end] (HTA's clipping rules, see the .cpp).
CpGraph build_cp_graph(const Trace& trace, const LaunchJoin& join, int64_t begin, int64_t end,
                       bool zero_weight_launch_edges);

// The longest path (edge indices in path order); false with a cycle. Negative weights count as 0.
bool longest_path(const CpGraph& g, std::vector<uint32_t>* path_edges);

}  // namespace ks
