// Joins runtime launches to the GPU ops they started, through the `correlation` arg Kineto puts
// on both (the ac2g flow carries the same id). Every analysis that asks "who launched this
// kernel" or "when did the CPU ask for it" goes through this one index.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "model/trace.h"

namespace ks {

struct LaunchJoin {
  // For each slice: the GPU op a runtime call launched, or the runtime call that launched a GPU
  // op; -1 when there is none.
  std::vector<int32_t> partner;
  // Runtime calls (on CPU tracks) sorted by start time, for window queries.
  std::vector<uint32_t> runtime_by_ts;
  // GPU ops (kernel/memcpy/memset) sorted by start time.
  std::vector<uint32_t> gpu_ops_by_ts;
  // Launches that started several GPU ops (a CUDA graph replay: one cudaGraphLaunch, its
  // kernels all carrying its correlation id), sorted by launch, with the end of their last op.
  // `partner` names one op only; few launches are graphs, so they are kept apart.
  std::vector<std::pair<uint32_t, int64_t>> multi_op_ends;
};

LaunchJoin build_launch_join(const Trace& trace);

// Where the GPU work a runtime call launched ends: its op's end, or for a launch of several ops
// (a CUDA graph) the latest end of them; INT64_MIN when it launched nothing.
int64_t launched_work_end(const Trace& trace, const LaunchJoin& join, uint32_t launch);

// The chain of CPU ops enclosing a slice, outermost first (names), at most `max_depth`.
std::vector<StringId> enclosing_cpu_ops(const Trace& trace, uint32_t slice, size_t max_depth);

// For every slice, the nearest enclosing CPU op of those chains (-1: none), in one pass over
// the parent column: for a question asked of every GPU op's launch, where memoized chains
// would cost a vector per slice.
std::vector<int32_t> nearest_origin_ops(const Trace& trace);

// The same chains for many slices: each slice's chain is its parent's plus (maybe) the parent,
// remembered for every slice visited, so asking for N slices under one deep stack costs O(N +
// depth), not N x depth (N copies launched from the bottom of a 20,000-deep stack took seconds).
class EnclosingCpuOps {
 public:
  EnclosingCpuOps(const Trace& trace, size_t max_depth) : t_(trace), max_depth_(max_depth) {}
  const std::vector<StringId>& of(uint32_t slice);

 private:
  const Trace& t_;
  size_t max_depth_;
  std::unordered_map<uint32_t, std::vector<StringId>> memo_;
};

}  // namespace ks
