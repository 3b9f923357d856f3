#include "analysis/temporal_breakdown.h"

namespace ks {

TemporalBreakdown compute_temporal_breakdown(const GpuIntervals& g) {
  TemporalBreakdown r;
  if (g.all.empty()) return r;
  r.has_gpu_ops = true;
  r.begin_ns = g.all.front().begin;
  r.end_ns = g.all.back().end;
  r.span_ns = r.end_ns - r.begin_ns;
  r.idle_ns = r.span_ns - total_length(g.all);
  r.compute_ns = total_length(g.computation);
  r.non_compute_ns = r.span_ns - r.compute_ns - r.idle_ns;
  if (r.span_ns > 0) {
    const double span = static_cast<double>(r.span_ns);
    r.idle_pct = 100.0 * static_cast<double>(r.idle_ns) / span;
    r.compute_pct = 100.0 * static_cast<double>(r.compute_ns) / span;
    r.non_compute_pct = 100.0 * static_cast<double>(r.non_compute_ns) / span;
  }
  return r;
}

}  // namespace ks
