// cuda_kern_exec_sum, "CUDA Kernel Launch & Exec Time Summary". NVIDIA's definition (Nsight
// Systems Post-Collection Analysis Guide, "cuda_kern_exec_sum"; the script's usage text): "This
// report provides a summary of the launch and execution times of CUDA kernels. The launch and
// execution is broken down into three phases: "API time," the execution time of the CUDA API
// call on the CPU used to launch the kernel; "Queue time," the time between the launch call and
// the kernel execution; and "Kernel time," the kernel execution time on the GPU. The "total
// time" is not a just sum of the other times, as the phases sometimes overlap. Rather, the total
// time runs from the start of the API call to end of the API call or the end of the kernel
// execution, whichever is later." Queue time is measured from the end of the API call to the
// kernel's start; a kernel that starts before its call returns has none, and only launches with a
// queue time (QCount of them) enter the Q columns.
//   Columns: PID, TID (of the launching thread), DevId (the kernel's device), Count, QCount, then
//   Avg, Med, Min, Max, StdDev (ns) of Total (T), API (A), Queue (Q) and Kernel (K) time, API
//   Name (without nsys's "_vNNNN" suffix), Kernel Name. One row per (PID, TID, DevId, API Name,
//   Kernel Name): each CUPTI_ACTIVITY_KIND_KERNEL row joined with the CUPTI_ACTIVITY_KIND_RUNTIME
//   row of its correlationId in the same process (where the export has the kernel's globalPid).
//   Kernel names as cuda_gpu_kern_sum takes them (demangledName, else shortName). Ordered by TAvg
//   descending (the script's ORDER BY 6 DESC), ties by the row's labels. Med and StdDev as in
//   cuda_gpu_kern_sum.cpp; a column of no value (no queue time) is empty.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/duration_stats.h"
#include "stats/stats_db.h"

namespace ks {

namespace {

using Key = std::tuple<int64_t, int64_t, int64_t, std::string, std::string>;

struct Phases {
  std::vector<int64_t> total, api, queue, kernel;
};

// Avg, Med, Min, Max, StdDev of `v` as the script rounds them; empty cells without values.
void add_stats(std::vector<int64_t> v, std::vector<StatsCell>* cells) {
  if (v.empty()) {
    for (int k = 0; k < 5; ++k) cells->push_back(cell_null());
    return;
  }
  const DurationStats s = compute_duration_stats(v);
  cells->push_back(cell_real(round1(s.avg_ns)));
  cells->push_back(cell_real(round1(s.median_ns)));
  cells->push_back(cell_int(s.min_ns));
  cells->push_back(cell_int(s.max_ns));
  cells->push_back(cell_real(round1(s.stddev_ns)));
}

}  // namespace

bool report_cuda_kern_exec_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_kern_exec_sum";
  t->title = "CUDA Kernel Launch & Exec Time Summary";
  t->columns = {"PID", "TID", "DevId", "Count", "QCount"};
  for (const char* phase : {"T", "A", "Q", "K"})
    for (const char* stat : {"Avg", "Med", "Min", "Max", "StdDev"})
      t->columns.push_back(std::string(phase) + stat + " (ns)");
  t->columns.push_back("API Name");
  t->columns.push_back("Kernel Name");
  if (!kernel_launch_tables(db, &t->note)) return true;
  // Grouped by ids first (one map lookup of five integers a launch), then named: each name index
  // stands for one text, so the groups are the report's.
  using IdKey = std::tuple<int64_t, int64_t, int64_t, uint32_t, uint32_t>;
  std::map<IdKey, Phases> by_ids;
  StringIdNames api_names(db, strip_nsys_api_version), kernel_names(db);
  bool ok = join_kernel_launches(
      db, false,
      [&](const LaunchPair& l) {
        const int64_t tid = l.global_tid;
        Phases& p = by_ids[IdKey((tid >> 24) & 0xFFFFFF, tid & 0xFFFFFF, l.device,
                                 api_names.index(l.call_name_id, l.call_name_null),
                                 kernel_names.index(l.kernel_name_id, l.kernel_name_null))];
        p.total.push_back(std::max(l.call_end, l.end) - l.call_start);
        p.api.push_back(l.call_end - l.call_start);
        if (l.start - l.call_end >= 0) p.queue.push_back(l.start - l.call_end);
        p.kernel.push_back(l.end - l.start);
      },
      error);
  if (!ok) return false;
  for (const StringIdNames* names : {&api_names, &kernel_names})
    if (!names->error().empty()) {
      *error = names->error();
      return false;
    }
  if (by_ids.empty()) t->note = kNoKernelLaunches;
  std::map<Key, Phases> groups;
  for (auto& [ids, p] : by_ids)
    groups[Key(std::get<0>(ids), std::get<1>(ids), std::get<2>(ids),
               api_names.text(std::get<3>(ids)), kernel_names.text(std::get<4>(ids)))] =
        std::move(p);
  struct Row {
    double total_avg;
    Key key;
    std::vector<StatsCell> cells;
  };
  std::vector<Row> rows;
  for (auto& [key, p] : groups) {
    Row r;
    r.key = key;
    r.cells = {cell_int(std::get<0>(key)), cell_int(std::get<1>(key)), cell_int(std::get<2>(key)),
               cell_int(static_cast<int64_t>(p.total.size())),
               cell_int(static_cast<int64_t>(p.queue.size()))};
    for (std::vector<int64_t>* v : {&p.total, &p.api, &p.queue, &p.kernel})
      add_stats(std::move(*v), &r.cells);
    r.total_avg = r.cells[5].r;
    r.cells.push_back(cell_text(std::get<3>(key)));
    r.cells.push_back(cell_text(std::get<4>(key)));
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.total_avg != b.total_avg ? a.total_avg > b.total_avg : a.key < b.key;
  });
  for (Row& r : rows) t->rows.push_back(std::move(r.cells));
  return true;
}

}  // namespace ks
