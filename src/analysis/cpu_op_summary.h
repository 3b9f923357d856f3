// CPU ops by self and total time, as torch.profiler's key_averages() table shows them:
// per op name the number of calls, the total (inclusive) time and the self time, where
//   self = duration - the durations of its direct children on the same thread
// (children from the model's parent column: nested ops, runtime calls, annotations). A child
// cut by a partial overlap can exceed its parent; self time is floored at 0. Older traces record
// ProfilerStep#N as ops: they count under one row, "ProfilerStep#*" (`label`).
// An Nsight Systems export has no CPU ops, but profiled with emit_nvtx (nsys
// --pytorch=autograd-nvtx) it has an NVTX range around every op call ("aten::mm, seq = 12,
// sizes = [...]"): those are its ops, one row per op (analysis/gpu_time_by_op.h
// emit_nvtx_op_name), their children the NVTX ranges nested in them; the export's CUDA calls,
// on another row, are their innermost op's children only through cpu_op_summary_export.h.
#pragma once
#include <string>
#include <vector>

#include "analysis/duration_stats.h"
#include "model/trace.h"

namespace ks {

struct CpuOpRow {
  StringId name = 0;
  DurationStats total;  // inclusive durations
  int64_t self_ns = 0;
  int64_t self_max_ns = 0;
  double self_percent = 0;  // of the self time of all CPU ops
  // Shown instead of `name` for a row that stands for a family of names: "ProfilerStep#*",
  // or an export's op ("aten::mm" for every "aten::mm, seq = N"); empty: the row is `name`.
  std::string label;
};

struct CpuOpSummary {
  std::vector<CpuOpRow> rows;  // by self time descending, then name
  uint64_t count = 0;
  int64_t self_ns = 0;
};

CpuOpSummary summarize_cpu_ops(const Trace& trace);

}  // namespace ks
