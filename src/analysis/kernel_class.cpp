#include "analysis/kernel_class.h"
#include "util/pattern_set.h"
#include "util/text_match.h"

#include <cstdint>
#include <initializer_list>

namespace ks {

namespace {

// The patterns kernel_class() asks about, found in one pass (util/pattern_set.h): bit i is the
// i-th. Lower case where case is folded (kernel names mix cases freely).
// clang-format off
enum ClassPattern : int {
  kFlash, kFmha, kAttention, kSdpa, kAttnFwd, kAttnBwd, kConv, kImplicitGemm, kWgrad, kDgrad,
  kScudnn, kWinograd, kGemm, kCutlass, kXmma, kCublas, kSm90, kSm100, kNvjet, kCijk, kGemv,
  kMatmul, kScatter, kReduce, kSoftmax, kNorm, kSum, kArgmax, kCopy, kCat, kIndex, kGather,
  kTranspose, kElementwise, kVectorized, kUnrolled, kPointwise, kFill, kNcclKernel, kNcclDevKernel,
};
// clang-format on

const PatternSet& class_patterns() {
  static const PatternSet set({
      {"flash", true},
      {"fmha", true},
      {"attention", true},
      {"sdpa", true},
      {"attn_fwd", true},
      {"attn_bwd", true},
      // "conv" as in conv2d, convolve, convolution, implicit_convolve_sgemm; not as in convert or
      // conversion (cuDNN's SDPA backward runs cudnn::fusion::convert_dq_to_16bits, a cast).
      {"conv", true, "er"},
      {"implicit_gemm", true},
      {"wgrad", true},
      {"dgrad", true},
      {"scudnn", true},
      {"winograd", true},
      {"gemm", true},
      {"cutlass", true},
      {"xmma", true},
      {"cublas", true},
      {"sm90_", false},
      {"sm100_", false},
      {"nvjet", true},
      {"Cijk_", false},
      {"gemv", true},
      {"matmul", true},
      {"scatter", true},
      {"reduce", true},
      {"softmax", true},
      {"norm", true},
      {"sum_", true},
      {"argmax", true},
      {"copy", true},
      {"cat", true},
      {"index", true},
      {"gather", true},
      {"transpose", true},
      {"elementwise", true},
      {"vectorized", true},
      {"unrolled", true},
      {"pointwise", true},
      {"fill", true},
      {"ncclKernel", false},
      {"ncclDevKernel", false},
  });
  return set;
}

// is_tensor_core_kernel()'s patterns, all matched as written.
// clang-format off
enum TensorCorePattern : int {
  kFfma, kHfma, kSimt, kH884, kS884, kH1688, kS1688, kHmma, kI8816, k16816, kC1688, kWgmma,
  kSm90Xmma, kTcNvjet, kCutlass3x, kTcgen05, kTensorop, kTcXmma, kTcGemm, kTf32,
};
// clang-format on

const PatternSet& tensor_core_patterns() {
  static const PatternSet set({
      {"ffma"},      {"hfma"},    {"simt"},     {"h884"},  {"s884"},  {"h1688"},     {"s1688"},
      {"hmma"},      {"i8816"},   {"16816"},    {"c1688"}, {"wgmma"}, {"sm90_xmma"}, {"nvjet"},
      {"cutlass3x"}, {"tcgen05"}, {"tensorop"}, {"xmma"},  {"gemm"},  {"tf32"},
  });
  return set;
}

constexpr uint64_t bit(int pattern) {
  return uint64_t{1} << pattern;
}

bool is_communication(std::string_view name, uint64_t found) {
  return starts_with(name, "nccl") || (found & (bit(kNcclKernel) | bit(kNcclDevKernel))) ||
         starts_with(name, "hccl");
}

bool is_memory_op(SliceKind kind, std::string_view name) {
  return kind == SliceKind::kMemcpy || kind == SliceKind::kMemset || starts_with(name, "Memcpy") ||
         starts_with(name, "Memset") || starts_with(name, "dma");
}

}  // namespace

HtaCategory hta_category(SliceKind kind, std::string_view name) {
  // Two patterns only: cheaper as two searches than as the class's whole set.
  const bool communication = starts_with(name, "nccl") || contains(name, "ncclKernel") ||
                             contains(name, "ncclDevKernel") || starts_with(name, "hccl");
  if (communication) return HtaCategory::kCommunication;
  if (is_memory_op(kind, name)) return HtaCategory::kMemory;
  return HtaCategory::kComputation;
}

KernelClass kernel_class(SliceKind kind, std::string_view name) {
  const uint64_t found = class_patterns().find_all(name);
  auto any = [found](std::initializer_list<int> patterns) {
    for (int p : patterns)
      if (found & bit(p)) return true;
    return false;
  };
  if (is_communication(name, found)) return KernelClass::kNccl;
  if (is_memory_op(kind, name)) return KernelClass::kMemory;
  // Triton's fused attention kernels (its tutorial's, vLLM's prefix prefill) are "_attn_fwd",
  // "_attn_bwd_dkdv", "_fwd_kernel": no "flash" or "attention" in them.
  if (any({kFlash, kFmha, kAttention, kSdpa, kAttnFwd, kAttnBwd}) || name == "_fwd_kernel" ||
      name == "_bwd_kernel")
    return KernelClass::kAttention;
  // cuDNN also names its convolution kernels by algorithm, without "conv": volta_scudnn_128x64_
  // stridedB_interior_nn_v1, *_scudnn_winograd_*, winograd_nonfused::winogradForwardData4x4.
  // MIOpen's implicit-GEMM convolutions are "igemm_fwd_gtcx_nhwc_fp16", "igemm_wrw_...".
  if (any({kConv, kImplicitGemm, kWgrad, kDgrad, kScudnn, kWinograd}) ||
      starts_with(name, "igemm_"))
    return KernelClass::kConvolution;
  // Inductor's templates (max-autotune): "triton_tem_fused_mm_0", "triton_tem_fused_addmm_relu_1",
  // "triton_tem_fused_bmm_2": Triton GEMMs (tl.dot), not the pointwise/reduction kernels
  // "triton_poi_"/"triton_red_"/"triton_per_" are.
  if (starts_with(name, "triton_tem_")) return KernelClass::kGemm;
  // CUTLASS's kernel entry points (cutlass::Kernel<Op>, Kernel2<Op>, device_kernel<Op>: its
  // GEMMs and convolutions, cuBLASLt's and PyTorch's among them) as an Nsight Systems export
  // names them when it has only their shortName: the template argument that says "gemm" is
  // gone, and read as no class they made a cutlass GEMM "custom kernels" (nsys_cuda_rows.cpp).
  if (name == "Kernel" || name == "Kernel2" || name == "device_kernel") return KernelClass::kGemm;
  if (any({kGemm, kCutlass, kXmma, kCublas, kSm90, kSm100, kNvjet, kCijk, kGemv}) ||
      ((found & bit(kMatmul)) && !(found & bit(kScatter))))  // Triton matmul kernels
    return KernelClass::kGemm;
  if (starts_with(name, "triton_")) return KernelClass::kTriton;
  if (any({kReduce, kSoftmax, kNorm, kSum, kArgmax})) return KernelClass::kReduction;
  if (any({kCopy, kCat, kIndex, kGather, kScatter, kTranspose})) return KernelClass::kCopy;
  if (any({kElementwise, kVectorized, kUnrolled, kPointwise, kFill}))
    return KernelClass::kElementwise;
  return KernelClass::kOther;
}

const char* hta_category_name(HtaCategory c) {
  switch (c) {
    case HtaCategory::kCommunication:
      return "communication";
    case HtaCategory::kMemory:
      return "memory";
    case HtaCategory::kComputation:
      return "computation";
  }
  return "computation";
}

const char* kernel_class_name(KernelClass c) {
  switch (c) {
    case KernelClass::kGemm:
      return "gemm";
    case KernelClass::kAttention:
      return "attention";
    case KernelClass::kConvolution:
      return "convolution";
    case KernelClass::kElementwise:
      return "elementwise";
    case KernelClass::kReduction:
      return "reduction";
    case KernelClass::kCopy:
      return "copy";
    case KernelClass::kNccl:
      return "nccl";
    case KernelClass::kTriton:
      return "triton";
    case KernelClass::kMemory:
      return "memory";
    case KernelClass::kOther:
      return "other";
  }
  return "other";
}

bool is_math_class(KernelClass c) {
  return c == KernelClass::kGemm || c == KernelClass::kAttention || c == KernelClass::kConvolution;
}

bool is_tensor_core_kernel(std::string_view name) {
  const uint64_t found = tensor_core_patterns().find_all(name);
  // Names that say the math runs on the CUDA cores come first: cuBLAS's fp32 GEMMs without TF32
  // are "sm80_xmma_gemm_f32f32_f32f32_f32_..._ffma_..." (xmma_gemm, yet FFMA instructions) and
  // CUTLASS's are "cutlass_80_simt_sgemm_...", as a real H200 capture with TF32 off showed
  // (examples/capture/gpu_nvtx.py --fp32). The TB plugin's list counts the former as tensor-core.
  if (found & (bit(kFfma) | bit(kHfma) | bit(kSimt))) return false;
  // Inductor's GEMM templates run tl.dot, which runs on tensor cores for the fp16/bf16/TF32
  // inputs max-autotune is used with (the name carries no dtype).
  if (starts_with(name, "triton_tem_")) return true;
  // The TB plugin's list plus the Hopper/Blackwell patterns. Its "xmma_gemm",
  // "xmma_implicit_gemm" and "xmma_sparse_gemm" each hold both "xmma" and "gemm", below.
  for (int p = kH884; p <= kTensorop; ++p)
    if (found & bit(p)) return true;
  // cuDNN/cuBLAS MMA kernels named by op rather than "xmma_gemm" (sm80_xmma_fprop_implicit_gemm_
  // tf32..., sm80_xmma_dgrad_...gemm...), and TF32 kernels, which run on tensor cores.
  if ((found & bit(kTcXmma)) && (found & bit(kTcGemm))) return true;
  return (found & bit(kTf32)) != 0;
}

}  // namespace ks
