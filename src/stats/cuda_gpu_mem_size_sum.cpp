// cuda_gpu_mem_size_sum, "CUDA GPU MemOps Summary (by Size)". NVIDIA's definition (Nsight Systems
// User Guide, "Report Scripts"; the script's usage text): "This report provides a summary of GPU
// memory operations and the amount of memory they utilize."
//   Columns: Total (MB), Count, Avg (MB), Med (MB), Min (MB), Max (MB), StdDev (MB), Operation.
//   The same operations as cuda_gpu_mem_time_sum (mem_ops.h), over their `bytes`. The script
//   computes in bytes; `nsys stats` prints memory in MB by default (MB = 1,000,000 B, three
//   decimals), and so do we: the cells hold bytes / 1e6 unrounded. Ordered by total descending,
//   then count, then operation. Med and StdDev as in cuda_gpu_kern_sum.cpp.
#include "analysis/duration_stats.h"
#include "stats/mem_ops.h"
#include "stats/stats_db.h"

#include <algorithm>
#include <tuple>

namespace ks {

bool report_cuda_gpu_mem_size_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_gpu_mem_size_sum";
  t->title = "CUDA GPU MemOps Summary (by Size)";
  t->columns = {"Total (MB)", "Count",    "Avg (MB)",    "Med (MB)",
                "Min (MB)",   "Max (MB)", "StdDev (MB)", "Operation"};
  std::vector<SumGroup> groups;
  if (!collect_mem_ops(db, MemOpValue::kBytes, &groups, &t->note, error)) return false;
  struct Row {
    DurationStats s;  // over bytes, not durations: the same statistics
    std::string name;
  };
  std::vector<Row> rows;
  for (SumGroup& g : groups) rows.push_back({compute_duration_stats(g.values), g.labels[0]});
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::make_tuple(-a.s.total_ns, a.s.count, a.name) <
           std::make_tuple(-b.s.total_ns, b.s.count, b.name);
  });
  const double mb = 1e6;
  for (const Row& r : rows) {
    t->rows.push_back({cell_real(static_cast<double>(r.s.total_ns) / mb),
                       cell_int(static_cast<int64_t>(r.s.count)), cell_real(r.s.avg_ns / mb),
                       cell_real(r.s.median_ns / mb),
                       cell_real(static_cast<double>(r.s.min_ns) / mb),
                       cell_real(static_cast<double>(r.s.max_ns) / mb),
                       cell_real(r.s.stddev_ns / mb), cell_text(r.name)});
  }
  return true;
}

}  // namespace ks
