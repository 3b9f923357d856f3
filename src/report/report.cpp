#include "report/report.h"

#include "findings/catalogue.h"

namespace ks {

Report build_report(const Trace& trace, const AnalysisOptions& options) {
  Report r;
  r.trace = &trace;
  r.analyses = analyze(trace, options);
  r.findings = run_findings(trace, r.analyses);
  return r;
}

TrackCounts count_tracks(const Trace& t) {
  TrackCounts c;
  c.processes = t.processes.size();
  for (const Process& p : t.processes) c.gpu_devices += p.has_gpu_ops ? 1 : 0;
  for (const Track& tr : t.tracks) {
    if (tr.has_gpu_ops) ++c.gpu_streams;
    else if (tr.kind == TrackKind::kCpuThread) ++c.threads;
  }
  return c;
}

}  // namespace ks
