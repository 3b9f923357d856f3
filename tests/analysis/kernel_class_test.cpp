// Kernel categories (HTA) and classes (ours), tensor-core detection
// (src/analysis/kernel_class.cpp).
#include "analysis/kernel_class.h"

#include <catch2/catch.hpp>

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
