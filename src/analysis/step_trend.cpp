#include "analysis/step_trend.h"

namespace ks {

namespace {
struct Line {
  double slope = 0, intercept = 0, r2 = 0;
};

Line fit(const std::vector<int64_t>& y) {
  Line l;
  const size_t n = y.size();
  if (n < 2) return l;
  // Index and values centred on their means: sums of products stay small (step times in ns
  // squared reach 1e20 for second-long steps; centred, the doubles keep their precision).
  const double mx = static_cast<double>(n - 1) / 2.0;
  double my = 0;
  for (int64_t v : y) my += static_cast<double>(v);
  my /= static_cast<double>(n);
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = static_cast<double>(i) - mx, dy = static_cast<double>(y[i]) - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  l.slope = sxy / sxx;
  l.intercept = my - l.slope * mx;
  l.r2 = syy > 0 ? (sxy * sxy) / (sxx * syy) : 0;
  return l;
}
}  // namespace

double trend_slope(const std::vector<int64_t>& values) {
  return fit(values).slope;
}

StepTrend step_trend(const std::vector<int64_t>& durations) {
  StepTrend t;
  const size_t n = durations.size();
  if (n < kMinTrendSteps) return t;
  const Line l = fit(durations);
  t.slope_ns = l.slope;
  t.r2 = l.r2;
  t.first_fit_ns = l.intercept;
  t.last_fit_ns = l.intercept + l.slope * static_cast<double>(n - 1);
  const double rise = t.last_fit_ns - t.first_fit_ns;
  t.growing = l.slope > 0 && l.r2 >= kTrendMinR2 && t.first_fit_ns > 0 &&
              100.0 * rise / t.first_fit_ns >= kTrendMinRisePct;
  return t;
}

}  // namespace ks
