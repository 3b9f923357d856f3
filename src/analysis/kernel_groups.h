// Kernels grouped two ways, with the nsys columns: by class (kernel_class.h: gemm, attention,
// convolution = math; elementwise, reduction, copy, triton, nccl, other; each with its HTA
// category), and by the innermost `gpu_user_annotation` range around the kernel on its stream
// (Kineto draws record_function ranges on the GPU timeline; the model's parent column nests
// kernels in them). Kernels outside any GPU annotation are grouped under an empty name.
// `included` limits the kernels as the kernel summary does (HTA's step filter).
#pragma once
#include <vector>

#include "analysis/kernel_class.h"
#include "analysis/named_stats.h"

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
  bool has_annotations = false;          // any kernel sat inside a GPU annotation
  int64_t math_ns = 0, total_ns = 0;
  double math_pct = 0;  // math classes' share of kernel time
};

KernelGroups group_kernels(const Trace& trace, const std::vector<bool>* included);

}  // namespace ks
