#include "report/report.h"

#include <vector>

#include "findings/catalogue.h"

namespace ks {

Report build_report(const Trace& trace, const AnalysisOptions& options) {
  Report r;
  r.trace = &trace;
  r.analyses = analyze(trace, options);
  r.findings = run_findings(trace, r.analyses);
  return r;
}

// Only processes and threads that recorded something count: Kineto names every GPU of the
// machine and many helper threads in metadata, whether or not they did any work.
TrackCounts count_tracks(const Trace& t) {
  TrackCounts c;
  std::vector<bool> track_used(t.tracks.size(), false), process_used(t.processes.size(), false);
  for (TrackId tr : t.slices.track) track_used[tr] = true;
  for (TrackId tr : t.instants.track) track_used[tr] = true;
  for (uint32_t p : t.counters.process) process_used[p] = true;
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const Track& tr = t.tracks[i];
    if (!track_used[i]) continue;
    process_used[tr.process] = true;
    if (tr.has_gpu_ops)
      ++c.gpu_streams;
    else if (tr.kind == TrackKind::kCpuThread)
      ++c.threads;
  }
  for (size_t p = 0; p < t.processes.size(); ++p) {
    c.processes += process_used[p] ? 1 : 0;
    c.gpu_devices += t.processes[p].has_gpu_ops ? 1 : 0;
  }
  return c;
}

}  // namespace ks
