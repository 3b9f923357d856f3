// The nsys-style summaries on a hand-made trace: CUDA API calls (api_summary.cpp), CPU
// annotations, CPU ops by self and total time (cpu_op_summary.cpp) and kernels grouped by class
// and by GPU annotation (kernel_groups.cpp).
#include <catch2/catch.hpp>

#include "analysis/api_summary.h"
#include "analysis/cpu_op_summary.h"
#include "analysis/kernel_groups.h"
#include "helpers.h"

namespace {

// Times in us. Thread 1:
//   ProfilerStep#1 [0, 100) > aten::linear [10, 60) > aten::addmm [20, 50) > cudaLaunchKernel [30,
//   34)
//                            aten::linear [60, 70) (no children)
//   ProfilerStep#2 [100, 150) > "## forward ##" [100, 120) > cudaMemcpyAsync [105, 107)
//   cudaDeviceSynchronize [140, 150) (inside step 2)
// GPU stream 7: gpu_user_annotation "ProfilerStep#1" [0, 100) (the step's own: passed over) >
//   "## forward ##" [30, 80) > sm90_gemm [35, 45), elementwise_kernel [50, 52); outside
//   forward: elementwise_kernel [90, 94).
const char* kTrace = R"J([
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},
  {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":10,"dur":50},
  {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":20,"dur":30},
  {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":30,"dur":4,"args":{"correlation":1}},
  {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":60,"dur":10},
  {"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":100,"dur":50},
  {"ph":"X","cat":"user_annotation","name":"## forward ##","pid":1,"tid":1,"ts":100,"dur":20},
  {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":105,"dur":2},
  {"ph":"X","cat":"cuda_runtime","name":"cudaDeviceSynchronize","pid":1,"tid":1,"ts":140,"dur":10},
  {"ph":"X","cat":"gpu_user_annotation","name":"ProfilerStep#1","pid":0,"tid":7,"ts":0,"dur":100},
  {"ph":"X","cat":"gpu_user_annotation","name":"## forward ##","pid":0,"tid":7,"ts":30,"dur":50},
  {"ph":"X","cat":"kernel","name":"sm90_gemm","pid":0,"tid":7,"ts":35,"dur":10,"args":{"stream":7,"correlation":1}},
  {"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":50,"dur":2,"args":{"stream":7}},
  {"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":7,"ts":90,"dur":4,"args":{"stream":7}}
])J";

}  // namespace

TEST_CASE("CUDA API calls with the nsys columns", "[analysis][summaries]") {
  auto t = ks_test::load(kTrace);
  ks::NamedStatsTable a = ks::summarize_api_calls(*t);
  // cudaDeviceSynchronize 10, cudaLaunchKernel 4, cudaMemcpyAsync 2: total 16.
  CHECK(a.count == 3);
  CHECK(a.total_ns == 16000);
  REQUIRE(a.rows.size() == 3);
  CHECK(t->str(a.rows[0].name) == "cudaDeviceSynchronize");
  CHECK(a.rows[0].percent == 62.5);
  CHECK(t->str(a.rows[1].name) == "cudaLaunchKernel");
  CHECK(t->str(a.rows[2].name) == "cudaMemcpyAsync");
  CHECK(a.rows[2].stats.max_ns == 2000);
}

TEST_CASE("CPU annotations: every ProfilerStep#N under one row", "[analysis][summaries]") {
  auto t = ks_test::load(kTrace);
  ks::NamedStatsTable n = ks::summarize_annotations(*t);
  REQUIRE(n.rows.size() == 2);
  CHECK(n.rows[0].label == "ProfilerStep#*");
  CHECK(n.rows[0].stats.count == 2);
  CHECK(n.rows[0].stats.total_ns == 150000);
  CHECK(n.rows[0].stats.median_ns == 75000);
  CHECK(n.rows[1].label.empty());
  CHECK(t->str(n.rows[1].name) == "## forward ##");
  CHECK(n.total_ns == 170000);
}

TEST_CASE("CPU annotations: emit_nvtx's ranges of one op under one row", "[analysis][summaries]") {
  // The ranges emit_nvtx pushes name each call ("aten::mm, seq = 3, sizes = [...]"): one row
  // per call would bury the table; the op's plain name joins its row.
  auto t = ks_test::load(R"([
    {"ph":"X","cat":"user_annotation","name":"aten::mm, seq = 1","pid":1,"tid":1,"ts":0,"dur":5},
    {"ph":"X","cat":"user_annotation","name":"aten::mm, seq = 2, op_id = 9, sizes = [[2, 3]]",
     "pid":1,"tid":1,"ts":10,"dur":7},
    {"ph":"X","cat":"user_annotation","name":"aten::mm","pid":1,"tid":1,"ts":20,"dur":1},
    {"ph":"X","cat":"user_annotation","name":"forward","pid":1,"tid":1,"ts":30,"dur":2}
  ])");
  ks::NamedStatsTable n = ks::summarize_annotations(*t);
  REQUIRE(n.rows.size() == 2);
  CHECK(n.rows[0].label == "aten::mm");
  CHECK(n.rows[0].stats.count == 3);
  CHECK(n.rows[0].stats.total_ns == 13000);
  CHECK(t->str(n.rows[1].name) == "forward");
  CHECK(n.rows[1].label.empty());
}

TEST_CASE("CPU ops by self time: duration minus direct children", "[analysis][summaries]") {
  auto t = ks_test::load(kTrace);
  ks::CpuOpSummary c = ks::summarize_cpu_ops(*t);
  // aten::linear: [10,60) has child addmm 30 -> self 20; [60,70) self 10: total 60, self 30.
  // aten::addmm [20,50) has child cudaLaunchKernel 4 -> self 26.
  REQUIRE(c.rows.size() == 2);
  CHECK(t->str(c.rows[0].name) == "aten::linear");
  CHECK(c.rows[0].total.count == 2);
  CHECK(c.rows[0].total.total_ns == 60000);
  CHECK(c.rows[0].self_ns == 30000);
  CHECK(c.rows[0].self_max_ns == 20000);
  CHECK(t->str(c.rows[1].name) == "aten::addmm");
  CHECK(c.rows[1].self_ns == 26000);
  CHECK(c.count == 3);
  CHECK(c.self_ns == 56000);
  CHECK(c.rows[0].self_percent == Approx(100.0 * 30 / 56));
}

TEST_CASE("Kernels by class and by innermost GPU annotation", "[analysis][summaries]") {
  auto t = ks_test::load(kTrace);
  const ks::LaunchJoin join = ks::build_launch_join(*t);
  const ks::StepsResult steps = ks::find_steps(*t, join, false);
  ks::KernelGroups g = ks::group_kernels(*t, nullptr, join, steps);
  // gemm 10 (math); elementwise 2 + 4 = 6: total 16, math 62.5 %.
  CHECK(g.total_ns == 16000);
  CHECK(g.math_ns == 10000);
  CHECK(g.math_pct == 62.5);
  REQUIRE(g.by_class.size() == 2);
  CHECK(g.by_class[0].klass == ks::KernelClass::kGemm);
  CHECK(g.by_class[0].category == ks::HtaCategory::kComputation);
  CHECK(g.by_class[1].klass == ks::KernelClass::kElementwise);
  CHECK(g.by_class[1].stats.count == 2);
  CHECK(g.by_class[1].percent == 37.5);
  // "## forward ##": gemm 10 + elementwise 2 = 12; outside it, in the step's range only: 4.
  CHECK(g.has_annotations);
  REQUIRE(g.by_annotation.rows.size() == 2);
  CHECK(t->str(g.by_annotation.rows[0].name) == "## forward ##");
  CHECK(g.by_annotation.rows[0].stats.total_ns == 12000);
  CHECK(g.by_annotation.rows[1].name == 0);
  CHECK(g.by_annotation.rows[1].stats.total_ns == 4000);

  SECTION("the op set limits the kernels") {
    std::vector<bool> included(t->slices.size(), true);
    for (uint32_t i : ks_test::slices_named(*t, "sm90_gemm")) included[i] = false;
    ks::KernelGroups f = ks::group_kernels(*t, &included, join, steps);
    CHECK(f.total_ns == 6000);
    CHECK(f.math_ns == 0);
  }
}

TEST_CASE("Triton matmuls are GEMMs; TF32 and xmma GEMM kernels use tensor cores",
          "[analysis][summaries]") {
  CHECK(ks::kernel_class(ks::SliceKind::kKernel, "_matmul_ogs_NNT_bf16xbf16xmxfp4_16x128x256x1") ==
        ks::KernelClass::kGemm);
  CHECK(ks::kernel_class(ks::SliceKind::kKernel, "_finalize_matmul_scatter_bf16") !=
        ks::KernelClass::kGemm);
  CHECK(ks::is_tensor_core_kernel(
      "sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw"));
  CHECK(ks::is_tensor_core_kernel("ampere_sgemm_128x64_tn_tf32"));
  CHECK_FALSE(ks::is_tensor_core_kernel("ampere_sgemm_128x64_nn"));
  CHECK_FALSE(ks::is_tensor_core_kernel("cutlass_80_simt_sgemm_256x128_8x4_nn_align1"));
}
