// One kernel with the CUDA API call that launched it, as SQL: cuda_kern_exec_trace fetches each
// row it prints with this query (by the rowids kernel_launch_join.cpp paired). A
// CUPTI_ACTIVITY_KIND_KERNEL row and the CUPTI_ACTIVITY_KIND_RUNTIME row of its correlationId, in
// the same process where the export records the kernel's globalPid (correlation ids are per
// process); PID and TID are the launching thread's (globalTid packs them: pid in bits 24-47, tid
// in the low 24).
#include <sqlite3.h>

#include "stats/stats_db.h"

namespace ks {

namespace {

const char* kKernels = "CUPTI_ACTIVITY_KIND_KERNEL";
const char* kCalls = "CUPTI_ACTIVITY_KIND_RUNTIME";

}  // namespace

std::string kernel_launch_sql(const StatsDb& db, const std::string& what,
                              const std::string& where) {
  std::string columns = what;
  if (columns.empty()) {
    columns =
        "(r.globalTid >> 24) & 16777215, r.globalTid & 16777215, k.deviceId, r.start, r.end, "
        "k.start, k.end, rn.value, kn.value";
    // Grid and block sizes where the export has them (every CUPTI kernel table so far does).
    for (const char* c : {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"})
      columns += db.has_column(kKernels, c) ? std::string(", k.") + c : std::string(", 0");
  }
  return "SELECT " + columns + " FROM " + kKernels + " AS k JOIN " + kCalls +
         " AS r ON k.correlationId = r.correlationId" + kernel_call_same_process(db) +
         " LEFT JOIN StringIds AS rn ON rn.id = r.nameId LEFT JOIN StringIds AS kn ON kn.id = " +
         kernel_name_expr(db, "k") + where;
}

void read_kernel_launch(sqlite3_stmt* st, KernelLaunch* l) {
  l->pid = col_int(st, 0);
  l->tid = col_int(st, 1);
  l->device = col_int(st, 2);
  l->call_start = col_int(st, 3);
  l->call_end = col_int(st, 4);
  l->start = col_int(st, 5);
  l->end = col_int(st, 6);
  l->api = strip_nsys_api_version(col_text(st, 7));
  l->kernel = col_text(st, 8);
  for (int d = 0; d < 3; ++d) {
    l->grid[d] = col_int(st, 9 + d);
    l->block[d] = col_int(st, 12 + d);
  }
}

bool kernel_launch_tables(const StatsDb& db, std::string* note) {
  if (db.has_table(kKernels) && db.has_table(kCalls) && db.has_table("StringIds")) return true;
  *note = !db.has_table(kKernels) ? "no CUPTI_ACTIVITY_KIND_KERNEL table: no CUDA kernels were "
                                    "traced (capture with --trace=cuda)"
          : !db.has_table(kCalls) ? "no CUPTI_ACTIVITY_KIND_RUNTIME table: the export has no "
                                    "CUDA API calls to join the kernels with"
                                  : "no StringIds table: the export has no names";
  return false;
}

const char* kNoKernelLaunches =
    "no kernel has its launching call in the export (or none ran inside the capture)";

}  // namespace ks
