// Kernel categories (HTA) and classes (ours), tensor-core detection
// (src/analysis/kernel_class.cpp).
#include "analysis/kernel_class.h"

#include <catch2/catch.hpp>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>

using ks::HtaCategory;
using ks::KernelClass;
using ks::SliceKind;

TEST_CASE("HTA categories: communication, then memory, then computation", "[analysis][kernels]") {
  CHECK(ks::hta_category(SliceKind::kKernel, "ncclKernel_AllReduce_RING_LL_Sum_float") ==
        HtaCategory::kCommunication);
  CHECK(ks::hta_category(SliceKind::kKernel, "ncclDevKernel_AllGather_RING_LL") ==
        HtaCategory::kCommunication);
  CHECK(ks::hta_category(SliceKind::kKernel, "void ncclKernel<...>") ==
        HtaCategory::kCommunication);
  CHECK(ks::hta_category(SliceKind::kKernel, "hccl_allreduce") == HtaCategory::kCommunication);
  CHECK(ks::hta_category(SliceKind::kMemcpy, "Memcpy DtoD (Device -> Device)") ==
        HtaCategory::kMemory);
  CHECK(ks::hta_category(SliceKind::kKernel, "Memset (Device)") == HtaCategory::kMemory);
  CHECK(ks::hta_category(SliceKind::kKernel, "dma_copy") == HtaCategory::kMemory);
  CHECK(ks::hta_category(SliceKind::kKernel, "volta_sgemm_128x64_nn") == HtaCategory::kComputation);
  CHECK(std::string(ks::hta_category_name(HtaCategory::kCommunication)) == "communication");
}

TEST_CASE("Kernel classes separate math from overhead", "[analysis][kernels]") {
  auto cls = [](std::string_view name) { return ks::kernel_class(SliceKind::kKernel, name); };
  CHECK(cls("ampere_sgemm_128x64_nn") == KernelClass::kGemm);
  CHECK(cls("sm90_xmma_gemm_bf16bf16_bf16f32") == KernelClass::kGemm);
  CHECK(cls("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT") == KernelClass::kGemm);
  CHECK(cls("Cijk_Alik_Bljk_HHS_BH_MT128x128x32") == KernelClass::kGemm);
  CHECK(cls("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm>") == KernelClass::kGemm);
  CHECK(cls("flash_fwd_kernel<Flash_fwd_kernel_traits<128>>") == KernelClass::kAttention);
  CHECK(cls("fmha_cutlassF_f16_aligned_64x64") == KernelClass::kAttention);
  CHECK(cls("cudnn::detail::implicit_convolve_sgemm") == KernelClass::kConvolution);
  CHECK(cls("sm80_xmma_fprop_implicit_gemm_f16f16") == KernelClass::kConvolution);
  // CUTLASS's entry points as an nsys export names them with only shortName: still GEMMs.
  CHECK(cls("Kernel") == KernelClass::kGemm);
  CHECK(cls("Kernel2") == KernelClass::kGemm);
  CHECK(cls("device_kernel") == KernelClass::kGemm);
  CHECK(cls("my_Kernel") == KernelClass::kOther);
  // Inductor's max-autotune GEMM templates are math; its pointwise kernels are not.
  CHECK(cls("triton_tem_fused_mm_0") == KernelClass::kGemm);
  CHECK(cls("triton_tem_fused_addmm_relu_1") == KernelClass::kGemm);
  CHECK(cls("triton_poi_fused_add_0") == KernelClass::kTriton);
  CHECK(ks::is_tensor_core_kernel("triton_tem_fused_bmm_2"));
  // Triton's fused attention (its tutorial's, vLLM's prefix prefill) and MIOpen's implicit GEMM.
  CHECK(cls("_attn_fwd") == KernelClass::kAttention);
  CHECK(cls("_attn_bwd_dkdv") == KernelClass::kAttention);
  CHECK(cls("_fwd_kernel") == KernelClass::kAttention);
  CHECK(cls("_layer_norm_fwd_kernel") != KernelClass::kAttention);
  CHECK(cls("igemm_fwd_gtcx_nhwc_fp16") == KernelClass::kConvolution);
  // A cast inside cuDNN's SDPA backward (H200, torch 2.11): "convert" is no convolution.
  CHECK(cls("void cudnn::fusion::convert_dq_to_16bits<true>(void const*, void*, unsigned int)") ==
        KernelClass::kOther);
  CHECK(cls("void implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false>") ==
        KernelClass::kConvolution);
  CHECK(cls("void at::native::conv_depthwise2d_forward_kernel<float>") ==
        KernelClass::kConvolution);
  // cuDNN convolutions named by algorithm (V100 ResNet-50 traces in ../shared).
  CHECK(cls("volta_scudnn_128x64_stridedB_interior_nn_v1") == KernelClass::kConvolution);
  CHECK(cls("cudnn_volta_scudnn_winograd_128x128_ldg1_ldg4_relu_tile148t_nt_v1") ==
        KernelClass::kConvolution);
  CHECK(cls("void cudnn::winograd_nonfused::winogradForwardData4x4<float, float>(...)") ==
        KernelClass::kConvolution);
  // Batch norm stays overhead.
  CHECK(cls("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, 512, true, 1>") ==
        KernelClass::kOther);
  CHECK(cls("triton_poi_fused_add_0") == KernelClass::kTriton);
  CHECK(cls("void at::native::reduce_kernel<512, 1>") == KernelClass::kReduction);
  CHECK(cls("softmax_warp_forward") == KernelClass::kReduction);
  CHECK(cls("void at::native::index_elementwise_kernel") == KernelClass::kCopy);
  CHECK(cls("CatArrayBatchedCopy") == KernelClass::kCopy);
  CHECK(cls("void at::native::vectorized_elementwise_kernel<4, FillFunctor<float>>") ==
        KernelClass::kElementwise);
  CHECK(cls("ncclDevKernel_AllReduce_Sum_f32_RING_LL") == KernelClass::kNccl);
  CHECK(ks::kernel_class(SliceKind::kMemcpy, "Memcpy HtoD") == KernelClass::kMemory);
  CHECK(cls("my_custom_kernel") == KernelClass::kOther);
  CHECK(ks::is_math_class(KernelClass::kGemm));
  CHECK(ks::is_math_class(KernelClass::kAttention));
  CHECK(ks::is_math_class(KernelClass::kConvolution));
  CHECK_FALSE(ks::is_math_class(KernelClass::kElementwise));
  CHECK_FALSE(ks::is_math_class(KernelClass::kTriton));
  CHECK(std::string(ks::kernel_class_name(KernelClass::kAttention)) == "attention");
}

TEST_CASE("Tensor-core kernels are recognized by name", "[analysis][kernels]") {
  CHECK(ks::is_tensor_core_kernel("volta_h884gemm_64x64_ldg8_nn"));
  CHECK(ks::is_tensor_core_kernel("turing_fp16_s1688gemm_fp16_128x128_ldg8_f2f_nn"));
  CHECK(ks::is_tensor_core_kernel("ampere_fp16_s16816gemm_fp16_256x128_ldg8_f2f_nn"));
  CHECK(ks::is_tensor_core_kernel("sm80_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize96x128x32"));
  CHECK(ks::is_tensor_core_kernel("sm90_xmma_gemm_bf16bf16_bf16f32"));
  CHECK(ks::is_tensor_core_kernel("void cutlass::device_kernel<cutlass3x_sm90_wgmma>"));
  CHECK(ks::is_tensor_core_kernel("nvjet_tst_128x256_64x4_1x2_h_bz_coopA_NNT"));
  CHECK_FALSE(ks::is_tensor_core_kernel("volta_sgemm_128x64_nn"));
  // An H200 with TF32 off (torch 2.11): cuBLAS's xmma kernels on FFMA, CUTLASS's SIMT GEMMs.
  CHECK_FALSE(ks::is_tensor_core_kernel(
      "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_"
      "alignc4_execute_kernel_trt"));
  CHECK_FALSE(ks::is_tensor_core_kernel(
      "void cutlass::Kernel2<cutlass_80_simt_sgemm_128x256_8x4_nt_align1>(cutlass_80_simt_sgemm_"
      "128x256_8x4_nt_align1::Params)"));
  // The same run with bf16 autocast: cuBLAS's nvjet and cuDNN's wgmma attention.
  CHECK(ks::is_tensor_core_kernel("nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT"));
  CHECK(ks::is_tensor_core_kernel(
      "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_"
      "kernel0_0"));
  CHECK(ks::is_tensor_core_kernel(
      "void "
      "cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align2>"));
  CHECK_FALSE(ks::is_tensor_core_kernel("void at::native::vectorized_elementwise_kernel"));
}

namespace {

// The classifier as it was before one pass (a search per pattern, session hostile12): the
// one-pass version must give the same answer for every name.
bool ref_icontains(std::string_view s, std::string_view lower) {
  for (size_t i = 0; i + lower.size() <= s.size(); ++i) {
    size_t j = 0;
    while (j < lower.size() && std::tolower(static_cast<unsigned char>(s[i + j])) == lower[j]) ++j;
    if (j == lower.size()) return true;
  }
  return false;
}
bool ref_contains(std::string_view s, std::string_view p) {
  return s.find(p) != std::string_view::npos;
}
bool ref_starts(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

KernelClass reference_class(SliceKind kind, std::string_view name) {
  auto ic = [name](std::string_view p) { return ref_icontains(name, p); };
  auto c = [name](std::string_view p) { return ref_contains(name, p); };
  if (ref_starts(name, "nccl") || c("ncclKernel") || c("ncclDevKernel") || ref_starts(name, "hccl"))
    return KernelClass::kNccl;
  if (kind == SliceKind::kMemcpy || kind == SliceKind::kMemset || ref_starts(name, "Memcpy") ||
      ref_starts(name, "Memset") || ref_starts(name, "dma"))
    return KernelClass::kMemory;
  if (ic("flash") || ic("fmha") || ic("attention") || ic("sdpa") || ic("attn_fwd") ||
      ic("attn_bwd") || name == "_fwd_kernel" || name == "_bwd_kernel")
    return KernelClass::kAttention;
  bool conv = false;
  for (size_t at = 0; at + 4 <= name.size(); ++at)
    if (ref_icontains(name.substr(at, 4), "conv") && !ref_icontains(name.substr(at + 4, 2), "er"))
      conv = true;
  if (conv || ic("implicit_gemm") || ic("wgrad") || ic("dgrad") || ic("scudnn") || ic("winograd") ||
      ref_starts(name, "igemm_"))
    return KernelClass::kConvolution;
  if (ref_starts(name, "triton_tem_")) return KernelClass::kGemm;
  if (name == "Kernel" || name == "Kernel2" || name == "device_kernel") return KernelClass::kGemm;
  if (ic("gemm") || ic("cutlass") || ic("xmma") || ic("cublas") || c("sm90_") || c("sm100_") ||
      ic("nvjet") || c("Cijk_") || ic("gemv") || (ic("matmul") && !ic("scatter")))
    return KernelClass::kGemm;
  if (ref_starts(name, "triton_")) return KernelClass::kTriton;
  if (ic("reduce") || ic("softmax") || ic("norm") || ic("sum_") || ic("argmax"))
    return KernelClass::kReduction;
  if (ic("copy") || ic("cat") || ic("index") || ic("gather") || ic("scatter") || ic("transpose"))
    return KernelClass::kCopy;
  if (ic("elementwise") || ic("vectorized") || ic("unrolled") || ic("pointwise") || ic("fill"))
    return KernelClass::kElementwise;
  return KernelClass::kOther;
}

bool reference_tensor_core(std::string_view name) {
  auto c = [name](std::string_view p) { return ref_contains(name, p); };
  if (c("ffma") || c("hfma") || c("simt")) return false;
  if (ref_starts(name, "triton_tem_")) return true;
  for (const char* p : {"h884", "s884", "h1688", "s1688", "hmma", "i8816", "16816", "xmma_gemm",
                        "xmma_implicit_gemm", "xmma_sparse_gemm", "c1688", "wgmma", "sm90_xmma",
                        "nvjet", "cutlass3x", "tcgen05", "tensorop"})
    if (c(p)) return true;
  if (c("xmma") && c("gemm")) return true;
  return c("tf32");
}

}  // namespace

TEST_CASE("One pass over a kernel name classifies it as a search per pattern did",
          "[analysis][kernels]") {
  // Names made of the patterns' pieces, in both cases, overlapping and cut: every pattern found,
  // missed by a byte, at the start, at the end, after a false start ("convconver", "ssdpa").
  const char* const pieces[] = {"nccl",        "ncclKernel",
                                "ncclDev",     "Kernel",
                                "hccl",        "Memcpy",
                                "Memset",      "dma",
                                "flash",       "FMHA",
                                "atten",       "attention",
                                "sdpa",        "attn_fwd",
                                "attn_bwd",    "_fwd_kernel",
                                "conv",        "CONV",
                                "er",          "ER",
                                "e",           "implicit_gemm",
                                "wgrad",       "DGRAD",
                                "scudnn",      "winograd",
                                "triton_tem_", "triton_",
                                "Kernel2",     "device_kernel",
                                "gemm",        "GeMm",
                                "cutlass",     "cutlass3x",
                                "xmma",        "XMMA",
                                "cublas",      "sm90_",
                                "sm100_",      "nvjet",
                                "Cijk_",       "cijk_",
                                "gemv",        "matmul",
                                "scatter",     "reduce",
                                "softmax",     "norm",
                                "sum_",        "argmax",
                                "copy",        "cat",
                                "index",       "gather",
                                "transpose",   "elementwise",
                                "vectorized",  "unrolled",
                                "pointwise",   "fill",
                                "ffma",        "hfma",
                                "simt",        "h884",
                                "s884",        "h1688",
                                "s1688",       "hmma",
                                "i8816",       "16816",
                                "xmma_gemm",   "c1688",
                                "wgmma",       "sm90_xmma",
                                "tcgen05",     "tensorop",
                                "tf32",        "_",
                                "x",           "s",
                                "c",           "1",
                                "<",           " ",
                                "\xff",        "igemm_"};
  const size_t n = sizeof(pieces) / sizeof(pieces[0]);
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state]() {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  size_t differ = 0, names = 0;
  for (int round = 0; round < 200000; ++round) {
    std::string name;
    const int parts = 1 + static_cast<int>(next() % 5);
    for (int k = 0; k < parts; ++k) {
      std::string piece = pieces[next() % n];
      if (next() % 4 == 0 && piece.size() > 1) piece.pop_back();  // a pattern missed by a byte
      name += piece;
    }
    for (SliceKind kind : {SliceKind::kKernel, SliceKind::kMemcpy}) {
      ++names;
      if (ks::kernel_class(kind, name) != reference_class(kind, name)) ++differ;
    }
    if (ks::is_tensor_core_kernel(name) != reference_tensor_core(name)) {
      ++differ;
      UNSCOPED_INFO("tensor core differs: " << name);
    }
    if (ks::kernel_class(SliceKind::kKernel, name) != reference_class(SliceKind::kKernel, name))
      UNSCOPED_INFO("class differs: " << name);
    if (differ > 5) break;
  }
  CHECK(names >= 400000);
  CHECK(differ == 0);
}
