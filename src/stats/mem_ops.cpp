#include "stats/mem_ops.h"

#include <sqlite3.h>

#include <unordered_map>

namespace ks {

bool collect_mem_ops(const StatsDb& db, MemOpValue value, std::vector<SumGroup>* groups,
                     std::string* note, std::string* error) {
  const bool memcpy = db.has_table("CUPTI_ACTIVITY_KIND_MEMCPY");
  const bool memset = db.has_table("CUPTI_ACTIVITY_KIND_MEMSET");
  if (!memcpy && !memset) {
    *note =
        "no CUPTI_ACTIVITY_KIND_MEMCPY or CUPTI_ACTIVITY_KIND_MEMSET table: no GPU memory "
        "operations were traced (capture with --trace=cuda)";
    return true;
  }
  std::unordered_map<std::string, size_t> by_name;
  auto add = [&](const std::string& name, int64_t v) {
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      it = by_name.emplace(name, groups->size()).first;
      groups->push_back({{name}, {}});
    }
    (*groups)[it->second].values.push_back(v);
  };
  const std::string v = value == MemOpValue::kDuration ? "end - start" : "bytes";
  if (memcpy) {
    // The operation's label comes from the export's own enum table; without it (an export that
    // dropped the ENUM tables) the copy kind's number is shown, so nothing is silently merged.
    const bool labels = db.has_table("ENUM_CUDA_MEMCPY_OPER");
    std::string sql = labels ? "SELECT m." + v +
                                   ", e.label, m.copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY AS m "
                                   "LEFT JOIN ENUM_CUDA_MEMCPY_OPER AS e ON e.id = m.copyKind"
                             : "SELECT " + v + ", NULL, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY";
    if (!db.query(
            sql,
            [&](sqlite3_stmt* st) {
              std::string label =
                  col_null(st, 1) ? "kind " + std::to_string(col_int(st, 2)) : col_text(st, 1);
              add("[CUDA memcpy " + label + "]", col_int(st, 0));
            },
            error))
      return false;
  }
  if (memset) {
    if (!db.query(
            "SELECT " + v + " FROM CUPTI_ACTIVITY_KIND_MEMSET",
            [&](sqlite3_stmt* st) { add("[CUDA memset]", col_int(st, 0)); }, error))
      return false;
  }
  if (groups->empty()) *note = "no memory operations in the capture window";
  return true;
}

}  // namespace ks
