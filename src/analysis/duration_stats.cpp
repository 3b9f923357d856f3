#include "analysis/duration_stats.h"

#include <algorithm>
#include <cmath>

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

}  // namespace ks
