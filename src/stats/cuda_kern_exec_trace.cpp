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
//   Name. One row per kernel with its launching call (kernel_launches.cpp: the join and the
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
  StatsStatement fetch(db, kernel_launch_sql(db, "", " WHERE k.rowid = ?1 AND r.rowid = ?2"),
                       error);
  if (!fetch.ok()) return false;
  KernelLaunch l;
  auto build = [&](const TraceRowRef& ref, std::vector<StatsCell>* c, std::string* err) {
    sqlite3_stmt* st = fetch_trace_row(fetch, ref, err);
    if (!st) return false;
    read_kernel_launch(st, &l);
    const bool queued = l.start - l.call_end >= 0;
    *c = {cell_int(l.call_start),
          cell_int(l.call_end - l.call_start),
          queued ? cell_int(l.call_end) : cell_null(),
          queued ? cell_int(l.start - l.call_end) : cell_null(),
          cell_int(l.start),
          cell_int(l.end - l.start),
          cell_int(std::max(l.call_end, l.end) - l.call_start),
          cell_int(l.pid),
          cell_int(l.tid),
          cell_int(l.device),
          cell_text(l.api),
          cell_text(launch_shape(l.grid)),
          cell_text(launch_shape(l.block)),
          cell_text(l.kernel)};
    return true;
  };
  return rows.emit(t, build, error);
}

}  // namespace ks
