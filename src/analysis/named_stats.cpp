#include "analysis/named_stats.h"

#include <algorithm>

namespace ks {

NamedStatsTable NamedStatsBuilder::build(const Trace& t) {
  NamedStatsTable out;
  out.rows.reserve(groups_.size());
  for (auto& kv : groups_) {
    NamedStatsRow row;
    row.name = kv.first;
    row.stats = compute_duration_stats(kv.second);
    out.count += row.stats.count;
    out.total_ns += row.stats.total_ns;
    out.rows.push_back(row);
  }
  for (NamedStatsRow& row : out.rows)
    row.percent = out.total_ns > 0 ? 100.0 * static_cast<double>(row.stats.total_ns) /
                                         static_cast<double>(out.total_ns)
                                   : 0;
  std::sort(out.rows.begin(), out.rows.end(), [&t](const NamedStatsRow& a, const NamedStatsRow& b) {
    if (a.stats.total_ns != b.stats.total_ns) return a.stats.total_ns > b.stats.total_ns;
    return t.str(a.name) < t.str(b.name);
  });
  groups_.clear();
  return out;
}

}  // namespace ks
