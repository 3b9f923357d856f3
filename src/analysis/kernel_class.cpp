#include "analysis/kernel_class.h"
#include "util/text_match.h"

#include <cctype>
#include <string>

namespace ks {

namespace {

// "conv" as in conv2d, convolve, convolution, implicit_convolve_sgemm; not as in convert or
// conversion (cuDNN's SDPA backward runs cudnn::fusion::convert_dq_to_16bits, a cast).
bool names_convolution(std::string_view name) {
  for (size_t at = 0; at + 4 <= name.size(); ++at) {
    std::string_view rest = name.substr(at);
    if (!icontains(rest.substr(0, 4), "conv")) continue;
    if (!icontains(rest.substr(4, 2), "er")) return true;
  }
  return false;
}

bool is_communication(std::string_view name) {
  return starts_with(name, "nccl") || contains(name, "ncclKernel") ||
         contains(name, "ncclDevKernel") || starts_with(name, "hccl");
}

bool is_memory_op(SliceKind kind, std::string_view name) {
  return kind == SliceKind::kMemcpy || kind == SliceKind::kMemset || starts_with(name, "Memcpy") ||
         starts_with(name, "Memset") || starts_with(name, "dma");
}

}  // namespace

HtaCategory hta_category(SliceKind kind, std::string_view name) {
  if (is_communication(name)) return HtaCategory::kCommunication;
  if (is_memory_op(kind, name)) return HtaCategory::kMemory;
  return HtaCategory::kComputation;
}

KernelClass kernel_class(SliceKind kind, std::string_view name) {
  if (is_communication(name)) return KernelClass::kNccl;
  if (is_memory_op(kind, name)) return KernelClass::kMemory;
  // Triton's fused attention kernels (its tutorial's, vLLM's prefix prefill) are "_attn_fwd",
  // "_attn_bwd_dkdv", "_fwd_kernel": no "flash" or "attention" in them.
  if (icontains(name, "flash") || icontains(name, "fmha") || icontains(name, "attention") ||
      icontains(name, "sdpa") || icontains(name, "attn_fwd") || icontains(name, "attn_bwd") ||
      name == "_fwd_kernel" || name == "_bwd_kernel")
    return KernelClass::kAttention;
  // cuDNN also names its convolution kernels by algorithm, without "conv": volta_scudnn_128x64_
  // stridedB_interior_nn_v1, *_scudnn_winograd_*, winograd_nonfused::winogradForwardData4x4.
  // MIOpen's implicit-GEMM convolutions are "igemm_fwd_gtcx_nhwc_fp16", "igemm_wrw_...".
  if (names_convolution(name) || icontains(name, "implicit_gemm") || icontains(name, "wgrad") ||
      icontains(name, "dgrad") || icontains(name, "scudnn") || icontains(name, "winograd") ||
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
  if (icontains(name, "gemm") || icontains(name, "cutlass") || icontains(name, "xmma") ||
      icontains(name, "cublas") || contains(name, "sm90_") || contains(name, "sm100_") ||
      icontains(name, "nvjet") || contains(name, "Cijk_") || icontains(name, "gemv") ||
      (icontains(name, "matmul") && !icontains(name, "scatter")))  // Triton matmul kernels
    return KernelClass::kGemm;
  if (starts_with(name, "triton_")) return KernelClass::kTriton;
  if (icontains(name, "reduce") || icontains(name, "softmax") || icontains(name, "norm") ||
      icontains(name, "sum_") || icontains(name, "argmax"))
    return KernelClass::kReduction;
  if (icontains(name, "copy") || icontains(name, "cat") || icontains(name, "index") ||
      icontains(name, "gather") || icontains(name, "scatter") || icontains(name, "transpose"))
    return KernelClass::kCopy;
  if (icontains(name, "elementwise") || icontains(name, "vectorized") ||
      icontains(name, "unrolled") || icontains(name, "pointwise") || icontains(name, "fill"))
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
  // Names that say the math runs on the CUDA cores come first: cuBLAS's fp32 GEMMs without TF32
  // are "sm80_xmma_gemm_f32f32_f32f32_f32_..._ffma_..." (xmma_gemm, yet FFMA instructions) and
  // CUTLASS's are "cutlass_80_simt_sgemm_...", as a real H200 capture with TF32 off showed
  // (examples/capture/gpu_nvtx.py --fp32). The TB plugin's list counts the former as tensor-core.
  if (contains(name, "ffma") || contains(name, "hfma") || contains(name, "simt")) return false;
  // Inductor's GEMM templates run tl.dot, which runs on tensor cores for the fp16/bf16/TF32
  // inputs max-autotune is used with (the name carries no dtype).
  if (starts_with(name, "triton_tem_")) return true;
  static const char* const kPatterns[] = {"h884",
                                          "s884",
                                          "h1688",
                                          "s1688",
                                          "hmma",
                                          "i8816",
                                          "16816",
                                          "xmma_gemm",
                                          "xmma_implicit_gemm",
                                          "xmma_sparse_gemm",
                                          "c1688",
                                          "wgmma",
                                          "sm90_xmma",
                                          "nvjet",
                                          "cutlass3x",
                                          "tcgen05",
                                          "tensorop"};
  for (const char* p : kPatterns)
    if (contains(name, p)) return true;
  // cuDNN/cuBLAS MMA kernels named by op rather than "xmma_gemm" (sm80_xmma_fprop_implicit_gemm_
  // tf32..., sm80_xmma_dgrad_...gemm...), and TF32 kernels, which run on tensor cores.
  if (contains(name, "xmma") && contains(name, "gemm")) return true;
  return contains(name, "tf32");
}

}  // namespace ks
