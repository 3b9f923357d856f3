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
//   - ranges: NVTX_EVENTS of eventType 59/70 (Style "PushPop") and 60/71 ("StartEnd") that end
//     on the thread they started on (endGlobalTid NULL); an unclosed one lasts to the last NVTX
//     timestamp; named "<domain>:<text>" (the domain's name from its eventType 75 row in the same
//     process, "" for the default domain: ":train_step"), the text from StringIds(textId), else
//     `text`;
//   - each kernel joins its launching call (CUPTI_ACTIVITY_KIND_RUNTIME, same correlationId and
//     process), and each range of the call's thread with start <= call start and end >= call end;
//     a kernel in no range (or without its call) makes a row with no range (NVTX Inst 0);
//   - one row per (PID, TID, range name, Style, Kernel Name): NVTX Inst the distinct ranges, Kern
//     Inst the distinct kernels, and the duration statistics over every (range, kernel) pair (a
//     kernel inside two same-named nested ranges counts twice in Total, once in Kern Inst);
//   - ordered by range name, PID, TID, then Total descending (NULL names first, as SQLite sorts).
//   Med and StdDev as in cuda_gpu_kern_sum.cpp. Bound: a call inside more than kMaxRanges ranges
//   (a hostile export: thousands of unclosed ranges) counts in the kMaxRanges that end first after
//   it (the innermost, when they nest), so the work per call is bounded; the note says how many
//   calls that was.
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "analysis/duration_stats.h"
#include "stats/stats_db.h"

namespace ks {

namespace {

constexpr size_t kMaxRanges = 256;

struct Range {
  int64_t start = 0, end = 0;
  int64_t id = 0;     // rowid
  int32_t name = -1;  // index into names
  bool push_pop = true;
};

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
  for (const char* table :
       {"NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "StringIds"}) {
    if (db.has_table(table)) continue;
    t->note = std::string("no ") + table + " table: " +
              (std::string(table) == "NVTX_EVENTS"
                   ? "capture with --trace=nvtx and mark steps with torch.cuda.nvtx.range"
                   : "capture with --trace=cuda,nvtx");
    return true;
  }
  const char* nvtx = "NVTX_EVENTS";
  const bool has_text = db.has_column(nvtx, "text");
  const bool has_text_id = db.has_column(nvtx, "textId");
  const bool has_domain = db.has_column(nvtx, "domainId");
  const bool has_end_tid = db.has_column(nvtx, "endGlobalTid");
  const std::string text_expr = has_text && has_text_id ? "coalesce(s.value, n.text)"
                                : has_text_id           ? "s.value"
                                : has_text              ? "n.text"
                                                        : "NULL";
  const std::string from =
      "FROM NVTX_EVENTS AS n" +
      std::string(has_text_id ? " LEFT JOIN StringIds AS s ON s.id = n.textId" : "");
  // Domain names by (domain id, process): the first eventType 75 row of each.
  std::map<std::pair<int64_t, int64_t>, std::string> domains;
  if (has_domain && !db.query(
                        "SELECT n.domainId, n.globalTid & 0x0000FFFFFF000000, " + text_expr + " " +
                            from + " WHERE n.eventType = 75 ORDER BY n.start",
                        [&](sqlite3_stmt* st) {
                          domains.emplace(std::make_pair(col_int(st, 0), col_int(st, 1)),
                                          col_text(st, 2));
                        },
                        error))
    return false;
  int64_t last_ts = 0;  // an unclosed range's end: the last NVTX timestamp
  if (!db.query(
          "SELECT max(max(start), max(coalesce(end, start))) FROM NVTX_EVENTS WHERE "
          "eventType IN (59, 60, 70, 71)",
          [&](sqlite3_stmt* st) { last_ts = col_int(st, 0); }, error))
    return false;
  std::vector<std::string> names;
  std::unordered_map<std::string, int32_t> name_index;
  std::unordered_map<int64_t, std::vector<Range>> ranges_of;  // by globalTid
  bool ok = db.query(
      "SELECT n.rowid, n.globalTid, n.start, n.end, n.eventType, " +
          std::string(has_domain ? "n.domainId" : "NULL") + ", " + text_expr + " " + from +
          " WHERE n.eventType IN (59, 60, 70, 71)" +
          (has_end_tid ? " AND n.endGlobalTid IS NULL" : ""),
      [&](sqlite3_stmt* st) {
        Range r;
        r.id = col_int(st, 0);
        const int64_t tid = col_int(st, 1);
        r.start = col_int(st, 2);
        r.end = col_null(st, 3) ? last_ts : col_int(st, 3);
        r.push_pop = col_int(st, 4) == 59 || col_int(st, 4) == 70;
        std::string domain;
        if (!col_null(st, 5)) {
          auto d = domains.find({col_int(st, 5), tid & 0x0000FFFFFF000000});
          if (d != domains.end()) domain = d->second;
        }
        std::string name = domain + ":" + col_text(st, 6);
        auto [it, fresh] = name_index.emplace(name, static_cast<int32_t>(names.size()));
        if (fresh) names.push_back(std::move(name));
        r.name = it->second;
        ranges_of[tid].push_back(r);
      },
      error);
  if (!ok) return false;

  // Kernels with their launching calls, by thread.
  const char* kernels = "CUPTI_ACTIVITY_KIND_KERNEL";
  const std::string name_col = kernel_name_column(db);
  const std::string same_process = kernel_call_same_process(db);
  std::map<int64_t, std::vector<Call>> calls_of;  // by the call's globalTid; -1: no call
  ok = db.query(
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
  uint64_t capped = 0;  // calls inside more than kMaxRanges ranges
  auto add = [&groups](const Key& key, int64_t range_id, bool in_range, const Call& c) {
    Group& g = groups[key];
    if (in_range) g.ranges.insert(range_id);
    g.kernels.insert(c.kernel_id);
    g.ns.push_back(c.kernel_ns);
  };
  for (auto& [tid, calls] : calls_of) {
    const int64_t pid = tid < 0 ? -1 : (tid >> 24) & 0xFFFFFF,
                  thread = tid < 0 ? -1 : tid & 0xFFFFFF;
    auto rit = tid < 0 ? ranges_of.end() : ranges_of.find(tid);
    std::vector<Range> empty;
    std::vector<Range>& ranges = rit == ranges_of.end() ? empty : rit->second;
    std::sort(ranges.begin(), ranges.end(),
              [](const Range& a, const Range& b) { return a.start < b.start; });
    std::sort(calls.begin(), calls.end(),
              [](const Call& a, const Call& b) { return a.start < b.start; });
    // Sweep by start: `open` holds the ranges begun by the call's start, by end (then start,
    // latest first); those with end >= the call's end contain it.
    std::multimap<int64_t, const Range*> open;
    size_t next = 0;
    std::vector<const Range*> hits;
    for (const Call& c : calls) {
      while (next < ranges.size() && ranges[next].start <= c.start) {
        open.emplace(ranges[next].end, &ranges[next]);
        ++next;
      }
      while (!open.empty() && open.begin()->first < c.start) open.erase(open.begin());
      // The ranges that end first after the call (for nested ranges, the innermost), at most
      // kMaxRanges of them: the work per call stays bounded however many are open.
      hits.clear();
      auto it = open.lower_bound(c.end);
      for (; it != open.end() && hits.size() < kMaxRanges; ++it) hits.push_back(it->second);
      if (it != open.end()) ++capped;
      if (hits.empty()) add(Key(false, "", pid, thread, "", c.kernel), 0, false, c);
      for (const Range* r : hits)
        add(Key(true, names[static_cast<size_t>(r->name)], pid, thread,
                r->push_pop ? "PushPop" : "StartEnd", c.kernel),
            r->id, true, c);
    }
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
    t->note = "launches inside more than " + std::to_string(kMaxRanges) +
              " ranges: " + std::to_string(capped) + " (each counts in the " +
              std::to_string(kMaxRanges) + " that end first after it, the innermost when nested)";
  return true;
}

}  // namespace ks
