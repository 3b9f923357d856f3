// Capture mistakes that make the rest of the report moot: nothing recorded, or a GPU run
// recorded without its GPU side.
#include "findings/rules.h"

namespace ks {

void rule_empty_trace(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  uint64_t timed = t.slices.size() + t.instants.size() + t.counters.size();
  if (timed > 0) return;
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
  f.fix_code =
      "torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU,\n"
      "                                   torch.profiler.ProfilerActivity.CUDA])";
  f.number("launch_calls", static_cast<double>(a.launch_calls));
  f.number("devices_named", static_cast<double>(in.trace.devices.size()));
  out->push_back(std::move(f));
}

}  // namespace ks
