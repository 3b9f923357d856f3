// cuda_gpu_kern_gb_sum, "CUDA GPU Kernel/Grid/Block Summary". NVIDIA's definition (Nsight Systems
// Post-Collection Analysis Guide, "cuda_gpu_kern_gb_sum"): "This report provides a summary of
// CUDA kernels and their execution times. Kernels are sorted by grid dimensions, block
// dimensions, and kernel name. Note that the "Time" column is calculated using a summation of the
// "Total Time" column, and represents that kernel's percent of the execution time of the kernels
// listed, and not a percentage of the application wall or CPU execution time." It is
// cuda_gpu_kern_sum as it was before nsys took the launch shape out of that report: users quote it
// to see which grid a slow kernel ran with.
//   Columns: Time (%), Total Time (ns), Instances, Avg (ns), Med (ns), Min (ns), Max (ns),
//   StdDev (ns), GridXYZ, BlockXYZ, Name. One row per (kernel name, grid, block): the kernels of
//   cuda_gpu_kern_sum (same names, durations and statistics) split by their launch shape;
//   GridXYZ and BlockXYZ as cuda_kern_exec_trace prints them (launch_shape). Ordered as
//   cuda_gpu_kern_sum: total time descending, then instances, then the labels.
#include <sqlite3.h>

#include <map>
#include <tuple>

#include "stats/stats_db.h"

namespace ks {

bool report_cuda_gpu_kern_gb_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_gpu_kern_gb_sum";
  t->title = "CUDA GPU Kernel/Grid/Block Summary";
  const char* table = "CUPTI_ACTIVITY_KIND_KERNEL";
  const std::vector<std::string> labels = {"GridXYZ", "BlockXYZ", "Name"};
  if (!db.has_table(table) || !db.has_table("StringIds")) {
    std::vector<SumGroup> none;  // cuda_gpu_kern_sum's note on what the capture lacked
    if (!collect_kernel_groups(db, &none, &t->note, error)) return false;
    fill_time_summary({}, "Instances", labels, t);
    return true;
  }
  const std::string name_col = kernel_name_expr(db);
  std::string shape;
  for (const char* c : {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"})
    shape += db.has_column(table, c) ? std::string(", ") + c : std::string(", 0");
  // Grouped by (name index, grid, block): one name index per text, as StringIdNames gives them.
  using Key = std::tuple<uint32_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
  std::map<Key, size_t> index;
  std::vector<SumGroup> groups;
  StringIdNames names(db);
  bool ok = db.query(
      "SELECT start, end, " + name_col + shape + " FROM " + table,
      [&](sqlite3_stmt* st) {
        const int64_t grid[3] = {col_int(st, 3), col_int(st, 4), col_int(st, 5)};
        const int64_t block[3] = {col_int(st, 6), col_int(st, 7), col_int(st, 8)};
        const uint32_t name = names.index(col_int(st, 2), col_null(st, 2));
        const Key key(name, grid[0], grid[1], grid[2], block[0], block[1], block[2]);
        auto [it, added] = index.emplace(key, groups.size());
        if (added)
          groups.push_back({{launch_shape(grid), launch_shape(block), names.text(name)}, {}});
        groups[it->second].values.push_back(col_int(st, 1) - col_int(st, 0));
      },
      error);
  if (!ok) return false;
  if (!names.error().empty()) {
    *error = names.error();
    return false;
  }
  if (groups.empty()) t->note = kNoKernelRows;
  fill_time_summary(std::move(groups), "Instances", labels, t);
  return true;
}

}  // namespace ks
