// Where the host time of the steps goes, by the steps' direct children: each CPU range or op
// that a ProfilerStep (or step range) holds directly, summed by name over the steps, and the
// time in none of them ("outside any op": Python between ops). Two ranks of one job run the
// same code, so the name one rank spends clearly longer in than the others is what slows it:
// the straggler rule's likely cause (a slow rank's `record_function("augment")` range, or its
// untraced Python).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/steps.h"
#include "model/trace.h"

namespace ks {

struct NamedNs {
  std::string name;
  int64_t ns = 0;
};

// The pseudo-name of host time in a step that no child range covers.
constexpr const char* kOutsideAnyOp = "(outside any op)";

// The `keep` names with the most time, most first (ties by name), kOutsideAnyOp among them by
// its time. Steps without a slice of their own (between NVTX marks) are skipped.
std::vector<NamedNs> step_range_times(const Trace& t, const StepsResult& steps, size_t keep);

// A rank's time under `name` in a list from step_range_times, 0 when the name is not there.
int64_t named_ns(const std::vector<NamedNs>& list, const std::string& name);

}  // namespace ks
