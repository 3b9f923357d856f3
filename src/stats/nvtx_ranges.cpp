#include "stats/nvtx_ranges.h"

#include <sqlite3.h>

#include <algorithm>
#include <map>

namespace ks {

namespace {
constexpr int64_t kProcessBits = 0x0000FFFFFF000000;  // globalTid's pid: (gtid >> 24) & 0xFFFFFF
}  // namespace

bool NvtxDomains::load(const StatsDb& db, const std::string& text_expr, const std::string& from,
                       std::string* error) {
  return db.query(
      "SELECT n.domainId, n.globalTid & " + std::to_string(kProcessBits) + ", " + text_expr + " " +
          from + " WHERE n.eventType = 75 AND n.domainId IS NOT NULL ORDER BY n.start",
      [&](sqlite3_stmt* st) {
        names_.emplace(std::make_pair(col_int(st, 0), col_int(st, 1)), col_text(st, 2));
      },
      error);
}

const std::string& NvtxDomains::name(int64_t domain_id, int64_t global_tid) const {
  static const std::string kNone;
  auto it = names_.find({domain_id, global_tid & kProcessBits});
  return it == names_.end() ? kNone : it->second;
}

bool load_nvtx_ranges(const StatsDb& db, NvtxRanges* out, std::string* error) {
  const char* nvtx = "NVTX_EVENTS";
  const bool has_text = db.has_column(nvtx, "text");
  const bool has_text_id = db.has_column(nvtx, "textId") && db.has_table("StringIds");
  const bool has_domain = db.has_column(nvtx, "domainId");
  const bool has_end_tid = db.has_column(nvtx, "endGlobalTid");
  const std::string text_expr = has_text && has_text_id ? "coalesce(s.value, n.text)"
                                : has_text_id           ? "s.value"
                                : has_text              ? "n.text"
                                                        : "NULL";
  const std::string from =
      "FROM NVTX_EVENTS AS n" +
      std::string(has_text_id ? " LEFT JOIN StringIds AS s ON s.id = n.textId" : "");
  NvtxDomains domains;
  if (has_domain && !domains.load(db, text_expr, from, error)) return false;
  int64_t last_ts = 0;  // an unclosed range's end: the last NVTX timestamp
  if (!db.query(
          "SELECT max(max(start), max(coalesce(end, start))) FROM NVTX_EVENTS WHERE "
          "eventType IN (59, 60, 70, 71)",
          [&](sqlite3_stmt* st) { last_ts = col_int(st, 0); }, error))
    return false;
  std::unordered_map<std::string, int32_t> name_index;
  bool ok = db.query(
      "SELECT n.rowid, n.globalTid, n.start, n.end, n.eventType, " +
          std::string(has_domain ? "n.domainId" : "NULL") + ", " + text_expr + " " + from +
          " WHERE n.eventType IN (59, 60, 70, 71)" +
          (has_end_tid ? " AND n.endGlobalTid IS NULL" : ""),
      [&](sqlite3_stmt* st) {
        NvtxRange r;
        r.id = col_int(st, 0);
        const int64_t tid = col_int(st, 1);
        r.start = col_int(st, 2);
        r.end = col_null(st, 3) ? last_ts : col_int(st, 3);
        r.push_pop = col_int(st, 4) == 59 || col_int(st, 4) == 70;
        std::string name = (col_null(st, 5) ? std::string() : domains.name(col_int(st, 5), tid)) +
                           ":" + col_text(st, 6);
        auto [it, fresh] = name_index.emplace(name, static_cast<int32_t>(out->names.size()));
        if (fresh) out->names.push_back(std::move(name));
        r.name = it->second;
        out->by_thread[tid].push_back(r);
      },
      error);
  if (!ok) return false;
  for (auto& [tid, ranges] : out->by_thread)
    std::sort(ranges.begin(), ranges.end(),
              [](const NvtxRange& a, const NvtxRange& b) { return a.start < b.start; });
  return true;
}

NvtxNesting nest_push_pop(const std::vector<NvtxRange>& ranges) {
  NvtxNesting n;
  n.parent.assign(ranges.size(), -1);
  n.level.assign(ranges.size(), 0);
  n.children.assign(ranges.size(), 0);
  std::vector<size_t> order;
  for (size_t i = 0; i < ranges.size(); ++i)
    if (ranges[i].push_pop) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return ranges[a].start != ranges[b].start ? ranges[a].start < ranges[b].start
                                              : ranges[a].end > ranges[b].end;
  });
  std::vector<size_t> open;  // the ranges still open, the innermost on top
  for (size_t i : order) {
    while (!open.empty() && ranges[open.back()].end < ranges[i].end) open.pop_back();
    n.level[i] = static_cast<int64_t>(open.size());
    if (!open.empty()) {
      n.parent[i] = static_cast<int64_t>(open.back());
      ++n.children[open.back()];
    }
    open.push_back(i);
  }
  return n;
}

uint64_t for_each_enclosing_range(const std::vector<NvtxRange>& ranges,
                                  const std::vector<std::pair<int64_t, int64_t>>& calls,
                                  const std::function<void(size_t, const NvtxRange*)>& fn) {
  // Sweep by start: `open` holds the ranges begun by the call's start, by end (then start, latest
  // first); those with end >= the call's end contain it.
  std::multimap<int64_t, const NvtxRange*> open;
  size_t next = 0;
  uint64_t capped = 0;
  for (size_t c = 0; c < calls.size(); ++c) {
    const auto [start, end] = calls[c];
    while (next < ranges.size() && ranges[next].start <= start) {
      open.emplace(ranges[next].end, &ranges[next]);
      ++next;
    }
    while (!open.empty() && open.begin()->first < start) open.erase(open.begin());
    // The ranges that end first after the call (for nested ranges, the innermost), at most
    // kMaxEnclosingRanges of them: the work per call stays bounded however many are open.
    size_t hits = 0;
    auto it = open.lower_bound(end);
    for (; it != open.end() && hits < kMaxEnclosingRanges; ++it, ++hits) fn(c, it->second);
    if (it != open.end()) ++capped;
    if (hits == 0) fn(c, nullptr);
  }
  return capped;
}

bool missing_table(const StatsDb& db, std::initializer_list<const char*> tables,
                   std::string* note) {
  for (const char* table : tables) {
    if (db.has_table(table)) continue;
    *note = std::string("no ") + table + " table: " +
            (std::string(table) == "NVTX_EVENTS"
                 ? "capture with --trace=nvtx and mark steps with torch.cuda.nvtx.range"
                 : "capture with --trace=cuda,nvtx");
    return true;
  }
  return false;
}

std::string enclosing_bound_note(uint64_t capped) {
  return "launches inside more than " + std::to_string(kMaxEnclosingRanges) +
         " ranges: " + std::to_string(capped) + " (each counts in the " +
         std::to_string(kMaxEnclosingRanges) +
         " that end first after it, the innermost when nested)";
}

}  // namespace ks
