#include "report/report.h"

#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/nvtx_context.h"
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
// machine and many helper threads in metadata, whether or not they did any work. An export's
// thread is several rows ("4242 NVTX", "4242 CUDA API", "4242 OS runtime", "4242 CPU state"):
// one thread.
TrackCounts count_tracks(const Trace& t) {
  TrackCounts c;
  std::vector<bool> track_used(t.tracks.size(), false), process_used(t.processes.size(), false);
  std::set<std::pair<uint32_t, std::string_view>> threads;
  for (TrackId tr : t.slices.track) track_used[tr] = true;
  for (TrackId tr : t.instants.track) track_used[tr] = true;
  for (uint32_t p : t.counters.process) process_used[p] = true;
  for (size_t i = 0; i < t.tracks.size(); ++i) {
    const Track& tr = t.tracks[i];
    if (!track_used[i]) continue;
    process_used[tr.process] = true;
    if (tr.has_gpu_ops)
      ++c.gpu_streams;
    else if (tr.kind == TrackKind::kCpuThread) {
      const std::string_view tid = t.str(tr.tid_text), thread = export_thread_of(tid);
      c.threads += threads.insert({tr.process, thread.empty() ? tid : thread}).second ? 1 : 0;
    }
  }
  for (size_t p = 0; p < t.processes.size(); ++p) {
    c.processes += process_used[p] ? 1 : 0;
    c.gpu_devices += t.processes[p].has_gpu_ops ? 1 : 0;
  }
  return c;
}

}  // namespace ks
