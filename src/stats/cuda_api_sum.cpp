// cuda_api_sum, "CUDA API Summary". NVIDIA's definition (Nsight Systems User Guide, "Report
// Scripts"): "This report provides a summary of CUDA API functions and their execution times.
// Note that the "Time" column is calculated using a summation of the "Total Time" column, and
// represents that function's percent of the execution time of the functions listed, and not a
// percentage of the application wall or CPU execution time."
//   Columns: Time (%), Total Time (ns), Num Calls, Avg (ns), Med (ns), Min (ns), Max (ns),
//   StdDev (ns), Name. Rows of CUPTI_ACTIVITY_KIND_RUNTIME (the runtime and driver calls nsys
//   traced; `eventClass` tells them apart) grouped by `nameId`, the name without nsys's version
//   suffix ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel": the script strips a "_v" + 4 digits
//   tail), duration = end - start. Ordered by total time descending. Med and StdDev as in
//   cuda_gpu_kern_sum.cpp.
#include <sqlite3.h>

#include <unordered_map>

#include "stats/stats_db.h"

namespace ks {

// "cudaMalloc_v3020" -> "cudaMalloc": the script's CASE substr(value, -6, 2) WHEN '_v' ... .
std::string strip_nsys_api_version(const std::string& name) {
  if (name.size() >= 6 && name.compare(name.size() - 6, 2, "_v") == 0)
    return name.substr(0, name.size() - 6);
  return name;
}

bool collect_api_groups(const StatsDb& db, std::vector<SumGroup>* groups, std::string* note,
                        std::string* error) {
  const char* table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!db.has_table(table) || !db.has_table("StringIds")) {
    *note = db.has_table(table) ? "no StringIds table: the export has no API names"
                                : "no CUPTI_ACTIVITY_KIND_RUNTIME table: CUDA API calls were "
                                  "not traced (capture with --trace=cuda)";
    return true;
  }
  bool ok =
      group_durations_by_name_id(db,
                                 std::string("SELECT r.start, r.end, r.nameId, s.value FROM ") +
                                     table + " AS r LEFT JOIN StringIds AS s ON s.id = r.nameId",
                                 strip_nsys_api_version, groups, error);
  if (ok && groups->empty()) *note = "CUPTI_ACTIVITY_KIND_RUNTIME has no rows";
  return ok;
}

bool report_cuda_api_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_api_sum";
  t->title = "CUDA API Summary";
  std::vector<SumGroup> groups;
  if (!collect_api_groups(db, &groups, &t->note, error)) return false;
  fill_time_summary(std::move(groups), "Num Calls", {"Name"}, t);
  return true;
}

}  // namespace ks
