#include "analysis/duration_stats.h"

#include <algorithm>
#include <cmath>

namespace ks {

DurationStats compute_duration_stats(std::vector<int64_t>& d) {
  DurationStats s;
  if (d.empty()) return s;
  std::sort(d.begin(), d.end());
  s.count = d.size();
  for (int64_t x : d) s.total_ns += x;
  s.min_ns = d.front();
  s.max_ns = d.back();
  s.avg_ns = static_cast<double>(s.total_ns) / static_cast<double>(s.count);
  size_t n = d.size();
  s.median_ns = n % 2 ? static_cast<double>(d[n / 2])
                      : (static_cast<double>(d[n / 2 - 1]) + static_cast<double>(d[n / 2])) / 2.0;
  if (n > 1) {
    double sq = 0;
    for (int64_t x : d) {
      double dx = static_cast<double>(x) - s.avg_ns;
      sq += dx * dx;
    }
    s.stddev_ns = std::sqrt(sq / static_cast<double>(n - 1));
  }
  return s;
}

}  // namespace ks
