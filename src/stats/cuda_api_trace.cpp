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

#include <unordered_map>

#include "stats/trace_rows.h"

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
  // Each thread's priority and name (its last ThreadNames row), joined in C++: the rows are
  // fetched one at a time, and a join to a subquery would run it again for each.
  struct Thread {
    StatsCell priority, name;
  };
  std::unordered_map<int64_t, Thread> threads;
  if (db.has_table("ThreadNames") && db.has_column("ThreadNames", "globalTid")) {
    const std::string priority = db.has_column("ThreadNames", "priority") ? "tn.priority" : "NULL";
    if (!db.query(
            "SELECT tn.globalTid, " + priority +
                ", ts.value FROM ThreadNames AS tn LEFT JOIN StringIds AS ts ON ts.id = tn.nameId"
                " WHERE tn.rowid IN (SELECT max(rowid) FROM ThreadNames GROUP BY globalTid)",
            [&](sqlite3_stmt* st) {
              threads[col_int(st, 0)] = {
                  int_or_null(st, 1), col_null(st, 2) ? cell_null() : cell_text(col_text(st, 2))};
            },
            error))
      return false;
  }
  TraceRows rows(db);
  if (!db.query(
          std::string("SELECT start, rowid FROM ") + table + " ORDER BY rowid",
          [&](sqlite3_stmt* st) {
            rows.offer(col_int(st, 0), 0, {0, col_int(st, 1), 0});
          },
          error))
    return false;
  StatsStatement fetch(db,
                       "SELECT r.start, r.end, s.value, " + column("returnValue") + ", " +
                           column("correlationId") + ", r.globalTid FROM " + table +
                           " AS r LEFT JOIN StringIds AS s ON s.id = r.nameId WHERE r.rowid = ?1",
                       error);
  if (!fetch.ok()) return false;
  const Thread unnamed{cell_null(), cell_null()};
  auto build = [&](const TraceRowRef& ref, std::vector<StatsCell>* c, std::string* err) {
    sqlite3_stmt* st = fetch_trace_row(fetch, ref, err);
    if (!st) return false;
    const int64_t start = col_int(st, 0), tid = col_int(st, 5);
    auto named = threads.find(tid);
    const Thread& thread = named == threads.end() ? unnamed : named->second;
    *c = {cell_int(start),
          cell_int(col_int(st, 1) - start),
          cell_text(col_text(st, 2)),
          int_or_null(st, 3),
          int_or_null(st, 4),
          cell_int((tid >> 24) & 0xFFFFFF),
          cell_int(tid & 0xFFFFFF),
          thread.priority,
          thread.name};
    return true;
  };
  if (!rows.emit(t, build, error)) return false;
  if (rows.count() == 0) t->note = "CUPTI_ACTIVITY_KIND_RUNTIME has no rows";
  return true;
}

}  // namespace ks
