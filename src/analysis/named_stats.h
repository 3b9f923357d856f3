// Groups durations by a string id and summarizes each group with the nsys columns (Time %,
// Total, Instances, Avg, Med, Min, Max, StdDev, Name): the shape shared by `cuda_api_sum`,
// `nvtx_sum` and the kernel groupings. Time % is of the listed total, as nsys prints it.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "analysis/duration_stats.h"
#include "model/trace.h"

namespace ks {

struct NamedStatsRow {
  StringId name = 0;
  DurationStats stats;
  double percent = 0;
  // For a row that stands for a family of names, what it is shown as ("ProfilerStep#*" for every
  // ProfilerStep#N, "aten::mm" for emit_nvtx's "aten::mm, seq = N"); `name` is one of them.
  // Empty: the row is `name`.
  std::string label;
};

struct NamedStatsTable {
  std::vector<NamedStatsRow> rows;  // by total time descending, then name
  uint64_t count = 0;
  int64_t total_ns = 0;
};

// Collects durations per name, then builds the table (sorts by total, then name).
class NamedStatsBuilder {
 public:
  void add(StringId name, int64_t dur_ns) { groups_[name].push_back(dur_ns); }
  NamedStatsTable build(const Trace& trace);

 private:
  std::unordered_map<StringId, std::vector<int64_t>> groups_;
};

}  // namespace ks
