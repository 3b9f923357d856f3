#include "findings/catalogue.h"

#include <algorithm>

#include "findings/rules.h"

namespace ks {

namespace {
// The reading order users follow: capture problems that make everything else moot, then step
// boundaries and stability, GPU idle gaps, the CPU/GPU relationship (syncs), ...
const Rule kRules[] = {
    rule_empty_trace,     rule_no_gpu_activity, rule_no_steps,   rule_unstable_steps,
    rule_gpu_idle,        rule_dtoh_in_steps,   rule_sync_calls,
};
}  // namespace

std::vector<Finding> run_findings(const Trace& trace, const Analyses& analyses) {
  RuleInput in{trace, analyses};
  std::vector<Finding> out;
  for (Rule rule : kRules) rule(in, &out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return static_cast<int>(a.severity) < static_cast<int>(b.severity);
  });
  return out;
}

}  // namespace ks
