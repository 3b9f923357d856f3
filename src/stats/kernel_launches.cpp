// Each kernel joined with the CUDA API call that launched it: the rows behind cuda_kern_exec_sum
// and cuda_kern_exec_trace. A CUPTI_ACTIVITY_KIND_KERNEL row and the CUPTI_ACTIVITY_KIND_RUNTIME
// row of its correlationId, in the same process where the export records the kernel's globalPid
// (correlation ids are per process); PID and TID are the launching thread's (globalTid packs
// them: pid in bits 24-47, tid in the low 24).
#include <sqlite3.h>

#include "stats/stats_db.h"

namespace ks {

bool for_each_kernel_launch(const StatsDb& db, const std::function<void(const KernelLaunch&)>& fn,
                            std::string* note, std::string* error) {
  const char* kernels = "CUPTI_ACTIVITY_KIND_KERNEL";
  const char* calls = "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!db.has_table(kernels) || !db.has_table(calls) || !db.has_table("StringIds")) {
    *note = !db.has_table(kernels) ? "no CUPTI_ACTIVITY_KIND_KERNEL table: no CUDA kernels were "
                                     "traced (capture with --trace=cuda)"
            : !db.has_table(calls) ? "no CUPTI_ACTIVITY_KIND_RUNTIME table: the export has no "
                                     "CUDA API calls to join the kernels with"
                                   : "no StringIds table: the export has no names";
    return true;
  }
  // Grid and block sizes where the export has them (every CUPTI kernel table so far does).
  std::string dims;
  for (const char* c : {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"})
    dims += db.has_column(kernels, c) ? std::string(", k.") + c : std::string(", 0");
  const std::string sql =
      "SELECT (r.globalTid >> 24) & 16777215, r.globalTid & 16777215, k.deviceId, r.start, r.end, "
      "k.start, k.end, rn.value, kn.value" +
      dims + " FROM " + kernels + " AS k JOIN " + calls +
      " AS r ON k.correlationId = r.correlationId" + kernel_call_same_process(db) +
      " LEFT JOIN StringIds AS rn ON rn.id = r.nameId LEFT JOIN StringIds AS kn ON kn.id = k." +
      kernel_name_column(db);
  KernelLaunch l;
  bool any = false;
  bool ok = db.query(
      sql,
      [&](sqlite3_stmt* st) {
        l.pid = col_int(st, 0);
        l.tid = col_int(st, 1);
        l.device = col_int(st, 2);
        l.call_start = col_int(st, 3);
        l.call_end = col_int(st, 4);
        l.start = col_int(st, 5);
        l.end = col_int(st, 6);
        l.api = strip_nsys_api_version(col_text(st, 7));
        l.kernel = col_text(st, 8);
        for (int d = 0; d < 3; ++d) {
          l.grid[d] = col_int(st, 9 + d);
          l.block[d] = col_int(st, 12 + d);
        }
        any = true;
        fn(l);
      },
      error);
  if (ok && !any)
    *note = "no kernel has its launching call in the export (or none ran inside the capture)";
  return ok;
}

}  // namespace ks
