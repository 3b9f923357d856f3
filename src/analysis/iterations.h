// Iterations inferred from the GPU work itself, for traces without step markers (no
// ProfilerStep#N, no NVTX range named like a step): a training or inference loop launches the
// same sequence of GPU ops every iteration, so the sequence of op names on the launching thread
// repeats with a period P. Neither HTA nor nsys does this; it gives step times and their
// stability to the many Nsight Systems captures (and prof.step()-less PyTorch runs) that have no
// step ranges. It does not change the analysis window: steps stay "none".
//
// The rule (src/analysis/iterations.cpp):
//   1. tokens: the GPU ops (kernel, memcpy, memset) launched by the thread that launched most of
//      them, in launch order, each named by its op name (without launches: the busiest stream's
//      ops in start order);
//   2. candidate periods: the distances between consecutive launches of one name;
//   3. a period's mismatch: the share of positions i with token[i] != token[i + P] (sampled);
//      the best is the lowest; the period kept is the smallest within a small tolerance of it
//      (a multiple of the true period matches as well; a layer's period matches less, since the
//      ops outside the layers break it), at most 10% mismatch and at least three iterations;
//   4. phase: iterations start at the launch with the longest median CPU gap before it (the
//      loop's own work between iterations: the next batch, logging, a sync);
//   5. each full period is one iteration, with device-adjusted bounds as steps have.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/duration_stats.h"
#include "analysis/launch_join.h"
#include "analysis/steps.h"
#include "model/trace.h"

namespace ks {

struct Iteration {
  int64_t host_begin = 0, host_end = 0;
  int64_t begin = 0, end = 0;  // device-adjusted, as Step
  int64_t dur() const { return end - begin; }
};

struct IterationsResult {
  bool found = false;
  uint32_t period_ops = 0;    // GPU ops per iteration
  uint32_t total_ops = 0;     // ops in the sequence read
  uint32_t first_op = 0;      // ops before the first full iteration (warm-up, a partial one)
  double match_pct = 0;       // positions whose op repeats one period later (sampled)
  bool from_launches = true;  // false: the busiest stream's ops, no launch join
  std::vector<Iteration> iterations;
  DurationStats stats;
  double spread_pct = 0;  // (max - min) / median * 100
  double cv_pct = 0;      // stddev / mean * 100
};

IterationsResult infer_iterations(const Trace& trace, const LaunchJoin& join);

// The loop's windows, in time order, for analyses that look inside steps: the steps' bounds (host
// and device-adjusted), else, without steps, the inferred iterations (*inferred set); empty when
// there are neither.
std::vector<Iteration> loop_windows(const StepsResult& steps, const IterationsResult& iterations,
                                    bool* inferred);

}  // namespace ks
