// cuda_kern_exec_trace, "CUDA Kernel Launch & Exec Time Trace". NVIDIA's definition (Nsight
// Systems Post-Collection Analysis Guide, "Report Scripts"): "This report provides a trace of the
// launch and execution time of each CUDA kernel. The launch and execution is broken down into
// three phases: "API time," the execution time of the CUDA API call on the CPU used to launch the
// kernel; "Queue time," the time between the launch call and the kernel execution; and "Kernel
// time," the kernel execution time on the GPU. The "total time" is not a just sum of the other
// times, as the phases sometimes overlap. Rather, the total time runs from the start of the API
// call to end of the API call or the end of the kernel execution, whichever is later."
//   Columns: API Start (ns), API Dur (ns), Queue Start (ns), Queue Dur (ns), Kernel Start (ns),
//   Kernel Dur (ns), Total Dur (ns), PID, TID, DevId, API Function, GridXYZ, BlockXYZ, Kernel
//   Name. One row per kernel with its launching call (kernel_launch_join.cpp: the join; the
//   names, as cuda_kern_exec_sum takes them). Queue Start is the call's end and Queue Dur the
//   kernel start minus it, both empty for a kernel that started before its call returned. GridXYZ
//   and BlockXYZ are the three sizes, each right-aligned in four characters ("  64    1    1":
//   launch_shape, which cuda_gpu_kern_gb_sum prints too).
//   Ordered by API start, then kernel start.
#include <algorithm>
#include <cstdio>

#include "stats/trace_rows.h"

namespace ks {

std::string launch_shape(const int64_t (&xyz)[3]) {
  char buf[80];
  std::snprintf(buf, sizeof buf, "%4lld %4lld %4lld", static_cast<long long>(xyz[0]),
                static_cast<long long>(xyz[1]), static_cast<long long>(xyz[2]));
  return buf;
}

bool report_cuda_kern_exec_trace(const StatsDb& db, StatsTable* t, std::string* error) {
  t->report = "cuda_kern_exec_trace";
  t->title = "CUDA Kernel Launch & Exec Time Trace";
  t->columns = {"API Start (ns)",
                "API Dur (ns)",
                "Queue Start (ns)",
                "Queue Dur (ns)",
                "Kernel Start (ns)",
                "Kernel Dur (ns)",
                "Total Dur (ns)",
                "PID",
                "TID",
                "DevId",
                "API Function",
                "GridXYZ",
                "BlockXYZ",
                "Kernel Name"};
  if (!kernel_launch_tables(db, &t->note)) return true;
  // The order from the join's keys, then each launch fetched by its kernel's and call's rowids.
  TraceRows rows(db);
  if (!join_kernel_launches(
          db, false,
          [&rows](const LaunchPair& l) {
            rows.offer(l.call_start, l.start, {0, l.kernel_rowid, l.call_rowid});
          },
          error))
    return false;
  if (rows.count() == 0) t->note = kNoKernelLaunches;
  // Each half fetched by its own rowid, the names from caches: a four-table join per row was
  // half the report's time (1.4 M rows of the 400 MB export).
  std::string shape;
  for (const char* c : {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ"})
    shape += db.has_column("CUPTI_ACTIVITY_KIND_KERNEL", c) ? std::string(", ") + c : ", 0";
  StatsStatement kernel(db,
                        "SELECT start, end, deviceId, " + kernel_name_expr(db) + shape +
                            " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE rowid = ?1",
                        error);
  if (!kernel.ok()) return false;
  StatsStatement call(
      db, "SELECT start, end, globalTid, nameId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE rowid = ?1",
      error);
  if (!call.ok()) return false;
  StringIdNames api_names(db, strip_nsys_api_version), kernel_names(db);
  auto build = [&](const TraceRowRef& ref, std::vector<StatsCell>* c, std::string* err) {
    sqlite3_stmt* k = fetch_trace_row(kernel, {0, ref.id, 0}, err);
    if (!k) return false;
    const int64_t start = col_int(k, 0), end = col_int(k, 1), device = col_int(k, 2);
    const uint32_t kernel_name = kernel_names.index(col_int(k, 3), col_null(k, 3));
    const int64_t grid[3] = {col_int(k, 4), col_int(k, 5), col_int(k, 6)};
    const int64_t block[3] = {col_int(k, 7), col_int(k, 8), col_int(k, 9)};
    sqlite3_stmt* r = fetch_trace_row(call, {0, ref.id2, 0}, err);
    if (!r) return false;
    const int64_t call_start = col_int(r, 0), call_end = col_int(r, 1), tid = col_int(r, 2);
    const uint32_t api = api_names.index(col_int(r, 3), col_null(r, 3));
    for (const StringIdNames* names : {&api_names, &kernel_names})
      if (!names->error().empty()) {
        *err = names->error();
        return false;
      }
    const bool queued = start - call_end >= 0;
    *c = {cell_int(call_start),
          cell_int(call_end - call_start),
          queued ? cell_int(call_end) : cell_null(),
          queued ? cell_int(start - call_end) : cell_null(),
          cell_int(start),
          cell_int(end - start),
          cell_int(std::max(call_end, end) - call_start),
          cell_int((tid >> 24) & 0xFFFFFF),
          cell_int(tid & 0xFFFFFF),
          cell_int(device),
          cell_text(api_names.text(api)),
          cell_text(launch_shape(grid)),
          cell_text(launch_shape(block)),
          cell_text(kernel_names.text(kernel_name))};
    return true;
  };
  return rows.emit(t, build, error);
}

}  // namespace ks
