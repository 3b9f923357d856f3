// GPU time by the op that launched it, as the TensorBoard plugin's operator view shows it: per op
// name, the GPU ops (kernels, memcpys, memsets) whose launch the op was the innermost op around
// ("device self" time) and those launched anywhere inside it ("device total" time; an op nested
// in one of its own name counts once). The kernel table says which kernels take the time; this
// says which line of the model asked for them (aten::addmm, aten::copy_, AddmmBackward0...).
//
// The op around a launch:
//   - Kineto: the CPU ops (cat cpu_op) enclosing the runtime call on its thread, through the
//     model's parent column; ProfilerStep#N (an op in older traces) is passed over.
//   - Nsight Systems: the NVTX ranges PyTorch pushes around every op under emit_nvtx (or nsys
//     --pytorch=autograd-nvtx), open on the launching thread at the call. Their names carry the
//     op's sequence number, id and shapes ("aten::mm, seq = 12, op_id = 7, sizes = [[4, 8]]"):
//     the row is the op's name without them.
// GPU ops launched outside any op (NCCL's own, CUDA graph replays, a program without ops) count
// in the totals only. `included` limits the GPU ops as the kernel summary does (HTA's step
// filter).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/launch_join.h"
#include "analysis/nvtx_context.h"
#include "analysis/steps.h"
#include "model/trace.h"

namespace ks {

struct OpGpuTimeRow {
  std::string name;
  uint64_t gpu_ops = 0;  // GPU ops it launched as the innermost op
  int64_t self_ns = 0;   // their summed duration
  int64_t total_ns = 0;  // of every GPU op launched inside it
  // Of self_ns, the computation kernels that are not math (GEMM, attention, convolution): the
  // elementwise, copy and reduction work fusing shrinks (kernel_class.h), for the findings.
  int64_t non_math_ns = 0;
  double self_pct = 0;  // of all counted GPU op time (gpu_ns)
  double total_pct = 0;
};

enum class OpSource : uint8_t {
  kNone,     // no op around any launch
  kCpuOps,   // Kineto's cpu_op events
  kNvtxOps,  // emit_nvtx's NVTX ranges in an Nsight Systems export
};
const char* op_source_name(OpSource s);

struct GpuTimeByOp {
  OpSource source = OpSource::kNone;
  uint64_t gpu_ops = 0;  // every counted GPU op, launched inside an op or not
  int64_t gpu_ns = 0;
  uint64_t attributed_ops = 0;  // those launched inside an op
  int64_t attributed_ns = 0;
  // Those whose launching call is not in the trace (launched before the capture began, or
  // the runtime events were lost): no op can be known for them.
  uint64_t unlaunched_ops = 0;
  int64_t unlaunched_ns = 0;
  std::vector<OpGpuTimeRow> rows;  // by self time descending, then total, then name
};

// `nvtx`: as group_kernels takes it (kernel_groups.h).
GpuTimeByOp gpu_time_by_op(const Trace& trace, const LaunchJoin& join, const StepsResult& steps,
                           const std::vector<bool>* included,
                           const EnclosingNvtxRanges* nvtx = nullptr);

// A PyTorch op call: a Kineto CPU op, or in an Nsight Systems export an NVTX range emit_nvtx
// pushed around one (is_emit_nvtx_op_range; its op is emit_nvtx_op_name of its name, steps.h). The
// CPU op table and the trace diff count these.
bool is_op_call(const Trace& trace, uint32_t slice);

}  // namespace ks
