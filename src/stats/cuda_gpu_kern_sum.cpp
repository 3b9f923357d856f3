// cuda_gpu_kern_sum, "CUDA GPU Kernel Summary". NVIDIA's definition (Nsight Systems User Guide /
// Post-Collection Analysis Guide, "Report Scripts"; the script's own usage text): "This report
// provides a summary of CUDA kernels and their execution times. Note that the "Time" column is
// calculated using a summation of the "Total Time" column, and represents that kernel's percent of
// the execution time of the kernels listed, and not a percentage of the application wall or CPU
// execution time."
//   Columns: Time (%), Total Time (ns), Instances, Avg (ns), Med (ns), Min (ns), Max (ns),
//   StdDev (ns), Name. One row per kernel name: CUPTI_ACTIVITY_KIND_KERNEL grouped by the
//   demangled name (StringIds value of `demangledName`; `shortName` where an older export has no
//   demangled column), duration = end - start. Ordered by total time descending, then instances
//   ascending, then name (the script's ORDER BY 2 DESC, 3, "Name").
//   Med: the median (mean of the two middle values for an even count); StdDev: the sample
//   standard deviation (n - 1), 0 for one instance, as nsys prints them (an osrt_sum of two calls
//   2,971,823 and 333,015,608 ns shows StdDev 233,376,198.5 = |a - b| / sqrt(2)).
#include <sqlite3.h>

#include <unordered_map>

#include "stats/stats_db.h"

namespace ks {

std::string kernel_name_expr(const StatsDb& db, const std::string& alias) {
  const char* table = "CUPTI_ACTIVITY_KIND_KERNEL";
  const std::string k = alias.empty() ? "" : alias + ".";
  const std::string templated =
      k + (db.has_column(table, "demangledName") ? "demangledName" : "shortName");
  switch (db.kernel_naming()) {
    case KernelNaming::kBase:
      return db.has_column(table, "shortName") ? k + "shortName" : templated;
    case KernelNaming::kMangled:
      return db.has_column(table, "mangledName")
                 ? "coalesce(" + k + "mangledName, " + templated + ")"
                 : templated;
    case KernelNaming::kTemplated:
      break;
  }
  return templated;
}

const char* kNoKernelRows =
    "CUPTI_ACTIVITY_KIND_KERNEL has no rows: no kernel ran inside the capture window";

bool collect_kernel_groups(const StatsDb& db, std::vector<SumGroup>* out, std::string* note,
                           std::string* error) {
  const char* table = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!db.has_table(table) || !db.has_table("StringIds")) {
    *note = db.has_table(table)
                ? "no StringIds table: the export has no names to give the kernels"
                : "no CUPTI_ACTIVITY_KIND_KERNEL table: no CUDA kernels were traced (capture "
                  "with --trace=cuda, and check that the capture range covered GPU work)";
    return true;
  }
  const std::string name = kernel_name_expr(db, "k");
  std::vector<SumGroup> groups;
  bool ok = group_durations_by_name_id(
      db,
      "SELECT k.start, k.end, " + name + ", s.value FROM " + table +
          " AS k LEFT JOIN StringIds AS s ON s.id = " + name,
      [](std::string n) { return n; }, &groups, error);
  if (!ok) return false;
  // Two string ids can carry the same text (nsys groups by the name text): merge them.
  std::unordered_map<std::string, size_t> by_name;
  for (SumGroup& g : groups) {
    auto it = by_name.find(g.labels[0]);
    if (it == by_name.end()) {
      by_name.emplace(g.labels[0], out->size());
      out->push_back(std::move(g));
    } else {
      auto& v = (*out)[it->second].values;
      v.insert(v.end(), g.values.begin(), g.values.end());
    }
  }
  if (out->empty()) *note = kNoKernelRows;
  return true;
}

bool report_cuda_gpu_kern_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_gpu_kern_sum";
  t->title = "CUDA GPU Kernel Summary";
  std::vector<SumGroup> groups;
  if (!collect_kernel_groups(db, &groups, &t->note, error)) return false;
  fill_time_summary(std::move(groups), "Instances", {"Name"}, t);
  return true;
}

}  // namespace ks
