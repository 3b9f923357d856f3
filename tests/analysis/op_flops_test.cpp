// FLOP formulas (src/analysis/op_flops.h) on small shapes against values worked out by hand, and
// the GPU peak table's name rules (src/analysis/gpu_peaks.h).
#include <catch2/catch.hpp>
#include <string>

#include "analysis/gpu_peaks.h"
#include "analysis/op_flops.h"
#include "model/math_op_names.h"

using ks::MathDtype;
using ks::op_flops;

TEST_CASE("GEMM formulas count 2*M*N*K", "[math][flops]") {
  SECTION("mm: [2,3] @ [3,4] = 2*2*4*3 = 48") {
    auto f = op_flops("aten::mm", "[[2, 3], [3, 4]]", "[\"float\", \"float\"]", "");
    REQUIRE(f.ok);
    CHECK(f.flops == 48);
    CHECK(f.dtype == MathDtype::kFp32);
    CHECK(f.m == 2);
    CHECK(f.n == 4);
    CHECK(f.k == 3);
  }
  SECTION("addmm leaves the bias add out: [5] + [2,3] @ [3,5] = 2*2*5*3 = 60") {
    auto f = op_flops("aten::addmm", "[[5], [2, 3], [3, 5], [], []]",
                      "[\"c10::BFloat16\", \"c10::BFloat16\", \"c10::BFloat16\", \"Scalar\", "
                      "\"Scalar\"]",
                      "[\"\", \"\", \"\", \"1\", \"1\"]");
    REQUIRE(f.ok);
    CHECK(f.flops == 60);
    CHECK(f.dtype == MathDtype::kBf16);
  }
  SECTION("bmm: [4,2,3] @ [4,3,5] = 2*4*2*5*3 = 240; baddbmm reads inputs 1 and 2") {
    CHECK(op_flops("aten::bmm", "[[4, 2, 3], [4, 3, 5]]", "", "").flops == 240);
    CHECK(op_flops("aten::baddbmm", "[[4, 2, 5], [4, 2, 3], [4, 3, 5], [], []]", "", "").flops ==
          240);
  }
  SECTION("linear: x[2,3,4] W[5,4] = 2*(2*3)*4*5 = 240") {
    auto f = op_flops("aten::linear", "[[2, 3, 4], [5, 4], [5]]", "[\"c10::Half\"]", "");
    REQUIRE(f.ok);
    CHECK(f.flops == 240);
    CHECK(f.dtype == MathDtype::kFp16);
  }
  SECTION("matmul broadcasts batch dims: [2,1,3,4] @ [5,4,6] = 2*(2*5)*3*6*4 = 1440") {
    CHECK(op_flops("aten::matmul", "[[2, 1, 3, 4], [5, 4, 6]]", "", "").flops == 1440);
  }
  SECTION("matmul with a vector: [3,4] @ [4] = 2*3*1*4 = 24") {
    CHECK(op_flops("aten::matmul", "[[3, 4], [4]]", "", "").flops == 24);
  }
  SECTION("a 3-D input to mm has no formula") {
    auto f = op_flops("aten::mm", "[[2, 3, 4], [4, 5]]", "", "");
    CHECK_FALSE(f.ok);
    CHECK(f.why_not == "A and B are not 2-D");
  }
}

TEST_CASE("convolution FLOPs follow the output size from stride, padding and dilation",
          "[math][flops]") {
  // x[1,2,5,5], w[3,2,3,3], stride 2, padding 1, dilation 1: P = floor((5+2-2-1)/2)+1 = 3 per
  // dim, so 2*N*K*(C/g)*R*S*P*Q = 2*1*3*2*3*3*3*3 = 972.
  SECTION("aten::convolution") {
    auto f =
        op_flops("aten::convolution", "[[1, 2, 5, 5], [3, 2, 3, 3], [], [], [], [], [], [], []]",
                 "[\"float\", \"float\"]",
                 "[\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", \"[0, 0]\", "
                 "\"1\"]");
    REQUIRE(f.ok);
    CHECK(f.flops == 972);
  }
  SECTION("cudnn_convolution has padding before stride") {
    auto f = op_flops(
        "aten::cudnn_convolution", "[[1, 2, 5, 5], [3, 2, 3, 3], [], [], [], [], [], [], []]", "",
        "[\"\", \"\", \"[1, 1]\", \"[2, 2]\", \"[1, 1]\", \"1\", \"False\", \"False\", \"True\"]");
    REQUIRE(f.ok);
    CHECK(f.flops == 972);
  }
  SECTION("miopen_convolution: padding at 3, stride at 4") {
    auto f = op_flops(
        "aten::miopen_convolution", "[[1, 2, 5, 5], [3, 2, 3, 3], [], [], [], [], [], [], []]", "",
        "[\"\", \"\", \"\", \"[1, 1]\", \"[2, 2]\", \"[1, 1]\", \"1\", \"False\", \"False\"]");
    REQUIRE(f.ok);
    CHECK(f.flops == 972);
  }
  SECTION("dilation 2 and groups: x[1,4,7,7], w[4,2,3,3] (groups 2), stride 1, pad 0") {
    // P = 7 - 2*2 = 3 per dim; 2*1*(9)*4*2*9 = 1296
    auto f = op_flops("aten::conv2d", "[[1, 4, 7, 7], [4, 2, 3, 3], [], [], [], [], []]", "",
                      "[\"\", \"\", \"\", \"[1]\", \"[0]\", \"[2]\", \"2\"]");
    REQUIRE(f.ok);
    CHECK(f.flops == 1296);
  }
  SECTION("no Concrete Inputs (PyTorch < 2.0): unknown, not guessed") {
    auto f = op_flops("aten::cudnn_convolution",
                      "[[32, 3, 224, 224], [64, 3, 7, 7], [], [], [], [], [], [], []]", "", "");
    CHECK_FALSE(f.ok);
    CHECK(f.why_not.find("stride/padding not recorded") == 0);
  }
  SECTION("transposed: 2*N*prod(H_in)*numel(w) = 2*1*4*(2*3*3*3) = 432") {
    auto f = op_flops(
        "aten::convolution", "[[1, 2, 2, 2], [2, 3, 3, 3], [], [], [], [], [], [], []]", "",
        "[\"\", \"\", \"\", \"[2, 2]\", \"[0, 0]\", \"[1, 1]\", \"True\", \"[0, 0]\", \"1\"]");
    REQUIRE(f.ok);
    CHECK(f.flops == 432);
  }
  SECTION("convolution_backward counts the gradients output_mask asks for") {
    // grad_out [1,3,3,3], input [1,2,5,5], w [3,2,3,3]: forward 2*1*9*54 = 972
    const char* dims = "[[1, 3, 3, 3], [1, 2, 5, 5], [3, 2, 3, 3], [], [], [], [], [], [], [], []]";
    auto both =
        op_flops("aten::convolution_backward", dims, "",
                 "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", \"False\", "
                 "\"[0, 0]\", \"1\", \"[True, True, False]\"]");
    REQUIRE(both.ok);
    CHECK(both.flops == 2 * 972);
    auto weight_only = op_flops("aten::convolution_backward", dims, "",
                                "[\"\", \"\", \"\", \"[0]\", \"[2, 2]\", \"[1, 1]\", \"[1, 1]\", "
                                "\"False\", \"[0, 0]\", \"1\", \"[False, True, True]\"]");
    CHECK(weight_only.flops == 972);
    auto unknown = op_flops("aten::convolution_backward", dims, "", "");
    CHECK(unknown.flops == 2 * 972);
  }
  SECTION("old cudnn_convolution_backward: input, grad_output, weight; both gradients") {
    auto f = op_flops("aten::cudnn_convolution_backward",
                      "[[1, 2, 5, 5], [1, 3, 3, 3], [3, 2, 3, 3], [], [], [], [], [], [], [], []]",
                      "", "");
    REQUIRE(f.ok);
    CHECK(f.flops == 2 * 972);
  }
}

TEST_CASE("attention FLOPs: 4*B*H*Lq*Lk*D forward, halved when causal, 2.5x backward",
          "[math][flops]") {
  // q,k,v [2,3,4,8]: 2*B*H*Lq*Lk*(D+Dv) = 2*6*4*4*16 = 3072
  const char* dims = "[[2, 3, 4, 8], [2, 3, 4, 8], [2, 3, 4, 8], [], [], [], []]";
  SECTION("flash, not causal") {
    auto f = op_flops("aten::_scaled_dot_product_flash_attention", dims, "[\"c10::BFloat16\"]",
                      "[\"\", \"\", \"\", \"0.\", \"False\", \"False\", \"0.125\"]");
    REQUIRE(f.ok);
    CHECK(f.flops == 3072);
    CHECK(f.dtype == MathDtype::kBf16);
  }
  SECTION("SDPA, causal") {
    auto f = op_flops("aten::scaled_dot_product_attention",
                      "[[2, 3, 4, 8], [2, 3, 4, 8], [2, 3, 4, 8], [], [], [], [], []]", "",
                      "[\"\", \"\", \"\", \"\", \"0.\", \"True\", \"\", \"False\"]");
    CHECK(f.flops == 1536);
  }
  SECTION("cross attention, Lk != Lq and Dv != D: 2*6*4*6*(8+2) = 2880") {
    auto f = op_flops("aten::_scaled_dot_product_efficient_attention",
                      "[[2, 3, 4, 8], [2, 3, 6, 8], [2, 3, 6, 2], [], [], [], [], []]", "", "");
    CHECK(f.flops == 2880);
  }
  SECTION("flash backward: 2.5 x forward") {
    auto f = op_flops("aten::_scaled_dot_product_flash_attention_backward",
                      "[[2, 3, 4, 8], [2, 3, 4, 8], [2, 3, 4, 8], [2, 3, 4, 8], [2, 3, 4, 8], [2, "
                      "3, 4], [], [], [], [], [], [], [], [], []]",
                      "", "");
    CHECK(f.flops == 2.5 * 3072);
  }
}

TEST_CASE("shape args that are not what Kineto writes give no FLOPs, never a crash",
          "[math][flops]") {
  for (const char* dims : {"", "[", "[[2, 3], [3, 4]", "[[2, x]]", "{}", "[[-1, 3], [3, 4]]",
                           "[[99999999999999999999999, 3], [3, 4]]", "[[2, 3], 4]"}) {
    INFO(dims);
    CHECK_FALSE(op_flops("aten::mm", dims, "", "").ok);
  }
  CHECK_FALSE(op_flops("aten::relu", "[[2, 3]]", "", "").ok);
  // A tensor list input parses as one non-tensor entry.
  auto s = ks::parse_input_dims("[[[2, 3], [4]], [5]]");
  REQUIRE(s.ok);
  CHECK(s.dims.size() == 2);
  CHECK(s.dims[0].empty());
}

TEST_CASE("every op with a formula is one whose shapes the importer keeps", "[math][flops]") {
  for (const char* n :
       {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::linear", "aten::matmul",
        "aten::convolution", "aten::cudnn_convolution", "aten::convolution_backward",
        "aten::scaled_dot_product_attention", "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_efficient_attention_backward"}) {
    INFO(n);
    CHECK(ks::has_flops_formula(n));
    CHECK(ks::is_math_op_name(n));
  }
  CHECK_FALSE(ks::is_math_op_name("aten::add"));
  CHECK_FALSE(ks::has_flops_formula("aten::_flash_attention_forward"));
}

TEST_CASE("GPU names map to peak rows by rule", "[math][peaks]") {
  auto row = [](const char* name) {
    const ks::GpuPeak* p = ks::find_gpu_peak(name);
    return p ? std::string(p->gpu) : std::string("unknown");
  };
  CHECK(row("NVIDIA A100-SXM4-80GB") == "NVIDIA A100 SXM4");
  CHECK(row("NVIDIA A100-PG509-200") == "NVIDIA A100 SXM4");
  CHECK(row("NVIDIA A100 80GB PCIe") == "NVIDIA A100 PCIe");
  CHECK(row("NVIDIA H100 80GB HBM3") == "NVIDIA H100 SXM");
  CHECK(row("NVIDIA H100 PCIe") == "NVIDIA H100 PCIe");
  CHECK(row("NVIDIA H100 NVL") == "NVIDIA H100 NVL");
  CHECK(row("NVIDIA H200") == "NVIDIA H200 SXM");
  CHECK(row("NVIDIA B200") == "NVIDIA B200");
  CHECK(row("Tesla V100-SXM2-32GB") == "NVIDIA V100 SXM2");
  CHECK(row("Tesla V100-DGXS-32GB") == "NVIDIA V100 SXM2");
  CHECK(row("Tesla V100-PCIE-16GB") == "NVIDIA V100 PCIe");
  CHECK(row("AMD Instinct MI300X") == "AMD Instinct MI300X");
  CHECK(row("AMD Instinct MI300X VF") == "AMD Instinct MI300X");
  CHECK(row("AMD Instinct MI250X") == "AMD Instinct MI250X");
  CHECK(row("AMD Instinct MI250") == "AMD Instinct MI250");
  CHECK(row("AMD Radeon Graphics") == "unknown");
  CHECK(row("Quadro GP100") == "unknown");
  CHECK(row("MTIA") == "unknown");
  CHECK(row("") == "unknown");
  const ks::GpuPeak* h100 = ks::find_gpu_peak("NVIDIA H100 80GB HBM3");
  REQUIRE(h100);
  CHECK(ks::peak_tflops(*h100, MathDtype::kBf16) == 989.5);
  CHECK(ks::peak_tflops(*h100, MathDtype::kTf32) == 494.5);
  const ks::GpuPeak* v100 = ks::find_gpu_peak("Tesla V100-SXM2-32GB");
  CHECK(ks::peak_tflops(*v100, MathDtype::kBf16) == 0);  // no BF16 on Volta
  size_t n = 0;
  const ks::GpuPeak* table = ks::gpu_peak_table(&n);
  for (size_t i = 0; i < n; ++i) {
    INFO(table[i].gpu);
    CHECK(std::string(table[i].url).rfind("https://", 0) == 0);
    CHECK(std::string(table[i].source).size() > 5);
  }
}
