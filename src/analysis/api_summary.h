// CUDA/HIP runtime and driver API calls by name with the nsys columns (Nsight Systems
// `cuda_api_sum`: Time %, Total, Instances, Avg, Med, Min, Max, StdDev, Name). Time % is of all
// listed API time. Also the CPU annotations (`nvtx_sum` style): user_annotation ranges
// (record_function, DataLoader, ...) by name, with every ProfilerStep#N counted as
// "ProfilerStep#*" and emit_nvtx's per-call op ranges ("aten::mm, seq = 12") as their op.
#pragma once
#include "analysis/named_stats.h"

namespace ks {

NamedStatsTable summarize_api_calls(const Trace& trace);
NamedStatsTable summarize_annotations(const Trace& trace);
// The label of the row that stands for every ProfilerStep#N range.
constexpr const char* kProfilerStepGroup = "ProfilerStep#*";

}  // namespace ks
