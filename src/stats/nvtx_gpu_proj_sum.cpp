// nvtx_gpu_proj_sum, "NVTX GPU Projection Summary". NVIDIA's definition (Nsight Systems
// Post-Collection Analysis Guide, "Report Scripts"): "This report provides a summary of NVTX time
// ranges projected from the CPU onto the GPU. Each NVTX range contains one or more GPU
// operations. A GPU operation is considered to be "contained" by an NVTX range if the CUDA API
// call used to launch the operation is within the NVTX range. Only ranges that start and end on
// the same thread are taken into account. The projected range will have the start timestamp of
// the first enclosed GPU operation and the end timestamp of the last enclosed GPU operation, as
// well as the stack state and relationship to other NVTX ranges."
//   Columns: Range, Style, Total Proj Time (ns), Total Range Time (ns), Range Instances, Proj Avg
//   (ns), Proj Med (ns), Proj Min (ns), Proj Max (ns), Proj StdDev (ns), Total GPU Ops, Avg GPU
//   Ops, Avg Range Lvl, Avg Num Child (as nsys 2025 writes them). As computed here:
//   - ranges: nvtx_ranges.h's, named "<domain>:<text>" (":train_step" in the default domain),
//     Style "PushPop" or "StartEnd"; a range contains a GPU op (kernel, memcpy, memset) when the
//     op's launching call (CUPTI_ACTIVITY_KIND_RUNTIME, same correlationId and process) is on the
//     range's thread with range start <= call start and call end <= range end (nvtx_kern_sum's
//     rule, and its bound on ranges per call);
//   - each range instance with at least one op projects to [first op start, last op end]; an
//     instance without ops is not counted;
//   - one row per (Range, Style): the projected durations' statistics, the ranges' own durations
//     summed (Total Range Time), the ops counted (Total GPU Ops; Avg per instance), and the
//     instances' mean nesting level (0: outermost push/pop range of its thread; a start/end range
//     is 0) and mean number of push/pop ranges directly inside them (0 for start/end ranges);
//   - ordered by Total Proj Time descending, then range and style. Averages rounded to 0.1; Med
//     and StdDev as in cuda_gpu_kern_sum.cpp.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/duration_stats.h"
#include "stats/nvtx_ranges.h"
#include "stats/stats_db.h"

namespace ks {

namespace {

struct Op {  // a GPU op with its launching call
  int64_t call_start = 0, call_end = 0, start = 0, end = 0;
};

struct Projection {  // one range instance's GPU ops
  int64_t first = 0, last = 0, ops = 0;
};

struct Group {
  std::vector<int64_t> projected;
  int64_t range_ns = 0, ops = 0, levels = 0, children = 0;
};

}  // namespace

bool report_nvtx_gpu_proj_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "nvtx_gpu_proj_sum";
  t->title = "NVTX GPU Projection Summary";
  t->columns = {"Range",
                "Style",
                "Total Proj Time (ns)",
                "Total Range Time (ns)",
                "Range Instances",
                "Proj Avg (ns)",
                "Proj Med (ns)",
                "Proj Min (ns)",
                "Proj Max (ns)",
                "Proj StdDev (ns)",
                "Total GPU Ops",
                "Avg GPU Ops",
                "Avg Range Lvl",
                "Avg Num Child"};
  if (missing_table(db, {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_RUNTIME"}, &t->note)) return true;
  NvtxRanges nvtx;
  if (!load_nvtx_ranges(db, &nvtx, error)) return false;

  // GPU ops with their launching calls, by the call's thread.
  std::map<int64_t, std::vector<Op>> ops_of;
  for (const char* table :
       {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}) {
    if (!db.has_table(table)) continue;
    if (!join_gpu_op_launches(
            db, table, false,
            [&ops_of](const LaunchPair& l) {
              ops_of[l.global_tid].push_back({l.call_start, l.call_end, l.start, l.end});
            },
            error))
      return false;
  }

  using Key = std::pair<std::string, std::string>;  // (Range, Style)
  std::map<Key, Group> groups;
  uint64_t capped = 0;
  for (auto& entry : ops_of) {
    const int64_t tid = entry.first;
    std::vector<Op>& ops = entry.second;  // not a structured binding: the lambda uses it
    auto rit = nvtx.by_thread.find(tid);
    if (rit == nvtx.by_thread.end()) continue;
    const std::vector<NvtxRange>& ranges = rit->second;
    std::sort(ops.begin(), ops.end(),
              [](const Op& a, const Op& b) { return a.call_start < b.call_start; });
    std::vector<std::pair<int64_t, int64_t>> calls;
    calls.reserve(ops.size());
    for (const Op& o : ops) calls.emplace_back(o.call_start, o.call_end);
    std::vector<Projection> projections(ranges.size());  // by the range's index in `ranges`
    capped += for_each_enclosing_range(ranges, calls, [&](size_t k, const NvtxRange* r) {
      if (!r) return;
      const Op& o = ops[k];
      Projection& p = projections[static_cast<size_t>(r - ranges.data())];
      p.first = p.ops == 0 ? o.start : std::min(p.first, o.start);
      p.last = p.ops == 0 ? o.end : std::max(p.last, o.end);
      ++p.ops;
    });
    const NvtxNesting nesting = nest_push_pop(ranges);
    for (size_t i = 0; i < ranges.size(); ++i) {
      const Projection& p = projections[i];
      if (p.ops == 0) continue;  // an instance without GPU ops projects nothing
      const NvtxRange& r = ranges[i];
      Group& g =
          groups[{nvtx.names[static_cast<size_t>(r.name)], r.push_pop ? "PushPop" : "StartEnd"}];
      g.projected.push_back(p.last - p.first);
      g.range_ns += r.end - r.start;
      g.ops += p.ops;
      g.levels += nesting.level[i];
      g.children += nesting.children[i];
    }
  }

  struct Row {
    int64_t total;
    Key key;
    std::vector<StatsCell> cells;
  };
  std::vector<Row> rows;
  for (auto& [key, g] : groups) {
    const DurationStats s = compute_duration_stats(g.projected);
    const auto n = static_cast<double>(s.count);
    rows.push_back({s.total_ns,
                    key,
                    {cell_text(key.first), cell_text(key.second), cell_int(s.total_ns),
                     cell_int(g.range_ns), cell_int(static_cast<int64_t>(s.count)),
                     cell_real(round1(s.avg_ns)), cell_real(round1(s.median_ns)),
                     cell_int(s.min_ns), cell_int(s.max_ns), cell_real(round1(s.stddev_ns)),
                     cell_int(g.ops), cell_real(round1(static_cast<double>(g.ops) / n)),
                     cell_real(round1(static_cast<double>(g.levels) / n)),
                     cell_real(round1(static_cast<double>(g.children) / n))}});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.total != b.total ? a.total > b.total : a.key < b.key;
  });
  for (Row& r : rows) t->rows.push_back(std::move(r.cells));
  if (t->rows.empty())
    t->note = "no NVTX range holds the launch of a GPU operation (kernel, memcpy or memset)";
  else if (capped > 0)
    t->note = enclosing_bound_note(capped);
  return true;
}

}  // namespace ks
