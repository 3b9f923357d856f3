// nvtx_kern_sum, "NVTX Range Kernel Summary". NVIDIA's definition (Nsight Systems
// Post-Collection Analysis Guide, "nvtx_kern_sum"; the script's usage text): "This report
// provides a summary of CUDA kernels, grouped by NVTX ranges. To compute this summary, each
// kernel is matched to one or more containing NVTX range in the same process and thread ID. A
// kernel is considered to be "contained" by an NVTX range if the CUDA API call used to launch the
// kernel is within the NVTX range. [...] if a kernel is launched inside a stack of push/pop
// ranges, the kernel is considered to be "contained" by all of the ranges on the stack, not just
// the deepest range. [...] The "NVTX Inst" column indicates how many NVTX range instances
// contained this kernel, while the "Kern Inst" column indicates the number of kernel instances
// in the summary line."
//   Columns: NVTX Range, Style, PID, TID, NVTX Inst, Kern Inst, Total Time (ns), Avg, Med, Min,
//   Max, StdDev (ns), Kernel Name. As the script computes it:
//   - ranges: nvtx_ranges.h's (Style "PushPop" for eventType 59/70, "StartEnd" for 60/71),
//     named "<domain>:<text>" (":train_step" in the default domain);
//   - each kernel joins its launching call (CUPTI_ACTIVITY_KIND_RUNTIME, same correlationId and
//     process), and each range of the call's thread with start <= call start and end >= call end;
//     a kernel in no range (or without its call) makes a row with no range (NVTX Inst 0);
//   - one row per (PID, TID, range name, Style, Kernel Name): NVTX Inst the distinct ranges, Kern
//     Inst the distinct kernels, and the duration statistics over every (range, kernel) pair (a
//     kernel inside two same-named nested ranges counts twice in Total, once in Kern Inst);
//   - ordered by range name, PID, TID, then Total descending (NULL names first, as SQLite sorts).
//   Med and StdDev as in cuda_gpu_kern_sum.cpp. Bound: a call inside more than
//   kMaxEnclosingRanges ranges counts in those that end first after it (nvtx_ranges.h); the note
//   says how many calls that was.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/duration_stats.h"
#include "stats/nvtx_ranges.h"
#include "stats/stats_db.h"

namespace ks {

namespace {

struct Call {  // a kernel with its launching call
  int64_t start = 0, end = 0;
  int64_t kernel_id = 0, kernel_ns = 0;
  std::string kernel;
};

// (has range, range name, PID, TID, Style, Kernel Name): the row's key, in the report's order.
using Key = std::tuple<bool, std::string, int64_t, int64_t, std::string, std::string>;

struct Group {
  std::set<int64_t> ranges, kernels;
  std::vector<int64_t> ns;
};

}  // namespace

bool report_nvtx_kern_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "nvtx_kern_sum";
  t->title = "NVTX Range Kernel Summary";
  t->columns = {"NVTX Range", "Style",           "PID",        "TID",      "NVTX Inst",
                "Kern Inst",  "Total Time (ns)", "Avg (ns)",   "Med (ns)", "Min (ns)",
                "Max (ns)",   "StdDev (ns)",     "Kernel Name"};
  if (missing_table(
          db,
          {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "StringIds"},
          &t->note))
    return true;
  NvtxRanges nvtx;
  if (!load_nvtx_ranges(db, &nvtx, error)) return false;

  // Kernels with their launching calls, by thread.
  const char* kernels = "CUPTI_ACTIVITY_KIND_KERNEL";
  const std::string name_col = kernel_name_column(db);
  const std::string same_process = kernel_call_same_process(db);
  std::map<int64_t, std::vector<Call>> calls_of;  // by the call's globalTid; -1: no call
  bool ok = db.query(
      "SELECT k.rowid, k.end - k.start, kn.value, r.globalTid, r.start, r.end FROM " +
          std::string(kernels) + " AS k LEFT JOIN StringIds AS kn ON kn.id = k." + name_col +
          " LEFT JOIN CUPTI_ACTIVITY_KIND_RUNTIME AS r ON r.correlationId = "
          "k.correlationId" +
          same_process,
      [&](sqlite3_stmt* st) {
        Call c;
        c.kernel_id = col_int(st, 0);
        c.kernel_ns = col_int(st, 1);
        c.kernel = col_text(st, 2);
        c.start = col_int(st, 4);
        c.end = col_int(st, 5);
        calls_of[col_null(st, 3) ? -1 : col_int(st, 3)].push_back(std::move(c));
      },
      error);
  if (!ok) return false;

  std::map<Key, Group> groups;
  uint64_t capped = 0;  // calls inside more than kMaxEnclosingRanges ranges
  auto add = [&groups](const Key& key, int64_t range_id, bool in_range, const Call& c) {
    Group& g = groups[key];
    if (in_range) g.ranges.insert(range_id);
    g.kernels.insert(c.kernel_id);
    g.ns.push_back(c.kernel_ns);
  };
  const std::vector<NvtxRange> no_ranges;
  for (auto& entry : calls_of) {
    const int64_t tid = entry.first;
    std::vector<Call>& calls = entry.second;  // not a structured binding: the lambda uses it
    const int64_t pid = tid < 0 ? -1 : (tid >> 24) & 0xFFFFFF,
                  thread = tid < 0 ? -1 : tid & 0xFFFFFF;
    auto rit = tid < 0 ? nvtx.by_thread.end() : nvtx.by_thread.find(tid);
    const std::vector<NvtxRange>& ranges = rit == nvtx.by_thread.end() ? no_ranges : rit->second;
    std::sort(calls.begin(), calls.end(),
              [](const Call& a, const Call& b) { return a.start < b.start; });
    std::vector<std::pair<int64_t, int64_t>> spans;
    spans.reserve(calls.size());
    for (const Call& c : calls) spans.emplace_back(c.start, c.end);
    capped += for_each_enclosing_range(ranges, spans, [&](size_t k, const NvtxRange* r) {
      const Call& c = calls[k];
      if (!r)
        add(Key(false, "", pid, thread, "", c.kernel), 0, false, c);
      else
        add(Key(true, nvtx.names[static_cast<size_t>(r->name)], pid, thread,
                r->push_pop ? "PushPop" : "StartEnd", c.kernel),
            r->id, true, c);
    });
  }

  struct Row {
    Key key;
    int64_t total;
    std::vector<StatsCell> cells;
  };
  std::vector<Row> rows;
  for (auto& [key, g] : groups) {
    Row r;
    r.key = key;
    const DurationStats s = compute_duration_stats(g.ns);
    r.total = s.total_ns;
    const bool in_range = std::get<0>(key);
    r.cells = {in_range ? cell_text(std::get<1>(key)) : cell_null(),
               in_range ? cell_text(std::get<4>(key)) : cell_null(),
               std::get<2>(key) < 0 ? cell_null() : cell_int(std::get<2>(key)),
               std::get<3>(key) < 0 ? cell_null() : cell_int(std::get<3>(key)),
               cell_int(static_cast<int64_t>(g.ranges.size())),
               cell_int(static_cast<int64_t>(g.kernels.size())),
               cell_int(s.total_ns),
               cell_real(round1(s.avg_ns)),
               cell_real(round1(s.median_ns)),
               cell_int(s.min_ns),
               cell_int(s.max_ns),
               cell_real(round1(s.stddev_ns)),
               cell_text(std::get<5>(key))};
    rows.push_back(std::move(r));
  }
  // The script's ORDER BY 1, 3, 4, 7 DESC; then the style and kernel name, for determinism.
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return std::make_tuple(std::get<0>(a.key), std::get<1>(a.key), std::get<2>(a.key),
                           std::get<3>(a.key), -a.total, std::get<4>(a.key), std::get<5>(a.key)) <
           std::make_tuple(std::get<0>(b.key), std::get<1>(b.key), std::get<2>(b.key),
                           std::get<3>(b.key), -b.total, std::get<4>(b.key), std::get<5>(b.key));
  });
  for (Row& r : rows) t->rows.push_back(std::move(r.cells));
  if (t->rows.empty())
    t->note = "no CUDA kernel in the export";
  else if (capped > 0)
    t->note = enclosing_bound_note(capped);
  return true;
}

}  // namespace ks
