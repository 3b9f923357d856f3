#include "analysis/duration_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace ks {

DurationStats compute_duration_stats(std::vector<int64_t>& d) {
  DurationStats s;
  if (d.empty()) return s;
  s.count = d.size();
  const auto [lo, hi] = std::minmax_element(d.begin(), d.end());
  s.min_ns = *lo;
  s.max_ns = *hi;
  for (int64_t x : d) s.total_ns += x;
  s.avg_ns = static_cast<double>(s.total_ns) / static_cast<double>(s.count);
  size_t n = d.size();
  // The deviations are summed before the median's partition moves the values, so the sum's
  // rounding depends only on the order the caller gave (the same natively and in WASM, whose
  // standard libraries partition differently).
  if (n > 1) {
    double sq = 0;
    for (int64_t x : d) {
      double dx = static_cast<double>(x) - s.avg_ns;
      sq += dx * dx;
    }
    s.stddev_ns = std::sqrt(sq / static_cast<double>(n - 1));
  }
  // The median by selection, not a whole sort (sorting was most of this, for every kernel name).
  std::nth_element(d.begin(), d.begin() + n / 2, d.end());
  const double upper = static_cast<double>(d[n / 2]);
  s.median_ns =
      n % 2 ? upper
            : (static_cast<double>(*std::max_element(d.begin(), d.begin() + n / 2)) + upper) / 2.0;
  return s;
}

DurationStats compute_duration_stats(std::vector<RepeatedDuration>& r) {
  DurationStats s;
  for (const RepeatedDuration& x : r) s.count += x.count;
  if (s.count == 0) return s;
  s.min_ns = INT64_MAX;
  s.max_ns = INT64_MIN;
  for (const RepeatedDuration& x : r) {
    if (x.count == 0) continue;
    s.min_ns = std::min(s.min_ns, x.ns);
    s.max_ns = std::max(s.max_ns, x.ns);
    s.total_ns += x.ns * static_cast<int64_t>(x.count);
  }
  s.avg_ns = static_cast<double>(s.total_ns) / static_cast<double>(s.count);
  const uint64_t n = s.count;
  if (n > 1) {
    double sq = 0;
    for (const RepeatedDuration& x : r) {
      const double dx = static_cast<double>(x.ns) - s.avg_ns;
      for (uint64_t k = 0; k < x.count; ++k) sq += dx * dx;
    }
    s.stddev_ns = std::sqrt(sq / static_cast<double>(n - 1));
  }
  // The median: the values at sorted positions n / 2 (and n / 2 - 1 for an even count).
  std::sort(r.begin(), r.end(),
            [](const RepeatedDuration& a, const RepeatedDuration& b) { return a.ns < b.ns; });
  auto at = [&r](uint64_t pos) {
    uint64_t seen = 0;
    for (const RepeatedDuration& x : r) {
      seen += x.count;
      if (pos < seen) return x.ns;
    }
    return r.back().ns;
  };
  const double upper = static_cast<double>(at(n / 2));
  s.median_ns = n % 2 ? upper : (static_cast<double>(at(n / 2 - 1)) + upper) / 2.0;
  return s;
}

}  // namespace ks
