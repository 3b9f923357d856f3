// How well the GPU does the model's math: per op (grouped by name, shapes and dtype) the FLOPs
// from its shapes (op_flops.h), the kernels it launched, achieved TFLOP/s and % of the GPU's
// peak (gpu_peaks.h); per step the model FLOPs, MFU and the share of GPU time spent in math
// running at >= 50% of peak.
//
// Attribution: a CPU op's kernels are those launched (launch_join.h: runtime call ->
// correlation -> kernel) by runtime calls nested anywhere under it on its thread. Ops nest
// (aten::linear holds aten::addmm, matmul holds mm or bmm): FLOPs count once, at the innermost
// op that has a formula and readable shapes, which also owns the kernels of its subtree.
// Achieved TFLOP/s = FLOPs / (sum of the durations of those kernels).
//
// Per step (steps.h): model FLOPs = the FLOPs of the counted ops that start inside the step's
// host range; MFU = FLOPs / (device-adjusted step time x peak of the step's dominant precision,
// the one with the most FLOPs); fast-math share = the kernel time of ops at >= 50% of their
// precision's peak over all kernel time in the step (kernels starting in it).
//
// Precision: the dtype of the op's first tensor ("Input type"); an fp32 op whose kernels run on
// TF32 tensor cores (a kernel name with "tf32", or CUTLASS's "tensorop_s1688"/"tensorop_s16816")
// is rated against the TF32 peak, other fp32 ops against the plain FP32 peak.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/gpu_peaks.h"
#include "analysis/launch_join.h"
#include "analysis/nvtx_context.h"
#include "analysis/op_flops.h"
#include "analysis/steps.h"
#include "model/trace.h"

namespace ks {

struct MathOpRow {
  std::string name;      // "aten::addmm"
  uint32_t example = 0;  // one instance (slice), for the finding's events
  std::string shapes;    // "Input Dims" as written
  MathDtype dtype = MathDtype::kUnknown;
  MathFamily family = MathFamily::kNone;
  std::string formula;          // with its numbers
  int64_t m = 0, n = 0, k = 0;  // GEMMs
  uint64_t count = 0;           // instances
  double flops_each = 0;
  double flops = 0;    // all instances
  int64_t gpu_ns = 0;  // their kernels
  uint64_t kernels = 0;
  std::vector<std::pair<std::string, int64_t>> top_kernels;  // name, ns; at most 3, longest first
  double achieved_tflops = 0;                                // flops / gpu_ns; 0 when no kernel
  double peak_tflops = 0;                                    // 0 when unknown
  double pct_of_peak = -1;                                   // -1 when no peak or no kernel
};

struct MathStepRow {
  int64_t number = 0;
  int64_t dur_ns = 0;
  double flops = 0;
  MathDtype dominant = MathDtype::kUnknown;
  double peak_tflops = 0;
  double mfu_pct = -1;              // -1 without a peak
  int64_t kernel_ns = 0;            // all kernels starting in the step
  int64_t math_ns = 0;              // kernels of counted math ops
  int64_t fast_math_ns = 0;         // ... of ops at >= 50% of peak
  double fast_math_share_pct = -1;  // fast_math_ns / kernel_ns; -1 without a peak or kernels
};

struct MathUncounted {  // ops with a formula whose FLOPs are unknown, grouped by reason
  std::string name, reason;
  uint64_t count = 0;
};

struct MathEfficiency {
  bool has_shapes = false;         // the trace kept shapes of at least one math op
  bool record_shapes_off = false;  // no shapes anywhere (the capture hint applies)
  bool nsys_export = false;        // an Nsight Systems export: it never has shapes
  std::string gpu_name;  // deviceProperties name of the GPU running the kernels; "" if none
  const GpuPeak* peak = nullptr;  // nullptr: unknown GPU
  std::vector<MathOpRow> ops;     // longest GPU time first
  std::vector<MathStepRow> steps;
  std::vector<MathUncounted> uncounted;
  double total_flops = 0;
  int64_t total_math_ns = 0;
  int64_t total_kernel_ns = 0;
  uint64_t counted_ops = 0;
};

// `nvtx`: as group_kernels takes it (kernel_groups.h).
MathEfficiency compute_math_efficiency(const Trace& trace, const LaunchJoin& join,
                                       const StepsResult& steps,
                                       const EnclosingNvtxRanges* nvtx = nullptr);

// The line a report shows when there are no shapes: how to get them (a PyTorch trace with
// record_shapes; an Nsight Systems export never has them).
const char* math_no_shapes_hint(const MathEfficiency& m);

}  // namespace ks
