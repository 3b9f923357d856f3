// osrt_sum, "OS Runtime Summary". NVIDIA's definition (Nsight Systems User Guide, "Report
// Scripts"; the script's usage text): "This report provides a summary of operating system
// functions and their execution times. Note that the "Time" column is calculated using a
// summation of the "Total Time" column, and represents that function's percent of the execution
// time of the functions listed, and not a percentage of the application wall or CPU execution
// time."
//   Columns: Time (%), Total Time (ns), Num Calls, Avg (ns), Med (ns), Min (ns), Max (ns),
//   StdDev (ns), Name. OSRT_API rows with eventClass 27 (TRACE_PROCESS_EVENT_OS_RUNTIME: the
//   calls themselves; classes 31/32 are nsys's start/finish markers) grouped by `nameId`, named
//   from StringIds, duration = end - start. Ordered by total time descending. Med and StdDev as
//   in cuda_gpu_kern_sum.cpp.
#include <sqlite3.h>

#include <unordered_map>

#include "stats/stats_db.h"

namespace ks {

bool report_osrt_sum(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "osrt_sum";
  t->title = "OS Runtime Summary";
  if (!db.has_table("OSRT_API") || !db.has_table("StringIds")) {
    fill_time_summary({}, "Num Calls", {"Name"}, t);
    t->note = db.has_table("OSRT_API")
                  ? "no StringIds table: the export has no function names"
                  : "no OSRT_API table: OS runtime calls were not traced (capture with "
                    "--trace=osrt)";
    return true;
  }
  const bool has_class = db.has_column("OSRT_API", "eventClass");
  std::vector<SumGroup> groups;
  bool ok = group_durations_by_name_id(
      db,
      std::string("SELECT o.start, o.end, o.nameId, s.value FROM OSRT_API AS o LEFT JOIN "
                  "StringIds AS s ON s.id = o.nameId") +
          (has_class ? " WHERE o.eventClass = 27" : ""),
      [](std::string n) { return n; }, &groups, error);
  if (!ok) return false;
  fill_time_summary(std::move(groups), "Num Calls", {"Name"}, t);
  if (t->rows.empty()) t->note = "OSRT_API has no OS runtime calls";
  return true;
}

}  // namespace ks
