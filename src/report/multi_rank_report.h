// The report for several ranks of one job: the per-rank table, a rank x step heat map of step
// time and collective wait, the matched collectives, the multi-rank findings, and each rank's
// own report (passed in already written, in any format, so ranks can be reported wherever they
// were loaded: the page's workers, or the CLI's threads).
#pragma once
#include <string>
#include <vector>

#include "analysis/multi_rank.h"
#include "findings/finding.h"

namespace ks {

constexpr const char* kMultiRankSchema = "kinetoscope.multirank/1";

struct MultiRankReport {
  MultiRankResult result;
  std::vector<Finding> findings;
  std::vector<size_t> order;  // input index of each rank, in rank order
};

// Compares the digests (in load order) and runs the multi-rank findings.
MultiRankReport combine_ranks(const std::vector<RankDigest>& digests,
                              AlignMode align = AlignMode::kStep);

// `rank_reports[i]` is the report of input i (load order); they are written in rank order.
std::string multi_rank_json(const MultiRankReport& report,
                            const std::vector<std::string>& rank_reports_json);
std::string multi_rank_text(const MultiRankReport& report,
                            const std::vector<std::string>& rank_reports_text);
std::string multi_rank_markdown(const MultiRankReport& report,
                                const std::vector<std::string>& rank_reports_markdown);

}  // namespace ks
