// Capture mistakes that make the rest of the report moot: nothing recorded, or a GPU run
// recorded without its GPU side, or without its CPU side.
#include "findings/rules.h"

namespace ks {

namespace {
// The profiler's two sides, as a capture missing either should have asked for them.
constexpr const char* kBothActivities =
    "torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,\n"
    "                                   torch.profiler.ProfilerActivity.CUDA])";
}  // namespace

void rule_empty_trace(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (has_timed_events(t)) return;
  Finding f;
  f.id = "capture.empty";
  f.severity = Severity::kCritical;
  f.title = t.facts.events_total == 0 ? "The trace has no events"
                                      : "The trace has no timed events (metadata only)";
  f.meaning =
      "Nothing was recorded while the profiler was active, so there is nothing to "
      "analyze: usually the schedule never reached an active step, or the profiler was "
      "stopped before prof.step() was called.";
  f.fix =
      "Call prof.step() once per iteration and run at least wait+warmup+active steps; or "
      "profile without a schedule around the code of interest.";
  f.fix_code =
      "with torch.profiler.profile(schedule=torch.profiler.schedule(wait=1, warmup=1, "
      "active=3)) as prof:\n    for batch in loader:\n        train_step(batch)\n"
      "        prof.step()";
  f.number("events", static_cast<double>(t.facts.events_total));
  out->push_back(std::move(f));
}

void rule_no_gpu_activity(const RuleInput& in, std::vector<Finding>* out) {
  const Analyses& a = in.analyses;
  if (!a.gpu_expected || a.gpu_idle.has_gpu_ops) return;
  if (in.trace.slices.size() == 0) return;  // the empty-trace finding says it already
  // An Nsight Systems export: nsys.empty_capture says it, with nsys's flags.
  if (in.trace.facts.format == TraceFormat::kNsysSqlite) return;
  Finding f;
  f.id = "capture.no_gpu_activity";
  f.severity = Severity::kCritical;
  f.title = "GPU run, but no GPU activity was recorded";
  f.meaning =
      "The CPU launched work on a GPU (or the trace names one), yet no kernel, memcpy "
      "or memset appears: the GPU side of the run is missing, so GPU time, idle gaps "
      "and kernel rankings cannot be computed.";
  f.fix = "Profile with the CUDA activity enabled (CUPTI must be available to the process).";
  f.fix_code = kBothActivities;
  f.number("launch_calls", static_cast<double>(a.launch_calls));
  f.number("devices_named", static_cast<double>(in.trace.devices.size()));
  out->push_back(std::move(f));
}

// The GPU's ops were recorded but nothing timed on a CPU thread: no operator, launch call,
// annotation or Python frame (torch.profiler with activities=[CUDA] only; a device-side tracer).
// The GPU's busy and idle time stand, but an idle gap cannot be put down to what the CPU did, and
// steps, launch delays, syncs and the CPU/GPU relationship are unknown: said once, here, rather
// than left for the reader to infer from "other" in every breakdown.
void rule_no_cpu_activity(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (!in.analyses.gpu_idle.has_gpu_ops) return;
  // Anything timed on a CPU thread is the CPU side, whatever it calls itself.
  for (TrackId track : t.slices.track)
    if (t.tracks[track].kind == TrackKind::kCpuThread) return;
  Finding f;
  f.id = "capture.no_cpu_activity";
  f.severity = Severity::kWarning;
  f.title = "GPU activity without its CPU side: no operator, launch or annotation was recorded";
  f.meaning =
      "The GPU's ops are here but nothing the CPU did: GPU busy and idle time are measured, but "
      "an idle gap cannot be put down to what the CPU was doing, and steps, launch delays, "
      "synchronizations and the CPU/GPU relationship cannot be computed.";
  f.fix = "Profile with the CPU activity enabled as well, and call prof.step() each iteration.";
  f.fix_code = kBothActivities;
  f.number("gpu_ops", static_cast<double>(in.analyses.join.gpu_ops_by_ts.size()));
  out->push_back(std::move(f));
}

}  // namespace ks
