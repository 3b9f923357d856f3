// Where the GPU time went (HTA): the temporal breakdown (idle, compute, non-compute over the
// GPU span), the kernel-type breakdown (computation, communication, memory and their
// overlaps) and how much communication overlapped computation. The terminal and Markdown say
// them only when the trace has GPU ops.
#include <string>

#include "report/sections/sections.h"
#include "util/format.h"

namespace ks {

ReportSection temporal_section(const TemporalBreakdown& t) {
  ReportSection s("temporal_breakdown");
  s.field("has_gpu_ops", Cell::flag(t.has_gpu_ops));
  s.field("span_us", Cell::ns(t.span_ns));
  s.field("idle_us", Cell::ns(t.idle_ns));
  s.field("compute_us", Cell::ns(t.compute_ns));
  s.field("non_compute_us", Cell::ns(t.non_compute_ns));
  s.field("idle_pct", Cell::share(t.idle_pct));
  s.field("compute_pct", Cell::share(t.compute_pct));
  s.field("non_compute_pct", Cell::share(t.non_compute_pct));
  if (!t.has_gpu_ops) return s;
  s.linef("GPU time (HTA temporal breakdown, span %s): idle %s, compute %s, non-compute %s",
          format_duration(t.span_ns).c_str(), format_pct(t.idle_pct).c_str(),
          format_pct(t.compute_pct).c_str(), format_pct(t.non_compute_pct).c_str());
  s.paragraph("## Where the GPU time went\n\nHTA temporal breakdown over the GPU span (" +
              format_duration(t.span_ns) + "): idle " + format_pct(t.idle_pct) + ", compute " +
              format_pct(t.compute_pct) + ", non-compute " + format_pct(t.non_compute_pct) +
              ".\n\n");
  return s;
}

ReportSection kernel_types_section(const KernelTypeBreakdown& k, bool has_gpu_ops) {
  ReportSection s("kernel_types");
  s.field("total_us", Cell::ns(k.total_ns));
  Table& tb = s.table();
  tb.columns = {Column("type"), Column("total_us"), Column("percent")};
  std::string types;
  for (const KernelTypeRow& r : k.rows) {
    tb.row() = {Cell::str(r.label), Cell::ns(r.ns), Cell::number(r.percent)};
    types += (types.empty() ? "" : ", ") + r.label + " " + format_pct(r.percent);
  }
  if (has_gpu_ops) s.linef("  by kernel type: %s", types.c_str());
  return s;
}

ReportSection comm_overlap_section(const CommOverlap& o, bool has_gpu_ops) {
  ReportSection s("comm_overlap");
  s.field("communication_us", Cell::ns(o.communication_ns));
  s.field("computation_us", Cell::ns(o.computation_ns));
  s.field("overlap_us", Cell::ns(o.overlap_ns));
  s.field("overlap_pct", o.has_communication ? Cell::number(o.overlap_pct) : Cell::null());
  if (has_gpu_ops && o.has_communication) {
    s.linef("Communication: %s, %s of it overlapped with computation",
            format_duration(o.communication_ns).c_str(), format_pct(o.overlap_pct).c_str());
    s.paragraph("Communication " + format_duration(o.communication_ns) + ", " +
                format_pct(o.overlap_pct) + " overlapped with computation.\n\n");
  }
  return s;
}

}  // namespace ks
