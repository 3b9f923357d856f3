// cuda_api_trace, "CUDA API Trace". NVIDIA's definition (Nsight Systems Post-Collection Analysis
// Guide, "Report Scripts"): "This report displays a trace of CUDA API calls. Items are sorted by
// start time."
//   Columns: Start (ns), Duration (ns), Name, Result, CorrID, Pid, Tid, T-Pri, Thread Name. One
//   row per CUPTI_ACTIVITY_KIND_RUNTIME row (runtime and driver calls). Name as the export stores
//   it, version suffix included ("cudaLaunchKernel_v7000": the trace shows the symbol that was
//   called, the summaries group without it); Result the call's return value; Pid and Tid unpacked
//   from globalTid; T-Pri and Thread Name from ThreadNames (empty where the export has no name for
//   the thread; a thread named twice takes its last row, as the importer does, so no call is
//   listed twice). Ordered by start; calls with the same start keep the table's order.
#include <sqlite3.h>

#include <algorithm>

#include "stats/first_rows.h"
#include "stats/stats_db.h"

namespace ks {

bool report_cuda_api_trace(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_api_trace";
  t->title = "CUDA API Trace";
  t->columns = {"Start (ns)", "Duration (ns)", "Name",  "Result",     "CorrID",
                "Pid",        "Tid",           "T-Pri", "Thread Name"};
  const char* table = "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!db.has_table(table) || !db.has_table("StringIds")) {
    t->note = db.has_table(table) ? "no StringIds table: the export has no API names"
                                  : "no CUPTI_ACTIVITY_KIND_RUNTIME table: CUDA API calls were "
                                    "not traced (capture with --trace=cuda)";
    return true;
  }
  auto column = [&](const char* c) {
    return db.has_column(table, c) ? std::string("r.") + c : std::string("NULL");
  };
  const bool names = db.has_table("ThreadNames") && db.has_column("ThreadNames", "globalTid");
  const std::string priority =
      names && db.has_column("ThreadNames", "priority") ? "tn.priority" : "NULL";
  std::string sql = "SELECT r.start, r.end, s.value, " + column("returnValue") + ", " +
                    column("correlationId") + ", r.globalTid, " + priority + ", " +
                    (names ? "ts.value" : "NULL") + " FROM " + table +
                    " AS r LEFT JOIN StringIds AS s ON s.id = r.nameId";
  if (names)
    sql +=
        " LEFT JOIN (SELECT * FROM ThreadNames WHERE rowid IN (SELECT max(rowid) FROM ThreadNames "
        "GROUP BY globalTid)) AS tn ON tn.globalTid = r.globalTid"
        " LEFT JOIN StringIds AS ts ON ts.id = tn.nameId";
  FirstRows<std::vector<StatsCell>> rows(db.max_rows());
  bool ok = db.query(
      sql,
      [&](sqlite3_stmt* st) {
        const int64_t start = col_int(st, 0), tid = col_int(st, 5);
        rows.offer(start, 0, [&] {
          return std::vector<StatsCell>{cell_int(start),
                                        cell_int(col_int(st, 1) - start),
                                        cell_text(col_text(st, 2)),
                                        int_or_null(st, 3),
                                        int_or_null(st, 4),
                                        cell_int((tid >> 24) & 0xFFFFFF),
                                        cell_int(tid & 0xFFFFFF),
                                        int_or_null(st, 6),
                                        col_null(st, 7) ? cell_null() : cell_text(col_text(st, 7))};
        });
      },
      error);
  if (!ok) return false;
  t->rows = rows.take();
  t->omitted_rows = rows.seen() - t->rows.size();
  if (t->rows.empty()) t->note = "CUPTI_ACTIVITY_KIND_RUNTIME has no rows";
  return true;
}

}  // namespace ks
