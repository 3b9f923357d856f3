// Many ranks of one distributed job, compared. Per rank: step time, compute, communication,
// their overlap, GPU idle, data loading and memcpy time. Collectives are matched across ranks by
// order of issue (the i-th communication kernel of every rank is the same collective); for each,
// the shortest duration across ranks is the transfer time and the rest, on every other rank,
// is time spent waiting for peers (TB plugin's "synchronizing vs transferring"). The rank that
// waits least is the one the others wait for: the straggler has the shortest communication time.
// HTA's late-start rule is computed too (see late_start below).
#pragma once
#include <string>
#include <vector>

#include "analysis/analyze.h"
#include "analysis/rank_identity.h"

namespace ks {

// What the comparison needs from one rank, computed where the rank was loaded (the page loads
// ranks in parallel workers, each with its own model) and combined anywhere: serializable to
// JSON (report/rank_digest_json.h).
struct CommKernel {
  std::string name;
  int64_t stream = kNoValue;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
};
struct StepSpan {
  int64_t number = 0;
  int64_t begin_ns = 0;
  int64_t end_ns = 0;
};
// Who a rank is and what its GPU did, as totals over the trace.
struct RankTotals {
  int64_t rank = 0;
  RankSource source = RankSource::kLoadOrder;
  std::string file;
  uint64_t steps = 0;
  double step_median_ns = 0;
  int64_t step_total_ns = 0;
  int64_t gpu_span_ns = 0;       // first GPU op start to last GPU op end
  int64_t busy_ns = 0;           // union of all GPU ops
  int64_t compute_ns = 0;        // union of computation kernels
  int64_t communication_ns = 0;  // union of communication kernels
  int64_t overlap_ns = 0;        // |compute ∩ communication|
  int64_t dataloader_ns = 0;     // union of DataLoader __next__ ranges
  int64_t memcpy_ns = 0;         // sum of memcpy + memset durations
};

struct RankDigest : RankTotals {
  std::vector<StepSpan> step_spans;
  std::vector<CommKernel> comm;  // communication kernels by start time
};

RankDigest make_rank_digest(const Trace& trace, const Analyses& analyses, const std::string& file,
                            const RankIdentity& identity);

struct RankRow : RankTotals {
  double overlap_pct = 0;        // of communication
  int64_t idle_ns = 0;           // GPU span - busy
  uint64_t collectives = 0;      // communication kernels
  int64_t collective_sum_ns = 0; // sum of their durations
  int64_t transfer_ns = 0;       // sum over matched collectives of the minimum across ranks
  int64_t wait_ns = 0;           // collective_sum_ns over matched ones - transfer_ns
  std::vector<int64_t> step_numbers;
  std::vector<int64_t> step_ns;  // parallel to step_numbers
  std::vector<int64_t> step_wait_ns;  // collective wait per step, parallel to step_numbers
};

struct CollectiveRow {
  size_t index = 0;
  std::string name_text;
  std::vector<int64_t> dur_ns;       // per rank (parallel to ranks)
  int64_t transfer_ns = 0;           // minimum across ranks
};

struct LateStart {  // HTA's straggler rule
  bool computed = false;
  std::string kernel;         // the (stream, name) whose duration varies most across ranks
  int64_t stream = kNoValue;
  std::vector<uint64_t> flagged;  // per rank: steps in which it was among the 2 latest starters
};

struct MultiRankResult {
  std::vector<RankRow> ranks;  // sorted by rank
  bool duplicate_ranks = false;
  bool counts_match = true;
  bool names_match = true;
  size_t first_mismatch = 0;   // index of the first collective whose names differ
  std::vector<CollectiveRow> collectives;  // matched by order of issue, up to the shortest list
  LateStart late_start;
};

// Sorts the digests by rank and compares them. Uses nothing but the digests.
MultiRankResult compare_ranks(std::vector<RankDigest> digests);

// DataLoader iterator slices (TB plugin): enumerate(DataLoader)#...__next__ or
// enumerate(DataPipe)#...
bool is_dataloader_slice(std::string_view name);

}  // namespace ks
