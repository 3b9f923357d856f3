// A steady rise of the step time over the capture, each step longer than the one before by about
// the same amount: a loop whose work grows (decoding with a KV cache one token longer each step,
// a sequence that lengthens, something kept and walked across training steps), not a loop with
// stalls. Step times that rise so vary as much as stalled ones, yet an intermittent stall is
// the wrong reading and "compare the slowest step with a typical one" the wrong fix: there is
// no typical step. Read as a least-squares line through (step index, step time).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ks {

struct StepTrend {
  bool growing = false;
  double slope_ns = 0;      // the fitted line's rise per step
  double r2 = 0;            // the share of the variation the line explains
  double first_fit_ns = 0;  // the line at the first step and at the last
  double last_fit_ns = 0;
};

// kMinTrendSteps steps or more, a positive slope, R^2 of kTrendMinR2 or more (a few slow steps
// at the end, a step function, stay under it: half the steps twice as long is R^2 0.75), and a
// rise over the capture of kTrendMinRisePct of the first fitted step or more.
constexpr size_t kMinTrendSteps = 8;
constexpr double kTrendMinR2 = 0.9;
constexpr double kTrendMinRisePct = 10.0;
StepTrend step_trend(const std::vector<int64_t>& durations);

// The least-squares slope of `values` against their index (0 for fewer than two).
double trend_slope(const std::vector<int64_t>& values);

}  // namespace ks
