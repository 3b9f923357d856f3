// The CPU op table of an Nsight Systems export profiled with emit_nvtx (cpu_op_summary.h), with
// the export's CUDA calls as the ops' children: each call made while an op was the innermost
// range open on its thread (`nvtx`: the export's ranges by thread). The calls sit on another
// row of the export than the ranges, so the parent column misses them, and without them a
// call's time was its op's self time (the DLRM rank's DtoH aten::copy_: 2.48 ms self in its
// export, 0.23 ms in its trace, whose runtime events are the ops' children). A trace (no NVTX
// ranges) gives summarize_cpu_ops(trace)'s table.
// Its own header, apart from cpu_op_summary.h, which most of the analyses include.
#pragma once
#include "analysis/cpu_op_summary.h"
#include "analysis/nvtx_context.h"

namespace ks {

CpuOpSummary summarize_cpu_ops(const Trace& trace, const EnclosingNvtxRanges* nvtx);

}  // namespace ks
