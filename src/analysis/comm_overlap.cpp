#include "analysis/comm_overlap.h"

namespace ks {

CommOverlap compute_comm_overlap(const GpuIntervals& g) {
  CommOverlap r;
  r.communication_ns = total_length(g.communication);
  r.computation_ns = total_length(g.computation);
  r.has_communication = r.communication_ns > 0;
  if (!r.has_communication) return r;
  r.overlap_ns = total_length(intersect(g.computation, g.communication));
  r.overlap_pct =
      100.0 * static_cast<double>(r.overlap_ns) / static_cast<double>(r.communication_ns);
  return r;
}

}  // namespace ks
