#include "analysis/step_kinds.h"

#include <algorithm>

#include "analysis/steps.h"

namespace ks {

namespace {
double cv_pct(const DurationStats& s) {
  return s.avg_ns > 0 ? s.stddev_ns / s.avg_ns * 100 : 0;
}
}  // namespace

StepKinds find_step_kinds(const std::vector<Step>& steps) {
  StepKinds out;
  const size_t n = steps.size();
  if (n < 2 * kMinStepsOfKind) return out;
  std::vector<int64_t> sorted;
  for (const Step& s : steps) sorted.push_back(s.own_dur());
  std::sort(sorted.begin(), sorted.end());
  // The split: the widest gap (as a ratio) between consecutive step times, each side keeping
  // kMinStepsOfKind steps.
  size_t split = 0;
  double gap = 0;
  for (size_t i = kMinStepsOfKind; i + kMinStepsOfKind <= n; ++i) {
    if (sorted[i - 1] <= 0) continue;
    const double r = static_cast<double>(sorted[i]) / static_cast<double>(sorted[i - 1]);
    if (r > gap) gap = r, split = i;
  }
  if (split == 0 || gap < kKindGapRatio) return out;
  const int64_t threshold = sorted[split];  // a step this long or longer is a long one
  std::vector<int64_t> longs, shorts;
  double long_work = 0, short_work = 0;
  std::vector<bool> is_long(n);
  for (size_t i = 0; i < n; ++i) {
    is_long[i] = steps[i].own_dur() >= threshold;
    (is_long[i] ? longs : shorts).push_back(steps[i].own_dur());
    (is_long[i] ? long_work : short_work) += static_cast<double>(steps[i].gpu_work_ns);
  }
  const DurationStats ls = compute_duration_stats(longs);
  const DurationStats ss = compute_duration_stats(shorts);
  if (cv_pct(ls) >= kKindMaxCvPct || cv_pct(ss) >= kKindMaxCvPct) return out;
  if (short_work <= 0 || ss.median_ns <= 0) return out;
  const double work_ratio =
      (long_work / static_cast<double>(ls.count)) / (short_work / static_cast<double>(ss.count));
  const double time_ratio = ls.median_ns / ss.median_ns;
  // A stall: longer steps, the same GPU work.
  if (work_ratio < kKindGapRatio || work_ratio < 0.5 * time_ratio) return out;
  out.found = true;
  out.is_long = std::move(is_long);
  out.long_stats = ls;
  out.short_stats = ss;
  out.gpu_work_ratio = work_ratio;
  return out;
}

}  // namespace ks
