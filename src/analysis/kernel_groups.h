// Kernels grouped two ways, with the nsys columns: by class (kernel_class.h: gemm, attention,
// convolution = math; elementwise, reduction, copy, triton, nccl, other; each with its HTA
// category), and by annotation: the innermost `gpu_user_annotation` range around the kernel on
// its stream (Kineto draws record_function ranges on the GPU timeline; the model's parent column
// nests kernels in them; ProfilerStep#N, the step's own, is passed over), or in an Nsight
// Systems export, which has no such ranges, the innermost
// NVTX range (not a step) open on the launching thread when the kernel was launched (what
// `nsys stats --report cuda_gpu_kern_sum:nvtx-name` prefixes). Kernels outside any are grouped
// under an empty name. `included` limits the kernels as the kernel summary does (HTA's step
// filter).
#pragma once
#include <vector>

#include "analysis/kernel_class.h"
#include "analysis/launch_join.h"
#include "analysis/named_stats.h"
#include "analysis/nvtx_context.h"
#include "analysis/steps.h"

namespace ks {

struct KernelClassRow {
  KernelClass klass = KernelClass::kOther;
  HtaCategory category = HtaCategory::kComputation;
  DurationStats stats;
  double percent = 0;
};

struct KernelGroups {
  std::vector<KernelClassRow> by_class;  // by total time descending
  NamedStatsTable by_annotation;         // name 0 ("") = no annotation
  bool has_annotations = false;          // any kernel sat inside an annotation
  bool nvtx_at_launch = false;           // the annotations are NVTX ranges at launch (nsys)
  int64_t math_ns = 0, total_ns = 0;
  double math_pct = 0;  // math classes' share of kernel time
};

// `nvtx`: the export's NVTX ranges, when the caller has built them (analyze() does, once for
// the analyses that ask); nullptr: built here.
KernelGroups group_kernels(const Trace& trace, const std::vector<bool>* included,
                           const LaunchJoin& join, const StepsResult& steps,
                           const EnclosingNvtxRanges* nvtx = nullptr);

}  // namespace ks
