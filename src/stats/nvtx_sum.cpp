// nvtx_sum, "NVTX Range Summary". NVIDIA's definition (Nsight Systems User Guide, "Report
// Scripts"): "This report provides a summary of NV Tools Extensions Start/End and Push/Pop Ranges,
// and their execution times. Note that the "Time" column is calculated using a summation of the
// "Total Time" column, and represents that range's percent of the execution time of the ranges
// listed, and not a percentage of the application wall or CPU execution time."
//   Columns: Time (%), Total Time (ns), Instances, Avg (ns), Med (ns), Min (ns), Max (ns),
//   StdDev (ns), Style, Range. NVTX_EVENTS rows of eventType 59/70 (push/pop, Style "PushPop")
//   and 60/71 (start/end, Style "StartEnd") that were closed (`end` not NULL), grouped by style
//   and range text: `text`, else StringIds(`textId`), prefixed "<domain>:" when the range belongs
//   to a named domain (eventType 75 rows name the domains, per process: NvtxDomains in
//   nvtx_ranges.h). Ordered by total time descending.
//   Med and StdDev as in cuda_gpu_kern_sum.cpp.
// nvtx_pushpop_sum, "NVTX Push/Pop Range Summary", and nvtx_startend_sum, "NVTX Start/End Range
// Summary": the same over one style's ranges, without the Style column (nsys's per-style reports,
// kept beside nvtx_sum for scripts written against them).
#include <sqlite3.h>

#include <map>
#include <unordered_map>

#include "stats/nvtx_ranges.h"
#include "stats/stats_db.h"

namespace ks {

namespace {

enum class Styles { kBoth, kPushPop, kStartEnd };

bool nvtx_range_summary(const StatsDb& db, Styles styles, StatsTable* t, std::string* error) {
  const std::vector<std::string> label_columns = styles == Styles::kBoth
                                                     ? std::vector<std::string>{"Style", "Range"}
                                                     : std::vector<std::string>{"Range"};
  const char* types = styles == Styles::kBoth      ? "59, 60, 70, 71"
                      : styles == Styles::kPushPop ? "59, 70"
                                                   : "60, 71";
  if (!db.has_table("NVTX_EVENTS")) {
    fill_time_summary({}, "Instances", label_columns, t);
    t->note =
        "no NVTX_EVENTS table: capture with --trace=nvtx and mark steps with "
        "torch.cuda.nvtx.range(\"train_step\") (or nvtx.annotate)";
    return true;
  }
  const bool has_text = db.has_column("NVTX_EVENTS", "text");
  const bool has_text_id = db.has_column("NVTX_EVENTS", "textId") && db.has_table("StringIds");
  const bool has_domain = db.has_column("NVTX_EVENTS", "domainId");
  const std::string text_expr = has_text && has_text_id ? "coalesce(n.text, s.value)"
                                : has_text              ? "n.text"
                                : has_text_id           ? "s.value"
                                                        : "NULL";
  std::string from = "FROM NVTX_EVENTS AS n";
  if (has_text_id) from += " LEFT JOIN StringIds AS s ON s.id = n.textId";
  NvtxDomains domains;
  if (has_domain && !domains.load(db, text_expr, from, error)) return false;
  std::map<std::pair<std::string, std::string>, size_t> by_key;
  std::vector<SumGroup> groups;
  bool ok = db.query(
      "SELECT n.start, n.end, n.eventType, " + text_expr + ", " +
          (has_domain ? "n.domainId" : "NULL") + ", n.globalTid " + from +
          " WHERE n.eventType IN (" + types + ") AND n.end IS NOT NULL",
      [&](sqlite3_stmt* st) {
        int64_t type = col_int(st, 2);
        std::string style = type == 59 || type == 70 ? "PushPop" : "StartEnd";
        std::string range = col_text(st, 3);
        if (!col_null(st, 4)) {
          const std::string& domain = domains.name(col_int(st, 4), col_int(st, 5));
          if (!domain.empty()) range = domain + ":" + range;
        }
        auto key = std::make_pair(style, range);
        auto it = by_key.find(key);
        if (it == by_key.end()) {
          it = by_key.emplace(key, groups.size()).first;
          groups.push_back({styles == Styles::kBoth ? std::vector<std::string>{style, range}
                                                    : std::vector<std::string>{range},
                            {}});
        }
        groups[it->second].values.push_back(col_int(st, 1) - col_int(st, 0));
      },
      error);
  if (!ok) return false;
  fill_time_summary(std::move(groups), "Instances", label_columns, t);
  if (t->rows.empty())
    t->note = std::string("NVTX_EVENTS has no closed ") +
              (styles == Styles::kPushPop    ? "push/pop ranges"
               : styles == Styles::kStartEnd ? "start/end ranges"
                                             : "ranges") +
              ": mark steps with torch.cuda.nvtx.range(\"train_step\") (or nvtx.annotate)";
  return true;
}

}  // namespace

bool report_nvtx_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "nvtx_sum";
  t->title = "NVTX Range Summary";
  return nvtx_range_summary(db, Styles::kBoth, t, error);
}

bool report_nvtx_pushpop_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "nvtx_pushpop_sum";
  t->title = "NVTX Push/Pop Range Summary";
  return nvtx_range_summary(db, Styles::kPushPop, t, error);
}

bool report_nvtx_startend_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "nvtx_startend_sum";
  t->title = "NVTX Start/End Range Summary";
  return nvtx_range_summary(db, Styles::kStartEnd, t, error);
}

}  // namespace ks
