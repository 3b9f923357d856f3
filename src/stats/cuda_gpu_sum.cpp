// cuda_gpu_sum, "CUDA GPU Summary (Kernels/MemOps)", and cuda_api_gpu_sum, "CUDA Summary
// (API/Kernels/MemOps)". NVIDIA's definitions (Nsight Systems Post-Collection Analysis Guide,
// "Report Scripts"): "This report provides a summary of CUDA kernels and memory operations, and
// their execution times" and "This report provides a summary of CUDA API calls, kernels and
// memory operations, and their execution times. Note that the "Time" column is calculated using a
// summation of the "Total Time" column, and represents that operation's percent of the execution
// time of the operations listed, and not a percentage of the application wall or CPU execution
// time." Each is the union of the single-kind summaries' groups in one table.
//   Columns: Time (%), Total Time (ns), Instances, Avg (ns), Med (ns), Min (ns), Max (ns),
//   StdDev (ns), Category, Operation. Category: CUDA_API (cuda_api_sum's groups: names without
//   the "_vNNNN" suffix), CUDA_KERNEL (cuda_gpu_kern_sum's: kernels by name), MEMORY_OPER
//   (cuda_gpu_mem_time_sum's: "[CUDA memcpy <kind>]", "[CUDA memset]"). Time (%) is of the
//   whole table's total. Ordered by total time descending; Med and StdDev as in
//   cuda_gpu_kern_sum.cpp.
#include "stats/mem_ops.h"
#include "stats/stats_db.h"

namespace ks {

namespace {

// Moves `from` into `to` with `category` as each group's first label.
void add_category(const char* category, std::vector<SumGroup> from, std::vector<SumGroup>* to) {
  for (SumGroup& g : from) {
    g.labels.insert(g.labels.begin(), category);
    to->push_back(std::move(g));
  }
}

// The table, or a note naming what the capture lacked when no category had a row.
bool gpu_summary(const StatsDb& db, bool with_api, StatsTable* t, std::string* error) {
  std::vector<SumGroup> groups, part;
  std::string note, notes;
  auto took = [&](const char* category) {
    if (part.empty() && !note.empty()) notes += (notes.empty() ? "" : "; ") + note;
    add_category(category, std::move(part), &groups);
    part.clear();
    note.clear();
  };
  if (with_api) {
    if (!collect_api_groups(db, &part, &note, error)) return false;
    took("CUDA_API");
  }
  if (!collect_kernel_groups(db, &part, &note, error)) return false;
  took("CUDA_KERNEL");
  if (!collect_mem_ops(db, MemOpValue::kDuration, &part, &note, error)) return false;
  took("MEMORY_OPER");
  fill_time_summary(std::move(groups), "Instances", {"Category", "Operation"}, t);
  if (t->rows.empty()) t->note = notes;
  return true;
}

}  // namespace

bool report_cuda_gpu_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_gpu_sum";
  t->title = "CUDA GPU Summary (Kernels/MemOps)";
  return gpu_summary(db, false, t, error);
}

bool report_cuda_api_gpu_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_api_gpu_sum";
  t->title = "CUDA Summary (API/Kernels/MemOps)";
  return gpu_summary(db, true, t, error);
}

}  // namespace ks
