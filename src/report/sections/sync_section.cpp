// Synchronization: the CPU calls that wait for the GPU (by total time) and the device-to-host
// copies inside steps grouped by the CPU ops that issued them. JSON only: the text and
// Markdown reports say it through the findings (sync_calls, dtoh_in_steps).
#include "report/sections/sections.h"

namespace ks {

ReportSection sync_section(const Trace& t, const SyncResult& r) {
  ReportSection s("sync");
  s.field("count", Cell::count(r.count));
  s.field("total_us", Cell::ns(r.total_ns));
  Table& calls = s.table("calls");
  calls.columns = {Column("name"), Column("count"), Column("total_us"), Column("max_us")};
  for (const SyncCallRow& c : r.calls)
    calls.row() = {Cell::str(t.str(c.name)), Cell::count(c.count), Cell::ns(c.total_ns),
                   Cell::ns(c.max_ns)};
  s.field("dtoh_in_steps", Cell::count(r.dtoh_in_steps_count));
  // Without steps the copies were counted inside the inferred iterations (iterations.h); said
  // only then, so reports with steps keep their bytes.
  if (r.in_inferred_iterations) s.field("dtoh_windows", Cell::str("inferred_iterations"));
  Table& origins = s.table("dtoh_origins");
  origins.columns = {Column("cpu_ops"), Column("count"), Column("bytes"), Column("gpu_us")};
  for (const CopyOrigin& o : r.dtoh_in_steps)
    origins.row() = {Cell::str(o.cpu_ops), Cell::count(o.count), Cell::integer(o.bytes),
                     Cell::ns(o.gpu_ns)};
  return s;
}

}  // namespace ks
