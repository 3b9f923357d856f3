// The memory operations both cuda_gpu_mem_*_sum reports summarize: memcpys named
// "[CUDA memcpy <ENUM_CUDA_MEMCPY_OPER label>]" and memsets named "[CUDA memset]", as nsys names
// them, with either their durations or their sizes in bytes.
#pragma once
#include <string>
#include <vector>

#include "stats/stats_db.h"

namespace ks {

enum class MemOpValue { kDuration, kBytes };

// Groups in first-seen order. An export with neither table gives no groups and a *note saying
// which capture produces them; an error only for an SQL failure.
bool collect_mem_ops(const StatsDb& db, MemOpValue value, std::vector<SumGroup>* groups,
                     std::string* note, std::string* error);

}  // namespace ks
