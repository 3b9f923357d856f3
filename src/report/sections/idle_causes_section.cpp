// Why the GPU was idle: each idle gap classified by its cause (host wait, sync, ...), with the
// largest gaps and the op that ended each, and what the CPU was doing in the long host waits. JSON
// and the page only: the terminal and Markdown say it through the gpu_idle and long_gpu_gaps
// findings.
#include <string>

#include "report/sections/sections.h"

namespace ks {

ReportSection idle_causes_section(const Trace& t, const IdleCauses& c) {
  const int64_t t0 = t.facts.origin_ns();
  ReportSection s("idle_causes");
  s.field("window_us", Cell::ns(c.window_ns));
  s.field("idle_us", Cell::ns(c.idle_total_ns()));
  for (int k = 0; k < kGapCauses; ++k) {
    const std::string name = gap_cause_name(static_cast<GapCause>(k));
    s.field(name + "_us", Cell::ns(c.idle_ns[k]));
    s.field(name + "_gaps", Cell::count(c.gaps[k]));
  }
  s.field("short_host_wait_us", Cell::ns(c.short_host_wait_ns));
  s.field("short_host_wait_gaps", Cell::count(c.short_host_wait_gaps));
  Table& tb = s.table("largest");
  tb.columns = {Column("start_us"), Column("end_us"), Column("dur_us"), Column("cause"),
                Column("next_op")};
  for (const CausedGap& g : c.largest)
    tb.row() = {Cell::ns(g.begin_ns - t0), Cell::ns(g.end_ns - t0), Cell::ns(g.length()),
                Cell::str(gap_cause_name(g.cause)),
                g.next_op < 0 ? Cell::null()
                              : Cell::str(t.str(t.slices.name[static_cast<size_t>(g.next_op)]))};
  // What the launching thread did in the long host waits (gap_activity.h).
  const GapActivity& act = c.host_wait_activity;
  s.field("long_host_wait_us", Cell::ns(act.total_ns));
  const std::string lead = act.lead_phrase();
  s.field("long_host_wait_lead", lead.empty() ? Cell::null() : Cell::str(s.own(lead)));
  Table& at = s.table("long_host_wait_activity");
  at.columns = {Column("activity"), Column("dur_us"), Column("pct").json(1)};
  for (const HostActivity& h : act.top)
    at.row() = {Cell::str(h.label), Cell::ns(h.ns), Cell::number(act.pct(h))};
  return s;
}

}  // namespace ks
