// Findings across the ranks of one job: stragglers (the rank with the shortest communication
// time, HTA's late-start rule), compute and data-loading skew, and collectives that do not
// match between ranks (a hang or a desync).
#pragma once
#include <vector>

#include "analysis/multi_rank.h"
#include "findings/finding.h"

namespace ks {

std::vector<Finding> run_multi_rank_findings(const MultiRankResult& result);

}  // namespace ks
