// The finding rules. Each looks at the analyses (never the JSON) and appends what it finds.
// They are listed, in the users' reading order, in catalogue.cpp.
#pragma once
#include <vector>

#include "analysis/analyze.h"
#include "findings/finding.h"
#include "util/format.h"

namespace ks {

struct RuleInput {
  const Trace& trace;
  const Analyses& analyses;
};
using Rule = void (*)(const RuleInput&, std::vector<Finding>*);

// capture_rules.cpp
void rule_empty_trace(const RuleInput&, std::vector<Finding>*);
void rule_no_gpu_activity(const RuleInput&, std::vector<Finding>*);
// step_rules.cpp
void rule_no_steps(const RuleInput&, std::vector<Finding>*);
void rule_unstable_steps(const RuleInput&, std::vector<Finding>*);
// gpu_idle_rules.cpp
void rule_gpu_idle(const RuleInput&, std::vector<Finding>*);
// sync_rules.cpp
void rule_dtoh_in_steps(const RuleInput&, std::vector<Finding>*);
void rule_sync_calls(const RuleInput&, std::vector<Finding>*);

}  // namespace ks
