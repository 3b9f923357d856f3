// Two kinds of steps in one loop: the step times fall into two groups, each steady on its own,
// and the long steps run proportionally more GPU work. An inference server's steps are like
// that (a prefill step processes whole prompts, a decode step one token per request: vLLM's
// execute_model ranges are 4x apart), and so is a training loop that evaluates every so often.
// Such a loop is not unstable and its first step, when a long one, is no warm-up: the report
// names the two populations instead (findings/step_rules.cpp).
//
// A stall makes a step long too, but its GPU work is the same as the others': the GPU waited.
// So the split needs both a gap in the step times and the GPU work to follow it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "analysis/duration_stats.h"

namespace ks {

struct Step;

struct StepKinds {
  bool found = false;
  std::vector<bool> is_long;              // parallel to the steps
  DurationStats long_stats, short_stats;  // over the steps' own times
  double gpu_work_ratio = 0;              // mean GPU work of a long step / of a short one
};

// Each kind needs kMinStepsOfKind steps or more (fewer long ones are slow steps, the unstable
// rule's); the shortest long step takes kKindGapRatio times the longest short one or more; each
// kind's CV is under kKindMaxCvPct; the long kind's mean GPU work is kKindGapRatio times the
// short kind's or more, and at least half its ratio of median step times.
constexpr size_t kMinStepsOfKind = 3;
constexpr double kKindGapRatio = 1.5;
constexpr double kKindMaxCvPct = 25.0;
StepKinds find_step_kinds(const std::vector<Step>& steps);

}  // namespace ks
