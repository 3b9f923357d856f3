// Kernel categories. HTA's (first match wins): communication (nccl/rccl/hccl kernels), memory
// (memcpy/memset), computation (every other kernel). And our finer classes for "real math vs
// overhead": gemm, attention, convolution (math) vs elementwise, reduction, copy, nccl, triton,
// other. Name patterns from ANALYSES.md, plus cuDNN convolutions named by algorithm (scudnn,
// winograd), which ANALYSES.md does not list.
#pragma once
#include <string_view>

#include "model/slice_kind.h"

namespace ks {

enum class HtaCategory { kCommunication, kMemory, kComputation };
enum class KernelClass {
  kGemm,
  kAttention,
  kConvolution,
  kElementwise,
  kReduction,
  kCopy,
  kNccl,
  kTriton,
  kMemory,
  kOther
};

HtaCategory hta_category(SliceKind kind, std::string_view name);
KernelClass kernel_class(SliceKind kind, std::string_view name);
const char* hta_category_name(HtaCategory c);
const char* kernel_class_name(KernelClass c);
bool is_math_class(KernelClass c);
// Tensor-core kernels, from the TB plugin's name list plus the Hopper/Blackwell patterns.
bool is_tensor_core_kernel(std::string_view name);

}  // namespace ks
