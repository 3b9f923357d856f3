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
#include <cstdint>
#include <map>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "analysis/duration_stats.h"
#include "stats/nvtx_ranges.h"
#include "stats/stats_db.h"

namespace ks {

namespace {

struct Call {  // a kernel with its launching call
  int64_t start = 0, end = 0;
  int64_t kernel_id = 0, kernel_ns = 0;
  uint32_t kernel = 0;  // the name's index in StringIdNames
};

// (has range, range name, PID, TID, push/pop, kernel name) as indexes: a group's key while the
// kernels are counted (names are distinct per index, so these are the report's groups).
using IdKey = std::tuple<bool, int32_t, int64_t, int64_t, bool, uint32_t>;
// The same with the names: the row's key, in the report's order.
using Key = std::tuple<bool, std::string, int64_t, int64_t, std::string, std::string>;

// Gathered as the pairs come: a kernel inside a stack of same-named ranges is one entry with a
// count, and each range id is kept once. The pairs themselves (up to kMaxEnclosingRanges per
// kernel) were 8 KB of memory per kernel under deep nesting.
struct Group {
  std::unordered_set<int64_t> ranges;  // distinct range ids
  std::vector<int64_t> kernels;        // ids, one per run of pairs; made distinct at the end
  std::vector<RepeatedDuration> ns;    // the pairs' durations, in the order they came
  size_t last_call = SIZE_MAX;         // the call the last pair was of
};

int64_t distinct(std::vector<int64_t>* ids) {
  std::sort(ids->begin(), ids->end());
  return std::unique(ids->begin(), ids->end()) - ids->begin();
}

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

  // Kernels with their launching calls (a kernel without one too), by thread.
  StringIdNames kernel_names(db);
  std::map<int64_t, std::vector<Call>> calls_of;  // by the call's globalTid; -1: no call
  bool ok = join_kernel_launches(
      db, true,
      [&](const LaunchPair& l) {
        Call c;
        c.kernel_id = l.kernel_rowid;
        c.kernel_ns = l.end - l.start;
        c.kernel = kernel_names.index(l.kernel_name_id, l.kernel_name_null);
        if (l.has_call) {
          c.start = l.call_start;
          c.end = l.call_end;
        }
        calls_of[!l.has_call || l.global_tid_null ? -1 : l.global_tid].push_back(c);
      },
      error);
  if (!ok) return false;
  if (!kernel_names.error().empty()) {
    *error = kernel_names.error();
    return false;
  }

  std::map<IdKey, Group> groups;
  uint64_t capped = 0;  // calls inside more than kMaxEnclosingRanges ranges
  // A call's pairs come together (for_each_enclosing_range), so the pairs of one kernel in a
  // group follow one another: one entry for them all. `call` numbers the calls across threads.
  auto add = [&groups](const IdKey& key, int64_t range_id, bool in_range, const Call& c,
                       size_t call) {
    Group& g = groups[key];
    if (in_range) g.ranges.insert(range_id);
    if (g.last_call == call) {
      ++g.ns.back().count;
      return;
    }
    g.last_call = call;
    g.kernels.push_back(c.kernel_id);
    g.ns.push_back({c.kernel_ns, 1});
  };
  size_t calls_before = 0;  // calls of the threads before this one
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
        add(IdKey(false, -1, pid, thread, false, c.kernel), 0, false, c, calls_before + k);
      else
        add(IdKey(true, r->name, pid, thread, r->push_pop, c.kernel), r->id, true, c,
            calls_before + k);
    });
    calls_before += calls.size();
    calls = {};
  }

  struct Row {
    Key key;
    int64_t total;
    std::vector<StatsCell> cells;
  };
  std::vector<Row> rows;
  for (auto& [ids, g] : groups) {
    Row r;
    const bool in_range = std::get<0>(ids);
    r.key = Key(in_range, in_range ? nvtx.names[static_cast<size_t>(std::get<1>(ids))] : "",
                std::get<2>(ids), std::get<3>(ids),
                !in_range          ? ""
                : std::get<4>(ids) ? "PushPop"
                                   : "StartEnd",
                kernel_names.text(std::get<5>(ids)));
    const Key& key = r.key;
    const DurationStats s = compute_duration_stats(g.ns);
    r.total = s.total_ns;
    r.cells = {in_range ? cell_text(std::get<1>(key)) : cell_null(),
               in_range ? cell_text(std::get<4>(key)) : cell_null(),
               std::get<2>(key) < 0 ? cell_null() : cell_int(std::get<2>(key)),
               std::get<3>(key) < 0 ? cell_null() : cell_int(std::get<3>(key)),
               cell_int(static_cast<int64_t>(g.ranges.size())),
               cell_int(distinct(&g.kernels)),
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
