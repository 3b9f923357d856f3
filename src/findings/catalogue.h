// Runs every registered rule and orders the findings most severe first (catalogue order, i.e.
// the reading order, within a severity).
#pragma once
#include <vector>

#include "analysis/analyze.h"
#include "findings/finding.h"

namespace ks {

std::vector<Finding> run_findings(const Trace& trace, const Analyses& analyses);

}  // namespace ks
