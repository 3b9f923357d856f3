// The multi-rank comparison (combine_ranks: collectives matched, per-step waits, HTA's late-start
// rule, the alignment, the findings and the JSON) on long captures: 4 ranks of N/4 steps, one
// all-reduce a step, at N and 4N; the bound and the timing are in tests/scaling.h. A scan over
// the steps per collective took 8 s for 8 ranks of 20 k steps.
#include <string>
#include <vector>

#include "analysis/multi_rank.h"
#include "report/multi_rank_report.h"
#include "scaling.h"

namespace {

constexpr int kRanks = 4;

// The "JSON" is only the size: the digests are built here, as a loaded trace's would be.
std::string size_only(size_t n) {
  return std::to_string(n);
}

ks_test::ScalingRun combine(const std::string& n_text) {
  const size_t steps = std::stoul(n_text) / kRanks;
  std::vector<ks::RankDigest> ranks(kRanks);
  for (int r = 0; r < kRanks; ++r) {
    ks::RankDigest& d = ranks[static_cast<size_t>(r)];
    d.rank = r;
    d.file = "rank" + std::to_string(r) + ".json";
    d.steps = steps;
    d.step_median_ns = 100000;
    for (size_t i = 0; i < steps; ++i) {
      const int64_t at = static_cast<int64_t>(i) * 100000;
      ks::StepSpan st;
      // Ranks number their steps apart: no step number every rank has (the alignment's search).
      st.number = static_cast<int64_t>(i) + r * static_cast<int64_t>(steps);
      st.begin_ns = at;
      st.end_ns = at + 90000;
      d.step_spans.push_back(st);
      ks::CommKernel k;
      k.name = "ncclKernel_AllReduce_RING_LL_Sum_float";
      k.stream = 7;
      k.ts_ns = at + 10000 + r * 1000;
      k.dur_ns = r == 2 ? 20000 : 50000;
      d.comm.push_back(k);
    }
    d.step_total_ns = static_cast<int64_t>(steps) * 90000;
  }
  ks::MultiRankReport m = ks::combine_ranks(ranks);
  ks_test::ScalingRun run;
  run.json_bytes = ks::multi_rank_json(m, {}).size();
  run.ok = m.result.late_start.computed && m.result.collectives.size() == steps;
  return run;
}

}  // namespace

TEST_CASE("many ranks' long captures combine in linear time", "[scaling]") {
  ks_test::check_scaling(size_only, 20000, combine);
}
