// cuda_gpu_mem_time_sum, "CUDA GPU MemOps Summary (by Time)". NVIDIA's definition (Nsight Systems
// User Guide, "Report Scripts"; the script's usage text): "This report provides a summary of GPU
// memory operations and their execution times. Note that the "Time" column is calculated using a
// summation of the "Total Time" column, and represents that operation's percent of the execution
// time of the operations listed, and not a percentage of the application wall or CPU execution
// time."
//   Columns: Time (%), Total Time (ns), Count, Avg (ns), Med (ns), Min (ns), Max (ns),
//   StdDev (ns), Operation. Operations: CUPTI_ACTIVITY_KIND_MEMCPY rows named
//   "[CUDA memcpy " + ENUM_CUDA_MEMCPY_OPER.label(copyKind) + "]" (the export's own label, e.g.
//   "Host-to-Device" in 2024 exports, "HtoD" in older ones) and CUPTI_ACTIVITY_KIND_MEMSET rows
//   named "[CUDA memset]"; duration = end - start. Ordered by total time descending. Med and
//   StdDev as in cuda_gpu_kern_sum.cpp (median of the middle two; sample standard deviation).
#include "stats/mem_ops.h"
#include "stats/stats_db.h"

namespace ks {

bool report_cuda_gpu_mem_time_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_gpu_mem_time_sum";
  t->title = "CUDA GPU MemOps Summary (by Time)";
  std::vector<SumGroup> groups;
  std::string note;
  if (!collect_mem_ops(db, MemOpValue::kDuration, &groups, &note, error)) return false;
  fill_time_summary(std::move(groups), "Count", {"Operation"}, t);
  t->note = note;
  return true;
}

}  // namespace ks
