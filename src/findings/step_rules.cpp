// Step boundaries and step-time stability: the first thing a reader checks.
#include <cstdio>

#include "findings/rules.h"

namespace ks {

// Only PyTorch traces can have steps: a Chrome DevTools trace without them is not a mistake.
bool looks_like_pytorch_trace(const Trace& t) {
  for (SliceKind k : t.slices.kind)
    if (k == SliceKind::kCpuOp || k == SliceKind::kRuntime || is_gpu_op(k)) return true;
  return false;
}

void rule_no_steps(const RuleInput& in, std::vector<Finding>* out) {
  const Trace& t = in.trace;
  if (in.analyses.steps.found > 0 || !looks_like_pytorch_trace(t)) return;
  Finding f;
  f.id = "steps.none";
  f.severity = Severity::kInfo;
  f.title = "No ProfilerStep markers: the trace is analyzed as one window";
  f.meaning = "prof.step() was not called (or the trace was not written by torch.profiler), so "
              "step times, per-step breakdowns and step-based findings are not available.";
  f.fix = "Call prof.step() at the end of every training iteration.";
  f.fix_code = "for batch in loader:\n    train_step(batch)\n    prof.step()";
  out->push_back(std::move(f));
}

// Step times that vary a lot make every per-step number (and any speed-up claim) unreliable.
void rule_unstable_steps(const RuleInput& in, std::vector<Finding>* out) {
  const StepsResult& st = in.analyses.steps;
  if (st.stats.count < 3) return;
  constexpr double kWarnCvPct = 10.0;
  if (st.cv_pct < kWarnCvPct) return;
  size_t slowest = 0;
  for (size_t i = 1; i < st.steps.size(); ++i)
    if (st.steps[i].dur() > st.steps[slowest].dur()) slowest = i;
  const Step& s = st.steps[slowest];
  Finding f;
  f.id = "steps.unstable";
  f.severity = st.cv_pct >= 25.0 ? Severity::kWarning : Severity::kInfo;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "Step time varies: %s to %s (CV %.0f%%)",
                format_duration(st.stats.min_ns).c_str(),
                format_duration(st.stats.max_ns).c_str(), st.cv_pct);
  f.title = buf;
  f.meaning = "Steps of the same loop should take about the same time; large variation points "
              "to intermittent stalls (data loading, synchronization, allocator, other "
              "processes) and makes averages misleading.";
  f.fix = "Compare the slowest step with a typical one on the timeline; look for the stall that "
          "only the slow step has.";
  f.number("steps", static_cast<double>(st.stats.count));
  f.number("min_us", static_cast<double>(st.stats.min_ns) / 1e3, 3, "us");
  f.number("median_us", st.stats.median_ns / 1e3, 3, "us");
  f.number("max_us", static_cast<double>(st.stats.max_ns) / 1e3, 3, "us");
  f.number("cv_pct", st.cv_pct, 1, "%");
  f.number("slowest_step", static_cast<double>(s.number));
  f.range(s.begin, s.end, "slowest step ProfilerStep#" + std::to_string(s.number));
  f.events.push_back(s.slice);
  out->push_back(std::move(f));
}

}  // namespace ks
