// Which rank a trace belongs to, for multi-rank reports: `distributedInfo.rank` first, else a
// rank in the file name (rank-3, rank_3, trace_rank3, worker3, ...), else (Nsight Systems
// exports) the rank in the recorded process environment, else the load order; a file name and a
// recorded environment that agree count as recorded. The report says which source it used,
// since a wrong guess silently misaligns ranks.
#pragma once
#include <cstdint>
#include <string_view>

#include "model/trace.h"

namespace ks {

// kExportProcess: one of several processes in one Nsight Systems export, ranked by the GPU it
// drove (import/nsys_sqlite/nsys_file.h, import_nsys_file_by_process).
// kFileProcess: one of several processes of one Kineto file that launched work on a GPU pid they
// share (ranks of several nodes merged into one file, analysis/merged_ranks.h), in pid order.
enum class RankSource {
  kDistributedInfo,
  kFileName,
  kLoadOrder,
  kEnvironment,
  kExportProcess,
  kFileProcess
};
const char* rank_source_name(RankSource s);

struct RankIdentity {
  int64_t rank = 0;
  RankSource source = RankSource::kLoadOrder;
};

RankIdentity identify_rank(const Trace& trace, std::string_view file_name, size_t load_index);
// The rank written in a file name, or -1: "rank" or "worker" followed by optional '-'/'_'
// and digits, the last such match in the name.
int64_t rank_from_file_name(std::string_view file_name);

}  // namespace ks
