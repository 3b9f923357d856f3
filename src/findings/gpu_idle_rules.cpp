// GPU idle gaps inside steps: the GPU waiting is time the run pays for and does not use.
#include <cstdio>

#include "findings/rules.h"

namespace ks {

void rule_gpu_idle(const RuleInput& in, std::vector<Finding>* out) {
  const GpuIdleResult& g = in.analyses.gpu_idle;
  if (!g.has_gpu_ops || g.window_ns <= 0) return;
  constexpr double kInfoPct = 10, kWarnPct = 25, kCriticalPct = 50;
  if (g.idle_pct < kInfoPct) return;
  Finding f;
  f.id = "gpu.idle";
  f.severity = g.idle_pct >= kCriticalPct ? Severity::kCritical
               : g.idle_pct >= kWarnPct   ? Severity::kWarning
                                          : Severity::kInfo;
  char buf[160];
  std::snprintf(buf, sizeof(buf), "GPU idle %.1f%% of %s", g.idle_pct,
                g.window_is_steps ? "step time" : "the GPU span");
  f.title = buf;
  f.meaning = "For that share of the time no kernel, copy or memset ran on any GPU stream: the "
              "GPU waited for the CPU (launch overhead, Python, data loading) or for a "
              "synchronization.";
  f.fix = "Look at the largest gaps: if the CPU was busy launching, reduce launches (fuse ops, "
          "torch.compile, CUDA graphs); if it waited for data, use more DataLoader workers; if "
          "it synchronized, remove the sync from the loop.";
  f.fix_code = "model = torch.compile(model)  # fewer, larger kernels";
  f.number("idle_pct", g.idle_pct, 1, "%");
  f.number("window_us", static_cast<double>(g.window_ns) / 1e3, 3, "us");
  f.number("busy_us", static_cast<double>(g.busy_ns) / 1e3, 3, "us");
  for (const Interval& gap : g.largest_gaps)
    f.range(gap.begin, gap.end, "idle gap " + format_duration(gap.length()));
  out->push_back(std::move(f));
}

}  // namespace ks
